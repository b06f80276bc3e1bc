"""BLEU, the one implementation: Out of the BLEU's code BLEU and sacrebleu's BLEU as options.

Each item is a row of sacrebleu's sufficient statistics ``[hyp_len, ref_len, correct_1..N,
total_1..N]`` (10 numbers for N = 4), n-grams clipped by the item's references together
and ``ref_len`` the closest reference length, exactly as sacrebleu counts them. Then:

- ``corpus_score`` (the ``score`` of :meth:`compute`) is sacrebleu's corpus BLEU of the
  summed rows (exp smoothing; effective order only when asked): the "BLEU" of the study's
  tables, and ``sacrebleu.corpus_bleu`` with ``tokenize="13a"``;
- ``item_scores`` (``per_item``) is sacrebleu's *sentence* BLEU of each row (exp smoothing
  and effective order, as ``sacrebleu.sentence_bleu``): the study's per-snippet BLEU;
- ``score_from_statistics`` scores summed rows, vectorised, for resampling.

``smooth_method="nltk-method5"`` is the sentence BLEU of Roy et al. 2021: nltk's
``sentence_bleu`` with ``SmoothingFunction().method5`` (Chen & Cherry 2014), equal per item
to nltk (exact rational arithmetic for the smoothed precisions, as nltk's ``Fraction``s);
with ``tokenize="none"`` the tokens are the whitespace-split text nltk is usually given.
Its rows also count 5-grams (method 5 averages each precision with the next order's) and
keep nltk's denominators ``max(1, n-grams)``, so summed rows are nltk's ``corpus_bleu`` sums;
the corpus score applies method 5 to those sums (nltk's ``corpus_bleu`` would take the
5-gram precision of the last sentence only).

Scale 0-100 (sacrebleu's). The default tokenizer ``"code"`` is the study's: TranX code
tokens, then sacrebleu without further tokenization (what its vendored sacrebleu "code"
tokenizer did); sacrebleu's own tokenizers are options (``tokenize="13a"`` with the other
defaults is ``sacrebleu.BLEU()``, which the significance tests' ``metric="bleu"`` uses).

With one reference per item the n-grams of the whole corpus are counted at once with numpy
(one sort per n-gram order instead of a ``Counter`` per segment); several references use
sacrebleu's public n-gram extraction per item. The transcendental steps (``exp``, ``log``)
use the C library's functions, as sacrebleu's ``math`` calls do: numpy's SIMD ``exp``/``log``
differ from them in the last bit on some CPUs (AVX-512), which would make resampled
medians differ from the published ones.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...core.tokenizers import tranx_tokenize
from ...languages import DEFAULT_LANGUAGE, resolve_language
from ...pipeline.metric import Metric

#: ``tokenize`` choices: the study's code tokenizer and sacrebleu's offline tokenizers.
TOKENIZERS: tuple[str, ...] = ("code", "none", "13a", "intl", "char", "zh")
SMOOTH_METHODS: tuple[str, ...] = ("exp", "floor", "add-k", "none", "nltk-method5")
NLTK_METHOD5 = "nltk-method5"
#: sacrebleu's ``BLEU.SMOOTH_DEFAULTS`` (sacrebleu itself is imported only when its
#: tokenizers or its multi-reference n-gram extraction are needed)
SMOOTH_DEFAULTS: dict[str, float | None] = {"none": None, "floor": 0.1, "add-k": 1, "exp": None,
                                            NLTK_METHOD5: None}

_MIN_LOG = -9999999999.0  # sacrebleu's floor for log(0)
_libm_exp = np.frompyfunc(math.exp, 1, 1)
_libm_log = np.frompyfunc(math.log, 1, 1)


def _exp(values: np.ndarray) -> np.ndarray:
    """``math.exp`` elementwise (the C library's, bit for bit as sacrebleu)."""
    return np.asarray(_libm_exp(np.asarray(values, dtype=np.float64)), dtype=np.float64)


def _log(values: np.ndarray) -> np.ndarray:
    return np.asarray(_libm_log(np.asarray(values, dtype=np.float64)), dtype=np.float64)


def bleu_from_statistics(
    stats: np.ndarray,
    max_ngram_order: int = 4,
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    effective_order: bool = False,
) -> np.ndarray:
    """sacrebleu's ``BLEU.compute_bleu`` for every row of ``stats[..., 2 + 2N]``, vectorised.

    Follows sacrebleu's arithmetic step by step (same operations in the same order, ``exp``
    and ``log`` from the C library), so the values equal sacrebleu's bit for bit.
    """
    stats = np.asarray(stats, dtype=np.float64)
    order = max_ngram_order
    if stats.shape[-1] != 2 + 2 * order:
        raise ValueError(
            f"BLEU statistics rows have {2 + 2 * order} numbers for max_ngram_order={order}, "
            f"got rows of {stats.shape[-1]}."
        )
    default = SMOOTH_DEFAULTS[smooth_method]  # None for exp and none: value unused
    value = float(default or 0.0) if smooth_value is None else float(smooth_value)
    sys_len, ref_len = stats[..., 0], stats[..., 1]
    correct = [stats[..., 2 + n].copy() for n in range(order)]
    total = [stats[..., 2 + order + n].copy() for n in range(order)]

    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        short = (sys_len < ref_len) & (sys_len > 0)
        bp = np.where(sys_len < ref_len, 0.0, 1.0)
        if short.any():
            bp[short] = _exp(1.0 - ref_len[short] / sys_len[short])

        any_correct = np.zeros(sys_len.shape, dtype=bool)
        for n in range(order):
            any_correct |= correct[n] != 0

        precisions = [np.zeros(sys_len.shape) for _ in range(order)]
        active = np.ones(sys_len.shape, dtype=bool)  # sacrebleu's loop has not broken yet
        eff_order = np.full(sys_len.shape, float(order))
        smooth_mteval = np.ones(sys_len.shape)
        for n in range(order):
            if smooth_method == "add-k" and n > 0:
                correct[n] = correct[n] + value
                total[n] = total[n] + value
            active &= total[n] != 0
            if effective_order:
                eff_order = np.where(active, float(n + 1), eff_order)
            safe_total = np.where(active, total[n], 1.0)
            zero = active & (correct[n] == 0)
            if smooth_method == "exp":
                smooth_mteval = np.where(zero, smooth_mteval * 2, smooth_mteval)
                precisions[n] = np.where(zero, 100.0 / (smooth_mteval * safe_total), 0.0)
            elif smooth_method == "floor":
                precisions[n] = np.where(zero, 100.0 * value / safe_total, 0.0)
            hit = active & (correct[n] != 0)
            precisions[n] = np.where(hit, 100.0 * correct[n] / safe_total, precisions[n])

        log_sum = np.zeros(sys_len.shape)
        for n in range(order):
            p = precisions[n]
            log_p = np.full(p.shape, _MIN_LOG)
            positive = p > 0
            if positive.any():
                log_p[positive] = _log(p[positive])
            log_sum = log_sum + np.where(n < eff_order, log_p, 0.0)
        score = bp * _exp(log_sum / eff_order)
    return np.where(any_correct, score, 0.0)


def _nltk_method5_row(row: np.ndarray) -> float:
    """nltk's BLEU-4 with smoothing method 5 of one row ``[hyp_len, ref_len, c1..c5,
    d1..d5]`` (``d`` = nltk's denominators ``max(1, n-grams)``), on a 0-1 scale.

    The same steps as nltk's ``corpus_bleu``: 0 without a unigram match; each precision
    averaged with the previous smoothed one and the next order's (the first with
    ``p1 + 1``), as exact fractions: numerator and denominator are Python integers (not
    reduced, which ``Fraction`` would do at a gcd per step), and ``num / den`` is the
    correctly rounded float nltk gets from its ``Fraction``; then
    ``bp * exp(fsum(0.25 * log(p)))`` with nltk's brevity penalty.
    """
    hyp_len, ref_len = float(row[0]), float(row[1])
    correct = [int(row[2 + n]) for n in range(5)]
    if correct[0] == 0:
        return 0.0
    denominator = [int(row[7 + n]) for n in range(5)]
    num, den = correct[0] + denominator[0], denominator[0]  # p1 + 1
    logs = []
    for n in range(4):
        c, d = correct[n], denominator[n]
        c_next, d_next = correct[n + 1], denominator[n + 1]
        # (num / den + c / d + c_next / d_next) / 3
        num = num * d * d_next + c * den * d_next + c_next * den * d
        den = 3 * den * d * d_next
        if num > 0:
            logs.append(0.25 * math.log(num / den))
    if hyp_len > ref_len:
        penalty = 1.0
    elif hyp_len == 0:
        penalty = 0.0
    else:
        penalty = math.exp(1 - ref_len / hyp_len)
    return penalty * math.exp(math.fsum(logs))


def nltk_method5_from_statistics(stats: np.ndarray) -> np.ndarray:
    """BLEU (0-100) with nltk's smoothing method 5 of every row of ``stats[..., 12]``."""
    stats = np.asarray(stats, dtype=np.float64)
    if stats.shape[-1] != 12:
        raise ValueError(
            "nltk-method5 BLEU statistics rows have 12 numbers (lengths, 5 match counts, 5 "
            f"denominators), got rows of {stats.shape[-1]}."
        )
    flat = stats.reshape(-1, 12)
    out = np.fromiter((100 * _nltk_method5_row(row) for row in flat), np.float64, len(flat))
    return out.reshape(stats.shape[:-1])


def corpus_ngram_statistics(
    hypotheses: list[list[str]], references: list[list[str]], max_order: int
) -> np.ndarray:
    """BLEU rows of token lists with one reference per item, counted with numpy.

    Every n-gram becomes an int64 key ``(item, n-gram code)``; one ``unique`` per order and
    side counts them and ``intersect1d`` pairs hypothesis and reference n-grams, so the
    clipped matches are ``min(hyp count, ref count)`` summed per item, as sacrebleu counts.
    """
    n_items = len(hypotheses)
    vocabulary: dict[str, int] = {}

    def encode(texts: list[list[str]]) -> tuple[np.ndarray, np.ndarray]:
        lengths = np.fromiter(map(len, texts), np.int64, len(texts))
        ids = [vocabulary.setdefault(t, len(vocabulary)) for tokens in texts for t in tokens]
        return np.asarray(ids, dtype=np.int64), lengths

    hyp_ids, hyp_lengths = encode(hypotheses)
    ref_ids, ref_lengths = encode(references)
    rows = np.zeros((n_items, 2 + 2 * max_order), dtype=np.float64)
    rows[:, 0], rows[:, 1] = hyp_lengths, ref_lengths
    orders = np.arange(1, max_order + 1)
    rows[:, 2 + max_order :] = np.maximum(hyp_lengths[:, None] - orders + 1, 0)
    if hyp_ids.size == 0 or ref_ids.size == 0:
        return rows
    n_hyp = hyp_ids.size
    ids = np.concatenate([hyp_ids, ref_ids]) + 1  # token codes 1..V, both sides together
    lengths = np.concatenate([hyp_lengths, ref_lengths])
    segment = np.repeat(np.arange(2 * n_items, dtype=np.int64), lengths) % n_items
    seg_end = np.repeat(np.cumsum(lengths), lengths)
    positions = np.arange(ids.size)
    vocab = len(vocabulary) + 1
    codes = ids.copy()
    bound = vocab
    for order in range(1, max_order + 1):
        if order > 1:  # extend every (n-1)-gram by its next token, then number them 1..K
            codes = codes * vocab + ids[np.minimum(positions + order - 1, ids.size - 1)]
            unique, inverse = np.unique(codes, return_inverse=True)
            codes = inverse.ravel().astype(np.int64) + 1
            bound = unique.size + 1
        valid = positions + order - 1 < seg_end
        keys = segment * bound + codes
        hyp_keys = keys[:n_hyp][valid[:n_hyp]]
        ref_keys = keys[n_hyp:][valid[n_hyp:]]
        hyp_unique, hyp_counts = np.unique(hyp_keys, return_counts=True)
        ref_unique, ref_counts = np.unique(ref_keys, return_counts=True)
        common, in_hyp, in_ref = np.intersect1d(
            hyp_unique, ref_unique, assume_unique=True, return_indices=True
        )
        clipped = np.minimum(hyp_counts[in_hyp], ref_counts[in_ref])
        rows[:, 1 + order] = np.bincount(common // bound, weights=clipped, minlength=n_items)
    return rows


class BleuMetric(Metric):
    """BLEU as Out of the BLEU computed it (TranX code tokens by default), or sacrebleu's BLEU
    with ``tokenize="13a"`` (its other tokenizers, too).

    >>> metric = BleuMetric()
    >>> round(metric.compute(["x = a + b"], ["x = a + c"])["score"], 2)
    66.87
    >>> round(BleuMetric(tokenize="13a").compute(["the cat sat on the mat"],
    ...                                          ["the cat sat on a mat"])["score"], 4)
    53.7285
    """

    name = "bleu"
    display_name = "BLEU"
    description = ("1-4-gram precision with a brevity penalty on code tokens, 0-100. On a "
                   "single short snippet it is noisy (one missing 4-gram changes it a lot).")
    seconds_per_1k_chars = 0.0042  # benchmarks/metric_cost.py, worst case
    scale = 100.0

    def __init__(
        self,
        lang: str = DEFAULT_LANGUAGE,
        tokenize: str = "code",
        lowercase: bool = False,
        smooth_method: str = "exp",
        smooth_value: float | None = None,
        max_ngram_order: int = 4,
        effective_order: bool = False,
    ) -> None:
        if not isinstance(tokenize, str) or tokenize not in TOKENIZERS:
            raise ValueError(
                f"Unknown `tokenize` {tokenize!r} for bleu; choose one of "
                f"{', '.join(repr(t) for t in TOKENIZERS)} (default 'code': TranX code "
                "tokens, as Out of the BLEU; '13a' is sacrebleu's default)."
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
        for flag, value in (("lowercase", lowercase), ("effective_order", effective_order)):
            if not isinstance(value, bool):
                raise TypeError(f"`{flag}` must be True or False, got {value!r}.")
        if smooth_method == NLTK_METHOD5 and (
            smooth_value is not None or max_ngram_order != 4 or effective_order
        ):
            raise ValueError(
                "smooth_method='nltk-method5' is nltk's BLEU-4 with smoothing method 5: it takes "
                "no `smooth_value` or `effective_order`, and `max_ngram_order` must be 4."
            )
        # The tokenizers do not depend on the language, but an unknown one is still an error.
        self.lang = resolve_language(lang).name
        options: dict[str, Any] = {
            "tokenize": tokenize,
            "lowercase": lowercase,
            "smooth_method": smooth_method,
            "smooth_value": SMOOTH_DEFAULTS[smooth_method]
            if smooth_value is None
            else smooth_value,
            "max_ngram_order": max_ngram_order,
        }
        if effective_order:
            options["effective_order"] = True
        super().__init__(**options)
        self._tokenize = tokenize
        self._lowercase = lowercase
        self._smooth_method = smooth_method
        self._smooth_value = smooth_value
        self._order = max_ngram_order
        self._effective_order = effective_order
        self._sacrebleu_tokenizer: Any = None
        if tokenize != "code":
            from sacrebleu.metrics.bleu import BLEU

            self._sacrebleu_tokenizer = BLEU(tokenize=tokenize).tokenizer

    @property
    def _nltk(self) -> bool:
        return self._smooth_method == NLTK_METHOD5

    def columns(self) -> tuple[str, ...]:
        if self._nltk:  # nltk counts one order more for method 5, denominators >= 1
            order = range(1, 6)
            return ("hyp_len", "ref_len", *(f"correct_{n}" for n in order),
                    *(f"denominator_{n}" for n in order))
        order = range(1, self._order + 1)
        return (
            "hyp_len", "ref_len", *(f"correct_{n}" for n in order), *(f"total_{n}" for n in order)
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
        if self._nltk:
            rows = self._count_statistics(predictions, references, 5)
            rows[:, 7:] = np.maximum(rows[:, 7:], 1.0)  # nltk's max(1, n-grams)
            return rows
        return self._count_statistics(predictions, references, self._order)

    def _count_statistics(
        self, predictions: list[str], references: list[list[str]], order: int
    ) -> np.ndarray:
        if all(len(refs) == 1 for refs in references):
            seen: dict[str, list[str]] = {}  # a text repeated in the call is tokenized once

            def tokens(text: str) -> list[str]:
                found = seen.get(text)
                if found is None:
                    found = seen[text] = self.preprocess(text).split()
                return found

            return corpus_ngram_statistics(
                [tokens(text) for text in predictions],
                [tokens(refs[0]) for refs in references],
                order,
            )
        from sacrebleu.metrics.helpers import extract_all_word_ngrams

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
        """Corpus BLEU of (summed) statistics rows, as ``sacrebleu.corpus_bleu`` (or nltk's
        method 5 on the summed counts)."""
        if self._nltk:
            return nltk_method5_from_statistics(stats)
        return bleu_from_statistics(
            stats, self._order, self._smooth_method, self._smooth_value, self._effective_order
        )

    def item_scores(self, stats: np.ndarray) -> np.ndarray:
        """Sentence BLEU of each row (effective order), as ``sacrebleu.sentence_bleu``, or
        nltk's ``sentence_bleu`` with ``SmoothingFunction().method5``."""
        if self._nltk:
            return nltk_method5_from_statistics(stats)
        return bleu_from_statistics(
            stats, self._order, self._smooth_method, self._smooth_value, effective_order=True
        )
