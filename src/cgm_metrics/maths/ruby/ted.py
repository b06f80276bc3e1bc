"""Exact unit-cost tree edit distance (Zhang and Shasha, 1989), fast and without recursion.

Trees are ordered and labelled; deleting or inserting a node costs 1, relabelling costs 1
(the classical unit-cost distance, as zss and apted) or a given integer; RUBY's TRS relabels at
2, a deletion plus an insertion (:func:`tree_similarity`); keeping a node with its label
costs 0. Other costs per operation (TSED's deletion 1.0, insertion 0.8, rename 1.0) run the
same programme in floating point. The dynamic programme runs over the key roots of both
trees in post-order. Its work is ``cells(T1) * cells(T2)``, where ``cells(T)`` is the sum of
the sizes of the key-root subtrees (:func:`decomposition_cells`). The left-path decomposition
costs ``O(n^2)`` cells on a right comb, so each tree pair is run on whichever of the two
mirror orientations (left paths or right paths) needs fewer cells; the distance is the same,
because mirroring both trees maps edit scripts one to one.

The kernel is compiled C (``csrc/ted.c``, built at install time into the project's library,
``cgm_metrics.base.native``) and runs as plain Python where the library was not built, with
identical results.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

RELABEL = 2  # TRS prices a relabelling as a deletion plus an insertion (tree_similarity)


@dataclass(frozen=True)
class Tree:
    """An ordered labelled tree: node 0 is the root, nodes in pre-order.

    ``children[k]`` lists the children of node ``k`` left to right.
    """

    labels: tuple[str, ...]
    children: tuple[tuple[int, ...], ...]

    def __len__(self) -> int:
        return len(self.labels)

    @cached_property
    def orientations(self) -> tuple[_Orientation, _Orientation]:
        """Post-order arrays of the tree and of its mirror image (computed once)."""
        return _orientations(self)

    @staticmethod
    def from_nested(nested: object) -> Tree:
        """Build from ``(label, [child, ...])`` pairs (a bare string is a leaf), iteratively."""
        labels: list[str] = []
        children: list[list[int]] = []
        stack: list[tuple[object, int]] = [(nested, -1)]
        while stack:
            item, parent = stack.pop()
            if isinstance(item, str):
                label, kids = item, []
            else:
                label, kids = item  # type: ignore[misc]
            index = len(labels)
            labels.append(str(label))
            children.append([])
            if parent >= 0:
                children[parent].append(index)
            for kid in reversed(list(kids)):
                stack.append((kid, index))
        return Tree(tuple(labels), tuple(tuple(c) for c in children))


@dataclass(frozen=True)
class _Orientation:
    order: np.ndarray  # pre-order index of each node, listed in post-order
    leftmost: np.ndarray  # post-order index of the leftmost leaf of each node's subtree
    keyroots: np.ndarray  # increasing post-order indices
    cells: int  # sum of the key-root subtree sizes: this tree's factor of the work


def _orientations(tree: Tree) -> tuple[_Orientation, _Orientation]:
    """Post-order arrays of the tree (left paths) and of its mirror image (right paths).

    A subtree is a contiguous run of post-order ending at its root, so with pre-order
    ``pre``, depth and size: ``post = pre - depth + size - 1`` (mirror: ``n - 1 - pre``) and
    the leftmost leaf is ``post - size + 1``. Key roots are the root and every node that is not
    its parent's first child (mirror: last child).
    """
    n = len(tree.labels)
    depth_list = [0] * n
    parent = [0] * n
    key_left = [True] * n  # key roots: all nodes but first children (mirror: last children)
    key_right = [True] * n
    for node, kids in enumerate(tree.children):
        if kids:
            below = depth_list[node] + 1
            for kid in kids:
                depth_list[kid] = below
                parent[kid] = node
            key_left[kids[0]] = False
            key_right[kids[-1]] = False
    size_list = [1] * n
    for node in range(n - 1, 0, -1):  # children come after their parent in pre-order
        size_list[parent[node]] += size_list[node]
    depth = np.array(depth_list, dtype=np.int64)
    size = np.array(size_list, dtype=np.int64)
    not_first = np.array(key_left, dtype=bool)
    not_last = np.array(key_right, dtype=bool)
    pre = np.arange(n, dtype=np.int64)
    result = []
    for post, keys in ((pre - depth + size - 1, not_first), (n - 1 - pre, not_last)):
        order = np.empty(n, dtype=np.int64)
        order[post] = pre
        leftmost = np.empty(n, dtype=np.int32)
        leftmost[post] = post - size + 1
        keyroots = np.sort(post[keys]).astype(np.int32)
        cells = int(np.sum(size[keys]))
        result.append(_Orientation(order, leftmost, keyroots, cells))
    return result[0], result[1]


def decomposition_cells(tree: Tree) -> int:
    """Cells of the cheaper orientation: the tree's share of the work of the programme."""
    if not len(tree):
        return 0
    return min(o.cells for o in tree.orientations)


def edit_cells(tree1: Tree, tree2: Tree) -> int:
    """The work of :func:`tree_edit_distance` on this pair (cells of the programme)."""
    if not len(tree1) or not len(tree2):
        return 0
    return min(
        a.cells * b.cells for a, b in zip(tree1.orientations, tree2.orientations, strict=True)
    )


def _edit_distance_dp(lab1, left1, keys1, lab2, left2, keys2, delete, insert, relabel, td, fd):  # noqa: C901, E501 - one loop
    """The programme over the key roots, into the given ``td``/``fd`` arrays.

    Deleting a node of the first tree costs ``delete``, inserting one of the second
    ``insert``, relabelling ``relabel``. Integer costs with int32 arrays (RUBY's unit and
    TRS distances) or float costs with float64 arrays (TSED's weights) both compile.
    """
    n1 = lab1.shape[0]
    n2 = lab2.shape[0]
    for ki in range(keys1.shape[0]):
        i = keys1[ki]
        li = left1[i]
        rows = i - li + 2
        for kj in range(keys2.shape[0]):
            j = keys2[kj]
            lj = left2[j]
            cols = j - lj + 2
            fd[0, 0] = 0
            for a in range(1, rows):
                fd[a, 0] = fd[a - 1, 0] + delete
            for b in range(1, cols):
                fd[0, b] = fd[0, b - 1] + insert
            for a in range(1, rows):
                x = li + a - 1
                lx = left1[x]
                on_path1 = lx == li
                label = lab1[x]
                for b in range(1, cols):
                    y = lj + b - 1
                    ly = left2[y]
                    best = fd[a - 1, b] + delete
                    inserted = fd[a, b - 1] + insert
                    if inserted < best:
                        best = inserted
                    if on_path1 and ly == lj:
                        match = fd[a - 1, b - 1] + (relabel if label != lab2[y] else 0)
                        if match < best:
                            best = match
                        fd[a, b] = best
                        td[x, y] = best
                    else:
                        match = fd[lx - li, ly - lj] + td[x, y]
                        if match < best:
                            best = match
                        fd[a, b] = best
    return td[n1 - 1, n2 - 1]


def _integral(*costs: object) -> bool:
    return all(isinstance(cost, (int, np.integer)) and not isinstance(cost, bool)
               for cost in costs)


def _run(dp, lab1, left1, keys1, lab2, left2, keys2, relabel, delete=1, insert=1):
    """Allocate the tables (int32 for integer costs, float64 otherwise) and run ``dp``."""
    integral = _integral(relabel, delete, insert)
    dtype = np.int32 if integral else np.float64
    n1, n2 = lab1.shape[0], lab2.shape[0]
    td = np.zeros((n1, n2), dtype=dtype)
    fd = np.zeros((n1 + 1, n2 + 1), dtype=dtype)
    if integral:
        return dp(lab1, left1, keys1, lab2, left2, keys2, int(delete), int(insert),
                  int(relabel), td, fd)
    return dp(lab1, left1, keys1, lab2, left2, keys2, float(delete), float(insert),
              float(relabel), td, fd)


def _zhang_shasha(lab1, left1, keys1, lab2, left2, keys2, relabel, delete=1, insert=1):
    """The programme as plain Python (where the C library is not built)."""
    return _run(_edit_distance_dp, lab1, left1, keys1, lab2, left2, keys2, relabel, delete,
                insert)


@lru_cache(maxsize=1)
def _kernel():
    """The compiled kernel (the project's C library), or the Python one."""
    from ...base import native

    library = native.library()
    if library is None:
        return _zhang_shasha
    import ctypes

    int_kernel = library.cgm_tree_edit_distance
    int_kernel.restype = ctypes.c_int64
    int_kernel.argtypes = [ctypes.c_void_p] * 3 + [ctypes.c_int64] * 2 + [ctypes.c_void_p] * 3 + [
        ctypes.c_int64] * 2 + [ctypes.c_int32]
    weighted_kernel = library.cgm_tree_edit_distance_weighted
    weighted_kernel.restype = ctypes.c_double
    weighted_kernel.argtypes = [ctypes.c_void_p] * 3 + [ctypes.c_int64] * 2 + [
        ctypes.c_void_p] * 3 + [ctypes.c_int64] * 2 + [ctypes.c_double] * 3

    def compiled_kernel(lab1, left1, keys1, lab2, left2, keys2, relabel, delete=1, insert=1):
        arrays = [np.ascontiguousarray(a, dtype=np.int32) for a in (lab1, left1, keys1, lab2,
                                                                     left2, keys2)]
        a1, l1, k1, a2, l2, k2 = arrays
        trees = (a1.ctypes.data, l1.ctypes.data, k1.ctypes.data, a1.shape[0], k1.shape[0],
                 a2.ctypes.data, l2.ctypes.data, k2.ctypes.data, a2.shape[0], k2.shape[0])
        if _integral(relabel, delete, insert) and delete == 1 and insert == 1:
            distance = int_kernel(*trees, int(relabel))  # RUBY's costs: int32 tables
        else:
            distance = weighted_kernel(*trees, float(delete), float(insert), float(relabel))
            if _integral(relabel, delete, insert):
                distance = round(distance)  # integer costs give an integer distance
        if distance < 0:
            raise MemoryError("no memory for the tree edit distance tables")
        return distance

    return compiled_kernel


def compiled() -> bool:
    """True when the tree edit distance runs compiled (the project's C library is built)."""
    return _kernel() is not _zhang_shasha


def tree_edit_distance(
    tree1: Tree, tree2: Tree, relabel: float = 1, delete: float = 1, insert: float = 1
) -> float:
    """The exact tree edit distance between two ordered labelled trees: deleting a node of
    ``tree1`` costs ``delete``, inserting a node of ``tree2`` costs ``insert`` and
    relabelling costs ``relabel`` (all 1 by default: the unit-cost distance). Integer costs
    give an ``int``, computed in integers; other costs a ``float``.

    >>> a = Tree.from_nested(("f", [("a", ["b"]), "c"]))
    >>> b = Tree.from_nested(("f", ["a", "c", "d"]))
    >>> tree_edit_distance(a, b)
    2
    >>> tree_edit_distance(a, b, delete=1.0, insert=0.8)
    1.8
    """
    if not len(tree1) or not len(tree2):
        return len(tree1) * delete + len(tree2) * insert
    pairs = list(zip(tree1.orientations, tree2.orientations, strict=True))
    first, second = min(pairs, key=lambda pair: pair[0].cells * pair[1].cells)
    codes: dict[str, int] = {}
    lab1 = np.array([codes.setdefault(s, len(codes)) for s in tree1.labels], dtype=np.int32)
    lab2 = np.array([codes.setdefault(s, len(codes)) for s in tree2.labels], dtype=np.int32)
    distance = _kernel()(
        lab1[first.order],
        first.leftmost,
        first.keyroots,
        lab2[second.order],
        second.leftmost,
        second.keyroots,
        relabel,
        delete,
        insert,
    )
    return distance.item() if isinstance(distance, np.generic) else distance


def tree_similarity(tree1: Tree, tree2: Tree) -> float:
    """TRS = 1 - TED / (|T1| + |T2|); 1.0 for two empty trees.

    TED relabels at 2, a deletion plus an insertion, so that ``|T1| + |T2|`` (deleting one
    tree and inserting the other) is the distance of trees with no label in common and TRS
    spans 0 to 1; with unit relabelling two trees of the same shape and no common label would
    score 0.5. TRS is then the share of the nodes of both trees that an optimal edit script
    keeps (a largest mapping between equal labels that preserves ancestry and order).
    """
    total = len(tree1) + len(tree2)
    return 1.0 if total == 0 else 1.0 - tree_edit_distance(tree1, tree2, RELABEL) / total


__all__: Sequence[str] = [
    "Tree",
    "compiled",
    "decomposition_cells",
    "edit_cells",
    "tree_edit_distance",
    "tree_similarity",
]
