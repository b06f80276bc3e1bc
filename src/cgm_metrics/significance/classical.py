"""Classical paired tests and power: Wilcoxon signed-rank, effect sizes, McNemar's exact test
and the minimum detectable difference of a test set."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np

from . import resampling
from .paired import (
    check_metric,
    check_pair,
    check_probability,
    check_resamples,
    check_seed,
    check_statistics,
)


def _paired_values(scores_a: Any, scores_b: Any) -> np.ndarray:
    a = check_statistics(scores_a, "scores_a")
    b = check_statistics(scores_b, "scores_b")
    if a.shape != b.shape or a.shape[1] != 1:
        raise ValueError(
            f"scores_a and scores_b must be 1-D per-item scores of the same length, got shapes "
            f"{np.shape(scores_a)} and {np.shape(scores_b)}."
        )
    return b[:, 0] - a[:, 0]


def _average_ranks(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ranks 1..n with ties averaged, and the sizes of the tie groups."""
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    starts = np.r_[0, np.flatnonzero(np.diff(ordered)) + 1]
    sizes = np.diff(np.r_[starts, len(values)])
    average = starts + (sizes + 1) / 2.0
    ranks = np.empty(len(values))
    ranks[order] = np.repeat(average, sizes)
    return ranks, sizes


@dataclass(frozen=True)
class WilcoxonResult:
    statistic: float  # min(R+, R-), as scipy reports for the two-sided test
    p_value: float
    n_nonzero: int
    method: str  # "exact" or "normal"

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _exact_signed_rank_cdf(n: int, statistic: float) -> float:
    """P(W <= statistic) for the signed-rank sum W of n untied, non-zero differences."""
    counts = np.zeros(n * (n + 1) // 2 + 1)
    counts[0] = 1.0
    for rank in range(1, n + 1):
        counts[rank:] = counts[rank:] + counts[:-rank].copy()
    return float(counts[: int(math.floor(statistic)) + 1].sum() / 2.0**n)


def wilcoxon_test(scores_a: Any, scores_b: Any, method: str = "auto") -> WilcoxonResult:
    """Two-sided Wilcoxon signed-rank test on per-item scores (zero differences dropped).

    ``method="auto"`` uses the exact distribution for at most 50 non-zero differences without
    ties, else the normal approximation with tie correction (scipy's defaults).
    """
    if method not in ("auto", "exact", "normal"):
        raise ValueError(f"method must be 'auto', 'exact' or 'normal', got {method!r}.")
    differences = _paired_values(scores_a, scores_b)
    nonzero = differences[differences != 0]
    n = len(nonzero)
    if n == 0:
        return WilcoxonResult(0.0, 1.0, 0, "exact")
    ranks, tie_sizes = _average_ranks(np.abs(nonzero))
    r_plus = float(ranks[nonzero > 0].sum())
    r_minus = float(ranks[nonzero < 0].sum())
    statistic = min(r_plus, r_minus)
    has_ties = bool((tie_sizes > 1).any())
    if method == "auto":
        method = "exact" if n <= 50 and not has_ties else "normal"
    if method == "exact":
        p_value = min(1.0, 2.0 * _exact_signed_rank_cdf(n, statistic))
    else:
        mean = n * (n + 1) / 4.0
        variance = n * (n + 1) * (2 * n + 1) / 24.0 - float(np.sum(tie_sizes**3 - tie_sizes)) / 48.0
        z = (r_plus - mean) / math.sqrt(variance) if variance > 0 else 0.0
        p_value = min(1.0, math.erfc(abs(z) / math.sqrt(2.0)))
    return WilcoxonResult(statistic, p_value, n, method)


def paired_effect_size(scores_a: Any, scores_b: Any) -> dict[str, float | None]:
    """Effect sizes of b over a on per-item scores: mean difference, Cohen's d_z (mean / sd of
    the differences; None when all differences are equal), matched-pairs rank-biserial
    correlation in [-1, 1], and the fractions of items where b or a is better."""
    differences = _paired_values(scores_a, scores_b)
    n = len(differences)
    mean = float(differences.mean())
    sd = float(differences.std(ddof=1))
    d_z = mean / sd if sd > 0 else (0.0 if mean == 0 else None)
    nonzero = differences[differences != 0]
    if len(nonzero):
        ranks, _ = _average_ranks(np.abs(nonzero))
        r_plus, r_minus = ranks[nonzero > 0].sum(), ranks[nonzero < 0].sum()
        rank_biserial = float((r_plus - r_minus) / (r_plus + r_minus))
    else:
        rank_biserial = 0.0
    return {
        "mean_difference": mean,
        "cohens_dz": d_z,
        "rank_biserial": rank_biserial,
        "fraction_b_better": float(np.sum(differences > 0) / n),
        "fraction_a_better": float(np.sum(differences < 0) / n),
    }


@dataclass(frozen=True)
class McNemarResult:
    only_a_passes: int
    only_b_passes: int
    both_pass: int
    neither_passes: int
    p_value: float

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _as_outcomes(values: Any, name: str) -> np.ndarray:
    array = np.asarray(values)
    if array.ndim != 1 or len(array) < 2:
        raise ValueError(f"{name} must be a 1-D list of pass/fail outcomes with at least 2 items.")
    if array.dtype != bool and not np.isin(array, (0, 1)).all():
        raise ValueError(f"{name} must hold pass/fail outcomes (True/False or 1/0).")
    return array.astype(bool)


def mcnemar_exact(passed_a: Any, passed_b: Any) -> McNemarResult:
    """McNemar's exact test on paired pass/fail outcomes: a two-sided binomial test of the
    discordant items (a passes and b fails, or the reverse) at probability 1/2."""
    a = _as_outcomes(passed_a, "passed_a")
    b = _as_outcomes(passed_b, "passed_b")
    if len(a) != len(b):
        raise ValueError(f"passed_a and passed_b must have the same length ({len(a)} != {len(b)}).")
    only_a, only_b = int(np.sum(a & ~b)), int(np.sum(~a & b))
    discordant = only_a + only_b
    smaller = min(only_a, only_b)
    term, tail = 1, 0
    for k in range(smaller + 1):  # exact integer sum of C(n, k) for k <= smaller
        tail += term
        term = term * (discordant - k) // (k + 1)
    p_value = min(1.0, float(2 * tail / 2**discordant)) if discordant else 1.0
    return McNemarResult(only_a, only_b, int(np.sum(a & b)), int(np.sum(~a & ~b)), p_value)


@dataclass(frozen=True)
class DetectableDifference:
    minimum_difference: float
    n_items: int
    alpha: float
    power: float
    standard_error: float
    method: str
    message: str

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def detectable_difference(standard_error: float, alpha: float, power: float) -> float:
    """``(z[1 - alpha/2] + z[power]) * SE``: the difference a two-sided test detects."""
    normal = NormalDist()
    return (normal.inv_cdf(1 - alpha / 2) + normal.inv_cdf(power)) * standard_error


def minimum_detectable_difference(
    stats_a: Any, stats_b: Any, metric: Any, alpha: float = 0.05, power: float = 0.8,
    n_items: int | None = None, method: str = "bootstrap", n_resamples: int = 1000,
    seed: int | None = 12345,
) -> DetectableDifference:
    """The smallest score difference a two-sided test at ``alpha`` detects with ``power``:
    ``(z[1 - alpha/2] + z[power]) * SE(delta)``. SE comes from the paired bootstrap of the
    corpus score (``method="bootstrap"``, any metric) or from per-item score differences,
    ``sd(d) / sqrt(n)`` (``method="normal"``, for metrics that average item scores). With
    ``n_items`` the SE is projected to a test set of that size (SE scales as 1/sqrt(n))."""
    metric = check_metric(metric)
    a, b = check_pair(stats_a, stats_b)
    alpha = check_probability(alpha, "alpha")
    power = check_probability(power, "power")
    n = len(a)
    if method == "normal":
        differences = metric.item_scores(b) - metric.item_scores(a)
        standard_error = float(np.std(differences, ddof=1) / math.sqrt(n))
    elif method == "bootstrap":
        resamples = check_resamples(n_resamples, "paired_bootstrap")
        indices = resampling.bootstrap_draws(n, resamples, check_seed(seed))
        boot_a, boot_b = resampling.bootstrap_scores([a, b], metric.score_from_statistics, indices)
        standard_error = float(np.std(boot_b - boot_a, ddof=1))
    else:
        raise ValueError(f"method must be 'bootstrap' or 'normal', got {method!r}.")
    target = n
    if n_items is not None:
        if isinstance(n_items, bool) or not isinstance(n_items, int) or n_items < 2:
            raise ValueError(f"n_items must be an integer of at least 2, got {n_items!r}.")
        standard_error *= math.sqrt(n / n_items)
        target = n_items
    difference = detectable_difference(standard_error, alpha, power)
    message = (
        f"with {target} items a difference below {difference:.4g} (metric units) cannot be "
        f"detected at alpha={alpha:g} with power {power:g}"
    )
    return DetectableDifference(difference, target, alpha, power, standard_error, method, message)


def metric_exact_test(metric: Any, stats_a: Any, stats_b: Any) -> dict[str, Any] | None:
    """A metric's exact test of a pair of systems, where it has one: McNemar's on the
    per-item verdicts its ``paired_outcomes(stats_a, stats_b)`` gives (pass@1 with one
    sample a task): ``{"test", "only_a_passes", "only_b_passes", "both_pass",
    "neither_passes", "p_value"}``; None otherwise."""
    outcomes = getattr(metric, "paired_outcomes", None)
    found = outcomes(stats_a, stats_b) if outcomes is not None else None
    if found is None:
        return None
    a, b = found
    return {"test": "mcnemar_exact", **mcnemar_exact(a, b).to_dict()}
