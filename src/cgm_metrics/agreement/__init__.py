"""Metric-human agreement: do a metric's verdicts on pairs of systems match the humans'?

Given several systems' outputs on the same items with human grades (the canonical graded
JSONL of ARCHITECTURE.md), the analysis aggregates the raw grades per (item, system) (M-MSR, mean
or majority vote), builds synthetic models (Roy et al. 2021; Out of the BLEU 4.3.1), runs
a paired bootstrap shared by every model and metric, decides for each pair of models
whether the humans and each metric see a significant difference and in which direction, and
tabulates mismatches (Type-I: the metric sees a difference the humans do not, or the
opposite one; Type-II: the humans see a difference the metric does not) by bins of the
metric difference in points. It also reports per-item and per-system Pearson, Spearman and
Kendall correlations with bootstrap intervals.

>>> from cgm_metrics.agreement import graded_from_rows, run_agreement
>>> rows = [{"item": i, "system": s, "grade": g, "scores": {"m": g / 4}}
...         for i in range(30) for s, g in (("a", i % 5), ("b", (i + 1) % 5))]
>>> result = run_agreement(graded_from_rows(rows), n_resamples=200, correlations=False)
>>> result.models[:2], result.table["m"][-1]["mismatches"]
(['a', 'b'], 0)

``protocol="evtikhiev2023"`` reproduces the published Out of the BLEU pipeline exactly;
``protocol="default"`` uses numpy's generator, two-sided p-values and Holm's correction.
:func:`run_roy2021` is the protocol of Roy et al. 2021 (direct assessments, DARR pairs and
:func:`darr_kendall`, approximate randomization and Wilcoxon on synthetic systems).
"""

from .aggregation import aggregate, majority_vote, mean_grade, mmsr, mmsr_skills
from .analysis import AgreementResult, run_agreement
from .data import GradedData, GradedInputError, graded_from_rows, read_graded_jsonl
from .engine import CONALA_BINS, HEARTHSTONE_BINS, PROTOCOLS, synthesize
from .report import format_table, plot, to_csv, to_json
from .roy2021 import RoyResult, darr_kendall, format_roy2021, run_roy2021

__all__ = [
    "AgreementResult",
    "CONALA_BINS",
    "GradedData",
    "GradedInputError",
    "HEARTHSTONE_BINS",
    "PROTOCOLS",
    "RoyResult",
    "aggregate",
    "darr_kendall",
    "format_roy2021",
    "format_table",
    "graded_from_rows",
    "majority_vote",
    "mean_grade",
    "mmsr",
    "mmsr_skills",
    "plot",
    "read_graded_jsonl",
    "run_agreement",
    "run_roy2021",
    "synthesize",
    "to_csv",
    "to_json",
]
