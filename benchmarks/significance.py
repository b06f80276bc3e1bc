"""sacrebleu's PairedTest against cgm_metrics.significance on 2 systems x 5000 segments.

Runs both in one process on the same synthetic corpus (8-40 tokens per segment), checks that
the p-values are equal, and prints two speed ratios (sacrebleu time / our time): resampling
alone, both sides handed the same precomputed statistics (sacrebleu's own, ours), and end to
end from the texts, statistics extraction included on both sides. The scorers are built
before the timings on both sides. Each run is repeated ``--repeats`` (>= 3) times,
interleaved; the best run counts (the median is recorded too). The clock is the process's CPU
time, every thread included: numpy's BLAS may use several threads on our side where sacrebleu
uses one, which wall time would hide. The totals add the runs of
the same round over every test; every run of the script appends its figures to
benchmarks/results/significance.json.

    python benchmarks/significance.py [--segments 5000] [--repeats 3] [--no-ar]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from functools import partial
from pathlib import Path

from sacrebleu.metrics import BLEU, CHRF
from sacrebleu.significance import PairedTest

from cgm_metrics import get_metric
from cgm_metrics.significance import paired_test, paired_test_texts

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchtools import Record, Timing, interleaved, load  # noqa: E402


def synthetic_corpus(n: int, seed: int = 0) -> tuple[list[str], list[str], list[str]]:
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyz"
    vocab = ["".join(rng.choice(letters) for _ in range(rng.randint(2, 8))) for _ in range(3000)]
    refs = [" ".join(rng.choice(vocab) for _ in range(rng.randint(8, 40))) for _ in range(n)]

    def noisy(text: str, p: float) -> str:
        return " ".join(w if rng.random() > p else rng.choice(vocab) for w in text.split())

    return [noisy(r, 0.30) for r in refs], [noisy(r, 0.302) for r in refs], refs


def sacrebleu_run(metric, a, b, refs, test_type, stats=None):
    if stats is not None:  # resampling alone: statistics handed over precomputed
        lookup = {id(a): stats[0], id(b): stats[1]}
        metric._extract_corpus_statistics = lambda hyps, _refs: lookup[id(hyps)]
        metric.num_refs = 1
    confidence = 1000 if test_type == "ar" else -1
    _, scores = PairedTest([("a", a), ("b", b)], {"m": metric}, references=[refs],
                           test_type=test_type, n_ar_confidence=confidence)()
    key = next(k for k in scores if k != "System")
    return scores[key][1].p_value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--segments", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-ar", action="store_true", help="skip the 10000-trial AR runs")
    args = parser.parse_args()
    a, b, refs = synthetic_corpus(args.segments)
    runs = [("bs", "paired_bootstrap")] + ([] if args.no_ar else [("ar", "approximate_randomization")])
    totals = {"resampling": (Timing(), Timing()), "end_to_end": (Timing(), Timing())}
    record = Record("significance", {"segments": args.segments, "repeats": args.repeats,
                                     "tests": [method for _, method in runs],
                                     "clock": "process CPU time (all threads of both sides)"})
    print(f"{args.segments} segments; best of {args.repeats} interleaved runs; {load()}")
    print(f"{'run':<24}{'sacrebleu s':>12}{'ours s':>9}{'ratio':>8}  p-values")
    sacrebleu_defaults = (("BLEU", BLEU, lambda: get_metric("bleu", tokenize="13a")),
                          ("chrF", CHRF, lambda: get_metric("chrf_code")))
    for name, theirs, ours in sacrebleu_defaults:
        stats = [theirs()._extract_corpus_statistics(h, [refs]) for h in (a, b)]
        our_stats = [ours().statistics(h, [[r] for r in refs]) for h in (a, b)]
        for test_type, method in runs:
            peer_metric, our_metric = theirs(), ours()
            timed = interleaved({
                "sacrebleu": partial(sacrebleu_run, peer_metric, a, b, refs, test_type, stats),
                "ours": partial(paired_test, *our_stats, our_metric, method=method),
            }, args.repeats, clock=time.process_time)
            report(name + " " + test_type + " resampling", timed, totals["resampling"], record,
                   "PairedTest with the statistics handed over vs our paired_test on our "
                   "statistics")
            peer_metric, our_metric = theirs(), ours()
            timed = interleaved({
                "sacrebleu": partial(sacrebleu_run, peer_metric, a, b, refs, test_type),
                "ours": partial(paired_test_texts, a, b, refs, metric=our_metric, method=method),
            }, args.repeats, clock=time.process_time)
            report(name + " " + test_type + " end to end", timed, totals["end_to_end"], record,
                   "PairedTest from the texts vs our paired_test_texts (statistics "
                   "extraction included on both sides)")
    for label, (theirs_total, ours_total) in totals.items():
        ratio = record.ratio(label.replace("_", " "), theirs_total, ours_total,
                             f"the sum over every run above ({label.replace('_', ' ')}) of "
                             "sacrebleu's time vs ours, round by round")
        print(f"ratio {label.replace('_', ' ')}: {ratio:.1f}x "
              f"(sacrebleu {theirs_total.best:.2f} s, ours {ours_total.best:.2f} s; "
              "all p-values equal)")
    print(load())
    record.write()


def report(label: str, timed: dict, total: tuple[Timing, Timing], record: Record,
           compares: str) -> None:
    theirs, ours = timed["sacrebleu"], timed["ours"]
    p_theirs, result = theirs.result, ours.result
    assert result.p_value == p_theirs, (label, result.p_value, p_theirs)
    for index, (t_theirs, t_ours) in enumerate(zip(theirs.runs, ours.runs, strict=True)):
        if index == len(total[0].runs):
            total[0].runs.append(0.0)
            total[1].runs.append(0.0)
        total[0].runs[index] += t_theirs
        total[1].runs[index] += t_ours
    ratio = record.ratio(label, theirs, ours, compares)
    print(f"{label:<24}{theirs.best:>12.2f}{ours.best:>9.3f}{ratio:>8.1f}  "
          f"{p_theirs:.4f} == {result.p_value:.4f}", flush=True)


if __name__ == "__main__":
    main()
