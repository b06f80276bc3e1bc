"""Parse once per evaluation: inside one block of an evaluation a text is parsed once per
language for every tree metric, RUBY builds a reference's graph once for every system, and
nothing of it outlives the block; the statistics are those of each metric on its own."""

from __future__ import annotations

import random
import threading

import numpy as np
import pytest
from conftest import stdlib_pairs

from cgm_metrics.core import parsing
from cgm_metrics.maths.ruby import scoring
from cgm_metrics.pipeline.evaluation import Evaluation, load_metrics
from cgm_metrics.pipeline.registry import get_metric


def _systems(n_items: int = 24):
    predictions, refs = stdlib_pairs(n_items)
    references = [[reference] for reference in refs]
    rng = random.Random(3)
    systems = {
        "a": predictions,
        "b": [reference.replace("self", "this") for reference in refs],
        "c": [rng.choice(predictions) for _ in refs],
    }
    return references, systems


def test_a_text_is_parsed_once_inside_a_block_and_freed_after():
    code = "def f(x):\n    return x + 1\n"
    outside = parsing.parse(code, "python")
    assert parsing.parse(code, "python").tree is not outside.tree  # no block: parsed again
    with parsing.shared_work() as work:
        first = parsing.parse(code, "python")
        with parsing.shared_work() as inner:  # a nested block joins the outer one
            assert inner is work
            assert parsing.parse(code, "python").tree is first.tree
        assert parsing.parse(code, "java").tree is not first.tree  # per language
        assert parsing.shared(("k", code), lambda: [1]) is parsing.shared(("k", code), list)
        assert len(work) == 3
    assert len(work) == 0 and not parsing.sharing()


def test_threads_do_not_share_a_block():
    seen = []
    with parsing.shared_work():
        thread = threading.Thread(target=lambda: seen.append(parsing.sharing()))
        thread.start()
        thread.join()
    assert seen == [False]


def test_evaluation_builds_each_reference_graph_once_with_the_same_numbers(monkeypatch):
    references, systems = _systems()
    metric_set = load_metrics(["chrf_code", "codebleu", "ruby", "tsed"], "python")
    alone = {name: {system: metric.statistics(predictions, references)
                    for system, predictions in systems.items()}
             for name, metric in metric_set.metrics.items()}
    built: list[str] = []
    real_graph = scoring.program_graph

    def counting_graph(code, *args):
        built.append(code.text)
        return real_graph(code, *args)

    monkeypatch.setattr(scoring, "program_graph", counting_graph)
    real_parse = parsing._parser("python").parse
    calls: list[bytes] = []

    class CountingParser:
        def parse(self, source):
            calls.append(source)
            return real_parse(source)

    monkeypatch.setattr(parsing, "_parser", lambda name: CountingParser())
    statistics = Evaluation(metric_set, references, systems).statistics
    for name, by_system in alone.items():
        for system, stats in by_system.items():
            assert np.array_equal(statistics[name][system], stats), (name, system)
    texts = {text for predictions in systems.values() for text in predictions}
    texts |= {text for refs in references for text in refs}
    assert len(built) == len(set(built)) <= len(texts)  # one graph per distinct text
    assert len(calls) == len(set(calls))  # one parse per distinct source (RUBY and CodeBLEU)
    assert {ref.encode() for refs in references for ref in refs} <= set(calls)


@pytest.mark.parametrize("jobs", [1, 2])
def test_shared_blocks_give_the_rows_of_every_metric_alone(jobs):
    references, systems = _systems(40)
    metric_set = load_metrics(["ruby", "codebleu"], "python")
    statistics = Evaluation(metric_set, references, systems, jobs=jobs).statistics
    for name in metric_set.names:
        metric = get_metric(name, lang="python")
        for system, predictions in systems.items():
            assert np.array_equal(statistics[name][system],
                                  metric.statistics(predictions, references))
