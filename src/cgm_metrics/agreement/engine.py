"""Synthetic models, paired resampling, pair probabilities, verdicts, bins and correlations.

Two protocols share this engine:

* ``"evtikhiev2023"`` reproduces Out of the BLEU (Evtikhiev et al., 2023) exactly: Python
  ``random`` seeded 42, 500 resamples drawn with ``random.choices``, the same indices for
  every model and metric, strict win fractions (ties count against the first model), a pair
  significant when its fraction is <= 0.05 or >= 0.95, bootstrap medians and
  ``sorted[12]``/``sorted[-12]`` bounds, synthetic models de-duplicated as published.
* ``"default"``: numpy's ``default_rng(seed)``, two-sided paired-bootstrap p-values with
  Holm's correction over all pairs of a metric, full-data point scores and percentile
  intervals, synthetic models de-duplicated keeping the real systems.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

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
    """``[n_resamples, n_items]`` item indices, the same for every model and metric."""
    if protocol == "evtikhiev2023":
        rng = random.Random(seed)
        population = range(n_items)
        return np.array([rng.choices(population, k=n_items) for _ in range(n_resamples)],
                        dtype=np.int64).reshape(n_resamples, n_items)
    return np.random.default_rng(seed).integers(0, n_items, size=(n_resamples, n_items))


def count_matrix(indices: np.ndarray, n_items: int) -> np.ndarray:
    """How often each item occurs in each resample: ``[n_resamples, n_items]``."""
    n_resamples = indices.shape[0]
    offsets = indices + (np.arange(n_resamples) * n_items)[:, None]
    return np.bincount(offsets.ravel(), minlength=n_resamples * n_items).reshape(
        n_resamples, n_items).astype(np.float64)


def model_statistics(metric: ItemStatistics, models: list[Model]) -> np.ndarray:
    """``[n_models, n_items, k]`` statistics of every model."""
    items = np.arange(metric.stats.shape[1])
    return np.stack([metric.stats[m.source, items] for m in models])


def bootstrap_scores(metric: ItemStatistics, models: list[Model], indices: np.ndarray,
                     counts: np.ndarray, exact_means: bool) -> tuple[np.ndarray, np.ndarray]:
    """``(full-data score [n_models], resampled scores [n_models, n_resamples])``."""
    stats = model_statistics(metric, models)
    full = metric.score(stats.sum(axis=1))
    if metric.mean_of_items and exact_means:
        # numpy.mean over the gathered values, as the study computed each resample
        values = stats[..., 0]
        out = np.empty((len(models), indices.shape[0]))
        for m in range(len(models)):  # 2-D gathers: numpy's pairwise sum per resample row
            out[m] = values[m][indices].mean(axis=-1)
        return full, out
    summed = np.einsum("rn,mnk->mrk", counts, stats, optimize=True)
    return full, np.asarray(metric.score(summed), dtype=np.float64)


def win_fractions(boot: np.ndarray) -> np.ndarray:
    """``[m1, m2]`` fraction of resamples in which model m1 scores strictly above m2."""
    n_resamples = boot.shape[1]
    wins = (boot[:, None, :] > boot[None, :, :]).sum(axis=2)
    return wins / n_resamples


def two_sided_p_values(boot: np.ndarray, full: np.ndarray) -> np.ndarray:
    """``[m1, m2]`` two-sided p-values of the paired difference m1 - m2.

    The difference on the full data divided by the standard deviation of the paired
    resampled differences (bootstrap standard error) is referred to the normal
    distribution. Continuous p-values keep Holm's correction meaningful with many pairs,
    where resample-count p-values (>= 1/R) would never pass it.
    """
    import scipy.stats

    diff = boot[:, None, :] - boot[None, :, :]
    se = diff.std(axis=2, ddof=1)
    delta = full[:, None] - full[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.abs(delta) / se
    p = 2 * scipy.stats.norm.sf(z)
    p = np.where(se > 0, p, np.where(delta == 0, 1.0, 0.0))
    np.fill_diagonal(p, 1.0)
    return p


def holm(p_values: np.ndarray) -> np.ndarray:
    """Holm-Bonferroni adjusted p-values (monotone, capped at 1), in the input order."""
    p = np.asarray(p_values, dtype=np.float64)
    m = len(p)
    if m == 0:
        return p
    order = np.argsort(p, kind="stable")
    adjusted = np.maximum.accumulate((m - np.arange(m)) * p[order])
    out = np.empty(m)
    out[order] = np.minimum(adjusted, 1.0)
    return out
