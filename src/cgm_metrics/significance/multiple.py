"""All-pairs comparison of several systems with multiple-comparison correction."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import resampling
from .paired import (
    CI_RESAMPLES,
    Signature,
    check_method,
    check_metric,
    check_probability,
    check_resamples,
    check_seed,
    check_statistics,
    metric_signature,
    verdict,
)

CORRECTIONS = ("holm", "bh", "none")


def holm(p_values: Any) -> np.ndarray:
    """Holm-Bonferroni adjusted p-values (family-wise error rate), in the input order."""
    p = np.asarray(p_values, dtype=np.float64)
    m = len(p)
    order = np.argsort(p, kind="stable")
    scaled = (m - np.arange(m)) * p[order]
    adjusted = np.minimum(1.0, np.maximum.accumulate(scaled))
    out = np.empty(m)
    out[order] = adjusted
    return out


def benjamini_hochberg(p_values: Any) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (false discovery rate), in the input order."""
    p = np.asarray(p_values, dtype=np.float64)
    m = len(p)
    order = np.argsort(p, kind="stable")
    scaled = p[order] * m / np.arange(1, m + 1)
    adjusted = np.minimum(1.0, np.minimum.accumulate(scaled[::-1])[::-1])
    out = np.empty(m)
    out[order] = adjusted
    return out


@dataclass(frozen=True)
class PairComparison:
    system_a: str
    system_b: str
    delta: float
    p_value: float
    adjusted_p_value: float
    significant: bool
    ci_delta: list[float]
    verdict: str


@dataclass(frozen=True)
class ComparisonResult:
    """Scores with intervals per system and every pair (a before b in system order)."""

    metric: str
    systems: list[str]
    scores: dict[str, dict[str, Any]]
    pairs: list[PairComparison]
    method: str
    correction: str
    alpha: float
    n_resamples: int
    seed: int | None
    n_items: int
    signature: str

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def matrix(self, field: str = "p_value") -> list[list[float | None]]:
        """A systems x systems table of ``delta`` (row minus column is -delta), ``p_value`` or
        ``adjusted_p_value``; the diagonal is None."""
        index = {name: i for i, name in enumerate(self.systems)}
        table: list[list[float | None]] = [[None] * len(self.systems) for _ in self.systems]
        for pair in self.pairs:
            i, j = index[pair.system_a], index[pair.system_b]
            value = getattr(pair, field)
            table[i][j] = value
            table[j][i] = -value if field == "delta" else value
        return table


def compare_systems(
    stats_by_system: dict[str, Any],
    metric: Any,
    method: str = "paired_bootstrap",
    n_resamples: int | None = None,
    seed: int | None = 12345,
    alpha: float = 0.05,
    correction: str = "holm",
    confidence: float = 0.95,
) -> ComparisonResult:
    """Compare every pair of systems; each pair's p-value equals ``paired_test`` on that pair
    (same seed, so the same resamples), then p-values are adjusted across all pairs."""
    metric = check_metric(metric)
    if not isinstance(stats_by_system, dict) or len(stats_by_system) < 2:
        raise ValueError("stats_by_system must be a dict mapping at least two system names to statistics.")
    method = check_method(method)
    n_resamples = check_resamples(n_resamples, method)
    seed = check_seed(seed)
    alpha = check_probability(alpha, "alpha")
    confidence = check_probability(confidence, "confidence")
    if correction not in CORRECTIONS:
        raise ValueError(f"correction must be one of {', '.join(CORRECTIONS)}, got {correction!r}.")
    names = [str(name) for name in stats_by_system]
    arrays = [check_statistics(stats, f"stats_by_system[{name!r}]") for name, stats in stats_by_system.items()]
    if any(array.shape != arrays[0].shape for array in arrays):
        shapes = ", ".join(f"{n}: {a.shape}" for n, a in zip(names, arrays, strict=True))
        raise ValueError(f"every system needs statistics for the same items; shapes differ ({shapes}).")
    score = metric.score_from_statistics
    n_items = len(arrays[0])
    full = [float(score(array.sum(axis=0))) for array in arrays]
    boot_count = n_resamples if method == "paired_bootstrap" else CI_RESAMPLES
    indices = resampling.bootstrap_indices(n_items, boot_count, seed)
    boots = resampling.bootstrap_scores(arrays, score, indices)
    mask = None if method == "paired_bootstrap" else resampling.randomization_mask(n_items, n_resamples, seed)
    raw = []
    pair_index = [(i, j) for i in range(len(names)) for j in range(i + 1, len(names))]
    for i, j in pair_index:
        delta = full[j] - full[i]
        if mask is None:
            raw.append(resampling.p_value_bootstrap(boots[i], boots[j], delta))
        else:
            shuffled = resampling.randomization_scores(arrays[i], arrays[j], score, mask)
            raw.append(resampling.p_value_randomization(*shuffled, delta))
    if correction == "holm":
        adjusted = holm(raw)
    elif correction == "bh":
        adjusted = benjamini_hochberg(raw)
    else:
        adjusted = np.asarray(raw, dtype=np.float64)
    pairs = []
    for (i, j), p, q in zip(pair_index, raw, adjusted, strict=True):
        significant = bool(q < alpha)
        low, high = resampling.percentile_interval(boots[j] - boots[i], confidence)
        pairs.append(
            PairComparison(
                names[i], names[j], full[j] - full[i], float(p), float(q), significant,
                [low, high], verdict(full[j] - full[i], significant, names[i], names[j]),
            )
        )
    scores = {}
    for name, value, boot in zip(names, full, boots, strict=True):
        low, high = resampling.percentile_interval(boot, confidence)
        scores[name] = {"score": value, "ci": [low, high], "mean": float(np.mean(boot))}
    signature = Signature(metric_signature(metric), method, n_resamples, seed, alpha)
    return ComparisonResult(
        metric=str(getattr(metric, "name", type(metric).__name__)), systems=names, scores=scores,
        pairs=pairs, method=method, correction=correction, alpha=alpha, n_resamples=n_resamples,
        seed=seed, n_items=n_items, signature=f"{signature}|correction:{correction}",
    )
