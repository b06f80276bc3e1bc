"""BLEU on code as Out of the BLEU computed it: sacrebleu's statistics and scores.

Each item is a row of sacrebleu's sufficient statistics ``[hyp_len, ref_len, correct_1..N,
total_1..N]`` (10 numbers for N = 4), n-grams clipped by the item's references together
and ``ref_len`` the closest reference length, exactly as sacrebleu counts them. Then:

- ``corpus_score`` (the ``score`` of :meth:`compute`) is sacrebleu's corpus BLEU of the
  summed rows (exp smoothing, no effective order): the "BLEU" of the study's tables;
- ``item_scores`` (``per_item``) is sacrebleu's *sentence* BLEU of each row (exp smoothing
  and effective order, as ``sacrebleu.sentence_bleu``): the study's per-snippet BLEU;
- ``score_from_statistics`` scores summed rows, vectorised, for resampling.

Scale 0-100 (sacrebleu's). The default tokenizer ``"code"`` is the study's: TranX code
tokens, then sacrebleu without further tokenization (what its vendored sacrebleu "code"
tokenizer did); sacrebleu's own tokenizers are options.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from sacrebleu.metrics.bleu import BLEU
from sacrebleu.metrics.helpers import extract_all_word_ngrams

from ..core.tokenizers import tranx_tokenize
from ..metric import Metric

#: ``tokenize`` choices: the study's code tokenizer and sacrebleu's offline tokenizers.
TOKENIZERS: tuple[str, ...] = ("code", "none", "13a", "intl", "char", "zh")
SMOOTH_METHODS: tuple[str, ...] = ("exp", "floor", "add-k", "none")

_MIN_LOG = -9999999999.0  # sacrebleu's floor for log(0)


def bleu_from_statistics(
    stats: np.ndarray,
    max_ngram_order: int = 4,
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    effective_order: bool = False,
) -> np.ndarray:
    """sacrebleu's ``BLEU.compute_bleu`` for every row of ``stats[..., 2 + 2N]``, vectorised.

    Follows sacrebleu's arithmetic step by step (same operations in the same order), so the
    values equal sacrebleu's to the last bits or within a unit of the last place.
    """
    stats = np.asarray(stats, dtype=np.float64)
    order = max_ngram_order
    if stats.shape[-1] != 2 + 2 * order:
        raise ValueError(
            f"BLEU statistics rows have {2 + 2 * order} numbers for max_ngram_order={order}, "
            f"got rows of {stats.shape[-1]}."
        )
    if smooth_value is None:
        smooth_value = BLEU.SMOOTH_DEFAULTS[smooth_method]
    sys_len, ref_len = stats[..., 0], stats[..., 1]
    correct = [stats[..., 2 + n].copy() for n in range(order)]
    total = [stats[..., 2 + order + n].copy() for n in range(order)]

    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        short = sys_len < ref_len
        ratio = ref_len / np.where(sys_len > 0, sys_len, 1.0)
        bp = np.where(short, np.where(sys_len > 0, np.exp(1.0 - ratio), 0.0), 1.0)

        any_correct = np.zeros(sys_len.shape, dtype=bool)
        for n in range(order):
            any_correct |= correct[n] != 0

        precisions = [np.zeros(sys_len.shape) for _ in range(order)]
        active = np.ones(sys_len.shape, dtype=bool)  # sacrebleu's loop has not broken yet
        eff_order = np.full(sys_len.shape, float(order))
        smooth_mteval = np.ones(sys_len.shape)
        for n in range(order):
            if smooth_method == "add-k" and n > 0:
                correct[n] = correct[n] + smooth_value
                total[n] = total[n] + smooth_value
            active &= total[n] != 0
            if effective_order:
                eff_order = np.where(active, float(n + 1), eff_order)
            safe_total = np.where(active, total[n], 1.0)
            zero = active & (correct[n] == 0)
            if smooth_method == "exp":
                smooth_mteval = np.where(zero, smooth_mteval * 2, smooth_mteval)
                precisions[n] = np.where(zero, 100.0 / (smooth_mteval * safe_total), 0.0)
            elif smooth_method == "floor":
                precisions[n] = np.where(zero, 100.0 * smooth_value / safe_total, 0.0)
            hit = active & (correct[n] != 0)
            precisions[n] = np.where(hit, 100.0 * correct[n] / safe_total, precisions[n])

        log_sum = np.zeros(sys_len.shape)
        for n in range(order):
            p = precisions[n]
            log_p = np.where(p > 0, np.log(np.where(p > 0, p, 1.0)), _MIN_LOG)
            log_sum = log_sum + np.where(n < eff_order, log_p, 0.0)
        score = bp * np.exp(log_sum / eff_order)
    return np.where(any_correct, score, 0.0)


class BleuMetric(Metric):
    """BLEU as Out of the BLEU computed it (sacrebleu; TranX code tokens by default).

    >>> metric = BleuMetric()
    >>> round(metric.compute(["x = a + b"], ["x = a + c"])["score"], 2)
    66.87
    """

    name = "bleu"
    scale = 100.0

    def __init__(
        self,
        lang: str = "python",
        tokenize: str = "code",
        lowercase: bool = False,
        smooth_method: str = "exp",
        smooth_value: float | None = None,
        max_ngram_order: int = 4,
    ) -> None:
        if not isinstance(tokenize, str) or tokenize not in TOKENIZERS:
            raise ValueError(
                f"Unknown `tokenize` {tokenize!r} for bleu; choose one of "
                f"{', '.join(repr(t) for t in TOKENIZERS)} (default 'code': TranX code "
                "tokens, as Out of the BLEU)."
            )
        if smooth_method not in SMOOTH_METHODS:
            raise ValueError(
                f"Unknown `smooth_method` {smooth_method!r}; choose one of "
                f"{', '.join(repr(m) for m in SMOOTH_METHODS)}."
            )
        if smooth_value is not None and (
            isinstance(smooth_value, bool)
            or not isinstance(smooth_value, (int, float))
            or not math.isfinite(smooth_value)
            or smooth_value <= 0
        ):
            raise ValueError(f"`smooth_value` must be a positive number, got {smooth_value!r}.")
        if (
            isinstance(max_ngram_order, bool)
            or not isinstance(max_ngram_order, int)
            or not 1 <= max_ngram_order <= 10
        ):
            raise ValueError(
                f"`max_ngram_order` must be an integer from 1 to 10, got {max_ngram_order!r}."
            )
        if not isinstance(lowercase, bool):
            raise TypeError(f"`lowercase` must be True or False, got {lowercase!r}.")
        # The tokenizer is language-independent; ``lang`` is accepted like every metric's.
        super().__init__(
            tokenize=tokenize,
            lowercase=lowercase,
            smooth_method=smooth_method,
            smooth_value=BLEU.SMOOTH_DEFAULTS[smooth_method]
            if smooth_value is None
            else smooth_value,
            max_ngram_order=max_ngram_order,
        )
        self.lang = lang
        self._tokenize = tokenize
        self._lowercase = lowercase
        self._smooth_method = smooth_method
        self._smooth_value = smooth_value
        self._order = max_ngram_order
        self._sacrebleu_tokenizer = (
            None if tokenize == "code" else BLEU(tokenize=tokenize).tokenizer
        )

    def preprocess(self, text: str) -> str:
        """The text as sacrebleu counts it: lowercased (option), right-stripped, tokenized."""
        if self._lowercase:
            text = text.lower()
        text = text.rstrip()
        if self._sacrebleu_tokenizer is None:
            return tranx_tokenize(text)
        return self._sacrebleu_tokenizer(text)

    def statistics(self, predictions: list[str], references: list[list[str]]) -> np.ndarray:
        order = self._order
        rows = np.zeros((len(predictions), 2 + 2 * order), dtype=np.float64)
        for row, (prediction, refs) in zip(
            rows, zip(predictions, references, strict=True), strict=True
        ):
            ref_counts: Any = None
            ref_lens = []
            for ref in refs:
                counts, length = extract_all_word_ngrams(self.preprocess(ref), 1, order)
                ref_lens.append(length)
                if ref_counts is None:
                    ref_counts = counts
                else:  # clip by the most frequent occurrence in any one reference
                    for ngram, count in counts.items():
                        if count > ref_counts[ngram]:
                            ref_counts[ngram] = count
            hyp_counts, hyp_len = extract_all_word_ngrams(self.preprocess(prediction), 1, order)
            # closest reference length, the shorter one on ties (sacrebleu's rule)
            ref_len = min(ref_lens, key=lambda length: (abs(hyp_len - length), length))
            row[0], row[1] = hyp_len, ref_len
            for ngram, count in hyp_counts.items():
                n = len(ngram) - 1
                row[2 + order + n] += count
                matched = ref_counts.get(ngram, 0)
                if matched:
                    row[2 + n] += min(count, matched)
        return rows

    def score_from_statistics(self, stats: np.ndarray) -> np.ndarray:
        """Corpus BLEU of (summed) statistics rows, as ``sacrebleu.corpus_bleu``."""
        return bleu_from_statistics(
            stats, self._order, self._smooth_method, self._smooth_value, effective_order=False
        )

    def item_scores(self, stats: np.ndarray) -> np.ndarray:
        """Sentence BLEU of each row (effective order), as ``sacrebleu.sentence_bleu``."""
        return bleu_from_statistics(
            stats, self._order, self._smooth_method, self._smooth_value, effective_order=True
        )
