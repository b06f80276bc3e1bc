"""Measure every metric's cost in seconds per 1,000 characters scored: the figure behind each
metric class's ``seconds_per_1k_chars`` (the Space's time budget reads it).

    python benchmarks/metric_cost.py [--chars 5000] [--repeat 3] [--metrics NAME ...]

Characters scored = the prediction plus all its references. Inputs: the worst cases of
``benchmarks/worst_case.py`` at the Space's snippet limit (flat code, deep nesting, one long
token, random unicode, an unrelated pair, 8 references, Java, JavaScript), each scored as one
item after a warm-up call (parsers and WordNet loaded, compiled kernels in their cache, as in a
running Space). Each case is timed ``--repeat`` times (median); a metric's rate is its worst
case. Prints the rate next to the class attribute, and the load average: a busy machine makes
every rate higher, never lower, so the attribute is the worst rate seen, rounded up. Every
run appends its rates, with the machine, the load and the date, to
benchmarks/results/metric_cost.json.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import worst_case  # noqa: E402
from benchtools import Record  # noqa: E402

import cgm_metrics  # noqa: E402
from cgm_metrics.pipeline.evaluation import describe_metrics  # noqa: E402
from cgm_metrics.pipeline.registry import metric_class  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chars", type=int, default=5000)
    parser.add_argument("--references", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--metrics", nargs="+", default=None)
    args = parser.parse_args()
    names = args.metrics or [entry["name"] for entry in describe_metrics(runs_code=False)]
    cases = worst_case.cases(args.chars, args.references, 0)
    load_before = os.getloadavg()[0]
    record = Record("metric_cost", {"chars": args.chars, "references": args.references,
                                    "repeat": args.repeat, "metrics": names})
    print("| metric | worst s / 1k chars | worst case | class attribute |")
    print("|---|---:|---|---:|")
    for name in names:
        worst = (0.0, "")
        for label, lang, prediction, references in cases:
            try:
                metric = cgm_metrics.get_metric(name, lang=lang)
            except ValueError:  # a language the metric does not cover
                continue
            metric.statistics(["x = 1"], [["x = 2"]])  # warm-up: parsers, WordNet, kernels
            chars = len(prediction) + sum(len(r) for r in references)
            times = []
            for _ in range(args.repeat):
                start = time.perf_counter()
                metric.statistics([prediction], [references])
                times.append(time.perf_counter() - start)
            rate = statistics.median(times) / (chars / 1000)
            if rate > worst[0]:
                worst = (rate, label)
        attribute = metric_class(name).seconds_per_1k_chars
        print(f"| {name} | {worst[0]:.4f} | {worst[1]} | {attribute} |", flush=True)
        record.value(name, worst[0], "s/1k chars",
                     f"the worst case's median ({worst[1]}); class attribute {attribute}")
    print(f"\n{os.cpu_count()} CPUs; 1-minute load average {load_before:.1f} before, "
          f"{os.getloadavg()[0]:.1f} after")
    record.write()


if __name__ == "__main__":
    main()
