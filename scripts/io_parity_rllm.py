"""Every LeetCode reference solution of rllm's training set passes its own tests here.

    python scripts/io_parity_rllm.py [--jobs 2] [--json out.json]

Reads ``tests/data/competitive/rllm_leetcode_train_tested.jsonl.gz`` (the 1,768 of rllm's
1,889 problems whose tests could be parsed; see its NOTICE) as every front end reads it
(``read_problems``: the normalised rows, call-based ``class Solution`` problems), judges each
problem's ``reference_solution`` on every test (``all_tests``) under LiveCodeBench's 6 s of
CPU time a test, and prints how many pass, with the verdict and first failing test of every
one that does not. The suite runs every 40th problem (tests/test_io_parity.py); this runs all.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "competitive" / "rllm_leetcode_train_tested.jsonl.gz"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=6.0)
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)

    from cgm_metrics.execution.judge import Judge, problem_job
    from cgm_metrics.execution.problems import read_problems
    from cgm_metrics.execution.sandbox import check_limits

    problems = read_problems(DATA).problems
    jobs = [problem_job(index, problem, problem.canonical_solution, all_tests=True)
            for index, problem in enumerate(problems)]
    started = time.perf_counter()
    verdicts = Judge(check_limits(args.timeout), workers=args.jobs).judge(jobs)
    elapsed = time.perf_counter() - started
    failing = [{"task_id": problems[v.key].task_id, "verdict": v.judge,
                "tests_passed": v.tests_passed, "n_tests": v.tests_total,
                "failed_test": v.deciding.name, "result": v.result[:300]}
               for v in verdicts if not v.passed]
    tests = sum(len(p.io.tests) for p in problems)
    summary = {"problems": len(problems), "tests": tests,
               "passed": len(problems) - len(failing), "failing": failing,
               "verdicts": dict(Counter(v.judge for v in verdicts)),
               "workers": args.jobs, "seconds": round(elapsed, 1)}
    print(f"{summary['passed']} of {len(problems)} reference solutions pass all their tests "
          f"({tests} tests, {args.jobs} workers, {elapsed:.0f} s)")
    for entry in failing:
        print(f"  {entry['task_id']}: {entry['verdict']} on {entry['failed_test']} "
              f"({entry['tests_passed']}/{entry['n_tests']}): {entry['result'][:160]}")
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    return 0 if not failing else 1


if __name__ == "__main__":
    sys.exit(main())
