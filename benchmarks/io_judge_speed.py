"""Speed of the input/output judge (``execution/io_judge.py``) against LiveCodeBench's
grader, on the same programs and tests, with the same verdicts.

    python benchmarks/io_judge_speed.py [--workers 2] [--repeats 3] [--trivial-tests 200]

Programs: the three LiveCodeBench problems of ``tests/data/competitive`` (Codeforces 1873A and
AtCoder abc301_a, stdin; LeetCode 2727, call-based; 34 tests) x 6 Python programs each (right,
right written another way, wrong on the first test, wrong on a later test, a runtime error on
a later test, a syntax error) = 18 samples, time limit 6 s a test (LiveCodeBench's default).

The peer is LiveCodeBench's own ``evaluate_generations`` (``lcb_runner`` at commit 28fef95,
from ``$CGM_PEERS_DIR/livecodebench``, which ``scripts/test.sh`` copies from ``tests/peers``), called as its
``codegen_metrics`` calls it (one sample per program): a ``ProcessPoolExecutor`` of
``--workers`` processes, each sample in a forked process of its own
(``check_correctness``: a multiprocessing Manager, the program ``exec``-ed in-process on every
test with a mocked stdin). Ours: a :class:`~cgm_metrics.execution.judge.Judge` of
``--workers`` sandbox workers (warm after the first run, as in a training loop), every sample
built once and every test a fresh sandboxed process with a real stdin, the output compared on
the host. Both sides stop a sample at its first failing test.

Figures (``benchmarks/results/io_judge_speed.json``):

- ``livecodebench_rows``: wall-clock time of the whole call, peer / ours (best and median of
  ``--repeats`` interleaved runs); the verdicts of every sample must agree (the script stops
  otherwise);
- ``trivial_overhead_ms``: a trivial stdin Python program (``print(input())``) on
  ``--trivial-tests`` tests of one sample, one warm worker: milliseconds per test of the
  judge's whole path minus the CPU time the program's own processes used (what the kernel
  counted for them: the program's own work), i.e. what judging adds per test;
- ``trivial_ms_per_test``: the judge's whole path per test of that sample;
- ``cpp_build_s`` and ``cpp_ms_per_test``: a C++ sample of ``--trivial-tests`` tests: its one
  build (recorded once per sample) and then each test's run.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchtools import Record, interleaved, load  # noqa: E402

from cgm_metrics.execution.io_judge import DEFAULT_TIME_LIMIT, IOProgram  # noqa: E402
from cgm_metrics.execution.io_spec import IOSpec, IOTest  # noqa: E402
from cgm_metrics.execution.judge import Judge, problem_job  # noqa: E402
from cgm_metrics.execution.sandbox import Limits, Sandbox  # noqa: E402
from cgm_metrics.execution.tasks import Problem  # noqa: E402

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "competitive"

RIGHT_ABC301 = ("n = int(input())\ns = input()\nt = s.count('T')\n"
                "print('T' if t * 2 > n or t * 2 == n and s[-1] == 'A' else 'A')\n")
RIGHT_1873 = ("for _ in range(int(input())):\n    s = input()\n"
              "    print('YES' if sum(a != b for a, b in zip(s, 'abc')) in (0, 2) else 'NO')\n")
RIGHT_SENIORS = ("class Solution:\n    def countSeniors(self, details: List[str]) -> int:\n"
                 "        return sum(int(d[11:13]) > 60 for d in details)\n")
PROGRAMS = {
    "atcoder/abc301_a": [
        RIGHT_ABC301,
        "import sys\ndef main():\n    n, s = sys.stdin.read().split()\n"
        "    t = s.count('T')\n    a = int(n) - t\n"
        "    print('T' if t > a or t == a and s[-1] == 'A' else 'A')\n"
        "if __name__ == '__main__':\n    main()\n",
        "input()\ninput()\nprint('T')\n",
        RIGHT_ABC301.replace("print(", "print('T' if n == 90 else "),
        RIGHT_ABC301 + "if n > 90:\n    raise ValueError(n)\n",
        "print('T'\n",
    ],
    "codeforces/1873_A": [
        RIGHT_1873,
        "import sys\nfor s in sys.stdin.read().split()[1:]:\n"
        "    print('YES' if s in ('abc', 'acb', 'bac', 'cba') else 'NO')\n",
        "print('YES')\n",
        RIGHT_1873.replace("in (0, 2)", "in (0, 2) or s == 'cab'"),
        RIGHT_1873.replace("s = input()", "s = input()\n    assert s != 'cab'"),
        "for _ in range(int(input()):\n    pass\n",
    ],
    "leetcode/2727": [
        RIGHT_SENIORS,
        "class Solution:\n    def countSeniors(self, details):\n"
        "        return len([d for d in details if int(d[-4:-2]) > 60])\n",
        RIGHT_SENIORS.replace("> 60", ">= 0"),
        RIGHT_SENIORS.replace("for d in details)", "for d in details) + (len(details) > 8)"),
        RIGHT_SENIORS.replace("return", "assert len(details) < 8\n        return"),
        "class Solution:\n    def countSeniors(self, details)\n        return 0\n",
    ],
}
LCB_NAMES = {-1: "time_limit", -2: "wrong_answer", -3: "time_limit", -4: "runtime_error",
             False: "wrong_answer"}


def rows() -> dict[str, dict]:
    found = {}
    for line in (DATA / "sandboxfusion_live_code_bench_v1.jsonl").read_text().splitlines():
        row = json.loads(line)
        found[row["task_id"]] = row
    return found


def spec_of(row: dict) -> IOSpec:
    tests = tuple(IOTest(t["input"], t["output"], f"tests/{n}")
                  for n, t in enumerate(row["tests"]))
    return IOSpec(tests, test_type=row["test_type"], fn_name=row["fn_name"],
                  call_style="leetcode")


def peer_module():
    root = Path(os.environ.get("CGM_PEERS_DIR") or Path.home() / ".cache" / "cgm-metrics" /
                "peers") / "livecodebench"
    if not (root / "lcb_runner").is_dir():
        raise SystemExit(f"LiveCodeBench's grader is not in {root}; scripts/test.sh copies it from tests/peers")
    sys.path.insert(0, str(root))
    from lcb_runner.evaluation import compute_code_generation_metrics

    return compute_code_generation_metrics


def lcb_names(results: list) -> list[str]:
    names = []
    for per_sample in results:
        last = per_sample[-1]
        names.append("accepted" if all(r is True for r in per_sample) else LCB_NAMES[last])
    return names


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--trivial-tests", type=int, default=200)
    args = parser.parse_args()
    os.environ["HF_ALLOW_CODE_EVAL"] = "1"
    peer = peer_module()
    problems = rows()
    timeout = int(DEFAULT_TIME_LIMIT)
    print(f"{sum(len(p) for p in PROGRAMS.values())} samples, {args.workers} workers, "
          f"{args.repeats} interleaved runs; {load()}")
    record = Record("io_judge_speed", {"workers": args.workers, "repeats": args.repeats,
                                       "time_limit_s": timeout,
                                       "trivial_tests": args.trivial_tests})

    # -- LiveCodeBench's rows, both graders
    # one sample per program, as LiveCodeBench's codegen_metrics lays them out
    samples = [{"input_output": json.dumps({
        "inputs": [t["input"] for t in problems[task]["tests"]],
        "outputs": [t["output"] for t in problems[task]["tests"]],
        "fn_name": problems[task]["fn_name"]})} for task in PROGRAMS for _ in PROGRAMS[task]]
    generations = [[code] for task in PROGRAMS for code in PROGRAMS[task]]
    jobs = [problem_job((task, n), Problem(task, "", "", "", kind="io",
                                           io=spec_of(problems[task])), code)
            for task in PROGRAMS for n, code in enumerate(PROGRAMS[task])]
    judge = Judge(Limits(timeout=DEFAULT_TIME_LIMIT), workers=args.workers)
    judge.judge(jobs[:1])  # the workers set up (warm), as after a training loop's first step

    def theirs():
        results, _ = peer.evaluate_generations(samples, generations,
                                               num_process_evaluate=args.workers,
                                               timeout=timeout)
        return [lcb_names(results[index]) for index in range(len(samples))]  # one each

    def ours():
        return [v.judge for v in judge.judge(jobs)]

    timed = interleaved({"peer": theirs, "ours": ours}, args.repeats)
    peer_verdicts = [name for per_problem in timed["peer"].result for name in per_problem]
    if peer_verdicts != timed["ours"].result:
        raise SystemExit(f"the verdicts differ:\n peer {peer_verdicts}\n ours "
                         f"{timed['ours'].result}")
    ratio = record.ratio("livecodebench_rows", timed["peer"], timed["ours"],
                         "LiveCodeBench's evaluate_generations vs Judge.judge (warm workers), "
                         "18 samples of 3 LiveCodeBench problems, same verdicts",
                         len(jobs), "sample")
    print(f"LiveCodeBench rows: peer {timed['peer'].best:.2f} s, ours "
          f"{timed['ours'].best:.2f} s: {ratio:.1f}x (verdicts agree: "
          f"{', '.join(sorted(set(peer_verdicts)))})")

    # -- what judging adds per test: a trivial stdin program, one warm worker
    tests = tuple(IOTest(f"{n}\n", f"{n}\n", f"t/{n}") for n in range(args.trivial_tests))
    with Sandbox(Limits(timeout=DEFAULT_TIME_LIMIT), allow_code_execution=True) as box:
        checked: set[str] = set()
        trivial = IOProgram(IOSpec(tests), "print(input())")
        trivial.judge_in(box, box.limits, checked)  # warm
        best = None
        for _ in range(args.repeats):
            start = time.perf_counter()
            verdict = trivial.judge_in(box, box.limits, checked)
            wall = time.perf_counter() - start
            assert verdict.judge == "accepted"
            cpu = sum(test.cpu_time for test in verdict.tests)
            if best is None or wall < best[0]:
                best = (wall, cpu)
        assert best is not None
        per_test = 1e3 * best[0] / len(tests)
        overhead = 1e3 * (best[0] - best[1]) / len(tests)
        record.value("trivial_ms_per_test", per_test, "ms",
                     "print(input()) judged per test (whole path, one warm worker, best run)")
        record.value("trivial_overhead_ms", overhead, "ms",
                     "per test: the judge's whole path minus the CPU time of the program's "
                     "own processes")
        print(f"trivial stdin program: {per_test:.2f} ms a test, {overhead:.2f} ms of it the "
              f"judge's (the program's own CPU time {1e3 * best[1] / len(tests):.2f} ms)")

        cpp = IOProgram(IOSpec(tests), "#include <iostream>\nint main() { long n; std::cin >> n;"
                                       " std::cout << n << std::endl; }\n", "cpp")
        cpp.judge_in(box, box.limits, checked)  # the toolchain's canary
        start = time.perf_counter()
        verdict = cpp.judge_in(box, box.limits, checked)
        wall = time.perf_counter() - start
        assert verdict.judge == "accepted" and len(verdict.tests) == len(tests)
        run_time = sum(test.duration for test in verdict.tests)
        record.value("cpp_build_s", wall - run_time, "s",
                     "a C++ sample: its one build (and the session), once per sample")
        record.value("cpp_ms_per_test", 1e3 * run_time / len(tests), "ms",
                     "a C++ sample: each test's run after the one build")
        print(f"C++ sample of {len(tests)} tests: built once in {wall - run_time:.2f} s, then "
              f"{1e3 * run_time / len(tests):.2f} ms a test")
    record.write()


if __name__ == "__main__":
    main()
