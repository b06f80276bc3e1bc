"""Pearson, Spearman and Kendall (tau-b) correlations of many rows at once.

Every function takes ``x`` and ``y`` of shape ``[rows, n]`` and returns one coefficient per
row (NaN where a row is constant). The rank correlations also take integer codes (ranks) of
the values (:func:`dense_codes`). Kendall's tau-b follows scipy's ``kendalltau`` (Knight's
algorithm: sort by y then x, count the discordant pairs as inversions of x, correct for
ties), with exact integer counts and scipy's final arithmetic, so the values equal
scipy's. The inversions are counted for all rows at once, one pass per distinct value of
``x`` (the human grades: a handful of values), so bootstrap rows of thousands of items cost
milliseconds instead of a scipy call per row.
"""

from __future__ import annotations

import numpy as np

_MAX_LEVELS = 64  # distinct values of x (or y) counted level by level; beyond: pairwise
_MAX_BINS = 4_000_000  # rows x codes counted with one bincount; beyond: sort the rows


def pearson_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    x = np.atleast_2d(np.asarray(x, dtype=np.float64))
    y = np.atleast_2d(np.asarray(y, dtype=np.float64))
    x = x - x.mean(axis=1, keepdims=True)
    y = y - y.mean(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (x * y).sum(1) / np.sqrt((x * x).sum(1) * (y * y).sum(1))


def dense_codes(values: np.ndarray) -> np.ndarray:
    """Integer codes 0..K-1 of the values of the whole array, in their order: rank-based
    correlations of the codes equal those of the values. Coding a pool of values once and
    gathering bootstrap rows of codes saves coding every row."""
    values = np.asarray(values, dtype=np.float64)
    levels = np.unique(values)
    return np.searchsorted(levels, values).astype(np.int64)


def _codes(values: np.ndarray) -> tuple[np.ndarray, int]:
    """Codes and their number: integer arrays are codes already (see :func:`dense_codes`)."""
    values = np.asarray(values)
    if np.issubdtype(values.dtype, np.integer):
        if values.size and values.min() < 0:
            raise ValueError("integer inputs are codes (ranks) and must not be negative.")
        return values.astype(np.int64, copy=False), int(values.max()) + 1 if values.size else 1
    codes = dense_codes(values)
    return codes, int(codes.max()) + 1 if codes.size else 1


def average_ranks(x: np.ndarray) -> np.ndarray:
    """Ranks 1..n of every row, ties given their average rank (scipy's ``rankdata``).

    Values become dense codes over the whole array; one ``bincount`` counts every code in
    every row, and a code's average rank is the count of smaller codes plus (count + 1) / 2.
    """
    x = np.atleast_2d(np.asarray(x))
    rows, n = x.shape
    codes, size = _codes(x)
    keys = codes + (np.arange(rows, dtype=np.int64) * size)[:, None]
    counts = _row_counts(codes, size)
    smaller = np.cumsum(counts, axis=1) - counts
    average = smaller + (counts + 1) / 2.0
    return average.ravel()[keys]


def spearman_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return pearson_rows(average_ranks(x), average_ranks(y))


def _sort_rows(codes: np.ndarray, size: int) -> np.ndarray:
    """Every row sorted; codes below 2**16 go through numpy's radix sort (``uint16``,
    ``kind="stable"``), an order of magnitude faster than a comparison sort."""
    if size <= 1 << 16:
        return np.sort(codes.astype(np.uint16), axis=1, kind="stable").astype(np.int64)
    if size <= 1 << 31:
        return np.sort(codes.astype(np.int32), axis=1).astype(np.int64)
    return np.sort(codes, axis=1)


def _row_counts(codes: np.ndarray, size: int) -> np.ndarray:
    """``counts[row, code]``: how often each code occurs in each row (one ``bincount``)."""
    rows = codes.shape[0]
    keys = codes + (np.arange(rows, dtype=np.int64) * size)[:, None]
    return np.bincount(keys.ravel(), minlength=rows * size).reshape(rows, size)


def _tied_pairs(codes: np.ndarray, size: int, ordered: bool = False) -> np.ndarray:
    """Per row, the pairs of equal codes: sum of c (c - 1) / 2 over the codes' counts c
    (``ordered``: the rows are sorted already)."""
    rows, n = codes.shape
    if rows * size <= _MAX_BINS:
        counts = _row_counts(codes, size)
        return (counts * (counts - 1) // 2).sum(axis=1)
    ordered_rows = codes if ordered else np.sort(codes, axis=1)
    change = np.ones((rows, n), dtype=bool)
    change[:, 1:] = ordered_rows[:, 1:] != ordered_rows[:, :-1]
    positions = np.arange(n)
    start = np.maximum.accumulate(np.where(change, positions, 0), axis=1)
    return (positions - start).sum(axis=1)  # each element pairs with the earlier equal ones


def kendall_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Kendall's tau-b of every row (scipy's ``kendalltau`` with its default variant).

    Values become dense integer codes over the whole array, so one integer sort of
    ``y_code * K + x_code`` per row orders it by y then x; the discordant pairs are then the
    inversions of the x codes, counted one level at a time; ties are counted with
    ``bincount``.
    """
    x = np.atleast_2d(np.asarray(x))
    y = np.atleast_2d(np.asarray(y))
    rows, n = x.shape
    if n < 2:
        return np.full(rows, np.nan)
    x_codes, x_levels = _codes(x)
    y_codes, y_levels = _codes(y)
    if x_levels > y_levels:  # tau is symmetric: count inversions of the variable with fewer values
        x_codes, x_levels, y_codes, y_levels = y_codes, y_levels, x_codes, x_levels
    joint = y_codes * x_levels + x_codes
    keys = _sort_rows(joint, x_levels * y_levels)
    xs = keys % x_levels
    if x_levels <= _MAX_LEVELS:
        discordant = _inversions(xs, x_levels)
    else:
        discordant = _pairwise_discordant(xs)
    x_ties = _tied_pairs(x_codes, x_levels)
    y_ties = _tied_pairs(y_codes, y_levels)
    joint_ties = _tied_pairs(keys, x_levels * y_levels, ordered=True)
    total = n * (n - 1) // 2
    difference = total - x_ties - y_ties + joint_ties - 2 * discordant
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = difference / np.sqrt(total - x_ties) / np.sqrt(total - y_ties)
    tau = np.where((total - x_ties > 0) & (total - y_ties > 0), tau, np.nan)
    return np.minimum(1.0, np.maximum(-1.0, tau))


def _inversions(codes: np.ndarray, n_levels: int) -> np.ndarray:
    """Per row, pairs i < j with ``codes[i] > codes[j]``, one pass per level."""
    rows, n = codes.shape
    larger_before = np.zeros(rows, dtype=np.int64)
    for level in range(n_levels - 1):  # nothing lies above the top level
        above = np.cumsum(codes > level, axis=1, dtype=np.int32)  # up to and including j
        larger_before += np.sum(above, axis=1, where=codes == level, dtype=np.int64)
    return larger_before


def _pairwise_discordant(xs: np.ndarray) -> np.ndarray:
    """Pairs i < j with x_i > x_j in rows sorted by (y, x), by comparing all pairs."""
    rows, n = xs.shape
    first, second = np.triu_indices(n, 1)
    out = np.zeros(rows, dtype=np.int64)
    step = max(1, 2_000_000 // max(1, len(first)))
    for start in range(0, rows, step):
        block = xs[start:start + step]
        out[start:start + step] = (block[:, first] > block[:, second]).sum(axis=1)
    return out
