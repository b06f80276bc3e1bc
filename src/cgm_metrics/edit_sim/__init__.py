"""EDIT-SIM, COMBINED and pass@k (Dibia et al., 2023; Chen et al., 2021), with a sandbox that
runs unit tests only on explicit opt-in."""

from ..execution.passk import pass_at_k, pass_at_k_per_task
from .similarity import (
    UNITS,
    EditSimMetric,
    check_passed,
    combined_values,
    edit_similarities,
    edit_similarity,
)

__all__ = [
    "UNITS",
    "EditSimMetric",
    "check_passed",
    "combined_values",
    "edit_similarities",
    "edit_similarity",
    "pass_at_k",
    "pass_at_k_per_task",
]
