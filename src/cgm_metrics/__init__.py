"""cgm-metrics: code-generation metrics that researchers can trust.

>>> import cgm_metrics
>>> "chrf_code" in cgm_metrics.metrics()
True

The registry functions are imported on first use, so ``import cgm_metrics`` (and ``cgm
--help``) does not load numpy.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

__all__ = ["__version__", "get_metric", "metrics", "module_path", "module_paths", "score"]


def __getattr__(name: str) -> Any:
    if name in ("get_metric", "metrics", "score"):
        from . import registry

        return getattr(registry, name)
    if name in ("module_path", "module_paths"):
        from . import loading

        return getattr(loading, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
