"""Per-item statistics computed in one process or several, for the CLI, the Space and the
agreement analysis alike.

Statistics are per item, so computing them chunk by chunk (in any process) and stacking the
chunks gives exactly the statistics of the whole corpus:

>>> from cgm_metrics import get_metric
>>> from cgm_metrics.pipeline.runner import compute_statistics
>>> metric = get_metric("chrf_code")
>>> compute_statistics(metric, ["x = 1", "y = 2"], [["x = 1"], ["y = 3"]]).shape
(2, 18)

A worker process rebuilds the metric from its registry name and the options it was built
with (:func:`cgm_metrics.get_metric` records them), so metrics holding parsers or
databases never need to be pickled.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base.errors import ItemError
from ..core.inputs import check_inputs
from .metric import Metric

CHUNK_SIZE = 32  # items per unit of work: the progress step and the task size of jobs > 1
#: items whose texts are parsed once for every task (metric, system) on the same references
#: (:func:`cgm_metrics.core.parsing.shared_work`); bounds what is kept at once
SHARED_ITEMS = 1024

#: ``progress(n)`` is called with the number of items finished since the last call.
Progress = Callable[[int], None]


@dataclass(frozen=True)
class Task:
    """Statistics of one system's predictions under one metric."""

    metric: Metric
    predictions: list[str]
    references: list[list[str]]


def check_jobs(jobs: Any) -> int:
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"`jobs` must be a positive integer (processes), got {jobs!r}.")
    return jobs


def _rebuild(metric: Metric) -> tuple[str, dict[str, Any]] | Metric:
    """What a worker needs to build the metric again: registry name and options, or the
    metric itself when it was not built by the registry (then it must pickle)."""
    options = getattr(metric, "init_options", None)
    if options is not None:
        return metric.name, dict(options)
    return metric


def _chunk_statistics(
    recipe: tuple[str, dict[str, Any]] | Metric,
    predictions: list[str],
    references: list[list[str]],
) -> np.ndarray:
    if isinstance(recipe, Metric):
        metric = recipe
    else:
        from .registry import get_metric

        metric = get_metric(recipe[0], **recipe[1])
    return np.asarray(metric.statistics(predictions, references), dtype=np.float64)


def _chunk_table(
    recipes: list[tuple[str, dict[str, Any]] | Metric],
    predictions: list[list[str]],
    references: list[list[str]],
) -> list[np.ndarray]:
    """The statistics of several tasks on the same references, their texts parsed once."""
    from ..core.parsing import shared_work

    with shared_work():
        return [_chunk_statistics(recipe, preds, references)
                for recipe, preds in zip(recipes, predictions, strict=True)]


@contextmanager
def _items_from(start: int) -> Iterator[None]:
    """An :class:`ItemError` raised for a block of items names its item in the corpus."""
    try:
        yield
    except ItemError as error:
        raise error.shifted(start) from None


def _chunks(n_items: int, size: int = CHUNK_SIZE) -> list[tuple[int, int]]:
    return [(start, min(start + size, n_items)) for start in range(0, n_items, size)]


def _same_references(tasks: Sequence[Task]) -> bool:
    return len(tasks) > 1 and all(task.references is tasks[0].references for task in tasks)


def _shared_many(tasks: Sequence[Task], progress: Progress | None) -> list[np.ndarray]:
    """Every task on the same references in one process, block of items by block: each
    block's texts parsed once for all of them, per-reference work done once for every system."""
    from ..core.parsing import shared_work

    n_items = len(tasks[0].references)
    size = SHARED_ITEMS if progress is None else max(CHUNK_SIZE, -(-n_items // 50))
    pieces: list[list[np.ndarray]] = [[] for _ in tasks]
    for start, stop in _chunks(n_items, min(size, SHARED_ITEMS)):
        references = tasks[0].references[start:stop]
        with shared_work():
            for index, task in enumerate(tasks):
                with _items_from(start):
                    piece = task.metric.statistics(task.predictions[start:stop], references)
                pieces[index].append(np.asarray(piece, dtype=np.float64))
                if progress is not None:
                    progress(stop - start)
    return [np.concatenate(parts, axis=0) if parts else
            np.asarray(task.metric.statistics([], []), dtype=np.float64)
            for parts, task in zip(pieces, tasks, strict=True)]


def compute_many(
    tasks: Sequence[Task], jobs: int = 1, progress: Progress | None = None
) -> list[np.ndarray]:
    """The statistics ``[n_items, k]`` of every task, in order, behind one progress count.

    With ``jobs == 1`` each task is one call of ``metric.statistics`` (metrics that count a
    whole corpus at once keep that speed), or about 50 calls when ``progress`` is given;
    with ``jobs > 1`` the items are split into chunks of :data:`CHUNK_SIZE` spread over
    ``jobs`` processes. ``progress(n)`` is told how many items were finished.
    """
    jobs = check_jobs(jobs)
    for task in tasks:
        if not isinstance(task.metric, Metric):
            raise TypeError(
                f"metric must be a cgm_metrics Metric (cgm_metrics.get_metric(name)), got "
                f"{type(task.metric).__name__}."
            )
    if jobs == 1 and _same_references(tasks):
        return _shared_many(tasks, progress)
    if jobs == 1:
        out = []
        for task in tasks:
            n_items = len(task.references)
            if progress is None:
                stats = task.metric.statistics(task.predictions, task.references)
                out.append(np.asarray(stats, dtype=np.float64))
                continue
            pieces = []
            for start, stop in _chunks(n_items, max(CHUNK_SIZE, -(-n_items // 50))):
                with _items_from(start):
                    piece = task.metric.statistics(task.predictions[start:stop],
                                                   task.references[start:stop])
                pieces.append(np.asarray(piece, dtype=np.float64))
                progress(stop - start)
            out.append(np.concatenate(pieces, axis=0) if pieces else
                       np.asarray(task.metric.statistics([], []), dtype=np.float64))
        return out
    if _same_references(tasks):
        return _shared_pool(tasks, jobs, progress)
    parts: list[list[np.ndarray | None]] = []
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = []
        for index, task in enumerate(tasks):
            recipe = _rebuild(task.metric)
            chunks = _chunks(len(task.references))
            parts.append([None] * len(chunks))
            for number, (start, stop) in enumerate(chunks):
                future = pool.submit(_chunk_statistics, recipe, task.predictions[start:stop],
                                     task.references[start:stop])
                futures.append((index, number, start, future))
        for index, number, start, future in futures:
            with _items_from(start):
                parts[index][number] = result = future.result()
            if progress is not None:
                progress(len(result))
    return [
        np.concatenate([p for p in chunks if p is not None], axis=0)
        if chunks else np.asarray(task.metric.statistics([], []), dtype=np.float64)
        for chunks, task in zip(parts, tasks, strict=True)
    ]


def _shared_pool(tasks: Sequence[Task], jobs: int, progress: Progress | None) -> list[np.ndarray]:
    """:func:`_shared_many` in ``jobs`` processes: a unit of work is one chunk of items for
    every task, so a worker parses the chunk's texts once for all of them."""
    recipes = [_rebuild(task.metric) for task in tasks]
    references = tasks[0].references
    chunks = _chunks(len(references))
    parts: list[list[np.ndarray]] = [[] for _ in tasks]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(_chunk_table, recipes,
                               [task.predictions[start:stop] for task in tasks],
                               references[start:stop])
                   for start, stop in chunks]
        for (start, _), future in zip(chunks, futures, strict=True):
            with _items_from(start):
                results = future.result()
            for index, result in enumerate(results):
                parts[index].append(result)
                if progress is not None:
                    progress(len(result))
    return [np.concatenate(pieces, axis=0) if pieces else
            np.asarray(task.metric.statistics([], []), dtype=np.float64)
            for pieces, task in zip(parts, tasks, strict=True)]


ENGINES = ("local", "ray")


def compute_statistics(
    metric: Metric,
    predictions: Any,
    references: Any,
    jobs: int = 1,
    progress: Progress | None = None,
    engine: str = "local",
    address: str | None = None,
) -> np.ndarray:
    """Per-item statistics ``[n_items, k]`` of ``metric`` (validated inputs), equal to
    ``metric.statistics(predictions, references)`` whatever the engine.

    ``engine="local"`` computes them in ``jobs`` processes of this machine; ``engine="ray"``
    on a Ray cluster (:func:`cgm_metrics.pipeline.distributed.ray_statistics`; ``address``: None or
    ``"local"`` starts a local Ray, ``"auto"`` or ``"host:port"`` joins a cluster).
    """
    if engine not in ENGINES:
        raise ValueError(f"`engine` must be one of {', '.join(ENGINES)}, got {engine!r}.")
    preds, refs = check_inputs(predictions, references)
    if engine == "ray":
        from .distributed import ray_statistics

        return ray_statistics(metric, preds, refs, address, progress=progress is not None)
    return compute_many([Task(metric, preds, refs)], jobs, progress)[0]
