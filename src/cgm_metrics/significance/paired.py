"""Paired significance tests of two systems on the same items (paired bootstrap and
approximate randomization), with confidence intervals, a signature and a human verdict."""

from __future__ import annotations

import dataclasses
import numbers
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import __version__
from . import resampling

METHODS = ("paired_bootstrap", "approximate_randomization")
DEFAULT_RESAMPLES = {"paired_bootstrap": 1000, "approximate_randomization": 10000}
CI_RESAMPLES = 1000  # bootstrap resamples of the intervals under approximate randomization
_METHOD_KEYS = {"paired_bootstrap": "bs", "approximate_randomization": "ar"}


@dataclass(frozen=True)
class Signature:
    """What makes a significance result reproducible, formatted like sacrebleu's signatures."""

    metric: str
    method: str
    n_resamples: int
    seed: int | None
    alpha: float
    version: str = __version__

    def format(self) -> str:
        key = _METHOD_KEYS.get(self.method, self.method)
        return (
            f"{self.metric}|test:{key}|n:{self.n_resamples}|seed:{str(self.seed).lower()}"
            f"|alpha:{self.alpha:g}|cgm_version:{self.version}"
        )

    def __str__(self) -> str:
        return self.format()


@dataclass(frozen=True)
class PairedResult:
    """The outcome of a paired test; ``delta = score_b - score_a`` (a plays the baseline)."""

    metric: str
    score_a: float
    score_b: float
    delta: float
    p_value: float
    significant: bool
    alpha: float
    ci_a: list[float]
    ci_b: list[float]
    ci_delta: list[float]
    mean_a: float
    mean_b: float
    half_width_a: float
    half_width_b: float
    confidence: float
    method: str
    n_resamples: int
    seed: int | None
    n_items: int
    verdict: str
    signature: str
    human: dict[str, Any] | None = None
    #: the metric's own exact test of the pair, where it has one (McNemar's for pass@1 with
    #: one candidate a task)
    exact_test: dict[str, Any] | None = None
    #: the test ``p_value``, ``significant`` and ``verdict`` come from when it is not
    #: ``method``: ``"mcnemar_exact"`` where the metric's exact test applies (it is the test of
    #: paired pass/fail outcomes); then ``resampled`` has the resampled test's ``{"method",
    #: "p_value", "significant"}`` (``ci_delta`` stays the resampled interval)
    test: str | None = None
    resampled: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        result = dataclasses.asdict(self)
        for key in ("human", "exact_test", "test", "resampled"):
            if result[key] is None:
                result.pop(key)
        return result


# ---------------------------------------------------------------- validation


def check_method(method: Any) -> str:
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}.")
    return method


def check_resamples(n_resamples: Any, method: str) -> int:
    if n_resamples is None:
        return DEFAULT_RESAMPLES[method]
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, numbers.Integral):
        raise TypeError(f"n_resamples must be a positive integer or None, got {n_resamples!r}.")
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be at least 1 (or None for the default), got {n_resamples}.")
    return int(n_resamples)


def check_probability(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number strictly between 0 and 1, got {value!r}.")
    if not 0.0 < float(value) < 1.0:
        raise ValueError(f"{name} must be strictly between 0 and 1, got {value!r}.")
    return float(value)


def check_seed(seed: Any) -> int | None:
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise TypeError(f"seed must be a non-negative integer or None, got {seed!r}.")
    return int(seed)


def check_metric(metric: Any) -> Any:
    if not callable(getattr(metric, "score_from_statistics", None)):
        raise TypeError(
            "metric must be a cgm_metrics Metric (with score_from_statistics); got "
            f"{type(metric).__name__}. Use cgm_metrics.get_metric(name) or resolve_metric(name)."
        )
    return metric


def check_statistics(stats: Any, name: str, min_items: int = 2) -> np.ndarray:
    try:
        array = np.asarray(stats, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a numeric array of per-item statistics [n_items, k].") from None
    if array.ndim == 1:
        array = array[:, None]
    if array.ndim != 2:
        raise ValueError(f"{name} must have shape [n_items, k], got shape {array.shape}.")
    if len(array) < min_items:
        raise ValueError(f"{name} has {len(array)} item(s); a paired test needs at least {min_items}.")
    if not np.isfinite(array).all():
        raise ValueError(f"{name} contains NaN or infinite values.")
    return array


def check_pair(stats_a: Any, stats_b: Any, names: tuple[str, str] = ("stats_a", "stats_b")):
    a = check_statistics(stats_a, names[0])
    b = check_statistics(stats_b, names[1])
    if a.shape != b.shape:
        raise ValueError(
            f"{names[0]} and {names[1]} must describe the same items: shapes {a.shape} and "
            f"{b.shape} differ (pass both systems' outputs for the same items, in the same order)."
        )
    return a, b


def metric_signature(metric: Any) -> str:
    signature = metric.signature() if callable(getattr(metric, "signature", None)) else str(metric)
    return "|".join(part for part in signature.split("|") if not part.startswith("version:"))


def higher_is_better(metric: Any) -> bool:
    return bool(getattr(metric, "higher_is_better", True))


# ---------------------------------------------------------------- the test


def verdict(delta: float, significant: bool, name_a: str = "a", name_b: str = "b",
            higher_is_better: bool = True) -> str:
    """``"b > a, significant"`` (b is better), ``"a > b, significant"`` or ``"no detectable
    difference"``; ``delta = score_b - score_a``, read with the metric's ``higher_is_better``."""
    if not significant or delta == 0:
        return "no detectable difference"
    b_better = (delta > 0) == higher_is_better
    return f"{name_b} > {name_a}, significant" if b_better else f"{name_a} > {name_b}, significant"


def exact_test_override(pair: dict[str, Any], exact: dict[str, Any], alpha: float,
                        method: str | None, higher_is_better: bool = True, name_a: str = "a",
                        name_b: str = "b") -> dict[str, Any]:
    """Where an exact test applies (McNemar's for pass@1 with one sample a task: the outcomes
    are paired pass/fail, and the exact test is the test), the fields of a pair's result it
    replaces: ``test``, ``p_value`` (and ``p_adjusted`` when ``exact`` has one: the pair is one
    of several, adjusted over them), ``significant`` (its p-value, adjusted where it is,
    below ``alpha``), ``verdict``, and ``resampled``, the resampled test's own ``{"method",
    "p_value", "p_adjusted"?, "significant"}`` read from ``pair`` (``delta`` = b - a)."""
    adjusted = "p_adjusted" in exact
    significant = bool((exact["p_adjusted"] if adjusted else exact["p_value"]) < alpha)
    resampled: dict[str, Any] = {"method": method, "p_value": pair["p_value"]}
    if adjusted:
        resampled["p_adjusted"] = pair["p_adjusted"]
    resampled["significant"] = pair["significant"]
    out: dict[str, Any] = {"resampled": resampled, "test": exact["test"],
                           "p_value": exact["p_value"]}
    if adjusted:
        out["p_adjusted"] = exact["p_adjusted"]
    out.update(significant=significant,
               verdict=verdict(pair["delta"], significant, name_a, name_b, higher_is_better))
    return out


def _interval_summary(samples: np.ndarray, confidence: float) -> tuple[list[float], float, float]:
    low, high = resampling.percentile_interval(samples, confidence)
    return [low, high], float(np.mean(samples)), 0.5 * (high - low)


def run_paired(
    score: Callable[[np.ndarray], np.ndarray],
    stats_a: np.ndarray,
    stats_b: np.ndarray,
    name: str,
    method: str,
    n_resamples: int,
    seed: int | None,
    alpha: float,
    confidence: float,
    names: tuple[str, str] = ("a", "b"),
    higher_is_better: bool = True,
) -> PairedResult:
    """The paired test on validated statistics with any vectorised ``score`` function."""
    n_items = len(stats_a)
    resampling.check_budget(n_items, n_resamples, n_series=2)
    score_a = float(score(stats_a.sum(axis=0)))
    score_b = float(score(stats_b.sum(axis=0)))
    delta = score_b - score_a
    if method == "paired_bootstrap":
        indices = resampling.bootstrap_draws(n_items, n_resamples, seed)
        boot_a, boot_b = resampling.bootstrap_scores([stats_a, stats_b], score, indices)
        p_value = resampling.p_value_bootstrap(boot_a, boot_b, delta)
    else:
        mask = resampling.randomization_draws(n_items, n_resamples, seed)
        shuffled_a, shuffled_b = resampling.randomization_scores(stats_a, stats_b, score, mask)
        p_value = resampling.p_value_randomization(shuffled_a, shuffled_b, delta)
        indices = resampling.bootstrap_draws(n_items, CI_RESAMPLES, seed)
        boot_a, boot_b = resampling.bootstrap_scores([stats_a, stats_b], score, indices)
    return assemble_result(
        name, score_a, score_b, p_value, boot_a, boot_b, method, n_resamples, seed, alpha,
        confidence, n_items, names, higher_is_better,
    )


def assemble_result(
    name: str, score_a: float, score_b: float, p_value: float, boot_a: np.ndarray,
    boot_b: np.ndarray, method: str, n_resamples: int, seed: int | None, alpha: float,
    confidence: float, n_items: int, names: tuple[str, str], higher_is_better: bool = True,
) -> PairedResult:
    delta = score_b - score_a
    ci_a, mean_a, half_a = _interval_summary(boot_a, confidence)
    ci_b, mean_b, half_b = _interval_summary(boot_b, confidence)
    ci_delta, _, _ = _interval_summary(boot_b - boot_a, confidence)
    significant = bool(p_value < alpha)
    return PairedResult(
        metric=name.split("|")[0],
        score_a=score_a,
        score_b=score_b,
        delta=delta,
        p_value=float(p_value),
        significant=significant,
        alpha=alpha,
        ci_a=ci_a,
        ci_b=ci_b,
        ci_delta=ci_delta,
        mean_a=mean_a,
        mean_b=mean_b,
        half_width_a=half_a,
        half_width_b=half_b,
        confidence=confidence,
        method=method,
        n_resamples=n_resamples,
        seed=seed,
        n_items=n_items,
        verdict=verdict(delta, significant, names[0], names[1], higher_is_better),
        signature=str(Signature(name, method, n_resamples, seed, alpha)),
    )


def _mean_score(stats: np.ndarray) -> np.ndarray:
    stats = np.asarray(stats, dtype=np.float64)
    return stats[..., 0] / stats[..., 1]


def human_agreement(
    metric_result: PairedResult, human_a: Any, human_b: Any, n_resamples: int | None = None,
    higher_is_better: bool = True,
) -> dict[str, Any]:
    """Human verdict for the pair (paired bootstrap on per-item grades) and its agreement with
    the metric's verdict, in the vocabulary of Roy et al. (2021): ``"agree"``, ``"disagree"``
    (both significant, opposite directions), ``"type_i"`` (the metric finds a difference the
    humans do not) or ``"type_ii"`` (the metric misses a difference the humans find)."""
    n_items = metric_result.n_items
    grades = []
    for name, values in (("human_a", human_a), ("human_b", human_b)):
        array = check_statistics(values, name)
        if array.shape != (n_items, 1):
            raise ValueError(
                f"{name} must hold one grade per item ({n_items} items), got shape {np.shape(values)}."
            )
        grades.append(np.column_stack([array[:, 0], np.ones(n_items)]))
    n_boot = n_resamples if metric_result.method == "paired_bootstrap" else DEFAULT_RESAMPLES["paired_bootstrap"]
    human = run_paired(
        _mean_score, grades[0], grades[1], "human_grade", "paired_bootstrap",
        n_boot or DEFAULT_RESAMPLES["paired_bootstrap"], metric_result.seed,
        metric_result.alpha, metric_result.confidence,
    )
    metric_direction = int(np.sign(metric_result.delta)) * (1 if higher_is_better else -1)
    human_direction = int(np.sign(human.delta))
    if metric_result.significant and human.significant:
        agreement = "agree" if metric_direction == human_direction else "disagree"
    elif metric_result.significant:
        agreement = "type_i"
    elif human.significant:
        agreement = "type_ii"
    else:
        agreement = "agree"
    explanation = {
        "agree": "metric and humans reach the same verdict",
        "disagree": "metric and humans find significant differences in opposite directions",
        "type_i": "Type-I error: the metric finds a significant difference that humans do not",
        "type_ii": "Type-II error: the metric misses a difference that humans find significant",
    }[agreement]
    return {
        "score_a": human.score_a,
        "score_b": human.score_b,
        "delta": human.delta,
        "p_value": human.p_value,
        "significant": human.significant,
        "ci_delta": human.ci_delta,
        "verdict": human.verdict,
        "agreement": agreement,
        "explanation": explanation,
    }


def paired_test(
    stats_a: Any,
    stats_b: Any,
    metric: Any,
    method: str = "paired_bootstrap",
    n_resamples: int | None = None,
    seed: int | None = 12345,
    alpha: float = 0.05,
    human_a: Any = None,
    human_b: Any = None,
    confidence: float = 0.95,
    names: tuple[str, str] = ("a", "b"),
) -> PairedResult:
    """Paired significance test of system b against system a (the baseline).

    ``stats_a``/``stats_b`` are the per-item statistics of ``metric`` (``metric.statistics``),
    for the same items in the same order. Defaults follow sacrebleu: seed 12345, 1000
    bootstrap resamples or 10000 randomization trials, p = (c + 1) / (R + 1).

    >>> import numpy as np
    >>> from cgm_metrics.pipeline.metric import MeanOfItems
    >>> class Mean(MeanOfItems):
    ...     name = "mean"
    ...     def item_values(self, predictions, references):
    ...         return [float(p == r[0]) for p, r in zip(predictions, references)]
    >>> a = np.column_stack([np.r_[np.zeros(30), np.ones(10)], np.ones(40)])
    >>> b = np.column_stack([np.r_[np.zeros(10), np.ones(30)], np.ones(40)])
    >>> result = paired_test(a, b, Mean())
    >>> result.verdict, result.p_value < 0.01
    ('b > a, significant', True)
    """
    metric = check_metric(metric)
    a, b = check_pair(stats_a, stats_b)
    method = check_method(method)
    n_resamples = check_resamples(n_resamples, method)
    seed = check_seed(seed)
    alpha = check_probability(alpha, "alpha")
    confidence = check_probability(confidence, "confidence")
    result = run_paired(
        metric.score_from_statistics, a, b, metric_signature(metric), method, n_resamples,
        seed, alpha, confidence, names, higher_is_better(metric),
    )
    return with_human(result, human_a, human_b, metric)


def with_human(result: PairedResult, human_a: Any, human_b: Any, metric: Any) -> PairedResult:
    if human_a is None and human_b is None:
        return result
    if human_a is None or human_b is None:
        raise ValueError("human_a and human_b must be given together (per-item grades of a and b).")
    human = human_agreement(
        result, human_a, human_b, result.n_resamples,
        bool(getattr(metric, "higher_is_better", True)),
    )
    return dataclasses.replace(result, human=human)


def bootstrap_ci(
    stats: Any, metric: Any, n_resamples: int = 1000, seed: int | None = 12345,
    confidence: float = 0.95,
) -> tuple[float, float, float]:
    """``(score, low, high)``: the corpus score and its percentile bootstrap interval (the
    resamples of sacrebleu's ``corpus_score(..., n_bootstrap=R)``)."""
    metric = check_metric(metric)
    array = check_statistics(stats, "stats")
    n_resamples = check_resamples(n_resamples, "paired_bootstrap")
    confidence = check_probability(confidence, "confidence")
    indices = resampling.bootstrap_draws(len(array), n_resamples, check_seed(seed))
    (scores,) = resampling.bootstrap_scores([array], metric.score_from_statistics, indices)
    low, high = resampling.percentile_interval(scores, confidence)
    return float(metric.score_from_statistics(array.sum(axis=0))), low, high

