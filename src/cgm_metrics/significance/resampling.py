"""Resampling on sufficient statistics: sacrebleu's draws, count matrices, p-values, intervals.

A bootstrap resample is a row of a count matrix (how often each item is drawn), so the
resampled statistics of R resamples are one product ``counts[R, n] @ stats[n, k]``. The index
draws are sacrebleu's (``default_rng(seed).choice(n, (R, n))`` for the bootstrap,
``default_rng(seed).integers(2, (R, n), dtype=bool)`` for approximate randomization), so the
same seed gives sacrebleu's resamples.

The draws are never held whole: a :class:`Draws` generates them from its seed a block of rows
at a time, continuing one random stream, so each block holds the very values the whole
``(R, n)`` array would (memory stays at a few tens of MB whatever R and n). What cannot be
computed at all (the draws would take hours, the R scores kept per system would not fit in
memory) is refused up front by :func:`check_budget` with the largest request that fits.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator

import numpy as np

from ..base.io import InputError

_CHUNK_CELLS = 2_000_000  # count-matrix cells per product: bounds memory at ~16 MB

#: the most item draws (resamples x items, summed over the draws of one request) computed:
#: about 10**8 draws a second on one core, so this is tens of minutes
MAX_DRAWS = 100_000_000_000
#: the most resampled scores kept in memory at once (resamples x series): 8 bytes each
MAX_SCORES = 25_000_000


class ResamplingBudgetError(InputError):
    """A resampling request too large to compute here (a ``ValueError``); the message says
    what fits."""


def check_budget(n_items: int, n_resamples: int, n_series: int = 2, n_draws: int = 1) -> None:
    """Refuse, before any work, a request of ``n_resamples`` resamples of ``n_items`` items
    whose draws (``n_draws`` sets of them) would take hours or whose resampled scores
    (``n_series`` arrays of ``n_resamples`` floats) would not fit in memory."""
    n_items, n_resamples = max(1, int(n_items)), int(n_resamples)
    draws = n_items * n_resamples * max(1, n_draws)
    scores = n_resamples * max(1, n_series)
    if draws <= MAX_DRAWS and scores <= MAX_SCORES:
        return
    fits = min(MAX_DRAWS // (n_items * max(1, n_draws)), MAX_SCORES // max(1, n_series))
    if draws > MAX_DRAWS:
        why = (f"{draws:.3g} item draws ({n_resamples:,} resamples x {n_items:,} items"
               f"{f' x {n_draws}' if n_draws > 1 else ''}); at most {MAX_DRAWS:.0e} are "
               "computed (beyond that the draws alone take hours)")
    else:
        why = (f"{scores:,} resampled scores ({n_resamples:,} resamples x {n_series} "
               f"series) to keep in memory; at most {MAX_SCORES:,} fit "
               f"({MAX_SCORES * 8 // 10**6:,} MB)")
    raise ResamplingBudgetError(
        f"n_resamples={n_resamples:,} is too large for {n_items:,} items: {why}. Use "
        f"n_resamples <= {fits:,} here"
        + (" (1,000 resamples is sacrebleu's default and enough for p-values near 0.05)."
           if fits >= 1000 else ", or fewer items.")
    )


def _row_step(n_items: int) -> int:
    """Rows per product: about ``_CHUNK_CELLS`` cells (at least one row)."""
    return max(1, _CHUNK_CELLS // max(n_items, 1))


class Draws:
    """The draws of ``n_resamples`` resamples of ``n_items`` items, generated on demand.

    ``kind`` is ``"bootstrap"`` (item indices, ``int64``) or ``"randomization"`` (swap
    flags, ``bool``). :meth:`chunks` yields ``(start, stop, rows)`` blocks of rows that
    together are exactly the array numpy draws at once from ``default_rng(seed)``, and
    yields the same blocks at every call (``seed=None`` fixes a fresh random seed at
    construction, so several passes still see one set of draws). :meth:`array` builds the
    whole array (small requests only)."""

    def __init__(self, kind: str, n_items: int, n_resamples: int, seed: int | None):
        if kind not in ("bootstrap", "randomization"):
            raise ValueError(f"kind must be 'bootstrap' or 'randomization', got {kind!r}.")
        self.kind = kind
        self.n_items = int(n_items)
        self.n_resamples = int(n_resamples)
        check_budget(self.n_items, self.n_resamples, n_series=1)
        fresh = np.random.SeedSequence().generate_state(4, np.uint32)
        self.seed = seed if seed is not None else int.from_bytes(fresh.tobytes(), "little")

    @property
    def shape(self) -> tuple[int, int]:
        return (self.n_resamples, self.n_items)

    def __len__(self) -> int:
        return self.n_resamples

    def chunks(self, rows: int | None = None) -> Iterator[tuple[int, int, np.ndarray]]:
        """Blocks of ``rows`` rows (default: about ``_CHUNK_CELLS`` cells), in order."""
        step = rows or _row_step(self.n_items)
        rng = np.random.default_rng(self.seed)
        n, total = self.n_items, self.n_resamples
        if self.kind == "bootstrap":
            # an index costs one 32-bit word of the generator (more on rejection) and the
            # generator keeps the other half of a 64-bit word between calls: the stream is
            # the same however it is split
            for start in range(0, total, step):
                stop = min(total, start + step)
                yield start, stop, rng.choice(n, size=(stop - start, n), replace=True)
            return
        # a bool takes one bit of a 32-bit word that the call itself buffers: calls must
        # take whole words (multiples of 32 flags) to continue the stream exactly
        unit = 32 // math.gcd(n, 32)
        block = step * unit // math.gcd(step, unit)  # a multiple of both
        for start in range(0, total, block):
            stop = min(total, start + block)
            flags = rng.integers(2, size=(stop - start, n), dtype=bool)
            for lo in range(start, stop, step):
                hi = min(stop, lo + step)
                yield lo, hi, flags[lo - start:hi - start]

    def __iter__(self) -> Iterator[np.ndarray]:
        """One row at a time (the slow path that recomputes a module per resample)."""
        for _, _, rows in self.chunks():
            yield from rows

    def array(self) -> np.ndarray:
        """The whole ``(n_resamples, n_items)`` array."""
        dtype = np.int64 if self.kind == "bootstrap" else np.bool_
        out = np.empty(self.shape, dtype=dtype)
        for start, stop, rows in self.chunks():
            out[start:stop] = rows
        return out


def bootstrap_draws(n_items: int, n_resamples: int, seed: int | None) -> Draws:
    """sacrebleu's bootstrap draws, generated block by block (:class:`Draws`)."""
    return Draws("bootstrap", n_items, n_resamples, seed)


def randomization_draws(n_items: int, n_trials: int, seed: int | None) -> Draws:
    """sacrebleu's approximate-randomization swap flags, block by block (:class:`Draws`)."""
    return Draws("randomization", n_items, n_trials, seed)


def bootstrap_indices(n_items: int, n_resamples: int, seed: int | None) -> np.ndarray:
    """The item indices of every resample as one array, drawn exactly as sacrebleu draws
    them (small requests; :func:`bootstrap_draws` keeps memory bounded)."""
    return bootstrap_draws(n_items, n_resamples, seed).array()


def randomization_mask(n_items: int, n_trials: int, seed: int | None) -> np.ndarray:
    """True where a trial swaps the two systems' outputs for an item (sacrebleu's draw), as
    one array (small requests; :func:`randomization_draws` keeps memory bounded)."""
    return randomization_draws(n_items, n_trials, seed).array()


def _blocks(draws: Draws | np.ndarray) -> Iterator[tuple[int, int, np.ndarray]]:
    """``(start, stop, rows)`` of a :class:`Draws` or of an array of draws."""
    if isinstance(draws, Draws):
        yield from draws.chunks()
        return
    n_rows, n_items = draws.shape
    step = _row_step(n_items)
    for start in range(0, n_rows, step):
        stop = min(n_rows, start + step)
        yield start, stop, draws[start:stop]


def count_matrix(indices: np.ndarray, n_items: int) -> np.ndarray:
    """``counts[r, i]`` = how often item ``i`` is drawn in resample ``r``."""
    rows = indices.shape[0]
    offsets = (np.arange(rows, dtype=np.int64) * n_items)[:, None]
    flat = np.bincount((indices + offsets).ravel(), minlength=rows * n_items)
    return flat.reshape(rows, n_items).astype(np.float64)


def bootstrap_scores(
    stats: list[np.ndarray], score: Callable[[np.ndarray], np.ndarray],
    indices: Draws | np.ndarray,
) -> list[np.ndarray]:
    """Scores of every resample for each statistics array (same resamples for all).

    The arrays are side by side in one matrix, so all of them are resampled by one product
    ``counts @ [stats_1 | stats_2 | ...]`` (one large product is much faster than many small
    ones, and each entry is the same sum whatever stands beside it). ``indices`` are
    :class:`Draws` (generated block by block) or an array of them.
    """
    n_resamples, n_items = indices.shape
    check_budget(n_items, n_resamples, n_series=len(stats))
    out = [np.empty(n_resamples) for _ in stats]
    if not stats:
        return out
    widths = [array.shape[1] for array in stats]
    bounds = np.cumsum([0, *widths])
    stacked = np.concatenate(stats, axis=1) if len(stats) > 1 else stats[0]
    for start, stop, rows in _blocks(indices):
        summed = count_matrix(rows, n_items) @ stacked
        for result, lo, hi in zip(out, bounds[:-1], bounds[1:], strict=True):
            result[start:stop] = score(summed[:, lo:hi])
    return out


def randomization_scores(
    stats_a: np.ndarray, stats_b: np.ndarray, score: Callable[[np.ndarray], np.ndarray],
    mask: Draws | np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Scores of the two pseudo-systems of every trial (``mask`` True: the item keeps a's output
    in pseudo-system a, as sacrebleu's ``pos_sel``); ``mask`` is :class:`Draws` or an array."""
    n_trials, n_items = mask.shape
    check_budget(n_items, n_trials, n_series=2)
    difference = stats_a - stats_b
    total_a, total_b = stats_a.sum(axis=0), stats_b.sum(axis=0)
    out_a, out_b = np.empty(n_trials), np.empty(n_trials)
    for start, stop, rows in _blocks(mask):
        moved = rows.astype(np.float64) @ difference
        out_a[start:stop] = score(total_b + moved)
        out_b[start:stop] = score(total_a - moved)
    return out_a, out_b


def p_values_bootstrap(differences: np.ndarray, observed: np.ndarray) -> np.ndarray:
    """:func:`p_value_bootstrap` of many pairs at once: ``differences[pair]`` are the
    resampled ``b - a`` of each pair (rows), ``observed`` their observed deltas."""
    differences = np.abs(np.atleast_2d(differences))
    observed = np.abs(np.asarray(observed, dtype=np.float64).reshape(-1))
    shifted = differences - differences.mean(axis=1, keepdims=True)
    counts = np.sum(shifted > observed[:, None], axis=1)
    # identical scores: no evidence of a difference (sacrebleu gives 1/(R+1))
    return np.where(observed == 0, 1.0, (counts + 1) / (differences.shape[1] + 1))


def p_value_bootstrap(resampled_a: np.ndarray, resampled_b: np.ndarray, observed: float) -> float:
    """sacrebleu's paired-bootstrap p-value: shifted |differences| above |observed|."""
    return float(p_values_bootstrap((resampled_b - resampled_a)[None], np.array([observed]))[0])


def p_value_randomization(shuffled_a: np.ndarray, shuffled_b: np.ndarray, observed: float) -> float:
    """Approximate-randomization p-value: trials whose |difference| exceeds |observed|."""
    if observed == 0:
        return 1.0
    count = int(np.sum(np.abs(shuffled_a - shuffled_b) > abs(observed)))
    return (count + 1) / (len(shuffled_a) + 1)


def percentile_intervals(samples: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """``(low, high)`` of every row of ``samples`` (sacrebleu's rule, as
    :func:`percentile_interval`), the rows sorted at once."""
    ordered = np.sort(np.atleast_2d(np.asarray(samples, dtype=np.float64)), axis=1)
    n = ordered.shape[1]
    low_index = int(math.floor(n * (1.0 - confidence) / 2.0 + 1e-9))
    high_index = n - low_index - 1
    return ordered[:, low_index], ordered[:, high_index]


def percentile_interval(samples: np.ndarray, confidence: float) -> tuple[float, float]:
    """[low, high] of the sorted samples, sacrebleu's rule: ``lo = R // 40`` at 95%."""
    low, high = percentile_intervals(np.asarray(samples, dtype=np.float64)[None], confidence)
    return float(low[0]), float(high[0])
