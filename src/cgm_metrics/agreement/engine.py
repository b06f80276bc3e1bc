"""Synthetic models, paired resampling, pair probabilities, verdicts, bins and correlations.

Two protocols share this engine:

* ``"evtikhiev2023"`` reproduces Out of the BLEU (Evtikhiev et al., 2023) exactly: Python
  ``random`` seeded 42, 500 resamples drawn with ``random.choices``, the same indices for
  every model and metric, strict win fractions (ties count against the first model), a pair
  significant when its fraction is <= 0.05 or >= 0.95, bootstrap medians and
  ``sorted[12]``/``sorted[-12]`` bounds, synthetic models de-duplicated as published.
* ``"default"``: :func:`cgm_metrics.significance.compare` on every metric's model
  statistics (its bootstrap draws, two-sided p-values from the bootstrap standard error,
  Holm's correction over all pairs of a metric, full-data point scores and percentile
  intervals), synthetic models de-duplicated keeping the real systems.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from ..significance import resampling
from .statistics import ItemStatistics

PROTOCOLS = ("default", "evtikhiev2023")
PERCENTAGES = (1, 3, 5, 10, 15, 20, 25, 30)
CONALA_BINS = (0, 2, 5, 10, 100)  # points of metric difference; the study's CoNaLa bins
HEARTHSTONE_BINS = (0, 1, 2, 4, 100)  # the bins of the study's HearthStone tables


@dataclass(frozen=True)
class Model:
    """A real system or a synthetic model: which real system answers each item."""

    name: str
    source: np.ndarray  # [n_items] index of the real system whose output is used
    base: str | None = None  # synthetic: the real system it starts from
    percent: int | None = None
    improve: bool | None = None


def synthesize(grades: np.ndarray, systems: list[str], percentages=PERCENTAGES) -> list[Model]:
    """Real systems followed by the synthetic models of Roy et al. / Out of the BLEU 4.3.1.

    For each base system, percentage p and direction: candidate items are those where some
    other system has a strictly higher (improve) or lower grade; the donor is the system with
    the largest |grade difference| (first in system order on ties); candidates sorted by that
    difference (stable, descending) and the first ``round(p * n / 100)`` take the donor's
    output, grade and scores.
    """
    n_systems, n_items = grades.shape
    models = [Model(name, np.full(n_items, s)) for s, name in enumerate(systems)]
    for base, base_name in enumerate(systems):
        others = [s for s in range(n_systems) if s != base]
        for improve in (True, False):
            candidates: list[tuple[float, int, int]] = []
            for item in range(n_items):
                best, donor = 0.0, -1
                for other in others:
                    diff = grades[other, item] - grades[base, item]
                    if (diff > 0) if improve else (diff < 0):
                        if best < abs(diff):
                            best, donor = abs(diff), other
                if donor >= 0:
                    candidates.append((best, item, donor))
            candidates.sort(key=lambda change: change[0], reverse=True)
            for percent in percentages:
                source = np.full(n_items, base)
                for _, item, donor in candidates[: round(percent * n_items / 100)]:
                    source[item] = donor
                models.append(Model(f"{base_name}_{percent}_{int(improve)}", source, base_name,
                                    percent, improve))
    return models


def _outputs(model: Model, predictions, fallback: np.ndarray) -> list:
    if predictions is not None:
        return [predictions[s][i] for i, s in enumerate(model.source)]
    return [tuple(fallback[s, i]) for i, s in enumerate(model.source)]


def deduplicate(models: list[Model], predictions, fallback: np.ndarray,
                protocol: str) -> list[Model]:
    """Drop models whose outputs equal another model's.

    ``evtikhiev2023``: as published, a model identical to a *later* one is dropped (even a
    real system). ``default``: a model identical to an earlier kept one is dropped, so real
    systems always stay.
    """
    outputs = [_outputs(m, predictions, fallback) for m in models]
    if protocol == "evtikhiev2023":
        removed = set()
        for i in range(len(models)):
            for j in range(i):
                if outputs[i] == outputs[j]:
                    removed.add(j)
        return [m for k, m in enumerate(models) if k not in removed]
    kept: list[int] = []
    for k in range(len(models)):
        if not any(outputs[k] == outputs[j] for j in kept):
            kept.append(k)
    return [models[k] for k in kept]


def resample_indices(n_items: int, n_resamples: int, protocol: str, seed: int) -> np.ndarray:
    """``[n_resamples, n_items]`` item indices, the same for every model and metric: Python's
    ``random.choices`` as published, else the significance library's bootstrap draws."""
    if protocol == "evtikhiev2023":
        rng = random.Random(seed)
        population = range(n_items)
        return np.array([rng.choices(population, k=n_items) for _ in range(n_resamples)],
                        dtype=np.int64).reshape(n_resamples, n_items)
    return resampling.bootstrap_indices(n_items, n_resamples, seed)


def model_statistics(metric: ItemStatistics, models: list[Model]) -> np.ndarray:
    """``[n_models, n_items, k]`` statistics of every model."""
    items = np.arange(metric.stats.shape[1])
    return np.stack([metric.stats[m.source, items] for m in models])


def published_bootstrap(metric: ItemStatistics, models: list[Model],
                        indices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(full-data score [n_models], resampled scores [n_models, n_resamples])`` as the study
    computed them: ``numpy.mean`` over the gathered item values of each resample for metrics
    given per item, the corpus score of the resampled rows otherwise."""
    stats = model_statistics(metric, models)
    full = metric.score(stats.sum(axis=1))
    if metric.mean_of_items:
        values = stats[..., 0]
        out = np.empty((len(models), indices.shape[0]))
        for m in range(len(models)):  # 2-D gathers: numpy's pairwise sum per resample row
            out[m] = values[m][indices].mean(axis=-1)
        return full, out
    resampled = resampling.bootstrap_scores(list(stats), metric.score, indices)
    return full, np.stack(resampled)


def win_fractions(boot: np.ndarray) -> np.ndarray:
    """``[m1, m2]`` fraction of resamples in which model m1 scores strictly above m2."""
    n_resamples = boot.shape[1]
    wins = (boot[:, None, :] > boot[None, :, :]).sum(axis=2)
    return wins / n_resamples
