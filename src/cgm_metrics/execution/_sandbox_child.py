"""The trusted side of the sandbox: one worker, started once by ``sandbox.py``, that runs programs.

Usage: ``python -s -B _sandbox_child.py REQUEST_FD REPLY_FD``: length-prefixed JSON frames on
two pipes; the first request is the worker's configuration. Standard library only.

Layout (Linux, with the rights to create namespaces):

    worker (this process)   once: new mount, network and IPC namespaces (and, without root, a
      │                     user namespace in which it is root); the host's file system
      │                     read-only; the home directory, /tmp, /var/tmp, /dev/shm and /run
      │                     covered; the interpreter's paths bound back read-only (as root:
      │                     through idmapped mounts, so the run's uid reads private folders);
      │                     then a new PID namespace, and it only waits for its init
      └─ init               PID 1 of that namespace, its own /proc; serves the host. Per run:
           │                new mount and IPC namespaces with fresh /tmp, /var/tmp and
           │                /dev/shm; per step a fresh process, a wall-clock limit, and when
           │                the step ends every other process of the namespace killed (from
           │                PID 1, ``kill(-1)``); then back to its own namespaces
           └─ program       its own session, uid (the worker's, as root), rlimits, no new
                            privileges, a user namespace of its own without capabilities

A Python step is not a new interpreter: the program's process is a fork of init (which has
imported nothing of the caller's), and ``_sandbox_runner.run_python`` runs the program text
there, as evaluate's code_eval runs it in a fork of its process. A command step ``execve``s.
What every program's process would otherwise do again is done once by init before the first
(``warm_up``: modules most programs need, the compiler's set-up, a traceback; the programs'
environment; its objects frozen for the garbage collector), and init does as little as it can
between a fork and the program's end (each page it writes then is copied).

Per step the reply carries the wait status, whether the wall-clock limit ended it, how many
processes it left (all killed), the tails of its stdout and stderr, its verdict channel and
timestamps. Harness failures (a run or step that could not be set up or started) are reported
as ``setup_error``, never as a verdict.
"""

import ctypes
import errno
import fcntl
import gc
import json
import linecache
import os
import re
import resource
import signal
import socket
import struct
import sys
import time
import traceback

import _sandbox_runner

CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
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
PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_NO_NEW_PRIVS = 38
SYS_OPEN_TREE, SYS_MOVE_MOUNT, SYS_MOUNT_SETATTR = 428, 429, 442  # the same on every arch
OPEN_TREE_CLONE = 1
AT_FDCWD = -100
AT_EMPTY_PATH = 0x1000
AT_RECURSIVE = 0x8000
MOVE_MOUNT_F_EMPTY_PATH = 4
MOUNT_ATTR_RDONLY, MOUNT_ATTR_NOSUID, MOUNT_ATTR_NODEV = 1, 2, 4
MOUNT_ATTR_IDMAP = 0x00100000
SCRATCH_DIRS = ("/tmp", "/var/tmp", "/dev/shm")
# the run's private directory (its cwd, HOME and TMPDIR): a folder of its own in its fresh /tmp,
# never /tmp itself, where the mount points of needed paths that live under /tmp appear (a
# sys.path entry there, e.g. a modules cache that evaluate adds)
RUN_DIR = "/tmp/cgm-run"
NESTED_ID = 1000  # the program's uid and gid inside its own user namespace
GRACE_SECONDS = 1.0  # after a step's limit, before init kills it (code_eval's join allows 1 s)
OUTPUT_LIMIT = 64 * 1024  # the tail of stdout and stderr kept, unless a step asks for more
OUTPUT_CHECK_SECONDS = 0.01  # how often a step's stdout is measured against its bound
VERDICT_LIMIT = 1 << 20
OPEN_FILES = 1024
CATCHABLE = [
    getattr(signal, name)
    for name in ("SIGHUP", "SIGINT", "SIGQUIT", "SIGTERM", "SIGUSR1", "SIGUSR2", "SIGALRM",
                 "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGPIPE", "SIGXFSZ", "SIGXCPU", "SIGVTALRM",
                 "SIGPROF", "SIGCHLD", "SIGCONT", "SIGWINCH", "SIGURG", "SIGIO")
    if hasattr(signal, name)
]

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def _prototype(name, *argtypes):
    """Declare a libc function's arguments once (calls then convert plain ints themselves)."""
    function = getattr(_libc, name, None)
    if function is not None:
        function.argtypes = argtypes
        function.restype = ctypes.c_int


_prototype("unshare", ctypes.c_int)
_prototype("setns", ctypes.c_int, ctypes.c_int)
_prototype("prctl", ctypes.c_int, *[ctypes.c_ulong] * 4)


class MountAttr(ctypes.Structure):
    _fields_ = [
        ("attr_set", ctypes.c_uint64),
        ("attr_clr", ctypes.c_uint64),
        ("propagation", ctypes.c_uint64),
        ("userns_fd", ctypes.c_uint64),
    ]


class SetupFailure(Exception):
    """The worker cannot be set up; ``fields`` go to the host as they are."""

    def __init__(self, **fields):
        super().__init__(fields)
        self.fields = fields


# --- system calls -----------------------------------------------------------------------------


def _check(result, what):
    if result < 0:
        error = ctypes.get_errno()
        raise OSError(error, f"{what}: {os.strerror(error)}")
    return result


def unshare(flags):
    _check(_libc.unshare(flags), "unshare")


def setns(fd, kind):
    _check(_libc.setns(fd, kind), "setns")


def prctl(option, value):
    if sys.platform.startswith("linux"):
        _check(_libc.prctl(option, value, 0, 0, 0), "prctl")


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


def open_tree(path, recursive=False):
    flags = OPEN_TREE_CLONE | os.O_CLOEXEC | (AT_RECURSIVE if recursive else 0)
    return _check(
        _libc.syscall(ctypes.c_long(SYS_OPEN_TREE), ctypes.c_int(AT_FDCWD), path.encode(),
                      ctypes.c_uint(flags)),
        f"open_tree {path}",
    )


def mount_setattr(fd, attr_set, userns_fd=0, recursive=False):
    attr = MountAttr(attr_set, 0, 0, userns_fd)
    flags = AT_EMPTY_PATH | (AT_RECURSIVE if recursive else 0)
    _check(
        _libc.syscall(ctypes.c_long(SYS_MOUNT_SETATTR), ctypes.c_int(fd), b"",
                      ctypes.c_uint(flags), ctypes.byref(attr),
                      ctypes.c_size_t(ctypes.sizeof(attr))),
        "mount_setattr",
    )


def move_mount(fd, target):
    _check(
        _libc.syscall(ctypes.c_long(SYS_MOVE_MOUNT), ctypes.c_int(fd), b"",
                      ctypes.c_int(AT_FDCWD), target.encode(),
                      ctypes.c_uint(MOVE_MOUNT_F_EMPTY_PATH)),
        f"move_mount {target}",
    )


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


# made once, in the worker: each program's process only calls capset with them
_NO_CAPABILITIES = (_CapHeader(0x20080522, 0), (_CapData * 2)())  # _LINUX_CAPABILITY_VERSION_3


def drop_capabilities():
    header, data = _NO_CAPABILITIES
    _check(_libc.capset(ctypes.byref(header), data), "capset")


def write_file(path, text):
    """Write ``text`` to a /proc file in one write (an id map must come in one)."""
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, text.encode("ascii"))
    finally:
        os.close(fd)


# --- the worker's file system (once) -------------------------------------------------------------


def _inside(path, root):
    return path == root or path.startswith(root.rstrip("/") + "/")


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


def read_only(path):
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
    """Make every mount read-only in this namespace (/sys, /dev and other file systems than
    the root's, such as a separate /home or /work, included); /proc is replaced per run.
    Device nodes stay usable: a read-only mount refuses writes to files, not to devices."""
    for point in _mount_points():
        if _inside(point, "/proc"):
            continue
        try:
            read_only(point)
        except OSError:
            pass  # an overmounted or vanished point; the one on top is remounted instead


def _userns_for(uid_from, uid_to, gid_from, gid_to):
    """A user namespace mapping ``uid_from``/``gid_from`` to the run's ids, for an idmapped
    mount: files of that owner appear as the run's own there."""
    ready_r, ready_w = os.pipe()
    done_r, done_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(ready_r)
            os.close(done_w)
            unshare(CLONE_NEWUSER)
            os.write(ready_w, b"1")
            os.read(done_r, 1)
        finally:
            os._exit(0)
    os.close(ready_w)
    os.close(done_r)
    try:
        if os.read(ready_r, 1) != b"1":
            raise OSError(errno.EPERM, "could not create a user namespace for an idmapped mount")
        write_file(f"/proc/{pid}/uid_map", f"{uid_from} {uid_to} 1\n")
        write_file(f"/proc/{pid}/gid_map", f"{gid_from} {gid_to} 1\n")
        return os.open(f"/proc/{pid}/ns/user", os.O_RDONLY | os.O_CLOEXEC)
    finally:
        os.close(ready_r)
        os.close(done_w)
        os.waitpid(pid, 0)


class FileSystem:
    """The worker's view of the host, prepared once, and the per-run private directories."""

    def __init__(self, config, as_root):
        self.config = config
        self.as_root = as_root
        self.features = []
        self.notes = {}
        self.scratch_binds = []  # needed paths under a scratch dir, bound back in each run
        self.scratch = [d for d in SCRATCH_DIRS if os.path.isdir(d)]
        self.userns = {}  # (uid, gid) of an owner -> user namespace of its idmapped mounts
        self.mount_points = _mount_points() if sys.platform.startswith("linux") else []

    def prepare(self):
        """The host read-only; home, scratch directories and /run covered; every needed path
        (interpreter prefixes, sys.path entries) bound back read-only wherever it lives."""
        config = self.config
        mount(None, "/", None, MS_REC | MS_PRIVATE)
        needed = sorted(set(config["visible_paths"]))
        covers = {d: "mode=1777,size=1m" for d in self.scratch}
        for home in config["home_dirs"] + config.get("hidden_dirs", []):
            if os.path.isdir(home) and home != "/":
                covers.setdefault(home, "mode=755,size=1m")
        scratch_real = [os.path.realpath(d) for d in self.scratch]
        if os.path.isdir("/run") and not any(_inside(r, "/run") for r in scratch_real):
            covers.setdefault("/run", "mode=755,size=1m")  # sockets of the host's services
        if self.as_root:  # the run's uid must be able to reach every needed path
            for path in needed:
                hidden = _hidden_ancestor(path)
                if hidden is not None:
                    covers.setdefault(hidden, "mode=755,size=1m")
        # the topmost covers only: a cover inside another one is covered already
        tops = [c for c in sorted(covers) if not any(o != c and _inside(c, o) for o in covers)]
        # the caller's current and script folders: covered wherever they are (also inside a
        # folder that is shown, or bound back), after the needed paths are bound back
        callers = [d for d in config.get("caller_dirs", []) if os.path.isdir(d) and d not in tops]
        if self.as_root:  # every needed path, through an idmapped mount where possible
            rebind = list(needed)
        else:
            rebind = [p for p in needed if any(_inside(p, top) for top in tops + callers)]
        # the needed paths inside a caller's folder (its own venv): bound back after it is covered
        late = [p for p in rebind if any(_inside(p, c) and p != c for c in callers)]
        rebind = [p for p in rebind if p not in late]
        rebind = [p for p in rebind if not any(o != p and _inside(p, o) for o in rebind)]
        late = [p for p in late if not any(o != p and _inside(p, o) for o in late)]
        sources = {path: self._source(path) for path in rebind + late}
        read_only_mounts()
        for top in tops:
            mount("tmpfs", top, "tmpfs", MS_NOSUID | MS_NODEV, covers[top])
        self._bind_back(rebind, sources)
        covered = []
        for folder in callers:  # (one inside a cover is gone: covered already)
            if os.path.isdir(folder) and not any(_inside(folder, c) for c in covered):
                mount("tmpfs", folder, "tmpfs", MS_NOSUID | MS_NODEV, "mode=755,size=1m")
                covered.append(folder)
        self._bind_back(late, sources)
        read_only("/")
        for top in tops + covered:
            if top not in self.scratch:
                read_only(top)
        for path in config.get("hidden_files", []):  # files at the root: read as empty
            try:
                mount("/dev/null", path, None, MS_BIND)
                read_only(path)
            except OSError as error:
                self.notes.setdefault("unhidden_files", {})[path] = str(error)
        rebind += late
        self.scratch_binds = [p for p in rebind if any(_inside(p, d) for d in self.scratch)]
        for handle in self.userns.values():
            os.close(handle)
        self.features += ["mount_namespace", "read_only_root"]
        if any(kind == "tree" for kind, _ in sources.values()):
            self.features.append("idmapped_paths")
        return self.features

    def _bind_back(self, paths, sources):
        """Bind each of ``paths`` back (read-only) from its source (see :meth:`_source`)."""
        for path in paths:
            kind, handle = sources[path]
            self._make_mount_point(path, handle)
            if kind == "tree":
                move_mount(handle, path)
            else:
                mount(f"/proc/self/fd/{handle}", path, None, MS_BIND | MS_REC)
                read_only(path)
            os.close(handle)

    def _source(self, path):
        """How ``path`` is bound back: a clone of its mount, idmapped so that its owner's files
        are the run's own (as root), or a plain handle (a bind mount) otherwise."""
        if self.as_root:
            try:
                owner = os.stat(path)
                key = (owner.st_uid, owner.st_gid)
                if key not in self.userns:
                    run_id = self.config["uid"]
                    self.userns[key] = _userns_for(key[0], run_id, key[1], run_id)
                # with the file systems mounted below it (e.g. /usr/local below /usr)
                recursive = any(p != path and _inside(p, path) for p in self.mount_points)
                tree = open_tree(path, recursive)
                try:
                    attrs = MOUNT_ATTR_IDMAP | MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID
                    mount_setattr(tree, attrs | MOUNT_ATTR_NODEV, self.userns[key], recursive)
                except OSError:
                    os.close(tree)
                    raise
                return "tree", tree
            except OSError as error:
                self.notes.setdefault("idmap_failed", {})[path] = str(error)
        return "handle", os.open(path, os.O_PATH | os.O_CLOEXEC)

    @staticmethod
    def _make_mount_point(path, handle):
        if os.path.lexists(path):
            return
        if os.path.isdir(f"/proc/self/fd/{handle}"):
            os.makedirs(path, mode=0o755, exist_ok=True)
        else:  # a zip archive on sys.path: bind the file onto an empty file
            os.makedirs(os.path.dirname(path), mode=0o755, exist_ok=True)
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o644))

    def private_directories(self, size_mb):
        """In the run's new mount namespace: fresh /tmp, /var/tmp and /dev/shm, with the needed
        paths that live under them bound back (from handles taken in this namespace: a bind
        mount's source must belong to it)."""
        handles = [(path, os.open(path, os.O_PATH | os.O_CLOEXEC)) for path in self.scratch_binds]
        for directory in self.scratch:
            mount("tmpfs", directory, "tmpfs", MS_NOSUID | MS_NODEV, f"mode=1777,size={size_mb}m")
        for path, handle in handles:
            self._make_mount_point(path, handle)
            mount(f"/proc/self/fd/{handle}", path, None, MS_BIND | MS_REC)
            read_only(path)
            os.close(handle)


# --- one run ------------------------------------------------------------------------------------


def _scratch_file(name):
    if hasattr(os, "memfd_create"):
        return os.memfd_create(name, os.MFD_CLOEXEC)
    import tempfile

    handle, path = tempfile.mkstemp(prefix="cgm-sandbox-")
    os.unlink(path)
    os.set_inheritable(handle, False)
    return handle


def _tail(fd, limit):
    size = os.fstat(fd).st_size
    start = max(0, size - limit)
    chunks, offset = [], start
    while offset < size:
        chunk = os.pread(fd, min(1 << 16, size - offset), offset)
        if not chunk:
            break
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks).decode("utf-8", errors="replace")


def _head(fd, limit):
    return os.pread(fd, limit, 0).decode("utf-8", errors="replace")


class Deadline(Exception):
    """A step's wall-clock limit, raised in the worker by its alarm."""


class OutputExceeded(Exception):
    """A step's stdout grew past its bound (``max_output``), seen by the worker's alarm."""


class Run:
    """One request, in the worker's init: a mount and an IPC namespace of its own with fresh
    private directories, then a fresh process per step."""

    def __init__(self, worker, request):
        self.worker = worker
        self.request = request
        limits = request["limits"]
        self.memory_bytes = limits["memory_bytes"]
        self.max_processes = limits["max_processes"]
        self.max_file_bytes = limits["max_file_bytes"]
        self.nonce = request["nonce"].encode()
        self.home = "/tmp"
        self.deadline = 0.0
        self.stdin = None  # the read end of the step's stdin pipe, from the host
        self.watched = None  # (stdout fd, bound): a step whose stdout has a bound
        self.open = False  # a session: the run stays, for steps sent one at a time

    def _stdins(self, steps):
        """The read ends of the stdin pipes of ``steps`` (one per step that has one), sent by
        the host on the worker's socket beside the request."""
        count = sum(1 for step in steps if step.get("stdin"))
        if not count:
            return []
        _, fds, _, _ = socket.recv_fds(self.worker.fd_socket, 1, count)
        if len(fds) != count:
            for fd in fds:
                os.close(fd)
            raise OSError(errno.EPROTO, f"expected {count} stdin pipes, got {len(fds)}")
        return fds

    def execute(self):
        """The reply: a record per step run (stopping at the first that fails), or a
        ``setup_error``."""
        worker = self.worker
        records = []
        times = {"received": time.monotonic()}
        try:
            if worker.isolated:
                unshare(CLONE_NEWNS | CLONE_NEWIPC)
                size_mb = max(16, 2 * self.max_file_bytes // (1024 * 1024))
                worker.filesystem.private_directories(size_mb)
                self.home = self._run_directory()
            else:
                import tempfile

                self.home = tempfile.mkdtemp(prefix="cgm-sandbox-run-")
            self._write_files()
        except OSError as error:
            self._leave()
            return {"setup_error": f"preparing the run's private directories: {error}"}
        times["ready"] = time.monotonic()
        steps = self.request["steps"]
        stdins = []
        ended = False
        try:
            stdins = self._stdins(steps)
            for step in steps:
                self.stdin = stdins.pop(0) if step.get("stdin") else None
                record = self.step(step)
                records.append(record)
                if not record.pop("continue"):
                    ended = True
                    break
        finally:
            for fd in stdins:  # the steps not run: their pipes closed (the host's writer ends)
                os.close(fd)
            self.open = bool(self.request.get("session")) and not ended and bool(records or
                                                                                 not steps)
            if not self.open:
                self._leave()
        times["left"] = time.monotonic()
        reply = {"steps": records, "features": worker.run_features, "times": times}
        if self.request.get("session"):
            reply["open"] = self.open
        return reply

    def session(self, requests, replies):
        """The steps of an open run (``session``), one request each, each in the same private
        directory (e.g. a program built by the run's first steps, run once per test), until
        ``{"op": "end"}``; then back to the worker's namespaces and one last reply."""
        try:
            while True:
                request = receive(requests)
                if request is None or request.get("op") != "step":
                    break
                step = request["step"]
                self.nonce = request["nonce"].encode()
                self.stdin = self._stdins([step])[0] if step.get("stdin") else None
                started = time.monotonic()
                record = self.step(step)
                record.pop("continue")
                send(replies, {"steps": [record], "features": self.worker.run_features,
                               "times": {"received": started, "ready": started,
                                         "left": time.monotonic()}})
        finally:
            self._leave()
        send(replies, {"closed": True})

    def _leave(self):
        """Back to the worker's namespaces (the run's go away with its last process)."""
        worker = self.worker
        if worker.isolated:
            worker.back_to_base()
        else:
            import shutil

            shutil.rmtree(self.home, ignore_errors=True)

    def _run_directory(self):
        """A fresh empty folder in the run's own /tmp, owned by the program's uid."""
        path = RUN_DIR
        if os.path.lexists(path):  # a needed path bound back there: another name
            import tempfile

            path = tempfile.mkdtemp(prefix="cgm-run-", dir="/tmp")
        else:
            os.mkdir(path, 0o700)
        os.chmod(path, 0o700)
        if self.worker.uid is not None:
            os.chown(path, self.worker.uid, self.worker.uid)
        return path

    def _write_files(self):
        """The run's files, in its private directory, owned by the program's uid."""
        uid = self.worker.uid
        for name, text in (self.request.get("files") or {}).items():
            path = os.path.join(self.home, name)
            parent = os.path.dirname(path)
            if not os.path.isdir(parent):
                os.makedirs(parent, mode=0o755)
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text)
            while uid is not None and _inside(path, self.home) and path != self.home:
                os.chown(path, uid, uid)
                path = os.path.dirname(path)

    def step(self, step):
        """Run one step in a fresh process; kill everything it left; report."""
        out, err = _scratch_file("stdout"), _scratch_file("stderr")
        verdict = _scratch_file("verdict")
        started_r, started_w = os.pipe()
        seconds = step["timeout"] + GRACE_SECONDS
        bound = step.get("max_output")
        self.watched = (out, int(bound)) if bound is not None else None
        # the deadline's handler is set before the fork: after it, every page this process
        # writes is copied while the program's process still shares it
        self.deadline = time.monotonic() + seconds
        signal.signal(signal.SIGALRM, self._on_alarm)
        forked = time.monotonic()
        program = os.fork()
        if program == 0:
            os.close(started_r)
            self.program(step, out, err, verdict, started_w)  # never returns
        os.close(started_w)
        if self.stdin is not None:  # the program holds it now; the host's writer sees its end
            os.close(self.stdin)
            self.stdin = None
        timed_out, status, cpu, exceeded = self._wait(program, seconds)
        ended = time.monotonic()
        killed, leftover = self._clean_up(program)
        cleaned = time.monotonic()
        # what the program's process said before the program ran: "started <u|-> <time>",
        # then "exec-error <why>" if a command could not be executed; or "setup-error <why>"
        said = os.read(started_r, 65536).decode("utf-8", errors="replace").split("\n")
        os.close(started_r)
        words = said[0].split(" ")
        started = words[0] == "started" and len(words) == 3
        begun = float(words[2]) if started else ended
        stdout_bytes = os.fstat(out).st_size
        record = {
            "started": started,
            "own_user_namespace": started and words[1] == "u",
            "wait_status": status,
            "timed_out": timed_out,
            "output_exceeded": exceeded or (bound is not None and stdout_bytes > bound),
            "stdout_bytes": stdout_bytes,
            "duration": ended - begun,
            "cpu": cpu,
            "killed": killed,
            "leftover": leftover,
            "output_bytes": max(os.fstat(out).st_size, os.fstat(err).st_size),
            "stdout": _tail(out, OUTPUT_LIMIT) if bound is None else _head(out, int(bound)),
            "stderr": _tail(err, OUTPUT_LIMIT),
            "verdict": _head(verdict, VERDICT_LIMIT),
            "times": {"forked": forked, "started": begun, "ended": ended, "cleaned": cleaned},
        }
        for line in said:
            kind, _, why = line.partition(" ")
            if kind in ("exec-error", "setup-error"):
                record["setup_error"] = why
        if not started and "setup_error" not in record and not timed_out:
            record["setup_error"] = (
                f"the program's process ended before it started (wait status {status})"
            )
        for fd in (out, err, verdict):
            os.close(fd)
        record["continue"] = (
            not timed_out and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
            and "setup_error" not in record and not record["output_exceeded"]
        )
        return record

    def _on_alarm(self, signum, frame):
        if time.monotonic() >= self.deadline - 0.001:
            raise Deadline()
        watched = self.watched
        if watched is not None and os.fstat(watched[0]).st_size > watched[1]:
            raise OutputExceeded()

    def _wait(self, pid, seconds):
        """Reap children until ``pid`` ends; at the deadline (``self.deadline``, whose
        handler is set), or when its stdout passes its bound (``self.watched``, measured every
        OUTPUT_CHECK_SECONDS), kill the whole run. Returns (timed out, wait status, CPU
        seconds (user + system) of the processes reaped, with the children they reaped
        themselves, whether the output bound ended it)."""
        timed_out = exceeded = False
        cpu = 0.0
        if self.watched is not None:
            tick = min(seconds, OUTPUT_CHECK_SECONDS)
            signal.setitimer(signal.ITIMER_REAL, tick, tick)
        else:
            signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            while True:
                try:
                    done, status, usage = os.wait4(-1, 0)
                except Deadline:
                    timed_out = True
                    signal.setitimer(signal.ITIMER_REAL, 0)
                    self._kill_all(pid)
                    continue
                except OutputExceeded:
                    exceeded = True
                    signal.setitimer(signal.ITIMER_REAL, 0)
                    self._kill_all(pid)
                    continue
                except ChildProcessError:  # cannot happen before pid is reaped
                    return timed_out, 0, cpu, exceeded
                cpu += usage.ru_utime + usage.ru_stime
                if done == pid:
                    return timed_out, status, cpu, exceeded
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, signal.SIG_IGN)

    def _kill_all(self, pid):
        if self.worker.isolated:
            try:
                os.kill(-1, signal.SIGKILL)  # from PID 1: every other process of the run
            except ProcessLookupError:
                pass
        else:
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def _clean_up(self, pid):
        """Kill and reap what the step left running: (how many were running, how many still
        are after the cleanup; 0 unless a process could not be killed)."""
        if not self.worker.isolated:
            running = len(_group_members(pid))
            self._kill_all(pid)
            _reap(block=True)
            return running, len(_group_members(pid))
        me = str(os.getpid())
        running = None
        give_up = time.monotonic() + 10.0
        while True:
            try:
                alive = [e for e in os.listdir("/proc") if e.isdigit() and e != me]
            except OSError:
                alive = []
            if running is None:
                running = len(alive)
            if not alive or time.monotonic() > give_up:  # init's own end kills the rest
                return running, len(alive)
            try:
                os.kill(-1, signal.SIGKILL)  # from PID 1: every other process of the run
            except ProcessLookupError:
                pass
            _reap(block=False)
            time.sleep(0.0002)

    # the program's process: never returns
    def program(self, step, out, err, verdict, started):
        started = fcntl.fcntl(started, fcntl.F_DUPFD_CLOEXEC, 10)
        try:
            own_namespace = self._enter(step, out, err, verdict, started)
            said = f"started {'u' if own_namespace else '-'} {time.monotonic():.9f}\n".encode()
            if step["kind"] == "python":
                os.write(started, said)
                os.close(started)
                nonce = self.nonce
                self.nonce = self.request = None
                _sandbox_runner.run_python(step["source"], nonce, float(step["timeout"]),
                                           as_main=bool(step.get("as_main")))
            argv = step["argv"]
            for number in CATCHABLE:
                signal.signal(number, signal.SIG_DFL)
            os.write(started, said)
            try:
                os.execve(argv[0], argv, os.environ)
            except OSError as error:
                os.write(started, f"exec-error cannot start {argv[0]}: {error}\n".encode())
                os._exit(127)
        except BaseException as error:  # noqa: BLE001 - a harness failure, reported as such
            try:
                text = f"{type(error).__name__}: {error}".replace("\n", " ")
                os.write(started, f"\nsetup-error {text}\n".encode())
            except OSError:
                pass
        os._exit(125)

    def _enter(self, step, out, err, verdict, started):
        """Own session, private directory, uid, limits, no new privileges, own user namespace;
        the standard streams and the verdict channel at fixed numbers. Returns whether the
        process got a user namespace of its own."""
        worker = self.worker
        os.setsid()
        os.chdir(self.home)
        stdin = self.stdin if self.stdin is not None else os.open(os.devnull, os.O_RDONLY)
        targets = {0: stdin, 1: out, 2: err, 4: verdict}
        if step.get("vouch"):  # the run's token, for the harness code after the last test
            targets[3] = _scratch_file("token")
            os.write(targets[3], self.nonce)
            os.lseek(targets[3], 0, os.SEEK_SET)
        high = {t: fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for t, fd in targets.items()}
        for target, fd in high.items():
            os.dup2(fd, target, inheritable=True)
        top = max(resource.getrlimit(resource.RLIMIT_NOFILE)[0], started + 1, 1024)
        if 3 not in targets:
            os.closerange(3, 4)
        os.closerange(5, started)
        os.closerange(started + 1, top)
        uid = worker.uid
        if uid is not None:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
        # CPU seconds: the step's CPU-time limit where it has one (whole seconds, one more
        # than the limit: the exact limit is judged from the CPU time used), else its timeout
        cpu_limit = step.get("cpu_seconds") or step["timeout"]
        cpu = max(1, int(cpu_limit + 0.999)) + 1
        for which, value in (
            (resource.RLIMIT_CPU, (cpu, cpu + 1)),
            (resource.RLIMIT_AS, (self.memory_bytes,) * 2),
            (resource.RLIMIT_NPROC, (self.max_processes,) * 2),
            # a bounded stdout may pass its bound (by a byte at least): the bound, not the file
            # size limit, then ends the step
            (resource.RLIMIT_FSIZE, (max(self.max_file_bytes,
                                         int(step.get("max_output") or 0) + 1),) * 2),
            (resource.RLIMIT_NOFILE, (OPEN_FILES,) * 2),
            (resource.RLIMIT_CORE, (0, 0)),
        ):
            resource.setrlimit(which, value)
        own_namespace = False
        if worker.isolated:
            prctl(PR_SET_NO_NEW_PRIVS, 1)
            prctl(PR_SET_DUMPABLE, 1)  # its own /proc/self files, to write its id maps
            own_namespace = own_user_namespace()
            if not own_namespace and uid is None:  # without root it would stay root of the
                raise OSError(errno.EPERM, "no user namespace for the program")  # worker's
        # the worker's environment is the programs' own (set once: program_environment)
        if os.environ.get("HOME") != self.home:
            os.environ.update(HOME=self.home, TMPDIR=self.home)
        if step.get("env"):
            os.environ.update(step["env"])  # the step's own variables
        sys.argv[:] = [""]
        for number in CATCHABLE:
            signal.signal(number, signal.SIG_DFL)
        # as in a fresh interpreter
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGPIPE, signal.SIG_IGN)
        if hasattr(signal, "SIGXFSZ"):
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        return own_namespace


def program_environment(home=RUN_DIR):
    """The environment a program starts with (and the worker's own, set once, so that each
    program's process only changes what differs: its home, a step's own variables)."""
    os.environ.clear()
    os.environ.update(
        PATH="/usr/local/bin:/usr/bin:/bin",
        HOME=home,
        TMPDIR=home,
        LANG="C.UTF-8",
        PYTHONDONTWRITEBYTECODE="1",
        PYTHONHASHSEED="0",
    )


def own_user_namespace():
    """A user namespace of the program's own in which it is an ordinary uid with no
    capability: its own process count, keyrings, and no power over the run's mounts.
    False when user namespaces cannot be created here; an error when one was created but
    could not be entered properly (the process must then never run the program)."""
    uid, gid = os.geteuid(), os.getegid()
    try:
        unshare(CLONE_NEWUSER)
    except OSError:
        return False
    write_file("/proc/self/setgroups", "deny")
    write_file("/proc/self/uid_map", f"{NESTED_ID} {uid} 1")
    write_file("/proc/self/gid_map", f"{NESTED_ID} {gid} 1")
    os.setresgid(NESTED_ID, NESTED_ID, NESTED_ID)
    os.setresuid(NESTED_ID, NESTED_ID, NESTED_ID)
    drop_capabilities()
    return True


def _reap(block):
    """Reap every ended child (``block``: until none is left)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, 0 if block else os.WNOHANG)
        except ChildProcessError:
            return
        except InterruptedError:
            continue
        if pid == 0:
            return


def _group_members(pgid):
    members = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return members
    for entry in entries:
        if entry.isdigit():
            try:
                if os.getpgid(int(entry)) == pgid:
                    members.append(int(entry))
            except OSError:
                continue
    return members


# --- the worker ---------------------------------------------------------------------------------


class Worker:
    def __init__(self, config):
        self.config = config
        self.isolated = False
        self.uid = None
        self.features = []
        self.run_features = []
        self.notes = {}
        self.filesystem = None
        self.base = {}
        self.fd_socket = None  # where the host sends the read ends of stdin pipes

    def setup(self):
        """Namespaces and file system, once (as the process that will start init)."""
        config = self.config
        as_root = os.geteuid() == 0
        if config["namespaces"]:
            try:
                self.features += self._enter_namespaces(as_root)
                self.isolated = True
                # no process of the program's uid may trace the worker (without root they
                # share it): a process that is not dumpable cannot be traced without privilege
                prctl(PR_SET_DUMPABLE, 0)
            except (OSError, AttributeError) as error:
                if config["require_isolation"]:
                    raise SetupFailure(namespace_error=str(error)) from None
                self.notes["namespace_error"] = str(error)
        elif config["require_isolation"]:
            raise SetupFailure(namespace_error=f"no namespaces on {sys.platform}")
        if self.isolated:
            self.uid = config["uid"] if as_root else None
            self.filesystem = FileSystem(config, as_root)
            try:
                self.features += self.filesystem.prepare()
            except OSError as error:
                raise SetupFailure(setup_error=f"preparing the file system: {error}") from None
            self.notes.update(self.filesystem.notes)
            if self.uid is not None:
                self.features.append("unprivileged_uid")

    def become_init(self):
        """In the new PID namespace, as its PID 1: its own /proc, signals ignored, handles to
        the namespaces each run returns to."""
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        for number in CATCHABLE:
            if number != signal.SIGCHLD:
                signal.signal(number, signal.SIG_IGN)
        self.run_features = ["pid_namespace", "mount_namespace_per_run", "ipc_namespace",
                             "private_tmp"]
        try:
            mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
            self.run_features.append("own_proc")
        except OSError:  # (a container that hides parts of /proc) show none of the host's
            mount("tmpfs", "/proc", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=555,size=4k")
            read_only("/proc")
        for kind in ("mnt", "ipc"):
            self.base[kind] = os.open(f"/proc/self/ns/{kind}", os.O_RDONLY | os.O_CLOEXEC)

    def back_to_base(self):
        setns(self.base["mnt"], CLONE_NEWNS)
        setns(self.base["ipc"], CLONE_NEWIPC)
        os.chdir("/")

    @staticmethod
    def _enter_namespaces(as_root):
        """New mount, network and IPC namespaces; without root, inside a new user namespace in
        which this user is root (so it may mount), as rootless containers do."""
        features = ["network_namespace"]
        if as_root:
            unshare(CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC)
            return features
        uid, gid = os.geteuid(), os.getegid()
        unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC)
        write_file("/proc/self/setgroups", "deny")
        write_file("/proc/self/uid_map", f"0 {uid} 1")
        write_file("/proc/self/gid_map", f"0 {gid} 1")
        return ["user_namespace", *features]

    def run(self, request):
        return Run(self, request).execute()

    def serve(self, requests, replies):
        while True:
            request = receive(requests)
            if request is None or request.get("op") == "exit":
                return
            run = Run(self, request)
            try:
                reply = run.execute()
            except Exception as error:  # noqa: BLE001 - a harness failure, reported as such
                send(replies, {"setup_error": f"{type(error).__name__}: {error}"})
                return  # (e.g. could not return to its own namespaces) never run another
            send(replies, reply)
            if run.open:
                try:
                    run.session(requests, replies)
                except Exception as error:  # noqa: BLE001 - a harness failure, as above
                    send(replies, {"setup_error": f"{type(error).__name__}: {error}"})
                    return


# --- warm before the first program ---------------------------------------------------------------

# standard-library modules imported once by the worker, so that a program's process (a fork)
# finds them loaded instead of importing them itself: ``ast`` (a traceback of Python 3.11+
# parses the failing line with it: every failing program would import it) and ``typing``
# (imported by most generated code: HumanEval's and MBPP's prompts, type hints)
PRELOADED = ("ast", "typing")
_WARM_SOURCE = "def warm(value):\n    assert value == 1, 'warm'\n\nwarm(0)\n"


def warm_up():
    """Do once what every program's process would otherwise do again after the fork: import
    :data:`PRELOADED`, set up the compiler (Python creates its syntax-tree types at the first
    ``compile``), format a traceback; then freeze the objects made so far, so that a garbage
    collection in a program does not walk (and copy, page by page) the worker's own."""
    for name in PRELOADED:
        __import__(name)
    lines = _WARM_SOURCE.splitlines(True)
    linecache.cache["<string>"] = (len(_WARM_SOURCE), None, lines, "<string>")
    try:
        exec(compile(_WARM_SOURCE, "<string>", "exec"), {})
    except AssertionError as error:
        traceback.format_exception(type(error), error, error.__traceback__)
    finally:
        linecache.cache.pop("<string>", None)
    gc.collect()
    gc.freeze()


# --- the channel to the host --------------------------------------------------------------------


def _read_exactly(fd, size):
    chunks = []
    while size:
        chunk = os.read(fd, size)
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def receive(fd):
    header = _read_exactly(fd, 4)
    if header is None:
        return None
    body = _read_exactly(fd, struct.unpack(">I", header)[0])
    return None if body is None else json.loads(body)


def send(fd, message):
    body = json.dumps(message).encode()
    data = struct.pack(">I", len(body)) + body
    while data:
        data = data[os.write(fd, data):]


def main():
    # the folders this process makes (mount points of the needed paths, e.g. a ~/.pyenv above
    # a bound interpreter) must be traversable by the program's uid whatever the caller's umask
    # (077 made them 0700: the interpreter's standard library unreachable inside); what is
    # private stays so by its own mode (the run's directory is 0700)
    os.umask(0o022)
    requests, replies = int(sys.argv[1]), int(sys.argv[2])
    config = receive(requests)
    if config is None:
        return
    worker = Worker(config)
    if len(sys.argv) > 3:
        worker.fd_socket = socket.socket(fileno=int(sys.argv[3]))
    try:
        worker.setup()
        if worker.isolated:
            unshare(CLONE_NEWPID)
    except SetupFailure as failure:
        send(replies, {"ready": False, **failure.fields})
        return
    except Exception as error:  # noqa: BLE001 - the host reports it with its cause
        send(replies, {"ready": False, "setup_error": f"{type(error).__name__}: {error}"})
        return
    if worker.isolated:
        init = os.fork()
        if init != 0:  # this process only waits: init (PID 1) serves the host
            os.close(requests)
            os.close(replies)
            _, status = os.waitpid(init, 0)
            os._exit(0 if status == 0 else 1)
        try:
            worker.become_init()
        except Exception as error:  # noqa: BLE001
            send(replies, {"ready": False, "setup_error": f"init: {type(error).__name__}: {error}"})
            os._exit(1)
    program_environment()
    warm_up()  # (with the worker's own import path: the standard library)
    # the programs see the caller's import path, as in a fork of the caller (code_eval)
    sys.path[:] = config["sys_path"]
    send(replies, {"ready": True, "isolation": worker.features, "notes": worker.notes,
                   "uid": worker.uid})
    worker.serve(requests, replies)
    os._exit(0)


if __name__ == "__main__":
    main()
