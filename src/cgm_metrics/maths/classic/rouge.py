"""ROUGE-L on code as Out of the BLEU computed it; ROUGE-N and ROUGE-W; the ``rouge`` package.

Per item: the LCS F-measure (beta 1) of rouge-score between the reference tokens and the
prediction tokens, ``rouge_scorer._score_lcs(ref, hyp).fmeasure``, on TranX code tokens;
with several references, the best one. The corpus score is the mean over items. Scale 0-1.

Two implementations (option ``implementation``) of ROUGE-N (``rouge_n``) and ROUGE-L:

- ``"rouge-score"`` (default): Google's rouge-score on the ``tokenize`` tokens (n-gram
  counts clipped per n-gram; F-measure ``2PR / (P + R)``);
- ``"rouge"``: the ``rouge`` package 1.0.1 (pltrdy), which Roy et al. 2021 used. It splits the
  text into "sentences" at every period (periods dropped, empty pieces dropped, whitespace
  collapsed), counts *distinct* n-grams of the words of all sentences, computes ROUGE-L at
  summary level (the union of the LCS words of every reference sentence with every
  candidate sentence, over the distinct words of each side), and takes
  ``F = 2 * P * R / (P + R + 1e-8)``. With ``tokenize="whitespace"`` it reads the raw text as
  the package does; with ``"code"`` the text is first TranX-tokenized (tokens joined by
  spaces). Where the package raises (a text with nothing besides periods) the score is 0.

ROUGE-W (``rouge_w``) is the weighted LCS of Lin (2004), section 3.3: consecutive matches
weigh more, ``f(k) = k ** weight`` (ROUGE-1.5.5's ``-w 1.2``), ``R = f^-1(WLCS / f(m))``,
``P = f^-1(WLCS / f(n))`` for reference length m and candidate length n, ``F = 2PR / (P + R)``.

The LCS length is computed with rapidfuzz's bit-parallel algorithm, so long snippets cost
O(n * m / 64) word operations instead of the O(n * m) Python steps of a dynamic-programming
table (near copies only a band of it); the F-measure is computed with rouge-score's
arithmetic, so values are identical.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np
from rapidfuzz.distance import Indel, LCSseq

from ...languages import DEFAULT_LANGUAGE, resolve_language
from ...pipeline.metric import MeanOfItems
from .tokens import token_function

#: ``implementation`` choices of rouge_n and rouge_l
IMPLEMENTATIONS: tuple[str, ...] = ("rouge-score", "rouge")


def _implementation(value: object, metric: str) -> str:
    if not isinstance(value, str) or value not in IMPLEMENTATIONS:
        raise ValueError(
            f"Unknown `implementation` {value!r} for {metric}; choose 'rouge-score' (Google's "
            "rouge-score, the default) or 'rouge' (the rouge package 1.0.1, as Roy et al. 2021)."
        )
    return value


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


def ngram_fmeasure(reference: list[str], prediction: list[str], n: int) -> float:
    """rouge-score's ROUGE-N F-measure of two token lists (``rouge_scorer._score_ngrams``)."""
    target = Counter(tuple(reference[i : i + n]) for i in range(len(reference) - n + 1))
    predicted = Counter(tuple(prediction[i : i + n]) for i in range(len(prediction) - n + 1))
    overlap = sum(min(count, predicted[gram]) for gram, count in target.items())
    precision = overlap / max(sum(predicted.values()), 1)
    recall = overlap / max(sum(target.values()), 1)
    if precision + recall > 0:
        return 2 * precision * recall / (precision + recall)
    return 0.0


# --- the rouge package 1.0.1 -----------------------------------------------------------------


def rouge_package_sentences(text: str) -> list[str]:
    """The rouge package's "sentences": the pieces between periods that are not empty, each
    with its whitespace collapsed to single spaces (a piece of only spaces becomes "")."""
    return [" ".join(piece.split()) for piece in text.split(".") if len(piece) > 0]


def _package_words(sentences: list[str]) -> list[str]:
    return [word for sentence in sentences for word in sentence.split(" ")]


def _package_f(precision: float, recall: float) -> float:
    return 2.0 * ((precision * recall) / (precision + recall + 1e-8))


def rouge_package_n(hypothesis: list[str], reference: list[str], n: int) -> float:
    """The rouge package's ROUGE-N F of sentence lists: distinct n-grams of the words."""
    if not hypothesis or not reference:
        return 0.0  # the package raises ValueError ("Hypothesis is empty.")
    hyp_words, ref_words = _package_words(hypothesis), _package_words(reference)
    hyp = {tuple(hyp_words[i : i + n]) for i in range(len(hyp_words) - n + 1)}
    ref = {tuple(ref_words[i : i + n]) for i in range(len(ref_words) - n + 1)}
    overlap = len(hyp & ref)
    precision = overlap / len(hyp) if hyp else 0.0
    recall = overlap / len(ref) if ref else 0.0
    return _package_f(precision, recall)


_NUMPY_FROM = 4096  # table cells from which the dynamic programs run row by row in numpy


def _token_ids(first: list[str], second: list[str]) -> tuple[np.ndarray, np.ndarray]:
    ids: dict[str, int] = {}
    a = np.fromiter((ids.setdefault(t, len(ids)) for t in first), np.int64, len(first))
    b = np.fromiter((ids.setdefault(t, len(ids)) for t in second), np.int64, len(second))
    return a, b


def _lcs_table(reference: list[str], candidate: list[str]) -> Any:
    """The LCS table ``T[i][j]`` (lists for small inputs, a numpy array for large ones).

    Row by row in numpy: ``T[i][j] = max(v[1..j])`` with ``v[j] = T[i-1][j-1] + 1`` where
    the words match and ``T[i-1][j]`` elsewhere (the usual recurrence, as a running maximum).
    """
    rows, cols = len(reference), len(candidate)
    if rows * cols < _NUMPY_FROM:
        table = [[0] * (cols + 1) for _ in range(rows + 1)]
        for i in range(1, rows + 1):
            word, above, row = reference[i - 1], table[i - 1], table[i]
            for j in range(1, cols + 1):
                if word == candidate[j - 1]:
                    row[j] = above[j - 1] + 1
                else:
                    row[j] = above[j] if above[j] > row[j - 1] else row[j - 1]
        return table
    ref_ids, cand_ids = _token_ids(reference, candidate)
    dtype = np.int16 if min(rows, cols) < 32_000 else np.int32
    array = np.zeros((rows + 1, cols + 1), dtype=dtype)
    for i in range(1, rows + 1):
        above = array[i - 1]
        values = np.where(cand_ids == ref_ids[i - 1], above[:-1] + 1, above[1:])
        np.maximum.accumulate(values, out=array[i, 1:])
    return array


def lcs_words(reference: list[str], candidate: list[str]) -> list[str]:
    """The words of the LCS the rouge package reconstructs (its traceback: a match first,
    else up when the cell above is strictly larger, else left). The package recurses once
    per step (a RecursionError beyond about 1,000 words); this walks the table in a loop."""
    table = _lcs_table(reference, candidate)
    words: list[str] = []
    i, j = len(reference), len(candidate)
    if isinstance(table, np.ndarray):
        table = table.tolist() if table.size <= 4_000_000 else table
    while i > 0 and j > 0:
        if reference[i - 1] == candidate[j - 1]:
            words.append(reference[i - 1])
            i, j = i - 1, j - 1
        elif table[i - 1][j] > table[i][j - 1]:
            i -= 1
        else:
            j -= 1
    return words


def rouge_package_l(hypothesis: list[str], reference: list[str]) -> float:
    """The rouge package's summary-level ROUGE-L F of sentence lists."""
    if not hypothesis or not reference:
        return 0.0  # the package raises ValueError
    ref_distinct = len(set(_package_words(reference)))
    hyp_distinct = len(set(_package_words(hypothesis)))
    union: set[str] = set()
    candidates = [sentence.split(" ") for sentence in hypothesis]
    for sentence in reference:
        words = sentence.split(" ")
        for candidate in candidates:
            union.update(lcs_words(words, candidate))
    return _package_f(len(union) / hyp_distinct, len(union) / ref_distinct)


def weighted_lcs(reference: list[str], candidate: list[str], weight: float) -> float:
    """WLCS of Lin (2004): dynamic programming that remembers the length of the run of
    consecutive matches ending at each cell; extending a run of k by one adds
    ``f(k + 1) - f(k)`` with ``f(k) = k ** weight``; elsewhere the larger of the cells above
    and to the left.

    Large inputs run row by row in numpy with the same arithmetic: a match cell starts a new
    segment of the row, and the cells after it take the running maximum of the cells above
    within the segment.
    """
    rows, cols = len(reference), len(candidate)
    if rows * cols >= _NUMPY_FROM:
        return _weighted_lcs_rows(reference, candidate, weight)
    score_above = [0.0] * (cols + 1)
    run_above = [0] * (cols + 1)
    for word in reference:
        score_row = [0.0] * (cols + 1)
        run_row = [0] * (cols + 1)
        for j in range(1, cols + 1):
            if word == candidate[j - 1]:
                k = run_above[j - 1]
                score_row[j] = score_above[j - 1] + ((k + 1) ** weight - k**weight)
                run_row[j] = k + 1
            elif score_above[j] > score_row[j - 1]:
                score_row[j] = score_above[j]
            else:
                score_row[j] = score_row[j - 1]
        score_above, run_above = score_row, run_row
    return score_above[cols]


def _weighted_lcs_rows(reference: list[str], candidate: list[str], weight: float) -> float:
    ref_ids, cand_ids = _token_ids(reference, candidate)
    cols = len(candidate)
    longest = min(len(reference), cols) + 1
    increment = np.array([(k + 1) ** weight - k**weight for k in range(longest + 1)])
    score_above = np.zeros(cols + 1)
    run_above = np.zeros(cols + 1, dtype=np.int64)
    for token in ref_ids:
        match = cand_ids == token
        if not match.any():  # nothing new in this row: every cell takes the left or above
            score_above = np.concatenate(([0.0], np.maximum.accumulate(score_above[1:])))
            run_above = np.zeros(cols + 1, dtype=np.int64)
            continue
        runs = run_above[:-1]
        values = np.where(match, score_above[:-1] + increment[runs], score_above[1:])
        # running maximum that restarts at every match cell: numpy orders complex numbers
        # lexicographically, so (segment number, value) pairs do it exactly, without a sort
        keys = np.cumsum(match) + 1j * values
        score_above = np.concatenate(([0.0], np.maximum.accumulate(keys).imag))
        run_above = np.concatenate(([0], np.where(match, runs + 1, 0)))
    return float(score_above[cols])


def rouge_w_fmeasure(reference: list[str], prediction: list[str], weight: float = 1.2) -> float:
    """ROUGE-W F-measure (beta 1) of two token lists; 0 when either is empty."""
    if not reference or not prediction:
        return 0.0
    wlcs = weighted_lcs(reference, prediction, weight)
    inverse = 1.0 / weight
    recall = (wlcs / len(reference) ** weight) ** inverse
    precision = (wlcs / len(prediction) ** weight) ** inverse
    if precision + recall > 0:
        return 2 * precision * recall / (precision + recall)
    return 0.0


class _Rouge(MeanOfItems):
    """Shared by the ROUGE metrics: tokens (or the rouge package's sentences) per text, each
    text processed once per call, the best reference per item."""

    display_name: ClassVar[str]
    description: ClassVar[str]
    scale: ClassVar[float] = 1.0
    higher_is_better: ClassVar[bool] = True
    languages: ClassVar[Any] = None  # any language: the tokens do not depend on it
    runs_code: ClassVar[bool] = False

    def _setup(self, lang: str, tokenize: str, implementation: str) -> None:
        self._tokens = token_function(tokenize, self.name)
        self._implementation = _implementation(implementation, self.name)
        self.lang = resolve_language(lang).name  # tokens do not depend on it; a typo is an error
        if implementation == "rouge":
            if tokenize == "whitespace":  # the package's own splitting of the raw text
                self._units: Callable[[str], list[str]] = rouge_package_sentences
            else:
                tokens = self._tokens
                self._units = lambda text: rouge_package_sentences(" ".join(tokens(text)))
        else:
            self._units = self._tokens

    def _pair(self, reference: list[str], prediction: list[str]) -> float:
        raise NotImplementedError

    def item_values(self, predictions: list[str], references: list[list[str]]) -> np.ndarray:
        seen: dict[str, list[str]] = {}

        def units(text: str) -> list[str]:
            found = seen.get(text)
            if found is None:
                found = seen[text] = self._units(text)
            return found

        values = np.zeros(len(predictions))
        for index, (prediction, refs) in enumerate(zip(predictions, references, strict=True)):
            hyp = units(prediction)
            values[index] = max(self._pair(units(ref), hyp) for ref in refs)
        return values


class RougeLMetric(_Rouge):
    """ROUGE-L F-measure on code tokens, best reference per item, mean over items.

    ``implementation="rouge"`` gives the rouge package's summary-level ROUGE-L instead.

    >>> metric = RougeLMetric()
    >>> round(metric.compute(["x = a + b"], [["y = a + b", "x = a"]])["score"], 4)
    0.8
    """

    name = "rouge_l"
    display_name = "ROUGE-L"
    description = "Longest-common-subsequence F-measure (rouge-score or the rouge package), 0-1."
    seconds_per_1k_chars = 0.0021  # benchmarks/metric_cost.py, worst case

    def __init__(self, lang: str = DEFAULT_LANGUAGE, tokenize: str = "code",
                 implementation: str = "rouge-score") -> None:
        options: dict[str, Any] = {"tokenize": tokenize}
        if implementation != "rouge-score":
            options["implementation"] = implementation
        self._setup(lang, tokenize, implementation)
        super().__init__(**options)

    def _pair(self, reference: list[str], prediction: list[str]) -> float:
        if self._implementation == "rouge":
            return rouge_package_l(prediction, reference)
        return lcs_fmeasure(reference, prediction)


class RougeNMetric(_Rouge):
    """ROUGE-N F-measure (``n``-grams, default 2), best reference per item, mean over items.

    >>> round(RougeNMetric(n=1).compute(["x = a + b"], ["x = a + c"])["score"], 4)
    0.8
    """

    name = "rouge_n"
    display_name = "ROUGE-N"
    description = "N-gram overlap F-measure (rouge-score or the rouge package), n = 1..9."
    seconds_per_1k_chars = 0.003  # benchmarks/metric_cost.py, worst case

    def __init__(self, lang: str = DEFAULT_LANGUAGE, n: int = 2, tokenize: str = "code",
                 implementation: str = "rouge-score") -> None:
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= 9:
            raise ValueError(f"`n` must be an integer from 1 to 9 (ROUGE-1 .. ROUGE-9), got {n!r}.")
        self._n = int(n)
        options: dict[str, Any] = {"n": self._n, "tokenize": tokenize}
        if implementation != "rouge-score":
            options["implementation"] = implementation
        self._setup(lang, tokenize, implementation)
        super().__init__(**options)

    def _pair(self, reference: list[str], prediction: list[str]) -> float:
        if self._implementation == "rouge":
            return rouge_package_n(prediction, reference, self._n)
        return ngram_fmeasure(reference, prediction, self._n)


class RougeWMetric(_Rouge):
    """ROUGE-W (weighted LCS, Lin 2004) F-measure, best reference per item, mean over items.

    >>> round(RougeWMetric(tokenize="whitespace").compute(["a b c d"], ["a b c d"])["score"], 4)
    1.0
    """

    name = "rouge_w"
    display_name = "ROUGE-W"
    description = "Weighted LCS F-measure (Lin 2004): consecutive matches weigh more."
    seconds_per_1k_chars = 0.16  # benchmarks/metric_cost.py, worst case (quadratic in tokens)
    seconds_growth_per_1k_chars = 0.00032  # benchmarks/space.py, calibration

    def __init__(self, lang: str = DEFAULT_LANGUAGE, tokenize: str = "code", weight: float = 1.2) -> None:
        if (isinstance(weight, bool) or not isinstance(weight, (int, float, np.integer,
                                                                np.floating))
                or not math.isfinite(weight) or weight < 1):
            raise ValueError(f"`weight` must be a number >= 1 (f(k) = k ** weight; ROUGE-1.5.5 "
                             f"uses 1.2), got {weight!r}.")
        self._weight = float(weight)
        self._setup(lang, tokenize, "rouge-score")
        super().__init__(tokenize=tokenize, weight=self._weight)

    def _pair(self, reference: list[str], prediction: list[str]) -> float:
        return rouge_w_fmeasure(reference, prediction, self._weight)
