"""sacrebleu's PairedTest against cgm_metrics.significance on 2 systems x 5000 segments.

Runs both in one process on the same synthetic corpus (8-40 tokens per segment), checks that
the p-values are equal, and prints two speed ratios (sacrebleu time / our time): resampling
alone, both sides handed the same precomputed statistics (sacrebleu's own, ours), and end to
end from the texts, statistics extraction included on both sides. The scorers are built
before the timings on both sides. Each run is repeated ``--repeats`` times, interleaved; the
best run counts.

    python benchmarks/significance.py [--segments 5000] [--repeats 3] [--no-ar]
"""

from __future__ import annotations

import argparse
import random
import sys
from functools import partial
from pathlib import Path

from sacrebleu.metrics import BLEU, CHRF
from sacrebleu.significance import PairedTest

from cgm_metrics import get_metric
from cgm_metrics.significance import paired_test, paired_test_texts

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchtools import best_of, load  # noqa: E402


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
    totals = {"resampling": [0.0, 0.0], "end_to_end": [0.0, 0.0]}
    print(f"{args.segments} segments; best of {args.repeats} interleaved runs; {load()}")
    print(f"{'run':<24}{'sacrebleu s':>12}{'ours s':>9}{'ratio':>8}  p-values")
    sacrebleu_defaults = (("BLEU", BLEU, lambda: get_metric("bleu", tokenize="13a")),
                          ("chrF", CHRF, lambda: get_metric("chrf_code")))
    for name, theirs, ours in sacrebleu_defaults:
        stats = [theirs()._extract_corpus_statistics(h, [refs]) for h in (a, b)]
        our_stats = [ours().statistics(h, [[r] for r in refs]) for h in (a, b)]
        for test_type, method in runs:
            peer_metric, our_metric = theirs(), ours()
            timed = best_of({
                "sacrebleu": partial(sacrebleu_run, peer_metric, a, b, refs, test_type, stats),
                "ours": partial(paired_test, *our_stats, our_metric, method=method),
            }, args.repeats)
            report(name + " " + test_type + " resampling", timed, totals["resampling"])
            peer_metric, our_metric = theirs(), ours()
            timed = best_of({
                "sacrebleu": partial(sacrebleu_run, peer_metric, a, b, refs, test_type),
                "ours": partial(paired_test_texts, a, b, refs, metric=our_metric, method=method),
            }, args.repeats)
            report(name + " " + test_type + " end to end", timed, totals["end_to_end"])
    for label, (t_theirs, t_ours) in totals.items():
        print(f"ratio {label.replace('_', ' ')}: {t_theirs / t_ours:.1f}x "
              f"(sacrebleu {t_theirs:.2f} s, ours {t_ours:.2f} s; all p-values equal)")
    print(load())


def report(label: str, timed: dict, total: list[float]) -> None:
    (t_theirs, p_theirs), (t_ours, result) = timed["sacrebleu"], timed["ours"]
    assert result.p_value == p_theirs, (label, result.p_value, p_theirs)
    total[0] += t_theirs
    total[1] += t_ours
    print(f"{label:<24}{t_theirs:>12.2f}{t_ours:>9.3f}{t_theirs / t_ours:>8.1f}  "
          f"{p_theirs:.4f} == {result.p_value:.4f}", flush=True)


if __name__ == "__main__":
    main()
