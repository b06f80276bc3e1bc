"""EDIT-SIM and COMBINED (Dibia et al., 2023): the maths. Running the unit tests (the
``edit_sim`` evaluate module's body, only on explicit opt-in) is the execution package's
(``execution.edit_sim_module``); pass@k is ``execution.passk``."""

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
]
