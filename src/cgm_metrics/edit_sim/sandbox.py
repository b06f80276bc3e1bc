"""Run untrusted programs (generated code plus its unit tests) to obtain PASS, safely.

Nothing runs unless the caller opts in with ``allow_code_execution=True`` (a real boolean) or
the environment variable ``HF_ALLOW_CODE_EVAL=1`` (the switch of evaluate's ``code_eval``).

Each program runs in a fresh interpreter started by ``_sandbox_child.py``, which on Linux gives
it, as root or (for any other user) inside an unprivileged user namespace:

- new PID, mount and network namespaces: no network at all (not even loopback), private
  empty ``/tmp``, ``/var/tmp`` and ``/dev/shm``, its own ``/proc``, every mount read-only, the
  home directory hidden; the interpreter's prefixes and every ``sys.path`` entry (``.pth``
  entries included) stay visible read-only wherever they live, so a virtualenv under ``/tmp``
  or in the home directory works; when the run ends or times out, the namespace's init dies
  and the kernel kills every process the program started;
- a uid of its own (not root; without root, an ordinary uid of a nested user namespace), so it
  cannot write to the host's files or undo the mounts, and RLIMIT_NPROC bounds its process
  count (fork bombs);
- CPU-time, address-space, process-count, file-size, open-file and core-dump limits, and a
  wall-clock timeout;
- a temporary working directory, deleted with the run.

A pass means the program text ran to its end: the runner (``_sandbox_runner.py``) then writes
a per-run nonce, which the program never sees, to a channel of its own, and exits with 0.
Exiting early with status 0, from the program or from any hook, thread or forked child, fails.

Where namespaces are unavailable the run is refused with the real cause
(``require_isolation=True``, the default); with ``require_isolation=False`` it runs with the
resource limits only, in its own process group, which is killed at the end (no network
isolation, no uid change).
"""

from __future__ import annotations

import json
import os
import random
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

CHILD_SCRIPT = Path(__file__).with_name("_sandbox_child.py")
ENV_SWITCH = "HF_ALLOW_CODE_EVAL"
_OUTPUT_LIMIT = 64 * 1024
_UID_RANGE = (1_000_000, 1_999_999_999)

OPT_IN_MESSAGE = (
    "Running unit tests executes untrusted model-generated code. cgm-metrics runs it in a "
    "sandbox (separate process, namespaces, own uid, resource limits, no network), but it only "
    "does so when you opt in explicitly: pass `allow_code_execution=True`, or set the "
    f'environment variable {ENV_SWITCH}="1" (as for evaluate\'s code_eval). Alternatively pass '
    "the pass/fail outcomes you already have as `passed=[...]`."
)


@dataclass(frozen=True)
class ExecutionResult:
    """The outcome of one sandboxed run."""

    passed: bool
    status: str  # "passed", "failed", "timeout" or "killed" (by a signal, e.g. a limit)
    returncode: int
    stdout: str
    stderr: str
    isolation: tuple[str, ...]  # the protections that were in force
    duration: float  # wall-clock seconds
    leftover_processes: int  # processes still alive after the run, killed by the cleanup
    uid: int | None  # the run's own uid (None when not running as root)
    result: str = ""  # as evaluate's code_eval: "passed", "timed out" or "failed: <error>"


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
            "creating Linux mount, PID and network namespaces failed as root "
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


def visible_paths() -> list[str]:
    """What a run sees of the host beyond the read-only root: the interpreter's prefixes, its
    executable's directory and every ``sys.path`` entry (``.pth`` entries included).

    The current directory (``''``), the home directory itself and its ancestors are never among
    them: the home directory shows only these paths.
    """
    candidates = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix]
    candidates += [os.path.dirname(os.path.abspath(sys.executable))]
    candidates += [os.path.dirname(os.path.realpath(sys.executable))]
    candidates += [entry for entry in sys.path if isinstance(entry, str) and entry]
    homes = _home_dirs()
    found = set()
    for candidate in candidates:
        if not os.path.isabs(candidate) or not os.path.exists(candidate):
            continue
        for path in {os.path.abspath(candidate), os.path.realpath(candidate)}:
            if path == "/" or any(h == path or h.startswith(path.rstrip("/") + "/") for h in homes):
                continue  # the home directory or above it: would show everything
            if path in ("/tmp", "/var/tmp", "/dev/shm", "/proc"):
                continue
            found.add(path)
    return sorted(found)


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


def _kill_uid(uid: int) -> int:
    """Kill every process running as ``uid`` (the run's own uid); returns how many were found."""
    killed: set[int] = set()
    for _ in range(50):
        pids = processes_of(uid)
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.add(pid)
            except ProcessLookupError:
                pass
        time.sleep(0.01)
    return len(killed)


def _tail(path: Path) -> str:
    with open(path, "rb") as handle:
        handle.seek(0, os.SEEK_END)
        size = handle.tell()
        handle.seek(max(0, size - _OUTPUT_LIMIT))
        return handle.read().decode("utf-8", errors="replace")


def _verdict(path: Path, nonce: str) -> tuple[bool, str | None]:
    """Whether the runner vouched for the run (the nonce line), and its last result line."""
    vouched, result = False, None
    with open(path, "rb") as handle:
        data = handle.read(1 << 20)
    for line in data.decode("utf-8", errors="replace").splitlines():
        if line == f"passed {nonce}":
            vouched = True
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and isinstance(record.get("result"), str):
            result = record["result"]
    return vouched, result


def run_program(
    source: str,
    timeout: float = 3.0,
    memory_mb: int = 1024,
    max_processes: int = 32,
    max_file_mb: int = 16,
    require_isolation: bool = True,
    allow_code_execution: bool = False,
) -> ExecutionResult:
    """Run the Python program ``source`` in the sandbox.

    It passes when its text ran to the end without an exception: the runner in the sandboxed
    interpreter then writes a per-run secret to a channel the program never sees and exits
    with 0. Exiting early with status 0 (``sys.exit``, ``os._exit``, hooks, threads, forked
    children) is a failure, as in evaluate's code_eval. The program runs in a fresh namespace,
    as in code_eval (``__name__`` is not ``"__main__"``).

    Raises ``ValueError`` without the opt-in, ``RuntimeError`` when the sandbox cannot be set
    up (e.g. no namespaces and ``require_isolation=True``).
    """
    require_opt_in(allow_code_execution)
    require_isolation = check_flag(require_isolation, "require_isolation")
    if not isinstance(source, str):
        raise TypeError(f"`source` must be a string of Python code, got {type(source).__name__}.")
    if isinstance(timeout, bool) or not (isinstance(timeout, (int, float)) and 0 < timeout <= 3600):
        raise ValueError(f"`timeout` must be a number of seconds in (0, 3600], got {timeout!r}.")
    if os.name != "posix":
        raise NotImplementedError("Code execution is supported on POSIX systems only.")
    host_dir = Path(tempfile.mkdtemp(prefix="cgm-sandbox-"))
    uid = None
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        uid = random.SystemRandom().randint(*_UID_RANGE)
    nonce = secrets.token_hex(32)
    start = time.monotonic()
    process = None
    try:
        program_file = host_dir / "program.py"
        program_file.write_text(source, encoding="utf-8")
        config = {
            "program_file": str(program_file),
            "verdict_file": str(host_dir / "verdict"),
            "host_dir": str(host_dir),
            "python": os.path.abspath(sys.executable),  # not resolved: a venv's own python
            "visible_paths": visible_paths(),
            "home_dirs": _home_dirs(),
            "timeout": float(timeout),
            "cpu_seconds": max(1, int(timeout + 0.999)) + 1,
            "memory_bytes": int(memory_mb) * 1024 * 1024,
            "max_processes": int(max_processes),
            "max_file_bytes": int(max_file_mb) * 1024 * 1024,
            "uid": uid,
            "namespaces": sys.platform.startswith("linux"),
            "require_isolation": require_isolation,
        }
        with (
            open(host_dir / "stdout", "wb") as out,
            open(host_dir / "stderr", "wb") as err,
            open(host_dir / "status", "wb") as status,
        ):
            config["status_fd"] = status.fileno()
            process = subprocess.Popen(
                [sys.executable, "-I", "-B", str(CHILD_SCRIPT), json.dumps(config)],
                stdin=subprocess.PIPE,
                stdout=out,
                stderr=err,
                pass_fds=(status.fileno(),),
                start_new_session=True,
                env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"},
            )
            assert process.stdin is not None  # stdin=PIPE
            try:
                process.stdin.write(nonce.encode() + b"\n")  # never on a command line
                process.stdin.close()
            except BrokenPipeError:
                pass
            try:
                returncode = process.wait(timeout=timeout + 30)
            except subprocess.TimeoutExpired:  # the launcher itself hung: should not happen
                os.killpg(process.pid, signal.SIGKILL)
                returncode = process.wait()
        duration = time.monotonic() - start
        report: dict = {}
        for line in (host_dir / "status").read_text(encoding="utf-8").splitlines():
            report.update(json.loads(line))
        if returncode == 126 and "namespace_error" in report:
            raise RuntimeError(namespace_failure(report["namespace_error"]))
        if returncode == 126 and "isolation" not in report and not config["namespaces"]:
            raise RuntimeError(
                f"cannot isolate the program: the sandbox's namespaces need Linux, and this is "
                f"{sys.platform}. Pass require_isolation=False to run with resource limits only."
            )
        if "setup_error" in report:
            raise RuntimeError(f"the sandbox could not be set up: {report['setup_error']}")
        verdict_file = host_dir / "verdict"
        vouched, result = _verdict(verdict_file, nonce) if verdict_file.exists() else (False, None)
        passed = vouched and returncode == 0
        if passed:
            status_name, result = "passed", "passed"
        elif report.get("timed_out") or report.get("signal") == signal.SIGXCPU:
            status_name, result = "timeout", "timed out"
        elif result == "timed out":
            status_name = "timeout"
        elif returncode > 128:
            status_name = "killed"
            result = f"failed: killed by signal {returncode - 128}"
        else:
            status_name = "failed"
            if result is None or result == "passed":
                result = (
                    f"failed: the program ended (exit status {returncode}) before its "
                    "tests ran to the end"
                )
        isolation = tuple(report.get("isolation", [])) + tuple(report.get("filesystem", []))
        isolation += ("rlimits", "temporary_directory")
        return ExecutionResult(
            passed=passed,
            status=status_name,
            returncode=returncode,
            stdout=_tail(host_dir / "stdout"),
            stderr=_tail(host_dir / "stderr"),
            isolation=isolation,
            duration=duration,
            leftover_processes=_cleanup(process, uid),
            uid=uid,
            result=result,
        )
    finally:
        if process is not None:
            _cleanup(process, uid)
        shutil.rmtree(host_dir, ignore_errors=True)


def _cleanup(process: subprocess.Popen, uid: int | None) -> int:
    """Kill what may be left of a run: its session and any process under its uid."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    return _kill_uid(uid) if uid is not None else 0


def run_tests(
    predictions: Sequence[str],
    tests: Sequence[str],
    timeout: float = 3.0,
    num_workers: int = 2,
    allow_code_execution: bool = False,
    **limits,
) -> list[ExecutionResult]:
    """Run ``prediction + "\\n" + test`` for every item (code_eval's convention), in parallel."""
    require_opt_in(allow_code_execution)
    if len(tests) != len(predictions):
        raise ValueError(
            f"`predictions` has {len(predictions)} items but `tests` has {len(tests)}; give one "
            "test program per prediction."
        )
    for index, test in enumerate(tests):
        if not isinstance(test, str):
            raise TypeError(f"`tests[{index}]` is {type(test).__name__}, not a string.")
    programs = [
        f"{prediction}\n{test}" for prediction, test in zip(predictions, tests, strict=True)
    ]
    with ThreadPoolExecutor(max_workers=max(1, int(num_workers))) as pool:
        futures = [
            pool.submit(run_program, program, timeout, allow_code_execution=True, **limits)
            for program in programs
        ]
        return [future.result() for future in futures]
