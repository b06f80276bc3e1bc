"""The sufficient-statistics interface every metric of the library implements.

A metric turns each item into a row of statistics and turns a (summed) row into a score:

    stats = metric.statistics(predictions, references)     # ndarray [n_items, k]
    metric.corpus_score(stats)                              # score(stats.sum(0))
    metric.item_scores(stats)                               # score of every row
    metric.score_from_statistics(resampled_sums)            # [R, k] -> [R], for significance

Metrics defined per item (RUBY, EDIT-SIM, sentence averages) use rows ``[value, 1]`` so that
the corpus score of summed rows is the mean of the item values (:class:`MeanOfItems`).

A metric class also describes itself (class attributes, read by the registry, the CLI's
``--list-metrics``, the Space's tables and menus): ``name``, ``display_name``,
``description`` (one line), ``scale`` (100 or 1), ``higher_is_better``, ``languages`` (the
languages it covers, or None for any language, plugin languages and plain text included),
``runs_code``, ``seconds_per_1k_chars`` (the worst cost measured by
``benchmarks/metric_cost.py``) and ``seconds_growth_per_1k_chars`` (how the cost on real code
grows with an item's size, ``benchmarks/space.py``). ``cli_flags`` names the options that
``cgm score`` and ``cgm compare`` offer as flags of their own (:class:`MetricFlag`); any
option is also ``--option METRIC.KEY=VALUE``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

from .. import __version__
from ..core.inputs import check_inputs

if TYPE_CHECKING:
    import numpy as np


class MetricFlag(NamedTuple):
    """A flag of ``cgm score`` and ``cgm compare`` that sets one option of a metric, e.g.
    ``MetricFlag("level", "RUBY representation ...", kind=("graph", "tree", "string"))`` on
    the metric ``ruby`` is ``--ruby-level graph``."""

    #: the constructor option it sets
    option: str
    #: the flag's line in ``--help``
    help: str
    #: what the value is: "int", "number", "numbers" (joined by commas), "word", or a tuple
    #: of the words allowed
    kind: str | tuple[str, ...] = "word"
    #: the flag; "" for ``--<metric name>-<option>`` with dashes for underscores
    flag: str = ""
    #: "numbers": how many (0: any number)
    n_values: int = 0
    #: "numbers": an example value, for the help's placeholder and the error messages
    example: str = ""

    def flag_of(self, metric_name: str) -> str:
        """The flag as written on the command line for the metric ``metric_name``."""
        return self.flag or f"--{metric_name}-{self.option}".replace("_", "-")

    def value(self, raw: str) -> Any:
        """The option's value from the flag's text; a ``ValueError`` says what to give."""
        if isinstance(self.kind, tuple) or self.kind == "word":
            return raw
        if self.kind == "numbers":
            many = _NUMBER_WORDS.get(self.n_values, str(self.n_values)) if self.n_values else "some"
            example = f", e.g. {self.example}" if self.example else ""
            try:
                numbers = tuple(float(p) for p in raw.replace(" ", ",").split(",") if p)
            except ValueError:
                raise ValueError(f"give {many} numbers joined by commas{example}; got "
                                 f"{raw!r}.") from None
            if self.n_values and len(numbers) != self.n_values:
                raise ValueError(f"give {many} numbers joined by commas{example}; got "
                                 f"{len(numbers)} in {raw!r}.")
            return numbers
        try:
            if self.kind == "int" or raw.strip().lstrip("+-").isdigit():
                return int(raw)
            return float(raw)
        except ValueError:
            what = "a whole number" if self.kind == "int" else "a number"
            raise ValueError(f"expected {what}, got {raw!r}.") from None


_NUMBER_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}


class Metric(ABC):
    """A metric bound to its options. Subclasses set ``name`` and the metadata below, and
    take ``lang`` in their constructor."""

    #: the registry name (``cgm_metrics.get_metric(name)``, ``--metrics name``)
    name: ClassVar[str]
    #: how people write it ("chrF", "CodeBLEU"); the name when empty
    display_name: ClassVar[str] = ""
    #: one line: what it measures (the Space's explanations, ``cgm score --list-metrics``)
    description: ClassVar[str] = ""
    scale: ClassVar[float] = 1.0  # 100 for BLEU and chrF (sacrebleu's scale), 1 otherwise
    higher_is_better: ClassVar[bool] = True
    #: canonical names of the languages it covers; None: any language (plugins included)
    languages: ClassVar[tuple[str, ...] | None] = None
    #: True when scoring runs the code (never offered where code must not run, the Space)
    runs_code: ClassVar[bool] = False
    #: worst measured seconds per 1,000 characters scored (prediction plus references), as
    #: ``python benchmarks/metric_cost.py`` prints it; None: not measured
    seconds_per_1k_chars: ClassVar[float | None] = None
    #: how that rate grows with the size of an item, on real code (matching trees and graphs
    #: costs more than linear time): seconds per 1,000 characters more for every 1,000
    #: characters an item has beyond 1,000, as ``python benchmarks/space.py --only calibrate``
    #: measures it (the Space's time estimate); 0: linear
    seconds_growth_per_1k_chars: ClassVar[float] = 0.0
    #: options offered as flags of ``cgm score`` and ``cgm compare`` (``--ruby-level``)
    cli_flags: ClassVar[tuple[MetricFlag, ...]] = ()

    #: the options :func:`cgm_metrics.get_metric` built the metric with (None otherwise);
    #: worker processes rebuild the metric from its name and these
    init_options: dict[str, Any] | None = None

    def __init__(self, **options: Any) -> None:
        self.options = dict(options)

    def columns(self) -> tuple[str, ...]:
        """The names of the statistics columns, one per column of :meth:`statistics`."""
        raise NotImplementedError(f"{type(self).__name__} does not name its statistics columns.")

    @abstractmethod
    def statistics(self, predictions: list[str], references: list[list[str]]) -> np.ndarray:
        """One row of float64 statistics per item: shape ``(n_items, k)``.

        ``predictions`` and ``references`` are already validated (see :func:`check_inputs`).
        """

    @abstractmethod
    def score_from_statistics(self, stats: np.ndarray) -> np.ndarray:
        """Scores of statistics rows: ``(..., k) -> (...)``, vectorised over leading axes."""

    def components_from_statistics(self, stats: np.ndarray) -> dict[str, np.ndarray]:
        """Named parts of the score (e.g. CodeBLEU's four components); none by default."""
        return {}

    def item_labels(self, stats: np.ndarray) -> dict[str, list[str]]:
        """Named per-item labels read from statistics rows ``[n_items, k]`` (e.g. the level
        RUBY used for each item); none by default."""
        return {}

    def item_scores(self, stats: np.ndarray) -> np.ndarray:
        import numpy as np

        return np.asarray(self.score_from_statistics(np.asarray(stats, dtype=np.float64)))

    def corpus_score(self, stats: np.ndarray) -> float:
        import numpy as np

        return float(self.score_from_statistics(np.asarray(stats, dtype=np.float64).sum(axis=0)))

    def signature(self) -> str:
        """A reproducibility string: metric, options and library version."""
        parts = [self.name]
        parts += [f"{key}:{_format_option(value)}" for key, value in sorted(self.options.items())]
        parts.append(f"version:{__version__}")
        return "|".join(parts)

    def result_rows(self, predictions: list[str], references: list[list[str]]) -> Any:
        """The statistics rows :meth:`compute` scores (validated inputs): :meth:`statistics`
        as a float64 array. A metric may give another container of the same rows (``sum(axis=0)``
        gives the summed row, which its ``score_from_statistics`` and
        ``components_from_statistics`` take; its ``item_scores`` takes the rows), e.g. to
        answer without importing numpy."""
        import numpy as np

        return np.asarray(self.statistics(predictions, references), dtype=np.float64)

    def compute(self, predictions: Any, references: Any, per_item: bool = False,
                item_components: bool = False) -> dict:
        """Validate inputs and return ``{"score", components..., "per_item"?,
        "item_labels"?, "item_components"?, "signature"}``: the one result of a metric on a
        corpus (check -> statistics -> score -> signature), which ``cgm_metrics.score``, the
        evaluate modules and the metrics' own functions (``compute_codebleu``, ...) return in
        their own keys. ``per_item``: the score of every item (and its labels, if any);
        ``item_components``: every component of every item."""
        preds, refs = check_inputs(predictions, references)
        rows = self.result_rows(preds, refs)
        summed = rows.sum(axis=0)
        result: dict[str, Any] = {"score": float(self.score_from_statistics(summed))}
        components = self.components_from_statistics(summed)
        result.update({key: float(value) for key, value in components.items()})
        if per_item:
            result["per_item"] = [float(x) for x in self.item_scores(rows)]
            labels = self.item_labels(rows)
            if labels:
                result["item_labels"] = labels
        if item_components:
            result["item_components"] = {
                key: [float(x) for x in values]
                for key, values in self.components_from_statistics(rows).items()
            }
        result["signature"] = self.signature()
        return result


class MeanOfItems(Metric):
    """A metric defined per item whose corpus score is the mean of the item values."""

    def columns(self) -> tuple[str, ...]:
        return ("value", "count")

    @abstractmethod
    def item_values(self, predictions: list[str], references: list[list[str]]) -> np.ndarray:
        """The per-item values, shape ``(n_items,)``."""

    def statistics(self, predictions: list[str], references: list[list[str]]) -> np.ndarray:
        import numpy as np

        values = np.asarray(self.item_values(predictions, references), dtype=np.float64)
        return np.column_stack([values, np.ones_like(values)])

    def score_from_statistics(self, stats: np.ndarray) -> np.ndarray:
        import numpy as np

        stats = np.asarray(stats, dtype=np.float64)
        count = stats[..., 1]
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(count > 0, stats[..., 0] / np.where(count > 0, count, 1), 0.0)


def _format_option(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return ",".join(_format_option(v) for v in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)
