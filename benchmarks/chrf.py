"""chrf_code against sacrebleu's CHRF: the corpus score and the sentence scores, each on its own.

    python benchmarks/chrf.py [--pairs 2000] [--repeats 5]

Scores ``stdlib_pairs(n)`` (standard-library functions against mutated copies) both ways in
one run, checks that every number agrees (1e-9), and prints one row per figure a user asks
for: the corpus chrF (sacrebleu's ``corpus_score``), the sentence chrF of every item
(``sentence_score`` per item; chrf_code's ``item_scores``) and both from one call (sacrebleu
has to extract the n-grams again for each; chrf_code derives both from one set of
statistics). Each timed function is the whole call from the same Python lists: building the
scorer and wrapping the references as each library takes them are inside both timings. Both
sides run ``--repeats`` times, interleaved; the best run counts (the median is recorded too).
The figures are appended to ``benchmarks/results/chrf.json``.

What each ratio compares: ``corpus``: sacrebleu's ``corpus_score`` vs chrf_code's statistics
and corpus score; ``sentence``: sacrebleu's ``sentence_score`` of every item vs chrf_code's
statistics and item scores; ``both``: the sum of sacrebleu's two calls (``corpus_score``, then
``sentence_score`` of every item: it extracts the n-grams twice) vs chrf_code's one statistics
call giving both; not a third speed-up, the cost of asking for both.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from sacrebleu.metrics import CHRF

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchtools import Record, interleaved, load, ratio_row  # noqa: E402
from corpus import stdlib_pairs  # noqa: E402

from cgm_metrics.maths.chrf import ChrfCodeMetric  # noqa: E402


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
    figures = {
        "corpus": (sacrebleu_corpus, ours_corpus,
                   "sacrebleu CHRF().corpus_score vs chrf_code statistics + corpus score"),
        "sentence": (sacrebleu_sentences, ours_sentences,
                     "sacrebleu CHRF().sentence_score of every item vs chrf_code statistics + "
                     "item scores"),
        "both": (sacrebleu_both, ours_both,
                 "the sum of sacrebleu's two calls (corpus_score, then sentence_score of every "
                 "item) vs chrf_code's one statistics call giving both"),
    }
    record = Record("chrf", {"pairs": n, "repeats": args.repeats,
                             "chars_per_snippet": round(chars / (2 * n))})
    print("| figure | sacrebleu | chrf_code | ratio (best) | ratio (median) |\n"
          "|---|---:|---:|---:|---:|")
    agree = True
    for figure, (theirs, ours, compares) in figures.items():
        timed = interleaved({"sacrebleu": lambda f=theirs: f(predictions, references),
                             "chrf_code": lambda f=ours: f(predictions, references)},
                            args.repeats)
        peer, mine = timed["sacrebleu"], timed["chrf_code"]
        difference = float(np.max(np.abs(flat(mine.result) - flat(peer.result))))
        agree = agree and difference <= 1e-9
        record.ratio(figure, peer, mine, compares, n, "pair")
        print(ratio_row(figure, peer.best, mine.best, n)
              + f" {peer.median / mine.median:.1f}x |", flush=True)
    print(f"every score equal to sacrebleu's within 1e-9: {agree}; {load()}")
    if not agree:
        raise SystemExit("chrf_code and sacrebleu disagree")
    record.write()


if __name__ == "__main__":
    main()
