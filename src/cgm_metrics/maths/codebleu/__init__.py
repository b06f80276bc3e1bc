"""CodeBLEU, identical to the `codebleu` package 0.7.0, deterministic and linear-time.

``calc_codebleu`` and ``compute_codebleu`` import no numpy; :class:`CodeBleuMetric` (the
statistics interface, numpy rows) is imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .functions import calc_codebleu, compute_codebleu
from .options import DATAFLOW_MODES, OUT_OF_THE_BLEU_WEIGHTS, codebleu_languages
from .score import COMPONENTS

if TYPE_CHECKING:
    from .metric import CodeBleuMetric

__all__ = [
    "COMPONENTS",
    "DATAFLOW_MODES",
    "OUT_OF_THE_BLEU_WEIGHTS",
    "CodeBleuMetric",
    "calc_codebleu",
    "codebleu_languages",
    "compute_codebleu",
]


def __getattr__(name: str) -> Any:
    if name == "CodeBleuMetric":
        from .metric import CodeBleuMetric

        return CodeBleuMetric
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
