"""ROUGE-L on code as Out of the BLEU computed it.

Per item: the LCS F-measure (beta 1) of rouge-score between the reference tokens and the
prediction tokens, ``rouge_scorer._score_lcs(ref, hyp).fmeasure``, on TranX code tokens;
with several references, the best one. The corpus score is the mean over items. Scale 0-1.

The LCS length is computed with a bit-parallel algorithm (one big-integer bit per
prediction token), so long snippets cost O(n * m / 64) word operations instead of the
O(n * m) Python steps of a dynamic-programming table; the F-measure is computed with
rouge-score's arithmetic, so values are identical.
"""

from __future__ import annotations

import numpy as np

from ..core.languages import resolve_language
from ..metric import MeanOfItems
from .tokens import token_function


def lcs_length(first: list[str], second: list[str]) -> int:
    """Length of the longest common subsequence of two token lists (Hyyro's bit vectors)."""
    if len(first) < len(second):
        first, second = second, first
    if not second:
        return 0
    masks: dict[str, int] = {}
    for position, token in enumerate(second):
        masks[token] = masks.get(token, 0) | (1 << position)
    full = (1 << len(second)) - 1
    row = full  # bit j set: column j is not (yet) the end of a longer common subsequence
    for token in first:
        match = masks.get(token)
        if match:
            low = row & match
            row = ((row + low) | (row - low)) & full
    return len(second) - row.bit_count()


def lcs_fmeasure(reference: list[str], prediction: list[str]) -> float:
    """rouge-score's ROUGE-L F-measure of two token lists (0 when either is empty)."""
    if not reference or not prediction:
        return 0.0
    common = lcs_length(reference, prediction)
    precision = common / len(prediction)
    recall = common / len(reference)
    if precision + recall > 0:
        return 2 * precision * recall / (precision + recall)
    return 0.0


class RougeLMetric(MeanOfItems):
    """ROUGE-L F-measure on code tokens, best reference per item, mean over items.

    >>> metric = RougeLMetric()
    >>> round(metric.compute(["x = a + b"], [["y = a + b", "x = a"]])["score"], 4)
    0.8
    """

    name = "rouge_l"

    def __init__(self, lang: str = "python", tokenize: str = "code") -> None:
        self._tokens = token_function(tokenize, "rouge_l")
        super().__init__(tokenize=tokenize)
        self.lang = resolve_language(lang).name  # tokens do not depend on it; a typo is an error

    def item_values(self, predictions: list[str], references: list[list[str]]) -> np.ndarray:
        values = np.zeros(len(predictions))
        for index, (prediction, refs) in enumerate(zip(predictions, references, strict=True)):
            hyp = self._tokens(prediction)
            values[index] = max(lcs_fmeasure(self._tokens(ref), hyp) for ref in refs)
        return values
