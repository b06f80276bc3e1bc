"""The problem file's own solutions, run on this machine: whether each task's
``canonical_solution`` passes its own tests (``cgm check``), and the time it takes, from which
every task gets a time limit that follows the machine (``cgm score/compare --problems``).

The rule is EvalPlus's (``docs/execution.md``; ``--min-time-limit`` and
``--gt-time-limit-factor``, both 4 by default): a task's limit is ``max(floor, factor x t)``,
``t`` its canonical solution's time on the same machine. Here ``t`` is CPU time (user and
system, of every process of the program), and so is the limit the samples run under: the
machine's load lengthens the wall clock, not the CPU time a program needs, so a busy machine
does not turn a correct program into a timeout (a wall-clock backstop of
:data:`~cgm_metrics.execution.sandbox.WALL_BACKSTOP_FACTOR` times the limit stops programs
that wait).

The solutions of a file are run once per file content and machine: their verdicts and times
are kept in :func:`cache_dir` (``$CGM_CACHE_DIR``, else ``$XDG_CACHE_HOME/cgm-metrics``, else
``~/.cache/cgm-metrics``), in ``solutions/<file sha256>-<machine>.json``. A task without a
canonical solution keeps its language's fixed limit.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .problems import ProblemSet
from .sandbox import Limits

#: EvalPlus's defaults (evalplus/config.py: DEFAULT_MIN_TIME_LIMIT, DEFAULT_GT_TIME_LIMIT_FACTOR)
DEFAULT_MIN_TIME_LIMIT = 4.0
DEFAULT_TIME_LIMIT_FACTOR = 4.0
#: CPU seconds a canonical solution may take while it is measured
MEASURE_LIMIT = 60.0
#: the format of the cache files (a change makes the old ones unused)
CACHE_FORMAT = 1


def cache_dir() -> Path:
    """Where measured solutions are kept: ``$CGM_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/cgm-metrics``, else ``~/.cache/cgm-metrics``."""
    own = os.environ.get("CGM_CACHE_DIR")
    if own:
        return Path(own)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "cgm-metrics"


def machine() -> dict[str, Any]:
    """What identifies this machine for the times of programs: host, processor, CPUs, the
    Python that runs them and this library's version."""
    from .. import __version__

    processor = platform.processor()
    try:  # the model name says more than the architecture on Linux
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if line.startswith("model name"):
                    processor = line.partition(":")[2].strip()
                    break
    except OSError:
        pass
    return {"host": platform.node(), "processor": processor or platform.machine(),
            "cpus": os.cpu_count() or 1, "python": platform.python_version(),
            "executable": sys.executable, "cgm_metrics": __version__}


def file_digest(path: str | Path) -> str:
    """The SHA-256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@dataclass(frozen=True)
class SolutionRun:
    """A task's canonical solution, run against its own tests."""

    task_id: str
    passed: bool
    status: str
    result: str
    cpu_time: float
    duration: float
    #: an exception without a message: its type and the line that raised it (Verdict.detail)
    detail: str | None = None

    def reason(self) -> str:
        """Why it failed, in a few words."""
        if self.status == "timeout":
            return (f"timed out ({self.cpu_time:.2f} s of CPU time, {self.duration:.2f} s "
                    "elapsed)")
        if self.result.removeprefix("failed:").strip():
            return self.result
        if self.detail:
            return f"failed: {self.detail}"
        return "failed: an exception without a message (a bare assert, say)"


@dataclass
class Solutions:
    """The canonical solutions of a problem file on this machine: ``runs[i]`` is task i's
    (None where the task has no canonical solution)."""

    path: str
    digest: str
    runs: list[SolutionRun | None]
    cache_file: str | None = None
    cached: bool = False
    machine: dict[str, Any] = field(default_factory=dict)

    def failing(self) -> list[SolutionRun]:
        """The tasks whose own solution fails its tests."""
        return [run for run in self.runs if run is not None and not run.passed]

    def time_limits(self, floor: float, factor: float) -> list[float | None]:
        """EvalPlus's limit of every task, ``max(floor, factor x CPU time of its solution)``
        (None for a task without a solution)."""
        return [None if run is None else round(max(floor, factor * run.cpu_time), 3)
                for run in self.runs]

    def to_dict(self) -> dict[str, Any]:
        return {"problems": self.path, "sha256": self.digest, "cache_file": self.cache_file,
                "failing": [{"task_id": r.task_id, "reason": r.reason()} for r in self.failing()],
                "tasks_with_solution": sum(run is not None for run in self.runs)}


def _cache_file(digest: str, limits: Limits) -> Path:
    identity = json.dumps({"machine": machine(), "format": CACHE_FORMAT,
                           "memory_mb": limits.memory_mb, "max_processes": limits.max_processes,
                           "max_file_mb": limits.max_file_mb}, sort_keys=True)
    key = hashlib.sha256(identity.encode()).hexdigest()[:16]
    return cache_dir() / "solutions" / f"{digest[:32]}-{key}.json"


def _load(path: Path, problems: ProblemSet) -> list[SolutionRun | None] | None:
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
        tasks = data["tasks"]
        runs: list[SolutionRun | None] = []
        for problem in problems.problems:
            entry = tasks.get(problem.task_id)
            if problem.canonical_solution is None:
                runs.append(None)
            elif entry is None:
                return None
            else:
                runs.append(SolutionRun(problem.task_id, bool(entry["passed"]), entry["status"],
                                        entry["result"], float(entry["cpu_time"]),
                                        float(entry["duration"]), entry.get("detail")))
        return runs
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None  # no cache, or one this version cannot read: measure again


def _save(path: Path, solutions: Solutions) -> None:
    import tempfile

    data = {"format": CACHE_FORMAT, "problems": solutions.path, "sha256": solutions.digest,
            "machine": machine(),
            "tasks": {run.task_id: {"passed": run.passed, "status": run.status,
                                    "result": run.result, "cpu_time": run.cpu_time,
                                    "duration": run.duration,
                                    **({"detail": run.detail} if run.detail else {})}
                      for run in solutions.runs if run is not None}}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, part = tempfile.mkstemp(prefix=path.name, suffix=".part", dir=path.parent)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(json.dumps(data, indent=1, sort_keys=True) + "\n")
            os.replace(part, path)
        finally:
            if os.path.exists(part):
                os.unlink(part)
    except OSError:  # a read-only home: the next run measures again
        pass


def run_solutions(
    problems: ProblemSet,
    limits: Limits,
    *,
    jobs: int = 1,
    ray: str | None = None,
    use_cache: bool = True,
    require_isolation: bool = True,
    progress: Callable[[int], None] | None = None,
) -> Solutions:
    """Run every task's canonical solution (counting CPU time, up to :data:`MEASURE_LIMIT`
    seconds, with the memory, process and file limits of ``limits``), or read what an
    earlier run on this machine found for the same file content. Each solution is judged as
    a sample is (:class:`~cgm_metrics.execution.judge.Judge`)."""
    from .judge import Judge, problem_job

    digest = problems.digest or file_digest(problems.path)
    measure = replace(limits, timeout=MEASURE_LIMIT, clock="cpu")
    path = _cache_file(digest, measure)
    if use_cache:
        runs = _load(path, problems)
        if runs is not None:
            return Solutions(problems.path, digest, runs, str(path), True, machine())
    solutions = (problem_job(index, problem, problem.canonical_solution)
            for index, problem in enumerate(problems.problems)
            if problem.canonical_solution is not None)
    found: list[SolutionRun | None] = [None] * len(problems)
    judge = Judge(measure, workers=jobs, ray=ray, require_isolation=require_isolation)
    for verdict in judge.run(solutions, progress=progress):
        index = verdict.key
        problem = problems.problems[index]
        # an input/output task's limit is per test: its solution's slowest test
        cpu_time = (max(test.run.cpu_time for test in verdict.tests)
                    if problem.io is not None else verdict.cpu_time)
        found[index] = SolutionRun(problem.task_id, verdict.passed, verdict.status,
                                   verdict.result, cpu_time, verdict.duration, verdict.detail)
    measured = Solutions(problems.path, digest, found, str(path), False, machine())
    _save(path, measured)
    return measured
