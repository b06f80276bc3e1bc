"""Warm worker processes that compute the Space's answers on every core.

Scoring is pure Python (parsers, n-gram counts, tree and graph matching) and holds the GIL, so
the threads of one server process share one core. The Space therefore computes in worker
processes started with the server: each loads the metrics, parsers and WordNet once (the
warm-up), then computes one request at a time (:data:`.pages.TASKS`) and sends back what the
page shows (HTML, SVG, PNG bytes, numbers). A request waits for a free worker in arrival
order. A worker that runs past the request's time limit, or dies (out of memory), is replaced,
and the request gets a message instead of an answer. A problem the user can fix comes back as
:class:`~.limits.SpaceInputError`.

``Pool(size=0)`` computes in the calling thread instead (one core; no processes).

With ``CGM_SPACE_TIMINGS=1`` in the server's environment, every request writes one line to the
server's standard error, ``space-timing {json}``: when it reached :meth:`Pool.run`, got a
worker, and got its answer back (``time.time()``), and the worker's own start, end and CPU
seconds for the task (``benchmarks/space_load.py`` reads
them into a per-stage profile of a burst).

>>> pool = Pool("doc", size=0, warm=False)
>>> pool.run("side_by_side", "python", "x = 1", ["x = 1", "x = 2"])["numbers"]["metrics"][:2]
['chrf_code', 'codebleu']
"""

from __future__ import annotations

import gc
import json
import logging
import os
import pickle
import queue
import resource
import subprocess
import sys
import threading
import time
import traceback
from multiprocessing.connection import Connection
from typing import Any

from .limits import SpaceInputError

LOGGER = logging.getLogger("cgm_metrics.frontends.space")
SINGLE_THREADED = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
STARTUP_SECONDS = 600.0  # a warm-up on a busy machine can take minutes
#: workers run at a lower priority than the server: while they warm up (tens of CPU seconds
#: together) the server serves its page and answers the first requests itself; warm, they
#: compute while the server mostly waits, so the order changes little
WORKER_NICENESS = 5
MEMORY_MESSAGE = ("This input needs more memory than the Space allows a request. Use the `cgm` "
                  "command (pip install cgm-metrics) for it, or try a smaller input here.")


def default_size() -> int:
    """Worker processes to start: ``CGM_SPACE_WORKERS`` when set (0: compute in the server
    process), else one per usable core, at most 4 (each holds about 0.5 GB)."""
    value = os.environ.get("CGM_SPACE_WORKERS", "").strip()
    if value:
        try:
            size = int(value)
        except ValueError:
            raise ValueError(f"CGM_SPACE_WORKERS={value!r} must be a whole number of worker "
                             "processes (0 computes in the server process).") from None
        if size < 0:
            raise ValueError(f"CGM_SPACE_WORKERS={value!r} must be 0 or more.")
        return size
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    return max(1, min(4, cores))


class _Worker:
    """One worker process and the two pipes to it (requests in, answers out)."""

    def __init__(self, name: str, memory_mb: int | None, plots: bool, warm: bool) -> None:
        command = [sys.executable, "-c", "from cgm_metrics.frontends.space.workers import main; main()",
                   name, str(memory_mb or 0), "plots" if plots else "-",
                   "warm" if warm else "cold"]
        # one thread of numerical work per worker: the workers share the cores, and idle BLAS
        # threads spinning between requests cost a second of CPU a request
        env = {**os.environ, **{name: "1" for name in SINGLE_THREADED}}
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        env=env)
        assert self.process.stdin is not None and self.process.stdout is not None
        self._to = Connection(os.dup(self.process.stdin.fileno()), readable=False)
        self._from = Connection(os.dup(self.process.stdout.fileno()), writable=False)
        self.process.stdin.close()
        self.process.stdout.close()
        self.ready = False
        self._ready_lock = threading.Lock()  # one reader of the 'ready' message at a time

    def _receive(self, timeout: float) -> Any:
        if not self._from.poll(timeout):
            raise TimeoutError
        return pickle.loads(self._from.recv_bytes())

    def check_ready(self) -> bool:
        """Whether the worker has said it is ready, without waiting for it."""
        if self.ready or not self._ready_lock.acquire(blocking=False):
            return self.ready
        try:
            if not self.ready and self.alive and self._from.poll(0):
                self._accept(self._receive(0))
        except (TimeoutError, EOFError, OSError, RuntimeError):
            return False  # a worker that failed to start: :meth:`wait_ready` reports it
        finally:
            self._ready_lock.release()
        return self.ready

    def wait_ready(self) -> None:
        with self._ready_lock:
            if not self.ready:
                self._wait_ready()

    def _accept(self, message: Any) -> None:
        if message != "ready":
            raise RuntimeError(f"a Space worker said {message!r} instead of 'ready'")
        self.ready = True

    def _wait_ready(self) -> None:
        try:
            message = self._receive(STARTUP_SECONDS)
        except TimeoutError:
            self.stop()
            raise RuntimeError(f"a Space worker did not start within {STARTUP_SECONDS:.0f} s"
                               ) from None
        except (EOFError, OSError):
            self.stop()
            raise RuntimeError("a Space worker stopped while starting (exit code "
                               f"{self.process.wait()}); see the server log") from None
        self._accept(message)

    def call(self, task: str, args: tuple, timeout: float, memory_mb: int | None = None,
             timing: dict[str, Any] | None = None) -> Any:
        self.wait_ready()
        self._to.send_bytes(pickle.dumps((task, args)))
        try:
            kind, value, worker_timing = self._receive(timeout)
        except TimeoutError:
            self.stop()
            raise SpaceInputError(
                f"This input took longer than the {timeout:.0f} s the Space allows a request, "
                "so it was stopped. Use the `cgm` command (pip install cgm-metrics) for it, or "
                "try a smaller input here.") from None
        except (EOFError, OSError):
            code = self.process.wait()
            if memory_mb:  # the likely cause: an allocation past the allowance in C code
                LOGGER.warning("Space worker stopped while computing (exit code %s)", code)
                raise SpaceInputError(MEMORY_MESSAGE) from None
            raise RuntimeError(f"the Space worker stopped while computing (exit code {code}; "
                               "out of memory?)") from None
        if timing is not None:
            timing.update(worker_timing)
        if kind == "ok":
            return value
        if kind == "input":
            raise SpaceInputError(value)
        raise RuntimeError(f"the Space worker failed:\n{value}")

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        if self.alive:
            self.process.kill()
        self.process.wait()
        for connection in (self._to, self._from):
            connection.close()


class Pool:
    """``size`` worker processes named ``name`` (started on first use or by :meth:`start`);
    :meth:`run` computes one task in a free worker, waiting for one in arrival order.

    ``timeout``: seconds a task may take before its worker is stopped and replaced;
    ``memory_mb``: memory a task may add to a warm worker (an address-space limit; a request
    beyond it gets a message); ``plots``: warm matplotlib too; ``warm=False``: no warm-up
    (the first requests load what they need).

    ``early=True``: while no worker has finished its warm-up (seconds on a quiet machine, a
    minute or more on a busy one), a request is computed in the calling process instead, one
    at a time, loading only what it needs (a first side-by-side: about 2.5 s of CPU), so the
    first users of a Space that has just started get answers rather than a wait; from the
    first ready worker on, every request goes to the workers. The calling process has no time
    or memory limit of its own: use it for requests the page's limits keep small.
    :attr:`answered_early` counts those requests."""

    def __init__(self, name: str, size: int | None = None, timeout: float = 60.0,
                 memory_mb: int | None = None, plots: bool = False, warm: bool = True,
                 early: bool = False) -> None:
        self.name = name
        self.early = early
        self.answered_early = 0
        self._early_lock = threading.Lock()
        self.size = default_size() if size is None else size
        self.timeout = timeout
        self.memory_mb = memory_mb
        self.plots = plots
        self.warm = warm
        self._idle: queue.Queue[_Worker] = queue.Queue()
        self._workers: list[_Worker] = []
        self._lock = threading.Lock()
        self._started = False

    def start(self) -> Pool:
        """Start the workers (their warm-up runs in the background; the first requests wait
        for it). In-process (``size=0``), warm up here."""
        with self._lock:
            if self._started:
                return self
            self._started = True
            if self.size == 0:
                if self.warm:
                    from .views import warm_up

                    warm_up(plots=self.plots)
                return self
            for _ in range(self.size):
                self._add()
        return self

    def _add(self) -> None:
        worker = _Worker(self.name, self.memory_mb, self.plots, self.warm)
        self._workers.append(worker)
        self._idle.put(worker)

    def run(self, task: str, *args: Any) -> Any:
        """The result of ``TASKS[task](*args)``, computed in a free worker."""
        from .pages import TASKS

        if task not in TASKS:
            raise ValueError(f"unknown task {task!r}; known: {', '.join(TASKS)}")
        self.start()
        if self.size == 0:
            return TASKS[task](*args)
        if self.early and not self.warmed():
            with self._early_lock:  # one request at a time in this process
                if not self.warmed():
                    self.answered_early += 1
                    return TASKS[task](*args)
        timing: dict[str, Any] | None = None
        if os.environ.get("CGM_SPACE_TIMINGS", "") not in ("", "0"):
            timing = {"pool": self.name, "task": task, "key": _key(args),
                      "arrived": time.time()}
        worker = self._idle.get()
        if timing is not None:
            timing["worker"] = time.time()
        try:
            return worker.call(task, args, self.timeout, self.memory_mb, timing)
        finally:
            if timing is not None:
                timing["answered"] = time.time()
                sys.stderr.write("space-timing " + json.dumps(timing) + "\n")
                sys.stderr.flush()
            if worker.alive:
                self._idle.put(worker)
            else:
                LOGGER.warning("Space worker %s (pid %s) stopped; starting another", self.name,
                               worker.process.pid)
                with self._lock:
                    worker.stop()
                    self._workers.remove(worker)
                    self._add()

    def warmed(self) -> bool:
        """Whether a worker has finished its warm-up (asked without waiting)."""
        return any(worker.check_ready() for worker in list(self._workers))

    def close(self) -> None:
        """Stop every worker."""
        with self._lock:
            for worker in self._workers:
                worker.stop()
            self._workers.clear()
            self._idle = queue.Queue()
            self._started = False


def _key(args: tuple) -> str:
    """What names a request in the timings: its first text argument that is a file path
    (an upload's server path), else nothing."""
    for arg in args:
        if isinstance(arg, str) and os.sep in arg:
            return arg
    return ""


# ---------------------------------------------------------------- the worker process


def _limit_memory(extra_mb: int) -> None:
    """Let this process grow by ``extra_mb`` of address space beyond what it holds now."""
    with open("/proc/self/statm") as handle:
        size = int(handle.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    limit = size + extra_mb * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _serve(name: str, memory_mb: int, plots: bool, warm: bool = True) -> None:
    """Warm up, say ready, then answer requests until the server closes the pipe."""
    answers = Connection(os.dup(1), readable=False)
    requests = Connection(os.dup(0), writable=False)
    try:  # the server goes first: its page, uploads and the answers it gives while we warm up
        os.nice(WORKER_NICENESS)
    except (AttributeError, OSError):  # not a Unix, or not allowed
        pass
    os.dup2(2, 1)  # anything a library prints goes to the server log, not into the pipe
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    from ... import agreement  # noqa: F401 - the code of every task loads before the limit
    from .pages import TASKS
    from .views import warm_up

    started = time.perf_counter()
    if warm:
        warm_up(plots=plots)
    # what the warm-up loaded (parsers, metrics, WordNet: ~0.5 M objects) stays for the life
    # of the worker: out of the collector's sight, a full collection during a request scans
    # only what requests allocate (it took 0.2-0.35 s with them, once in a worker's first
    # requests)
    gc.collect()
    gc.freeze()
    if memory_mb and sys.platform.startswith("linux"):
        _limit_memory(memory_mb)
    LOGGER.info("Space worker %s (pid %d) ready in %.1f s", name, os.getpid(),
                time.perf_counter() - started)
    answers.send_bytes(pickle.dumps("ready"))
    while True:
        try:
            task, args = pickle.loads(requests.recv_bytes())
        except (EOFError, OSError):
            return  # the server is gone
        started, cpu = time.time(), time.process_time()
        try:
            reply: tuple[str, Any] = ("ok", TASKS[task](*args))
        except SpaceInputError as error:
            reply = ("input", str(error))
        except MemoryError:
            reply = ("input", MEMORY_MESSAGE)
        except Exception:  # noqa: BLE001 - the server logs it and shows a short message
            reply = ("error", traceback.format_exc())
        timing = {"started": started, "computed": time.time(),
                  "cpu": time.process_time() - cpu}
        try:
            payload = pickle.dumps((*reply, timing))
        except Exception:  # noqa: BLE001 - an answer that cannot be sent is an error
            payload = pickle.dumps(("error", traceback.format_exc(), timing))
        answers.send_bytes(payload)


def main() -> None:
    """The worker process: ``python -c "...; main()" NAME MEMORY_MB plots|- warm|cold``."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    _serve(sys.argv[1], int(sys.argv[2]), sys.argv[3] == "plots", sys.argv[4] == "warm")
