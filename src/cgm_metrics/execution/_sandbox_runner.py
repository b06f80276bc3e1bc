"""The trusted first half of every sandboxed Python program: runs it, then vouches for it.

``run_python`` is called in the program's own process (forked by the sandbox's worker, after
the process took its uid, limits and private directories) with the run's secret (the nonce)
as an argument and the verdict channel on fd 4. A pass is a line ``passed <nonce>`` on fd 4
followed by exit status 0, and only this code writes it: after the program text returned
normally, in the process that started it (not a fork of it).

Everything the program could use to end early with status 0 (``sys.exit``, ``SystemExit``,
``os._exit``, an ``atexit`` hook, ``sys.excepthook``, a signal handler, a thread) ends the
process before that line is written, or is caught here and counted as a failure; functions it
may replace (``os.write``, ``os._exit``, builtins) were bound before it ran.

The verdict channel is the harness's: before its own lines, this code empties it (what the
program wrote there is dropped), then writes the pass line (if it passed) and one result line,
``result <mac> {"result": "passed" | "timed out" | "failed: <error>", "limit": ...}`` (the
strings of evaluate's code_eval; the limit its exception points to), where ``<mac>`` is a
keyed BLAKE2b of the JSON text with the nonce as its key. The host takes no line without a
valid mac: a program that writes result lines of its own (or a child of it that reads this
one) cannot make one the host believes. The JSON text is built here by builtins bound before
the program ran (no code the program could have replaced runs on it).

What this cannot stop: the program shares this process, so code that deliberately reads this
function's frame (``sys._getframe(1).f_locals``), the garbage collector's objects or raw memory
can learn the nonce. Frame access cannot be refused without breaking ordinary Python
(namedtuple, enum, logging and warnings use it); no in-process harness can refuse it
(evaluate's code_eval runs programs in-process too). The sandbox claims no more than: no exit,
hook, thread, signal or fork fakes a pass.

Standard library only; nothing from the project is importable here.
"""

import hashlib
import linecache
import os
import signal
import sys
import traceback

# errno values (Linux and BSD agree on these three)
_EAGAIN = 11
_EFBIG = 27
_EMFILE = 24
#: the longest error text a result line carries (the channel is bounded; the rest is cut)
RESULT_TEXT_LIMIT = 16 * 1024
#: the limits a result line may name; the host accepts no other name
LIMITS = ("memory_mb", "max_processes", "max_file_mb", "open_files")

try:  # the C function (a builtin the program cannot alter); json's Python one otherwise
    from _json import encode_basestring_ascii as _quoted
except ImportError:  # pragma: no cover - CPython always has _json
    from json.encoder import py_encode_basestring_ascii as _quoted


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


def run_python(source, nonce, timeout, verdict_fd=4, as_main=False):
    """Run ``source`` as code_eval does (``exec`` in a fresh namespace, ``"<string>"`` as its
    file name), then vouch for it. Never returns: the process ends here.

    ``as_main``: as ``python program.py`` runs a script (a program reading its stdin): its
    ``__name__`` is ``"__main__"``, ``sys.exit()`` / ``exit(0)`` end it normally (another
    exit status fails), and its non-daemon threads are waited for (within the time limit)
    before it ends, as the interpreter waits for them."""
    # everything used after the program ran is bound here, before it can replace anything
    write, exit_now, getpid = os.write, os._exit, os.getpid
    truncate, seek = os.ftruncate, os.lseek
    print_exception, type_of, str_of = traceback.print_exception, type, str
    is_a, show = isinstance, print
    classify, quoted, mac_of, limits = limit_of, _quoted, hashlib.blake2b, LIMITS
    Failure = BaseException  # noqa: N806 - a local the program cannot rebind
    Exit = SystemExit  # noqa: N806 - the same
    me = getpid()
    streams = (sys.stdout, sys.stderr)
    line = b"passed " + nonce + b"\n"
    key = nonce
    del nonce
    TimedOut = _TimedOut  # noqa: N806 - a local the program cannot rebind

    def on_alarm(signum, frame):
        raise TimedOut()

    def record(text, limit):
        # (built with the functions bound above: nothing the program replaced runs here)
        try:
            payload = ('{"result": ' + quoted(text[:RESULT_TEXT_LIMIT]) + ', "limit": '
                       + ('"' + limit + '"' if limit in limits or limit == "timeout"
                          else "null") + "}").encode("ascii")
            mac = mac_of(payload, key=key, digest_size=16).hexdigest().encode("ascii")
            write(verdict_fd, b"result " + mac + b" " + payload + b"\n")
        except Failure:  # the channel may have been closed by the program
            pass

    def clear():
        # the channel is the harness's: what the program wrote there is dropped
        try:
            truncate(verdict_fd, 0)
            seek(verdict_fd, 0, 0)
        except Failure:  # closed or replaced by the program: the host then finds no line
            pass

    # tracebacks show the program's lines, as they would for a file
    linecache.cache["<string>"] = (len(source), None, source.splitlines(True), "<string>")
    outcome, limit, status = "passed", None, 1
    try:
        code = compile(source, "<string>", "exec")
        signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            if as_main:
                try:
                    exec(code, {"__name__": "__main__", "__builtins__": __builtins__})
                except Exit as error:
                    if error.code not in (None, 0):  # its exit status, as the interpreter's
                        status = error.code if type_of(error.code) is int else 1
                        raise
                threading = sys.modules.get("threading")
                if threading is not None:  # the program's threads, as the interpreter's end
                    threading._shutdown()
            else:
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
            if as_main and is_a(error, Exit):
                # as the interpreter ends a script: no traceback; a code that is not a
                # number is printed
                if not is_a(error.code, int):
                    show(str_of(error.code), file=streams[1])
            else:
                tb = error.__traceback__
                print_exception(
                    type_of(error), error, tb.tb_next if tb is not None else None,
                    file=streams[1]
                )
        except Failure:
            pass
    for stream in streams:
        try:
            stream.flush()
        except Failure:  # a closed or replaced stream does not decide
            pass
    if getpid() == me:  # (a fork of the program that returned here leaves the channel as is)
        clear()
    if outcome == "passed" and getpid() == me:
        try:
            write(verdict_fd, line)
        except Failure:  # the program closed the channel: no pass
            exit_now(1)
        record("passed", None)
        exit_now(0)
    record(outcome if getpid() == me else "failed: a forked process returned", limit)
    exit_now(status & 0xFF or 1)
