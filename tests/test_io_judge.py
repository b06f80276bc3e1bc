"""The input/output judge (``execution/io_judge.py``, the judge's "io" kind) and its output
comparison (``execution/outputs.py``), against the real peers:

- LiveCodeBench's grader (``lcb_runner``, commit 28fef95) on the LiveCodeBench rows that
  SandboxFusion ships, with SandboxFusion's own test programs and programs written to hit each
  verdict: the same verdict and the same deciding test, but where a difference is expected
  and documented (a program printing from a thread; an output past the output limit);
- SandboxFusion's own expectations on those rows (accepted or not);
- testlib's recorded ``wcmp``/``fcmp`` runs (exit codes) for the tokens and lines comparators;
- checker programs in testlib's protocol run in the sandbox, and Python checkers;
- stdin programs in every execution language, compiled once per sample.

Real sandbox, real toolchains, no mocks.
"""

from __future__ import annotations

import json
import sys

import pytest
from _peers import livecodebench_peer
from conftest import shared_data

from cgm_metrics.execution import outputs
from cgm_metrics.execution.io_judge import DETAIL_CHARS, IOProgram, IOTask, call_program
from cgm_metrics.execution.io_spec import DataRef, IOSpec, IOTest, OutputRule
from cgm_metrics.execution.judge import KINDS, Judge, problem_job
from cgm_metrics.execution.languages import execution_languages
from cgm_metrics.execution.sandbox import Limits
from cgm_metrics.execution.tasks import Problem

TIME_LIMIT = 2.0  # seconds per test, ours and LiveCodeBench's alike


@pytest.fixture
def opted_in(monkeypatch):
    monkeypatch.setenv("HF_ALLOW_CODE_EVAL", "1")


def _rows() -> dict[str, dict]:
    path = shared_data("competitive", "sandboxfusion_live_code_bench_v1.jsonl")
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    return {row["task_id"]: row for row in rows}


ROWS = _rows()


def spec_of(row: dict, **changes) -> IOSpec:
    tests = tuple(IOTest(test["input"], test["output"], f"tests/{n}")
                  for n, test in enumerate(row["tests"]))
    return IOSpec(tests, test_type=row["test_type"], fn_name=row["fn_name"],
                  call_style="leetcode", **changes)


def judge_all(items, *, limits=None, all_tests=False, workers=2, extract=False):
    """The SampleVerdicts of ``(spec, code, language)`` triples through the judge."""
    jobs = [problem_job(n, Problem(f"t{n}", "", "", "", language=language, kind="io",
                                   io=spec), code, extract=extract, all_tests=all_tests)
            for n, (spec, code, language) in enumerate(items)]
    judge = Judge(limits or Limits(timeout=TIME_LIMIT), workers=workers)
    return judge.judge(jobs)


def lcb_verdict(row: dict, code: str) -> tuple[str, int]:
    """LiveCodeBench's verdict of ``code`` on ``row`` (its ``check_correctness``, a process
    per sample) as (our verdict name, index of the deciding test)."""
    folder = str(livecodebench_peer())
    if folder not in sys.path:
        sys.path.insert(0, folder)
    from lcb_runner.evaluation.compute_code_generation_metrics import check_correctness

    sample = {"input_output": json.dumps({
        "inputs": [t["input"] for t in row["tests"]],
        "outputs": [t["output"] for t in row["tests"]], "fn_name": row["fn_name"]})}
    results, _ = check_correctness(sample, code, timeout=int(TIME_LIMIT), debug=False)
    names = {-1: "time_limit", -2: "wrong_answer", -3: "time_limit", -4: "runtime_error",
             False: "wrong_answer"}
    last = results[-1]
    if last is True and len(results) == len(row["tests"]):
        return "accepted", len(results) - 1
    return names[last], len(results) - 1


def ours(verdict) -> tuple[str, int]:
    if verdict.passed:
        return "accepted", verdict.tests_total - 1
    return verdict.judge, int(verdict.deciding.name.split("/")[1])


# ---------------------------------------------------------------- programs for each verdict

ABC301 = "atcoder/abc301_a"
CF1873 = "codeforces/1873_A"
SENIORS = "leetcode/2727"

RIGHT_ABC301 = """n = int(input())
s = input()
t = s.count("T")
print("T" if t * 2 > n or t * 2 == n and s[-1] == "A" else "A")
"""

STDIN_PROGRAMS = {
    "accepted": (ABC301, RIGHT_ABC301),
    "accepted, __main__ and sys.stdin": (CF1873, """import sys
def main():
    data = sys.stdin.read().split()
    for s in data[1:]:
        print("YES" if sum(a != b for a, b in zip(s, "abc")) in (0, 2) else "NO")
if __name__ == "__main__":
    main()
"""),
    "accepted, sys.exit after printing": (ABC301, RIGHT_ABC301 + "import sys\nsys.exit(0)\n"),
    "accepted, decimals equal as numbers": (CF1873, """for _ in range(int(input())):
    s = input()
    print("YES" if sum(a != b for a, b in zip(s, "abc")) in (0, 2) else "NO")
print()
"""),
    "wrong answer on the first test": (ABC301, "input()\ninput()\nprint('T')\n"),
    "wrong answer on a later test": (ABC301, RIGHT_ABC301.replace(
        'print(', 'print("A" if n == 90 else ') + ""),
    "wrong answer, missing lines": (CF1873, "print('YES')\n"),
    "time limit": (ABC301, "while True:\n    pass\n"),
    "time limit on a later test": (ABC301, RIGHT_ABC301 + "if n == 1:\n    while True:\n"
                                                          "        pass\n"),
    "runtime error": (ABC301, "n = int(input())\nprint(1 // (n - 5))\n"),
    "runtime error on a later test": (ABC301, RIGHT_ABC301 + "if n > 90:\n"
                                                             "    raise ValueError(n)\n"),
    "syntax error": (ABC301, "print('T'\n"),
    "memory": (ABC301, "x = [0] * (10 ** 10)\n"),
}

CALL_PROGRAMS = {
    "accepted": "class Solution:\n    def countSeniors(self, details: List[str]) -> int:\n"
                "        return sum(int(d[11:13]) > 60 for d in details)\n",
    "accepted, a float equal to the int": (
        "class Solution:\n    def countSeniors(self, details):\n"
        "        return float(sum(int(d[11:13]) > 60 for d in details))\n"),
    "wrong answer": "class Solution:\n    def countSeniors(self, details):\n"
                    "        return sum(int(d[11:13]) >= 60 for d in details)\n",
    "runtime error": "class Solution:\n    def countSeniors(self, details):\n"
                     "        return details[3]\n",
    "time limit": "class Solution:\n    def countSeniors(self, details):\n"
                  "        while len(details) > 5:\n            pass\n        return 0\n",
    "missing method": "class Solution:\n    def other(self, details):\n        return 0\n",
    "prints and returns a tuple": (
        "class Solution:\n    def countSeniors(self, details):\n        print('debug')\n"
        "        return (sum(int(d[11:13]) > 60 for d in details),)[0]\n"),
}


def test_stdin_verdicts_equal_livecodebench_s(opted_in):
    cases = list(STDIN_PROGRAMS.items())
    found = judge_all([(spec_of(ROWS[task]), code, "python") for _, (task, code) in cases])
    for (label, (task, code)), verdict in zip(cases, found, strict=True):
        theirs = lcb_verdict(ROWS[task], code)
        mine = ours(verdict)
        if label == "memory":  # LiveCodeBench: a MemoryError is a runtime error (-4)
            assert theirs[0] == "runtime_error" and mine == ("memory_limit", theirs[1]), label
            continue
        assert mine == theirs, label
    judged = {label: verdict.judge for (label, _), verdict in zip(cases, found, strict=True)}
    assert set(judged.values()) >= {"accepted", "wrong_answer", "time_limit", "runtime_error",
                                    "memory_limit"}


def test_call_based_verdicts_equal_livecodebench_s(opted_in):
    row = ROWS[SENIORS]
    cases = list(CALL_PROGRAMS.items())
    found = judge_all([(spec_of(row), code, "python") for _, code in cases])
    for (label, code), verdict in zip(cases, found, strict=True):
        assert ours(verdict) == lcb_verdict(row, code), label


def test_sandboxfusion_s_expectations_on_the_livecodebench_rows(opted_in):
    path = shared_data("competitive", "sandboxfusion_testsuite_expected_lcb.jsonl")
    expected = [json.loads(line) for line in path.read_text().splitlines()]
    by_id = {row["id"]: row for row in ROWS.values()}
    items = [(spec_of(by_id[e["problem_id"]]), e["completion"], "python") for e in expected]
    found = judge_all(items, extract=True)
    assert [v.passed for v in found] == [e["expected_accepted"] for e in expected]
    for e, verdict in zip(expected, found, strict=True):  # theirs agree too
        code = verdict.extraction.code
        assert (lcb_verdict(by_id[e["problem_id"]], code)[0] == "accepted") is e[
            "expected_accepted"]


def test_a_thread_s_output_counts_here_and_not_in_livecodebench(opted_in):
    # the documented difference: LiveCodeBench captures stdout in-process, so output printed
    # by a thread after the main function returns is lost there; a real process keeps it
    code = ("import threading, sys, time\nthreading.stack_size(1 << 26)\n"
            "sys.setrecursionlimit(10000)\ndef main():\n    time.sleep(0.3)\n" + "".join("    " + line + "\n" for line in
                                       RIGHT_ABC301.splitlines()) +
            "threading.Thread(target=main).start()\n")
    [verdict] = judge_all([(spec_of(ROWS[ABC301]), code, "python")])
    assert verdict.judge == "accepted"
    assert lcb_verdict(ROWS[ABC301], code)[0] == "wrong_answer"


def test_a_non_zero_exit_status_is_a_runtime_error_here_not_in_livecodebench(opted_in):
    # the documented difference: LiveCodeBench catches SystemExit whatever its status and
    # judges the output; a judge running a process reads its exit status
    code = RIGHT_ABC301 + "import sys\nsys.exit(1)\n"
    [verdict] = judge_all([(spec_of(ROWS[ABC301]), code, "python")])
    assert verdict.judge == "runtime_error"
    assert lcb_verdict(ROWS[ABC301], code)[0] == "accepted"


def test_output_past_the_bound_is_an_output_limit(opted_in):
    spec = spec_of(ROWS[ABC301])
    code = "while True:\n    print('A' * 1000)\n"
    job = problem_job(0, Problem("t", "", "", "", kind="io", io=spec), code)
    program = job.tests[0].program
    small = IOProgram(program.spec, program.code, max_output_bytes=100_000)
    from cgm_metrics.execution.judge import Job

    [verdict] = Judge(Limits(timeout=TIME_LIMIT)).judge([Job(0, (job.tests[0].__class__(
        "tests", small),))])
    assert (verdict.judge, verdict.status, verdict.limit) == ("output_limit", "killed",
                                                              "output")


# ---------------------------------------------------------------- per-test results


def test_every_test_runs_with_all_tests_and_the_share_counts(opted_in):
    spec = spec_of(ROWS[ABC301])
    wrong_on_two = RIGHT_ABC301.replace('print(', 'print("X" if n in (1, 90) else ')
    first, every = judge_all([(spec, wrong_on_two, "python")])[0], judge_all(
        [(spec, wrong_on_two, "python")], all_tests=True)[0]
    assert (first.judge, len(first.tests), first.tests_passed) == ("wrong_answer", 3, 2)
    assert first.tests_total == every.tests_total == 15
    assert (every.judge, len(every.tests), every.tests_passed) == ("wrong_answer", 15, 13)
    assert every.tests_share == pytest.approx(13 / 15)
    assert [t.name for t in every.tests if not t.passed] == ["tests/2", "tests/3"]
    assert every.deciding.name == "tests/2"
    assert every.record()["judge"] == "wrong_answer"


def test_the_deciding_test_s_input_expected_and_output_are_shown_cut(opted_in):
    long_input = "x" * 5000
    spec = IOSpec((IOTest("1\n", "1\n", "public/0"), IOTest(long_input + "\n", "A\n",
                                                             "private/0")))
    [verdict] = judge_all([(spec, "s = input()\nprint(s if s == '1' else s * 2)", "python")])
    shown = verdict.io
    assert verdict.judge == "wrong_answer" and shown["test"] == "private/0"
    assert shown["expected"] == "A\n"
    assert len(shown["input"]) == DETAIL_CHARS + 3 and shown["input"].startswith("xxx")
    assert len(shown["output"]) == DETAIL_CHARS + 3


def test_tests_kept_on_disk_are_streamed(opted_in, tmp_path):
    inputs = tmp_path / "inputs.txt"
    numbers = " ".join(map(str, range(200_000))) + "\n"
    inputs.write_text("3 4\n" + numbers)
    answers = tmp_path / "answers.txt"
    answers.write_text(f"7\n{sum(range(200_000))}\n")
    spec = IOSpec((IOTest(DataRef(str(inputs), 0, 4), DataRef(str(answers), 0, 2), "t/0"),
                   IOTest(DataRef(str(inputs), 4), DataRef(str(answers), 2), "t/1")))
    [verdict] = judge_all([(spec, "import sys\nprint(sum(map(int, sys.stdin.read().split())))",
                            "python")])
    assert verdict.judge == "accepted" and verdict.tests_passed == 2


def test_an_answer_that_cannot_be_read_is_a_judge_error_not_a_wrong_answer(opted_in,
                                                                          tmp_path):
    spec = IOSpec((IOTest("1\n", DataRef(str(tmp_path / "missing.txt")), "t/0"),))
    [verdict] = judge_all([(spec, "print(input())", "python")])
    assert verdict.judge == "judge_error" and verdict.status == "failed"


def test_the_problem_s_own_time_limit_counts_cpu_time(opted_in):
    busy = "import time\nend = time.process_time() + 1.0\nwhile time.process_time() < end:\n" \
           "    pass\nprint(input())"
    tests = (IOTest("1\n", "1\n", "t/0"),)
    short, long = judge_all([(IOSpec(tests, time_limit=0.5), busy, "python"),
                             (IOSpec(tests, time_limit=3.0), busy, "python")],
                            limits=Limits(timeout=10.0))
    assert (short.judge, long.judge) == ("time_limit", "accepted")
    assert short.deciding.run.clock == "cpu" and short.deciding.run.time_limit == 0.5
    sleeper = "import time\ntime.sleep(1.5)\nprint(input())"  # no CPU time: within 0.5 s CPU
    [slept] = judge_all([(IOSpec(tests, time_limit=0.5), sleeper, "python")])
    assert slept.judge == "accepted"


def test_the_problem_s_own_memory_limit(opted_in):
    allocates = "x = bytearray(400 * 2**20)\nprint(input())"
    tests = (IOTest("1\n", "1\n", "t/0"),)
    small, large = judge_all([(IOSpec(tests, memory_mb=256), allocates, "python"),
                              (IOSpec(tests), allocates, "python")],
                             limits=Limits(timeout=5.0, memory_mb=2048))
    assert (small.judge, small.limit, large.judge) == ("memory_limit", "memory_mb", "accepted")


def test_the_kind_is_registered_and_refuses_a_task_without_tests():
    assert isinstance(KINDS["io"], IOTask)
    with pytest.raises(ValueError, match="IOSpec"):
        problem_job(0, Problem("t", "", "", "", kind="io"), "print(1)")
    call = IOSpec((IOTest("1", "1", "t/0"),), test_type="functional", fn_name="f")
    with pytest.raises(ValueError, match="Python programs only"):
        problem_job(0, Problem("t", "", "", "", language="cpp", kind="io", io=call), "int f;")


# ---------------------------------------------------------------- comparators and checkers


def test_tokens_and_lines_equal_testlib_s_wcmp_and_fcmp():
    path = shared_data("competitive", "testlib_checker_refs.jsonl")
    runs = [json.loads(line) for line in path.read_text().splitlines()]
    compared = 0
    for run in runs:
        if run["answer_file"] is None:  # testlib fails (exit 3): a judge error, tested below
            assert run["recorded_exit_code"] == outputs.FAIL
            continue
        rule = {"wcmp": outputs.compare_tokens, "fcmp": outputs.compare_lines}[run["checker"]]
        assert rule(run["output_file"], run["answer_file"]).code == run["recorded_exit_code"], \
            run["id"]
        compared += 1
    assert compared == 6


@pytest.mark.parametrize("name, output, answer, code", [
    ("default", "1 2.0\n\n", "1 2\n", outputs.OK),  # decimals, trailing empty lines
    ("default", "  YES \r\nNO", "YES\nNO\n", outputs.OK),
    ("default", "1e3", "1000", outputs.OK),
    ("default", "0.1", "0.10000001", outputs.WRONG_ANSWER),  # no tolerance
    ("default", "YES\nNO", "YES NO", outputs.WRONG_ANSWER),
    ("exact", "1\n", "1", outputs.WRONG_ANSWER),
    ("floats", "0.3333333", "0.33333333", outputs.OK),
    ("floats", "1000000.5", "1000000.0", outputs.OK),  # relative 1e-6
    ("floats", "1000002.5", "1000000.0", outputs.WRONG_ANSWER),
    ("yesno", "yes\nNo", "YES NO", outputs.OK),
    ("yesno", "yes", "NO", outputs.WRONG_ANSWER),
])
def test_named_comparators(name, output, answer, code):
    assert outputs.comparator(name)(output, answer).code == code


def test_the_default_rule_equals_livecodebench_s_line_rule():
    folder = str(livecodebench_peer())
    if folder not in sys.path:
        sys.path.insert(0, folder)
    from lcb_runner.evaluation import testing_util

    pairs = [("1 2.0\n", "1 2\n"), ("a\n\n\nb", "a\nb"), ("3.14159", "3.141590"),
             ("NaN", "NaN"), ("1_000", "1000"), ("x 1", "x 1.0"), ("\n\n5\n", "5"),
             ("-0", "0"), ("1e400", "1E+400"), ("Infinity", "inf")]
    for output, answer in pairs:
        theirs = testing_util.grade_stdio("print(" + repr(output) + ", end='')", [""],
                                          [answer], 2)
        assert outputs.compare_default(output, answer).accepted == (theirs[0] == [True]), (
            output, answer)


def test_comparator_names_and_options_are_checked():
    with pytest.raises(ValueError, match="the comparators are"):
        outputs.comparator("fuzzy")
    with pytest.raises(ValueError, match="abs_tol"):
        outputs.comparator("floats", {"tolerance": 1})
    assert outputs.comparator("floats", {"abs_tol": 0.5})("1.4", "1").accepted


# a problem with several right answers: any two numbers that sum to the input
CHECKER = """import sys
input_, output, answer = (open(name).read() for name in sys.argv[1:4])
target = int(input_)
if answer.strip() == "broken":
    print("the answer file is broken", file=sys.stderr)
    sys.exit(3)
try:
    a, b = map(int, output.split())
except ValueError:
    print("expected two numbers", file=sys.stderr)
    sys.exit(2)
sys.exit(0 if a + b == target else 1)
"""


def test_a_checker_program_runs_in_the_sandbox(opted_in):
    tests = (IOTest("10\n", "5 5\n", "t/0"), IOTest("7\n", "3 4\n", "t/1"))
    rule = OutputRule(checker_source=CHECKER, checker_language="python")
    spec = IOSpec(tests, rule=rule)
    right, wrong, badly, = judge_all([
        (spec, "n = int(input())\nprint(1, n - 1)", "python"),
        (spec, "n = int(input())\nprint(1, n - 2 if n == 7 else n - 1)", "python"),
        (spec, "print('many')", "python")])
    assert (right.judge, right.tests_passed) == ("accepted", 2)
    assert (wrong.judge, wrong.deciding.name) == ("wrong_answer", "t/1")
    assert badly.judge == "wrong_answer"  # a presentation error is not accepted
    failing = IOSpec((IOTest("10\n", "broken\n", "t/0"),), rule=rule)
    [verdict] = judge_all([(failing, "print(1, 9)", "python")])
    assert verdict.judge == "judge_error" and "broken" in verdict.result


def test_a_compiled_checker_program(opted_in):
    checker = """#include <fstream>
int main(int argc, char** argv) {
    std::ifstream in(argv[1]), out(argv[2]);
    long n, a, b;
    in >> n;
    if (!(out >> a >> b)) return 2;
    return a + b == n ? 0 : 1;
}
"""
    rule = OutputRule(checker_source=checker, checker_language="cpp")
    spec = IOSpec((IOTest("10\n", "5 5\n", "t/0"), IOTest("7\n", "3 4\n", "t/1")), rule=rule)
    right, wrong = judge_all([(spec, "n = int(input())\nprint(2, n - 2)", "python"),
                              (spec, "n = int(input())\nprint(2, n)", "python")])
    assert (right.judge, wrong.judge) == ("accepted", "wrong_answer")


def test_a_python_checker(opted_in):
    def close(input_, output, answer):
        return abs(float(output) - float(answer)) < 0.01

    def raises(input_, output, answer):
        raise KeyError("bug in the checker")

    tests = (IOTest("", "3.14159\n", "t/0"),)
    found = judge_all([(IOSpec(tests, rule=OutputRule(checker_callable=close)), "print(3.141)",
                        "python"),
                       (IOSpec(tests, rule=OutputRule(checker_callable=close)), "print(3.2)",
                        "python"),
                       (IOSpec(tests, rule=OutputRule(checker_callable=raises)), "print(3)",
                        "python")], workers=1)
    assert [v.judge for v in found] == ["accepted", "wrong_answer", "judge_error"]


# ---------------------------------------------------------------- every language


SUM_PROGRAMS = {
    "python": "a, b = map(int, input().split())\nprint(a + b)\n",
    "cpp": "#include <iostream>\nint main() { long a, b; std::cin >> a >> b; "
           "std::cout << a + b << std::endl; return 0; }\n",
    "java": "import java.util.*;\npublic class Main {\n  public static void main(String[] x) {\n"
            "    Scanner s = new Scanner(System.in);\n"
            "    System.out.println(s.nextLong() + s.nextLong());\n  }\n}\n",
    "go": "package main\nimport \"fmt\"\nfunc main() {\n var a, b int64\n"
          " fmt.Scan(&a, &b)\n fmt.Println(a + b)\n}\n",
    "rust": "use std::io::Read;\nfn main() {\n let mut s = String::new();\n"
            " std::io::stdin().read_to_string(&mut s).unwrap();\n"
            " let v: Vec<i64> = s.split_whitespace().map(|x| x.parse().unwrap()).collect();\n"
            " println!(\"{}\", v[0] + v[1]);\n}\n",
    "javascript": "const [a, b] = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/)"
                  ".map(Number);\nconsole.log(a + b);\n",
    "typescript": "declare var require: any;\nconst t: string = require('fs')"
                  ".readFileSync(0, 'utf8');\nconst v = t.trim().split(/\\s+/).map(Number);\n"
                  "console.log(v[0] + v[1]);\n",
    "php": "<?php\n[$a, $b] = array_map('intval', preg_split('/\\s+/', trim("
           "stream_get_contents(STDIN))));\necho $a + $b, \"\\n\";\n",
    "ruby": "a, b = STDIN.read.split.map(&:to_i)\nputs a + b\n",
    "lua": "local a, b = io.read('n', 'n')\nprint(math.floor(a + b))\n",
    "perl": "my @v = split ' ', do { local $/; <STDIN> };\nprint $v[0] + $v[1], \"\\n\";\n",
    "bash": "read a b\necho $((a + b))\n",
}


def test_every_execution_language_has_a_sum_program():
    assert sorted(SUM_PROGRAMS) == sorted(execution_languages())


@pytest.mark.parametrize("language", sorted(SUM_PROGRAMS))
def test_stdin_programs_in_every_language(opted_in, language):
    spec = IOSpec((IOTest("1 2\n", "3\n", "t/0"), IOTest("40 2\n", "42\n", "t/1"),
                   IOTest("5 5\n", "11\n", "t/2")))
    first, every = judge_all([(spec, SUM_PROGRAMS[language], language)] * 2,
                             limits=Limits(timeout=10.0), workers=1)[0], None
    every = judge_all([(spec, SUM_PROGRAMS[language], language)], all_tests=True,
                      limits=Limits(timeout=10.0), workers=1)[0]
    assert (first.judge, first.deciding.name, first.tests_passed) == ("wrong_answer", "t/2", 2)
    assert (every.tests_passed, every.tests_total) == (2, 3)


def test_a_compiled_program_is_built_once_per_sample(opted_in):
    # every test's run finds what the earlier runs left in the one private directory: the
    # program was built once and its runs share its directory
    code = """#include <fstream>
#include <iostream>
#include <string>
int main() {
    std::ifstream seen("runs.txt");
    std::string line; int runs = 0;
    while (std::getline(seen, line)) runs++;
    std::ofstream("runs.txt", std::ios::app) << "run\\n";
    std::cout << runs << std::endl;
}
"""
    spec = IOSpec(tuple(IOTest("", f"{n}\n", f"t/{n}") for n in range(4)))
    [verdict] = judge_all([(spec, code, "cpp")], limits=Limits(timeout=10.0))
    assert (verdict.judge, verdict.tests_passed) == ("accepted", 4)


def test_compiled_verdicts(opted_in):
    spec = IOSpec((IOTest("1 2\n", "3\n", "t/0"),))
    found = judge_all([
        (spec, "int main() { return 0 }", "cpp"),
        (spec, "#include <vector>\nint main() { std::vector<long> v(1L << 36); return v[7]; }",
         "cpp"),
        (spec, "int main() { int* p = nullptr; return *p; }", "cpp"),
        (spec, "int main() { while (true) {} }", "cpp"),
        (spec, "int main() { return 3; }", "cpp"),
    ], limits=Limits(timeout=2.0, memory_mb=512), workers=1)
    assert [v.judge for v in found] == ["compile_error", "memory_limit", "runtime_error",
                                        "time_limit", "runtime_error"]
    assert found[0].deciding.name == "build" and found[0].tests_total == 1


def test_call_program_reads_one_json_value_a_line(opted_in):
    tests = (IOTest('[1, 2]\n"x"', '["x", 3]', "t/0"),)
    spec = IOSpec(tests, test_type="functional", fn_name="pair", call_style="function")
    [verdict] = judge_all([(spec, "def pair(xs, s):\n    return s, sum(xs)\n", "python")])
    assert verdict.judge == "accepted"
    assert "def pair" in call_program("def pair(): pass", "pair")
