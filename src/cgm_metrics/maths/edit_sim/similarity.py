"""EDIT-SIM and COMBINED (Dibia et al., 2023) on the sufficient-statistics interface.

EDIT-SIM = 1 - lev(gen, ref) / max(len(gen), len(ref)) with lev the Levenshtein distance on
characters (Svyatkovskiy et al., 2020), or on TranX code tokens with ``unit="token"``; the best
reference counts, and two empty strings are identical (1.0). COMBINED = min(1, PASS + EDIT-SIM)
per item, where PASS is 1 when the item's code passed its unit tests.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from rapidfuzz.distance import Levenshtein

from ...core.tokenizers import code_tokens
from ...languages import DEFAULT_LANGUAGE, resolve_language
from ...pipeline.metric import MeanOfItems

UNITS = ("char", "token")


def edit_similarity(prediction: str, reference: str, unit: str = "char") -> float:
    """EDIT-SIM of one pair, in [0, 1].

    >>> edit_similarity("kitten", "sitting")  # 3 edits over 7 characters
    0.5714285714285714
    """
    a, b = _units(prediction, unit), _units(reference, unit)
    longest = max(len(a), len(b))
    if longest == 0:
        return 1.0
    return 1.0 - _distance(a, b, longest) / longest


_BANDED_FROM = 2048  # shorter pairs take rapidfuzz's full bit-parallel distance directly


def _distance(a: str | list[str], b: str | list[str], longest: int) -> int:
    """The exact Levenshtein distance, cheaply when it is small.

    rapidfuzz's full algorithm costs O(len(a) * len(b) / 64) (about a minute for a 1 MB
    pair). With ``score_cutoff`` it computes only a diagonal band and stops as soon as the
    distance must exceed the cutoff; a result within the cutoff is the exact distance. So
    a near-copy of a long reference costs a thin band, an unrelated pair exits the bands
    at once, and only what is left takes the full computation.
    """
    if longest >= _BANDED_FROM:
        floor = abs(len(a) - len(b))  # no distance is smaller
        for cutoff in (longest // 64, longest // 8):
            if cutoff < floor:
                continue
            distance = Levenshtein.distance(a, b, score_cutoff=cutoff)
            if distance <= cutoff:
                return distance
    return Levenshtein.distance(a, b)


def edit_similarities(
    predictions: list[str], references: list[list[str]], unit: str = "char"
) -> np.ndarray:
    """EDIT-SIM of every item against its best reference, shape ``(n_items,)``."""
    check_unit(unit)
    values = np.empty(len(predictions), dtype=np.float64)
    for index, (prediction, refs) in enumerate(zip(predictions, references, strict=True)):
        values[index] = max(edit_similarity(prediction, ref, unit) for ref in refs)
    return values


def check_passed(passed: Any, n_items: int, argument: str = "passed") -> np.ndarray:
    """Per-item pass/fail outcomes as a 0/1 float array, or a clear error."""
    if isinstance(passed, (str, bytes)) or not isinstance(passed, Sequence):
        if hasattr(passed, "tolist"):
            passed = passed.tolist()
        else:
            raise TypeError(
                f"`{argument}` must be a list with one pass/fail outcome (True/False or 1/0) per "
                f"item, got {type(passed).__name__}."
            )
    passed = list(passed)
    if len(passed) != n_items:
        raise ValueError(
            f"`predictions` has {n_items} items but `{argument}` has {len(passed)}; give one "
            "pass/fail outcome per prediction."
        )
    values = np.empty(n_items, dtype=np.float64)
    for index, outcome in enumerate(passed):
        if isinstance(outcome, (bool, np.bool_)) or outcome in (0, 1):
            values[index] = float(bool(outcome))
        else:
            raise ValueError(
                f"`{argument}[{index}]` is {outcome!r}; each outcome must be True/False or 1/0."
            )
    return values


def combined_values(edit_sim: np.ndarray, passed: np.ndarray) -> np.ndarray:
    """COMBINED = min(1, PASS + EDIT-SIM) per item."""
    return np.minimum(1.0, np.asarray(passed, dtype=np.float64) + edit_sim)


def check_unit(unit: object) -> str:
    if unit not in UNITS:
        raise ValueError(f"`unit` must be one of {', '.join(map(repr, UNITS))}, got {unit!r}.")
    return unit  # type: ignore[return-value]


class EditSimMetric(MeanOfItems):
    """EDIT-SIM, or COMBINED when pass/fail outcomes are given.

    Rows are ``[value, 1]`` for EDIT-SIM alone, and ``[combined, 1, edit_sim, pass]`` with
    outcomes, so resampling rows resamples all three means together.

    >>> metric = EditSimMetric()
    >>> metric.compute(["abcd"], ["abed"])["score"]
    0.75
    >>> metric.compute(["abcd"], ["abed"], passed=[True])["score"]
    1.0
    """

    name = "edit_sim"
    display_name = "EDIT-SIM"
    description = ("1 - character edit distance / length of the longer string, 0-1 (Dibia et "
                   "al. 2023). The code is never run by this metric.")
    seconds_per_1k_chars = 0.0005  # benchmarks/metric_cost.py, worst case
    seconds_growth_per_1k_chars = 0.00001  # benchmarks/space.py, calibration

    def __init__(
        self, lang: str = DEFAULT_LANGUAGE, unit: str = "char", passed: Any = None, **options: Any
    ) -> None:
        resolve_language(lang)  # EDIT-SIM ignores the language, but a typo is still an error
        super().__init__(lang=lang, unit=check_unit(unit), **options)
        self.unit = unit
        self.passed = passed

    def item_values(self, predictions: list[str], references: list[list[str]]) -> np.ndarray:
        return edit_similarities(predictions, references, self.unit)

    def statistics(
        self, predictions: list[str], references: list[list[str]], passed: Any = None
    ) -> np.ndarray:
        passed = self.passed if passed is None else passed
        edit_sim = self.item_values(predictions, references)
        ones = np.ones_like(edit_sim)
        if passed is None:
            return np.column_stack([edit_sim, ones])
        outcomes = check_passed(passed, len(predictions))
        return np.column_stack([combined_values(edit_sim, outcomes), ones, edit_sim, outcomes])

    def components_from_statistics(self, stats: np.ndarray) -> dict[str, np.ndarray]:
        stats = np.asarray(stats, dtype=np.float64)
        if stats.shape[-1] < 4:
            return {}
        count = np.where(stats[..., 1] > 0, stats[..., 1], 1)
        return {
            "combined": stats[..., 0] / count,
            "edit_sim": stats[..., 2] / count,
            "pass": stats[..., 3] / count,
        }

    def signature(self) -> str:
        base = super().signature()
        return (
            base.replace("|version:", "|pass:given|version:") if self.passed is not None else base
        )

    def compute(
        self, predictions: Any, references: Any, per_item: bool = False,
        item_components: bool = False, passed: Any = None,
    ) -> dict:
        """``Metric.compute``; ``passed`` (one outcome per item) gives COMBINED, as the
        metric built with ``passed=`` does."""
        if passed is None:
            return super().compute(predictions, references, per_item, item_components)
        bound = type(self)(**{**self.options, "passed": passed})
        return bound.compute(predictions, references, per_item, item_components)


def _units(code: str, unit: str) -> str | list[str]:
    if unit == "char":
        return code
    if unit == "token":
        return code_tokens(code)
    check_unit(unit)
    raise AssertionError("unreachable")
