"""Paired significance testing on sufficient statistics, exact to sacrebleu and beyond it.

>>> from cgm_metrics.significance import paired_test_texts
>>> result = paired_test_texts(["x = 1", "y = 2", "z = 3"], ["x = 1", "y = 2", "z = 4"],
...                            ["x = 1", "y = 2", "z = 3"], metric="chrf")
>>> result.verdict
'no detectable difference'
"""

from .classical import (
    DetectableDifference,
    McNemarResult,
    WilcoxonResult,
    mcnemar_exact,
    minimum_detectable_difference,
    paired_effect_size,
    wilcoxon_test,
)
from .multiple import (
    CORRECTIONS,
    Comparison,
    PairComparison,
    adjust,
    benjamini_hochberg,
    compare,
    holm,
)
from .paired import METHODS, PairedResult, Signature, bootstrap_ci, paired_test
from .texts import paired_test_texts, resolve_metric, system_statistics

__all__ = [
    "CORRECTIONS", "METHODS", "Comparison", "DetectableDifference", "McNemarResult", "PairComparison",
    "PairedResult", "Signature", "WilcoxonResult",
    "adjust", "benjamini_hochberg", "bootstrap_ci", "compare", "holm", "mcnemar_exact",
    "minimum_detectable_difference", "paired_effect_size", "paired_test", "paired_test_texts",
    "resolve_metric", "system_statistics", "wilcoxon_test",
]
