"""CodeBLEU, identical to the `codebleu` package 0.7.0, deterministic and linear-time."""

from .metric import (
    CODEBLEU_LANGUAGES,
    COMPONENTS,
    DATAFLOW_MODES,
    OUT_OF_THE_BLEU_WEIGHTS,
    CodeBleuMetric,
    calc_codebleu,
    compute_codebleu,
)

__all__ = [
    "CODEBLEU_LANGUAGES",
    "COMPONENTS",
    "DATAFLOW_MODES",
    "OUT_OF_THE_BLEU_WEIGHTS",
    "CodeBleuMetric",
    "calc_codebleu",
    "compute_codebleu",
]
