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
_COMPARISON_CELLS = 1 << 24  # model x model x resample comparisons held at once (16 MB)
MAX_PUBLISHED_DRAWS = 50_000_000  # resamples x items of the published draws (400 MB held)


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
    output, grade and scores. One base system costs one pass over the ``[system, item]``
    grades (numpy), so thousands of systems take a fraction of a second.
    """
    grades = np.asarray(grades, dtype=np.float64)
    n_systems, n_items = grades.shape
    models = [Model(name, np.full(n_items, s)) for s, name in enumerate(systems)]
    columns = np.arange(n_items)
    for base, base_name in enumerate(systems):
        difference = grades - grades[base]  # the base's own row is 0 and never a donor
        for improve in (True, False):
            gain = np.where(difference > 0 if improve else difference < 0,
                            np.abs(difference), 0.0)
            donor = gain.argmax(axis=0)  # the first system with the largest gain
            best = gain[donor, columns]
            candidates = np.flatnonzero(best > 0)
            # stable descending sort by the difference: ties keep the item order
            candidates = candidates[np.argsort(-best[candidates], kind="stable")]
            for percent in percentages:
                source = np.full(n_items, base)
                chosen = candidates[: round(percent * n_items / 100)]
                source[chosen] = donor[chosen]
                models.append(Model(f"{base_name}_{percent}_{int(improve)}", source, base_name,
                                    percent, improve))
    return models


def _output_codes(predictions, fallback: np.ndarray | None) -> np.ndarray:
    """``codes[system, item]``: equal codes in a column for equal outputs of that item (the
    prediction text, or without texts the row of grade and metric values)."""
    if predictions is not None:
        n_systems, n_items = len(predictions), len(predictions[0]) if predictions else 0
    elif fallback is not None:
        n_systems, n_items = fallback.shape[:2]
    else:
        raise ValueError("deduplicate needs the predictions or the fallback values.")
    codes = np.empty((n_systems, n_items), dtype=np.int64)
    for item in range(n_items):
        seen: dict = {}
        for system in range(n_systems):
            key = (predictions[system][item] if fallback is None or predictions is not None
                   else tuple(fallback[system, item].tolist()))
            codes[system, item] = seen.setdefault(key, len(seen))
    return codes


def deduplicate(models: list[Model], predictions, fallback: np.ndarray | None,
                protocol: str) -> list[Model]:
    """Drop models whose outputs equal another model's.

    ``evtikhiev2023``: as published, a model identical to a *later* one is dropped (even a
    real system). ``default``: a model identical to an earlier kept one is dropped, so real
    systems always stay. Outputs are compared through per-item codes, one dictionary lookup
    per model.
    """
    codes = _output_codes(predictions, fallback)
    if not models:
        return []
    columns = np.arange(codes.shape[1])
    first: dict[bytes, int] = {}
    last: dict[bytes, int] = {}
    for k, model in enumerate(models):
        key = codes[model.source, columns].tobytes()
        first.setdefault(key, k)
        last[key] = k
    kept = sorted((last if protocol == "evtikhiev2023" else first).values())
    return [models[k] for k in kept]


def resample_indices(n_items: int, n_resamples: int, protocol: str,
                     seed: int) -> np.ndarray | resampling.Draws:
    """``[n_resamples, n_items]`` item indices, the same for every model and metric: Python's
    ``random.choices`` as published (an array), else the significance library's bootstrap
    draws (:class:`~cgm_metrics.significance.resampling.Draws`, generated block by block)."""
    if protocol == "evtikhiev2023":
        rng = random.Random(seed)
        population = range(n_items)
        return np.array([rng.choices(population, k=n_items) for _ in range(n_resamples)],
                        dtype=np.int64).reshape(n_resamples, n_items)
    return resampling.bootstrap_draws(n_items, n_resamples, seed)


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
    n_models, n_resamples = boot.shape
    wins = np.empty((n_models, n_models), dtype=np.int64)
    step = max(1, _COMPARISON_CELLS // max(1, n_models * n_resamples))  # rows per block
    for start in range(0, n_models, step):
        block = boot[start:start + step]
        wins[start:start + step] = (block[:, None, :] > boot[None, :, :]).sum(axis=2)
    return wins / n_resamples
