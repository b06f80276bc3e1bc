"""The judge (execution/judge.py): a task whose tests are separate runs gets one verdict per
test, and the sample's verdict is its first test that did not pass (passed only when every
test passed), as the issue that introduced the judge defines it; a timed-out sample runs again
under the retry limit."""

from __future__ import annotations

from dataclasses import dataclass

from hostile_programs import needs_sandbox

from cgm_metrics.execution import judge
from cgm_metrics.execution.sandbox import check_limits
from cgm_metrics.execution.tasks import Problem

LOOP = "    while True:\n        pass\n"


@dataclass(frozen=True)
class TwoTestProblem(Problem):
    kind: str = "two_tests"


class TwoTests:
    """A kind of task whose two tests run as separate programs."""

    name = "two_tests"

    def tests(self, problem, completion, extract=False):
        return [judge.Test("one", completion + "\nassert f(1) == 2\n"),
                judge.Test("two", completion + "\nassert f(2) == 3\n")], None


def _verdicts(monkeypatch, completions, **options):
    monkeypatch.setitem(judge.KINDS, "two_tests", TwoTests())
    problem = TwoTestProblem("t", "", "", "f")
    jobs = [judge.problem_job(index, problem, completion)
            for index, completion in enumerate(completions)]
    return judge.Judge(check_limits(1.0), workers=2, **options).judge(jobs)


@needs_sandbox
def test_the_first_test_that_does_not_pass_decides(monkeypatch):
    right, second_fails, first_loops, first_fails = _verdicts(monkeypatch, [
        "def f(x):\n    return x + 1\n",
        "def f(x):\n    return 2\n",
        "def f(x):\n    if x == 1:\n        while True:\n            pass\n    return x + 1\n",
        "def f(x):\n    if x == 1:\n        return 0\n" + LOOP,
    ])
    assert [t.name for t in right.tests] == ["one", "two"]
    assert right.passed and right.status == "passed" and right.result == "passed"
    assert [t.status for t in second_fails.tests] == ["passed", "failed"]
    assert not second_fails.passed and second_fails.deciding.name == "two"
    assert second_fails.result.startswith("failed: ")
    assert [t.status for t in first_loops.tests] == ["timeout", "passed"]
    assert first_loops.status == "timeout" and first_loops.limit == "timeout"
    assert first_loops.result == "timed out" and first_loops.timeout_detail()
    # the first test that did not pass, not the worst one
    assert [t.status for t in first_fails.tests] == ["failed", "timeout"]
    assert first_fails.status == "failed" and first_fails.deciding.name == "one"


@needs_sandbox
def test_a_timed_out_sample_runs_again_under_the_retry_limit(monkeypatch):
    slow = "import time\ntime.sleep(1.3)\ndef f(x):\n    return x + 1\n"
    fast, retried = _verdicts(monkeypatch, ["def f(x):\n    return x + 1\n", slow],
                              retry_timeout=5.0)
    assert fast.attempt == 1 and fast.first_status is None
    assert retried.attempt == 2 and retried.first_status == "timeout" and retried.passed
    assert {run.time_limit for test in retried.tests for run in test.runs} == {5.0}


def test_majority_breaks_ties_against_passing():
    from cgm_metrics.execution.runs import Verdict

    def run(status):
        return Verdict(status == "passed", status, status, None, 0.0)

    assert judge.majority([run("passed"), run("failed")]) == ("failed", True)
    assert judge.majority([run("passed"), run("passed"), run("timeout")]) == ("passed", True)
    assert judge.majority([run("timeout"), run("killed")]) == ("timeout", False)


@needs_sandbox
def test_a_cancelled_run_kills_its_programs_and_raises(monkeypatch):
    """``cancel`` set from another thread ends a run within about half a second: its running
    program (a minute of sleep) is killed, the rest are not run, Cancelled is raised."""
    import threading
    import time

    import pytest

    from cgm_metrics.execution.runs import Cancelled
    from cgm_metrics.execution.sandbox import Limits

    monkeypatch.setitem(judge.KINDS, "two_tests", TwoTests())
    problem = TwoTestProblem("t", "", "", "f")
    sleeper = "import time\ntime.sleep(60)\ndef f(x):\n    return x + 1\n"
    jobs = [judge.problem_job(index, problem, sleeper) for index in range(3)]
    cancel = threading.Event()
    timer = threading.Timer(1.0, cancel.set)
    start = time.monotonic()
    timer.start()
    with pytest.raises(Cancelled):
        judge.Judge(Limits(timeout=90.0)).judge(jobs, cancel=cancel)
    assert time.monotonic() - start < 20


@needs_sandbox
def test_a_run_cancelled_while_its_worker_starts_runs_nothing(monkeypatch):
    """Cancelled while a worker is being set up (made slow here: a loaded machine), before
    its sandbox exists to be killed: the program it had taken is not started afterwards
    (else the run would wait the minute of sleep before raising)."""
    import threading
    import time

    import pytest

    from cgm_metrics.execution import runs
    from cgm_metrics.execution.runs import Cancelled
    from cgm_metrics.execution.sandbox import Limits

    real = runs.acquire_worker

    def slow_acquire(*args, **kwargs):
        time.sleep(1.0)
        return real(*args, **kwargs)

    monkeypatch.setattr(runs, "acquire_worker", slow_acquire)

    monkeypatch.setitem(judge.KINDS, "two_tests", TwoTests())
    problem = TwoTestProblem("t", "", "", "f")
    sleeper = "import time\ntime.sleep(60)\ndef f(x):\n    return x + 1\n"
    cancel = threading.Event()
    timer = threading.Timer(0.05, cancel.set)
    start = time.monotonic()
    timer.start()
    with pytest.raises(Cancelled):  # limits of their own: no warm worker of another test
        judge.Judge(Limits(timeout=89.0, memory_mb=3001)).judge(
            [judge.problem_job(0, problem, sleeper)], cancel=cancel)
    assert time.monotonic() - start < 20
