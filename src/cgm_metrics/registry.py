"""One registry of metrics, looked up by name by the CLI, the Space and the significance engine.

Adding a metric means adding one entry to ``_REGISTRY`` ("module:Class" of a
:class:`~cgm_metrics.metric.Metric` subclass); the consumers do not change.
"""

from __future__ import annotations

import importlib
import inspect
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .metric import Metric

_REGISTRY: dict[str, str] = {
    "chrf_code": "cgm_metrics.chrf:ChrfCodeMetric",
    "codebleu": "cgm_metrics.codebleu:CodeBleuMetric",
    "ruby": "cgm_metrics.ruby:RubyMetric",
    "edit_sim": "cgm_metrics.edit_sim:EditSimMetric",
    "bleu": "cgm_metrics.classic:BleuMetric",
    "rouge_l": "cgm_metrics.classic:RougeLMetric",
    "meteor": "cgm_metrics.classic:MeteorMetric",
    "tsed": "cgm_metrics.tsed:TsedMetric",
    "crystal_bleu": "cgm_metrics.crystal_bleu:CrystalBleuMetric",
    "codexglue_edit_sim": "cgm_metrics.codexglue:CodeXGlueEditSimMetric",
}


def metrics() -> list[str]:
    """The names of the registered metrics, sorted."""
    return sorted(_REGISTRY)


def metric_class(name: str) -> type[Metric]:
    if not isinstance(name, str) or name not in _REGISTRY:
        raise ValueError(f"Unknown metric {name!r}. Available metrics: {', '.join(metrics())}.")
    module_name, class_name = _REGISTRY[name].split(":")
    return getattr(importlib.import_module(module_name), class_name)


def metric_options(name: str) -> dict[str, Any]:
    """The options of metric ``name`` and their defaults, as its constructor declares them."""
    parameters = inspect.signature(metric_class(name).__init__).parameters
    return {
        key: parameter.default
        for key, parameter in parameters.items()
        if key != "self" and parameter.kind in (parameter.POSITIONAL_OR_KEYWORD,
                                                 parameter.KEYWORD_ONLY)
    }


def get_metric(name: str, **options: Any) -> Metric:
    """The metric ``name`` bound to ``options`` (e.g. ``lang="python"``).

    Options are checked against the ones the metric declares (its constructor's signature):
    an unknown option is a ``ValueError`` listing them. Every metric takes ``lang`` and
    rejects an unknown language, even the ones whose tokens do not depend on it.
    """
    declared = metric_options(name)
    unknown = sorted(set(options) - set(declared))
    if unknown:
        listing = ", ".join(f"{key}={value!r}" for key, value in declared.items())
        raise ValueError(
            f"Unknown option {', '.join(repr(key) for key in unknown)} for metric {name!r}. "
            f"Its options (with defaults): {listing}."
        )
    metric = metric_class(name)(**options)
    metric.init_options = dict(options)
    return metric


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
