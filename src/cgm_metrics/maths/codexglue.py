"""CodeXGLUE's line-completion metrics: edit similarity (``fuzz.ratio``) and exact match.

CodeXGLUE's evaluator (Code-Code/CodeCompletion-line/evaluator/evaluator.py), also the
"edit similarity" of RepoBench and other line-completion benchmarks, scores each item as:

- the prediction is stripped of surrounding whitespace (the evaluator reads it from a line of
  a text file) and the reference is used as given (it reads it from JSON);
- both have CodeXGLUE's literal placeholders restored (``<NUM_LIT>`` -> ``0``,
  ``<STR_LIT>`` and ``<CHAR_LIT>`` -> nothing, ``<STR_LIT:abc>`` -> ``abc``);
- edit similarity = ``fuzzywuzzy.fuzz.ratio(prediction, reference)``: 100 times the
  normalised InDel similarity ``2 * LCS / (len(a) + len(b))``, rounded to an integer
  (python-Levenshtein's ratio, which fuzzywuzzy uses when it is installed, and thefuzz);
- exact match = the two token lists ``str.split()`` are equal.

The corpus values are the means over items, edit similarity 0-100 and exact match in
percent, as the evaluator prints them. This is not Dibia et al.'s EDIT-SIM (``edit_sim``:
Levenshtein distance over the longer length, 0-1, no rounding).

``ratio`` chooses the ``fuzz.ratio`` the scores are meant to equal: ``"fuzzywuzzy"``
(default, integer; with python-Levenshtein, as thefuzz), ``"difflib"`` (fuzzywuzzy without
python-Levenshtein: ``difflib.SequenceMatcher``'s ratio, which matches blocks greedily
and so can be lower, integer), or ``"rapidfuzz"`` (``rapidfuzz.fuzz.ratio``, not rounded).
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from typing import Any

import numpy as np
from rapidfuzz.distance import Indel
from rapidfuzz.process import cpdist

from ..core.inputs import check_flag
from ..languages import DEFAULT_LANGUAGE, resolve_language
from ..pipeline.metric import Metric

RATIOS: tuple[str, ...] = ("fuzzywuzzy", "difflib", "rapidfuzz")
_LITERAL = re.compile(r"<(STR|NUM|CHAR)_LIT:(.*?)>", re.S)


def restore_literals(code: str) -> str:
    """CodeXGLUE's ``post_process``: literal placeholders back to (approximate) literals.

    >>> restore_literals('x = <NUM_LIT> + <NUM_LIT:3> ; s = "<STR_LIT>"')
    'x = 0 + 3 ; s = ""'
    """
    if "_LIT" not in code:  # nothing to restore (every placeholder holds "_LIT")
        return code
    code = code.replace("<NUM_LIT>", "0").replace("<STR_LIT>", "").replace("<CHAR_LIT>", "")
    for kind, value in _LITERAL.findall(code):
        code = code.replace(f"<{kind}_LIT:{value}>", value)
    return code


def _difflib_ratio(prediction: str, reference: str) -> float:
    """fuzzywuzzy's ``fuzz.ratio`` without python-Levenshtein."""
    if prediction == reference:
        return 100.0
    if not prediction or not reference:
        return 0.0
    return float(round(100 * SequenceMatcher(None, prediction, reference).ratio()))


def fuzz_ratios(predictions: list[str], references: list[str], ratio: str) -> np.ndarray:
    """``fuzz.ratio`` of every (prediction, reference) pair, 0-100."""
    check_ratio(ratio)
    if not predictions:
        return np.zeros(0, dtype=np.float64)
    if ratio == "difflib":
        return np.array([_difflib_ratio(a, b) for a, b in zip(predictions, references,
                                                                strict=True)])
    similarity = cpdist(predictions, references, scorer=Indel.normalized_similarity,
                        dtype=np.float64, workers=1)
    values = 100 * np.asarray(similarity, dtype=np.float64)
    if ratio == "fuzzywuzzy":
        values = np.rint(values)  # Python's round: half to even, as int(round(x))
    return values


def check_ratio(ratio: object) -> str:
    if not isinstance(ratio, str) or ratio not in RATIOS:
        raise ValueError(
            f"Unknown `ratio` {ratio!r}; choose one of {', '.join(repr(r) for r in RATIOS)} "
            "(default 'fuzzywuzzy': fuzzywuzzy/thefuzz fuzz.ratio, an integer)."
        )
    return ratio


class CodeXGlueEditSimMetric(Metric):
    """CodeXGLUE line completion: mean ``fuzz.ratio`` (the score, 0-100) and exact match.

    Rows are ``[fuzz_ratio, exact, 1]`` per item (best reference: the highest ratio, and an
    exact match with any reference), so resampled rows resample both means.

    >>> metric = CodeXGlueEditSimMetric()
    >>> result = metric.compute(["def __init__ ( self ) :", "return x"],
    ...                         ["def __init__ ( self ) :", "return y"])
    >>> result["score"], result["exact_match"]
    (94.0, 50.0)
    """

    name = "codexglue_edit_sim"
    display_name = "Edit similarity (CodeXGLUE)"
    description = "CodeXGLUE line completion: fuzz.ratio edit similarity and exact match"
    seconds_per_1k_chars = 0.001  # benchmarks/metric_cost.py, worst case
    seconds_growth_per_1k_chars = 0.0000052  # benchmarks/space.py, calibration
    scale = 100.0
    higher_is_better = True
    languages = None
    runs_code = False

    def __init__(
        self, lang: Any = DEFAULT_LANGUAGE, ratio: str = "fuzzywuzzy", post_process: bool = True
    ) -> None:
        resolve_language(lang)  # the scores ignore the language, but a typo is an error
        self.ratio = check_ratio(ratio)
        self.post_process = check_flag(post_process, "post_process")
        super().__init__(ratio=self.ratio, post_process=self.post_process)

    def columns(self) -> tuple[str, ...]:
        return ("edit_sim", "exact_match", "count")

    def statistics(self, predictions: list[str], references: list[list[str]]) -> np.ndarray:
        restore = restore_literals if self.post_process else str
        hyps = [restore(text.strip()) for text in predictions]
        refs = [restore(text) for group in references for text in group]
        rows = np.zeros((len(hyps), 3), dtype=np.float64)
        rows[:, 2] = 1.0
        if len(refs) == len(hyps):  # one reference per item
            rows[:, 0] = fuzz_ratios(hyps, refs, self.ratio)
            rows[:, 1] = np.fromiter(map(list.__eq__, map(str.split, hyps), map(str.split, refs)),
                                     dtype=np.float64, count=len(refs))
            return rows
        owners = np.repeat(np.arange(len(hyps)), [len(group) for group in references])
        pairs = [hyps[k] for k in owners.tolist()]
        ratios = fuzz_ratios(pairs, refs, self.ratio)
        exact = np.fromiter(map(list.__eq__, map(str.split, pairs), map(str.split, refs)),
                            dtype=np.float64, count=len(refs))
        np.maximum.at(rows[:, 0], owners, ratios)
        np.maximum.at(rows[:, 1], owners, exact)
        return rows

    def score_from_statistics(self, stats: np.ndarray) -> np.ndarray:
        stats = np.asarray(stats, dtype=np.float64)
        count = stats[..., 2]
        return np.where(count > 0, stats[..., 0] / np.where(count > 0, count, 1), 0.0)

    def components_from_statistics(self, stats: np.ndarray) -> dict[str, np.ndarray]:
        stats = np.asarray(stats, dtype=np.float64)
        count = np.where(stats[..., 2] > 0, stats[..., 2], 1)
        return {"edit_sim": stats[..., 0] / count, "exact_match": stats[..., 1] / count * 100}


def compute_codexglue_edit_sim(
    predictions: Any,
    references: Any,
    ratio: str = "fuzzywuzzy",
    post_process: bool = True,
    return_per_sample: bool = False,
) -> dict:
    """The ``codexglue_edit_sim`` evaluate module's result: :class:`CodeXGlueEditSimMetric`'s
    (``Metric.compute``), CodeXGLUE's "Edit sim" and "EM" (percent), unrounded, with per-item
    ratios and exact matches (its per-item components) on request."""
    return_per_sample = check_flag(return_per_sample, "return_per_sample")
    metric = CodeXGlueEditSimMetric(ratio=ratio, post_process=post_process)
    scored = metric.compute(predictions, references, item_components=return_per_sample)
    result: dict[str, Any] = {"edit_sim": scored["edit_sim"],
                              "exact_match": scored["exact_match"]}
    if return_per_sample:
        result["scores"] = scored["item_components"]["edit_sim"]
        result["exact"] = [bool(x) for x in scored["item_components"]["exact_match"]]
    result["signature"] = scored["signature"]
    return result
