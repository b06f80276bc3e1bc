"""All-pairs comparison of several systems with multiple-comparison correction: the one
comparison of the library, which ``cgm compare``, the Space, the reports and the agreement
analysis (default protocol) call and display.

One convention everywhere: in a pair, ``system_a`` comes first in system order and plays the
baseline, ``delta = score_b - score_a``, and the verdict reads ``delta`` with the metric's
``higher_is_better``.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import resampling
from .classical import detectable_difference
from .paired import (
    CI_RESAMPLES,
    Signature,
    check_method,
    check_metric,
    check_probability,
    check_resamples,
    check_seed,
    check_statistics,
    higher_is_better,
    metric_signature,
    verdict,
)

CORRECTIONS = ("holm", "bh", "none")
#: how a pair's p-value is read from the resamples: ``"count"`` is sacrebleu's
#: (c + 1) / (R + 1); ``"normal"`` refers delta / SE(bootstrap differences) to the normal
#: distribution (continuous p-values, so a correction over thousands of pairs can still pass)
P_VALUES = ("count", "normal")
MDD_RESAMPLES = 1000  # the bootstrap of minimum_detectable_difference


def holm(p_values: Any) -> np.ndarray:
    """Holm-Bonferroni adjusted p-values (family-wise error rate), in the input order."""
    p = np.asarray(p_values, dtype=np.float64)
    m = len(p)
    if m == 0:
        return p
    order = np.argsort(p, kind="stable")
    scaled = (m - np.arange(m)) * p[order]
    adjusted = np.minimum(1.0, np.maximum.accumulate(scaled))
    out = np.empty(m)
    out[order] = adjusted
    return out


def adjust(p_values: Any, correction: str) -> np.ndarray:
    """p-values adjusted by ``correction`` (one of :data:`CORRECTIONS`), in the input order."""
    if correction == "holm":
        return holm(p_values)
    if correction == "bh":
        return benjamini_hochberg(p_values)
    if correction == "none":
        return np.asarray(p_values, dtype=np.float64)
    raise ValueError(f"correction must be one of {', '.join(CORRECTIONS)}, got {correction!r}.")


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
    """One pair: ``delta = score(system_b) - score(system_a)`` (a is the baseline)."""

    system_a: str
    system_b: str
    delta: float
    p_value: float
    adjusted_p_value: float
    significant: bool
    ci_delta: list[float]
    verdict: str
    mdd: float | None = None  # minimum detectable difference (when ``power`` was given)


@dataclass(frozen=True)
class Comparison:
    """Scores with intervals per system and every pair (a before b in system order)."""

    metric: str
    systems: list[str]
    scores: dict[str, dict[str, Any]]  # system -> {"score", "ci": [low, high], "mean"}
    pairs: list[PairComparison]
    method: str
    correction: str
    alpha: float
    n_resamples: int
    seed: int | None
    n_items: int
    signature: str
    higher_is_better: bool = True
    confidence: float = 0.95
    p_values: str = "count"
    power: float | None = None
    #: resampled scores per system (the draws of the intervals), not part of ``to_dict``
    resamples: dict[str, np.ndarray] = field(default_factory=dict, repr=False, compare=False)

    def differences(self) -> dict[str, np.ndarray]:
        """``{"a vs b": resampled score differences b - a}`` of every pair, from the draws
        of the intervals (empty when the comparison kept no resamples)."""
        if not self.resamples:
            return {}
        return {f"{pair.system_a} vs {pair.system_b}":
                self.resamples[pair.system_b] - self.resamples[pair.system_a]
                for pair in self.pairs}

    def to_dict(self) -> dict[str, Any]:
        result = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                  if f.name != "resamples"}
        result["pairs"] = [dataclasses.asdict(pair) for pair in self.pairs]
        return result

    def rows(self) -> dict[str, Any]:
        """The tables ``cgm``, the Space and the reports display: ``scores[system] =
        {"score", "low", "high"}`` and ``pairs = [{"a", "b", "delta" (b - a), "p_value",
        "p_adjusted", "significant", "ci_delta", "mdd", "verdict"}]``, each pair once."""
        return {
            "scores": {
                system: {"score": entry["score"], "low": entry["ci"][0], "high": entry["ci"][1]}
                for system, entry in self.scores.items()
            },
            "pairs": [
                {"a": pair.system_a, "b": pair.system_b, "delta": pair.delta,
                 "p_value": pair.p_value, "p_adjusted": pair.adjusted_p_value,
                 "significant": pair.significant, "ci_delta": pair.ci_delta, "mdd": pair.mdd,
                 "verdict": pair.verdict}
                for pair in self.pairs
            ],
        }

    def pair(self, system_a: str, system_b: str) -> PairComparison:
        """The pair of two systems, in either order (its ``system_a`` is the earlier one)."""
        for pair in self.pairs:
            if {pair.system_a, pair.system_b} == {system_a, system_b}:
                return pair
        raise KeyError(f"no pair {system_a!r} vs {system_b!r}; systems: {', '.join(self.systems)}")

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


def _normal_p_values(differences: np.ndarray, observed: np.ndarray) -> np.ndarray:
    """Two-sided p-values of ``observed`` deltas against the normal distribution with the
    standard deviation of the paired resampled ``differences`` (rows) as standard error."""
    se = differences.std(axis=-1, ddof=1)
    out = np.where(observed == 0, 1.0, 0.0)  # no spread: a difference is certain, none is 1
    spread = se > 0
    z = np.abs(observed[spread]) / se[spread]
    out[spread] = [math.erfc(value / math.sqrt(2.0)) for value in z.tolist()]
    return out


def compare(
    stats_by_system: dict[str, Any],
    metric: Any,
    method: str = "paired_bootstrap",
    n_resamples: int | None = None,
    seed: int | None = 12345,
    alpha: float = 0.05,
    correction: str = "holm",
    confidence: float = 0.95,
    p_values: str = "count",
    power: float | None = None,
    indices: np.ndarray | resampling.Draws | None = None,
) -> Comparison:
    """Compare every pair of systems on per-item statistics of ``metric``.

    Each pair's p-value equals :func:`paired_test` on that pair (same seed, so the same
    resamples); p-values are then adjusted across all pairs (``correction``). Scores come
    with percentile intervals from the same bootstrap. With ``power`` every pair also gets
    its minimum detectable difference (the bootstrap SE of the difference, as
    :func:`minimum_detectable_difference`). ``p_values="normal"`` gives continuous
    p-values from the bootstrap SE (paired bootstrap only). ``indices`` (``[R, n_items]``,
    an array or :class:`~cgm_metrics.significance.resampling.Draws`) replace the seeded
    bootstrap draws.
    """
    metric = check_metric(metric)
    if not isinstance(stats_by_system, dict) or len(stats_by_system) < 2:
        raise ValueError("stats_by_system must be a dict mapping at least two system names to statistics.")
    method = check_method(method)
    n_resamples = check_resamples(n_resamples, method)
    seed = check_seed(seed)
    alpha = check_probability(alpha, "alpha")
    confidence = check_probability(confidence, "confidence")
    if power is not None:
        power = check_probability(power, "power")
    if correction not in CORRECTIONS:
        raise ValueError(f"correction must be one of {', '.join(CORRECTIONS)}, got {correction!r}.")
    if p_values not in P_VALUES:
        raise ValueError(f"p_values must be one of {', '.join(P_VALUES)}, got {p_values!r}.")
    if p_values == "normal" and method != "paired_bootstrap":
        raise ValueError("p_values='normal' reads the paired bootstrap; use method='paired_bootstrap'.")
    names = [str(name) for name in stats_by_system]
    arrays = [check_statistics(stats, f"stats_by_system[{name!r}]") for name, stats in stats_by_system.items()]
    if any(array.shape != arrays[0].shape for array in arrays):
        shapes = ", ".join(f"{n}: {a.shape}" for n, a in zip(names, arrays, strict=True))
        raise ValueError(f"every system needs statistics for the same items; shapes differ ({shapes}).")
    score = metric.score_from_statistics
    better = higher_is_better(metric)
    n_items = len(arrays[0])
    full = [float(score(array.sum(axis=0))) for array in arrays]
    resampling.check_budget(n_items, n_resamples, n_series=len(arrays))
    if indices is None:
        boot_count = n_resamples if method == "paired_bootstrap" else CI_RESAMPLES
        indices = resampling.bootstrap_draws(n_items, boot_count, seed)
    elif len(indices.shape) != 2 or indices.shape[1] != n_items:
        raise ValueError(f"indices must have shape [n_resamples, {n_items}], got {indices.shape}.")
    boots = resampling.bootstrap_scores(arrays, score, indices)
    mask = None if method == "paired_bootstrap" else resampling.randomization_draws(n_items, n_resamples, seed)
    pair_index = [(i, j) for i in range(len(names)) for j in range(i + 1, len(names))]
    mdd_boots = None
    if power is not None:
        same_draws = indices.shape[0] == MDD_RESAMPLES and seed is not None
        mdd_boots = boots if same_draws else resampling.bootstrap_scores(
            arrays, score, resampling.bootstrap_draws(n_items, MDD_RESAMPLES, seed))
    # the pairs of one system with every later one at once: their resampled differences are
    # rows of one array (p-values, intervals and SEs row by row, as for a single pair)
    raw_parts, lows, highs, errors = [], [], [], []
    boot_rows, full_array = np.stack(boots), np.asarray(full)
    mdd_rows = None if mdd_boots is None else np.stack(mdd_boots)
    for i in range(len(names) - 1):
        differences = boot_rows[i + 1:] - boot_rows[i]
        observed = full_array[i + 1:] - full_array[i]
        if p_values == "normal":
            raw_parts.append(_normal_p_values(differences, observed))
        elif mask is None:
            raw_parts.append(resampling.p_values_bootstrap(differences, observed))
        else:
            raw_parts.append(np.array([
                resampling.p_value_randomization(
                    *resampling.randomization_scores(arrays[i], arrays[j], score, mask),
                    full[j] - full[i])
                for j in range(i + 1, len(names))]))
        row_low, row_high = resampling.percentile_intervals(differences, confidence)
        lows.append(row_low)
        highs.append(row_high)
        if mdd_rows is not None:
            errors.append((mdd_rows[i + 1:] - mdd_rows[i]).std(axis=1, ddof=1))
    raw = np.concatenate(raw_parts).tolist() if raw_parts else []
    adjusted = adjust(raw, correction)
    low_all = np.concatenate(lows).tolist() if lows else []
    high_all = np.concatenate(highs).tolist() if highs else []
    mdds: list[float | None] = [None] * len(pair_index)
    if errors and power is not None:
        mdds = [float(detectable_difference(float(se), alpha, power))
                for se in np.concatenate(errors).tolist()]
    pairs = []
    for (i, j), p, q, low, high, mdd in zip(pair_index, raw, adjusted.tolist(), low_all,
                                            high_all, mdds, strict=True):
        significant = bool(q < alpha)
        delta = full[j] - full[i]
        pairs.append(
            PairComparison(
                names[i], names[j], delta, float(p), float(q), significant, [low, high],
                verdict(delta, significant, names[i], names[j], better), mdd,
            )
        )
    scores = {}
    for name, value, boot in zip(names, full, boots, strict=True):
        low, high = resampling.percentile_interval(boot, confidence)
        scores[name] = {"score": value, "ci": [low, high], "mean": float(np.mean(boot))}
    signature = Signature(metric_signature(metric), method, n_resamples, seed, alpha)
    return Comparison(
        metric=str(getattr(metric, "name", type(metric).__name__)), systems=names, scores=scores,
        pairs=pairs, method=method, correction=correction, alpha=alpha, n_resamples=n_resamples,
        seed=seed, n_items=n_items, signature=f"{signature}|correction:{correction}",
        higher_is_better=better, confidence=confidence, p_values=p_values, power=power,
        resamples=dict(zip(names, boots, strict=True)),
    )

