"""crystal_bleu against the crystalbleu package: corpus AND sentence scores, same tokens and list.

    python benchmarks/crystal_bleu.py [--pairs 2000] [--k 500] [--repeats 3]

Scores ``stdlib_pairs(n)`` (standard-library functions against mutated copies), split on
whitespace for both sides (``tokenize="none"``), with the k most frequent 1- to 4-grams of the
references as the trivially shared n-grams and the paper's smoothing (method1, epsilon 1e-4).
Three figures, each timed on its own: ``corpus`` (the package's ``corpus_bleu`` vs our
statistics and corpus score), ``sentence`` (its ``sentence_bleu`` of every pair vs our
statistics and item scores) and ``both`` (the sum of the package's two calls vs our one
statistics call giving both: the cost of asking for both, not a third speed-up). Every number
must agree bit for bit. Both sides run ``--repeats`` (>= 3) times, interleaved; best and median
runs are appended to ``benchmarks/results/crystal_bleu.json``. The time of the code tokenizer
(tree-sitter tokens, the default) is printed separately.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

from crystalbleu import SmoothingFunction, corpus_bleu, sentence_bleu

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchtools import Record, interleaved, load, ratio_row  # noqa: E402
from corpus import stdlib_pairs  # noqa: E402

from cgm_metrics.maths.crystal_bleu import CrystalBleuMetric, tokenizer, trivially_shared_ngrams  # noqa: E402, E501


def _package_inputs(predictions, references):
    return [p.split() for p in predictions], [[r.split()] for r in references]


def package_corpus(predictions, references, ignoring):
    smoothing = SmoothingFunction(epsilon=1e-4).method1
    hyps, refs = _package_inputs(predictions, references)
    return corpus_bleu(refs, hyps, smoothing_function=smoothing, ignoring=ignoring)


def package_sentences(predictions, references, ignoring):
    smoothing = SmoothingFunction(epsilon=1e-4).method1
    hyps, refs = _package_inputs(predictions, references)
    return [sentence_bleu(r, h, smoothing_function=smoothing, ignoring=ignoring)
            for h, r in zip(hyps, refs, strict=True)]


def package_both(predictions, references, ignoring):
    return (package_corpus(predictions, references, ignoring),
            package_sentences(predictions, references, ignoring))


def _ours(predictions, references, shared):
    metric = CrystalBleuMetric(tokenize="none", trivially_shared=shared, smoothing="method1",
                               epsilon=1e-4)
    return metric, metric.statistics(predictions, [[r] for r in references])


def ours_corpus(predictions, references, shared):
    metric, stats = _ours(predictions, references, shared)
    return metric.corpus_score(stats)


def ours_sentences(predictions, references, shared):
    metric, stats = _ours(predictions, references, shared)
    return metric.item_scores(stats).tolist()


def ours_both(predictions, references, shared):
    metric, stats = _ours(predictions, references, shared)
    return metric.corpus_score(stats), metric.item_scores(stats).tolist()


FIGURES = {
    "corpus": (package_corpus, ours_corpus,
               "crystalbleu corpus_bleu vs crystal_bleu statistics + corpus score"),
    "sentence": (package_sentences, ours_sentences,
                 "crystalbleu sentence_bleu of every pair vs crystal_bleu statistics + item "
                 "scores"),
    "both": (package_both, ours_both,
             "the sum of the package's two calls (corpus_bleu, then sentence_bleu of every "
             "pair) vs crystal_bleu's one statistics call giving both"),
}


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
    ignoring = dict.fromkeys(shared)
    print(f"{n} pairs, {tokens / (2 * n):.0f} whitespace tokens per snippet, k = {len(shared)}; "
          f"{args.repeats} interleaved runs; {load()}")
    warnings.simplefilter("ignore")
    record = Record("crystal_bleu", {"pairs": n, "k": len(shared), "repeats": args.repeats})
    print("| figure | package | crystal_bleu | ratio (best) | ratio (median) |\n"
          "|---|---:|---:|---:|---:|")
    same = True
    for figure, (theirs, ours, compares) in FIGURES.items():
        timed = interleaved({
            "package": lambda f=theirs: f(predictions, references, ignoring),
            "crystal_bleu": lambda f=ours: f(predictions, references, shared),
        }, args.repeats)
        peer, mine = timed["package"], timed["crystal_bleu"]
        same = same and peer.result == mine.result  # every number to the last bit
        record.ratio(figure, peer, mine, compares, n, "pair")
        print(ratio_row(figure, peer.best, mine.best, n) + f" {peer.median / mine.median:.1f}x |",
              flush=True)
    print(f"every score equal to the package's to the last bit: {same}; {load()}")
    split = tokenizer("code", "python")
    start = time.perf_counter()
    for text in predictions + references:
        split(text)
    spent = time.perf_counter() - start
    print(f"(tokenize='code', tree-sitter tokens, not in the timings: "
          f"{1e3 * spent / (2 * n):.3f} ms/snippet)")
    if not same:
        raise SystemExit("crystal_bleu and the crystalbleu package disagree")
    record.write()


if __name__ == "__main__":
    main()
