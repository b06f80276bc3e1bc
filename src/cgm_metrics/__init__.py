"""cgm-metrics: code-generation metrics that researchers can trust.

>>> import cgm_metrics
>>> "chrf_code" in cgm_metrics.metrics()
True
>>> "python" in cgm_metrics.languages.names()
True

The functions are imported on first use, so ``import cgm_metrics`` (and ``cgm --help``) does
not load numpy, and plugins (entry points ``cgm_metrics.metrics`` and
``cgm_metrics.languages``) are looked for only when a metric or a language is first needed.
"""

from __future__ import annotations

import os
import sys


def _startup_interrupt(signum: int, frame: object) -> None:
    """SIGINT while the ``cgm`` command (or ``python -m cgm_metrics``) is still importing,
    before ``cli.main`` handles it: exit 130 with one line, as at any later moment, never a
    traceback. ``cli.main`` puts Python's own handler back first thing."""
    sys.stderr.write("cgm: interrupted\n")
    sys.stderr.flush()
    os._exit(130)


def _interrupt_quietly_while_cgm_starts() -> None:
    """Install :func:`_startup_interrupt` for the ``cgm`` command only: a plain ``import
    cgm_metrics`` changes no signal handler."""
    starting = sys.argv[:1] == ["-m"] or os.path.basename(sys.argv[0] if sys.argv else "") == "cgm"
    if not starting:
        return
    import signal

    try:
        signal.signal(signal.SIGINT, _startup_interrupt)
    except ValueError:  # not the main thread: nothing to do
        pass


_interrupt_quietly_while_cgm_starts()

from typing import TYPE_CHECKING, Any  # noqa: E402

# `import evaluate` imports transformers, whose import prints an advisory banner ("PyTorch was
# not found ...") that concerns none of this package's metrics: silence transformers' advisory
# notices only, and only where the user has not chosen otherwise.
os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")

if TYPE_CHECKING:
    from . import languages
    from .base.loading import module_path, module_paths
    from .pipeline.evaluation import score
    from .pipeline.registry import get_metric, metrics

__version__ = "0.1.0"

__all__ = ["__version__", "get_metric", "languages", "metrics", "module_path", "module_paths",
           "score"]


# The one-call API, imported on first use: ``score`` loads numpy and the pipeline, ``metrics``
# and ``get_metric`` the registry, ``module_path(s)`` the evaluate modules' paths; none of them
# is paid for by ``import cgm_metrics`` or ``cgm --help``.


def __getattr__(name: str) -> Any:
    if name == "languages":  # the package of the languages (cgm_metrics.languages.names())
        import importlib

        return importlib.import_module(".languages", __name__)
    if name in ("get_metric", "metrics"):
        from .pipeline import registry

        return getattr(registry, name)
    if name == "score":
        from .pipeline.evaluation import score

        return score
    if name in ("module_path", "module_paths"):
        from .base import loading

        return getattr(loading, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
