"""One registry of metrics, looked up by name by the CLI, the Space and the significance engine.

Adding a metric means adding one entry to ``_REGISTRY`` ("module:Class" of a
:class:`~cgm_metrics.metric.Metric` subclass); the consumers do not change.
"""

from __future__ import annotations

import importlib
from typing import Any

from .metric import Metric

_REGISTRY: dict[str, str] = {
    "chrf_code": "cgm_metrics.chrf:ChrfCodeMetric",
    "codebleu": "cgm_metrics.codebleu:CodeBleuMetric",
    "ruby": "cgm_metrics.ruby:RubyMetric",
    "edit_sim": "cgm_metrics.edit_sim:EditSimMetric",
    "bleu": "cgm_metrics.classic:BleuMetric",
    "rouge_l": "cgm_metrics.classic:RougeLMetric",
    "meteor": "cgm_metrics.classic:MeteorMetric",
}


def metrics() -> list[str]:
    """The names of the registered metrics, sorted."""
    return sorted(_REGISTRY)


def metric_class(name: str) -> type[Metric]:
    if not isinstance(name, str) or name not in _REGISTRY:
        raise ValueError(f"Unknown metric {name!r}. Available metrics: {', '.join(metrics())}.")
    module_name, class_name = _REGISTRY[name].split(":")
    return getattr(importlib.import_module(module_name), class_name)


def get_metric(name: str, **options: Any) -> Metric:
    """The metric ``name`` bound to ``options`` (e.g. ``lang="python"``)."""
    return metric_class(name)(**options)


def score(
    name: str,
    predictions: Any,
    references: Any,
    lang: str = "python",
    per_item: bool = False,
    **options: Any,
) -> dict:
    """Score with the metric ``name``.

    Returns ``{"score": corpus or mean score, "per_item": [...] (when asked), "signature"}``
    plus any named components of the metric.
    """
    return get_metric(name, lang=lang, **options).compute(predictions, references, per_item)
