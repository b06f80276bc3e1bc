"""Execution beyond Python: code_eval, edit_sim and the sandbox with ``lang=`` (C++, Java,
JavaScript, TypeScript, Go, Rust, PHP, Ruby, Lua, Bash).

Expected verdicts come from MultiPL-E: the verdicts its own harness recorded for 2,304
HumanEval programs in C++, Java, JavaScript and Python (tests/data/multipl_e, see its NOTICE),
and, for the other languages, the verdicts its ``evaluation/src/eval_<lang>.py`` rules give
programs written in its conventions (tests/data/multipl_e_conventions, see its NOTICE).

Parity is checked on a deterministic stratified sample of each language's programs (every
verdict represented in proportion, evenly spaced in task order, plus every program listed in
``KNOWN_DIFFERENCES``), about 4 minutes of CPU; ``CGM_PARITY_ALL=1`` runs every program
(``benchmarks/execution_languages.py --parity`` does too and prints the figures).

A language whose toolchain is missing is skipped with the package to install, unless
``CGM_REQUIRE_TOOLCHAINS=1`` (set by scripts/test.sh, which installs them): then it fails.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from collections import Counter

import pytest
from conftest import DATA, METRICS_DIR
from hostile_programs import (
    EITHER,
    LANGUAGE_TRICK_VERDICTS,
    LANGUAGE_TRICKS,
    MEMORY_BOMBS,
    MEMORY_LIARS,
    NO_TEST_TRICKS,
    OUTPUT_FLOODS,
    RIGHT_STILL_PASSES,
    language_program,
    needs_sandbox,
)

from cgm_metrics.base.errors import ToolchainMissingError, UnsupportedLanguageError
from cgm_metrics.execution.code_eval import compute_code_eval
from cgm_metrics.execution.languages import (
    execution_languages,
    find_toolchain,
    get_language,
    run_sources,
    steps_for,
)
from cgm_metrics.execution.sandbox import Limits, Sandbox

REQUIRE_TOOLCHAINS = os.environ.get("CGM_REQUIRE_TOOLCHAINS") == "1"
PARITY_ALL = os.environ.get("CGM_PARITY_ALL") == "1"
PARITY_FILES = {"cpp": "cpp", "java": "java", "javascript": "js", "python": "python"}
# The language x program matrices run in full with --slow (CGM_SLOW=1); by default, the
# languages of REPRESENTATIVE among each matrix's (an interpreter, a browser-grade runtime, a
# compiler, a small interpreter): the others, compiled per program (Java, TypeScript, Go, Rust),
# cost the most and are marked slow.
REPRESENTATIVE = ("python", "javascript", "cpp", "lua")


def _matrix(languages) -> list:
    """``languages`` as parameters, those out of REPRESENTATIVE marked slow."""
    languages = list(languages)
    kept = [lang for lang in languages if lang in REPRESENTATIVE] or languages[:1]
    return [lang if lang in kept else pytest.param(lang, marks=pytest.mark.slow)
            for lang in languages]
# programs per language in the sample (Python runs whole: 7 s)
SAMPLE_SIZE = {"cpp": 60, "java": 60, "javascript": 160, "python": 10_000}
# MultiPL-E's run timeouts (its default of 15 s; 5 s for node)
MULTIPL_E_TIMEOUT = {"cpp": 15.0, "java": 15.0, "javascript": 5.0, "python": 15.0}

_NODE_CRYPTO = (
    "the program uses `crypto` without requiring it: in MultiPL-E's Node.js there was no such "
    "global (ReferenceError); Node.js 19 and later have the Web Crypto `crypto` global, without "
    "createHash, so here it is a TypeError (Exception). A Node.js version difference: "
    "Debian 12's Node.js 18 gives MultiPL-E's verdict."
)
_JAVA_CLASSPATH = (
    "the program uses a javatuples Pair at run time: MultiPL-E's harness, when it recorded "
    "these verdicts, ran `java -ea -cp DIR Problem` with the jar in CLASSPATH, which -cp "
    "overrides, so every such program ended with NoClassDefFoundError (no completion of these "
    "tasks is OK in its records); its current eval_java.py puts the jar on -cp, as we do, and "
    "the verdict is the completion's own."
)
_JAVA_MAP_OF = (
    "the tests call Map.of (Java 9 and later), which MultiPL-E's JDK did not compile: every "
    "completion of this task is a SyntaxError in its records (its eval_java.py lists task 22 "
    "as a problem); Debian's JDK 17 compiles them, so the verdict is the completion's own."
)
# Every program of tests/data/multipl_e whose verdict here may differ from MultiPL-E's, with
# why: (language, task, completion index) -> reason. A difference not listed fails the test.
KNOWN_DIFFERENCES: dict[tuple[str, str, int], str] = {
    ("javascript", "HumanEval_100_make_a_pile", 2): (
        "the loop never ends and grows an array: in MultiPL-E's run Node.js hit its heap limit "
        "first (exit -5, SIGTRAP: Exception); here the 5 s timeout comes first (Timeout). "
        "Which limit ends it first depends on the machine's speed and memory."
    ),
    ("javascript", "HumanEval_162_string_to_md5", 1): _NODE_CRYPTO,
    ("javascript", "HumanEval_162_string_to_md5", 2): _NODE_CRYPTO,
    ("java", "HumanEval_8_sum_product", 0): _JAVA_CLASSPATH,
    ("java", "HumanEval_8_sum_product", 1): _JAVA_CLASSPATH,
    ("java", "HumanEval_8_sum_product", 3): _JAVA_CLASSPATH,
    ("java", "HumanEval_20_find_closest_elements", 0): _JAVA_CLASSPATH,
    ("java", "HumanEval_20_find_closest_elements", 1): _JAVA_CLASSPATH,
    ("java", "HumanEval_112_reverse_delete", 3): _JAVA_CLASSPATH,
    ("java", "HumanEval_22_filter_integers", 0): _JAVA_MAP_OF,
    ("java", "HumanEval_22_filter_integers", 2): _JAVA_MAP_OF,
    ("java", "HumanEval_22_filter_integers", 3): _JAVA_MAP_OF,
}


def _toolchain_or_skip(lang: str) -> None:
    try:
        find_toolchain(lang)
    except ToolchainMissingError as error:
        if REQUIRE_TOOLCHAINS:
            pytest.fail(f"CGM_REQUIRE_TOOLCHAINS=1 but {error}")
        pytest.skip(str(error))


def _load_rows(lang: str) -> list[dict]:
    path = DATA / "multipl_e" / f"{PARITY_FILES[lang]}.jsonl.gz"
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle]
    return [row for row in rows if row["status"] != "Timeout"]  # left out, as the issue says


def _sample(lang: str, rows: list[dict]) -> tuple[list[dict], list[dict]]:
    """(sampled, listed): an evenly spaced sample of each verdict's rows, in proportion to
    the verdict's share (at least 3 of each), and the rows of KNOWN_DIFFERENCES."""
    listed = [r for r in rows if (lang, r["task"], r["completion_index"]) in KNOWN_DIFFERENCES]
    rest = [r for r in rows if r not in listed]
    size = SAMPLE_SIZE[lang]
    if PARITY_ALL or size >= len(rest):
        return rest, listed
    rest.sort(key=lambda r: (int(r["task"].split("_")[1]), r["completion_index"]))
    sampled = []
    for status in sorted({r["status"] for r in rest}):
        group = [r for r in rest if r["status"] == status]
        take = min(len(group), max(3, round(size * len(group) / len(rest))))
        sampled += [group[(i * len(group)) // take] for i in range(take)]
    return sampled, listed


def _program(row: dict) -> str:
    """MultiPL-E's layout: prompt + completion, then "\\n" and the tests."""
    return row["prompt"] + row["completion"] + "\n" + row["tests"]


# --- parity with MultiPL-E's recorded verdicts ----------------------------------------------


def test_every_listed_difference_is_a_program_of_the_data():
    keys = {(lang, r["task"], r["completion_index"]) for lang in PARITY_FILES
            for r in _load_rows(lang)}
    assert set(KNOWN_DIFFERENCES) <= keys
    for lang in PARITY_FILES:  # the listed differences alone may not break 98 %
        rows = _load_rows(lang)
        listed = sum(key[0] == lang for key in KNOWN_DIFFERENCES)
        assert (len(rows) - listed) / len(rows) >= 0.98, lang


@needs_sandbox
@pytest.mark.parametrize("lang", _matrix(PARITY_FILES))
def test_verdicts_equal_multipl_e_s(lang):
    """Our verdict equals MultiPL-E's on at least 98 % of the sampled programs of each
    language (its Timeout rows left out), and every program that differs is listed above with
    the reason."""
    _toolchain_or_skip(lang)
    rows = _load_rows(lang)
    sampled, listed = _sample(lang, rows)
    chosen = sampled + listed
    outcomes = run_sources([_program(r) for r in chosen], lang, num_workers=2,
                           limits=Limits(timeout=MULTIPL_E_TIMEOUT[lang]),
                           allow_code_execution=True)
    differ = {}
    for row, outcome in zip(chosen, outcomes, strict=True):
        assert outcome.passed == (outcome.verdict == "OK")
        if outcome.verdict != row["status"]:
            step = outcome.result.steps[-1]
            differ[(lang, row["task"], row["completion_index"])] = (
                f"MultiPL-E {row['status']}, ours {outcome.verdict} ({outcome.message}); "
                f"output: {(step.stderr.strip() or step.stdout.strip())[-300:]!r}"
            )
    unexplained = {key: why for key, why in differ.items() if key not in KNOWN_DIFFERENCES}
    assert not unexplained, "\n".join(f"{key}: {why}" for key, why in unexplained.items())
    agree = sum(1 for r in sampled if (lang, r["task"], r["completion_index"]) not in differ)
    assert agree / len(sampled) >= 0.98, differ
    # the sample covers every verdict MultiPL-E gave in this language
    assert set(Counter(r["status"] for r in sampled)) == {r["status"] for r in rows}


# --- the other languages: right and wrong programs in MultiPL-E's conventions ---------------


def _conventions() -> list[dict]:
    path = DATA / "multipl_e_conventions" / "programs.json"
    return json.loads(path.read_text(encoding="utf-8"))["programs"]


CONVENTION_LANGUAGES = ["typescript", "go", "rust", "php", "ruby", "lua", "bash"]


def test_the_convention_programs_are_multipl_e_s_layout():
    programs = _conventions()
    assert {p["language"] for p in programs} == set(CONVENTION_LANGUAGES)
    for program in programs:
        assert program["program"] == (program["prompt"] + program["completion"] + "\n"
                                      + program["tests"])
        assert program["expected"] == program["multipl_e_status"] or program["note"]
    for lang in CONVENTION_LANGUAGES:
        expected = {p["expected"] for p in programs if p["language"] == lang}
        assert {"OK", "Timeout"} <= expected and len(expected) >= 3, lang


@needs_sandbox
@pytest.mark.parametrize("lang", _matrix(CONVENTION_LANGUAGES))
def test_right_and_wrong_programs(lang):
    """Right programs pass; wrong ones fail with MultiPL-E's verdict (a failed assertion, a
    compile or parse error, a timeout); through code_eval's call shape (candidate, then the
    test program) with ``lang``."""
    _toolchain_or_skip(lang)
    programs = [p for p in _conventions() if p["language"] == lang]
    # each program a task of its own: the candidate is prompt + completion, the test the tests
    pass_at_k, results = compute_code_eval(
        [[p["prompt"] + p["completion"]] for p in programs], [p["tests"] for p in programs],
        k=[1], num_workers=2, timeout=4.0, allow_code_execution=True, lang=lang,
    )
    verdicts = [results[i][0][1]["verdict"] for i in range(len(programs))]
    expected = [p["expected"] for p in programs]
    assert verdicts == expected, [(p["task"], p["name"]) for p in programs]
    for index, program in enumerate(programs):
        record = results[index][0][1]
        assert record["passed"] == (program["expected"] == "OK")
        if program["expected"] == "OK":
            assert record["result"] == "passed"
        elif program["expected"] == "Timeout":
            assert record["result"] == "timed out" and record["limit"] == "timeout"
        else:
            assert record["result"].startswith(f"failed: {program['expected']}")
    right = sum(p["expected"] == "OK" for p in programs)
    assert pass_at_k["pass@1"] == pytest.approx(right / len(programs))


# --- a pass means the tests ran to their end --------------------------------------------------


@needs_sandbox
@pytest.mark.parametrize("lang", _matrix(LANGUAGE_TRICKS))
def test_an_early_ending_with_status_0_fails(lang):
    """Each trick (tests/hostile_programs.py) makes a wrong `add` end with exit status 0, which
    MultiPL-E's harness counts as OK: here it fails, its result saying that the program ended
    before its tests finished. The right program passes, the wrong one fails without a trick."""
    _toolchain_or_skip(lang)
    tricks = list(LANGUAGE_TRICKS[lang])
    texts = [language_program(lang, True), language_program(lang, False)]
    texts += [language_program(lang, False, trick) for trick in tricks]
    outcomes = run_sources(texts, lang, num_workers=2, limits=Limits(timeout=20.0),
                           allow_code_execution=True)
    right, wrong, *tricked = outcomes
    assert right.passed and right.verdict == "OK", right.message
    assert not wrong.passed and wrong.result.returncode != 0, wrong.message
    for trick, outcome in zip(tricks, tricked, strict=True):
        step = outcome.result.steps[-1]
        detail = f"{lang} {trick}: {outcome.message}; {step.stderr[-500:]!r}"
        assert not outcome.passed, detail
        expected = LANGUAGE_TRICK_VERDICTS.get((lang, trick))
        if expected is not None:
            assert outcome.verdict == expected, detail
            continue
        # the trick worked: the program's status was 0, which a harness trusting it passes
        assert step.returncode == 0 and outcome.result.returncode == 0, detail
        assert outcome.verdict == "Exception", detail
        assert outcome.message == (
            "failed: Exception (running: the program ended (exit status 0) before its tests "
            "finished)"), detail


@needs_sandbox
@pytest.mark.parametrize("lang", _matrix(NO_TEST_TRICKS))
def test_a_pass_proves_that_the_tests_ran(lang):
    """Each trick (tests/hostile_programs.py NO_TEST_TRICKS) lets a wrong `add` reach the
    harness code after its test with status 0 without the test having run (a filter in the
    runner's arguments, flags or globals, a fake or hidden test library, the test printed as
    text) or with its failure path defused (exit made a no-op, a trap returning success):
    with the harness of before, every one of them passed. Here the wrong program fails with
    each; the right one still passes where the harness put the runner's inputs back or the
    trick could not be set up, and fails too where no test ran or the program was refused."""
    _toolchain_or_skip(lang)
    tricks = list(NO_TEST_TRICKS[lang])
    texts = [language_program(lang, False, trick) for trick in tricks]
    texts += [language_program(lang, True, trick) for trick in tricks]
    outcomes = run_sources(texts, lang, num_workers=2, limits=Limits(timeout=20.0),
                           allow_code_execution=True)
    wrong, right = outcomes[: len(tricks)], outcomes[len(tricks) :]
    for trick, outcome, right_outcome in zip(tricks, wrong, right, strict=True):
        step = outcome.result.steps[-1]
        detail = f"{lang} {trick}: {outcome.message}; {step.stdout[-300:]!r} {step.stderr[-300:]!r}"
        assert not outcome.passed and outcome.verdict != "OK", detail
        if (lang, trick) in EITHER:
            continue
        detail = f"{lang} {trick} (right): {right_outcome.message}"
        assert right_outcome.passed == ((lang, trick) in RIGHT_STILL_PASSES), detail


@needs_sandbox
def test_the_corpus_has_every_trick_of_the_issue():
    """At least the 25 early endings the issue lists, in every language but Python (whose
    corpus is HOSTILE_CANDIDATES)."""
    assert set(LANGUAGE_TRICKS) == set(execution_languages()) - {"python"}
    assert sum(len(tricks) for tricks in LANGUAGE_TRICKS.values()) >= 25


# --- limits, named ----------------------------------------------------------------------------

# Node.js reserves about 700 MiB of address space before it runs anything: the TypeScript
# compiler needs more than 1024 MiB
LOWEST_MEMORY_MB = {"typescript": 2048}


@needs_sandbox
@pytest.mark.parametrize("lang", _matrix(MEMORY_BOMBS))
def test_a_memory_bomb_fails_in_words_a_flood_names_max_file_mb(lang):
    """Under memory_mb=1024 (the lowest the sandbox documents for every language but
    TypeScript), the right program passes (the JVM is sized to the limit); a program that
    allocates without end fails, its message saying that its output reports a failed
    allocation, and a program that only prints such a message and fails gets the same plain
    failure: a runtime's out-of-memory text can be printed by anyone, so it names no limit
    (the sandbox cannot observe an allocation that failed). One that prints without end is
    stopped by the file size limit, which the sandbox observes: limit "max_file_mb"."""
    _toolchain_or_skip(lang)
    texts = [language_program(lang, True), MEMORY_BOMBS[lang], MEMORY_LIARS[lang]]
    texts += [OUTPUT_FLOODS[lang]] if lang in OUTPUT_FLOODS else []
    # (a generous timeout: on a loaded machine the limits must come first)
    limits = Limits(timeout=60.0, memory_mb=LOWEST_MEMORY_MB.get(lang, 1024), max_file_mb=32)
    right, bomb, liar, *flood = run_sources(texts, lang, num_workers=1, limits=limits,
                                            allow_code_execution=True)
    assert right.passed, right.message
    for outcome in (bomb, liar):
        step = outcome.result.steps[-1]
        assert not outcome.passed and outcome.result.limit is None, (
            outcome.message, step.stderr[-500:])
        assert outcome.result.status == "failed" and step.status == "failed"
        assert "reports a failed allocation" in outcome.message, outcome.message
    for outcome in flood:
        assert not outcome.passed and outcome.result.limit == "max_file_mb", outcome.message


@needs_sandbox
def test_java_runs_under_1024_mb_through_code_eval():
    """code_eval with lang='java' and memory_mb=1024: its verdicts, not a harness error about
    the JVM's class space."""
    _toolchain_or_skip("java")
    program = language_program("java", True)
    split = program.index("    public static void main")
    _, results = compute_code_eval([[program[:split]]], [program[split:]], k=[1],
                                   num_workers=1, memory_mb=1024, allow_code_execution=True,
                                   lang="java")
    assert results[0][0][1]["passed"], results


# --- the modules, the call shape, errors -------------------------------------------------------


def _cpp_task():
    prompt = ("#include<assert.h>\n#include<bits/stdc++.h>\n// Add two numbers\n"
              "long add(long x, long y) {\n")
    tests = ("}\nint main() {\n    auto candidate = add;\n"
             "    assert(candidate((2), (3)) == (5));\n    assert(candidate((7), (5)) == (12));\n}\n")
    return prompt, tests


@needs_sandbox
def test_code_eval_module_runs_cpp_with_lang(monkeypatch):
    """evaluate.load('cgm/code_eval').compute(..., lang='cpp'): pass@k over C++ candidates,
    each compiled and run; a compile error is a SyntaxError, a failed assert an Exception."""
    import evaluate

    _toolchain_or_skip("cpp")
    monkeypatch.setenv("HF_ALLOW_CODE_EVAL", "1")
    prompt, tests = _cpp_task()
    candidates = [prompt + "    return x + y;\n", prompt + "    return x - y;\n",
                  prompt + "    return x + ;\n"]
    # MultiPL-E's layout: the test program closes the function, as its C++ prompts do
    module = evaluate.load(str(METRICS_DIR / "code_eval"))
    pass_at_k, results = module.compute(predictions=[candidates], references=[tests], k=[1, 2],
                                        num_workers=2, lang="cpp")
    assert [r["verdict"] for _, r in results[0]] == ["OK", "Exception", "SyntaxError"]
    assert [r["passed"] for _, r in results[0]] == [True, False, False]
    assert pass_at_k["pass@1"] == pytest.approx(1 / 3)
    assert pass_at_k["pass@2"] == pytest.approx(2 / 3)
    assert results[0][2][1]["result"].startswith("failed: SyntaxError (compiling:")


@needs_sandbox
def test_edit_sim_runs_tests_with_lang():
    import evaluate

    _toolchain_or_skip("javascript")
    prompt = "function add(a, b) {\n"
    tests = ("const assert = require('node:assert');\n"
             "function test() {\n  let candidate = add;\n  assert.deepEqual(candidate(2, 3),5);\n}\n"
             "test();\n")
    right, wrong = prompt + "  return a + b;\n}\n", prompt + "  return a * b;\n}\n"
    module = evaluate.load(str(METRICS_DIR / "edit_sim"))
    result = module.compute(predictions=[right, wrong], references=[right, right],
                            tests=[tests, tests], allow_code_execution=True, lang="js",
                            return_per_sample=True)
    assert result["passed"] == [True, False]
    assert result["verdicts"] == ["OK", "AssertionError"]


def test_a_missing_toolchain_names_the_package_and_runs_nothing(monkeypatch, tmp_path):
    """With the compiler off PATH the call fails before any program runs, naming the package;
    never a run in which every program counts as failed."""
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("HF_ALLOW_CODE_EVAL", "1")
    with pytest.raises(ToolchainMissingError, match=r"apt-get install g\+\+"):
        find_toolchain("cpp")
    prompt, tests = _cpp_task()
    with pytest.raises(ToolchainMissingError, match=r"C\+\+ programs cannot run here"):
        compute_code_eval([[prompt + "    return x + y;\n"]], [tests], k=[1], lang="cpp")
    with pytest.raises(ToolchainMissingError, match="cgm modules --languages"):
        run_sources(["int main() {}"], "c++", allow_code_execution=True)


def test_languages_by_name_and_multipl_e_key():
    assert get_language("CPP").name == "cpp"
    for key, name in {"js": "javascript", "ts": "typescript", "go_test.go": "go", "rs": "rust",
                      "rb": "ruby", "sh": "bash", "py": "python", "java": "java",
                      "php": "php", "lua": "lua"}.items():
        assert get_language(key).name == name
    with pytest.raises(UnsupportedLanguageError, match="cpp, go, java, javascript"):
        get_language("cobol")
    with pytest.raises(TypeError, match="`lang`"):
        get_language(3)
    with pytest.raises(UnsupportedLanguageError, match="`lang`"):
        compute_code_eval([["x"]], ["y"], k=[1], allow_code_execution=True, lang="cobol")
    assert set(execution_languages()) >= {"python", "cpp", "java", "javascript", "typescript", "go", "rust",
                              "php", "ruby", "lua", "bash", "perl"}


def test_cgm_lists_the_languages_that_run_here(monkeypatch, tmp_path):
    command = [sys.executable, "-m", "cgm_metrics", "modules", "--languages"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=True)
    lines = [line for line in done.stdout.splitlines()[:-1] if line.split()[1] != "-"]
    assert [line.split()[0] for line in lines] == execution_languages()
    for line in lines:
        name, available = line.split()[:2]
        try:
            find_toolchain(name)
        except ToolchainMissingError:
            assert available == "no" and ("apt-get install" in line or "npm install" in line)
        else:
            assert available == "yes"
    # without any tool on PATH: every language but Python (and Bash, found by its path) is
    # listed as missing, with its package
    env = {**os.environ, "PATH": str(tmp_path)}
    env.pop("JAVA_HOME", None)
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=True,
                          env=env)
    rows = {line.split()[0]: line for line in done.stdout.splitlines()[:-1]}
    assert rows["cpp"].split()[1] == "no" and "apt-get install g++" in rows["cpp"]
    assert rows["ruby"].split()[1] == "no" and "apt-get install ruby" in rows["ruby"]
    assert rows["python"].split()[1] == "yes"


@needs_sandbox
def test_compiler_scratch_files_stay_in_the_run_and_nothing_is_left_running():
    """A compiled program's steps share its private directory (the compiler's output and
    scratch files, HOME and TMPDIR), which is gone after the run; no process outlives it."""
    _toolchain_or_skip("cpp")
    toolchain = find_toolchain("cpp")
    prompt, tests = _cpp_task()
    background = ("#include<unistd.h>\n#include<cstdlib>\n"
                  + prompt + "    if (fork() == 0) { setsid(); sleep(60); }\n"
                  "    return x + y;\n" + tests)
    with Sandbox(Limits(timeout=10), allow_code_execution=True,
                 paths=toolchain.paths) as box:
        built = box.run(steps_for("cpp", background, 10.0, toolchain))
        assert built.passed and [s.status for s in built.steps] == ["passed", "passed"]
        assert built.leftover_processes == 0
        after = box.run("import os\nprint(sorted(os.listdir('.')), os.environ['TMPDIR'] == "
                        "os.getcwd() == os.environ['HOME'])")
        assert after.passed and after.stdout == "[] True\n"


# --- problem files: a task's `language` -------------------------------------------------------


@needs_sandbox
def test_problem_files_run_each_task_in_its_language(monkeypatch, tmp_path, capsys):
    """`cgm score --problems` with a `language` per task (MultiPL-E's keys as they are): each
    sample runs as prompt + completion + "\\n" + tests in its task's language, with
    MultiPL-E's verdict in the results; the verdicts equal those MultiPL-E recorded."""
    from cgm_metrics.frontends.cli import main

    for lang in ("cpp", "javascript"):
        _toolchain_or_skip(lang)
    monkeypatch.setenv("HF_ALLOW_CODE_EVAL", "1")
    chosen = []  # one task of each language, a sample MultiPL-E ran OK and one it did not
    for lang, key in (("cpp", "cpp"), ("javascript", "js")):
        rows = _load_rows(lang)
        task = next(r["task"] for r in rows if r["status"] == "OK" and any(
            o["task"] == r["task"] and o["status"] not in ("OK", "Timeout") for o in rows))
        good = next(r for r in rows if r["task"] == task and r["status"] == "OK")
        bad = next(r for r in rows if r["task"] == task and r["status"] != "OK")
        chosen.append((key, good, bad))
    problems = tmp_path / "problems.jsonl"
    samples = tmp_path / "samples.jsonl"
    with open(problems, "w", encoding="utf-8") as handle:
        for key, good, _ in chosen:
            handle.write(json.dumps({
                "task_id": f"{key}/{good['task']}", "prompt": good["prompt"],
                "test": good["tests"], "entry_point": good["task"].split("_", 2)[2],
                "language": key}) + "\n")
    with open(samples, "w", encoding="utf-8") as handle:
        for key, good, bad in chosen:
            for row in (good, bad):
                handle.write(json.dumps({"task_id": f"{key}/{good['task']}",
                                         "completion": row["completion"]}) + "\n")
    results = tmp_path / "results.jsonl"
    code = main(["score", "--problems", str(problems), "--predictions", str(samples),
                 "--metrics", "pass@1", "--results", str(results), "--timeout", "15",
                 "--json", str(tmp_path / "scores.json")])
    assert code == 0, capsys.readouterr().err
    ours = [json.loads(line) for line in open(results, encoding="utf-8")]
    expected = [(("cpp" if key == "cpp" else "javascript"), row["status"])
                for key, good, bad in chosen for row in (good, bad)]
    assert [(r["language"], r["verdict"]) for r in ours] == expected
    assert [r["passed"] for r in ours] == [True, False, True, False]
    scores = json.load(open(tmp_path / "scores.json", encoding="utf-8"))
    assert scores["systems"]["samples"]["pass@1"]["score"] == pytest.approx(0.5)


def test_a_problem_file_in_a_language_without_its_toolchain_names_the_package(
        monkeypatch, tmp_path):
    from cgm_metrics.base.errors import InputError
    from cgm_metrics.execution.problems import read_problems

    monkeypatch.setenv("PATH", str(tmp_path))
    path = tmp_path / "p.jsonl"
    path.write_text(json.dumps({"task_id": "a", "prompt": "", "test": "", "entry_point": "f",
                                "language": "rb"}) + "\n")
    with pytest.raises(InputError, match=r"p\.jsonl, line 1 \(task a\): Ruby programs cannot "
                       r"run here: ruby is not installed\. Install it: apt-get install ruby"):
        read_problems(path)
