"""The trusted side of the sandbox, run as its own interpreter by ``sandbox.py``.

Usage: ``python -I _sandbox_child.py CONFIG_JSON`` with the program on the file named in the
config, stdout/stderr already redirected and a status file open on the config's fd.

Layout of one run (Linux, with the rights to create namespaces):

    launcher (this process, host side)    new mount, PID and network namespaces
      └─ init (PID 1 of the new namespace) private /tmp, /var/tmp, /dev/shm, /proc; reaps
           └─ worker                       rlimits, unprivileged uid, exec python program.py

The launcher enforces the wall-clock limit by killing init; when init dies the kernel kills
every process left in its PID namespace, so nothing the program started can outlive the run.
The worker runs under a uid of its own, so RLIMIT_NPROC bounds its process count (the kernel
does not apply it to root) and it cannot write to root's files. Standard library only.
"""

import ctypes
import json
import os
import resource
import select
import signal
import sys
import time

CLONE_NEWNS = 0x00020000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
MNT_DETACH = 2
SCRATCH_DIRS = ("/tmp", "/var/tmp", "/dev/shm")

_libc = ctypes.CDLL(None, use_errno=True)


_status_fd = [-1]


def report(**fields):
    os.write(_status_fd[0], (json.dumps(fields) + "\n").encode())


def _check(result, what):
    if result != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"{what}: {os.strerror(error)}")


def unshare(flags):
    _check(_libc.unshare(ctypes.c_int(flags)), "unshare")


def mount(source, target, fstype, flags, data=None):
    _check(
        _libc.mount(
            source.encode() if source else None,
            target.encode(),
            fstype.encode() if fstype else None,
            ctypes.c_ulong(flags),
            data.encode() if data else None,
        ),
        f"mount {target}",
    )


def umount(target):
    _check(_libc.umount2(target.encode(), MNT_DETACH), f"umount {target}")


def _hidden_ancestor(path):
    """The topmost ancestor of ``path`` that other users cannot traverse, or None."""
    current = "/"
    for part in path.strip("/").split("/"):
        current = os.path.join(current, part)
        if not os.stat(current).st_mode & 0o001:
            return current
    return None


def prepare_filesystem(config):
    """In the new mount namespace: private scratch dirs, the interpreter reachable, /proc."""
    done = []
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    # The interpreter may live under a directory the sandbox uid cannot enter (e.g. /root):
    # cover that directory with an empty tmpfs and bind the interpreter's tree back into it.
    needed = sorted(set(config["interpreter_paths"]))
    staging = os.path.join(config["host_dir"], "stage")
    for index, path in enumerate(needed):
        hidden = _hidden_ancestor(path)
        if hidden is None:
            continue
        stage = f"{staging}{index}"
        os.makedirs(stage, exist_ok=True)
        mount(path, stage, None, MS_BIND | MS_REC)
        if hidden not in done:
            mount("tmpfs", hidden, "tmpfs", MS_NOSUID | MS_NODEV, "mode=755,size=1m")
            done.append(hidden)
        os.makedirs(path, exist_ok=True)
        mount(stage, path, None, MS_BIND | MS_REC)
        umount(stage)
    for scratch in SCRATCH_DIRS:
        if os.path.isdir(scratch) and not any(p.startswith(scratch + "/") for p in needed):
            mount("tmpfs", scratch, "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777,size=64m")
            done.append(scratch)
    try:
        mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        done.append("/proc")
    except OSError:
        pass
    # Read-only view of the root file system, for this namespace only: MS_BIND makes the
    # remount change this mount's flags, never the file system's (which would hit the host).
    mount(None, "/", None, MS_REMOUNT | MS_BIND | MS_RDONLY)
    done.append("read_only_root")
    return done


def set_limits(config):
    cpu = int(config["cpu_seconds"])
    limits = [
        (resource.RLIMIT_CPU, cpu, cpu + 1),
        (resource.RLIMIT_AS, config["memory_bytes"], config["memory_bytes"]),
        (resource.RLIMIT_NPROC, config["max_processes"], config["max_processes"]),
        (resource.RLIMIT_FSIZE, config["max_file_bytes"], config["max_file_bytes"]),
        (resource.RLIMIT_NOFILE, 256, 256),
        (resource.RLIMIT_CORE, 0, 0),
    ]
    for which, soft, hard in limits:
        resource.setrlimit(which, (soft, hard))


def run_worker(config, workdir, program):
    """The child that becomes the untrusted program. Never returns."""
    try:
        os.setpgid(0, 0)
        os.chdir(workdir)
        uid = config["uid"]
        if uid is not None:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
        set_limits(config)
        os.closerange(3, 1 << 16)
        env = {
            "PATH": "/usr/bin:/bin",
            "HOME": workdir,
            "LANG": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONHASHSEED": "0",
        }
        os.execve(config["python"], [config["python"], "-I", "-B", program], env)
    except BaseException as error:  # noqa: BLE001 - report anything, then die
        try:
            report(setup_error=f"worker: {error!r}")
        except OSError:
            pass
    os._exit(125)


def run_init(config, source, isolated):
    """PID 1 of the new namespace (or the plain parent without namespaces)."""
    features = []
    if isolated:
        features = prepare_filesystem(config)
        workdir = "/tmp/work"
    else:
        workdir = os.path.join(config["host_dir"], "work")
    os.makedirs(workdir, mode=0o700, exist_ok=True)
    program = os.path.join(workdir, "program.py")
    with open(program, "w", encoding="utf-8") as handle:
        handle.write(source)
    if config["uid"] is not None:
        for path in (workdir, program):
            os.chown(path, config["uid"], config["uid"])
    report(filesystem=features, workdir=workdir)
    worker = os.fork()
    if worker == 0:
        run_worker(config, workdir, program)
    status = None
    while True:  # reap everything; stop when the worker itself is done
        try:
            pid, wait_status = os.waitpid(-1, 0)
        except ChildProcessError:
            break
        if pid == worker:
            status = wait_status
            break
    if not isolated:  # no PID namespace to tear down: kill the worker's process group
        try:
            os.killpg(worker, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    if status is None:
        os._exit(124)
    if os.WIFSIGNALED(status):
        report(signal=os.WTERMSIG(status))
        os._exit(128 + os.WTERMSIG(status))
    os._exit(min(os.WEXITSTATUS(status), 120))


def wait_with_timeout(pid, timeout):
    """waitpid with a wall-clock limit; returns the status, or None after killing ``pid``."""
    deadline = time.monotonic() + timeout
    try:
        handle = os.pidfd_open(pid)
    except (AttributeError, OSError):
        handle = None
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return None
        if handle is not None:
            select.select([handle], [], [], remaining)
        else:
            time.sleep(min(0.01, remaining))


def main():
    config = json.loads(sys.argv[1])
    _status_fd[0] = config["status_fd"]
    with open(config["program_file"], encoding="utf-8") as handle:
        source = handle.read()
    isolation = []
    isolated = False
    if config["namespaces"]:
        try:
            unshare(CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET)
            isolated = True
            isolation += ["mount_namespace", "pid_namespace", "network_namespace"]
        except (OSError, AttributeError) as error:
            report(namespace_error=str(error))
    if not isolated:
        if config["require_isolation"]:
            os._exit(126)
        config["uid"] = None  # the interpreter may be unreachable for another uid
    if config["uid"] is not None:
        isolation.append("unprivileged_uid")
    report(isolation=isolation)
    init = os.fork()
    if init == 0:
        try:
            run_init(config, source, isolated)
        except BaseException as error:  # noqa: BLE001
            report(setup_error=f"init: {error!r}")
        os._exit(125)
    status = wait_with_timeout(init, config["timeout"])
    if status is None:
        report(timed_out=True)
        os._exit(124)
    if os.WIFSIGNALED(status):
        os._exit(128 + os.WTERMSIG(status))
    os._exit(os.WEXITSTATUS(status))


if __name__ == "__main__":
    main()
