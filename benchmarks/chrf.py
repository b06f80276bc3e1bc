"""chrf_code against sacrebleu's CHRF: corpus AND sentence scores of function-sized pairs.

    python benchmarks/chrf.py [--pairs 2000] [--repeats 3]

Scores ``stdlib_pairs(n)`` (standard-library functions against mutated copies) both ways in
one run, checks that every number agrees (1e-9), and prints the throughput ratio and where
chrf_code's time goes. sacrebleu has to extract n-grams once for ``corpus_score`` and again
for every ``sentence_score``; chrf_code counts once (``statistics``) and derives both scores
from the same rows. Each side runs ``--repeats`` times; the best time counts.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from sacrebleu.metrics import CHRF

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import stdlib_pairs  # noqa: E402

from cgm_metrics.chrf import ChrfCodeMetric  # noqa: E402


def run_sacrebleu(predictions, references):
    chrf = CHRF()
    corpus = chrf.corpus_score(predictions, [references]).score
    sentences = [
        chrf.sentence_score(p, [r]).score for p, r in zip(predictions, references, strict=True)
    ]
    return corpus, np.array(sentences)


def run_ours(predictions, references, timings):
    metric = ChrfCodeMetric()
    start = time.perf_counter()
    stats = metric.statistics(predictions, [[r] for r in references])
    middle = time.perf_counter()
    corpus = metric.corpus_score(stats)
    sentences = metric.item_scores(stats)
    end = time.perf_counter()
    timings.append((middle - start, end - middle))
    return corpus, sentences


def best_of(repeats, function, *args):
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function(*args)
        best = min(best, time.perf_counter() - start)
    return best, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    predictions, references = stdlib_pairs(args.pairs)
    n = len(predictions)
    chars = sum(map(len, predictions)) + sum(map(len, references))
    print(f"{n} pairs, {chars / (2 * n):.0f} characters per snippet on average")

    timings: list[tuple[float, float]] = []
    theirs_time, (theirs_corpus, theirs_sentences) = best_of(
        args.repeats, run_sacrebleu, predictions, references
    )
    ours_time, (ours_corpus, ours_sentences) = best_of(
        args.repeats, run_ours, predictions, references, timings
    )

    corpus_diff = abs(ours_corpus - theirs_corpus)
    sentence_diff = float(np.max(np.abs(ours_sentences - theirs_sentences)))
    same = corpus_diff <= 1e-9 and sentence_diff <= 1e-9
    stats_time, score_time = min(timings)
    print(f"corpus chrF: chrf_code {ours_corpus:.6f}  sacrebleu {theirs_corpus:.6f}")
    print(f"largest difference: corpus {corpus_diff:.1e}, sentence {sentence_diff:.1e}")
    print(
        f"sacrebleu  corpus + sentence: {theirs_time:7.3f} s ({1e3 * theirs_time / n:.3f} ms/pair)"
    )
    print(f"chrf_code  corpus + sentence: {ours_time:7.3f} s ({1e3 * ours_time / n:.3f} ms/pair)")
    print(
        f"  statistics: {1e3 * stats_time / n:.3f} ms/pair; both scores from them: "
        f"{1e3 * score_time:.2f} ms in total"
    )
    print(f"throughput ratio (chrf_code / sacrebleu): {theirs_time / ours_time:.1f}x")
    if not same:
        raise SystemExit("chrf_code and sacrebleu disagree")


if __name__ == "__main__":
    main()
