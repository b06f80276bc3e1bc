"""How scores, p-values and comparisons are written for people: one wording for the ``cgm``
tables, the reports and the Space."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any


def format_value(value: float | None, scale: float) -> str:
    """A score on its metric's scale: 2 decimals for 0-100 metrics, 4 for 0-1 metrics."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return f"{value:.2f}" if scale >= 10 else f"{value:.4f}"


def format_p(value: float | None) -> str:
    if value is None:
        return "n/a"
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def matrix_rows(systems: Sequence[str], pairs: Sequence[dict]) -> list[list[str]]:
    """Adjusted p-values of :meth:`Comparison.rows` pairs as a system x system matrix
    (``*`` marks significant pairs)."""
    cell = {}
    for pair in pairs:
        text = format_p(pair["p_adjusted"]) + ("*" if pair["significant"] else "")
        cell[(pair["a"], pair["b"])] = cell[(pair["b"], pair["a"])] = text
    return [[a] + ["-" if a == b else cell.get((a, b), "") for b in systems] for a in systems]


def to_jsonable(value: Any) -> Any:
    """``value`` with numpy scalars and arrays as Python numbers and lists, NaN as None and
    result objects as their ``to_dict()``: what ``json.dumps`` can write."""
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if hasattr(value, "to_dict"):
        return to_jsonable(value.to_dict())
    if type(value).__module__ == "numpy":
        value = value.tolist() if hasattr(value, "tolist") else value
        if isinstance(value, list):
            return to_jsonable(value)
    if isinstance(value, float):
        return None if math.isnan(value) else value
    return value
