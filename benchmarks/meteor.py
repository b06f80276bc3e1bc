"""METEOR against nltk's own setup (its WordNet reader and Porter stemmer), in one run.

    python benchmarks/meteor.py [--repeat 3]

Times the WordNet load (nltk's ``WordNetCorpusReader`` against the reader METEOR uses) and
METEOR on worst-case inputs of ``benchmarks/worst_case.py`` and on English-heavy code, checks
that every value is equal, and prints the ratios. Both sides run in this process on the same
database; each call is timed whole on both sides (tokenizing, building the stemmer or the
metric). Every timing runs both sides ``--repeat`` (>= 3) times, interleaved; the best run
counts and the median is recorded too; every run of the script appends its figures to
benchmarks/results/meteor.json.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import sys
import warnings
from pathlib import Path

from nltk.corpus.reader.wordnet import WordNetCorpusReader
from nltk.stem.porter import PorterStemmer
from nltk.translate.meteor_score import single_meteor_score

from cgm_metrics.maths.classic import wordnet as wn

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchtools import Record, interleaved, load  # noqa: E402

from cgm_metrics.core.tokenizers import code_tokens
from cgm_metrics.maths.classic.meteor import MeteorMetric

_spec = importlib.util.spec_from_file_location(
    "worst_case", Path(__file__).resolve().parent / "worst_case.py")
worst_case = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(worst_case)


def english_code(n_chars: int, seed: int) -> str:
    """Code whose identifiers are English words with many WordNet senses."""
    rng = random.Random(seed)
    words = ["set", "run", "get", "take", "make", "put", "line", "point", "break", "check",
             "head", "order", "form", "turn", "place", "play", "call", "open", "close", "file",
             "read", "write", "value", "list", "object", "type", "block", "key", "map", "test"]
    return worst_case._fill(
        lambda i: f"{rng.choice(words)}_{i} = {rng.choice(words)}({rng.choice(words)})\n",
        n_chars)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="interleaved runs (>= 3)")
    args = parser.parse_args()
    record = Record("meteor", {"repeat": args.repeat, "chars": 5000})
    pointer = wn._locate()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        timed = interleaved({"nltk": lambda: WordNetCorpusReader(pointer, None),
                             "ours": lambda: wn._reader_class()(pointer, None)}, args.repeat)
    nltk_reader = timed["nltk"].result
    ratio = record.ratio("WordNet load", timed["nltk"], timed["ours"],
                         "nltk's WordNetCorpusReader vs the reader METEOR uses, same database")
    print(f"{load()}\nWordNet load: nltk {timed['nltk'].best:.2f} s, ours "
          f"{timed['ours'].best:.2f} s, {ratio:.1f}x")
    n = 5000
    flat = worst_case.flat_python(n)
    cases = [
        ("flat Python, 5,000 chars", worst_case.mutate(flat), [flat]),
        ("English identifiers, 5,000 chars", english_code(n, 1), [english_code(n, 2)]),
        ("8 references of 5,000 chars", worst_case.mutate(flat),
         [worst_case.mutate(worst_case.flat_python(n, s), s) for s in range(8)]),
        ("random unicode, 5,000 chars", worst_case.random_unicode(n, 1),
         [worst_case.random_unicode(n, 2)]),
    ]
    print("| case | nltk (s) | ours (s) | ratio |\n|---|---:|---:|---:|")
    for label, prediction, references in cases:
        def nltk_call(prediction=prediction, references=references):
            stemmer = PorterStemmer()
            hyp = code_tokens(prediction)
            return max(single_meteor_score(code_tokens(r), hyp, stemmer=stemmer,
                                           wordnet=nltk_reader) for r in references)

        timed = interleaved({
            "nltk": nltk_call,
            "ours": lambda p=prediction, r=references: MeteorMetric().compute([p], [r])["score"],
        }, args.repeat)
        assert timed["ours"].result == timed["nltk"].result, label
        ratio = record.ratio(label, timed["nltk"], timed["ours"],
                             "single_meteor_score (nltk's stemmer and WordNet reader, best "
                             "reference) vs MeteorMetric().compute, one item, built in the call")
        print(f"| {label} | {timed['nltk'].best:.2f} | {timed['ours'].best:.2f} | "
              f"{ratio:.1f}x |", flush=True)
    print(load())
    record.write()


if __name__ == "__main__":
    main()
