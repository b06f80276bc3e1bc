"""Bipartite graph edit distance (Riesen and Bunke, 2009): deterministic, polynomial, an upper bound.

Costs: inserting or deleting a node or an edge costs 1; relabelling an edge costs 1;
relabelling a node costs 1 when the statement kinds differ and otherwise the normalised token
Levenshtein distance of the two statements (0 for the same tokens, at most 1), so a statement
with one changed token is not priced like an unrelated one. Exact graph edit distance is NP-hard, so the node assignment is found with one
linear sum assignment over the square ``(n + m) x (n + m)`` matrix of Riesen and Bunke:
substitutions (label cost plus half the cost of matching the incident edge multisets, each
edge being shared by two nodes), deletions and insertions on diagonals. The edit path that
this assignment induces is then costed exactly (nodes and edges). The result is the cost of
a valid edit path, hence an upper bound on the true distance, never below it.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
from rapidfuzz.distance import Levenshtein
from rapidfuzz.process import cdist
from scipy.optimize import linear_sum_assignment

from .pdg import ProgramGraph

_FORBIDDEN = 1e9  # finite: scipy rejects a matrix whose only assignments are infinite


def _incident(graph: ProgramGraph) -> tuple[np.ndarray, list[tuple[str, str]]]:
    """Per node, counts of its edges by (direction, label): the local edge multiset."""
    labels = sorted({edge[2] for edge in graph.edges})
    keys = [(d, label) for label in labels for d in ("in", "out", "self")]
    columns = {key: k for k, key in enumerate(keys)}
    counts = np.zeros((len(graph.labels), len(keys)), dtype=np.float64)
    for source, target, label in graph.edges:
        if source == target:
            counts[source, columns[("self", label)]] += 1
        else:
            counts[source, columns[("out", label)]] += 1
            counts[target, columns[("in", label)]] += 1
    return counts, keys


def _kind_and_tokens(label: str) -> tuple[str, list[str]]:
    kind, _, text = label.partition(": ")
    return kind, text.split()


def relabel_costs(labels1: tuple[str, ...], labels2: tuple[str, ...]) -> np.ndarray:
    """Node relabelling costs: 1 across statement kinds, else normalised token distance."""
    parts1 = [_kind_and_tokens(label) for label in labels1]
    parts2 = [_kind_and_tokens(label) for label in labels2]
    codes: dict[str, int] = {}
    kinds1 = np.array([codes.setdefault(k, len(codes)) for k, _ in parts1], dtype=np.int64)
    kinds2 = np.array([codes.setdefault(k, len(codes)) for k, _ in parts2], dtype=np.int64)
    distance = cdist(
        [t for _, t in parts1],
        [t for _, t in parts2],
        scorer=Levenshtein.normalized_distance,
        dtype=np.float64,
        workers=1,
    )
    return np.where(kinds1[:, None] != kinds2[None, :], 1.0, distance)


def _multiset_edit(a: Counter, b: Counter) -> int:
    """Unit-cost edit distance between two multisets of labels."""
    common = sum((a & b).values())
    return max(sum(a.values()), sum(b.values())) - common


def _pair_labels(graph: ProgramGraph, mapping: np.ndarray | None) -> dict:
    grouped: dict[tuple[int, int], Counter] = {}
    for source, target, label in graph.edges:
        if mapping is not None:
            source, target = int(mapping[source]), int(mapping[target])
        grouped.setdefault((source, target), Counter())[label] += 1
    return grouped


def node_assignment(graph1: ProgramGraph, graph2: ProgramGraph) -> np.ndarray:
    """For each node of ``graph1``, its image in ``graph2`` or -1 (deleted)."""
    n, m = len(graph1.labels), len(graph2.labels)
    counts1, keys1 = _incident(graph1)
    counts2, keys2 = _incident(graph2)
    keys = list(dict.fromkeys(keys1 + keys2))  # one column per (direction, label) in both
    local1 = np.zeros((n, len(keys)))
    local2 = np.zeros((m, len(keys)))
    local1[:, [keys.index(k) for k in keys1]] = counts1
    local2[:, [keys.index(k) for k in keys2]] = counts2
    degree1, degree2 = local1.sum(axis=1), local2.sum(axis=1)
    substitution = relabel_costs(graph1.labels, graph2.labels)
    # unit-cost edit of two edge multisets: max(|a|, |b|) - |a & b|, halved (edges are shared)
    common = np.minimum(local1[:, None, :], local2[None, :, :]).sum(axis=2)
    substitution += 0.5 * (np.maximum(degree1[:, None], degree2[None, :]) - common)
    cost = np.zeros((n + m, n + m), dtype=np.float64)
    cost[:n, :m] = substitution
    cost[:n, m:] = _FORBIDDEN
    cost[np.arange(n), m + np.arange(n)] = 1.0 + 0.5 * degree1
    cost[n:, :m] = _FORBIDDEN
    cost[n + np.arange(m), np.arange(m)] = 1.0 + 0.5 * degree2
    rows, cols = linear_sum_assignment(cost)
    mapping = np.full(n, -1, dtype=np.int64)
    for row, col in zip(rows, cols, strict=True):
        if row < n and col < m:
            mapping[row] = col
    return mapping


def edit_path_cost(graph1: ProgramGraph, graph2: ProgramGraph, mapping: np.ndarray) -> float:
    """The exact cost of the edit path induced by a node mapping (-1 = deleted)."""
    m = len(graph2.labels)
    mapped = mapping >= 0
    images = mapping[mapped]
    cost = float(np.sum(~mapped) + (m - len(images)))  # deleted and inserted nodes
    kept = np.flatnonzero(mapped)
    if len(kept):
        relabel = relabel_costs(
            tuple(graph1.labels[u] for u in kept), tuple(graph2.labels[mapping[u]] for u in kept)
        )
        cost += float(np.trace(relabel))
    kept1 = ProgramGraph(
        graph1.labels,
        tuple(e for e in graph1.edges if mapping[e[0]] >= 0 and mapping[e[1]] >= 0),
    )
    cost += len(graph1.edges) - len(kept1.edges)  # edges lost with a deleted endpoint
    hit = np.zeros(m, dtype=bool)
    hit[images] = True
    kept2 = tuple(e for e in graph2.edges if hit[e[0]] and hit[e[1]])
    cost += len(graph2.edges) - len(kept2)  # edges added with an inserted endpoint
    pairs1 = _pair_labels(kept1, mapping)
    pairs2 = _pair_labels(ProgramGraph(graph2.labels, kept2), None)
    for key in list(pairs1) + [k for k in pairs2 if k not in pairs1]:
        cost += _multiset_edit(pairs1.get(key, Counter()), pairs2.get(key, Counter()))
    return cost


def graph_edit_distance(graph1: ProgramGraph, graph2: ProgramGraph) -> float:
    """Bipartite (Riesen-Bunke) GED: an upper bound on the exact edit distance.

    >>> from cgm_metrics.ruby.pdg import ProgramGraph
    >>> a = ProgramGraph(("assignment: x = 1", "call: print ( x )"), ((0, 1, "data"),))
    >>> b = ProgramGraph(("assignment: x = 2", "call: print ( x )"), ((0, 1, "data"),))
    >>> round(graph_edit_distance(a, b), 4)
    0.3333
    """
    if not graph1.labels or not graph2.labels:
        return float(graph1.size + graph2.size)
    return edit_path_cost(graph1, graph2, node_assignment(graph1, graph2))


def graph_similarity(graph1: ProgramGraph, graph2: ProgramGraph) -> float:
    """GRS = 1 - GED / (|V1| + |E1| + |V2| + |E2|); 1.0 for two empty graphs."""
    total = graph1.size + graph2.size
    if total == 0:
        return 1.0
    return max(0.0, 1.0 - graph_edit_distance(graph1, graph2) / total)
