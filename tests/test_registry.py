"""The registry's contract: declared options, language checks, named statistics columns, and
the library's statistics runner (one process or several give the same rows)."""

from __future__ import annotations

import numpy as np
import pytest
from sacrebleu.metrics import BLEU, CHRF

import cgm_metrics
from cgm_metrics import get_metric
from cgm_metrics.metric import MeanOfItems
from cgm_metrics.runner import compute_statistics
from cgm_metrics.significance import compare

PREDICTIONS = ["x = a + b", "return f(x, y)", "for i in range(3): print(i)", "y = 2"]
REFERENCES = [["x = a + c"], ["return f(y, x)"], ["for i in range(4): print(i)"], ["y = 2"]]


@pytest.mark.parametrize("name", cgm_metrics.metrics())
def test_unknown_language_is_an_error_for_every_metric(name):
    with pytest.raises(ValueError, match="Unknown language 'cobolx'.*python"):
        cgm_metrics.score(name, ["x = 1"], ["x = 1"], lang="cobolx")


@pytest.mark.parametrize("name", ["bleu", "chrf_code", "edit_sim", "rouge_l", "ruby", "codebleu"])
def test_unknown_option_lists_the_options(name):
    with pytest.raises(ValueError, match=r"Unknown option 'colour' for metric .*lang="):
        get_metric(name, colour="red")


@pytest.mark.parametrize("name", ["bleu", "chrf_code", "edit_sim", "rouge_l", "ruby", "codebleu"])
def test_statistics_columns_are_named(name):
    metric = get_metric(name)
    stats = metric.statistics(PREDICTIONS, REFERENCES)
    assert stats.shape[1] == len(metric.columns()) == len(set(metric.columns()))


def test_sacrebleu_options_of_the_one_bleu_and_chrf():
    hyps, refs = [p for p in PREDICTIONS], [r[0] for r in REFERENCES]
    bleu = get_metric("bleu", tokenize="13a")
    assert bleu.compute(hyps, refs)["score"] == BLEU().corpus_score(hyps, [refs]).score
    effective = get_metric("bleu", tokenize="13a", effective_order=True)
    assert effective.compute(hyps, refs)["score"] == pytest.approx(
        BLEU(effective_order=True).corpus_score(hyps, [refs]).score, abs=1e-12)
    chrf = get_metric("chrf_code")
    assert chrf.compute(hyps, refs)["score"] == pytest.approx(
        CHRF().corpus_score(hyps, [refs]).score, abs=1e-12)


@pytest.mark.parametrize("name", ["bleu", "chrf_code", "edit_sim"])
def test_runner_jobs_give_the_same_statistics(name):
    metric = get_metric(name)
    many = PREDICTIONS * 20
    refs = REFERENCES * 20
    serial = compute_statistics(metric, many, refs)
    assert np.array_equal(serial, metric.statistics(many, refs))
    assert np.array_equal(compute_statistics(metric, many, refs, jobs=2), serial)
    seen = []
    assert np.array_equal(compute_statistics(metric, many, refs, progress=seen.append), serial)
    assert sum(seen) == len(many)
    with pytest.raises(ValueError, match="jobs"):
        compute_statistics(metric, many, refs, jobs=0)


class Errors(MeanOfItems):
    """A lower-is-better metric: the share of wrong items."""

    name = "errors"
    higher_is_better = False

    def item_values(self, predictions, references):
        return [float(p != r[0]) for p, r in zip(predictions, references, strict=True)]


def test_compare_convention_and_lower_is_better_verdicts():
    refs = [["ok"]] * 60
    good, bad = ["ok"] * 55 + ["no"] * 5, ["ok"] * 20 + ["no"] * 40
    metric = Errors()
    stats = {"bad": metric.statistics(bad, refs), "good": metric.statistics(good, refs)}
    result = compare(stats, metric, power=0.8)
    (pair,) = result.pairs
    assert (pair.system_a, pair.system_b) == ("bad", "good")
    assert pair.delta == pytest.approx(5 / 60 - 40 / 60)  # b - a
    assert pair.significant and pair.verdict == "good > bad, significant"  # fewer errors
    assert pair.mdd is not None and 0 < pair.mdd < abs(pair.delta)
    rows = result.rows()
    assert rows["pairs"][0]["delta"] == pair.delta and len(rows["pairs"]) == 1
    assert "resamples" not in result.to_dict()
