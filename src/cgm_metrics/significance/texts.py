"""From texts to a paired test: metric resolution, statistics, and the generic slow path for
any loaded ``evaluate`` module (recomputed on every resample)."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from ..core.inputs import check_inputs
from ..languages import DEFAULT_LANGUAGE
from ..pipeline.metric import Metric
from ..pipeline.registry import get_metric, is_metric, metrics
from . import resampling
from .classical import metric_exact_test
from .paired import (
    CI_RESAMPLES,
    assemble_result,
    check_method,
    check_probability,
    check_resamples,
    check_seed,
    higher_is_better,
    metric_signature,
    run_paired,
    with_human,
)

#: sacrebleu's names -> (registry metric, the options that make it sacrebleu's default)
SACREBLEU_NAMES: dict[str, tuple[str, dict[str, Any]]] = {
    "bleu": ("bleu", {"tokenize": "13a"}), "sacrebleu_bleu": ("bleu", {"tokenize": "13a"}),
    "chrf": ("chrf_code", {}), "sacrebleu_chrf": ("chrf_code", {}),
}


def runs_code(metric: Any) -> bool:
    """True when ``metric`` (a name, a Metric) runs the code it scores (pass@k): its systems
    are then candidate lists per task and its references test programs."""
    from ..pipeline.registry import metric_class

    if isinstance(metric, Metric):
        return bool(metric.runs_code)
    if isinstance(metric, str):
        name = metric.split(":", 1)[1] if metric.startswith("registry:") else metric
        try:
            return bool(is_metric(name) and metric_class(name).runs_code)
        except ImportError:
            return False
    return False


def resolve_metric(metric: Any, metric_kwargs: dict | None = None) -> Any:
    """A :class:`Metric` (or a loaded evaluate module) from a name, a Metric or a module.

    ``"bleu"``/``"chrf"`` (and ``"sacrebleu_bleu"``/``"sacrebleu_chrf"``) are the registry's
    ``bleu`` with ``tokenize="13a"`` and ``chrf_code``: sacrebleu's BLEU and chrF with its
    defaults; ``"registry:<name>"`` forces the registry's own defaults (e.g.
    ``"registry:bleu"``: BLEU with the code tokenizer); other names are registry names.
    """
    kwargs = dict(metric_kwargs or {})
    if isinstance(metric, Metric):
        if kwargs:
            raise ValueError("metric_kwargs apply to a metric given by name, not to a Metric object.")
        return metric
    if isinstance(metric, str):
        if metric in SACREBLEU_NAMES:
            name, defaults = SACREBLEU_NAMES[metric]
            return get_metric(name, **{**defaults, **kwargs})
        name = metric.split(":", 1)[1] if metric.startswith("registry:") else metric
        if not is_metric(name):
            known = ", ".join(sorted(set(SACREBLEU_NAMES) | set(metrics())))
            raise ValueError(f"Unknown metric {metric!r}. Available metrics: {known}, or a loaded evaluate module.")
        if runs_code(name):
            kwargs.setdefault("lang", DEFAULT_LANGUAGE)  # code_eval's language
        return get_metric(name, **kwargs)
    if callable(getattr(metric, "compute", None)) and hasattr(metric, "features"):
        return metric
    raise TypeError(
        f"metric must be a metric name, a cgm_metrics Metric or a loaded evaluate module, got {type(metric).__name__}."
    )


def system_statistics(metric: Metric, systems: list[Any], references: Any) -> list[np.ndarray]:
    """Per-item statistics of several systems' predictions on the same references."""
    checked = [check_inputs(predictions, references) for predictions in systems]
    refs = checked[0][1]
    return [np.asarray(metric.statistics(preds, refs), dtype=np.float64) for preds, _ in checked]


def _module_score(module: Any, predictions: list, references: list, kwargs: dict) -> float:
    result = module.compute(predictions=predictions, references=references, **kwargs)
    if not isinstance(result, dict):
        raise TypeError(f"the evaluate module {module.name!r} returned {type(result).__name__}, not a dict.")
    for key in (module.name, "score"):
        if isinstance(result.get(key), numbers.Real):
            return float(result[key])
    for value in result.values():
        if isinstance(value, numbers.Real) and not isinstance(value, bool):
            return float(value)
    raise ValueError(f"the evaluate module {module.name!r} returned no numeric score: {result}")


def _recomputed_paired(module, predictions_a, predictions_b, references, kwargs, method,
                       n_resamples, seed, alpha, confidence):
    """The slow path: the module is computed again on every resample."""
    n = len(predictions_a)

    def score_of(items_a: list, items_b: list, refs: list) -> tuple[float, float]:
        return (_module_score(module, items_a, refs, kwargs), _module_score(module, items_b, refs, kwargs))

    score_a, score_b = score_of(list(predictions_a), list(predictions_b), list(references))
    indices = resampling.bootstrap_draws(n, n_resamples if method == "paired_bootstrap" else CI_RESAMPLES, seed)
    boot = np.array([
        score_of([predictions_a[i] for i in row], [predictions_b[i] for i in row], [references[i] for i in row])
        for row in indices
    ])
    if method == "paired_bootstrap":
        p_value = resampling.p_value_bootstrap(boot[:, 0], boot[:, 1], score_b - score_a)
    else:
        mask = resampling.randomization_draws(n, n_resamples, seed)
        shuffled = np.array([
            score_of(
                [predictions_a[i] if keep else predictions_b[i] for i, keep in enumerate(row)],
                [predictions_b[i] if keep else predictions_a[i] for i, keep in enumerate(row)],
                list(references),
            )
            for row in mask
        ])
        p_value = resampling.p_value_randomization(shuffled[:, 0], shuffled[:, 1], score_b - score_a)
    name = f"{module.name}|evaluate_module|recomputed"
    return assemble_result(name, score_a, score_b, p_value, boot[:, 0], boot[:, 1], method,
                           n_resamples, seed, alpha, confidence, n, ("a", "b"))


def _execution_paired(metric: Any, predictions_a: Any, predictions_b: Any, references: Any,
                      method: str, n_resamples: int, seed: int | None, alpha: float,
                      confidence: float):
    """pass@k of two systems in evaluate's code_eval call shape: a list of candidate programs
    per task for each system, one test program per task; every program runs once."""
    from dataclasses import replace

    from ..execution.code_eval import check_candidates
    from ..execution.metrics import candidate_statistics

    candidates_a = check_candidates(predictions_a, "predictions_a")
    candidates_b = check_candidates(predictions_b, "predictions_b")
    if isinstance(references, (str, bytes)) or not hasattr(references, "__len__"):
        raise TypeError("`references` must be a list with one test program (a string) per task.")
    tests = []
    for index, test in enumerate(references):
        if isinstance(test, (list, tuple)) and len(test) == 1:
            test = test[0]
        if not isinstance(test, str):
            raise TypeError(f"`references[{index}]` must be the task's test program (a string), "
                            f"got {type(test).__name__}.")
        tests.append(test)
    if len(candidates_a) != len(candidates_b):
        raise ValueError(f"`predictions_a` has {len(candidates_a)} tasks but `predictions_b` has "
                         f"{len(candidates_b)}; give both systems' candidates for every task.")
    if len(tests) < 2:
        raise ValueError(f"a paired test needs at least 2 tasks, got {len(tests)}.")
    resampling.check_budget(len(tests), n_resamples, n_series=2)  # before anything runs
    stats_a, stats_b = candidate_statistics(metric, [candidates_a, candidates_b], tests,
                                            names=("predictions_a", "predictions_b"))
    result = run_paired(metric.score_from_statistics, stats_a, stats_b, metric_signature(metric),
                        method, n_resamples, seed, alpha, confidence, ("a", "b"),
                        higher_is_better(metric))
    found = metric_exact_test(metric, stats_a, stats_b)
    if found is None:
        return result
    # one sample a task: the outcomes are paired pass/fail, and the exact test is the test
    from .paired import exact_test_override

    pair = {"delta": result.delta, "p_value": result.p_value, "significant": result.significant}
    return replace(result, exact_test=found,
                   **exact_test_override(pair, found, result.alpha, result.method,
                                         higher_is_better(metric)))


def paired_test_texts(
    predictions_a: Any,
    predictions_b: Any,
    references: Any,
    metric: Any = "chrf_code",
    metric_kwargs: dict | None = None,
    method: str = "paired_bootstrap",
    n_resamples: int | None = None,
    seed: int | None = 12345,
    alpha: float = 0.05,
    human_a: Any = None,
    human_b: Any = None,
    confidence: float = 0.95,
):
    """:func:`paired_test` from texts: statistics are extracted once per system (references
    read once); an evaluate module is recomputed on every resample instead."""
    method = check_method(method)
    n_resamples = check_resamples(n_resamples, method)
    seed = check_seed(seed)
    alpha = check_probability(alpha, "alpha")
    confidence = check_probability(confidence, "confidence")
    resolved = resolve_metric(metric, metric_kwargs)
    if isinstance(resolved, Metric) and resolved.runs_code:
        result = _execution_paired(resolved, predictions_a, predictions_b, references, method,
                                   n_resamples, seed, alpha, confidence)
        return with_human(result, human_a, human_b, resolved)
    preds_a, refs = check_inputs(predictions_a, references, names=("predictions_a", "references"))
    preds_b, _ = check_inputs(predictions_b, references, names=("predictions_b", "references"))
    if len(preds_a) < 2:
        raise ValueError(f"a paired test needs at least 2 items, got {len(preds_a)}.")
    resampling.check_budget(len(preds_a), n_resamples, n_series=2)  # before any scoring
    if not isinstance(resolved, Metric):
        result = _recomputed_paired(resolved, preds_a, preds_b, list(references), dict(metric_kwargs or {}),
                                    method, n_resamples, seed, alpha, confidence)
        return with_human(result, human_a, human_b, resolved)
    stats_a, stats_b = system_statistics(resolved, [preds_a, preds_b], refs)
    result = run_paired(resolved.score_from_statistics, stats_a, stats_b, metric_signature(resolved),
                        method, n_resamples, seed, alpha, confidence, ("a", "b"),
                        higher_is_better(resolved))
    return with_human(result, human_a, human_b, resolved)
