"""CodeXGLUE's line-completion edit similarity and exact match against the real fuzz.ratio
calls the evaluator's `from fuzzywuzzy import fuzz` resolves to (fuzzywuzzy with
python-Levenshtein, fuzzywuzzy's difflib fallback, rapidfuzz), on real code lines and
generated strings, and the metric's contract."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys

import numpy as np
import pytest
from conftest import DATA
from fuzzywuzzy import fuzz
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz import fuzz as rapid_fuzz

import cgm_metrics
from cgm_metrics.maths.codexglue import (
    CodeXGlueEditSimMetric,
    compute_codexglue_edit_sim,
    restore_literals,
)


def _lines(count: int, seed: int) -> tuple[list[str], list[str]]:
    """Real code lines of the codebleu golden files: predictions are lines as a model file
    holds them (with indentation and a newline), references other lines or edited copies."""
    lines = []
    for path in sorted((DATA / "codebleu").glob("codebleu_public_*.jsonl")):
        for line in path.open(encoding="utf-8"):
            record = json.loads(line)
            for text in record["predictions"] + record["references"]:
                lines.extend(x for x in text.split("\n") if x.strip())
    rng = random.Random(seed)
    preds, refs = [], []
    for _ in range(count):
        line = rng.choice(lines)
        preds.append(line + "\n")
        roll = rng.random()
        if roll < 0.2:
            refs.append(line.strip())  # an exact completion
        elif roll < 0.6:
            cut = rng.randint(0, len(line))
            refs.append(line.strip()[:cut] + rng.choice(["x", "", " )", "foo"]))
        else:
            refs.append(rng.choice(lines).strip())
    return preds, refs


def test_edit_sim_is_fuzzywuzzy_ratio_and_exact_match_compares_tokens():
    preds, refs = _lines(2000, 0)
    metric = CodeXGlueEditSimMetric()
    stats = metric.statistics(preds, [[r] for r in refs])
    # no literal placeholders in these lines: the evaluator compares stripped prediction
    # and reference as given
    expected = [fuzz.ratio(p.strip(), r) for p, r in zip(preds, refs, strict=True)]
    assert stats[:, 0].tolist() == expected
    exact = [p.strip().split() == r.split() for p, r in zip(preds, refs, strict=True)]
    assert stats[:, 1].tolist() == [float(x) for x in exact]
    result = compute_codexglue_edit_sim(preds, refs)
    assert result["edit_sim"] == pytest.approx(sum(expected) / len(expected), abs=1e-12)
    assert result["exact_match"] == pytest.approx(sum(exact) / len(exact) * 100, abs=1e-12)
    assert 0 < sum(exact) < len(exact)


def test_rapidfuzz_ratio_is_not_rounded():
    preds, refs = _lines(500, 1)
    stats = CodeXGlueEditSimMetric(ratio="rapidfuzz").statistics(preds, [[r] for r in refs])
    expected = [rapid_fuzz.ratio(p.strip(), r) for p, r in zip(preds, refs, strict=True)]
    assert stats[:, 0].tolist() == pytest.approx(expected, abs=1e-9)
    assert any(v != round(v) for v in stats[:, 0])


def test_difflib_ratio_is_fuzzywuzzy_without_python_levenshtein():
    """fuzzywuzzy imported where python-Levenshtein cannot be: its difflib fallback."""
    preds, refs = _lines(300, 2)
    preds += ["a" * 150 + "b" * 120, "", "same"]  # long strings: difflib's autojunk
    refs += ["b" * 130 + "a" * 160, "x", "same"]
    code = (
        "import json, sys, warnings\n"
        "sys.modules['Levenshtein'] = None\n"
        "warnings.simplefilter('ignore')\n"
        "from fuzzywuzzy import fuzz\n"
        "from difflib import SequenceMatcher\n"
        "assert fuzz.SequenceMatcher is SequenceMatcher\n"
        "pairs = json.load(sys.stdin)\n"
        "print(json.dumps([fuzz.ratio(a, b) for a, b in pairs]))\n"
    )
    pairs = [[p.strip(), r] for p, r in zip(preds, refs, strict=True)]
    done = subprocess.run([sys.executable, "-c", code], input=json.dumps(pairs),
                          capture_output=True, text=True, check=True, timeout=300)
    expected = json.loads(done.stdout)
    stats = CodeXGlueEditSimMetric(ratio="difflib").statistics(preds, [[r] for r in refs])
    assert stats[:, 0].tolist() == expected
    levenshtein = CodeXGlueEditSimMetric().statistics(preds, [[r] for r in refs])[:, 0]
    assert (levenshtein >= stats[:, 0]).all() and (levenshtein > stats[:, 0]).any()


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(a=st.text(max_size=30), b=st.text(max_size=30))
def test_equal_to_fuzzywuzzy_on_generated_strings(a, b):
    row = CodeXGlueEditSimMetric(post_process=False).statistics([a], [[b]])[0]
    assert row[0] == fuzz.ratio(a.strip(), b)
    assert row[1] == float(a.strip().split() == b.split())


def test_literal_placeholders_are_restored_as_the_evaluator_documents():
    # the evaluator's README: <NUM_LIT:1> => 1, '<STR_LIT>' => ''
    assert restore_literals("x = <NUM_LIT:1>") == "x = 1"
    assert restore_literals("s = '<STR_LIT>'") == "s = ''"
    assert restore_literals("f(<NUM_LIT>, <CHAR_LIT>, \"<STR_LIT:a b>\")") == 'f(0, , "a b")'
    assert restore_literals("<STR_LIT:%s>\n<NUM_LIT:0x1F>") == "%s\n0x1F"
    metric = CodeXGlueEditSimMetric()
    row = metric.statistics(["  return <NUM_LIT:1> ;\n"], [["return 1 ;"]])[0]
    assert row.tolist() == [100.0, 1.0, 1.0]
    raw = CodeXGlueEditSimMetric(post_process=False).statistics(
        ["return <NUM_LIT:1> ;"], [["return 1 ;"]])[0]
    assert raw[0] == fuzz.ratio("return <NUM_LIT:1> ;", "return 1 ;") and raw[1] == 0.0


def test_prediction_is_stripped_and_reference_used_as_given():
    metric = CodeXGlueEditSimMetric()
    assert metric.statistics(["  x = 1\n"], [["x = 1"]])[0, 0] == 100.0
    assert metric.statistics(["x = 1"], [["x = 1\n"]])[0, 0] == fuzz.ratio("x = 1", "x = 1\n")
    assert metric.statistics(["x  =  1"], [["x = 1"]])[0, 1] == 1.0  # whitespace-split tokens


def test_several_references_take_the_best_ratio_and_any_exact_match():
    metric = CodeXGlueEditSimMetric()
    row = metric.statistics(["return x"], [["return y", "return x ", "pass"]])[0]
    assert row[0] == max(fuzz.ratio("return x", r) for r in ["return y", "return x ", "pass"])
    assert row[1] == 1.0


def test_identical_scores_the_top_and_resampling_uses_the_rows():
    preds, refs = _lines(200, 3)
    same = cgm_metrics.score("codexglue_edit_sim", preds, [p.strip() for p in preds])
    assert same["score"] == 100.0 and same["exact_match"] == 100.0
    metric = cgm_metrics.get_metric("codexglue_edit_sim")
    stats = metric.statistics(preds, [[r] for r in refs])
    sample = np.random.default_rng(0).integers(0, len(preds), len(preds))
    ratios = [fuzz.ratio(preds[i].strip(), refs[i]) for i in sample]
    assert metric.score_from_statistics(stats[sample].sum(0)) == pytest.approx(
        np.mean(ratios), abs=1e-9)


def test_deterministic_under_any_hash_seed():
    code = ("import cgm_metrics, json\n"
            "print(json.dumps(cgm_metrics.score('codexglue_edit_sim', ['x = 1', 'f(a, b)'],"
            " [['x = 2', 'y = 1'], ['f(b, a)']], per_item=True)))\n")
    outputs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              env=dict(os.environ, PYTHONHASHSEED=seed), check=True,
                              timeout=300).stdout for seed in ("0", "1", "99")}
    assert len(outputs) == 1


@pytest.mark.parametrize("options,error,text", [
    ({"ratio": "levenshtein"}, ValueError, "Unknown `ratio` 'levenshtein'"),
    ({"post_process": "yes"}, TypeError, "`post_process` must be True or False"),
    ({"lang": "cobol"}, ValueError, "Supported"),
])
def test_bad_options_are_clear_errors(options, error, text):
    with pytest.raises(error, match=re.escape(text)):
        cgm_metrics.get_metric("codexglue_edit_sim", **options)


def test_module_output_and_metadata():
    result = compute_codexglue_edit_sim(["a = 1", "b"], [["a = 1"], ["c"]],
                                        return_per_sample=True)
    assert result["scores"] == [100.0, 0.0] and result["exact"] == [True, False]
    assert result["edit_sim"] == 50.0 and result["exact_match"] == 50.0
    metric = cgm_metrics.get_metric("codexglue_edit_sim")
    assert (metric.scale, metric.higher_is_better, metric.runs_code, metric.languages) == (
        100.0, True, False, None)
    assert metric.columns() == ("edit_sim", "exact_match", "count")


def test_cli_score_and_compare(tmp_path):
    preds_a, refs = _lines(40, 4)
    preds_b = [p[: len(p) // 2] for p in preds_a]
    (tmp_path / "refs.txt").write_text("\n".join(refs) + "\n")
    (tmp_path / "a.txt").write_text("".join(preds_a))
    (tmp_path / "b.txt").write_text("\n".join(preds_b) + "\n")
    env = dict(os.environ, HF_EVALUATE_OFFLINE="1")
    done = subprocess.run(
        [sys.executable, "-m", "cgm_metrics", "score", "--references", str(tmp_path / "refs.txt"),
         "--predictions", str(tmp_path / "a.txt"), "--metrics", "codexglue_edit_sim",
         "--json", "-", "--no-progress"], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    entry = json.loads(done.stdout)["systems"]["a"]["codexglue_edit_sim"]
    expected = np.mean([fuzz.ratio(p.strip(), r) for p, r in zip(preds_a, refs, strict=True)])
    assert entry["score"] == pytest.approx(expected, abs=1e-9)
    done = subprocess.run(
        [sys.executable, "-m", "cgm_metrics", "compare", "--references",
         str(tmp_path / "refs.txt"), str(tmp_path / "a.txt"), str(tmp_path / "b.txt"),
         "--metrics", "codexglue_edit_sim", "--no-progress"],
        capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "codexglue_edit_sim" in done.stdout


def test_a_metric_built_directly_pickles_for_worker_processes():
    import pickle

    metric = CodeXGlueEditSimMetric(ratio="difflib")
    assert pickle.loads(pickle.dumps(metric)).compute(["x = 1"], ["x = 2"]) == metric.compute(
        ["x = 1"], ["x = 2"])
