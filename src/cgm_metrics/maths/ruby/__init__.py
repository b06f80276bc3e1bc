"""RUBY: program-dependence-graph, tree and string similarity of code (Tran et al., 2019).

>>> from cgm_metrics.maths.ruby import RubyMetric
>>> metric = RubyMetric(lang="python")
>>> result = metric.compute(["y = x + 1"], [["y = x + 1", "z = 0"]], per_item=True)
>>> result["score"], result["per_item"]
(1.0, [1.0])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...languages import DEFAULT_LANGUAGE, covering, resolve_language
from ...pipeline.metric import MeanOfItems, MetricFlag
from .ged import graph_edit_distance, graph_similarity
from .pdg import ProgramGraph, pdg_languages, program_graph, statement_graph
from .scoring import (
    LEVELS,
    MAX_GRAPH_EDGES,
    MAX_GRAPH_NODES,
    MAX_TREE_CELLS,
    MAX_TREE_NODES,
    check_level,
    ruby,
    ruby_items,
    string_similarity,
)
from .syntax import syntax_tree
from .ted import Tree, tree_edit_distance, tree_similarity


class RubyMetric(MeanOfItems):
    """RUBY as a per-item metric: the corpus score is the mean of the item scores.

    Options: ``lang`` (default "python") and ``level`` (None: graph, then tree, then string;
    or the first level to try). Rows are ``[value, 1, graph, tree, string]``: the last three
    mark the level an item was scored at, so summed rows count the items of each level.
    """

    name = "ruby"
    display_name = "RUBY"
    description = ("Similarity of program-dependence graphs (languages with graph rules), or of "
                   "syntax trees when the graph cannot be built, or of token strings when the "
                   "code does not parse; 0-1. The level shows which one was used.")
    seconds_per_1k_chars = 0.017  # benchmarks/metric_cost.py, worst case
    seconds_growth_per_1k_chars = 0.0008  # benchmarks/space.py, calibration
    cli_flags = (MetricFlag("level", "RUBY representation: graph, tree or string (default: the "
                            "richest one that both sides support)",
                            kind=("graph", "tree", "string")),)
    #: the languages of the graph level (the tree and string levels take any language)
    graph_languages = covering("pdg")

    def __init__(self, lang: Any = DEFAULT_LANGUAGE, level: str | None = None, **options: Any) -> None:
        if options:
            raise TypeError(
                f"RubyMetric got unknown options {sorted(options)}; it takes `lang` and `level`."
            )
        self.language = resolve_language(lang)
        self.level = check_level(level)
        super().__init__(lang=self.language.name, level=self.level or "auto")

    def columns(self) -> tuple[str, ...]:
        return ("value", "count", *LEVELS)

    def item_results(
        self, predictions: list[str], references: list[list[str]]
    ) -> tuple[list[float], list[str]]:
        """Per-item scores and the level (graph, tree, string) each one used."""
        return ruby_items(predictions, references, self.language, self.level)

    def item_values(self, predictions: list[str], references: list[list[str]]) -> np.ndarray:
        return np.asarray(self.item_results(predictions, references)[0], dtype=np.float64)

    def statistics(self, predictions: list[str], references: list[list[str]]) -> np.ndarray:
        values, levels = self.item_results(predictions, references)
        rows = np.zeros((len(values), 2 + len(LEVELS)), dtype=np.float64)
        rows[:, 0] = values
        rows[:, 1] = 1.0
        for column, name in enumerate(LEVELS, start=2):
            rows[:, column] = [level == name for level in levels]
        return rows

    def item_labels(self, stats: np.ndarray) -> dict[str, list[str]]:
        marks = np.asarray(stats, dtype=np.float64)[:, 2:2 + len(LEVELS)]
        return {"level": [LEVELS[int(index)] for index in np.argmax(marks, axis=1)]}


def compute_ruby(
    predictions: Any,
    references: Any,
    lang: Any = DEFAULT_LANGUAGE,
    return_per_sample: bool = False,
    level: str | None = None,
) -> dict[str, Any]:
    """The result of the ``ruby`` evaluate module (the module card metrics/ruby/README.md).

    ``{"ruby": mean score, "levels": {"graph": n, "tree": n, "string": n}}``, plus
    ``"scores"`` and ``"sample_levels"`` (one per item) when ``return_per_sample``.

    >>> result = compute_ruby(["x = (", "y = 1"], ["x = 1", "y = 1"], return_per_sample=True)
    >>> result["levels"], result["sample_levels"]
    ({'graph': 1, 'tree': 0, 'string': 1}, ['string', 'graph'])
    """
    from ...core.inputs import check_flag

    return_per_sample = check_flag(return_per_sample, "return_per_sample")
    scored = RubyMetric(lang=lang, level=level).compute(predictions, references, per_item=True)
    levels = scored["item_labels"]["level"]
    result: dict[str, Any] = {
        "ruby": scored["score"],
        "levels": {name: levels.count(name) for name in LEVELS},
    }
    if return_per_sample:
        result["scores"] = scored["per_item"]
        result["sample_levels"] = levels
    return result


__all__ = [
    "compute_ruby",
    "LEVELS",
    "MAX_GRAPH_EDGES",
    "MAX_GRAPH_NODES",
    "MAX_TREE_CELLS",
    "MAX_TREE_NODES",
    "pdg_languages",
    "ProgramGraph",
    "RubyMetric",
    "Tree",
    "graph_edit_distance",
    "graph_similarity",
    "program_graph",
    "statement_graph",
    "ruby",
    "ruby_items",
    "string_similarity",
    "syntax_tree",
    "tree_edit_distance",
    "tree_similarity",
]
