"""Per-item statistics of the metrics the analysis resamples.

Each metric is a :class:`ItemStatistics`: rows of statistics per (system, item) and a
vectorised function turning summed rows into a score on a 0-1 scale. Per-item metric
scores read from the file are rows ``[value]`` scored as a mean; registry metrics (the study's
corpus BLEU is the registry's ``bleu``) bring their own statistics and score.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

#: ``metrics=["registry:NAME"]`` in the agreement analyses computes the registry's NAME even
#: when the rows' 'scores' have a value of that name (e.g. a paper's published CodeBLEU).
REGISTRY_PREFIX = "registry:"


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
    source: str  # "file", "registry:<signature>", "human"
    higher_is_better: bool = True

    def score_from_statistics(self, summed: np.ndarray) -> np.ndarray:
        """The score of (summed) rows: what the significance library resamples."""
        return self.score(summed)

    def signature(self) -> str:
        return f"{self.name}|source:{self.source}"


def from_values(name: str, values: np.ndarray, source: str) -> ItemStatistics:
    """A metric given per item (a mean of item values): 0-1 values, or 0-100 when any is > 1."""
    values = np.asarray(values, dtype=np.float64)
    points = 100.0 if np.all(np.abs(values) <= 1.0) else 1.0
    n_items = values.shape[1]

    def score(summed: np.ndarray) -> np.ndarray:
        return summed[..., 0] / n_items

    return ItemStatistics(name, values[..., None], score, True, points, values, source)


def registry_metric(name: str, predictions: list[list[str]], references: list[list[str]],
                    lang: str | None = None, item_values: np.ndarray | None = None,
                    jobs: int = 1, options: dict | None = None) -> ItemStatistics:
    """Statistics of a registry metric (``cgm_metrics.get_metric``), scores scaled to 0-1.

    ``item_values`` (per system and item, for correlations) default to the score of each
    item's row; the study's BLEU gives its own per-item values in the file. ``options`` are
    the metric's options (``get_metric(name, lang=lang, **options)``).
    """
    from ..pipeline.registry import get_metric
    from ..pipeline.runner import compute_statistics

    metric = get_metric(name, **({} if lang is None else {"lang": lang}), **(options or {}))
    refs = [list(r) for r in references]
    # every system in one call: a metric that reads references once per call reads them
    # once; an item's statistics depend on its prediction and references alone, so equal
    # (prediction, references) cells (systems agreeing on an item) are scored once
    position: dict[tuple, int] = {}
    inverse = np.array([position.setdefault((text, item), len(position))
                        for preds in predictions for item, text in enumerate(preds)],
                       dtype=np.int64)
    distinct = list(position)
    unique = compute_statistics(metric, [text for text, _ in distinct],
                                [refs[item] for _, item in distinct], jobs=jobs)
    stats = np.asarray(unique)[inverse].reshape(len(predictions), len(refs), -1)
    scale = float(getattr(metric, "scale", 1.0) or 1.0)

    def score(summed: np.ndarray) -> np.ndarray:
        return np.asarray(metric.score_from_statistics(summed), dtype=np.float64) / scale

    values = score(stats) if item_values is None else np.asarray(item_values, dtype=np.float64)
    return ItemStatistics(name, stats, score, False, 100.0, values,
                          f"registry:{metric.signature()}")
