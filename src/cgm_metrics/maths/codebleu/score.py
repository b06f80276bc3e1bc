"""CodeBLEU from (summed) statistics rows: the one place its numbers are computed.

A row holds an item's sufficient statistics (the column constants below). The corpus score
is computed from the column sums (a micro-average, as the package computes it), an item's
score from its own row, and a resample's from its weighted sums. The formula is written
once and runs on plain floats (one row: ``compute_codebleu``, ``calc_codebleu``, no numpy
needed) or on numpy arrays of rows (per-item scores, bootstrap resamples); logarithms and
exponentials are Python's ``math`` functions in both cases, so the two give the same bits.

The n-gram parts follow NLTK's corpus BLEU-4 with smoothing method1, as the package copies
it; the weighted part is the package's recall variant with a reference length of 2 per item.
"""

from __future__ import annotations

import math
from array import array
from functools import reduce
from operator import add
from typing import Any

# columns of a statistics row
NGRAM_CLIPPED = (0, 1, 2, 3)
NGRAM_TOTAL = (4, 5, 6, 7)
HYP_LENGTH = 8
REF_LENGTH = 9
WEIGHTED_CLIPPED = (10, 11, 12, 13)
WEIGHTED_TOTAL = (14, 15, 16, 17)
WEIGHTED_REF_LENGTH = 18
SYNTAX_MATCH, SYNTAX_TOTAL = 19, 20
DATAFLOW_MATCH, DATAFLOW_TOTAL = 21, 22
N_COLUMNS = 23
COLUMN_NAMES = (
    *(f"ngram_clipped_{n}" for n in range(1, 5)), *(f"ngram_total_{n}" for n in range(1, 5)),
    "hyp_len", "ref_len",
    *(f"weighted_clipped_{n}" for n in range(1, 5)),
    *(f"weighted_total_{n}" for n in range(1, 5)),
    "weighted_ref_len", "syntax_match", "syntax_total", "dataflow_match", "dataflow_total",
)  # fmt: skip
COMPONENTS = (
    "ngram_match_score",
    "weighted_ngram_match_score",
    "syntax_match_score",
    "dataflow_match_score",
)
EPSILON = 0.1  # NLTK's smoothing method1


# -- float or array ---------------------------------------------------------------------------


def _where(condition: Any, yes: Any, no: Any) -> Any:
    if isinstance(condition, bool):
        return yes if condition else no
    import numpy as np

    return np.where(condition, yes, no)


def _elementwise(function: Any, value: Any) -> Any:
    """``function`` (math.log or math.exp) of a float, or of every element of an array."""
    if isinstance(value, float):
        return function(value)
    import numpy as np

    return np.frompyfunc(function, 1, 1)(value).astype(np.float64)


# -- the formula --------------------------------------------------------------------------------


def _bleu(columns: Any, clipped: tuple[int, ...], total: tuple[int, ...], ref_length: int) -> Any:
    """NLTK corpus BLEU-4 with method1 smoothing from summed statistics."""
    log_precision: Any = 0.0
    for n in range(4):
        matched, count = columns[clipped[n]], columns[total[n]]
        smoothed = _where(matched == 0, EPSILON, matched)
        precision = smoothed / _where(count > 0, count, 1.0)
        log_precision = log_precision + 0.25 * _elementwise(math.log, precision)
    hyp, ref = columns[HYP_LENGTH], columns[ref_length]
    shorter = _elementwise(math.exp, 1.0 - ref / _where(hyp > 0, hyp, 1.0))
    penalty = _where(hyp > ref, 1.0, _where(hyp == 0, 0.0, shorter))
    return _where(columns[clipped[0]] == 0, 0.0, penalty * _elementwise(math.exp, log_precision))


def _ratio(match: Any, total: Any) -> Any:
    return _where(total > 0, match / _where(total > 0, total, 1.0), 0.0)


def components(columns: Any) -> dict[str, Any]:
    """The four components from summed statistics: ``columns[k]`` is column k, a float or an
    array (of resamples or items)."""
    return {
        "ngram_match_score": _bleu(columns, NGRAM_CLIPPED, NGRAM_TOTAL, REF_LENGTH),
        "weighted_ngram_match_score": _bleu(
            columns, WEIGHTED_CLIPPED, WEIGHTED_TOTAL, WEIGHTED_REF_LENGTH
        ),
        "syntax_match_score": _ratio(columns[SYNTAX_MATCH], columns[SYNTAX_TOTAL]),
        "dataflow_match_score": _ratio(columns[DATAFLOW_MATCH], columns[DATAFLOW_TOTAL]),
    }


def combined(
    columns: Any, parts: dict[str, Any], weights: tuple[float, ...], dataflow: str
) -> Any:
    """CodeBLEU from its components. ``dataflow``: "package" counts a dataflow score of 0 as
    1 (the package's ``or 1``), "zero" keeps it, "renormalize" drops the component where the
    references have no dataflow and divides by the other weights."""
    alpha, beta, gamma, theta = weights
    partial = (
        alpha * parts["ngram_match_score"]
        + beta * parts["weighted_ngram_match_score"]
        + gamma * parts["syntax_match_score"]
    )
    flow = parts["dataflow_match_score"]
    if dataflow == "package":
        return partial + theta * _where(flow == 0, 1.0, flow)
    if dataflow == "zero":
        return partial + theta * flow
    kept = alpha + beta + gamma
    dropped = partial / kept if kept > 0 else partial * 0.0
    return _where(columns[DATAFLOW_TOTAL] == 0, dropped, partial + theta * flow)


def scores(sums: Any, weights: tuple[float, ...], dataflow: str) -> dict[str, float]:
    """The package's five keys from one row of summed statistics."""
    columns = [float(x) for x in sums]
    parts = components(columns)
    result = {"codebleu": float(combined(columns, parts, weights, dataflow))}
    result.update({key: float(value) for key, value in parts.items()})
    return result


def column_sums(rows: array, n_items: int) -> list[float]:
    """Each column summed over the items, item after item (the order numpy's
    ``stats.sum(axis=0)`` adds a row-major array in, so both give the same bits)."""
    used = rows[: n_items * N_COLUMNS]
    # left to right from 0.0, as the loop over items adds (not sum(): Python 3.12's
    # compensates rounding)
    return [reduce(add, used[column::N_COLUMNS], 0.0) for column in range(N_COLUMNS)]


def item_scores(
    rows: array, n_items: int, weights: tuple[float, ...], dataflow: str
) -> list[float]:
    """Each item's CodeBLEU from its own row."""
    result = []
    for item in range(n_items):
        columns = [float(x) for x in rows[item * N_COLUMNS : (item + 1) * N_COLUMNS]]
        result.append(float(combined(columns, components(columns), weights, dataflow)))
    return result
