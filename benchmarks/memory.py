"""Peak memory and time of resampling and of the agreement analysis, each case in a fresh
child process (its peak resident memory from the kernel, ``ru_maxrss``).

Cases:

* ``bootstrap``: :func:`cgm_metrics.significance.paired_test`, paired bootstrap, 1,000,000
  items x 1,000 resamples (per-item statistics of a mean-of-items metric, EDIT-SIM's shape:
  resampling costs the same for any metric with few statistics per item).
* ``randomization``: the same with approximate randomization, 1,000,000 items x 1,000
  trials.
* ``agreement-*``: the agreement analysis (:func:`cgm_metrics.agreement.run_agreement`
  with the Space's defaults: chrF, CodeBLEU and RUBY computed from the texts, synthetic
  models, correlations) of generated graded uploads within the Space's documented limits
  (``cgm_metrics.frontends.space.Limits``: at most 5,000 rows, 2 MB): 100 systems x 20 items,
  2,500 x 2 (distinct outputs, and 5 distinct outputs per item), 5 x 1,000, and the largest
  analyses the model bound admits: 11 x 454 (187 models with the synthetic ones) and
  200 x 25 (200 real systems).

Every case prints the seconds of the measured call, the peak resident memory of the whole
child (interpreter, imports and inputs included) and the resident memory just before the
call; a case that does not finish within ``--timeout`` seconds is reported as such, with the
peak it had reached. To measure another checkout (e.g. the code before a change), run this
script with that checkout's ``src`` first on ``PYTHONPATH``.

Every run appends its figures (per case: seconds, peak MB), with the machine, the load and
the date, to benchmarks/results/memory.json.

    python benchmarks/memory.py [--case NAME ...] [--timeout SECONDS]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchtools import Record  # noqa: E402

#: agreement cases: (systems, items, distinct outputs per item or None for all distinct)
AGREEMENT = {"agreement-100x20": (100, 20, None), "agreement-2500x2": (2500, 2, None),
             "agreement-2500x2-repeats": (2500, 2, 5), "agreement-5x1000": (5, 1000, None),
             "agreement-11x454": (11, 454, None), "agreement-200x25": (200, 25, None)}
CASES = ("bootstrap", "randomization", *AGREEMENT)


def _rss_mb() -> float:
    """The current resident memory of this process, MB."""
    with open("/proc/self/statm") as handle:
        pages = int(handle.read().split()[1])
    return pages * resource.getpagesize() / 2**20


def _peak_of(pid: int) -> float:
    """The peak resident memory (MB) of a running process, from the kernel's VmHWM."""
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def graded_rows(n_systems: int, n_items: int, variants: int | None = None,
                seed: int = 0) -> list[dict]:
    """Graded one-line Python outputs (CoNaLa-sized snippets, three graders, grades 0-4):
    about 170 bytes a row, like a real upload. With ``variants``, every system's output of an
    item is one of that many (systems agree often, as on easy items)."""
    rng = random.Random(seed)
    names = ["values", "items", "data", "path", "lst", "text", "d", "x"]
    calls = ["sorted", "len", "sum", "max", "min", "list", "set", "print"]
    rows = []
    for item in range(n_items):
        reference = (f"{rng.choice(names)} = {rng.choice(calls)}({rng.choice(names)}, "
                     f"key=lambda v: v[{item % 7}])")
        pool = [" ".join(t if rng.random() < 0.7 else rng.choice(names + calls)
                         for t in reference.split(" ")) for _ in range(variants or 0)]
        for system in range(n_systems):
            tokens = reference.split(" ")
            prediction = rng.choice(pool) if pool else " ".join(
                t if rng.random() < 0.7 else rng.choice(names + calls) for t in tokens)
            grade = rng.randint(0, 4)
            rows.append({
                "item": item, "system": f"model_{system:04d}", "prediction": prediction,
                "references": [reference],
                "grades": {f"g{k}": min(4, max(0, grade + rng.randint(-1, 1))) for k in range(3)},
            })
    return rows


def child(case: str) -> None:
    """Run one case in this process and print its figures as one JSON line."""
    import numpy as np

    import cgm_metrics

    if case in ("bootstrap", "randomization"):
        from cgm_metrics import get_metric
        from cgm_metrics.significance import paired_test

        n_items = 1_000_000
        rng = np.random.default_rng(0)
        stats_a = np.column_stack([rng.random(n_items), np.ones(n_items)])
        stats_b = np.column_stack([rng.random(n_items), np.ones(n_items)])
        method = "paired_bootstrap" if case == "bootstrap" else "approximate_randomization"
        metric = get_metric("edit_sim")

        def call():
            return paired_test(stats_a, stats_b, metric, method=method, n_resamples=1000,
                               seed=12345).p_value
    else:
        from cgm_metrics.agreement import run_agreement

        n_systems, n_items, variants = AGREEMENT[case]
        folder = tempfile.mkdtemp(prefix="cgm-memory-")
        path = Path(folder) / "graded.jsonl"
        path.write_text("".join(json.dumps(row) + "\n" for row in graded_rows(
            n_systems, n_items, variants)), encoding="utf-8")

        def call():
            size = path.stat().st_size
            try:
                result = run_agreement(path)  # the Space's call, with its defaults
            except ValueError as error:  # a user error: the request is refused
                return {"bytes": size, "refused": str(error)[:90]}
            return {"bytes": size, "models": len(result.models),
                    "pairs": len(result.pairs), "notes": len(getattr(result, "notes", []))}
    before = _rss_mb()
    start = time.perf_counter()
    outcome = call()
    seconds = time.perf_counter() - start
    print(json.dumps({
        "case": case, "seconds": round(seconds, 2), "rss_before_mb": round(before),
        "peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "outcome": outcome, "library": str(Path(cgm_metrics.__file__).parent),
    }), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--case", nargs="+", choices=CASES, default=list(CASES))
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--child", choices=CASES, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    print(f"{'case':<20} {'seconds':>9} {'peak MB':>9} {'before MB':>10}  outcome")
    record = Record("memory", {"cases": args.case, "timeout": args.timeout})
    library = None
    for case in args.case:
        process = subprocess.Popen([sys.executable, __file__, "--child", case],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            out, err = process.communicate(timeout=args.timeout)
        except subprocess.TimeoutExpired:
            peak = _peak_of(process.pid)
            process.kill()
            process.communicate()
            print(f"{case:<20} {'>' + format(args.timeout, 'g'):>9} {peak:>9.0f} {'':>10}  "
                  "did not finish: stopped (peak so far)")
            record.value(f"{case} peak", peak, "MB", f"did not finish in {args.timeout:g} s")
            continue
        lines = [line for line in out.splitlines() if line.startswith("{")]
        if process.returncode != 0 or not lines:
            tail = err.strip().splitlines()[-1] if err.strip() else f"exit {process.returncode}"
            print(f"{case:<20} {'failed':>9} {'':>9} {'':>10}  {tail}")
            continue
        result = json.loads(lines[-1])
        library = result["library"]
        print(f"{case:<20} {result['seconds']:>9.2f} {result['peak_mb']:>9} "
              f"{result['rss_before_mb']:>10}  {result['outcome']}")
        record.value(f"{case} seconds", result["seconds"], "s", "the measured call")
        record.value(f"{case} peak", result["peak_mb"], "MB",
                     f"peak resident memory of the child ({result['rss_before_mb']} MB before "
                     f"the call); outcome {result['outcome']}")
    if library:
        print(f"library measured: {library}")
    record.write()


if __name__ == "__main__":
    main()
