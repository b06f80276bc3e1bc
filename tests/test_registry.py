"""The registry's contract: declared options, language checks, named statistics columns, and
the library's statistics runner (one process or several give the same rows)."""

from __future__ import annotations

import numpy as np
import pytest
from sacrebleu.metrics import BLEU, CHRF

import cgm_metrics
from cgm_metrics import get_metric
from cgm_metrics.languages.parts import LanguageSpec
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
    metric = get_metric(name, lang="python")
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


# ---------------------------------------------------------------- lang where a metric needs it


def test_codebleu_needs_lang_in_the_library_and_paired_significance():
    from cgm_metrics.significance import paired_test_texts

    refs = ["x = a + b", "y = 2"]
    for call in (lambda: cgm_metrics.score("codebleu", refs, refs),
                 lambda: get_metric("codebleu"),
                 lambda: paired_test_texts(refs, refs, refs, metric="codebleu")):
        with pytest.raises(ValueError, match=r"CodeBLEU needs `lang`: one of .*java.*python"):
            call()
    assert 0 < cgm_metrics.score("codebleu", refs, refs, lang="python")["score"] <= 1
    # metrics that take any language keep their own default without it
    assert cgm_metrics.score("chrf_code", refs, refs)["score"] == pytest.approx(100.0)


def test_language_spec_rows_and_plugin_checks():
    spec = LanguageSpec(name="starlark", module="tree_sitter_python",
                                    function="language", comment_types=["comment"],
                                    string_types={"string"}, identifier_types=("identifier",))
    assert spec.comment_types == frozenset({"comment"}) and spec.docstrings is False
    with pytest.raises(TypeError, match="comment_types"):
        LanguageSpec(name="x", module="m", function="f", comment_types="comment",
                                 string_types=[], identifier_types=[])
    with pytest.raises(ValueError, match="lower case"):
        LanguageSpec(name="Lua", module="m", function="f", comment_types=[],
                                 string_types=[], identifier_types=[])
    from cgm_metrics.registry import _class_problem

    class NoLang(MeanOfItems):
        name = "no_lang"

        def item_values(self, predictions, references):
            return [0.0] * len(predictions)

    assert "must take `lang`" in _class_problem("no_lang", NoLang)
    assert "not 'other'" in _class_problem("other", NoLang)
    assert "not a subclass" in _class_problem("x", dict)


def test_metric_metadata_for_menus_and_help():
    from cgm_metrics.evaluation import describe_metrics

    described = {entry["name"]: entry for entry in describe_metrics()}
    assert set(described) == set(cgm_metrics.metrics())
    assert described["chrf_code"]["display_name"] == "chrF" and described["chrf_code"]["scale"] == 100
    assert described["codebleu"]["languages"] == tuple(sorted(described["codebleu"]["languages"]))
    assert "python" in described["codebleu"]["languages"] and described["ruby"]["languages"] is None
    for entry in described.values():
        assert entry["description"] and "\n" not in entry["description"]
        if entry["name"] in ("combined", "pass@1", "pass@10", "pass@100", "tests_passed"):
            # their cost is the programs' own: never offered where code must not run
            assert entry["runs_code"] and "python" in entry["languages"]
            assert set(entry["languages"]) == set(cgm_metrics.languages.names("execution"))
            continue
        assert entry["seconds_per_1k_chars"] > 0 and not entry["runs_code"]


def test_per_metric_tables_are_read_from_the_metric_classes():
    """The Space's growth of the cost with an item's size is each metric class's attribute
    (a metric without one is linear), and the metrics computed by default are the
    registry's, which the pipeline and the agreement analysis share."""
    from cgm_metrics.agreement import analysis
    from cgm_metrics.evaluation import DEFAULT_METRICS
    from cgm_metrics.registry import metric_class
    from cgm_metrics.space import limits

    growth = {name: limits.rate_growth(name) for name in cgm_metrics.metrics()}
    assert set(growth) == set(cgm_metrics.metrics())
    for name, value in growth.items():
        assert value == metric_class(name).seconds_growth_per_1k_chars
    # the values calibrated by benchmarks/space.py: matching trees and graphs grows fastest
    assert growth["tsed"] == 0.0014 and growth["ruby"] == 0.0008 and growth["chrf_code"] == 0.0
    assert limits.rate_growth("no_such_metric") == 0.0
    sizes = [20_000]
    assert limits.estimated_seconds("tsed", sizes, "python") == pytest.approx(
        20 * (limits.real_code_rate("tsed", "python") + 0.0014 * 19))
    assert analysis.DEFAULT_COMPUTED is DEFAULT_METRICS
    assert all(cgm_metrics.registry.is_metric(name) for name in DEFAULT_METRICS)


def test_metric_flags_are_the_classes_and_help_imports_no_metric():
    """The flags of ``cgm score``/``compare`` are the metric classes' ``cli_flags``; the
    registry reads a built-in metric's from its source (so the help imports no metric module):
    what it reads is the class attribute, for every built-in metric."""
    import subprocess
    import sys

    from cgm_metrics.metric import MetricFlag
    from cgm_metrics.registry import BUILTIN_METRICS, _flags_in_source, metric_class, metric_flags

    for name, target in BUILTIN_METRICS.items():
        from_source = _flags_in_source(*target.split(":"))
        assert from_source is not None, name  # no import needed for any built-in metric
        assert from_source == metric_flags(name) == metric_class(name).cli_flags, name
    flags = {spec.flag_of(name): (name, spec.option)
             for name in BUILTIN_METRICS for spec in metric_flags(name)}
    assert flags == {
        "--codebleu-weights": ("codebleu", "weights"),
        "--codebleu-dataflow": ("codebleu", "dataflow"),
        "--chrf-char-order": ("chrf_code", "char_order"),
        "--chrf-word-order": ("chrf_code", "word_order"),
        "--chrf-beta": ("chrf_code", "beta"),
        "--ruby-level": ("ruby", "level"),
    }
    assert MetricFlag("min_length", "").flag_of("token_overlap") == "--token-overlap-min-length"
    code = ("import sys; from cgm_metrics.cli import build_parser; p = build_parser(); "
            "sub = p._subparsers._group_actions[0].choices; "
            "text = sub['score'].format_help() + sub['compare'].format_help(); "
            "print('--ruby-level' in text, '--chrf-beta X' in text, "
            "sorted(m for m in sys.modules if m.startswith('cgm_metrics.maths.')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, check=True)
    assert done.stdout.split() == ["True", "True", "[]"], done.stdout + done.stderr
