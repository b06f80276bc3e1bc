"""Warm sandbox workers behind a bounded queue, for a server that must never hang, lose a
request or score a fault.

A :class:`Pool` owns ``workers`` slots, each a thread driving one worker: a
:class:`~cgm_metrics.execution.sandbox.Sandbox` of this machine (set up once, with its
canary), or a sandbox actor on a Ray cluster (the actor of
:mod:`cgm_metrics.execution.runs`' Ray engine). A :class:`Job` (one program and its limits)
waits in the queue until a slot takes it; its ``future`` then holds the sandbox's
:class:`~cgm_metrics.execution.sandbox.ExecutionResult`, or the
:class:`~cgm_metrics.execution.sandbox.SandboxError` that says why the harness could not run
it.

- The queue is bounded: :meth:`Pool.submit` raises :class:`QueueFull` at once beyond it
  (the server answers 503 with ``Retry-After``), and :class:`Draining` once the pool stops
  taking work (SIGTERM).
- A worker that dies mid-program (killed, out of memory, a broken channel) fails that one job
  with the cause and is replaced at once by a new one; nothing else it ran is affected.
- :meth:`Pool.cancel` takes a queued job out of the queue, or kills the worker running it
  (its program dies with it) and replaces the worker: a client that went away or a request
  past its deadline leaves nothing running.
"""

from __future__ import annotations

import collections
import concurrent.futures
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from ...execution.languages import run_checked
from ...execution.sandbox import ExecutionResult, Limits, Sandbox, SandboxError

#: seconds between two attempts to set up a worker after a failed one (doubling to a minute)
_RESTART_DELAY = 0.5


class QueueFull(RuntimeError):
    """The queue holds its limit: retry after ``retry_after`` seconds."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class Draining(RuntimeError):
    """The pool is shutting down and takes no new work."""


class Cancelled(RuntimeError):
    """The job was cancelled (its client left, or its deadline passed) before it ended."""


@dataclass(eq=False)
class Job:
    """One program to run under ``limits``; ``future`` holds its result. ``state``:
    ``"queued"``, ``"running"``, ``"done"`` or ``"cancelled"``."""

    program: Any
    limits: Limits
    future: concurrent.futures.Future = field(default_factory=concurrent.futures.Future)
    state: str = "queued"
    queued_at: float = field(default_factory=time.monotonic)
    started_at: float | None = None
    slot: _Slot | None = None


class _LocalWorker:
    """A sandbox worker of this machine."""

    def __init__(self, limits: Limits, require_isolation: bool) -> None:
        self.sandbox = Sandbox(limits, require_isolation=require_isolation,
                               allow_code_execution=True)
        self.checked: set[str] = set()  # languages whose toolchain canary passed here

    def run(self, program: Any, limits: Limits) -> ExecutionResult:
        return run_checked(self.sandbox, program, limits, self.checked)

    def kill(self) -> None:
        self.sandbox.kill()

    def close(self) -> None:
        self.sandbox.close()

    def alive(self) -> bool:
        process = self.sandbox._process
        return process is not None and process.poll() is None


class _RayWorker:
    """A sandbox actor on a Ray cluster (the Ray engine's), one program a call."""

    def __init__(self, actor_class: Any, limits: Limits, require_isolation: bool) -> None:
        import ray

        self.ray = ray
        self.actor = actor_class.remote(limits, require_isolation)
        self.dead = False

    def run(self, program: Any, limits: Limits) -> ExecutionResult:
        from ...execution.runs import _harness_error

        ref = self.actor.results.remote([(program, limits)])
        try:
            return self.ray.get(ref)[0]
        except Exception as error:  # noqa: BLE001 - mapped to the local error
            self.dead = True
            raise _harness_error(error) from None

    def kill(self) -> None:
        self.dead = True
        try:
            self.ray.kill(self.actor)
        except Exception:  # noqa: BLE001 - already gone
            pass

    def close(self) -> None:
        self.kill()

    def alive(self) -> bool:
        return not self.dead


class _Slot:
    """One worker's thread and the job it runs."""

    def __init__(self, number: int) -> None:
        self.number = number
        self.worker: Any = None
        self.job: Job | None = None
        self.thread: threading.Thread | None = None


class Pool:
    """``workers`` warm sandbox workers (with ``ray``, an address: sandbox actors on that
    Ray cluster, one per CPU unless ``workers`` caps them) and a queue of at most
    ``max_queue`` waiting jobs. ``limits``: what a worker is set up with (each job runs under
    its own). :meth:`start` sets the workers up in their threads; :meth:`close` ends them."""

    def __init__(self, workers: int, *, max_queue: int = 1024, limits: Limits | None = None,
                 require_isolation: bool = True, ray: str | None = None) -> None:
        self.limits = limits if limits is not None else Limits()
        self.require_isolation = require_isolation
        self.max_queue = max_queue
        self.ray_address = ray
        self._ray_started = False
        self._actor_class: Any = None
        if ray is not None:
            from ...execution.runs import _SandboxActor
            from ...pipeline import distributed

            ray_module = distributed.require_ray()
            self._ray_started = distributed.connect(ray, log_to_driver=False)
            cpus = max(1, int(ray_module.cluster_resources().get("CPU", 1)))
            workers = min(workers, cpus) if workers > 0 else cpus
            self._actor_class = ray_module.remote(num_cpus=1, max_restarts=0)(_SandboxActor)
        self.size = max(1, workers)
        self._queue: collections.deque[Job] = collections.deque()
        self._condition = threading.Condition()
        self._slots = [_Slot(n) for n in range(self.size)]
        self._closed = False
        self._ray_lock = threading.Lock()
        self.draining = False
        self.counters: collections.Counter[str] = collections.Counter()
        self.last_error = ""
        self.started_at = time.time()

    # ---------------------------------------------------------------- lifecycle

    def start(self) -> None:
        if self._actor_class is not None:  # actors are created here, one after the other
            for slot in self._slots:
                slot.worker = self._new_worker()
        for slot in self._slots:
            slot.thread = threading.Thread(target=self._work, args=(slot,), daemon=True,
                                           name=f"serve-worker-{slot.number}")
            slot.thread.start()

    def drain(self) -> None:
        """Take no new work; what is queued or running still ends."""
        with self._condition:
            self.draining = True
            self._condition.notify_all()

    def close(self, wait: float = 10.0) -> None:
        """End every worker (their running programs with them); queued jobs fail with
        :class:`Draining`."""
        with self._condition:
            self._closed = True
            self.draining = True
            queued = list(self._queue)
            self._queue.clear()
            self._condition.notify_all()
        for job in queued:
            job.state = "cancelled"
            _settle(job.future, exception=Draining("the server shut down before it ran"))
        for slot in self._slots:
            worker = slot.worker
            if worker is not None and slot.job is not None:
                worker.kill()
        deadline = time.monotonic() + wait
        for slot in self._slots:
            if slot.thread is not None:
                slot.thread.join(max(0.0, deadline - time.monotonic()))
        if self._ray_started:
            from ...pipeline import distributed

            distributed.disconnect()

    # ---------------------------------------------------------------- work

    def submit(self, jobs: Iterable[Job]) -> None:
        """Queue ``jobs`` (all or none): :class:`QueueFull` when they do not fit,
        :class:`Draining` when the pool takes no new work."""
        jobs = list(jobs)
        with self._condition:
            if self.draining:
                self.counters["refused_draining"] += len(jobs)
                raise Draining("the server is shutting down and takes no new work")
            if len(self._queue) + len(jobs) > self.max_queue:
                self.counters["refused_full"] += len(jobs)
                raise QueueFull(
                    f"the queue is full ({len(self._queue)} of {self.max_queue} programs "
                    f"waiting, {len(jobs)} more asked)", self.retry_after(len(jobs)))
            for job in jobs:
                job.queued_at = time.monotonic()
                self._queue.append(job)
            self.counters["accepted"] += len(jobs)
            self._condition.notify(len(jobs))

    def retry_after(self, more: int = 1) -> int:
        """Seconds a client should wait before retrying (the queue's share of each worker,
        at a second a program, at least 1)."""
        return max(1, min(60, (len(self._queue) + more) // self.size))

    def cancel(self, job: Job, reason: str, only_queued: bool = False) -> str:
        """Cancel ``job``: out of the queue, or its worker killed (and replaced; not with
        ``only_queued``); the state it was in (``"queued"``, ``"running"``, or ``"done"`` when
        it had already ended)."""
        with self._condition:
            state = job.state
            if only_queued and state != "queued":
                return state
            if state == "queued":
                try:
                    self._queue.remove(job)
                except ValueError:
                    pass
                job.state = "cancelled"
                self.counters["cancelled_queued"] += 1
            elif state == "running":
                job.state = "cancelled"
                self.counters["cancelled_running"] += 1
                slot = job.slot
                if slot is not None and slot.worker is not None:
                    slot.worker.kill()  # the slot sees the job cancelled and replaces it
            else:
                return state
        _settle(job.future, exception=Cancelled(reason))
        return state

    def count_cancelled(self) -> None:
        """Count a running job cancelled outside the pool (a submission's own judge)."""
        with self._condition:
            self.counters["cancelled_running"] += 1

    def _take(self, slot: _Slot) -> Job | Literal[False] | None:
        """The next job; None once closed; False when this slot's idle worker has died (the
        caller replaces it at once, so health never counts a dead worker for long)."""
        with self._condition:
            while not self._queue and not self._closed:
                self._condition.wait(0.5)
                if not self._queue and slot.worker is not None and not slot.worker.alive():
                    return False
            if self._closed:
                return None
            job = self._queue.popleft()
            job.state = "running"
            job.slot = slot
            job.started_at = time.monotonic()
            slot.job = job
            return job

    def _new_worker(self) -> Any:
        if self._actor_class is not None:
            with self._ray_lock:  # Ray's first serialization context is not thread-safe
                return _RayWorker(self._actor_class, self.limits, self.require_isolation)
        return _LocalWorker(self.limits, self.require_isolation)

    def _work(self, slot: _Slot) -> None:
        delay = _RESTART_DELAY
        while not self._closed:
            if slot.worker is not None and not slot.worker.alive():  # died while idle
                self._replace(slot, "a worker died while idle")
            if slot.worker is None:
                try:
                    slot.worker = self._new_worker()
                    delay = _RESTART_DELAY
                except Exception as error:  # noqa: BLE001 - logged, retried: never a dead slot
                    with self._condition:
                        self.counters["setup_failures"] += 1
                        self.last_error = f"a worker could not be set up: {error}"
                    time.sleep(delay)
                    delay = min(60.0, delay * 2)
                    continue
            job = self._take(slot)
            if job is None:
                break
            if job is False:
                continue  # the loop's top replaces the dead idle worker
            worker = slot.worker
            if not worker.alive():  # died while this slot waited: a fresh one runs the job
                self._replace(slot, "a worker died while idle")
                try:
                    worker = slot.worker = self._new_worker()
                except Exception as error:  # noqa: BLE001 - the job's answer says why
                    self._finish(slot, job, exception=SandboxError(
                        f"no sandbox worker could be set up: {error}"))
                    continue
            try:
                result = worker.run(job.program, job.limits)
            except SandboxError as error:
                self._replace(slot, str(error))
                self._finish(slot, job, exception=error)
                continue
            except Exception as error:  # noqa: BLE001 - the request's error, not the worker's
                if not worker.alive():
                    self._replace(slot, str(error))
                self._finish(slot, job, exception=SandboxError(
                    f"the program could not be run: {type(error).__name__}: {error}"))
                continue
            self._finish(slot, job, result=result)
        if slot.worker is not None:
            slot.worker.close()
            slot.worker = None

    def _replace(self, slot: _Slot, cause: str) -> None:
        worker, slot.worker = slot.worker, None
        if worker is not None:
            try:
                worker.close()
            except Exception:  # noqa: BLE001 - it is gone either way
                pass
        with self._condition:
            self.counters["worker_restarts"] += 1
            self.last_error = cause

    def _finish(self, slot: _Slot, job: Job, result: ExecutionResult | None = None,
                exception: BaseException | None = None) -> None:
        with self._condition:
            slot.job = None
            cancelled = job.state == "cancelled"
            job.state = "done" if not cancelled else "cancelled"
            if not cancelled:
                self.counters["sandbox_errors" if exception is not None else "programs_run"] += 1
        if cancelled:
            return  # its future already holds Cancelled
        if exception is not None:
            _settle(job.future, exception=exception)
        else:
            _settle(job.future, result=result)

    # ---------------------------------------------------------------- health

    def health(self) -> dict[str, Any]:
        with self._condition:
            queued = len(self._queue)
            running = sum(1 for slot in self._slots if slot.job is not None)
            alive = sum(1 for slot in self._slots
                        if slot.worker is not None and slot.worker.alive())
        return {
            "status": "draining" if self.draining else "ok",
            "engine": "ray" if self.ray_address is not None else "local",
            "workers": self.size,
            "workers_alive": alive,
            "queue": queued,
            "queue_limit": self.max_queue,
            "running": running,
            "programs_run": self.counters["programs_run"],
            "sandbox_errors": self.counters["sandbox_errors"],
            "worker_restarts": self.counters["worker_restarts"],
            "refused_full": self.counters["refused_full"],
            "refused_draining": self.counters["refused_draining"],
            "cancelled": self.counters["cancelled_queued"] + self.counters["cancelled_running"],
            "uptime_seconds": round(time.time() - self.started_at, 1),
            "last_error": self.last_error,
        }

    def wait_ready(self, timeout: float = 120.0) -> bool:
        """Wait until every worker is set up (or ``timeout``); whether they are."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if all(slot.worker is not None for slot in self._slots):
                return True
            time.sleep(0.05)
        return False


def _settle(future: concurrent.futures.Future, result: Any = None,
            exception: BaseException | None = None) -> None:
    """Set ``future`` once (a later setting is dropped: a cancelled job's worker ending)."""
    try:
        if exception is not None:
            future.set_exception(exception)
        else:
            future.set_result(result)
    except concurrent.futures.InvalidStateError:
        pass
