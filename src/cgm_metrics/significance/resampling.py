"""Resampling on sufficient statistics: sacrebleu's draws, count matrices, p-values, intervals.

A bootstrap resample is a row of a count matrix (how often each item is drawn), so the
resampled statistics of R resamples are one product ``counts[R, n] @ stats[n, k]``. The index
draws are sacrebleu's (``default_rng(seed).choice(n, (R, n))`` for the bootstrap,
``default_rng(seed).integers(2, (R, n), dtype=bool)`` for approximate randomization), so the
same seed gives sacrebleu's resamples.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator

import numpy as np

_CHUNK_CELLS = 2_000_000  # count-matrix cells per product: bounds memory at ~16 MB


def bootstrap_indices(n_items: int, n_resamples: int, seed: int | None) -> np.ndarray:
    """The item indices of every resample, drawn exactly as sacrebleu draws them."""
    rng = np.random.default_rng(seed)
    return rng.choice(n_items, size=(n_resamples, n_items), replace=True)


def randomization_mask(n_items: int, n_trials: int, seed: int | None) -> np.ndarray:
    """True where a trial swaps the two systems' outputs for an item (sacrebleu's draw)."""
    rng = np.random.default_rng(seed)
    return rng.integers(2, size=(n_trials, n_items), dtype=bool)


def _row_chunks(n_rows: int, n_items: int) -> Iterator[tuple[int, int]]:
    step = max(1, _CHUNK_CELLS // max(n_items, 1))
    for start in range(0, n_rows, step):
        yield start, min(n_rows, start + step)


def count_matrix(indices: np.ndarray, n_items: int) -> np.ndarray:
    """``counts[r, i]`` = how often item ``i`` is drawn in resample ``r``."""
    rows = indices.shape[0]
    offsets = (np.arange(rows, dtype=np.int64) * n_items)[:, None]
    flat = np.bincount((indices + offsets).ravel(), minlength=rows * n_items)
    return flat.reshape(rows, n_items).astype(np.float64)


def bootstrap_scores(
    stats: list[np.ndarray], score: Callable[[np.ndarray], np.ndarray], indices: np.ndarray
) -> list[np.ndarray]:
    """Scores of every resample for each statistics array (same resamples for all).

    The arrays are side by side in one matrix, so all of them are resampled by one product
    ``counts @ [stats_1 | stats_2 | ...]`` (one large product is much faster than many small
    ones, and each entry is the same sum whatever stands beside it).
    """
    n_resamples, n_items = indices.shape
    out = [np.empty(n_resamples) for _ in stats]
    if not stats:
        return out
    widths = [array.shape[1] for array in stats]
    bounds = np.cumsum([0, *widths])
    stacked = np.concatenate(stats, axis=1) if len(stats) > 1 else stats[0]
    for start, stop in _row_chunks(n_resamples, n_items):
        summed = count_matrix(indices[start:stop], n_items) @ stacked
        for result, lo, hi in zip(out, bounds[:-1], bounds[1:], strict=True):
            result[start:stop] = score(summed[:, lo:hi])
    return out


def randomization_scores(
    stats_a: np.ndarray, stats_b: np.ndarray, score: Callable[[np.ndarray], np.ndarray],
    mask: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Scores of the two pseudo-systems of every trial (``mask`` True: the item keeps a's output
    in pseudo-system a, as sacrebleu's ``pos_sel``; a 0/1 float mask, converted once by a
    caller testing many pairs, is used as it is)."""
    n_trials, n_items = mask.shape
    difference = stats_a - stats_b
    total_a, total_b = stats_a.sum(axis=0), stats_b.sum(axis=0)
    out_a, out_b = np.empty(n_trials), np.empty(n_trials)
    for start, stop in _row_chunks(n_trials, n_items):
        moved = mask[start:stop].astype(np.float64, copy=False) @ difference
        out_a[start:stop] = score(total_b + moved)
        out_b[start:stop] = score(total_a - moved)
    return out_a, out_b


def p_value_bootstrap(resampled_a: np.ndarray, resampled_b: np.ndarray, observed: float) -> float:
    """sacrebleu's paired-bootstrap p-value: shifted |differences| above |observed|."""
    if observed == 0:
        return 1.0  # identical scores: no evidence of a difference (sacrebleu gives 1/(R+1))
    differences = np.abs(resampled_b - resampled_a)
    shifted = differences - differences.mean()
    count = int(np.sum(shifted > abs(observed)))
    return (count + 1) / (len(differences) + 1)


def p_value_randomization(shuffled_a: np.ndarray, shuffled_b: np.ndarray, observed: float) -> float:
    """Approximate-randomization p-value: trials whose |difference| exceeds |observed|."""
    if observed == 0:
        return 1.0
    count = int(np.sum(np.abs(shuffled_a - shuffled_b) > abs(observed)))
    return (count + 1) / (len(shuffled_a) + 1)


def percentile_interval(samples: np.ndarray, confidence: float) -> tuple[float, float]:
    """[low, high] of the sorted samples, sacrebleu's rule: ``lo = R // 40`` at 95%."""
    ordered = np.sort(np.asarray(samples, dtype=np.float64))
    n = len(ordered)
    low_index = int(math.floor(n * (1.0 - confidence) / 2.0 + 1e-9))
    high_index = n - low_index - 1
    return float(ordered[low_index]), float(ordered[high_index])
