"""RUBY's tree level: our exact tree edit distance against the pure-Python ``apted`` package.

Also times RUBY end to end at the tree and graph levels on the same pairs (no peer).

Pairs are standard-library functions and mutated copies (benchmarks/corpus.py) whose
tree-sitter ASTs have about 200 nodes. Both libraries get the same labelled trees, and their
distances are checked to be equal. apted needs about a second per pair, so it runs on a
small subset (``--apted-pairs``); the ratio compares per-pair times.

    python benchmarks/ruby.py [--pairs 200] [--apted-pairs 5] [--repeat 3]
"""

from __future__ import annotations

import argparse
import ast
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from apted import APTED  # noqa: E402
from apted.helpers import Tree as AptedTree  # noqa: E402
from corpus import stdlib_pairs  # noqa: E402

from cgm_metrics.core import parse  # noqa: E402
from cgm_metrics.ruby import ruby_items, syntax_tree, tree_edit_distance  # noqa: E402
from cgm_metrics.ruby.ted import Tree, compiled  # noqa: E402


def apted_tree(tree: Tree) -> AptedTree:
    nodes = [AptedTree(label) for label in tree.labels]
    for parent, kids in enumerate(tree.children):
        nodes[parent].children = [nodes[k] for k in kids]
    return nodes[0]


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
        if low <= len(a) <= high and low <= len(b) <= high and parses(prediction):
            chosen.append((prediction, reference, a, b))
            if len(chosen) == n:
                break
    return chosen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=200)
    parser.add_argument("--apted-pairs", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=3, help="best of N runs of ours")
    parser.add_argument("--low", type=int, default=150)
    parser.add_argument("--high", type=int, default=250)
    args = parser.parse_args()

    pairs = function_pairs(args.pairs, args.low, args.high)
    sizes = [(len(a) + len(b)) / 2 for _, _, a, b in pairs]
    print(f"{len(pairs)} pairs, median {statistics.median(sizes):.0f} AST nodes per tree")

    start = time.perf_counter()
    tree_edit_distance(pairs[0][2], pairs[0][3])  # loads (or compiles) the kernel
    print(f"kernel ready in {time.perf_counter() - start:.2f} s (compiled: {compiled()})")

    ours_time = end_to_end = graph_time = float("inf")
    for _ in range(args.repeat):  # best of a few runs: the machine may be shared
        start = time.perf_counter()
        ours = [tree_edit_distance(a, b) for _, _, a, b in pairs]
        ours_time = min(ours_time, (time.perf_counter() - start) / len(pairs))
        start = time.perf_counter()
        _, levels = ruby_items(
            [p for p, _, _, _ in pairs], [[r] for _, r, _, _ in pairs], level="tree"
        )
        end_to_end = min(end_to_end, (time.perf_counter() - start) / len(pairs))
        assert set(levels) == {"tree"}
        start = time.perf_counter()
        _, levels = ruby_items(
            [p for p, _, _, _ in pairs], [[r] for _, r, _, _ in pairs], level="graph"
        )
        graph_time = min(graph_time, (time.perf_counter() - start) / len(pairs))
        assert set(levels) == {"graph"}

    subset = pairs[: args.apted_pairs]
    start = time.perf_counter()
    theirs = [APTED(apted_tree(a), apted_tree(b)).compute_edit_distance() for _, _, a, b in subset]
    apted_time = (time.perf_counter() - start) / len(subset)
    assert theirs == ours[: len(subset)], "distances differ from apted"

    print(
        f"ours  TED: {1 / ours_time:8.1f} pairs/s ({1000 * ours_time:.2f} ms/pair, "
        f"{len(pairs)} pairs, best of {args.repeat})"
    )
    print(f"ours  TRS end to end (parse + tree + TED): {1 / end_to_end:8.1f} pairs/s")
    print(f"ours  GRS end to end (parse + graph + GED): {1 / graph_time:7.1f} pairs/s")
    print(
        f"apted TED: {1 / apted_time:8.2f} pairs/s ({1000 * apted_time:.0f} ms/pair, "
        f"{len(subset)} pairs, same distances)"
    )
    print(f"ratio: ours is {apted_time / ours_time:.0f}x faster than apted")


if __name__ == "__main__":
    main()
