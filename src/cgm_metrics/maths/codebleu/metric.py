"""CodeBLEU as a :class:`~cgm_metrics.pipeline.metric.Metric`: per-item statistics rows (numpy) for
corpus scores, per-item scores, resampling and significance tests. Its :meth:`~cgm_metrics.
metric.Metric.compute` (``calc_codebleu``, ``compute_codebleu``, the evaluate module) scores
the rows as plain floats, without numpy: the same formula, the same bits."""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ...languages import DEFAULT_LANGUAGE, covering
from ...pipeline.metric import Metric, MetricFlag
from . import score
from .options import CodeBleuOptions
from .score import COLUMN_NAMES, N_COLUMNS
from .statistics import statistics_rows

if TYPE_CHECKING:
    import numpy as np


class Rows:
    """The statistics rows of a corpus as the engine writes them (``array("d")``, item after
    item), for :meth:`CodeBleuMetric.compute`: ``sum(axis=0)`` gives the summed row as floats
    (added in numpy's order, so the same bits as ``statistics(...).sum(axis=0)``)."""

    def __init__(self, data: array, n_items: int) -> None:
        self.data = data
        self.n_items = n_items

    def __len__(self) -> int:
        return self.n_items

    def sum(self, axis: int = 0) -> list[float]:
        if axis != 0:
            raise ValueError("statistics rows are summed over the items (axis=0) only")
        return score.column_sums(self.data, self.n_items)

    def row(self, item: int) -> list[float]:
        return [float(x) for x in self.data[item * N_COLUMNS:(item + 1) * N_COLUMNS]]


class CodeBleuMetric(Metric):
    """CodeBLEU (Ren et al., 2020) as the `codebleu` package computes it.

    Options: ``lang`` (default "python"), ``weights`` (default 0.25 each; Out of the BLEU uses
    (0.1, 0.1, 0.4, 0.4)) and ``dataflow``: what a dataflow score of 0 means. "package"
    (default): the package's ``score or 1``, so no reference dataflow *and* a genuine 0 both
    count as 1; "zero": the value as it is (0 without reference dataflow); "renormalize": a
    corpus without reference dataflow drops the component and renormalises the other weights
    (Out of the BLEU), a genuine 0 stays 0. ``set_order``: "package" (the package's order at
    PYTHONHASHSEED=0) or "source". ``tokenizer``: the package's, a callable
    str -> list of str for the two n-gram components (default whitespace, ``str.split``);
    ``keywords``: the keywords of the weighted n-gram component (default the package's list
    of ``lang``).
    """

    name = "codebleu"
    display_name = "CodeBLEU"
    description = ("The mean of four parts, 0-1: n-gram match (BLEU), weighted n-gram match "
                   "(keywords count more), syntax match (AST subtrees) and dataflow match "
                   "(variable dependencies). Identical to the codebleu package.")
    languages = covering("codebleu")
    seconds_per_1k_chars = 0.011  # benchmarks/metric_cost.py, worst case
    seconds_growth_per_1k_chars = 0.00001  # benchmarks/space.py, calibration
    cli_flags = (
        MetricFlag("weights", "CodeBLEU weights of n-gram, weighted n-gram, syntax and dataflow "
                   "match, four numbers joined by commas (default: 0.25,0.25,0.25,0.25; Out of "
                   "the BLEU: 0.1,0.1,0.4,0.4)", kind="numbers", n_values=4,
                   example="0.1,0.1,0.4,0.4"),
        MetricFlag("dataflow", "CodeBLEU when the references have no dataflow: package (as the "
                   "codebleu package), zero or renormalize (drop the dataflow part and reweight "
                   "the others) (default: package)", kind=("package", "zero", "renormalize")),
    )

    def __init__(
        self,
        lang: object = DEFAULT_LANGUAGE,
        weights: Sequence[float] = (0.25, 0.25, 0.25, 0.25),
        dataflow: str = "package",
        set_order: str = "package",
        tokenizer: Callable[[str], list[str]] | None = None,
        keywords: Iterable[str] | None = None,
    ) -> None:
        config = CodeBleuOptions(lang, weights, dataflow, set_order, tokenizer, keywords)
        super().__init__(**config.options)
        self.config = config
        self.spec = config.spec
        self.weights = config.weights
        self.dataflow = config.dataflow
        self.set_order = config.set_order
        self.keywords = config.keywords

    def statistics(
        self,
        predictions: list[str],
        references: list[list[str]],
        timings: dict[str, float] | None = None,
    ) -> np.ndarray:
        """One row per item (columns: :meth:`columns`), from the compiled engine or the
        pure-Python reference (``statistics.py``); ``timings`` receives CPU seconds per stage."""
        import numpy as np

        rows = statistics_rows(self.config, predictions, references, timings)
        if not predictions:
            return np.zeros((0, N_COLUMNS))
        return np.frombuffer(rows, dtype=np.float64).reshape(len(predictions), N_COLUMNS)

    def result_rows(self, predictions: list[str], references: list[list[str]]) -> Rows:
        """The rows :meth:`compute` scores, without numpy (its import costs more than a
        small corpus)."""
        return Rows(statistics_rows(self.config, predictions, references), len(predictions))

    def columns(self) -> tuple[str, ...]:
        return COLUMN_NAMES

    def components_from_statistics(self, stats: Any) -> dict[str, Any]:
        if isinstance(stats, list):  # a summed row of floats (compute)
            return score.components(stats)
        if isinstance(stats, Rows):  # every item's (compute's item_components)
            parts = [score.components(stats.row(item)) for item in range(len(stats))]
            return {key: [part[key] for part in parts] for key in score.COMPONENTS}
        import numpy as np

        stats = np.asarray(stats, dtype=np.float64)
        if stats.ndim == 1:
            return {k: np.float64(v) for k, v in score.components([float(x) for x in stats]).items()}
        return score.components(np.moveaxis(stats, -1, 0))

    def score_from_statistics(self, stats: Any) -> Any:
        if isinstance(stats, list):  # a summed row of floats (compute)
            return score.combined(stats, score.components(stats), self.weights, self.dataflow)
        import numpy as np

        stats = np.asarray(stats, dtype=np.float64)
        if stats.ndim == 1:
            columns = [float(x) for x in stats]
            return np.float64(score.combined(columns, score.components(columns), self.weights,
                                             self.dataflow))
        arrays = np.moveaxis(stats, -1, 0)
        return score.combined(arrays, score.components(arrays), self.weights, self.dataflow)

    def item_scores(self, stats: Any) -> Any:
        if isinstance(stats, Rows):
            return score.item_scores(stats.data, len(stats), self.weights, self.dataflow)
        return super().item_scores(stats)

    def scores(self, stats: np.ndarray) -> dict[str, Any]:
        """The package's five keys from (summed) statistics."""
        return score.scores(np.asarray(stats, dtype=np.float64), self.weights, self.dataflow)
