"""Programs that try to pass without passing, for the sandbox tests of edit_sim and code_eval,
and the probe that tells whether the sandbox can run on this machine (and if not, why).

Each is a candidate placed before the failing test ``assert f(1) == 2`` (``f`` returns its
argument). The first five end early with status 0 (a harness that trusts the exit status alone
counts each as a pass); the others try the same through signals, threads, replaced functions,
closed streams, forks and guessed verdict lines. evaluate's code_eval counts the first five as
failures.
"""

from __future__ import annotations

import os

import pytest

from cgm_metrics.execution.sandbox import run_program


def sandbox_unavailable() -> str | None:
    """Why the sandbox cannot run here (its own error, which names the cause), or None."""
    try:
        result = run_program("pass", timeout=5, allow_code_execution=True)
    except (RuntimeError, NotImplementedError) as error:
        return str(error)
    if not {"pid_namespace", "network_namespace"} <= set(result.isolation):
        return f"the sandbox ran without PID and network namespaces ({result.isolation})"
    return None


SANDBOX_UNAVAILABLE = sandbox_unavailable()
if SANDBOX_UNAVAILABLE is not None and os.environ.get("CGM_REQUIRE_SANDBOX") == "1":
    # scripts/test.sh sets it on Linux: there a sandbox that cannot start is a failure of the
    # harness (an error of every module that needs it), never a skip
    raise RuntimeError(f"CGM_REQUIRE_SANDBOX=1 but the sandbox cannot run here: "
                       f"{SANDBOX_UNAVAILABLE}")
needs_sandbox = pytest.mark.skipif(
    SANDBOX_UNAVAILABLE is not None, reason=f"the sandbox cannot run here: {SANDBOX_UNAVAILABLE}"
)

FAILING_TEST = "assert f(1) == 2"

HOSTILE_CANDIDATES = {
    "sys_exit": "import sys\ndef f(x):\n    return x\nsys.exit(0)\n",
    "os_exit": "import os\ndef f(x):\n    return x\nos._exit(0)\n",
    "raise_systemexit": "def f(x):\n    return x\nraise SystemExit\n",
    "atexit_os_exit": "import atexit, os\natexit.register(os._exit, 0)\ndef f(x):\n    return x\n",
    "excepthook_exit_0": (
        "import os, sys\nsys.excepthook = lambda *args: os._exit(0)\ndef f(x):\n    return x\n"
    ),
    "signal_handler_exit_0": (
        "import os, signal\n"
        "signal.signal(signal.SIGALRM, lambda *args: os._exit(0))\n"
        "signal.setitimer(signal.ITIMER_REAL, 0.05)\n"
        "def f(x):\n    import time\n    time.sleep(1)\n    return x\n"
    ),
    "thread_exits_0": (
        "import os, threading, time\n"
        "threading.Thread(target=lambda: (time.sleep(0.05), os._exit(0))).start()\n"
        "def f(x):\n    time.sleep(1)\n    return x\n"
    ),
    "replaced_functions_and_builtins": (
        "import builtins, os, sys\n"
        "real_exit = os._exit\n"
        "os._exit = lambda code: real_exit(0)\n"
        "os.write = lambda fd, data: len(data)\n"
        "builtins.BaseException = object\n"
        "builtins.__import__ = lambda *args, **kwargs: real_exit(0)\n"
        "def f(x):\n    return x\n"
    ),
    "closed_standard_streams": "import os\nos.close(1)\nos.close(2)\ndef f(x):\n    return x\n",
    "forked_child_carries_on": (
        "import os, time\n"
        "if os.fork() != 0:\n    time.sleep(0.2)\n    os._exit(0)\n"
        "def f(x):\n    return x\n"
    ),
    "guessed_verdict_lines": (
        "import json, os\n"
        "for fd in range(3, 256):\n"
        "    for line in (b'passed ' + b'0' * 64, json.dumps({'result': 'passed'}).encode()):\n"
        "        try:\n            os.write(fd, line + b'\\n')\n"
        "        except OSError:\n            pass\n"
        "os._exit(0)\n"
    ),
}
EARLY_EXIT_TRICKS = ["sys_exit", "os_exit", "raise_systemexit", "atexit_os_exit", "excepthook_exit_0"]
