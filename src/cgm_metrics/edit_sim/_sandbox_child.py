"""The trusted side of the sandbox, run as its own interpreter by ``sandbox.py``.

Usage: ``python -I _sandbox_child.py CONFIG_JSON`` with the program on the file named in the
config, the run's nonce on stdin, stdout/stderr already redirected and a status file open on
the config's fd.

Layout of one run (Linux, with the rights to create namespaces):

    launcher (this process, host side)    new mount, PID and network namespaces
      └─ init (PID 1 of the new namespace) private /tmp, /var/tmp, /dev/shm, /proc, home
           │                               hidden; interpreter paths bound back read-only
           └─ worker                       rlimits, unprivileged uid, exec python -c RUNNER

The launcher enforces the wall-clock limit by killing init; when init dies the kernel kills
every process left in its PID namespace, so nothing the program started can outlive the run.
The worker runs under a uid of its own, so RLIMIT_NPROC bounds its process count (the kernel
does not apply it to root) and it cannot write to root's files. The worker's interpreter runs
``_sandbox_runner.py``, which executes the program and alone can vouch for a pass (the nonce on
fd 3, the verdict on fd 4). Standard library only.
"""

import ctypes
import fcntl
import json
import os
import re
import resource
import select
import signal
import sys
import time

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
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
MS_NOATIME = 1024
MS_NODIRATIME = 2048
MS_RELATIME = 1 << 21
MNT_DETACH = 2
SCRATCH_DIRS = ("/tmp", "/var/tmp", "/dev/shm")
GRACE_SECONDS = 2.0  # interpreter start-up on a loaded machine, on top of the program's own limit
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "_sandbox_runner.py")) as _f:
    RUNNER = _f.read()

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
        try:
            if not os.stat(current).st_mode & 0o001:
                return current
        except OSError:
            return None
    return None


def _inside(path, root):
    return path == root or path.startswith(root.rstrip("/") + "/")


def _mount_flags(path):
    """The flags a read-only bind remount of ``path`` must keep (in a user namespace the
    kernel refuses to drop nosuid/nodev/noexec or change the atime mode of a mount)."""
    flags = 0
    try:
        stat_flags = os.statvfs(path).f_flag
    except OSError:
        return flags
    kept = ((2, MS_NOSUID), (4, MS_NODEV), (8, MS_NOEXEC), (1024, MS_NOATIME))
    kept += ((2048, MS_NODIRATIME), (4096, MS_RELATIME))
    for stat_flag, mount_flag in kept:
        if stat_flags & stat_flag:
            flags |= mount_flag
    return flags


def _read_only(path):
    mount(None, path, None, MS_REMOUNT | MS_BIND | MS_RDONLY | _mount_flags(path))


def _mount_points():
    """Every mount point of this namespace, from /proc/self/mountinfo (octal escapes undone)."""
    points = []
    with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as handle:
        for line in handle:
            fields = line.split()
            if len(fields) > 4:
                points.append(re.sub(r"\\([0-7]{3})", lambda m: chr(int(m[1], 8)), fields[4]))
    return points


def read_only_mounts():
    """Make every mount read-only in this namespace (other file systems than the root's, such
    as a separate /home or /work, included); /proc, /sys and /dev keep their own rules."""
    for point in _mount_points():
        if any(_inside(point, keep) for keep in ("/proc", "/sys", "/dev")):
            continue
        try:
            _read_only(point)
        except OSError:
            pass  # an overmounted or vanished point; the one on top is remounted instead


def prepare_filesystem(config):
    """In the new mount namespace: the interpreter and its packages visible read-only, the
    home directory and the scratch directories replaced by empty file systems, own /proc.

    Every path the interpreter needs (its prefixes, its executable's directory, every
    ``sys.path`` entry) is opened before anything is covered and bound back afterwards from
    that handle, so it may live anywhere: under /tmp, in the home directory, below a directory
    the sandbox uid cannot enter.
    """
    done = []
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    needed = sorted(set(config["visible_paths"]))
    covers = {scratch: "mode=1777,size=64m" for scratch in SCRATCH_DIRS if os.path.isdir(scratch)}
    for home in config["home_dirs"]:
        if os.path.isdir(home) and home != "/":
            covers.setdefault(home, "mode=755,size=1m")
    if config["uid"] is not None:  # another uid must be able to reach every needed path
        for path in needed:
            hidden = _hidden_ancestor(path)
            if hidden is not None:
                covers.setdefault(hidden, "mode=755,size=1m")
    # the topmost covers only: a cover inside another one is covered already
    tops = [c for c in sorted(covers) if not any(o != c and _inside(c, o) for o in covers)]
    rebind = [p for p in needed if any(_inside(p, top) for top in tops)]
    handles = {path: os.open(path, os.O_PATH | os.O_CLOEXEC) for path in rebind}
    read_only_mounts()
    for top in tops:
        mount("tmpfs", top, "tmpfs", MS_NOSUID | MS_NODEV, covers[top])
        done.append(top)
    for path in rebind:
        if any(p != path and _inside(path, p) for p in rebind):
            continue  # bound with its parent
        if os.path.isdir(f"/proc/self/fd/{handles[path]}"):
            os.makedirs(path, mode=0o755, exist_ok=True)
        else:  # a zip archive on sys.path: bind the file onto an empty file
            os.makedirs(os.path.dirname(path), mode=0o755, exist_ok=True)
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o644))
        mount(f"/proc/self/fd/{handles[path]}", path, None, MS_BIND | MS_REC)
        _read_only(path)
    for handle in handles.values():
        os.close(handle)
    try:
        mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        done.append("/proc")
    except OSError:
        pass
    # Read-only views, for this namespace only: MS_BIND makes the remount change this mount's
    # flags, never the file system's (which would hit the host).
    _read_only("/")
    for top in tops:
        if top not in SCRATCH_DIRS:
            _read_only(top)
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


NESTED_UID = 1000


def drop_to_nested_user():
    """Without root the worker would be root of the run's user namespace, able to undo its
    mounts; a nested user namespace in which it is an ordinary uid leaves it no capability
    over them (and any namespace it makes itself sees them locked)."""
    uid, gid = os.geteuid(), os.getegid()
    unshare(CLONE_NEWUSER)
    for name, text in (
        ("setgroups", "deny"),
        ("uid_map", f"{NESTED_UID} {uid} 1"),
        ("gid_map", f"{NESTED_UID} {gid} 1"),
    ):
        with open(f"/proc/self/{name}", "w", encoding="ascii") as handle:
            handle.write(text)
    os.setresgid(NESTED_UID, NESTED_UID, NESTED_UID)
    os.setresuid(NESTED_UID, NESTED_UID, NESTED_UID)


def run_worker(config, workdir, program, channels):
    """The child that becomes the interpreter of the untrusted program. Never returns."""
    try:
        os.setpgid(0, 0)
        os.chdir(workdir)
        uid = config["uid"]
        if uid is not None:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
        set_limits(config)
        if config.get("user_namespace"):
            drop_to_nested_user()
        nonce_fd, verdict_fd = channels
        # the runner's channels at fixed numbers: nonce on 3 (read once, closed before the
        # program starts), verdict on 4; nothing else of the launcher stays open
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 64) for fd in (nonce_fd, verdict_fd)]
        for target, fd in zip((3, 4), high, strict=True):
            os.dup2(fd, target, inheritable=True)
        os.closerange(5, 1 << 16)
        env = {
            "PATH": "/usr/bin:/bin",
            "HOME": workdir,
            "LANG": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONHASHSEED": "0",
        }
        argv = [config["python"], "-I", "-B", "-c", RUNNER, program, repr(config["timeout"])]
        os.execve(config["python"], argv, env)
    except BaseException as error:  # noqa: BLE001 - report anything, then die
        try:
            report(setup_error=f"worker: {error!r}")
        except OSError:
            pass
    os._exit(125)


def run_init(config, source, isolated, channels):
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
        run_worker(config, workdir, program, channels)
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


def enter_namespaces():
    """New mount, PID and network namespaces; without root, inside a new user namespace in
    which this user is root (so it may mount), as rootless containers do."""
    flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET
    features = ["mount_namespace", "pid_namespace", "network_namespace"]
    if os.geteuid() == 0:
        unshare(flags)
        return features
    uid, gid = os.geteuid(), os.getegid()
    unshare(flags | CLONE_NEWUSER)
    for name, text in (("setgroups", "deny"), ("uid_map", f"0 {uid} 1"), ("gid_map", f"0 {gid} 1")):
        with open(f"/proc/self/{name}", "w", encoding="ascii") as handle:
            handle.write(text)
    return ["user_namespace", *features]


def open_channels(config):
    """The nonce, read from stdin (never on a command line), on a pipe for the runner; and the
    verdict file the runner writes to."""
    nonce = os.read(0, 64).strip()
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    if len(nonce) < 32:
        raise ValueError("no nonce on stdin")
    read_end, write_end = os.pipe()
    os.write(write_end, nonce)
    os.close(write_end)
    verdict = os.open(
        config["verdict_file"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o600
    )
    return read_end, verdict


def main():
    config = json.loads(sys.argv[1])
    _status_fd[0] = config["status_fd"]
    with open(config["program_file"], encoding="utf-8") as handle:
        source = handle.read()
    channels = open_channels(config)
    isolation = []
    isolated = False
    if config["namespaces"]:
        try:
            isolation += enter_namespaces()
            isolated = True
            config["user_namespace"] = "user_namespace" in isolation
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
            run_init(config, source, isolated, channels)
        except BaseException as error:  # noqa: BLE001
            report(setup_error=f"init: {error!r}")
        os._exit(125)
    for fd in channels:
        os.close(fd)
    status = wait_with_timeout(init, config["timeout"] + GRACE_SECONDS)
    if status is None:
        report(timed_out=True)
        os._exit(124)
    if os.WIFSIGNALED(status):
        os._exit(128 + os.WTERMSIG(status))
    os._exit(os.WEXITSTATUS(status))


if __name__ == "__main__":
    main()
