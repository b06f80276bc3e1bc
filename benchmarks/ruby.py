"""RUBY's tree level against the pure-Python ``apted`` package, on the same pairs, run alike.

    python benchmarks/ruby.py [--pairs 20] [--repeats 3] [--python-pairs 3]

Pairs are standard-library functions and mutated copies (benchmarks/corpus.py) whose
tree-sitter ASTs have ``--low`` to ``--high`` nodes (about 190 on average). Every figure runs
both sides on the same pairs, ``--repeats`` (>= 3) times interleaved, best run counts (the
median is recorded too; every run appends its figures to benchmarks/results/ruby.json):

1. tree edit distance: both start from the same plain trees (labels and child lists) and
   build their own structure inside the timing (our ``Tree`` and its post-order arrays;
   apted's ``Tree`` nodes), then compute the distance; the distances are checked to be equal.
2. RUBY at the tree level end to end (parse, syntax tree, distance, TRS): ours
   (``ruby_items(level="tree")``) against the same pipeline with apted computing the
   distance (same parser and trees, so the difference is the distance).
3. RUBY at the graph level end to end: no package computes this graph distance, so it has no
   peer; printed for the record.
4. Our distance kernel run as plain Python (what runs where the C library was not built) against
   the compiled one, on the first ``--python-pairs`` pairs.
"""

from __future__ import annotations

import argparse
import ast
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from apted import APTED, Config  # noqa: E402
from apted.helpers import Tree as AptedTree  # noqa: E402
from benchtools import Record, interleaved, load  # noqa: E402
from corpus import stdlib_pairs  # noqa: E402

from cgm_metrics.core.parsing import parse  # noqa: E402
from cgm_metrics.maths.ruby import ruby_items, syntax_tree, tree_edit_distance  # noqa: E402
from cgm_metrics.maths.ruby import ted as ted_module  # noqa: E402
from cgm_metrics.maths.ruby.ted import RELABEL, Tree, compiled  # noqa: E402


class _Relabel(Config):
    """apted's default cost model with a relabelling at ``cost`` (RUBY's TRS relabels at 2)."""

    def __init__(self, cost: int) -> None:
        self.cost = cost

    def rename(self, node1, node2) -> int:
        return 0 if node1.name == node2.name else self.cost


def apted_tree(labels, children) -> AptedTree:
    nodes = [AptedTree(label) for label in labels]
    for parent, kids in enumerate(children):
        nodes[parent].children = [nodes[k] for k in kids]
    return nodes[0]


def apted_distance(first: tuple, second: tuple, relabel: int = 1) -> int:
    """apted's distance from plain (labels, children) trees, its own trees built here."""
    return int(APTED(apted_tree(*first), apted_tree(*second),
                     _Relabel(relabel)).compute_edit_distance())


def our_distance(first: tuple, second: tuple, relabel: int = 1) -> int:
    """Our distance from plain (labels, children) trees, our Tree built here."""
    return tree_edit_distance(Tree(*first), Tree(*second), relabel)


def parses(code: str) -> bool:
    """Mutated copies that Python rejects (a deleted line) are scored as text by RUBY."""
    try:
        ast.parse(code)
    except SyntaxError:
        return False
    return not parse(code, "python").has_error


def function_pairs(n: int, low: int, high: int):
    """Up to ``n`` (prediction, reference) pairs whose trees have ``low..high`` nodes."""
    predictions, references = stdlib_pairs(12 * n)
    chosen = []
    for prediction, reference in zip(predictions, references, strict=True):
        a = syntax_tree(parse(prediction, "python"))
        b = syntax_tree(parse(reference, "python"))
        if low <= len(a) <= high and low <= len(b) <= high and parses(prediction) \
                and parses(reference):
            chosen.append((prediction, reference, (a.labels, a.children), (b.labels, b.children)))
            if len(chosen) == n:
                break
    return chosen


def trs_with_apted(predictions, references) -> list[float]:
    """RUBY's tree level with apted computing the distance (relabelling at 2, as TRS)."""
    scores = []
    for prediction, reference in zip(predictions, references, strict=True):
        ast.parse(prediction)  # RUBY's own check that Python accepts the code, as ours does
        ast.parse(reference)
        ast.parse(prediction)  # RUBY's own check that Python accepts the code, as ours does
        ast.parse(reference)
        a = syntax_tree(parse(prediction, "python"))
        b = syntax_tree(parse(reference, "python"))
        distance = apted_distance((a.labels, a.children), (b.labels, b.children), RELABEL)
        scores.append(1.0 - distance / (len(a) + len(b)))
    return scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--python-pairs", type=int, default=3)
    parser.add_argument("--low", type=int, default=150)
    parser.add_argument("--high", type=int, default=250)
    args = parser.parse_args()

    pairs = function_pairs(args.pairs, args.low, args.high)
    n = len(pairs)
    sizes = [(len(a[0]) + len(b[0])) / 2 for _, _, a, b in pairs]
    predictions = [p for p, _, _, _ in pairs]
    references = [r for _, r, _, _ in pairs]
    print(f"{n} pairs, median {statistics.median(sizes):.0f} AST nodes per tree; best of "
          f"{args.repeats} interleaved runs; {load()}")
    first = pairs[0]
    our_distance(first[2], first[3])  # loads (or compiles) the kernel, outside the timings
    print(f"our kernel compiled (C library): {compiled()}")
    record = Record("ruby", {"pairs": n, "repeats": args.repeats,
                             "python_pairs": args.python_pairs, "low": args.low,
                             "high": args.high, "median_nodes": statistics.median(sizes),
                             "compiled": compiled()})

    rows = []
    timed = interleaved({
        "apted": lambda: [apted_distance(a, b) for _, _, a, b in pairs],
        "ours": lambda: [our_distance(a, b) for _, _, a, b in pairs],
    }, args.repeats)
    assert timed["apted"].result == timed["ours"].result, "distances differ from apted"
    record.ratio("tree edit distance", timed["apted"], timed["ours"],
                 "apted's APTED vs our tree_edit_distance, both building their trees from the "
                 "same plain trees", n, "pair")
    rows.append(("tree edit distance (same distances)", "apted", timed["apted"].best,
                 timed["ours"].best))

    timed = interleaved({
        "apted": lambda: trs_with_apted(predictions, references),
        "ours": lambda: ruby_items(predictions, [[r] for r in references], level="tree"),
    }, args.repeats)
    ours_scores, levels = timed["ours"].result
    assert set(levels) == {"tree"}
    assert max(abs(x - y) for x, y in zip(ours_scores, timed["apted"].result,
                                          strict=True)) < 1e-12
    record.ratio("RUBY tree level", timed["apted"], timed["ours"],
                 "RUBY's tree level end to end (parse, syntax tree, distance): the same "
                 "pipeline with apted computing the distance vs ruby_items(level='tree')",
                 n, "pair")
    rows.append(("RUBY tree level end to end (same scores)", "the same with apted",
                 timed["apted"].best, timed["ours"].best))

    print("| figure | peer | peer pairs/s | ours pairs/s | ratio |\n|---|---|---:|---:|---:|")
    for figure, peer, peer_time, our_time in rows:
        print(f"| {figure} | {peer} | {n / peer_time:.2f} | {n / our_time:.1f} | "
              f"{peer_time / our_time:.0f}x |", flush=True)
        record.value(f"{figure.split(' (')[0]} pairs/s", n / our_time, "pairs/s", "ours")
        record.value(f"{figure.split(' (')[0]} peer pairs/s", n / peer_time, "pairs/s", peer)

    timed = interleaved({"graph": lambda: ruby_items(predictions, [[r] for r in references],
                                                     level="graph")}, args.repeats)
    assert set(timed["graph"].result[1]) == {"graph"}
    print(f"| RUBY graph level end to end | none computes this graph distance | - | "
          f"{n / timed['graph'].best:.1f} | - |")
    record.value("RUBY graph level pairs/s", n / timed["graph"].best, "pairs/s",
                 "ruby_items(level='graph') end to end, best run (no peer)")

    subset = pairs[: args.python_pairs]
    timed = interleaved({
        "compiled": lambda: [our_distance(a, b) for _, _, a, b in subset],
        "python": lambda: _python_kernel([(a, b) for _, _, a, b in subset]),
    }, args.repeats)
    assert timed["python"].result == timed["compiled"].result
    ratio = record.ratio("plain Python kernel", timed["python"], timed["compiled"],
                         "our distance kernel as plain Python (no C library) vs compiled, "
                         f"first {len(subset)} pairs", len(subset), "pair")
    print(f"\nour tree edit distance as plain Python (without the C library) on {len(subset)} pairs: "
          f"{len(subset) / timed['python'].best:.2f} pairs/s, {ratio:.0f}x slower than compiled")
    print(load())
    record.write()


def _python_kernel(pairs) -> list[int]:
    """Our distance with the kernel forced to its plain Python form."""
    original = ted_module._kernel
    ted_module._kernel = lambda: ted_module._zhang_shasha  # type: ignore[assignment]
    try:
        return [our_distance(a, b) for a, b in pairs]
    finally:
        ted_module._kernel = original


if __name__ == "__main__":
    main()
