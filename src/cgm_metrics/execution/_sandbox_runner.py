"""The trusted first half of every sandboxed Python program: runs it, then vouches for it.

``run_python`` is called in the program's own process (forked by the sandbox's worker, after
the process took its uid, limits and private directories) with the run's secret (the nonce)
as an argument and the verdict channel on fd 4. A pass is a line ``passed <nonce>`` on fd 4
followed by exit status 0, and only this code writes it: after the program text returned
normally, in the process that started it (not a fork of it).

Everything the program could use to end early with status 0 (``sys.exit``, ``SystemExit``,
``os._exit``, an ``atexit`` hook, ``sys.excepthook``, a signal handler, a thread) ends the
process before that line is written, or is caught here and counted as a failure; functions it
may replace (``os.write``, ``os._exit``, builtins) were bound before it ran. The result line
(``{"result": "passed" | "timed out" | "failed: <error>", "limit": ...}``, the strings of
evaluate's code_eval) is only informative: the program can write such lines too, but not the
nonce.

What this cannot stop: the program shares this process, so code that deliberately reads this
function's frame (``sys._getframe(1).f_locals``), the garbage collector's objects or raw memory
can learn the nonce. Frame access cannot be refused without breaking ordinary Python
(namedtuple, enum, logging and warnings use it); no in-process harness can refuse it
(evaluate's code_eval runs programs in-process too). The sandbox claims no more than: no exit,
hook, thread, signal or fork fakes a pass.

Standard library only; nothing from the project is importable here.
"""

import json
import linecache
import os
import signal
import sys
import traceback

# errno values (Linux and BSD agree on these three)
_EAGAIN = 11
_EFBIG = 27
_EMFILE = 24


def limit_of(error):
    """The sandbox limit that most likely raised ``error`` (or an exception it chains to):
    ``"memory_mb"``, ``"max_processes"``, ``"max_file_mb"``, ``"open_files"`` or None."""
    seen = 0
    while error is not None and seen < 16:
        seen += 1
        if isinstance(error, MemoryError):
            return "memory_mb"
        if isinstance(error, OSError):
            code = getattr(error, "errno", None)
            if code == _EFBIG:
                return "max_file_mb"
            if code == _EMFILE:
                return "open_files"
            if code == _EAGAIN and isinstance(error, BlockingIOError):
                return "max_processes"  # fork() and clone() fail with EAGAIN at RLIMIT_NPROC
        if isinstance(error, RuntimeError) and "can't start new thread" in str(error):
            return "max_processes"
        error = error.__cause__ or error.__context__
    return None


class _TimedOut(BaseException):
    """The program's wall-clock limit (not an Exception: ``except Exception`` cannot swallow
    it). Made once, in the worker: creating a class in every program's process costs more
    than its program often does."""


def run_python(source, nonce, timeout, verdict_fd=4):
    """Run ``source`` as code_eval does (``exec`` in a fresh namespace, ``"<string>"`` as its
    file name), then vouch for it. Never returns: the process ends here."""
    # everything used after the program ran is bound here, before it can replace anything
    write, exit_now, getpid = os.write, os._exit, os.getpid
    dumps, print_exception, type_of, str_of = json.dumps, traceback.print_exception, type, str
    classify = limit_of
    Failure = BaseException  # noqa: N806 - a local the program cannot rebind
    me = getpid()
    streams = (sys.stdout, sys.stderr)
    line = b"passed " + nonce + b"\n"
    del nonce
    TimedOut = _TimedOut  # noqa: N806 - a local the program cannot rebind

    def on_alarm(signum, frame):
        raise TimedOut()

    def record(text, limit):
        try:
            write(verdict_fd, (dumps({"result": text, "limit": limit}) + "\n").encode())
        except Failure:  # the channel may have been closed by the program
            pass

    # tracebacks show the program's lines, as they would for a file
    linecache.cache["<string>"] = (len(source), None, source.splitlines(True), "<string>")
    outcome, limit = "passed", None
    try:
        code = compile(source, "<string>", "exec")
        signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            exec(code, {})  # a fresh namespace, as code_eval does
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except TimedOut:
        outcome, limit = "timed out", "timeout"
    except Failure as error:  # SystemExit and KeyboardInterrupt fail too
        try:
            outcome = "failed: " + str_of(error)
        except Failure:  # a hostile __str__
            outcome = "failed: " + type_of(error).__name__
        try:
            limit = classify(error)
        except Failure:
            limit = None
        try:
            tb = error.__traceback__
            print_exception(
                type_of(error), error, tb.tb_next if tb is not None else None, file=streams[1]
            )
        except Failure:
            pass
    for stream in streams:
        try:
            stream.flush()
        except Failure:  # a closed or replaced stream does not decide
            pass
    if outcome == "passed" and getpid() == me:
        try:
            write(verdict_fd, line)
        except Failure:  # the program closed the channel: no pass
            exit_now(1)
        record("passed", None)
        exit_now(0)
    record(outcome if getpid() == me else "failed: a forked process returned", limit)
    exit_now(1)
