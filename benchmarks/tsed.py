"""tsed against the tsed package (TSED.Calculate): the same pairs, the same trees, the same scores.

    python benchmarks/tsed.py [--pairs 40] [--per-language 10] [--repeats 3]

Items: ``--pairs`` standard-library functions against mutated copies (Python) and
``--per-language`` pairs of each codebleu golden file (ten languages, tests/data). Both sides
run ``--repeats`` (>= 3) times on the same items, interleaved; the best run counts and the
median is recorded too (benchmarks/results/tsed.json). Every score must agree to
1e-12. The package parses, prints and re-reads the S-expression, then runs APTED in pure
Python; tsed reads the same trees and runs a compiled Zhang-Shasha programme. The first call
of a process loads the C library (timed separately). Prints
where tsed's time goes: parsing and reading the trees versus the tree edit distance.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import TSED

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from benchtools import Record, interleaved, load  # noqa: E402
from corpus import stdlib_pairs  # noqa: E402

from cgm_metrics.maths.tsed import sexp, sexp_tree, tsed, tsed_languages, tsed_similarity  # noqa: E402

GOLDEN = HERE.parent / "tests" / "data" / "codebleu"


def items(pairs: int, per_language: int) -> list[tuple[str, str, str]]:
    preds, refs = stdlib_pairs(pairs)
    result = [("python", p, r) for p, r in zip(preds, refs, strict=True)]
    rng = random.Random(0)
    for path in sorted(GOLDEN.glob("codebleu_public_*.jsonl")):
        lang = path.stem.removeprefix("codebleu_public_")
        records = [json.loads(line) for line in path.open(encoding="utf-8")]
        for record in rng.sample(records, min(per_language, len(records))):
            result.append((lang, record["predictions"][0], record["references"][0]))
    return result


def run_package(pairs):
    grammars = tsed_languages()
    return [TSED.Calculate(grammars[lang], a, b, 1.0, 0.8, 1.0) for lang, a, b in pairs]


def run_ours(pairs):
    return [tsed(a, b, lang) for lang, a, b in pairs]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=40)
    parser.add_argument("--per-language", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=3, help="interleaved runs (>= 3)")
    args = parser.parse_args()
    pairs = items(args.pairs, args.per_language)
    n = len(pairs)
    start = time.perf_counter()
    tsed("x = 1", "y = 2", "python")  # loads the compiled kernel
    warm = time.perf_counter() - start
    trees = [(sexp_tree(sexp(a, lang)), sexp_tree(sexp(b, lang))) for lang, a, b in pairs]
    nodes = sum(len(t1) + len(t2) for (t1, _), (t2, _) in trees) / (2 * n)
    print(f"{n} pairs ({args.pairs} standard-library functions, {args.per_language} per "
          f"golden file), {nodes:.0f} tree nodes per snippet on average; {args.repeats} "
          f"interleaved runs; {load()}")
    record = Record("tsed", {"pairs": n, "stdlib_pairs": args.pairs,
                             "per_language": args.per_language, "repeats": args.repeats,
                             "nodes_per_snippet": round(nodes)})
    timed = interleaved({"package": lambda: run_package(pairs), "ours": lambda: run_ours(pairs)},
                        args.repeats)
    theirs_time, theirs = timed["package"].best, timed["package"].result
    ours_time, ours = timed["ours"].best, timed["ours"].result
    worst = max(abs(a - b) for a, b in zip(ours, theirs, strict=True))
    exact = sum(a == b for a, b in zip(ours, theirs, strict=True))
    print(f"largest difference {worst:.1e}; {exact} of {n} scores equal to the last bit")
    print(f"package  {theirs_time:8.3f} s ({1e3 * theirs_time / n:.2f} ms/pair)")
    print(f"tsed     {ours_time:8.3f} s ({1e3 * ours_time / n:.2f} ms/pair); first call of the "
          f"process {1e3 * warm:.0f} ms")
    start = time.perf_counter()
    for lang, a, b in pairs:
        sexp_tree(sexp(a, lang))
        sexp_tree(sexp(b, lang))
    reading = time.perf_counter() - start
    start = time.perf_counter()
    for first, second in trees:
        tsed_similarity(first, second)
    distance = time.perf_counter() - start
    print(f"  where tsed's time goes: parse + read trees {1e3 * reading / n:.2f} ms/pair, "
          f"tree edit distance {1e3 * distance / n:.2f} ms/pair")
    if worst > 1e-12:
        raise SystemExit("tsed and the tsed package disagree")
    ratio = record.ratio("pairs", timed["package"], timed["ours"],
                         "TSED.Calculate of every pair vs our tsed() of every pair (both "
                         "parse, read the trees and compute the distance)", n, "pair")
    print(f"throughput ratio (tsed / package): {ratio:.1f}x (medians "
          f"{timed['package'].median / timed['ours'].median:.1f}x)")
    record.value("parse and read trees", 1e3 * reading / n, "ms/pair", "our parse and tree reading")
    record.value("distance", 1e3 * distance / n, "ms/pair", "our compiled tree edit distance")
    record.write()


if __name__ == "__main__":
    main()
