"""chrf_code against sacrebleu's CHRF: the corpus score and the sentence scores, each on its own.

    python benchmarks/chrf.py [--pairs 2000] [--repeats 5]

Scores ``stdlib_pairs(n)`` (standard-library functions against mutated copies) both ways in
one run, checks that every number agrees (1e-9), and prints one row per figure a user asks
for: the corpus chrF (sacrebleu's ``corpus_score``), the sentence chrF of every item
(``sentence_score`` per item; chrf_code's ``item_scores``) and both from one call (sacrebleu
has to extract the n-grams again for each; chrf_code derives both from one set of
statistics). Each timed function is the whole call from the same Python lists: building the
scorer and wrapping the references as each library takes them are inside both timings. Both
sides run ``--repeats`` times, interleaved; the best run counts.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from sacrebleu.metrics import CHRF

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchtools import best_of, load, ratio_row  # noqa: E402
from corpus import stdlib_pairs  # noqa: E402

from cgm_metrics.chrf import ChrfCodeMetric  # noqa: E402


def sacrebleu_corpus(predictions, references):
    return CHRF().corpus_score(predictions, [references]).score


def sacrebleu_sentences(predictions, references):
    chrf = CHRF()
    return np.array([chrf.sentence_score(p, [r]).score
                     for p, r in zip(predictions, references, strict=True)])


def sacrebleu_both(predictions, references):
    return sacrebleu_corpus(predictions, references), sacrebleu_sentences(predictions, references)


def ours_statistics(predictions, references):
    metric = ChrfCodeMetric()
    return metric, metric.statistics(predictions, [[r] for r in references])


def ours_corpus(predictions, references):
    metric, stats = ours_statistics(predictions, references)
    return metric.corpus_score(stats)


def ours_sentences(predictions, references):
    metric, stats = ours_statistics(predictions, references)
    return metric.item_scores(stats)


def ours_both(predictions, references):
    metric, stats = ours_statistics(predictions, references)
    return metric.corpus_score(stats), metric.item_scores(stats)


def flat(value) -> np.ndarray:
    """A score, an array of scores or a (score, array) pair as one flat array."""
    if isinstance(value, tuple):
        return np.concatenate([flat(part) for part in value])
    return np.atleast_1d(np.asarray(value, dtype=np.float64))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    predictions, references = stdlib_pairs(args.pairs)
    n = len(predictions)
    chars = sum(map(len, predictions)) + sum(map(len, references))
    print(f"{n} pairs, {chars / (2 * n):.0f} characters per snippet on average; best of "
          f"{args.repeats} interleaved runs; {load()}")
    figures = {"corpus chrF": (sacrebleu_corpus, ours_corpus),
               "sentence chrF of every item": (sacrebleu_sentences, ours_sentences),
               "both from one call": (sacrebleu_both, ours_both)}
    print("| figure | sacrebleu | chrf_code | ratio |\n|---|---:|---:|---:|")
    agree = True
    for figure, (theirs, ours) in figures.items():
        timed = best_of({"sacrebleu": lambda f=theirs: f(predictions, references),
                         "chrf_code": lambda f=ours: f(predictions, references)}, args.repeats)
        (peer_time, peer_value), (our_time, our_value) = timed["sacrebleu"], timed["chrf_code"]
        difference = float(np.max(np.abs(flat(our_value) - flat(peer_value))))
        agree = agree and difference <= 1e-9
        print(ratio_row(figure, peer_time, our_time, n), flush=True)
    print(f"every score equal to sacrebleu's within 1e-9: {agree}; {load()}")
    if not agree:
        raise SystemExit("chrf_code and sacrebleu disagree")


if __name__ == "__main__":
    main()
