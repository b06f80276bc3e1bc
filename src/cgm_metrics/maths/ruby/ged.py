"""Bipartite graph edit distance (Riesen and Bunke, 2009): deterministic, polynomial, an upper bound.

Costs. Inserting or deleting a node or an edge costs 1. In program graphs (exact labels, the
graph level of RUBY) relabelling a node or an edge costs 2, a deletion plus an insertion:
then the distance of two graphs with no node or edge label in common is the sum of their
sizes, the normaliser of GRS, so GRS spans 0 to 1 as the definition's normaliser implies.
With unit relabelling, the sum of sizes is never reached: two graphs of the same shape
with no node label in common would still score about 0.75 (every node relabelled at 1, every
edge kept), at 2 they score about 0.5 (the shared shape counts, the relabelled nodes do not);
two one-line programs always share most of their shape. Statement graphs
(labels ``kind: tokens``) relabel at 1 across statement kinds and otherwise at the
normalised token Levenshtein distance of the two statements.

Exact graph edit distance is NP-hard, so the node assignment is found with one linear sum
assignment (Riesen and Bunke's square ``(n + m) x (n + m)`` problem, solved in its equivalent
``n x m`` form): substitutions cost their relabelling plus half the edit cost of the incident
edge multisets, each edge described by direction, label and the label of its other end;
deletions and insertions cost 1 plus half the degree. The edit path that this assignment
induces is then costed exactly (nodes and edges). The result is the cost of a valid edit
path, hence an upper bound on the true distance, never below it.
"""

from __future__ import annotations

from collections import Counter
from functools import cache

import numpy as np
from rapidfuzz.distance import Levenshtein
from rapidfuzz.process import cdist

from .pdg import ProgramGraph


@cache
def _compiled_assignment():
    """The C library's assignment (``csrc/lsap.c``), or None where the library is not built."""
    from ...base import native

    library = native.library()
    if library is None:
        return None
    import ctypes

    kernel = library.cgm_linear_sum_assignment
    kernel.restype = ctypes.c_int
    kernel.argtypes = [ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p,
                       ctypes.c_void_p]
    return kernel


def linear_sum_assignment(cost: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The minimum-cost assignment of a 2-D cost matrix: ``(rows, cols)``, rows ascending,
    the same pairs as ``scipy.optimize.linear_sum_assignment`` (the same algorithm and tie
    rules, compiled in ``csrc/lsap.c``; scipy itself, imported here, where the C library is
    not built). Importing scipy.optimize costs about 0.3 s, more than a comparison of 100
    items with RUBY."""
    kernel = _compiled_assignment()
    if kernel is None:
        from scipy.optimize import linear_sum_assignment as scipy_assignment

        rows, cols = scipy_assignment(cost)
        return rows.astype(np.int64), cols.astype(np.int64)
    matrix = np.ascontiguousarray(cost, dtype=np.float64)
    if matrix.ndim != 2:
        raise ValueError(f"the cost matrix must be 2-D, got shape {matrix.shape}")
    size = min(matrix.shape)
    rows = np.empty(size, dtype=np.int64)
    cols = np.empty(size, dtype=np.int64)
    status = kernel(matrix.ctypes.data, matrix.shape[0], matrix.shape[1], rows.ctypes.data,
                    cols.ctypes.data)
    if status == -1:
        raise MemoryError("no memory for the assignment of a cost matrix of shape "
                          f"{matrix.shape}")
    if status == -2:
        raise ValueError("the cost matrix contains invalid numeric entries (NaN or -inf)")
    if status == -3:
        raise ValueError("the cost matrix is infeasible (no assignment of finite cost)")
    return rows, cols


def _incidence(graph: ProgramGraph) -> tuple[dict, np.ndarray, np.ndarray, np.ndarray]:
    """Per node, its incident edges as (direction, edge label, label of the other end), one
    column per count level (a node with two equal edges has a column for the 1st and one for
    the 2nd), so that the number of columns two nodes share is the size of their multiset
    intersection: ``(column of each key, node of each entry, column of each entry, degree)``
    (degrees count edges at both ends, a self-loop once). Built once per graph (a reference
    serves every system), kept on the graph."""
    cached = graph.__dict__.get("_incidence")
    if cached is not None:
        return cached
    labels = graph.labels
    ends = Counter([end for source, target, label in graph.edges for end in (
        ((source, "self", label, ""),) if source == target else
        ((source, "out", label, labels[target]), (target, "in", label, labels[source])))])
    columns: dict[tuple[tuple[str, str, str], int], int] = {}
    rows: list[int] = []
    cols: list[int] = []
    for (node, direction, label, other), count in ends.items():
        key = (direction, label, other)
        for level in range(count):  # the 1st, 2nd, ... copy of the same incident edge
            rows.append(node)
            cols.append(columns.setdefault((key, level), len(columns)))
    degree = np.bincount(np.asarray(rows, dtype=np.int64), minlength=len(labels)).astype(
        np.float64)
    built = (columns, np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64), degree)
    graph.__dict__["_incidence"] = built  # a frozen dataclass: its fields stay untouched
    return built


def _shared_edges(graph1: ProgramGraph, graph2: ProgramGraph) -> np.ndarray:
    """``[n1, n2]``: for each pair of nodes, the size of the intersection of their incident
    edge multisets (the number of columns of :func:`_incidence` they share)."""
    columns1, rows1, cols1, _ = _incidence(graph1)
    columns2, rows2, cols2, _ = _incidence(graph2)
    n, m = len(graph1.labels), len(graph2.labels)
    if not len(rows1) or not len(rows2):
        return np.zeros((n, m), dtype=np.float64)
    # graph2's columns in graph1's numbering (-1: a column graph1 does not have)
    to1 = np.fromiter((columns1.get(key, -1) for key in columns2), dtype=np.int64,
                      count=len(columns2))
    mapped = to1[cols2]
    keep = mapped >= 0
    nodes2, shared = rows2[keep], mapped[keep]
    order = np.argsort(shared, kind="stable")
    nodes2 = nodes2[order]
    per_column = np.bincount(shared, minlength=len(columns1))
    first = np.cumsum(per_column) - per_column  # where each column's graph2 nodes start
    # every (graph1 entry, graph2 entry) pair of one column: the join of the two lists
    count = per_column[cols1]
    total = int(count.sum())
    if total == 0:
        return np.zeros((n, m), dtype=np.float64)
    ends = np.cumsum(count)
    position = np.arange(total, dtype=np.int64) + np.repeat(first[cols1] - (ends - count), count)
    pairs = np.repeat(rows1, count) * m + nodes2[position]
    return np.bincount(pairs, minlength=n * m).reshape(n, m).astype(np.float64)


RELABEL = 2.0  # relabelling cost of nodes and edges in program graphs (exact labels)


def _relabel(graph1: ProgramGraph, graph2: ProgramGraph) -> float:
    """Program graphs (exact labels) price a relabelling as a deletion plus an insertion, so
    their distance ranges up to the sum of the sizes; statement graphs price it at most 1."""
    return RELABEL if graph1.exact_labels and graph2.exact_labels else 1.0


def _kind_and_tokens(label: str) -> tuple[str, list[str]]:
    kind, _, text = label.partition(": ")
    return kind, text.split()


def relabel_costs(
    labels1: tuple[str, ...], labels2: tuple[str, ...], exact: bool = False
) -> np.ndarray:
    """Node relabelling costs. ``exact``: 0 for equal labels, else 1. Otherwise the labels are
    ``kind: tokens`` (statement graphs): 1 across kinds, else normalised token distance."""
    codes: dict[str, int] = {}
    if exact:
        first = np.array([codes.setdefault(x, len(codes)) for x in labels1], dtype=np.int64)
        second = np.array([codes.setdefault(x, len(codes)) for x in labels2], dtype=np.int64)
        return (first[:, None] != second[None, :]).astype(np.float64)
    parts1 = [_kind_and_tokens(label) for label in labels1]
    parts2 = [_kind_and_tokens(label) for label in labels2]
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


def _multiset_edit(a: Counter, b: Counter, relabel: float = 1.0) -> float:
    """Edit distance between two multisets of labels: insertions and deletions cost 1,
    relabelling ``relabel`` (at most 2, a deletion plus an insertion)."""
    common = sum((a & b).values())
    size_a, size_b = sum(a.values()) - common, sum(b.values()) - common
    return relabel * min(size_a, size_b) + abs(size_a - size_b)


def _pair_labels(graph: ProgramGraph, mapping: np.ndarray | None) -> dict:
    grouped: dict[tuple[int, int], Counter] = {}
    for source, target, label in graph.edges:
        if mapping is not None:
            source, target = int(mapping[source]), int(mapping[target])
        grouped.setdefault((source, target), Counter())[label] += 1
    return grouped


def node_assignment(graph1: ProgramGraph, graph2: ProgramGraph) -> np.ndarray:
    """For each node of ``graph1``, its image in ``graph2`` or -1 (deleted).

    Riesen and Bunke's assignment: substituting ``u`` by ``v`` is estimated as their relabel
    cost plus half the edit cost of their incident edge multisets (each edge has two ends),
    here with each edge described by its direction, its label and the label of its other end;
    deleting (inserting) a node as 1 plus half its degree. The square ``(n + m)`` matrix of
    Riesen and Bunke is solved as the equivalent ``n x m`` problem on the saving of each
    substitution over a deletion plus an insertion (a pair that saves nothing is left
    unmatched), which needs a quarter of the memory.
    """
    n = len(graph1.labels)
    exact = graph1.exact_labels and graph2.exact_labels
    relabel = _relabel(graph1, graph2)
    substitution = relabel * relabel_costs(graph1.labels, graph2.labels, exact)
    degree1 = _incidence(graph1)[3]
    degree2 = _incidence(graph2)[3]
    common = _shared_edges(graph1, graph2)
    # edit of the two incident edge multisets (relabelling an edge costs ``relabel``), halved
    only1 = degree1[:, None] - common
    only2 = degree2[None, :] - common
    substitution += 0.5 * (relabel * np.minimum(only1, only2) + np.abs(only1 - only2))
    saving = substitution - (1.0 + 0.5 * degree1)[:, None] - (1.0 + 0.5 * degree2)[None, :]
    rows, cols = linear_sum_assignment(np.minimum(saving, 0.0))
    mapping = np.full(n, -1, dtype=np.int64)
    keep = saving[rows, cols] < 0
    mapping[rows[keep]] = cols[keep]
    return mapping


def edit_path_cost(graph1: ProgramGraph, graph2: ProgramGraph, mapping: np.ndarray) -> float:
    """The exact cost of the edit path induced by a node mapping (-1 = deleted)."""
    m = len(graph2.labels)
    image = mapping.tolist()  # plain ints: read once per edge below
    kept = [u for u, v in enumerate(image) if v >= 0]
    cost = float((len(image) - len(kept)) + (m - len(kept)))  # deleted and inserted nodes
    if kept:
        exact = graph1.exact_labels and graph2.exact_labels
        labels1, labels2 = graph1.labels, graph2.labels
        if exact:
            cost += RELABEL * float(sum(labels1[u] != labels2[image[u]] for u in kept))
        else:
            first = tuple(labels1[u] for u in kept)
            second = tuple(labels2[image[u]] for u in kept)
            cost += float(np.trace(relabel_costs(first, second)))
    kept1 = ProgramGraph(
        graph1.labels,
        tuple(e for e in graph1.edges if image[e[0]] >= 0 and image[e[1]] >= 0),
        graph1.exact_labels,
    )
    cost += len(graph1.edges) - len(kept1.edges)  # edges lost with a deleted endpoint
    hit = bytearray(m)
    for u in kept:
        hit[image[u]] = 1
    kept2 = tuple(e for e in graph2.edges if hit[e[0]] and hit[e[1]])
    cost += len(graph2.edges) - len(kept2)  # edges added with an inserted endpoint
    relabel = _relabel(graph1, graph2)
    if relabel == 2.0:  # relabelling = deletion + insertion: the symmetric difference
        moved = Counter([(image[a], image[b], label) for a, b, label in kept1.edges])
        common = sum((moved & Counter(kept2)).values())
        return cost + len(kept1.edges) + len(kept2) - 2 * common
    pairs1 = _pair_labels(kept1, mapping)
    pairs2 = _pair_labels(ProgramGraph(graph2.labels, kept2, graph2.exact_labels), None)
    for key in list(pairs1) + [k for k in pairs2 if k not in pairs1]:
        cost += _multiset_edit(pairs1.get(key, Counter()), pairs2.get(key, Counter()), relabel)
    return cost


def graph_edit_distance(graph1: ProgramGraph, graph2: ProgramGraph) -> float:
    """Bipartite (Riesen-Bunke) GED: an upper bound on the exact edit distance.

    >>> from cgm_metrics.maths.ruby.pdg import ProgramGraph
    >>> a = ProgramGraph(("assignment: x = 1", "call: print ( x )"), ((0, 1, "data"),), False)
    >>> b = ProgramGraph(("assignment: x = 2", "call: print ( x )"), ((0, 1, "data"),), False)
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
