"""Run untrusted programs (generated code plus its unit tests) to obtain PASS, safely.

Nothing runs unless the caller opts in with ``allow_code_execution=True`` (a real boolean) or
the environment variable ``HF_ALLOW_CODE_EVAL=1`` (the switch of evaluate's ``code_eval``).

A :class:`Sandbox` is one worker: a process of the caller's own interpreter (started once,
``_sandbox_child.py``) that, on Linux, as root or (for any other user) inside an unprivileged
user namespace, lives in new mount and network namespaces: no network at all (not even
loopback), every mount read-only, ``/run``, the scratch directories and every folder but the
system's hidden (:func:`hidden_dirs`: the home directories, ``/srv``, ``/mnt``, ``/opt``, a
project's folder...), and the caller's current and script folders wherever they are
(:func:`caller_dirs`). The interpreter's prefixes and the ``sys.path`` entries that are its
standard library or installed packages (:func:`visible_paths`; never the caller's script or
current folder) stay visible read-only wherever they live, whatever their folders' permissions: as root,
through idmapped mounts that make their owner's files the run's own (read-only), so a venv
made under ``umask 077`` or below a ``mkdtemp`` folder works; without root, programs run under
the caller's own uid and read what the caller reads.

Each program then runs in a fresh process (a fork of the worker, which has imported nothing
of the caller's), in new PID, mount and IPC namespaces with a private empty ``/tmp``,
``/var/tmp`` and ``/dev/shm`` and its own ``/proc``; under the worker's own uid (as root; a
random uid no other worker shares) in a user namespace of its own, with no capability and no
new privileges; with limits on address space, processes and threads, file size, open files,
CPU time and wall-clock time. When a step of a program ends, every process it started is
killed; nothing it wrote survives the run.

Before the first program, a canary checks each worker: every path the interpreter needs is
readable from inside, the interpreter itself starts, a passing program passes and a failing
one fails. A failed canary, a worker that cannot be set up or a program that cannot be started
raise :class:`SandboxError` naming the cause and the fix: a harness failure is never counted
as the program's failure.

A pass means the program text ran to its end: the runner (``_sandbox_runner.py``) then writes
a per-run nonce to a channel of its own and exits with 0 (a command step with ``vouch=True``
gets the nonce on file descriptor 3 and must write it back itself, see :class:`Step`). Exiting early with status 0, from
the program or from any hook, thread or forked child, fails. Known limit, shared by every
in-process harness (evaluate's code_eval included): a program that deliberately reads the
runner's frame or memory can learn the nonce and fake a pass.

A program never chooses its own status: the status and the limit that ended a run are what the
sandbox observed (exit status, signal, its timer, CPU time, output size) and, for Python, the
runner's result line, signed with the nonce (see ``_sandbox_runner.py``); nothing else the
program wrote to the verdict channel is parsed (:func:`_parse_verdict`).

Where namespaces are unavailable the run is refused with the real cause
(``require_isolation=True``, the default); with ``require_isolation=False`` it runs with the
resource limits only, in its own session, which is killed at the end (no network isolation,
no uid change).

A program is a Python source string, or a sequence of :class:`Step` (Python code or a command
with its arguments, e.g. a compiler and then the binary it built) run one after the other in
the same private directory, each under the limits, stopping at the first that fails; ``files``
are written into that directory first.
"""

from __future__ import annotations

import atexit
import fcntl
import hashlib
import hmac
import itertools
import json
import math
import numbers
import os
import random
import secrets
import select
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CHILD_SCRIPT = Path(__file__).with_name("_sandbox_child.py")
ENV_SWITCH = "HF_ALLOW_CODE_EVAL"
_UID_RANGE = (1_000_000, 1_999_999_999)
_STARTUP_SECONDS = 120.0  # a worker's set-up and canary, on a loaded machine
_REPLY_MARGIN = 60.0  # beyond a run's own limits before a silent worker counts as broken

DEFAULT_TIMEOUT = 3.0
DEFAULT_MAX_PROCESSES = 512
DEFAULT_MAX_FILE_MB = 64
MAX_TIMEOUT = 86_400.0
#: the clocks a time limit can count: "wall" (elapsed time) or "cpu" (the CPU time, user and
#: system, of every process of the program: what the machine's load does not lengthen)
CLOCKS = ("wall", "cpu")
#: with the "cpu" clock, a program is also stopped after this many times its limit of wall-clock
#: time (a program that sleeps or waits uses no CPU time)
WALL_BACKSTOP_FACTOR = 10.0
OPEN_FILES = 1024

OPT_IN_MESSAGE = (
    "Running unit tests executes untrusted model-generated code. cgm-metrics runs it in a "
    "sandbox (separate process, namespaces, own uid, resource limits, no network), but it only "
    "does so when you opt in explicitly: pass `allow_code_execution=True`, or set the "
    f'environment variable {ENV_SWITCH}="1" (as for evaluate\'s code_eval). Alternatively pass '
    "the pass/fail outcomes you already have as `passed=[...]`."
)


# the result of a program that exited without vouching that its tests ran to the end
ENDED_EARLY = "failed: the program ended (exit status {status}) before its tests finished"


class SandboxError(RuntimeError):
    """The harness failed (not the program): the sandbox could not be set up, its canary
    failed, or a program could not be started. The message names the cause and the fix."""


# --- limits -----------------------------------------------------------------------------------


def default_memory_mb() -> int:
    """The default address-space limit: 8 GiB, or half the machine's memory if that is less
    (at least 1 GiB)."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // (1024 * 1024)
    except (ValueError, OSError, AttributeError):
        return 8192
    return max(1024, min(8192, total // 2))


def check_seconds(value: Any, argument: str = "timeout") -> float:
    """``value`` as seconds in (0, MAX_TIMEOUT], from any real number type (numpy included);
    a ValueError naming ``argument`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(
            f"`{argument}` must be a number of seconds, got {value!r} ({type(value).__name__})."
        )
    seconds = float(value)
    if not math.isfinite(seconds) or not 0 < seconds <= MAX_TIMEOUT:
        raise ValueError(
            f"`{argument}` must be a number of seconds in (0, {MAX_TIMEOUT:g}] (a day), got "
            f"{value!r}."
        )
    return seconds


def check_count(value: Any, argument: str, minimum: int, maximum: int, unit: str = "") -> int:
    """``value`` as an integer in [minimum, maximum] (numpy integers and whole floats
    included); a ValueError naming ``argument`` otherwise."""
    whole = isinstance(value, numbers.Integral) or (
        isinstance(value, numbers.Real) and float(value).is_integer()
    )
    if isinstance(value, bool) or not whole:
        raise ValueError(
            f"`{argument}` must be a whole number{' of ' + unit if unit else ''}, got {value!r} "
            f"({type(value).__name__})."
        )
    number = int(value)
    if not minimum <= number <= maximum:
        raise ValueError(
            f"`{argument}` must be between {minimum} and {maximum}{' ' + unit if unit else ''}, "
            f"got {value!r}."
        )
    return number


@dataclass(frozen=True)
class Limits:
    """What one program may use. ``timeout``: seconds per step, of the ``clock``: ``"wall"``
    (elapsed time; CPU time is limited to the next whole second plus one) or ``"cpu"`` (the
    CPU time of all the program's processes, user and system; the program is stopped at
    ``WALL_BACKSTOP_FACTOR`` times the limit of wall-clock time); ``memory_mb``: address
    space per process;
    ``max_processes``: processes and threads of the program together; ``max_file_mb``: the
    largest file it may write (its private ``/tmp`` holds twice that)."""

    timeout: float = DEFAULT_TIMEOUT
    memory_mb: int = field(default_factory=default_memory_mb)
    max_processes: int = DEFAULT_MAX_PROCESSES
    max_file_mb: int = DEFAULT_MAX_FILE_MB
    clock: str = "wall"

    def __post_init__(self) -> None:
        object.__setattr__(self, "timeout", check_seconds(self.timeout, "timeout"))
        if self.clock not in CLOCKS:
            raise ValueError(f"`clock` must be one of {', '.join(CLOCKS)}, got {self.clock!r}.")
        object.__setattr__(
            self, "memory_mb", check_count(self.memory_mb, "memory_mb", 64, 1 << 30, "MiB")
        )
        object.__setattr__(
            self, "max_processes", check_count(self.max_processes, "max_processes", 1, 1 << 22)
        )
        object.__setattr__(
            self, "max_file_mb", check_count(self.max_file_mb, "max_file_mb", 1, 1 << 30, "MiB")
        )

    @property
    def wall_timeout(self) -> float:
        """The wall-clock seconds a step may take: the timeout, or with the "cpu" clock the
        backstop (``WALL_BACKSTOP_FACTOR`` times it)."""
        if self.clock == "cpu":
            return min(MAX_TIMEOUT, self.timeout * WALL_BACKSTOP_FACTOR)
        return self.timeout

    def describe(self) -> dict[str, Any]:
        """The limits as the results record them."""
        return {"timeout": self.timeout, "clock": self.clock,
                "wall_timeout": self.wall_timeout, "memory_mb": self.memory_mb,
                "max_processes": self.max_processes, "max_file_mb": self.max_file_mb}


def check_limits(
    timeout: Any = DEFAULT_TIMEOUT,
    memory_mb: Any = None,
    max_processes: Any = None,
    max_file_mb: Any = None,
) -> Limits:
    """:class:`Limits` from the arguments of code_eval and edit_sim (None: the default), or a
    ValueError naming the argument, before anything runs."""
    return Limits(
        timeout=timeout,
        memory_mb=default_memory_mb() if memory_mb is None else memory_mb,
        max_processes=DEFAULT_MAX_PROCESSES if max_processes is None else max_processes,
        max_file_mb=DEFAULT_MAX_FILE_MB if max_file_mb is None else max_file_mb,
    )


# --- programs and results ---------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One step of a program: Python code run as code_eval runs it (``python``), or a
    command (``argv``) whose exit status 0 passes: its first item an absolute path, or
    ``./NAME`` for a file in the run's private directory (e.g. what an earlier step built).
    ``timeout`` (seconds) overrides the limits' timeout for this step; ``env`` adds
    environment variables to the step's fixed environment (``PATH``, ``HOME`` and ``TMPDIR``
    = the private directory, ``LANG=C.UTF-8``).

    ``vouch`` (commands only): the command passes only when, besides exiting with status 0,
    it wrote ``passed <token>`` to file descriptor 4, where ``<token>`` is a per-run secret it
    can read from file descriptor 3 (a memory file; ``/proc/self/fd/3``). A language's harness
    code writes that line after the program's last test (see ``languages.py``), so a program
    that ends early with status 0 fails.

    ``stdin``: what the step reads on its standard input (else ``/dev/null``): a text, or an
    :class:`~cgm_metrics.execution.io_spec.DataRef` (a span of a file). It reaches the program
    through a pipe written from the host's side as the program reads it (a DataRef is read
    from its file in chunks, never whole); it is never written where the program could read
    it as a file.

    ``max_output_bytes``: the step's standard output is kept whole up to this many bytes
    (:attr:`StepResult.stdout`); a step that writes more is killed, with status ``"killed"``
    and limit ``"output"``. None (the default): as before, its last 64 KiB are kept and its
    output is bounded by the limits' ``max_file_mb`` only.

    ``as_main`` (Python code only): the code runs as ``python program.py`` runs a script:
    ``__name__ == "__main__"``, ``sys.exit(0)`` ends it normally, its threads are waited for
    (see ``_sandbox_runner.run_python``)."""

    python: str | None = None
    argv: tuple[str, ...] | None = None
    timeout: float | None = None
    env: Mapping[str, str] | None = None
    vouch: bool = False
    stdin: Any = None
    max_output_bytes: int | None = None
    as_main: bool = False

    def __post_init__(self) -> None:
        if (self.python is None) == (self.argv is None):
            raise ValueError("a Step is either `python` code or a command `argv`, not both.")
        if self.python is not None and not isinstance(self.python, str):
            raise TypeError(f"`python` must be a string of code, got {type(self.python).__name__}.")
        if self.argv is not None:
            argv = tuple(self.argv)
            if not argv or not all(isinstance(a, str) and "\0" not in a for a in argv):
                raise ValueError("`argv` must be a non-empty list of strings.")
            relative = argv[0].startswith("./") and ".." not in Path(argv[0]).parts
            if not (os.path.isabs(argv[0]) or relative):
                raise ValueError(
                    f"`argv[0]` must be an absolute path or ./NAME (a file of the run's "
                    f"private directory), got {argv[0]!r}."
                )
            object.__setattr__(self, "argv", argv)
        if self.timeout is not None:
            object.__setattr__(self, "timeout", check_seconds(self.timeout, "timeout"))
        if self.env is not None:
            env = dict(self.env)
            for key, value in env.items():
                if (not isinstance(key, str) or not key or "=" in key or "\0" in key
                        or not isinstance(value, str) or "\0" in value):
                    raise ValueError(
                        f"`env` must map variable names to strings, got {key!r}: {value!r}."
                    )
            object.__setattr__(self, "env", env)
        if self.vouch and self.argv is None:
            raise ValueError("`vouch` is for commands: a Python step always vouches.")
        if self.as_main and self.python is None:
            raise ValueError("`as_main` is for Python code: a command is its own program.")
        if self.stdin is not None and not isinstance(self.stdin, str) and not all(
                hasattr(self.stdin, name) for name in ("path", "offset", "length")):
            raise TypeError(f"`stdin` must be a text or a DataRef, got "
                            f"{type(self.stdin).__name__}.")
        if self.max_output_bytes is not None:
            object.__setattr__(self, "max_output_bytes", check_count(
                self.max_output_bytes, "max_output_bytes", 1, 1 << 40, "bytes"))

    def request(self, timeout: float, cpu_seconds: float | None = None) -> dict:
        """The step as the worker receives it (``cpu_seconds``: its CPU-time limit, if the
        limits count CPU time)."""
        if self.python is not None:
            request = {"kind": "python", "source": self.python, "timeout": timeout,
                       "env": dict(self.env or {})}
            if self.as_main:
                request["as_main"] = True
        else:
            request = {"kind": "command", "argv": list(self.argv or ()), "timeout": timeout,
                       "env": dict(self.env or {}), "vouch": bool(self.vouch)}
        if cpu_seconds is not None:
            request["cpu_seconds"] = cpu_seconds
        if self.stdin is not None:
            request["stdin"] = True  # its pipe goes beside the request (see _StdinFeeder)
        if self.max_output_bytes is not None:
            request["max_output"] = self.max_output_bytes
        return request


@dataclass(frozen=True)
class Program:
    """A program of ``steps`` (see :class:`Step`) run one after the other in one private
    directory, into which ``files`` (relative path -> text) are written first."""

    steps: tuple[Step, ...]
    files: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        steps = tuple(self.steps) if isinstance(self.steps, Sequence) else ()
        if not steps or not all(isinstance(s, Step) for s in steps):
            raise TypeError("`steps` must be a non-empty list of Steps.")
        object.__setattr__(self, "steps", steps)
        object.__setattr__(self, "files", _check_files(self.files))


def _check_files(files: Mapping[str, str] | None) -> dict[str, str]:
    if files is None:
        return {}
    if not isinstance(files, Mapping):
        raise TypeError(f"`files` must map relative paths to texts, got {type(files).__name__}.")
    for name, text in files.items():
        parts = Path(name).parts if isinstance(name, str) else ()
        if not name or not isinstance(name, str) or os.path.isabs(name) or ".." in parts \
                or not isinstance(text, str):
            raise ValueError(f"`files`: {name!r} must be a relative path to a string.")
    return dict(files)


@dataclass(frozen=True)
class StepResult:
    """The outcome of one step."""

    passed: bool
    status: str  # "passed", "failed", "timeout" or "killed" (by the limit named in `limit`)
    returncode: int  # exit status, or 128 + the signal that ended it
    stdout: str  # the last 64 KiB; with the step's max_output_bytes, all of it up to that
    stderr: str  # the last 64 KiB
    duration: float  # wall-clock seconds
    killed_processes: int  # processes still running when the step ended, then killed
    leftover_processes: int  # processes alive after that cleanup (0: none outlived the step)
    result: str  # as evaluate's code_eval: "passed", "timed out" or "failed: <error>"
    # "timeout", "memory_mb", "max_processes", "max_file_mb", "open_files", "output"
    limit: str | None
    cpu_time: float = 0.0  # CPU seconds (user + system) of the step's processes
    stdout_bytes: int = 0  # how many bytes it wrote to stdout (kept or not)


@dataclass(frozen=True)
class ExecutionResult:
    """The outcome of one sandboxed run (of its last step run, for a program of steps)."""

    passed: bool
    status: str  # "passed", "failed", "timeout" or "killed" (by the limit named in `limit`)
    returncode: int
    stdout: str
    stderr: str
    isolation: tuple[str, ...]  # the protections that were in force
    duration: float  # wall-clock seconds
    leftover_processes: int  # processes still alive after the run, killed by the cleanup
    uid: int | None  # the run's own uid (None when not running as root)
    result: str = ""  # as evaluate's code_eval: "passed", "timed out" or "failed: <error>"
    limit: str | None = None  # the limit that ended it, if one did
    steps: tuple[StepResult, ...] = ()
    # where the run's time went (seconds): "to_worker", "run_setup" (its namespaces and
    # private directories), "process_start" (fork, uid, limits), "program", "cleanup" (kill
    # and reap what it left), "run_teardown", "to_host"
    timing: Mapping[str, float] = field(default_factory=dict)
    cpu_time: float = 0.0  # CPU seconds (user + system) of the program's processes, all steps


def _unrunnable(steps: Sequence[Step], files: Mapping[str, str],
                limits: Limits) -> tuple[str, str | None] | None:
    """Why a program cannot even be written into its private directory: ``(result,
    limit)``, or None: a text that UTF-8 cannot encode (a lone surrogate), or a file larger
    than ``max_file_mb`` (the largest file a program may write; its directory holds twice
    that)."""
    texts = [(f"the file {name}", text) for name, text in files.items()]
    texts += [("the program", step.python) for step in steps if step.python is not None]
    for what, text in texts:
        try:
            size = len(text.encode("utf-8"))
        except UnicodeEncodeError as error:
            return (f"failed: {what} is not valid text: {error.reason} "
                    f"({text[error.start]!r} at character {error.start}); it cannot be "
                    "written as UTF-8", None)
        if what != "the program" and size > limits.max_file_mb * 1024 * 1024:
            return (f"failed: {what} ({size / (1024 * 1024):.1f} MiB) is larger than "
                    f"max_file_mb ({limits.max_file_mb} MiB)", "max_file_mb")
    return None


def _as_steps(program: Any) -> list[Step]:
    if isinstance(program, str):
        return [Step(python=program)]
    if isinstance(program, Step):
        return [program]
    if isinstance(program, Program):
        return list(program.steps)
    if isinstance(program, Sequence) and program and all(isinstance(s, Step) for s in program):
        return list(program)
    raise TypeError(
        "a program is a string of Python code, a Step, a non-empty list of Steps or a "
        f"Program, got {type(program).__name__}."
    )


# --- opt-in -------------------------------------------------------------------------------------


def check_flag(value: object, argument: str) -> bool:
    """``value`` if it is a real boolean; a string such as "false" is an error, not a yes."""
    if isinstance(value, bool) or type(value).__module__ == "numpy" and type(value).__name__ in (
        "bool_",
        "bool",
    ):
        return bool(value)
    raise TypeError(
        f"`{argument}` must be True or False, got {value!r} ({type(value).__name__}); pass the "
        f"boolean itself (e.g. {argument}=True)"
        + (
            f', or set the environment variable {ENV_SWITCH}="1".'
            if argument == "allow_code_execution"
            else "."
        )
    )


def code_execution_allowed(allow_code_execution: bool = False) -> bool:
    """True when the caller opted in, by argument or by ``HF_ALLOW_CODE_EVAL=1``."""
    return check_flag(allow_code_execution, "allow_code_execution") or (
        os.environ.get(ENV_SWITCH, "") == "1"
    )


def require_opt_in(allow_code_execution: bool = False) -> None:
    if not code_execution_allowed(allow_code_execution):
        raise ValueError(OPT_IN_MESSAGE)


# --- what a run sees ----------------------------------------------------------------------------


def _sysctl(name: str) -> str | None:
    try:
        with open("/proc/sys/" + name.replace(".", "/"), encoding="ascii") as handle:
            return handle.read().strip()
    except OSError:
        return None


def namespace_failure(error: str) -> str:
    """Why the namespaces could not be created, with the machine's settings that decide it."""
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cause = (
            "creating Linux mount and network namespaces failed as root "
            f"({error}): this process lacks CAP_SYS_ADMIN (e.g. a container without it)"
        )
    else:
        settings = {
            name: _sysctl(name)
            for name in (
                "user.max_user_namespaces",
                "kernel.unprivileged_userns_clone",
                "kernel.apparmor_restrict_unprivileged_userns",
            )
        }
        shown = ", ".join(f"{k}={v}" for k, v in settings.items() if v is not None)
        cause = (
            f"unprivileged user namespaces are unavailable here ({error}"
            + (f"; {shown}" if shown else "")
            + "): the sandbox needs them to isolate a program without root"
        )
    return (
        f"cannot isolate the program: {cause}. Run as root, enable unprivileged user "
        "namespaces, or pass require_isolation=False to run with resource limits only."
    )


def _home_dirs() -> list[str]:
    """The home directory (of $HOME and of the user database), hidden from every run."""
    homes = {os.path.expanduser("~")}
    try:
        import pwd

        homes.add(pwd.getpwuid(os.getuid()).pw_dir)
    except (ImportError, KeyError):
        pass
    return sorted({os.path.realpath(h) for h in homes if h and os.path.isabs(h)} - {"/"})


# What a run sees of the host's root: the system's folders (read-only), nothing else. Every
# other top-level folder (/home, /root, /srv, /mnt, /media, /opt, /data, a project's /work...)
# and every folder of /var but these is covered by an empty one; the interpreter, its packages
# and the toolchains that live there are bound back, each exactly its own folder.
SYSTEM_DIRS = ("/bin", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/libx32", "/proc", "/run",
               "/sbin", "/sys", "/tmp", "/usr", "/var")
SYSTEM_VAR_DIRS = ("/var/cache", "/var/lib", "/var/lock", "/var/run", "/var/tmp")


def hidden_dirs() -> list[str]:
    """The host's folders every run sees empty: the top-level folders but
    :data:`SYSTEM_DIRS`, the folders of /var but :data:`SYSTEM_VAR_DIRS`, and the home
    directory (see :func:`visible_paths` for what is bound back)."""
    hidden = set(_home_dirs())
    for parent, kept in (("/", SYSTEM_DIRS), ("/var", SYSTEM_VAR_DIRS)):
        try:
            names = os.listdir(parent)
        except OSError:
            continue
        for name in names:
            path = os.path.join(parent, name)
            if path not in kept and os.path.isdir(path) and not os.path.islink(path):
                hidden.add(path)
    return sorted(hidden)


def hidden_files() -> list[str]:
    """The regular files at the host's root (not the system's: anything a user put there),
    which every run reads as empty."""
    try:
        names = os.listdir("/")
    except OSError:
        return []
    paths = [os.path.join("/", name) for name in names]
    return sorted(p for p in paths if os.path.isfile(p) and not os.path.islink(p))


def _is_package_folder(path: str) -> bool:
    parts = Path(path).parts
    return "site-packages" in parts or "dist-packages" in parts


def _caller_folders() -> set[str]:
    """The caller's current folder and script folder (never shown to a program)."""
    folders = {os.getcwd()}
    if sys.path and sys.path[0]:
        folders.add(os.path.abspath(sys.path[0]))
    script = sys.argv[0] if sys.argv else ""
    if script and script not in ("-c", "-m") and os.path.exists(script):
        folders.add(os.path.dirname(os.path.abspath(script)))
    return folders | {os.path.realpath(folder) for folder in folders}


# folders whose every subfolder belongs to the system (never a caller's folder to hide)
_SYSTEM_TREES = ("/bin", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/libx32", "/proc", "/run",
                 "/sbin", "/sys", "/tmp", "/var/tmp", "/dev/shm")
# folders whose direct subfolders belong to the system (/usr/lib, /usr/local/bin, /var/lib)
_SYSTEM_PARENTS = ("/usr", "/usr/local", "/var")
#: the folders where programs look for commands (their own PATH)
PROGRAM_PATH = ("/usr/local/bin", "/usr/bin", "/bin")


def caller_dirs(shown: Iterable[str] = ()) -> list[str]:
    """The caller's current and script folders, which every run sees empty wherever they are:
    also inside a folder it otherwise sees (a project in ``/usr/local/src/...``,
    ``/var/lib/...``, or in a folder of ``/opt`` shown for an interpreter). Not the system's
    own folders, whose files programs need: the root, the folders of :data:`SYSTEM_DIRS` and
    :data:`SYSTEM_VAR_DIRS`, everything in ``/etc``, ``/dev``, ``/bin``, ``/lib``... and in
    the scratch folders, the direct subfolders of ``/usr``, ``/usr/local`` and ``/var``, a
    folder of ``PATH`` or above one; nor a folder of ``shown`` itself (the interpreter's
    prefix or a path given to :class:`Sandbox`: what the runs need). The needed paths inside
    a hidden caller's folder (a project's own venv) are shown again."""
    commands = [p for p in os.environ.get("PATH", "").split(os.pathsep) if os.path.isabs(p)]
    keep = set(shown) | {os.path.realpath(p) for p in shown}
    found = set()
    for folder in _caller_folders():
        folder = os.path.abspath(folder)
        if (folder in keep or not os.path.isdir(folder)
                or any(_below(system, folder) for system in (
                    *SYSTEM_DIRS, *SYSTEM_VAR_DIRS, *commands, *PROGRAM_PATH))
                or any(_below(folder, tree) for tree in _SYSTEM_TREES)
                or os.path.dirname(folder) in _SYSTEM_PARENTS):
            continue
        found.add(folder)
    return sorted(found)


def _pth_entries(site_dirs: Iterable[str]) -> list[str]:
    """The folders the ``.pth`` files of ``site_dirs`` add to ``sys.path`` (packages installed
    that way, e.g. in editable mode), but a folder that is, or holds, the caller's current or
    script folder (an editable install of the project the caller runs from)."""
    callers = _caller_folders()
    on_path = {os.path.abspath(e) for e in sys.path if isinstance(e, str) and e}
    found = []
    for site_dir in site_dirs:
        try:
            names = sorted(n for n in os.listdir(site_dir) if n.endswith(".pth"))
        except OSError:
            continue
        for name in names:
            try:
                with open(os.path.join(site_dir, name), encoding="utf-8",
                          errors="replace") as handle:
                    lines = handle.read().splitlines()
            except OSError:
                continue
            for line in lines:
                line = line.strip()
                if not line or line.startswith(("#", "import ", "import\t")):
                    continue
                path = os.path.abspath(os.path.join(site_dir, line))
                if path not in on_path or not os.path.isdir(path):
                    continue
                if any(_below(caller, path) for caller in callers):
                    continue
                found.append(path)
    return found


def visible_paths() -> list[str]:
    """What a run sees of the host beyond the system's folders (:data:`SYSTEM_DIRS`): the
    interpreter's prefixes, its executable's directory, and the ``sys.path`` entries that are
    its standard library or installed packages (inside a prefix, or a ``site-packages`` /
    ``dist-packages`` folder, such as a venv's base added by a ``.pth`` file, and the folders
    the ``.pth`` files of those add, such as an editable install's source folder).

    Never the caller's current or script folder (nor a ``.pth`` folder that holds them) or a
    ``PYTHONPATH`` folder: their files stay hidden, whatever their permissions. Nor the home directory itself or its ancestors: a venv or an
    interpreter in the home directory or a project shows exactly its own folder.
    """
    prefixes = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix]
    candidates = list(prefixes)
    candidates += [os.path.dirname(os.path.abspath(sys.executable))]
    candidates += [os.path.dirname(os.path.realpath(sys.executable))]
    roots = {os.path.realpath(p) for p in prefixes} | {os.path.abspath(p) for p in prefixes}
    callers = _caller_folders()
    for entry in sys.path:
        if not isinstance(entry, str) or not os.path.isabs(entry):
            continue
        if entry in callers or os.path.realpath(entry) in callers:
            continue  # the script's folder, even inside a prefix (a project in /usr/local/src)
        real = os.path.realpath(entry)
        inside = any(_below(path, root) for root in roots
                     for path in (real, os.path.abspath(entry)) if root != "/")
        if inside or _is_package_folder(real) or _is_package_folder(entry):
            candidates.append(entry)
    candidates += _pth_entries([c for c in candidates if _is_package_folder(c)])
    homes = _home_dirs()
    found = set()
    for candidate in candidates:
        if not os.path.isabs(candidate) or not os.path.exists(candidate):
            continue
        for path in {os.path.abspath(candidate), os.path.realpath(candidate)}:
            if path == "/" or any(h == path or h.startswith(path.rstrip("/") + "/") for h in homes):
                continue  # the home directory or above it: would show everything
            if path in ("/tmp", "/var/tmp", "/dev/shm", "/proc", "/run"):
                continue
            found.add(path)
    return sorted(found)


def _below(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def check_paths(paths: Iterable[str]) -> list[str]:
    """Extra read-only paths for :class:`Sandbox`: existing absolute paths, none of them the
    root, a scratch directory or the home directory (or above it); a ValueError otherwise."""
    if isinstance(paths, (str, bytes)):
        raise TypeError("`paths` must be a list of paths, not one string; wrap it: [path].")
    homes = _home_dirs()
    found = []
    for path in paths:
        if not isinstance(path, str) or not os.path.isabs(path) or not os.path.exists(path):
            raise ValueError(f"`paths`: {path!r} must be the absolute path of an existing file "
                             "or folder.")
        real = os.path.realpath(path)
        if real in ("/", "/tmp", "/var/tmp", "/dev/shm", "/proc", "/run") or any(
            h == real or h.startswith(real.rstrip("/") + "/") for h in homes
        ):
            raise ValueError(f"`paths`: {path!r} would show the home directory, the root or a "
                             "scratch directory to the programs; give the folder that is needed.")
        found += [os.path.abspath(path), real]
    return sorted(set(found))


def processes_of(uid: int) -> list[int]:
    """The ids of the live processes running as ``uid`` (from /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    found.append(int(entry))
            except OSError:
                continue
    return found


# --- the canary ---------------------------------------------------------------------------------

_CANARY = """
import json, os, subprocess, sys
problems = []
for path in PATHS:
    try:
        if os.path.isdir(path):
            os.listdir(path)
        else:
            with open(path, "rb") as handle:
                handle.read(1)
    except OSError as error:
        problems.append([path, f"{type(error).__name__}: {error.strerror or error}"])
try:
    done = subprocess.run([sys.executable, "-c", "import encodings, json"], capture_output=True,
                          timeout=60)
    if done.returncode != 0:
        problems.append([sys.executable, "the interpreter fails to start: "
                         + done.stderr.decode(errors="replace")[-500:]])
except OSError as error:
    problems.append([sys.executable, f"{type(error).__name__}: {error.strerror or error}"])
if ISOLATED:
    with open("/proc/self/status") as handle:
        status = dict(line.split(":", 1) for line in handle if ":" in line)
    if int(status.get("CapEff", "0").strip(), 16):
        problems.append(["capabilities", "the program would run with capabilities"])
print(json.dumps(problems))
assert not problems, problems
"""


def _canary_source(paths: Sequence[str], isolated: bool) -> str:
    return _CANARY.replace("PATHS", repr(list(paths))).replace("ISOLATED", repr(isolated))


# --- one worker ---------------------------------------------------------------------------------


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


#: the limits a Python step's result line may name (its exception's); no other name is taken
RUNNER_LIMITS = ("memory_mb", "max_processes", "max_file_mb", "open_files")
#: the longest verdict-channel line the host reads (the runner's result line is shorter)
_VERDICT_LINE_LIMIT = 64 * 1024


def _parse_verdict(text: str, nonce: str) -> tuple[bool, str | None, str | None]:
    """Whether the runner vouched for the run (the nonce line), its result and the limit its
    exception points to. Only the runner's own lines count: the pass line, and a result line
    ``result <mac> <json>`` whose mac (a keyed BLAKE2b, the nonce its key) is valid; the first
    such line is taken. Anything else on the channel (what the program wrote there, however
    long or nested) is skipped without being parsed."""
    vouched, result, limit = False, None, None
    passed_line = f"passed {nonce}"
    key = nonce.encode("ascii")
    for line in text.splitlines():
        if line == passed_line:
            vouched = True
            continue
        if result is not None or not line.startswith("result ") or (
                len(line) > _VERDICT_LINE_LIMIT):
            continue
        _, mac, payload = (line.split(" ", 2) + ["", ""])[:3]
        try:
            data = payload.encode("ascii")
        except UnicodeEncodeError:
            continue
        expected = hashlib.blake2b(data, key=key, digest_size=16).hexdigest()
        if not hmac.compare_digest(mac, expected):
            continue
        try:  # the runner's own text (its mac is valid): a flat object, at most this line long
            record = json.loads(payload)
        except ValueError:
            continue
        if isinstance(record, dict) and isinstance(record.get("result"), str):
            result = record["result"]
            named = record.get("limit")
            limit = named if named in RUNNER_LIMITS or named == "timeout" else None
    return vouched, result, limit


def _step_result(step: Step, record: dict, nonce: str, cpu_seconds: float | None = None,
                 max_file_bytes: int = 0, timeout: float | None = None) -> StepResult:
    """A step's outcome from what the sandbox observed: its wait status, the worker's timer,
    its CPU time, the size of its output, and (a Python step) the runner's result line, whose
    mac proves the runner wrote it; a timeout the runner reports counts only when the step
    lasted its wall-clock limit (``timeout``). Nothing else the program wrote decides."""
    status_word = int(record["wait_status"])
    if os.WIFSIGNALED(status_word):
        signal_number = os.WTERMSIG(status_word)
        returncode = 128 + signal_number
    else:
        signal_number = None
        returncode = os.WEXITSTATUS(status_word) if os.WIFEXITED(status_word) else 255
    cpu_time = float(record.get("cpu", 0.0))
    # past its CPU-time limit: timed out, even if it ended before the kernel's whole-second
    # limit stopped it
    timed_out = bool(record.get("timed_out")) or (cpu_seconds is not None
                                                  and cpu_time > cpu_seconds)
    runner_timeout = False
    if step.python is not None:
        vouched, result, limit = _parse_verdict(record.get("verdict", ""), nonce)
        if limit == "timeout" or result == "timed out":
            # the runner's timer (code_eval's "timed out"): the step lasted its limit
            runner_timeout = timeout is not None and (
                float(record.get("duration", 0.0)) >= timeout - 0.005)
            limit = None
            if not runner_timeout:
                result = None
    elif step.vouch:  # the token line alone: what else the program wrote there says nothing
        vouched = f"passed {nonce}" in record.get("verdict", "").splitlines()
        result, limit = None, None
    else:
        vouched, result, limit = returncode == 0, None, None
    exceeded = bool(record.get("output_exceeded")) and step.max_output_bytes is not None
    passed = vouched and returncode == 0 and not timed_out and not exceeded
    if passed:
        status, result, limit = "passed", "passed", None
    elif exceeded:
        status, limit = "killed", "output"
        result = (f"failed: its output passed max_output_bytes ({step.max_output_bytes} "
                  "bytes)")
    elif timed_out or signal_number == getattr(signal, "SIGXCPU", -1) or runner_timeout:
        status, result, limit = "timeout", "timed out", "timeout"
    elif signal_number == getattr(signal, "SIGXFSZ", -1):
        status, limit = "killed", "max_file_mb"
        result = "failed: killed by SIGXFSZ (the file size limit)"
    elif limit in RUNNER_LIMITS:  # the runner saw the program's exception come from a limit
        status = "killed"
    elif max_file_bytes and int(record.get("output_bytes", 0)) >= max_file_bytes:
        # its output reached the file size limit: a process of it ended by SIGXFSZ (a shell
        # reports 128 + 25), or a write that failed with EFBIG
        status, limit = "killed", "max_file_mb"
        result = "failed: its output reached the file size limit (max_file_mb)"
    else:
        status = "failed"
    if result is None or result == "passed" and not passed:
        if signal_number is not None:
            result = f"failed: killed by {_signal_name(signal_number)}"
        elif returncode == 0 and (step.python is not None or step.vouch):
            result = ENDED_EARLY.format(status=returncode)
        else:
            result = f"failed: exit status {returncode}"
    return StepResult(
        passed=passed,
        status=status,
        returncode=returncode,
        stdout=record.get("stdout", ""),
        stderr=record.get("stderr", ""),
        duration=float(record.get("duration", 0.0)),
        killed_processes=int(record.get("killed", 0)),
        leftover_processes=int(record.get("leftover", 0)),
        result=result,
        limit=limit,
        cpu_time=cpu_time,
        stdout_bytes=int(record.get("stdout_bytes", 0)),
    )


def _timing(sent: float, received: float, times: dict, records: list[dict]) -> dict[str, float]:
    """The phases of one run, from the monotonic clock (shared by every process)."""
    steps = [record.get("times", {}) for record in records]
    try:
        return {
            "to_worker": times["received"] - sent,
            "run_setup": times["ready"] - times["received"],
            "process_start": sum(t["started"] - t["forked"] for t in steps),
            "program": sum(t["ended"] - t["started"] for t in steps),
            "cleanup": sum(t["cleaned"] - t["ended"] for t in steps),
            "run_teardown": times["left"] - steps[-1]["cleaned"],
            "to_host": received - times["left"],
        }
    except (KeyError, IndexError, TypeError):
        return {}



#: bytes read from a DataRef's file (and written to a pipe) at a time
STDIN_CHUNK = 1 << 16
#: the pipe capacity asked for a step's stdin (what a text this long is written at once,
#: without a writer thread); the kernel may give less (``fs.pipe-max-size``)
STDIN_PIPE_BYTES = 1 << 20
_F_SETPIPE_SZ = 1031
#: the most stdin pipes one program's steps may have (SCM_RIGHTS carries at most 253)
MAX_STDIN_STEPS = 250


def _stdin_bytes(source: Any) -> bytes | None:
    """The bytes of a text stdin, None for a DataRef (streamed from its file)."""
    if isinstance(source, str):
        return source.encode("utf-8", errors="surrogateescape")
    return None


class _StdinFeeder:
    """Writes the stdin of a run's steps into their pipes from the host's side: a text that
    fits the pipe at once, now; the rest (a longer text, a DataRef read from its file in
    chunks) by one thread, in the order of the steps, each pipe until it is written or its
    reader is gone (the step ended: every read end is closed with it)."""

    def __init__(self, sources: Sequence[Any]) -> None:
        self.read_ends: list[int] = []
        self.pending: list[tuple[int, Any, int]] = []  # (write end, source, bytes written)
        self.thread: threading.Thread | None = None
        self.stop = threading.Event()
        try:
            for source in sources:
                read_end, write_end = os.pipe2(os.O_CLOEXEC)
                self.read_ends.append(read_end)
                data = _stdin_bytes(source)
                size = len(data) if data is not None else (
                    source.length if source.length >= 0 else STDIN_PIPE_BYTES)
                if size > 1 << 16:
                    try:
                        fcntl.fcntl(write_end, _F_SETPIPE_SZ, min(size, STDIN_PIPE_BYTES))
                    except OSError:
                        pass  # the default capacity; the thread writes the rest
                written = 0
                if data is not None:
                    os.set_blocking(write_end, False)
                    try:
                        written = os.write(write_end, data) if data else 0
                    except BlockingIOError:
                        written = 0
                    os.set_blocking(write_end, True)
                    if written == len(data):
                        os.close(write_end)
                        continue
                self.pending.append((write_end, source if data is None else data, written))
        except BaseException:
            self.close()
            raise

    def start(self) -> None:
        """Close the host's read ends (the worker has its own) and write the rest."""
        for fd in self.read_ends:
            os.close(fd)
        self.read_ends = []
        if self.pending:
            self.thread = threading.Thread(target=self._write, daemon=True, name="sandbox-stdin")
            self.thread.start()

    def _write(self) -> None:
        for write_end, source, written in self.pending:
            try:
                if isinstance(source, bytes):
                    view = memoryview(source)[written:]
                    while view and not self.stop.is_set():
                        view = view[os.write(write_end, view[:STDIN_CHUNK]):]
                else:
                    self._copy(source, write_end)
            except OSError:  # BrokenPipeError: the step ended without reading all of it
                pass
            finally:
                os.close(write_end)
        self.pending = []

    def _copy(self, ref: Any, write_end: int) -> None:
        left = ref.length if ref.length >= 0 else None
        with open(ref.path, "rb") as handle:
            handle.seek(ref.offset)
            while not self.stop.is_set() and (left is None or left > 0):
                chunk = handle.read(STDIN_CHUNK if left is None else min(left, STDIN_CHUNK))
                if not chunk:
                    return
                if left is not None:
                    left -= len(chunk)
                view = memoryview(chunk)
                while view:
                    view = view[os.write(write_end, view):]

    def close(self) -> None:
        """After the reply: the writer ends (its readers are gone), every end closed."""
        self.stop.set()
        for fd in self.read_ends:
            os.close(fd)
        self.read_ends = []
        if self.thread is not None:
            self.thread.join()
            self.thread = None
        else:
            for write_end, _, _ in self.pending:
                os.close(write_end)
            self.pending = []


class Sandbox:
    """One sandbox worker: set up once, then :meth:`run` any number of programs, one at a time,
    each in a fresh process. A context manager; :meth:`close` ends the worker.

    ``paths``: host files or folders the programs also see, read-only, beyond
    :func:`visible_paths` (e.g. a compiler's installation below the home directory, which is
    hidden otherwise). ``started(sandbox)`` is called before the worker starts (so that a
    caller can :meth:`kill` it from another thread, e.g. on Ctrl-C, even during its canary).

    Raises :class:`SandboxError` when the worker cannot be set up or its canary fails (with
    ``check=True``, the default), ``ValueError`` without the opt-in.
    """

    def __init__(
        self,
        limits: Limits | None = None,
        *,
        require_isolation: bool = True,
        check: bool = True,
        allow_code_execution: bool = False,
        paths: Iterable[str] = (),
        started: Callable[[Sandbox], None] | None = None,
    ) -> None:
        require_opt_in(allow_code_execution)
        extra = check_paths(paths)
        self.require_isolation = check_flag(require_isolation, "require_isolation")
        if limits is not None and not isinstance(limits, Limits):
            raise TypeError(f"`limits` must be a Limits, got {type(limits).__name__}.")
        self.limits = limits if limits is not None else Limits()
        if os.name != "posix":
            raise NotImplementedError("Code execution is supported on POSIX systems only.")
        namespaces = sys.platform.startswith("linux")
        if not namespaces and self.require_isolation:
            raise SandboxError(
                f"cannot isolate the program: the sandbox's namespaces need Linux, and this is "
                f"{sys.platform}. Pass require_isolation=False to run with resource limits only."
            )
        self.uid: int | None = None
        if os.geteuid() == 0:
            self.uid = random.SystemRandom().randint(*_UID_RANGE)
        self._lock = threading.Lock()
        self._process: subprocess.Popen | None = None
        self._stderr = tempfile.TemporaryFile()
        self.isolation: tuple[str, ...] = ()
        self.notes: dict = {}
        self._paths = sorted(set(visible_paths()) | set(extra))
        if started is not None:
            started(self)  # e.g. to kill it on Ctrl-C, while its canary runs
        self._start(namespaces)
        if check:
            self._canary()

    # -- start and stop
    def _start(self, namespaces: bool) -> None:
        request_r, request_w = os.pipe()
        reply_r, reply_w = os.pipe()
        # the read ends of the steps' stdin pipes go to the worker on this socket
        self._fds, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-s", "-B", str(CHILD_SCRIPT), str(request_r), str(reply_w),
                 str(theirs.fileno())],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=self._stderr,
                pass_fds=(request_r, reply_w, theirs.fileno()),
                start_new_session=True,
                env={
                    "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                    "LANG": "C.UTF-8",
                    "PYTHONHASHSEED": "0",
                    "PYTHONDONTWRITEBYTECODE": "1",
                },
            )
        except OSError as error:
            for fd in (request_r, request_w, reply_r, reply_w):
                os.close(fd)
            theirs.close()
            self._fds.close()
            raise SandboxError(
                f"cannot start the sandbox's interpreter {sys.executable!r}: {error}. Run from a "
                "Python whose executable exists and can run scripts (sys.executable)."
            ) from None
        os.close(request_r)
        os.close(reply_w)
        theirs.close()
        self._requests, self._replies = request_w, reply_r
        self._send(
            {
                "visible_paths": self._paths,
                "home_dirs": _home_dirs(),
                "hidden_dirs": hidden_dirs(),
                "hidden_files": hidden_files(),
                "caller_dirs": caller_dirs(self._paths),
                "sys_path": [entry for entry in sys.path if isinstance(entry, str)],
                "uid": self.uid,
                "namespaces": namespaces,
                "require_isolation": self.require_isolation,
            }
        )
        ready = self._receive(_STARTUP_SECONDS, "setting up")
        if not ready.get("ready"):
            self.close()
            if "namespace_error" in ready:
                raise SandboxError(namespace_failure(ready["namespace_error"]))
            raise SandboxError(
                f"the sandbox could not be set up: {ready.get('setup_error')}. Run as root or "
                "with unprivileged user namespaces enabled, or pass require_isolation=False to "
                "run with resource limits only."
            )
        self.isolation = tuple(ready.get("isolation", []))
        self.notes = dict(ready.get("notes", {}))

    def close(self) -> None:
        """End the worker (idempotent)."""
        process, self._process = self._process, None
        if process is None:
            return
        try:
            self._send({"op": "exit"})
        except (OSError, SandboxError):
            pass
        for fd in (self._requests, self._replies):
            try:
                os.close(fd)
            except OSError:
                pass
        self._fds.close()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            process.wait()
        self._stderr.close()

    def kill(self) -> None:
        """End the worker now, with the program it is running (Ctrl-C): a :meth:`run` waiting
        for it raises :class:`SandboxError`. Safe from any thread."""
        process = self._process
        if process is None:
            return
        try:
            os.killpg(process.pid, signal.SIGKILL)  # its init dies too: so does every program
        except (ProcessLookupError, PermissionError):
            pass

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass

    # -- the channel
    def _send(self, message: dict) -> None:
        body = json.dumps(message).encode()
        data = struct.pack(">I", len(body)) + body
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(self._requests, view):]
        except BrokenPipeError:
            raise self._died("receiving a request") from None

    def _receive(self, seconds: float, doing: str) -> dict:
        header = self._read(4, seconds, doing)
        return json.loads(self._read(struct.unpack(">I", header)[0], seconds, doing))

    def _read(self, size: int, seconds: float, doing: str) -> bytes:
        deadline = time.monotonic() + seconds
        chunks = []
        while size:
            remaining = deadline - time.monotonic()
            ready, _, _ = select.select([self._replies], [], [], max(0.0, remaining))
            if not ready:
                process = self._process
                if process is not None:
                    try:
                        os.killpg(process.pid, signal.SIGKILL)
                    except (ProcessLookupError, PermissionError):
                        pass
                raise SandboxError(
                    f"the sandbox worker stopped answering while {doing} ({seconds:.0f} s). "
                    "This is a harness failure, not the program's; the worker was killed."
                    + self._stderr_tail()
                )
            chunk = os.read(self._replies, min(size, 1 << 20))
            if not chunk:
                raise self._died(doing)
            chunks.append(chunk)
            size -= len(chunk)
        return b"".join(chunks)

    def _stderr_tail(self) -> str:
        try:
            self._stderr.seek(0)
            text = self._stderr.read()[-3000:].decode("utf-8", errors="replace").strip()
        except (OSError, ValueError):
            return ""
        return f" Its error output: {text}" if text else ""

    def _died(self, doing: str) -> SandboxError:
        process = self._process
        code = process.poll() if process is not None else None
        if process is not None and code is None:
            try:
                code = process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        return SandboxError(
            f"the sandbox worker ended unexpectedly while {doing} (exit status {code}). This "
            "is a harness failure, not the program's." + self._stderr_tail()
        )

    # -- runs
    def run(
        self,
        program: Any,
        *,
        files: Mapping[str, str] | None = None,
        limits: Limits | None = None,
    ) -> ExecutionResult:
        """Run ``program`` (Python source, a Step, a list of Steps or a :class:`Program`) in
        a fresh process; ``files`` are written into its private directory first (with those
        of a Program)."""
        steps = _as_steps(program)
        limits, written, cpu_limits, timeouts, refused = self._plan(program, steps, files,
                                                                    limits)
        if refused is not None:  # this program's failure, decided before it is sent
            return refused
        with self._lock:
            reply, nonce, start, end = self._exchange(steps, written, limits, cpu_limits,
                                                      timeouts)
        return self._result(reply, steps, nonce, cpu_limits, timeouts, limits, start, end)

    def session(
        self,
        program: Any = (),
        *,
        files: Mapping[str, str] | None = None,
        limits: Limits | None = None,
    ) -> Session:
        """A run that stays open: its first steps (``program``: e.g. a compiler's, possibly
        none) run now, then :meth:`Session.step` runs one more step at a time in the same
        private directory (e.g. what they built, once per test, each with its own stdin),
        until :meth:`Session.close` (a context manager). The worker runs nothing else
        meanwhile. ``session.result`` is the result of the first steps; when one of them
        failed, the session is already closed."""
        steps = _as_steps(program) if program else []
        limits, written, cpu_limits, timeouts, refused = self._plan(program, steps, files,
                                                                    limits)
        if refused is not None:
            return Session(self, limits, refused, open_=False)
        self._lock.acquire()
        try:
            reply, nonce, start, end = self._exchange(steps, written, limits, cpu_limits,
                                                      timeouts, session=True)
            result = (self._result(reply, steps, nonce, cpu_limits, timeouts, limits, start,
                                   end) if steps else None)
        except BaseException:
            self._lock.release()
            raise
        open_ = bool(reply.get("open"))
        if not open_:
            self._lock.release()
        return Session(self, limits, result, open_=open_)

    def _plan(self, program: Any, steps: list[Step], files: Mapping[str, str] | None,
              limits: Limits | None) -> tuple[Limits, dict[str, str], list[float | None],
                                              list[float], ExecutionResult | None]:
        limits = limits if limits is not None else self.limits
        if not isinstance(limits, Limits):
            raise TypeError(f"`limits` must be a Limits, got {type(limits).__name__}.")
        written = dict(program.files) if isinstance(program, Program) else {}
        written.update(_check_files(files))
        if sum(step.stdin is not None for step in steps) > MAX_STDIN_STEPS:
            raise ValueError(f"a program may have at most {MAX_STDIN_STEPS} steps with a "
                             "stdin; run more as a session (Sandbox.session).")
        cpu_limits, timeouts = self._timeouts(steps, limits)
        refused = _unrunnable(steps, written, limits)
        if refused is None:
            return limits, written, cpu_limits, timeouts, None
        return limits, written, cpu_limits, timeouts, ExecutionResult(
            passed=False, status="killed" if refused[1] else "failed", returncode=-1,
            stdout="", stderr="", isolation=self.isolation, duration=0.0,
            leftover_processes=0, uid=self.uid, result=refused[0], limit=refused[1],
        )

    @staticmethod
    def _timeouts(steps: Sequence[Step], limits: Limits
                  ) -> tuple[list[float | None], list[float]]:
        # a step's own timeout is wall-clock time; the limits' may count CPU time
        cpu_limits = [limits.timeout if step.timeout is None and limits.clock == "cpu" else None
                      for step in steps]
        timeouts = [step.timeout if step.timeout is not None else limits.wall_timeout
                    for step in steps]
        return cpu_limits, timeouts

    def _exchange(self, steps: Sequence[Step], written: Mapping[str, str], limits: Limits,
                  cpu_limits: Sequence[float | None], timeouts: Sequence[float],
                  session: bool = False) -> tuple[dict, str, float, float]:
        """Send a run's request (with its steps' stdin pipes) and wait for its reply; under
        the lock."""
        if self._process is None:
            raise SandboxError("this sandbox worker was closed; make a new Sandbox.")
        nonce = secrets.token_hex(32)
        request = {
            "op": "run",
            "nonce": nonce,
            "files": dict(written),
            "limits": {
                "memory_bytes": limits.memory_mb * 1024 * 1024,
                "max_processes": limits.max_processes,
                "max_file_bytes": limits.max_file_mb * 1024 * 1024,
            },
            "steps": [s.request(t, c) for s, t, c in zip(steps, timeouts, cpu_limits, strict=True)],
        }
        if session:
            request["session"] = True
        start = time.monotonic()
        reply = self._send_with_stdin(request, steps, sum(timeouts) + _REPLY_MARGIN,
                                      "running a program")
        return reply, nonce, start, time.monotonic()

    def _send_with_stdin(self, request: dict, steps: Sequence[Step], seconds: float,
                         doing: str) -> dict:
        feeder = _StdinFeeder([step.stdin for step in steps if step.stdin is not None])
        try:
            self._send(request)
            if feeder.read_ends:
                try:
                    socket.send_fds(self._fds, [b"f"], feeder.read_ends)
                except OSError:
                    raise self._died("receiving a program's stdin") from None
            feeder.start()
            return self._receive(seconds, doing)
        finally:
            feeder.close()

    def _result(self, reply: dict, steps: Sequence[Step], nonce: str,
                cpu_limits: Sequence[float | None], timeouts: Sequence[float], limits: Limits,
                start: float, end: float) -> ExecutionResult:
        """The :class:`ExecutionResult` of a reply (a :class:`SandboxError` for a harness
        failure)."""
        duration = end - start
        if "setup_error" in reply:
            raise SandboxError(
                f"the sandbox could not start a program: {reply['setup_error']}. This is a "
                "harness failure, not the program's." + self._stderr_tail()
            )
        records = reply.get("steps", [])
        for record in records:
            if "setup_error" in record:
                raise SandboxError(
                    f"the sandbox could not start a program: {record['setup_error']}. This is "
                    "a harness failure, not the program's; check that the interpreter or "
                    "command and the paths it needs can be run by another user."
                )
        if not records:
            raise SandboxError(
                "the sandbox ran no step of the program. This is a harness failure."
                + self._stderr_tail()
            )
        results = tuple(
            _step_result(step, record, nonce, cpu, limits.max_file_mb * 1024 * 1024, seconds)
            for step, record, cpu, seconds in zip(steps, records, cpu_limits, timeouts,
                                                  strict=False)
        )
        last = results[-1]
        passed = len(results) == len(steps) and all(r.passed for r in results)
        isolation = list(self.isolation) + list(reply.get("features", []))
        if records[-1].get("own_user_namespace"):
            isolation.append("own_user_namespace")
        isolation += ["rlimits", "temporary_directory"]
        return ExecutionResult(
            timing=_timing(start, end, reply.get("times", {}), records),
            passed=passed,
            status=last.status,
            returncode=last.returncode,
            stdout=last.stdout,
            stderr=last.stderr,
            isolation=tuple(dict.fromkeys(isolation)),
            duration=duration,
            leftover_processes=sum(r.leftover_processes for r in results),
            uid=self.uid,
            result=last.result,
            limit=last.limit,
            steps=results,
            cpu_time=sum(r.cpu_time for r in results),
        )

    # -- the canary
    def _canary(self) -> None:
        """Check the worker before its first program: every needed path readable from inside,
        the interpreter starts, a passing program passes, a failing one fails."""
        generous = Limits(timeout=60.0, memory_mb=max(self.limits.memory_mb, 2048),
                          max_processes=max(self.limits.max_processes, 64), max_file_mb=16)
        # what the caller itself can read must be readable inside too
        paths = [p for p in self._paths if os.path.exists(p) and os.access(p, os.R_OK)]
        try:
            isolated = "mount_namespace" in self.isolation
            good = self.run(_canary_source(paths, isolated), limits=generous)
            bad = self.run("assert 1 + 1 == 3, 'the canary fails on purpose'", limits=generous)
        except SandboxError:
            self.close()
            raise
        if good.passed and not bad.passed and bad.status == "failed":
            return
        self.close()
        if not good.passed:
            raise SandboxError(self._canary_failure(good))
        raise SandboxError(
            "the sandbox's canary that must fail did not fail "
            f"(status {bad.status!r}, {bad.result!r}): its verdicts cannot be trusted here."
        )

    def _canary_failure(self, result: ExecutionResult) -> str:
        try:
            problems = json.loads(result.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            problems = []
        if not problems:
            return (
                f"the sandbox's canary program failed ({result.status}: {result.result}); "
                f"its error output: {result.stderr[-2000:]!r}. The sandbox cannot be trusted "
                "here; pass require_isolation=False to run with resource limits only."
            )
        failed = self.notes.get("idmap_failed", {})
        unreadable, other = [], []
        for path, error in problems:
            if path == "capabilities":
                other.append(f"{error} (a bug of the sandbox: please report it)")
            elif path == sys.executable and error.startswith("the interpreter fails"):
                other.append(f"{path}: {error}")
            else:
                cause = next(
                    (f"; the sandbox could not idmap {top} ({why})" for top, why in failed.items()
                     if path == top or path.startswith(top.rstrip("/") + "/")),
                    "",
                )
                unreadable.append(f"{path} ({error}{cause})")
        owner = "the run's own uid" if self.uid is not None else "your uid"
        text = f"the sandbox's canary failed with the interpreter {sys.executable}: "
        if unreadable:
            text += (
                f"from inside ({owner}) it cannot read " + "; ".join(unreadable) + ". Fix: make "
                "these folders readable by other users (chmod -R o+rX FOLDER, and o+x on the "
                "folders above it), or keep the interpreter and its packages on a file system "
                "that supports idmapped mounts (ext4, xfs, btrfs, tmpfs), or run as the user who "
                "owns them (not root: programs then run under your own uid in a user namespace)."
            )
        if other:
            text += (" " if unreadable else "") + "; ".join(other) + (
                "" if unreadable else ". The sandbox cannot run programs with this interpreter; "
                "pass require_isolation=False to run with resource limits only."
            )
        return text


class Session:
    """An open run of a :class:`Sandbox` (see :meth:`Sandbox.session`): :meth:`step` runs one
    step at a time in the run's private directory, under the session's limits; ``result``:
    the outcome of its first steps (None without any); ``open``: whether steps can still run
    (False once closed, or when a first step failed). A context manager."""

    def __init__(self, sandbox: Sandbox, limits: Limits, result: ExecutionResult | None,
                 open_: bool) -> None:
        self.sandbox = sandbox
        self.limits = limits
        self.result = result
        self.open = open_

    def step(self, step: Step, limits: Limits | None = None) -> ExecutionResult:
        """Run ``step`` (under ``limits``' time limit and clock, else the session's; its
        memory and process limits are the session's) and return its result."""
        if not self.open:
            raise SandboxError("this session is closed; open another with Sandbox.session.")
        if not isinstance(step, Step):
            raise TypeError(f"`step` must be a Step, got {type(step).__name__}.")
        sandbox = self.sandbox
        own = limits if limits is not None else self.limits
        cpu_limits, timeouts = sandbox._timeouts([step], own)
        if step.python is not None:
            refused = _unrunnable([step], {}, own)
            if refused is not None:
                return ExecutionResult(
                    passed=False, status="killed" if refused[1] else "failed", returncode=-1,
                    stdout="", stderr="", isolation=sandbox.isolation, duration=0.0,
                    leftover_processes=0, uid=sandbox.uid, result=refused[0],
                    limit=refused[1])
        nonce = secrets.token_hex(32)
        request = {"op": "step", "nonce": nonce,
                   "step": step.request(timeouts[0], cpu_limits[0])}
        start = time.monotonic()
        try:
            reply = sandbox._send_with_stdin(request, [step], timeouts[0] + _REPLY_MARGIN,
                                             "running a step")
        except BaseException:
            self.open = False
            sandbox._lock.release()
            raise
        end = time.monotonic()
        try:
            return sandbox._result(reply, [step], nonce, cpu_limits, timeouts, own, start, end)
        except SandboxError:
            self.open = False
            sandbox._lock.release()
            sandbox.kill()
            raise

    def close(self) -> None:
        """End the run (its private directory and processes go); the worker is free again."""
        if not self.open:
            return
        self.open = False
        sandbox = self.sandbox
        try:
            sandbox._send({"op": "end"})
            sandbox._receive(_REPLY_MARGIN, "ending a session")
        finally:
            sandbox._lock.release()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


# --- many programs --------------------------------------------------------------------------------


# Warm workers between runs: a worker that finished a run cleanly waits here, idle, for the
# next run of this process set up alike (a training loop's compute() calls set up once).
_idle: dict[tuple[Any, ...], list[tuple[Sandbox, set[str]]]] = {}
_idle_lock = threading.Lock()


def _worker_key(limits: Limits, require_isolation: bool, paths: tuple[str, ...]) -> tuple:
    # what a worker is set up with: limits, isolation, extra paths, the interpreter, its path
    # and the PATH the worker is given
    return (limits, require_isolation, paths, sys.executable,
            tuple(p for p in sys.path if isinstance(p, str)), os.environ.get("PATH"))


def acquire_worker(limits: Limits, require_isolation: bool, paths: Iterable[str] = (),
                   started: Callable[[Sandbox], None] | None = None
                   ) -> tuple[Sandbox, set[str]]:
    """An idle warm worker set up alike (one that died while idle is replaced), or a new one;
    with the set of languages whose toolchain canary passed in it. Give it back with
    :func:`release_worker` after a clean run, or close it. ``started(sandbox)`` is called with
    it (see :class:`Sandbox`: e.g. to kill it on Ctrl-C)."""
    extra = tuple(check_paths(paths))
    key = _worker_key(limits, require_isolation, extra)
    while True:
        with _idle_lock:
            waiting = _idle.get(key)
            found = waiting.pop() if waiting else None
        if found is None:
            break
        if found[0]._process is not None and found[0]._process.poll() is None:
            if started is not None:
                started(found[0])
            return found
        found[0].close()
    sandbox = Sandbox(limits, require_isolation=require_isolation, allow_code_execution=True,
                      paths=extra, started=started)
    sandbox._pool_key = key  # type: ignore[attr-defined]
    return sandbox, set()


def release_worker(worker: tuple[Sandbox, set[str]]) -> None:
    """Keep a worker that finished a run cleanly for the next run."""
    with _idle_lock:
        _idle.setdefault(worker[0]._pool_key, []).append(worker)  # type: ignore[attr-defined]


def close_idle_workers(limits: Limits | None = None) -> int:
    """End every idle warm worker of this process (with ``limits``: only those set up with
    these limits); how many were ended."""
    with _idle_lock:
        keys = [key for key in _idle if limits is None or key[0] == limits]
        workers = [worker for key in keys for worker in _idle.pop(key)]
    for sandbox, _ in workers:
        sandbox.close()
    return len(workers)


atexit.register(close_idle_workers)


def run_programs(
    programs: Iterable[Any],
    *,
    limits: Limits | None = None,
    num_workers: int = 4,
    require_isolation: bool = True,
    allow_code_execution: bool = False,
    progress: Callable[[int], None] | None = None,
    paths: Iterable[str] = (),
    prepare: Callable[[Sandbox], None] | None = None,
) -> list[ExecutionResult]:
    """Run every program (see :meth:`Sandbox.run`) on ``num_workers`` sandbox workers, each
    set up once; results in the order of ``programs``. ``progress(1)`` is called after each.
    ``paths``: extra read-only paths (see :class:`Sandbox`); ``prepare(sandbox)``: called in
    each worker before its first program (e.g. a toolchain's own canary); what it raises
    stops the run as a harness failure does.

    A harness failure in any worker raises :class:`SandboxError` (the other workers stop after
    their current program); no program's failure is ever a harness failure.
    """
    require_opt_in(allow_code_execution)
    require_isolation = check_flag(require_isolation, "require_isolation")
    limits = limits if limits is not None else Limits()
    items = list(programs)
    for item in items:
        _as_steps(item)
    extra = check_paths(paths)
    workers = check_count(num_workers, "num_workers", 1, 1024)
    results: list[ExecutionResult | None] = [None] * len(items)
    if not items:
        return []
    counter = itertools.count()
    errors: list[BaseException] = []
    stop = threading.Event()

    boxes: list[Sandbox] = []

    def work() -> None:
        worker: tuple[Sandbox, set[str]] | None = None
        try:
            # warm if one waits
            worker = acquire_worker(limits, require_isolation, extra, started=boxes.append)
            sandbox = worker[0]
            if prepare is not None and not stop.is_set():
                prepare(sandbox)
            while not stop.is_set():
                index = next(counter)
                if index >= len(items):
                    break
                results[index] = sandbox.run(items[index])
                if progress is not None:
                    progress(1)
            if not stop.is_set():
                release_worker(worker)  # a clean run: warm for the next one
                worker = None
        except BaseException as error:  # noqa: BLE001 - re-raised in the caller
            errors.append(error)
            stop.set()
        finally:
            if worker is not None:  # a harness failure or a stopped run: never reused
                worker[0].close()

    threads = [threading.Thread(target=work, daemon=True) for _ in range(min(workers, len(items)))]
    for thread in threads:
        thread.start()
    try:
        for thread in threads:
            thread.join()
    finally:
        stop.set()
        if any(thread.is_alive() for thread in threads):  # interrupted (Ctrl-C): now
            for box in list(boxes):
                box.kill()
            for thread in threads:
                thread.join(timeout=5)
    if errors:
        raise errors[0]
    return [result for result in results if result is not None]


def run_program(
    source: str,
    timeout: float = DEFAULT_TIMEOUT,
    memory_mb: int | None = None,
    max_processes: int | None = None,
    max_file_mb: int | None = None,
    require_isolation: bool = True,
    allow_code_execution: bool = False,
) -> ExecutionResult:
    """Run the Python program ``source`` in a sandbox of its own (set up for this one run: for
    many programs, :func:`run_programs` or a :class:`Sandbox` set up once is much faster).

    It passes when its text ran to the end without an exception: the runner in the sandboxed
    process then writes a per-run secret to a channel the program never sees and exits with
    0. Exiting early with status 0 (``sys.exit``, ``os._exit``, hooks, threads, forked
    children) is a failure, as in evaluate's code_eval. The program runs in a fresh namespace,
    as in code_eval (``__name__`` is not ``"__main__"``).

    Raises ``ValueError`` without the opt-in or for a bad limit, :class:`SandboxError` (a
    ``RuntimeError``) when the sandbox cannot be set up (e.g. no namespaces and
    ``require_isolation=True``).
    """
    require_opt_in(allow_code_execution)
    require_isolation = check_flag(require_isolation, "require_isolation")
    if not isinstance(source, str):
        raise TypeError(f"`source` must be a string of Python code, got {type(source).__name__}.")
    limits = check_limits(timeout, memory_mb, max_processes, max_file_mb)
    with Sandbox(limits, require_isolation=require_isolation, allow_code_execution=True) as box:
        return box.run(source)
