"""Per-item statistics on a Ray cluster: the same rows as one process, computed on many.

Every metric of the library is a map (one row of statistics per item) followed by a sum, so
the map can run anywhere. :func:`ray_statistics` runs it with Ray Data: the items are cut into
blocks, a pool of actors (each builds the metric once and keeps its parsers) turns every block
into statistics rows, and the rows are put back in item order. Corpus scores, per-item scores,
confidence intervals and significance tests then run unchanged on the gathered rows::

    import cgm_metrics
    from cgm_metrics.pipeline.distributed import ray_statistics

    metric = cgm_metrics.get_metric("codebleu", lang="python")
    stats = ray_statistics(metric, predictions, references)   # == metric.statistics(...)
    metric.corpus_score(stats)

Input is either two lists (as for :meth:`Metric.compute`) or a Ray Dataset with a
``prediction`` column and a ``references`` column (a string or a list of strings per item),
e.g. ``ray.data.read_parquet(path)``; the item number of a row is its position in the dataset.

``address``: ``None`` uses the Ray connection already made in this process, else starts a
local Ray; ``"auto"`` joins the cluster on this machine (``ray start --head``); ``"host:port"``
joins that cluster. A worker that dies is restarted and its block computed again (a block's rows
are counted: none lost, none twice); bad input rows are reported with their item number, as in
a one-process run.

Ray is optional: ``pip install "cgm-metrics[ray]"``.
"""

from __future__ import annotations

import functools
import logging
import math
import re
import warnings
from collections.abc import Mapping
from contextlib import contextmanager
from typing import Any

import numpy as np

from ..base.errors import ItemError
from ..core.inputs import check_inputs, check_predictions, check_references
from .metric import Metric

INSTALL_HINT = 'Ray is not installed; install it with: pip install "cgm-metrics[ray]"'
# items per block (the unit of work and of retry): about four blocks a CPU, within these bounds
MIN_BLOCK, MAX_BLOCK = 64, 1024
WORKER_RESTARTS = 3  # a worker that dies this often (e.g. on an item that crashes it) is an error
PREDICTION_COLUMN = "prediction"
REFERENCES_COLUMN = "references"

# error ranks: a one-process run checks every prediction, then every reference, then computes
_BAD_PREDICTION, _BAD_REFERENCE, _METRIC_ERROR = 0, 1, 2
_ERROR_TYPES = {"ValueError": ValueError, "TypeError": TypeError}


def require_ray():
    """The ``ray`` module, or an ImportError saying how to install it."""
    try:
        import ray
        import ray.data  # noqa: F401
    except ImportError as error:
        raise ImportError(INSTALL_HINT) from error
    return ray


def connect(address: str | None = None, **init_options: Any) -> bool:
    """Connect this process to Ray; returns True when this call started the connection.

    ``None`` keeps an existing connection or starts a local Ray (``address="local"``);
    ``"local"`` starts a local Ray; ``"auto"`` joins the cluster running on this machine;
    ``"host:port"`` joins that cluster. ``init_options`` go to ``ray.init`` (e.g.
    ``num_cpus=2``).
    """
    ray = require_ray()
    if ray.is_initialized():
        return False
    if address is not None and not isinstance(address, str):
        raise TypeError(f"`address` must be None, 'local', 'auto' or 'host:port', got {address!r}.")
    init_options.setdefault("include_dashboard", False)
    init_options.setdefault("logging_level", logging.WARNING)
    ray.init(address=address or "local", **init_options)
    return True


def disconnect() -> None:
    """Leave Ray (stops a local Ray this process started)."""
    ray = require_ray()
    if ray.is_initialized():
        ray.shutdown()


def ray_statistics(
    metric: Metric | str,
    predictions: Any,
    references: Any = None,
    address: str | None = None,
    *,
    options: dict | None = None,
    workers: int | None = None,
    batch_size: int | None = None,
    progress: bool = False,
) -> np.ndarray:
    """Per-item statistics of ``metric`` computed on Ray; equal to ``metric.statistics``.

    ``metric``: a :class:`~cgm_metrics.pipeline.metric.Metric`, or a registry name with ``options``
    (e.g. ``"codebleu", options={"lang": "java"}``). ``predictions``/``references``: lists
    as for :meth:`Metric.compute`, or a Ray Dataset with ``prediction`` and ``references``
    columns as ``predictions`` (``references`` then None). ``workers``: actors (one CPU
    each; default: every CPU of the cluster). ``batch_size``: items per block (default: about
    four blocks a CPU, 64 to 1024 items).

    Returns the ``(n_items, k)`` statistics in item order, bit-identical to a one-process run.
    """
    ray = require_ray()
    payload = _metric_payload(metric, options)
    if isinstance(predictions, ray.data.Dataset):
        if references is not None:
            raise TypeError(
                "With a Ray Dataset as `predictions`, leave `references` out: the dataset's "
                f"{REFERENCES_COLUMN!r} column holds them."
            )
        systems: Any = predictions
    else:
        predictions, references = check_inputs(predictions, references)  # one-process errors
        systems = {"": predictions}
    result = _run([payload], systems, references, address, workers, batch_size, progress)
    return result[0][0]


def ray_statistics_table(
    metrics: Mapping[str, Metric | str],
    systems: Mapping[str, Any],
    references: Any,
    address: str | None = None,
    *,
    workers: int | None = None,
    batch_size: int | None = None,
    progress: bool = False,
) -> dict[str, dict[str, np.ndarray]]:
    """``{metric: {system: statistics}}`` of several metrics and systems in one pass over
    the cluster (each worker builds every metric once); each array equals
    ``metric.statistics(systems[system], references)``.

    ``metrics``: names to Metric objects (or to registry names); ``systems``: names to lists
    of predictions, all for the same ``references``.
    """
    require_ray()
    payloads = [_metric_payload(metric, None) for metric in metrics.values()]
    checked: dict[str, list[str]] = {}
    for name, predictions in systems.items():
        try:
            checked[name], references = check_inputs(predictions, references)
        except (ValueError, TypeError) as error:
            raise type(error)(f"System {name!r}: {error}") from None
    if not checked:
        raise ValueError("`systems` is empty; give at least one system's predictions.")
    result = _run(payloads, checked, references, address, workers, batch_size, progress)
    return {
        metric: {system: result[m][s] for s, system in enumerate(checked)}
        for m, metric in enumerate(metrics)
    }


def _run(payloads, systems, references, address, workers, batch_size, progress):
    """``[metric index][system index] -> statistics`` of lists (``systems``: a dict) or of
    one Ray Dataset."""
    ray = require_ray()
    if batch_size is not None:
        batch_size = _positive(batch_size, "batch_size")
    if workers is not None:
        workers = _positive(workers, "workers")
    connect(address)
    cpus = workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
    with _quiet_logger(), _execution_settings(ray.data.DataContext.get_current(), progress):
        if isinstance(systems, ray.data.Dataset):
            # a dataset's rows are numbered in its own order (files, then row groups)
            with _execution_settings(systems.context, progress, preserve_order=True):
                blocks, n_items = _dataset_blocks(systems, batch_size, cpus)
            n_systems = 1
        else:
            n_items, n_systems = len(references), len(systems)
            size = batch_size or _block_size(n_items * n_systems, cpus)
            blocks = []
            for index, predictions in enumerate(systems.values()):
                blocks += _list_blocks(predictions, references, size, index)
        if n_items == 0:
            check_inputs([], [])  # the one-process error for an empty corpus
        dataset = ray.data.from_arrow_refs(blocks)
        rows = _map(dataset, payloads, min(cpus, len(blocks))).take_all()
    return _gather(rows, len(payloads), n_systems, n_items)


def _block_size(total_items: int, cpus: int) -> int:
    return min(MAX_BLOCK, max(MIN_BLOCK, math.ceil(total_items / (4 * cpus))))


# ---------------------------------------------------------------- the driver's side


def _positive(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"`{name}` must be a whole number of at least 1, got {value!r}.")
    return int(value)


def _metric_payload(metric: Metric | str, options: dict | None) -> tuple:
    """What a worker needs to build the metric: its registry name and options, the pickled
    metric, or (for a metric holding something unpicklable) its class and options."""
    if isinstance(metric, str):
        from .registry import metric_class

        options = dict(options or {})
        try:
            metric_class(metric)(**options)  # a bad name or option fails here, not on a worker
        except (ValueError, TypeError) as error:
            raise type(error)(f"Metric {metric!r}: {error}") from None
        return ("registry", metric, options)
    if not isinstance(metric, Metric):
        raise TypeError(
            f"`metric` must be a cgm_metrics Metric (e.g. cgm_metrics.get_metric('chrf_code')) "
            f"or a metric name, got {type(metric).__name__}."
        )
    if options:
        raise TypeError("`options` is for a metric given by name; this metric is already bound.")
    from ray import cloudpickle

    try:
        cloudpickle.dumps(metric)
        return ("instance", metric)
    except Exception as error:  # e.g. an open file: rebuild it on the worker instead
        reason = error
    try:
        rebuilt = type(metric)(**metric.options)
    except Exception:
        rebuilt = None
    if rebuilt is None or rebuilt.signature() != metric.signature():
        raise TypeError(
            f"Metric {metric.name!r} cannot be sent to Ray workers ({reason}); pass its name "
            f"and options instead: ray_statistics({metric.name!r}, ..., options={{...}})."
        )
    return ("class", type(metric), dict(metric.options))


def _list_blocks(preds: list[str], refs: list[list[str]], batch_size: int, system: int):
    import pyarrow as pa
    import ray

    blocks = []
    for start in range(0, len(preds), batch_size):
        stop = min(start + batch_size, len(preds))
        table = pa.table({
            "item": pa.array(np.arange(start, stop, dtype=np.int64)),
            "system": pa.array(np.full(stop - start, system, dtype=np.int64)),
            PREDICTION_COLUMN: pa.array(preds[start:stop], type=pa.string()),
            REFERENCES_COLUMN: pa.array(refs[start:stop], type=pa.list_(pa.string())),
        })
        blocks.append(ray.put(table))
    return blocks


def _dataset_blocks(dataset, batch_size: int | None, cpus: int):
    """The dataset's rows as blocks of at most ``batch_size`` rows with their item numbers."""
    import ray

    names = dataset.columns()
    missing = [c for c in (PREDICTION_COLUMN, REFERENCES_COLUMN) if c not in names]
    if missing:
        raise ValueError(
            f"The dataset has no {' or '.join(repr(c) for c in missing)} column (it has "
            f"{', '.join(map(repr, names))}); rename its columns to {PREDICTION_COLUMN!r} and "
            f"{REFERENCES_COLUMN!r}."
        )
    count_rows, slice_block = _remote_helpers()
    refs = dataset.select_columns([PREDICTION_COLUMN, REFERENCES_COLUMN]).to_arrow_refs()
    counts = ray.get([count_rows.remote(ref) for ref in refs])
    batch_size = batch_size or _block_size(sum(counts), cpus)
    blocks: list[Any] = []
    offset = 0
    for ref, count in zip(refs, counts, strict=True):
        pieces = math.ceil(count / batch_size)
        if pieces:
            out = slice_block.options(num_returns=pieces).remote(ref, offset, batch_size)
            blocks.extend([out] if pieces == 1 else out)
        offset += count
    return blocks, offset


def _map(dataset, payloads: list[tuple], pool_size: int):
    import ray

    arguments = dict(
        fn_constructor_args=(payloads,),
        batch_size=None,  # one block, one call: the block is the unit of retry
        batch_format="pyarrow",
        compute=ray.data.ActorPoolStrategy(size=pool_size),
        num_cpus=1,
    )
    with warnings.catch_warnings():  # restart limits are still passed as remote args
        warnings.simplefilter("ignore")
        try:
            return dataset.map_batches(
                _StatisticsWorker, **arguments,
                max_restarts=WORKER_RESTARTS, max_task_retries=WORKER_RESTARTS,
            )
        except TypeError:  # a Ray without remote args: its own (unlimited) restarts
            return dataset.map_batches(_StatisticsWorker, **arguments)


@contextmanager
def _execution_settings(context, progress: bool, preserve_order: bool = False):
    """A Ray Data context set for one run: progress bars only when asked for, no per-run log
    lines, and (``preserve_order``) rows in the dataset's own order."""
    options = context.execution_options
    saved = (context.enable_progress_bars, context.print_on_execution_start,
             options.preserve_order)
    context.enable_progress_bars = progress
    context.print_on_execution_start = False
    options.preserve_order = preserve_order or options.preserve_order
    try:
        yield
    finally:
        context.enable_progress_bars, context.print_on_execution_start = saved[:2]
        options.preserve_order = saved[2]


@contextmanager
def _quiet_logger():
    logger = logging.getLogger("ray.data")
    level = logger.level
    logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        logger.setLevel(level)


def _gather(rows: list[dict], n_metrics: int, n_systems: int, n_items: int) -> list[list]:
    """The workers' rows put back in item order, ``[metric][system] -> statistics``.

    Raises the error a one-process run would raise first (bad predictions, then bad
    references, then a metric's own error), or an error if any item came back missing or
    twice.
    """
    errors = [row for row in rows if row["error_type"]]
    if errors:
        first = min(errors, key=lambda row: (row["error_rank"], row["metric"], row["system"],
                                             row["error_item"]))
        raise _ERROR_TYPES.get(first["error_type"], RuntimeError)(first["error_message"])
    result: list[list] = [[None] * n_systems for _ in range(n_metrics)]
    seen = np.zeros((n_metrics, n_systems, n_items), dtype=np.int64)
    for row in rows:
        m, s = row["metric"], row["system"]
        items = np.frombuffer(row["items"], dtype=np.int64)
        stats = np.frombuffer(row["statistics"], dtype=np.dtype(row["dtype"]))
        stats = stats.reshape(len(items), row["width"])
        if result[m][s] is None:
            result[m][s] = np.empty((n_items, row["width"]), dtype=stats.dtype)
        result[m][s][items] = stats
        np.add.at(seen[m, s], items, 1)
    if not np.all(seen == 1):
        lost, twice = int(np.sum(seen == 0)), int(np.sum(seen > 1))
        raise RuntimeError(
            f"Ray returned an incomplete result ({lost} rows missing, {twice} rows more than "
            "once); the statistics were not used. Run again."
        )
    return result


# ---------------------------------------------------------------- the workers' side


def _build_metric(payload: tuple) -> Metric:
    kind = payload[0]
    if kind == "registry":
        from .registry import get_metric

        return get_metric(payload[1], **payload[2])
    if kind == "class":
        return payload[1](**payload[2])
    return payload[1]


class _StatisticsWorker:
    """A Ray Data actor: builds the metrics once, then turns each block of items into one
    row of statistics per metric."""

    def __init__(self, payloads: list[tuple]) -> None:
        self.metrics = [_build_metric(payload) for payload in payloads]

    def __call__(self, block) -> dict:
        items = block.column("item").to_numpy().astype(np.int64)
        system = int(block.column("system")[0].as_py()) if "system" in block.column_names else 0
        preds = block.column(PREDICTION_COLUMN).to_pylist()
        refs = block.column(REFERENCES_COLUMN).to_pylist()
        try:
            preds, refs = check_inputs(preds, refs, allow_empty=True)
        except (ValueError, TypeError):
            return _rows([_error(0, system, *_first_bad_row(items, preds, refs))])
        rows = []
        for index, metric in enumerate(self.metrics):
            try:
                stats = np.ascontiguousarray(np.asarray(metric.statistics(preds, refs)))
            except (ValueError, TypeError):
                rows.append(_error(index, system, *_first_failing_item(metric, items, preds,
                                                                        refs)))
                continue
            rows.append({
                "metric": index, "system": system,
                "items": items.tobytes(), "statistics": stats.tobytes(),
                "dtype": stats.dtype.str, "width": stats.shape[1] if stats.ndim == 2 else 0,
                "error_rank": -1, "error_item": -1, "error_type": "", "error_message": "",
            })
        return _rows(rows)


def _first_failing_item(metric, items, preds, refs) -> tuple:
    for item, pred, ref in zip(items, preds, refs, strict=True):
        try:
            metric.statistics([pred], [ref])
        except (ValueError, TypeError) as error:
            if isinstance(error, ItemError):  # its index is the one-item call's, not ours
                error = error.shifted(int(item) - error.item)
                return _METRIC_ERROR, int(item), error, str(error)
            return _METRIC_ERROR, int(item), error, f"{error} (item {int(item)})"
    try:  # only the whole block fails: report it by its items
        metric.statistics(preds, refs)
    except (ValueError, TypeError) as error:
        first = int(items[0])
        return _METRIC_ERROR, first, error, f"{error} (items {first}-{int(items[-1])})"
    raise RuntimeError(f"metric {metric.name!r} failed on a block, then not on a retry")


def _first_bad_row(items, preds, refs) -> tuple:
    """The first row that fails validation, with the message a one-process run gives for it:
    predictions first, then references (the order of :func:`check_inputs`)."""
    for item, pred in zip(items, preds, strict=True):
        try:
            check_predictions([pred])
        except (ValueError, TypeError) as error:
            return _BAD_PREDICTION, int(item), error, _renumber(str(error), "predictions", item)
    for item, ref in zip(items, refs, strict=True):
        try:
            check_references([ref], 1)
        except (ValueError, TypeError) as error:
            return _BAD_REFERENCE, int(item), error, _renumber(str(error), "references", item)
    raise RuntimeError("a block failed validation, then no row of it did")


def _renumber(message: str, argument: str, item: int) -> str:
    """The message about row 0 of a one-row check, about row ``item`` of the whole input."""
    return re.sub(rf"`{argument}\[0\]", f"`{argument}[{int(item)}]", message, count=1)


def _error(metric: int, system: int, rank: int, item: int, error: Exception,
           message: str) -> dict:
    return {
        "metric": metric, "system": system, "items": b"", "statistics": b"", "dtype": "",
        "width": 0, "error_rank": rank, "error_item": item, "error_type": type(error).__name__,
        "error_message": message,
    }


def _rows(rows: list[dict]) -> dict:
    """Rows as Ray Data's columns."""
    return {key: [row[key] for row in rows] for key in rows[0]}


@functools.cache
def _remote_helpers():
    """Ray remote functions, made on first use so that importing this module needs no Ray."""
    import ray

    @ray.remote
    def count_rows(table) -> int:
        return table.num_rows

    @ray.remote
    def slice_block(table, offset: int, size: int):
        import pyarrow as pa

        pieces = []
        for start in range(0, table.num_rows, size):
            piece = table.slice(start, size)
            items = np.arange(offset + start, offset + start + piece.num_rows, dtype=np.int64)
            pieces.append(pa.table({
                "item": pa.array(items),
                PREDICTION_COLUMN: piece.column(PREDICTION_COLUMN),
                REFERENCES_COLUMN: piece.column(REFERENCES_COLUMN),
            }))
        return pieces[0] if len(pieces) == 1 else tuple(pieces)

    return count_rows, slice_block


__all__ = [
    "INSTALL_HINT", "connect", "disconnect", "ray_statistics", "ray_statistics_table",
    "require_ray",
]
