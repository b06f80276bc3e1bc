"""ROUGE-L on code as Out of the BLEU computed it.

Per item: the LCS F-measure (beta 1) of rouge-score between the reference tokens and the
prediction tokens, ``rouge_scorer._score_lcs(ref, hyp).fmeasure``, on TranX code tokens;
with several references, the best one. The corpus score is the mean over items. Scale 0-1.

The LCS length is computed with rapidfuzz's bit-parallel algorithm, so long snippets cost
O(n * m / 64) word operations instead of the O(n * m) Python steps of a dynamic-programming
table (near copies only a band of it); the F-measure is computed with rouge-score's
arithmetic, so values are identical.
"""

from __future__ import annotations

import numpy as np
from rapidfuzz.distance import Indel, LCSseq

from ..core.languages import resolve_language
from ..metric import MeanOfItems
from .tokens import token_function


def lcs_length(first: list[str], second: list[str]) -> int:
    """Length of the longest common subsequence of two token lists.

    rapidfuzz's bit-parallel LCS on token ids (one small int per distinct token, so equality is
    exact, never a hash collision). Long pairs try thin diagonal bands first: the Indel
    distance (insertions and deletions only) is ``len(a) + len(b) - 2 * LCS``, and rapidfuzz
    computes it exactly whenever it is within ``score_cutoff`` while stopping early
    otherwise, so a near copy of a long reference costs a band, not the whole table.
    """
    if not first or not second:
        return 0
    ids: dict[str, int] = {}
    a = [ids.setdefault(token, len(ids)) for token in first]
    b = [ids.setdefault(token, len(ids)) for token in second]
    longest = max(len(a), len(b))
    if longest >= _BANDED_FROM:
        floor = abs(len(a) - len(b))
        for cutoff in (longest // 64, longest // 8):
            if cutoff < floor:
                continue
            distance = Indel.distance(a, b, score_cutoff=cutoff)
            if distance <= cutoff:
                return (len(a) + len(b) - distance) // 2
    return LCSseq.similarity(a, b)


_BANDED_FROM = 2048  # tokens; shorter pairs take the full bit-parallel LCS directly


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
    display_name = "ROUGE-L"
    description = "F-measure of the longest common token subsequence, 0-1."
    seconds_per_1k_chars = 0.0021  # benchmarks/metric_cost.py, worst case

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
