"""The trusted first half of every sandboxed interpreter: runs the program, then vouches for it.

Run as ``python -I -B -c <this file's text> PROGRAM TIMEOUT`` by ``_sandbox_child.py`` with a
per-run secret (the nonce) readable once on fd 3 and the verdict channel on fd 4. A pass is a
line ``passed <nonce>`` on fd 4 followed by exit status 0, and only this code writes it: after
the program text returned normally, in the process the launcher started (not a fork of it).

Everything the program could use to end early with status 0 (``sys.exit``, ``SystemExit``,
``os._exit``, an ``atexit`` hook, ``sys.excepthook``, a signal handler, a thread) ends the
process before that line is written, or is caught here and counted as a failure; the program
never sees the nonce's file descriptor (read and closed before it starts), and functions it may
replace (``os.write``, ``os._exit``, builtins) were bound before it ran. The result line
(``passed``, ``timed out``, ``failed: <error>``, the strings of evaluate's code_eval) is only
informative: the program can write such lines too, but not the nonce.

What this cannot stop: the program shares this process, so code that deliberately reads this
function's frame (``sys._getframe(1).f_locals``) or raw memory can learn the nonce. Frame access
cannot be refused without breaking ordinary Python (namedtuple, enum, logging and warnings use
it), so the sandbox does not claim more than: no exit, hook, thread, signal or fork fakes a pass.

Standard library only; nothing from the project is importable here.
"""


def _run():
    import json
    import os
    import signal
    import sys
    import traceback

    # everything used after the program ran is bound here, before it can replace anything
    read, write, close, exit_now, getpid = os.read, os.write, os.close, os._exit, os.getpid
    dumps, print_exception, type_of, str_of = json.dumps, traceback.print_exception, type, str
    Failure = BaseException  # noqa: N806 - a local the program cannot rebind
    nonce = read(3, 64)
    close(3)
    path, timeout = sys.argv[1], float(sys.argv[2])
    me = getpid()
    streams = (sys.stdout, sys.stderr)

    class TimedOut(Failure):  # not an Exception: `except Exception` cannot swallow it
        pass

    def on_alarm(signum, frame):
        raise TimedOut()

    def record(text):
        try:
            write(4, (dumps({"result": text}) + "\n").encode())
        except Failure:  # the channel may have been closed by the program
            pass

    with open(path, encoding="utf-8") as handle:
        source = handle.read()
    outcome = "passed"
    try:
        code = compile(source, path, "exec")
        signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            exec(code, {})  # a fresh namespace, as code_eval does
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except TimedOut:
        outcome = "timed out"
    except Failure as error:  # SystemExit and KeyboardInterrupt fail too
        try:
            outcome = "failed: " + str_of(error)
        except Failure:  # a hostile __str__
            outcome = "failed: " + type_of(error).__name__
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
            write(4, b"passed " + nonce + b"\n")
        except Failure:  # the program closed the channel: no pass
            exit_now(1)
        record("passed")
        exit_now(0)
    record(outcome if getpid() == me else "failed: a forked process returned")
    exit_now(1)


_run()
