"""cgm-metrics: code-generation metrics that researchers can trust.

>>> import cgm_metrics
>>> "chrf_code" in cgm_metrics.metrics()
True
"""

__version__ = "0.1.0"

from .loading import module_path, module_paths  # noqa: E402
from .registry import get_metric, metrics, score  # noqa: E402

__all__ = ["__version__", "get_metric", "metrics", "module_path", "module_paths", "score"]
