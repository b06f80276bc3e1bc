"""Parity of the input/output problems read from their formats and judged here with what
other harnesses' own tests expect on the same rows (tests/data/competitive, see its NOTICE):
SandboxFusion's test suite, CodeRL's recorded APPS verdicts, verl's continuous scores, and
rllm's LeetCode reference solutions (a deterministic sample here; the full set by
scripts/io_parity_rllm.py). Each difference is listed in docs/io-problems.md with its reason."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from hostile_programs import needs_sandbox

from cgm_metrics.execution.io_spec import OutputRule
from cgm_metrics.execution.judge import Judge, problem_job
from cgm_metrics.execution.problems import read_problems
from cgm_metrics.execution.sandbox import check_limits

DATA = Path(__file__).parent / "data" / "competitive"


def _rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines()
            if line]


def _judge(pairs, *, timeout=6.0, extract=False, all_tests=False):
    jobs = [problem_job(index, problem, completion, extract, all_tests)
            for index, (problem, completion) in enumerate(pairs)]
    return Judge(check_limits(timeout), workers=2).judge(jobs)


@needs_sandbox
def test_sandboxfusion_test_suite_expectations():
    """The pass/fail SandboxFusion's own tests assert for chat answers on its LiveCodeBench and
    CodeContests rows (its /submit extracts the fenced code, as --extract does)."""
    problems = {}
    for name in ("sandboxfusion_live_code_bench_v1.jsonl", "sandboxfusion_code_contests.jsonl.gz"):
        read = read_problems(DATA / name)
        ids = ([row["id"] for row in _rows(name)] if name.endswith(".jsonl")
               else read.task_ids)  # the LiveCodeBench rows' task ids are their task_id
        problems.update(zip(ids, read.problems, strict=True))
    expected = _rows("sandboxfusion_testsuite_expected.jsonl")
    pairs = [(replace(problems[row["problem_id"]], language=row["language"]), row["completion"])
             for row in expected]
    verdicts = _judge(pairs, extract=True)
    assert [v.passed for v in verdicts] == [row["expected_accepted"] for row in expected]
    # where its test names the cause, a wrong answer on the first test
    for row, verdict in zip(expected, verdicts, strict=True):
        if row["expected_detail"] and "Wrong Answer" in row["expected_detail"]:
            assert verdict.judge == "wrong_answer"
            assert verdict.deciding.name.endswith("/0")


#: CodeRL's codes -> what they mean here. Its harness runs every test of a call-based program
#: and records -1 when any test raised or timed out (-2 when the program did not load: a
#: syntax error, or a name error at its top level, which it counts when it compiles the
#: program), False when a test's answer was wrong and none raised, True when all passed.
CODERL = {"True": "accepted", "False": "wrong_answer", "-1": "error", "-2": "error"}
#: APPS stores each expected result of its call-based Codewars tasks in a one-item list
#: (``[[false], ...]``) and its harness accepts a result equal to the list or to its item; the
#: reader marks such problems ``apps_unwrap`` and the judge applies it (task 4184's one correct
#: program needs it)
UNWRAPPED = ("apps_train/4184", 0)


def _coderl(verdict) -> str:
    if verdict.passed:
        return "accepted"
    errors = {"runtime_error", "time_limit", "memory_limit", "compile_error", "output_limit"}
    return "error" if any(t.run.judge in errors for t in verdict.tests) else "wrong_answer"


def _coderl_run(problems, only=None):
    # its harness's own solutions files hold the programs as it wrapped them (`def code():`
    # around the solution, never called): those are not programs to run
    recorded = [row for row in _rows("coderl_apps_train_verdicts.jsonl")
                if row["candidate_kind"] == "gen_solutions" and row["problem_id"] in problems
                and (only is None or (row["problem_id"], row["candidate_index"]) in only)]
    verdicts = _judge([(problems[row["problem_id"]], row["code"]) for row in recorded],
                      # every test, as APPS's harness; 1 s of CPU time a test, not its 4 s of
                      # wall clock: its timeouts loop for ever, and the suite stays short
                      timeout=1.0, all_tests=True)
    return {(row["problem_id"], row["candidate_index"]): (CODERL[str(row["recorded_result"])],
                                                          _coderl(verdict))
            for row, verdict in zip(recorded, verdicts, strict=True)}


@needs_sandbox
def test_coderl_recorded_apps_verdicts():
    problems = read_problems(DATA / "coderl_apps_train.jsonl")
    by_id = dict(zip(problems.task_ids, problems.problems, strict=True))
    found = _coderl_run(by_id)
    assert len(found) == 83
    differ = {key for key, (theirs, ours) in found.items() if theirs != ours}
    assert differ == set(), {key: found[key] for key in differ}
    assert found[UNWRAPPED] == ("accepted", "accepted")
    # without APPS's rule the program that needs it is judged wrong: the rule is what decides
    task = by_id["apps_train/4184"]
    plain = replace(task, io=replace(task.io, rule=OutputRule()))
    again = _coderl_run({"apps_train/4184": plain}, only={UNWRAPPED})
    assert again == {UNWRAPPED: ("accepted", "wrong_answer")}


@needs_sandbox
def test_verl_continuous_scores():
    """verl's test expects 1.0 and 0.9: the share of the first 10 tests its fixture solution
    passes on the problem and on a copy with one expected output altered."""
    problems = read_problems(DATA / "verl_prime_code_fixture.jsonl")
    expected = _rows("verl_prime_code_fixture_expected.jsonl")
    by_id = dict(zip([row["id"] for row in _rows("verl_prime_code_fixture.jsonl")],
                     problems.problems, strict=True))
    verdicts = _judge([(by_id[row["problem_id"]], row["completion"]) for row in expected],
                      all_tests=True)
    for row, verdict in zip(expected, verdicts, strict=True):
        first_ten = [test for test in verdict.tests if int(test.name.split("/")[1]) < 10]
        assert len(first_ten) == 10
        assert sum(t.passed for t in first_ten) / 10 == row["expected_score_continuous"]
    assert [v.tests_share for v in verdicts] == [1.0, 10 / 11]
    assert verdicts[1].deciding.name == "tests/3" and verdicts[1].judge == "wrong_answer"


#: every 40th problem of rllm's 1,768 with parsed tests (the full set: scripts/io_parity_rllm.py)
RLLM_STEP = 40


@needs_sandbox
def test_rllm_leetcode_reference_solutions_pass():
    problems = read_problems(DATA / "rllm_leetcode_train_tested.jsonl.gz").problems[::RLLM_STEP]
    verdicts = _judge([(p, p.canonical_solution) for p in problems])
    failing = {p.task_id: (v.judge, v.result[:200]) for p, v in
               zip(problems, verdicts, strict=True) if not v.passed}
    assert len(problems) == 45
    assert failing == {}
