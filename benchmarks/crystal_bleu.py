"""crystal_bleu against the crystalbleu package: corpus AND sentence scores, same tokens and list.

    python benchmarks/crystal_bleu.py [--pairs 2000] [--k 500] [--repeats 3]

Scores ``stdlib_pairs(n)`` (standard-library functions against mutated copies), split on
whitespace for both sides (``tokenize="none"``), with the k most frequent 1- to 4-grams of the
references as the trivially shared n-grams and the paper's smoothing (method1, epsilon 1e-4).
The package computes ``corpus_bleu`` once and ``sentence_bleu`` for every pair; crystal_bleu
counts once (``statistics``) and derives both from the same rows. Every number must agree bit
for bit. Each side runs ``--repeats`` times on the same items; the best time counts. The
time of the code tokenizer (tree-sitter tokens, the default) is printed separately.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

from crystalbleu import SmoothingFunction, corpus_bleu, sentence_bleu

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import stdlib_pairs  # noqa: E402

from cgm_metrics.crystal_bleu import CrystalBleuMetric, tokenizer, trivially_shared_ngrams  # noqa: E402, E501


def run_package(predictions, references, ignoring):
    smoothing = SmoothingFunction(epsilon=1e-4).method1
    hyps = [p.split() for p in predictions]
    refs = [[r.split()] for r in references]
    corpus = corpus_bleu(refs, hyps, smoothing_function=smoothing, ignoring=ignoring)
    sentences = [sentence_bleu(r, h, smoothing_function=smoothing, ignoring=ignoring)
                 for h, r in zip(hyps, refs, strict=True)]
    return corpus, sentences


def run_ours(predictions, references, shared, timings):
    start = time.perf_counter()
    metric = CrystalBleuMetric(tokenize="none", trivially_shared=shared, smoothing="method1",
                               epsilon=1e-4)
    stats = metric.statistics(predictions, [[r] for r in references])
    middle = time.perf_counter()
    corpus = metric.corpus_score(stats)
    sentences = metric.item_scores(stats).tolist()
    timings.append((middle - start, time.perf_counter() - middle))
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
    parser.add_argument("--k", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    predictions, references = stdlib_pairs(args.pairs)
    n = len(predictions)
    tokens = sum(len(p.split()) + len(r.split()) for p, r in zip(predictions, references,
                                                                  strict=True))
    shared = trivially_shared_ngrams(references, k=args.k, tokenize="none")
    print(f"{n} pairs, {tokens / (2 * n):.0f} whitespace tokens per snippet, k = {len(shared)}")
    warnings.simplefilter("ignore")

    timings: list[tuple[float, float]] = []
    theirs_time, theirs = best_of(args.repeats, run_package, predictions, references,
                                  dict.fromkeys(shared))
    ours_time, ours = best_of(args.repeats, run_ours, predictions, references, shared, timings)
    same = ours[0] == theirs[0] and ours[1] == theirs[1]
    print(f"corpus CrystalBLEU: crystal_bleu {ours[0]!r}  package {theirs[0]!r}  "
          f"(sentence scores {'all equal' if ours[1] == theirs[1] else 'DIFFER'})")
    print(f"package       corpus + sentence: {theirs_time:7.3f} s "
          f"({1e3 * theirs_time / n:.3f} ms/pair)")
    print(f"crystal_bleu  corpus + sentence: {ours_time:7.3f} s ({1e3 * ours_time / n:.3f} ms/pair)")
    stats_time, score_time = min(timings)
    print(f"  statistics {1e3 * stats_time / n:.3f} ms/pair; both scores from them "
          f"{1e3 * score_time:.1f} ms in total")
    print(f"throughput ratio (crystal_bleu / package): {theirs_time / ours_time:.1f}x")
    split = tokenizer("code", "python")
    start = time.perf_counter()
    for text in predictions + references:
        split(text)
    spent = time.perf_counter() - start
    print(f"(tokenize='code', tree-sitter tokens, not in the timings: "
          f"{1e3 * spent / (2 * n):.3f} ms/snippet)")
    if not same:
        raise SystemExit("crystal_bleu and the crystalbleu package disagree")


if __name__ == "__main__":
    main()
