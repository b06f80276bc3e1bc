"""sacrebleu's BLEU and chrF as :class:`~cgm_metrics.metric.Metric` objects.

The statistics are exactly sacrebleu's per-segment statistics (BLEU: hyp_len, ref_len, 4
matches, 4 totals; chrF: [hyp, ref, match] per order), and ``score_from_statistics`` repeats
sacrebleu's arithmetic in the same order, vectorised over resamples. With one reference per
item the statistics are counted for the whole corpus at once with numpy (one sort per n-gram
order instead of a Counter per segment); several references, or chrF with word n-grams, use
sacrebleu's own extraction.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from sacrebleu.metrics import BLEU, CHRF

from ..metric import Metric

_MY_LOG_FLOOR = -9999999999.0  # sacrebleu's my_log(0)


def ngram_match_statistics(
    hypotheses: list[np.ndarray], references: np.ndarray, ref_lengths: np.ndarray,
    hyp_lengths_list: list[np.ndarray], max_order: int,
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Clipped n-gram matches of several hypothesis streams against one reference stream.

    Each stream is a flat array of token ids with per-item lengths. Returns, per hypothesis
    stream, ``(hyp_counts, ref_counts, matches)`` of shape ``[n_items, max_order]``.
    """
    n_items = len(ref_lengths)
    streams = [*hypotheses, references]
    lengths = [*hyp_lengths_list, ref_lengths]
    all_ids = np.concatenate([np.asarray(s, dtype=np.int64) for s in streams])
    all_lengths = np.concatenate([np.asarray(x, dtype=np.int64) for x in lengths])
    n_positions = len(all_ids)
    out = [
        (np.zeros((n_items, max_order)), np.zeros((n_items, max_order)),
         np.zeros((n_items, max_order)))
        for _ in hypotheses
    ]
    if n_positions == 0:
        return out
    _, dense = np.unique(all_ids, return_inverse=True)
    dense = dense.astype(np.int64).ravel()
    vocab = int(dense.max()) + 1
    segment = np.repeat(np.arange(len(all_lengths)), all_lengths) % n_items
    seg_end = np.repeat(np.cumsum(all_lengths), all_lengths)
    positions = np.arange(n_positions)
    bounds = np.cumsum([0] + [len(s) for s in streams])
    code = dense.copy()
    code_bound = vocab
    limit = 2**62 // max(n_items, 1)
    for order in range(1, max_order + 1):
        if order > 1:
            if code_bound * vocab >= limit:  # keep keys inside int64: re-number used codes
                fits = positions + order - 2 < seg_end
                _, renumbered = np.unique(code[fits], return_inverse=True)
                code = np.zeros(n_positions, dtype=np.int64)
                code[fits] = renumbered.ravel()
                code_bound = int(renumbered.max()) + 1 if renumbered.size else 1
            following = dense[np.minimum(positions + order - 1, n_positions - 1)]
            code = code * vocab + following
            code_bound *= vocab
        valid = positions + order - 1 < seg_end
        keys = []
        for index in range(len(streams)):
            lo, hi = bounds[index], bounds[index + 1]
            mask = valid[lo:hi]
            keys.append((segment[lo:hi][mask], segment[lo:hi][mask] * code_bound + code[lo:hi][mask]))
        ref_seg, ref_keys = keys[-1]
        ref_unique, ref_counts = np.unique(ref_keys, return_counts=True)
        ref_total = np.bincount(ref_seg, minlength=n_items)
        for index in range(len(hypotheses)):
            hyp_seg, hyp_keys = keys[index]
            hyp_unique, hyp_counts = np.unique(hyp_keys, return_counts=True)
            common, in_hyp, in_ref = np.intersect1d(
                hyp_unique, ref_unique, assume_unique=True, return_indices=True
            )
            clipped = np.minimum(hyp_counts[in_hyp], ref_counts[in_ref])
            out[index][0][:, order - 1] = np.bincount(hyp_seg, minlength=n_items)
            out[index][1][:, order - 1] = ref_total
            out[index][2][:, order - 1] = np.bincount(
                common // code_bound, weights=clipped, minlength=n_items
            )
    return out


def _single_references(references: list[list[str]]) -> list[str] | None:
    if all(len(refs) == 1 for refs in references):
        return [refs[0] for refs in references]
    return None


class _SacrebleuMetric(Metric):
    scale: ClassVar[float] = 100.0

    def _sacrebleu(self) -> Any:
        raise NotImplementedError

    def _sacrebleu_references(self, references: list[list[str]]) -> list[list[str | None]]:
        width = max(len(refs) for refs in references)
        return [[refs[j] if j < len(refs) else None for refs in references] for j in range(width)]

    def statistics(self, predictions: list[str], references: list[list[str]]) -> np.ndarray:
        return self.statistics_many([predictions], references)[0]

    def statistics_many(
        self, systems: list[list[str]], references: list[list[str]]
    ) -> list[np.ndarray]:
        """Statistics of several systems on the same references (references read once)."""
        single = _single_references(references)
        if single is None or not self._fast_path():
            metric = self._sacrebleu()
            cache = metric._cache_references(self._sacrebleu_references(references))
            metric._ref_cache = cache
            return [
                np.asarray(metric._extract_corpus_statistics(hyps, None), dtype=np.float64)
                for hyps in systems
            ]
        return self._fast_statistics(systems, single)

    def _fast_path(self) -> bool:
        return True


class SacrebleuBleu(_SacrebleuMetric):
    """sacrebleu's corpus BLEU (default: 13a tokenizer, exp smoothing), scale 0-100.

    >>> from cgm_metrics.significance import SacrebleuBleu
    >>> metric = SacrebleuBleu()
    >>> round(metric.compute(["the cat sat on the mat"], ["the cat sat on a mat"])["score"], 4)
    53.7285
    """

    name: ClassVar[str] = "sacrebleu_bleu"

    def __init__(
        self, lowercase: bool = False, tokenize: str = "13a", smooth_method: str = "exp",
        smooth_value: float | None = None, max_ngram_order: int = 4,
        effective_order: bool = False, lang: str | None = None,
    ) -> None:
        if smooth_method not in BLEU.SMOOTH_DEFAULTS:
            raise ValueError(
                f"smooth_method must be one of {', '.join(BLEU.SMOOTH_DEFAULTS)}, got {smooth_method!r}"
            )
        super().__init__(
            lowercase=lowercase, tokenize=tokenize, smooth_method=smooth_method,
            smooth_value=smooth_value, max_ngram_order=max_ngram_order,
            effective_order=effective_order,
        )
        self._bleu = BLEU(
            lowercase=lowercase, tokenize=tokenize, smooth_method=smooth_method,
            smooth_value=smooth_value, max_ngram_order=max_ngram_order,
            effective_order=effective_order, force=True,
        )

    def _sacrebleu(self) -> BLEU:
        return self._bleu

    def _tokens(self, text: str) -> list[str]:
        if self.options["lowercase"]:
            text = text.lower()
        return self._bleu.tokenizer(text.rstrip()).split()

    def _fast_statistics(self, systems: list[list[str]], references: list[str]) -> list[np.ndarray]:
        vocabulary: dict[str, int] = {}

        def encode(texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
            ids: list[int] = []
            lengths = []
            for text in texts:
                tokens = self._tokens(text)
                lengths.append(len(tokens))
                ids.extend(vocabulary.setdefault(t, len(vocabulary)) for t in tokens)
            return np.asarray(ids, dtype=np.int64), np.asarray(lengths, dtype=np.int64)

        ref_ids, ref_lengths = encode(references)
        encoded = [encode(hyps) for hyps in systems]
        order = self.options["max_ngram_order"]
        counts = ngram_match_statistics(
            [e[0] for e in encoded], ref_ids, ref_lengths, [e[1] for e in encoded], order
        )
        result = []
        for (_, hyp_lengths), (totals, _, matches) in zip(encoded, counts, strict=True):
            result.append(
                np.column_stack([hyp_lengths, ref_lengths, matches, totals]).astype(np.float64)
            )
        return result

    def score_from_statistics(self, stats: np.ndarray) -> np.ndarray:
        stats = np.asarray(stats, dtype=np.float64)
        order = self.options["max_ngram_order"]
        method = self.options["smooth_method"]
        value = self.options["smooth_value"]
        if value is None:
            value = BLEU.SMOOTH_DEFAULTS[method]
        sys_len = np.trunc(stats[..., 0])
        ref_len = np.trunc(stats[..., 1])
        correct = stats[..., 2 : 2 + order].copy()
        total = stats[..., 2 + order : 2 + 2 * order].copy()
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            bp = np.where(
                sys_len < ref_len,
                np.where(sys_len > 0, np.exp(1 - ref_len / np.where(sys_len > 0, sys_len, 1)), 0.0),
                1.0,
            )
            any_correct = (correct != 0).any(axis=-1)
            precisions = np.zeros_like(correct)
            active = np.ones(sys_len.shape, dtype=bool)  # orders still processed (no break yet)
            eff_order = np.full(sys_len.shape, float(order))
            smooth_mteval = np.ones(sys_len.shape)
            for n in range(order):
                if method == "add-k" and n > 0:
                    correct[..., n] += value
                    total[..., n] += value
                c, t = correct[..., n], total[..., n]
                active &= t != 0
                if self.options["effective_order"]:
                    eff_order = np.where(active, n + 1.0, eff_order)
                safe_t = np.where(t != 0, t, 1.0)
                zero = active & (c == 0)
                if method == "exp":
                    smooth_mteval = np.where(zero, smooth_mteval * 2, smooth_mteval)
                    smoothed = 100.0 / (smooth_mteval * safe_t)
                elif method == "floor":
                    smoothed = 100.0 * value / safe_t
                else:
                    smoothed = np.zeros_like(c)
                precisions[..., n] = np.where(
                    active, np.where(c == 0, smoothed, 100.0 * c / safe_t), 0.0
                )
            logs = np.where(precisions == 0.0, _MY_LOG_FLOOR, np.log(np.where(precisions > 0, precisions, 1.0)))
            log_sum = np.zeros(sys_len.shape)
            for n in range(order):
                log_sum = np.where(n < eff_order, log_sum + logs[..., n], log_sum)
            score = bp * np.exp(log_sum / eff_order)
        return np.where(any_correct, score, 0.0)

    def components_from_statistics(self, stats: np.ndarray) -> dict[str, np.ndarray]:
        return {}


class SacrebleuChrf(_SacrebleuMetric):
    """sacrebleu's chrF (default chrF2: character 6-grams, beta 2), scale 0-100.

    >>> from cgm_metrics.significance import SacrebleuChrf
    >>> round(SacrebleuChrf().compute(["return a + b"], ["return x + y"])["score"], 4)
    52.0701
    """

    name: ClassVar[str] = "sacrebleu_chrf"

    def __init__(
        self, char_order: int = 6, word_order: int = 0, beta: int = 2, lowercase: bool = False,
        whitespace: bool = False, eps_smoothing: bool = False, lang: str | None = None,
    ) -> None:
        super().__init__(
            char_order=char_order, word_order=word_order, beta=beta, lowercase=lowercase,
            whitespace=whitespace, eps_smoothing=eps_smoothing,
        )
        self._chrf = CHRF(
            char_order=char_order, word_order=word_order, beta=beta, lowercase=lowercase,
            whitespace=whitespace, eps_smoothing=eps_smoothing,
        )

    def _sacrebleu(self) -> CHRF:
        return self._chrf

    def _fast_path(self) -> bool:
        return self.options["word_order"] == 0

    def _chars(self, text: str) -> str:
        if self.options["lowercase"]:
            text = text.lower()
        return text if self.options["whitespace"] else "".join(text.split())

    def _fast_statistics(self, systems: list[list[str]], references: list[str]) -> list[np.ndarray]:
        def encode(texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
            chars = [self._chars(t) for t in texts]
            joined = "".join(chars).encode("utf-32-le")
            return (
                np.frombuffer(joined, dtype=np.uint32).astype(np.int64),
                np.fromiter((len(c) for c in chars), dtype=np.int64, count=len(chars)),
            )

        ref_ids, ref_lengths = encode(references)
        encoded = [encode(hyps) for hyps in systems]
        counts = ngram_match_statistics(
            [e[0] for e in encoded], ref_ids, ref_lengths, [e[1] for e in encoded],
            self.options["char_order"],
        )
        result = []
        for hyp_counts, ref_counts, matches in counts:
            hyp_counts = np.where(ref_counts > 0, hyp_counts, 0.0)  # sacrebleu: no ref, no hyp count
            stacked = np.stack([hyp_counts, ref_counts, matches], axis=-1)
            result.append(stacked.reshape(len(references), -1).astype(np.float64))
        return result

    def score_from_statistics(self, stats: np.ndarray) -> np.ndarray:
        stats = np.asarray(stats, dtype=np.float64)
        eps = 1e-16
        factor = self.options["beta"] ** 2
        order = self.options["char_order"] + self.options["word_order"]
        shape = stats.shape[:-1]
        score = np.zeros(shape)
        avg_prec, avg_rec = np.zeros(shape), np.zeros(shape)
        effective = np.zeros(shape)
        with np.errstate(divide="ignore", invalid="ignore"):
            for i in range(order):
                n_hyp, n_ref, n_match = stats[..., 3 * i], stats[..., 3 * i + 1], stats[..., 3 * i + 2]
                prec = np.where(n_hyp > 0, n_match / np.where(n_hyp > 0, n_hyp, 1), eps)
                rec = np.where(n_ref > 0, n_match / np.where(n_ref > 0, n_ref, 1), eps)
                denom = factor * prec + rec
                score = score + np.where(
                    denom > 0, (1 + factor) * prec * rec / np.where(denom > 0, denom, 1), eps
                )
                both = (n_hyp > 0) & (n_ref > 0)
                avg_prec = np.where(both, avg_prec + prec, avg_prec)
                avg_rec = np.where(both, avg_rec + rec, avg_rec)
                effective = effective + both
            if self.options["eps_smoothing"]:
                return 100 * score / order
            safe = np.where(effective > 0, effective, 1)
            avg_prec = np.where(effective > 0, avg_prec / safe, 0.0)
            avg_rec = np.where(effective > 0, avg_rec / safe, 0.0)
            nonzero = (avg_prec + avg_rec) != 0
            f = (1 + factor) * avg_prec * avg_rec
            f = f / np.where(nonzero, (factor * avg_prec) + avg_rec, 1)
        return np.where(nonzero, 100 * f, 0.0)
