"""`cgm score/compare/check --problems` on input/output problems: --all-tests and
tests_passed, the --results lines of a sample's verdict, McNemar's test on the paired
verdicts, and cgm check's look at the shipped solutions and trivial programs. Expected values
come from the source data (the problems' expected outputs, SandboxFusion's pass/fail for its
programs), never from a run of ours."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hostile_programs import needs_sandbox

from cgm_metrics.frontends.cli import main

DATA = Path(__file__).parent / "data"
CONTESTS = DATA / "io_formats" / "code_contests.jsonl"
LCB = DATA / "competitive" / "sandboxfusion_live_code_bench_v1.jsonl"
EXPECTED = DATA / "competitive" / "sandboxfusion_testsuite_expected.jsonl"


def cgm(capsys, *args):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _samples(path: Path, rows: list[tuple[str, str]]) -> Path:
    path.write_text("".join(json.dumps({"task_id": task, "completion": text}) + "\n"
                            for task, text in rows), encoding="utf-8")
    return path


@needs_sandbox
def test_all_tests_gives_tests_passed_and_the_verdict_of_each_sample(tmp_path, capsys):
    (problem,) = _rows(CONTESTS)
    task = problem["name"]
    expected = (problem["public_tests"]["output"] + problem["private_tests"]["output"]
                + problem["generated_tests"]["output"])
    right = problem["solutions"]["solution"][1]  # Python 3: verl's fixture solution
    samples = _samples(tmp_path / "s.jsonl", [(task, right), (task, "print(-1)")])
    results = tmp_path / "runs.jsonl"
    code, out, err = cgm(capsys, "score", "--problems", CONTESTS, "--predictions", samples,
                         "--metrics", "pass@1", "--all-tests", "--allow-code-execution",
                         "--results", results, "--json", tmp_path / "r.json", "--no-progress")
    assert code == 0, err
    scores = json.loads((tmp_path / "r.json").read_text())["systems"]["s"]
    # `print(-1)` passes the tests whose expected output is -1
    share = sum(text.strip() == "-1" for text in expected) / len(expected)
    assert scores["tests_passed"]["score"] == pytest.approx((1 + share) / 2)
    assert scores["pass@1"]["score"] == pytest.approx(0.5)
    lines = _rows(results)
    assert len(lines) == 2  # one line per run of a sample, not per test
    good, bad = lines
    assert good["verdict"] == "accepted" and good["tests_passed"] == good["n_tests"] == 11
    assert "failed_test" not in good
    first = next(i for i, text in enumerate(expected) if text.strip() != "-1")
    assert bad["verdict"] == "wrong_answer" and not bad["passed"]
    assert bad["failed_test"] == "public/0" and first == 0
    assert bad["input"] == problem["public_tests"]["input"][0]
    assert bad["expected"] == expected[0] and bad["actual"].strip() == "-1"
    assert bad["tests_run"] == 11 and bad["tests_share"] == pytest.approx(share)
    assert bad["timeout"] == 2.5 and bad["clock"] == "cpu"  # the problem's own limit


@needs_sandbox
def test_without_all_tests_a_sample_stops_at_its_first_failing_test(tmp_path, capsys):
    (problem,) = _rows(CONTESTS)
    samples = _samples(tmp_path / "s.jsonl", [(problem["name"], "print(-1)")])
    results = tmp_path / "runs.jsonl"
    code, out, err = cgm(capsys, "score", "--problems", CONTESTS, "--predictions", samples,
                         "--metrics", "pass@1", "--allow-code-execution", "--results", results,
                         "--no-progress")
    assert code == 0, err
    (line,) = _rows(results)
    assert line["tests_run"] == 1 and line["failed_test"] == "public/0"
    assert "a sample stops at its first failing test" in out


def test_tests_passed_needs_all_tests(tmp_path, capsys):
    (problem,) = _rows(CONTESTS)
    samples = _samples(tmp_path / "s.jsonl", [(problem["name"], "print(-1)")])
    code, out, err = cgm(capsys, "score", "--problems", CONTESTS, "--predictions", samples,
                         "--metrics", "tests_passed", "--allow-code-execution")
    assert code != 0 and "--all-tests" in err


def test_dataset_options_need_problems(capsys):
    code, out, err = cgm(capsys, "score", "--predictions", CONTESTS, "--references", CONTESTS,
                         "--since", "2024-08-01")
    assert code != 0 and "--since" in err and "--problems" in err


@needs_sandbox
def test_compare_gives_mcnemar_on_the_paired_verdicts(tmp_path, capsys):
    """SandboxFusion's passing and failing chat answers on its three LiveCodeBench rows: its
    test suite says the first system passes all three, the second none."""
    ids = {row["id"]: row["task_id"] for row in _rows(LCB)}
    expected = _rows(EXPECTED)
    good = _samples(tmp_path / "good.jsonl", [(ids[r["problem_id"]], r["completion"])
                                              for r in expected if r["problem_id"] in ids
                                              and r["expected_accepted"]])
    bad = _samples(tmp_path / "bad.jsonl", [(ids[r["problem_id"]], r["completion"])
                                            for r in expected if r["problem_id"] in ids
                                            and not r["expected_accepted"]])
    code, out, err = cgm(capsys, "compare", "--problems", LCB, good, bad, "--metrics", "pass@1",
                         "--extract", "--all-tests", "--allow-code-execution", "--json",
                         tmp_path / "c.json", "--no-progress")
    assert code == 0, err
    result = json.loads((tmp_path / "c.json").read_text())
    scores = result["metrics"]["pass@1"]["scores"]
    assert scores["good"]["score"] == 1.0 and scores["bad"]["score"] == 0.0
    (pair,) = result["metrics"]["pass@1"]["pairs"]
    exact = pair["exact_test"]
    assert (exact["only_a_passes"], exact["only_b_passes"]) == (3, 0)
    assert exact["p_value"] == pytest.approx(0.25)  # two-sided, 3 discordant tasks
    assert "McNemar" in out
    # tests_passed beside it, with intervals and a paired test over the same tasks
    shares = result["metrics"]["tests_passed"]
    assert shares["scores"]["good"]["score"] == 1.0
    assert shares["scores"]["bad"]["score"] < 1.0
    for entry in shares["scores"].values():
        assert entry["low"] <= entry["score"] <= entry["high"]
    (pair,) = shares["pairs"]
    assert 0 < pair["p_value"] <= 1 and "exact_test" not in pair


@needs_sandbox
def test_check_lists_failing_solutions_and_trivial_passes(tmp_path, capsys):
    code, out, err = cgm(capsys, "check", "--problems", CONTESTS, "--json",
                         tmp_path / "c.json", "--no-progress")
    assert code == 1, err  # its C++ "solution" prints nothing
    result = json.loads((tmp_path / "c.json").read_text())["io"]
    (failing,) = result["failing_solutions"]
    assert failing["language"] == "cpp" and failing["verdict"] == "wrong_answer"
    assert failing["failed_test"] == "public/0"
    passing = [e for e in result["programs"] if e["program"] == "solution" and e["passed"]]
    assert [e["language"] for e in passing] == ["python"]
    assert result["trivial_passes"] == []
    assert "solutions that fail their own task's tests" in out
    # a task whose expected output is its input: the echo passes it
    echo = tmp_path / "echo.jsonl"
    echo.write_text(json.dumps({"id": "echo", "test_type": "stdin", "reference_solution":
                                "print(input())", "tests": [{"input": "5\n",
                                                             "output": "5\n"}]}) + "\n")
    code, out, err = cgm(capsys, "check", "--problems", echo, "--json", tmp_path / "e.json",
                         "--no-progress")
    assert code == 1, err
    trivial = json.loads((tmp_path / "e.json").read_text())["io"]["trivial_passes"]
    assert [e["program"] for e in trivial] == ["echo of the input"]
    assert "tasks a trivial program passes" in out


@needs_sandbox
def test_code_eval_takes_an_input_output_row_as_a_reference(monkeypatch):
    """evaluate's code_eval call shape: a reference may be a JSON row of an input/output
    format in place of a test program (SandboxFusion's LiveCodeBench row and its answers)."""
    from cgm_metrics.execution.code_eval import compute_code_eval

    monkeypatch.setenv("HF_ALLOW_CODE_EVAL", "1")
    row = _rows(LCB)[0]  # codeforces/1873_A, stdin
    answers = [r["completion"] for r in _rows(EXPECTED) if r["problem_id"] == row["id"]]
    reference = json.dumps({"tests": row["tests"], "test_type": row["test_type"]})
    apps = json.dumps(row["input_output"])  # APPS's input_output on its own
    pass_at_k, results = compute_code_eval([answers, answers[:1]], [reference, apps], k=[1],
                                           extract=True, num_workers=2)
    # SandboxFusion's own tests: the first answer passes, the second fails
    assert [r["passed"] for _, r in results[0]] == [True, False]
    assert results[0][1][1]["judge"] == "wrong_answer"
    assert results[1][0][1]["passed"] and pass_at_k["pass@1"] == pytest.approx(0.75)
    with pytest.raises(ValueError, match=r"`references\[0\]`.*'tests'"):
        compute_code_eval([["print(1)"]], [json.dumps({"tests": None, "test_type": "stdin"})],
                          k=[1])


@needs_sandbox
def test_check_measures_solutions_beyond_their_own_limit(tmp_path, capsys):
    """A solution slower here than its problem's own time limit is measured to its end and
    listed as slow, not as failing (its answers are right)."""
    slow = ("import sys\nn = int(sys.stdin.read())\ntotal = 0\nfor i in range(3_000_000):\n"
            "    total += i % 7\nprint(n * 2)\n")
    row = {"name": "double", "public_tests": {"input": ["21\n"], "output": ["42\n"]},
           "private_tests": {"input": ["5\n"], "output": ["10\n"]},
           "time_limit": {"seconds": 0, "nanos": 10_000_000},  # 0.01 s
           "solutions": {"language": [3], "solution": [slow]}}
    path = tmp_path / "slow.jsonl"
    path.write_text(json.dumps(row) + "\n")
    code, out, err = cgm(capsys, "check", "--problems", path, "--json", tmp_path / "c.json",
                         "--no-progress")
    io = json.loads((tmp_path / "c.json").read_text())["io"]
    assert io["failing_solutions"] == [] and io["trivial_passes"] == []
    (entry,) = io["over_time_limit"]
    assert entry["task_id"] == "double" and entry["slowest_test_cpu_time"] > 0.01
    assert code == 0, err
    assert "slower here than their task's own time limit" in out


@needs_sandbox
def test_a_dataset_by_name_through_the_command(tmp_path, capsys):
    """A local copy of LiveCodeBench's release files read by name, its release and contest
    dates selecting the problems (offline); SandboxFusion's answers, which its tests accept."""
    folder = DATA / "io_formats" / "code_generation_lite"
    answer = next(r["completion"] for r in _rows(EXPECTED)
                  if r["problem_id"] == "sandboxfusion_lcb_v1/1" and r["expected_accepted"])
    samples = _samples(tmp_path / "s.jsonl", [("1873_A", answer)])
    code, out, err = cgm(capsys, "score", "--problems", folder, "--release", "release_v2",
                         "--since", "2023-08-01", "--predictions", samples, "--metrics",
                         "pass@1", "--extract", "--allow-code-execution", "--json",
                         tmp_path / "r.json", "--no-progress")
    assert code == 0, err
    result = json.loads((tmp_path / "r.json").read_text())
    assert result["n_items"] == 1 and result["systems"]["s"]["pass@1"]["score"] == 1.0
    assert "release=release_v2" in result["execution"]["problems"]


@needs_sandbox
def test_tests_kept_on_disk_are_judged_from_their_file(tmp_path, monkeypatch, capsys):
    """A large input (here: over a lowered spill size) is kept as a span of the spill file
    and streamed to the program from there; its verdict is the same."""
    from cgm_metrics.execution import io_formats

    monkeypatch.setattr(io_formats, "SPILL_BYTES", 100)
    numbers = " ".join(str(i) for i in range(1, 2001))
    row = {"id": "sum", "test_type": "stdin", "tests": [
        {"input": f"2000\n{numbers}\n", "output": f"{sum(range(1, 2001))}\n"},
        {"input": "2\n1 2\n", "output": "3\n"}]}
    problems = tmp_path / "p.jsonl"
    problems.write_text(json.dumps(row) + "\n")
    right = "input()\nprint(sum(map(int, input().split())))\n"
    samples = _samples(tmp_path / "s.jsonl", [("sum", right), ("sum", "input()\nprint(3)\n")])
    results = tmp_path / "runs.jsonl"
    code, out, err = cgm(capsys, "score", "--problems", problems, "--predictions", samples,
                         "--metrics", "pass@1", "--all-tests", "--allow-code-execution",
                         "--results", results, "--no-progress")
    assert code == 0, err
    good, bad = _rows(results)
    assert good["verdict"] == "accepted" and good["tests_passed"] == 2
    assert bad["verdict"] == "wrong_answer" and bad["failed_test"] == "tests/0"
    assert bad["expected"] == row["tests"][0]["output"] and bad["tests_passed"] == 1
    assert bad["input"].startswith("2000\n1 2 3") and len(bad["input"]) <= 1003
