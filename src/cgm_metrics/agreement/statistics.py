"""Per-item statistics of the metrics the analysis resamples.

Each metric is a :class:`ItemStatistics`: rows of statistics per (system, item) and a
vectorised function turning summed rows into a score on a 0-1 scale. Per-item metric
scores read from the file are rows ``[value]`` scored as a mean; our registry metrics bring
their own statistics; corpus BLEU with the study's code tokenizer uses sacrebleu's counts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

MAX_ORDER = 4


@dataclass
class ItemStatistics:
    """Statistics of one metric: ``stats[system, item, k]`` and ``score(summed[..., k])``.

    ``mean_of_items`` marks metrics whose corpus score is the mean of per-item values (then
    ``k == 1`` and the values are ``stats[..., 0]``). ``points`` converts a score difference
    into points (100 for 0-1 scores). ``item_values[system, item]`` are per-item scores for
    correlations.
    """

    name: str
    stats: np.ndarray
    score: Callable[[np.ndarray], np.ndarray]
    mean_of_items: bool
    points: float
    item_values: np.ndarray
    source: str  # "file", "registry:<signature>", "sacrebleu-code-bleu", "human"


def from_values(name: str, values: np.ndarray, source: str) -> ItemStatistics:
    """A metric given per item (a mean of item values): 0-1 values, or 0-100 when any is > 1."""
    values = np.asarray(values, dtype=np.float64)
    points = 100.0 if np.all(np.abs(values) <= 1.0) else 1.0
    n_items = values.shape[1]

    def score(summed: np.ndarray) -> np.ndarray:
        return summed[..., 0] / n_items

    return ItemStatistics(name, values[..., None], score, True, points, values, source)


def bleu_score_from_counts(stats: np.ndarray) -> np.ndarray:
    """sacrebleu's corpus BLEU (``smooth_method="exp"``) of summed counts, divided by 100.

    ``stats[..., :]`` = ``[sys_len, ref_len, correct_1..4, total_1..4]``; vectorised form of
    ``sacrebleu.BLEU.compute_bleu``, including its early zero and its exp smoothing.
    """
    stats = np.asarray(stats, dtype=np.float64)
    sys_len, ref_len = stats[..., 0], stats[..., 1]
    correct = stats[..., 2 : 2 + MAX_ORDER]
    total = stats[..., 2 + MAX_ORDER : 2 + 2 * MAX_ORDER]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        bp = np.where(
            sys_len < ref_len,
            np.where(sys_len > 0, np.exp(1 - ref_len / np.where(sys_len > 0, sys_len, 1)), 0.0),
            1.0,
        )
        smooth = np.ones(sys_len.shape)
        stopped = np.zeros(sys_len.shape, dtype=bool)
        log_sum = np.zeros(sys_len.shape)
        for n in range(MAX_ORDER):
            stopped = stopped | (total[..., n] == 0)
            zero = correct[..., n] == 0
            smooth = np.where(~stopped & zero, smooth * 2, smooth)
            safe_total = np.where(total[..., n] > 0, total[..., n], 1)
            precision = np.where(
                stopped,
                0.0,
                np.where(zero, 100.0 / (smooth * safe_total), 100.0 * correct[..., n] / safe_total),
            )
            log_sum = log_sum + np.where(precision == 0, -9999999999.0,
                                         np.log(np.where(precision > 0, precision, 1)))
        score = bp * np.exp(log_sum / MAX_ORDER)
    score = np.where(np.any(correct != 0, axis=-1), score, 0.0)
    return score / 100.0


def code_bleu_statistics(predictions: list[list[str]], references: list[list[str]]) -> np.ndarray:
    """sacrebleu BLEU counts per (system, item) on TranX-tokenized code (the study's BLEU).

    Several references per item are padded with the item's last reference, as the study did.
    """
    from sacrebleu.metrics.bleu import BLEU

    from ..core.tokenizers import tranx_tokenize

    bleu = BLEU(tokenize="none", force=True)
    n_refs = max(len(refs) for refs in references)
    streams = [
        [tranx_tokenize(refs[min(r, len(refs) - 1)].rstrip()) for refs in references]
        for r in range(n_refs)
    ]
    out = []
    for preds in predictions:
        hyps = [tranx_tokenize(p.rstrip()) for p in preds]
        out.append(np.asarray(bleu._extract_corpus_statistics(hyps, streams), dtype=np.float64))
    return np.stack(out)


def corpus_bleu_metric(predictions: list[list[str]], references: list[list[str]],
                       item_values: np.ndarray | None = None) -> ItemStatistics:
    stats = code_bleu_statistics(predictions, references)
    if item_values is None:
        item_values = bleu_score_from_counts(stats)
    return ItemStatistics("bleu", stats, bleu_score_from_counts, False, 100.0,
                          np.asarray(item_values, dtype=np.float64), "sacrebleu-code-bleu")


def registry_metric(name: str, predictions: list[list[str]], references: list[list[str]],
                    lang: str = "python") -> ItemStatistics:
    """Statistics of a registry metric (``cgm_metrics.get_metric``), scores scaled to 0-1."""
    from ..registry import get_metric

    metric = get_metric(name, lang=lang)
    stats = np.stack([
        np.asarray(metric.statistics(list(preds), [list(r) for r in references]),
                   dtype=np.float64)
        for preds in predictions
    ])
    scale = float(getattr(metric, "scale", 1.0) or 1.0)

    def score(summed: np.ndarray) -> np.ndarray:
        return np.asarray(metric.score_from_statistics(summed), dtype=np.float64) / scale

    item_values = score(stats)
    return ItemStatistics(name, stats, score, False, 100.0, item_values,
                          f"registry:{metric.signature()}")
