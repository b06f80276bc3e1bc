"""CrystalBLEU against the `crystalbleu` package (corpus_bleu, sentence_bleu) on real code and
generated inputs, the README's recipe for the trivially shared n-grams, and the metric's
contract (statistics, signature, errors, determinism, CLI)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import warnings
from collections import Counter

import numpy as np
import pytest
from conftest import DATA
from crystalbleu import SmoothingFunction, corpus_bleu, sentence_bleu
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nltk.util import ngrams

import cgm_metrics
from cgm_metrics.maths import crystal_bleu
from cgm_metrics.maths.crystal_bleu import (
    CrystalBleuMetric,
    compute_crystal_bleu,
    save_ngrams,
    tokenizer,
    trivially_shared_ngrams,
)

pytestmark = pytest.mark.filterwarnings("ignore:crystal_bleu without:UserWarning")


def _golden(lang: str) -> tuple[list[str], list[list[str]]]:
    preds, refs = [], []
    with open(DATA / "codebleu" / f"codebleu_public_{lang}.jsonl", encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            preds.append(record["predictions"][0])
            refs.append(record["references"])
    return preds, refs


def readme_recipe(documents: list[list[str]], k: int) -> dict:
    """The package README's recipe with the paper scripts' counting: all 1- to 4-grams of each
    tokenized document (nltk's ngrams), ``dict(Counter(...).most_common(k))``."""
    all_ngrams = []
    for tokens in documents:
        for n in range(1, 5):
            all_ngrams.extend(ngrams(tokens, n))
    return dict(Counter(all_ngrams).most_common(k))


def peer(preds, refs, ignoring, smoothing="method0", epsilon=0.1, weights=(0.25,) * 4):
    """The package's corpus score and sentence scores on token lists."""
    function = getattr(SmoothingFunction(epsilon=epsilon), smoothing)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # method0's "0 counts of n-gram overlaps"
        corpus = corpus_bleu(refs, preds, weights=weights, smoothing_function=function,
                             ignoring=ignoring)
        items = [sentence_bleu(r, p, weights=weights, smoothing_function=function,
                               ignoring=ignoring) for p, r in zip(preds, refs, strict=True)]
    return corpus, items


@pytest.mark.parametrize("lang", ["python", "java", "c_sharp", "go", "rust", "php"])
@pytest.mark.parametrize("smoothing", ["method0", "method1"])
def test_equal_to_the_package_on_real_code(lang, smoothing):
    preds, refs = _golden(lang)
    split = tokenizer("code", lang)
    pred_tokens = [split(p) for p in preds]
    ref_tokens = [[split(r) for r in group] for group in refs]
    shared = trivially_shared_ngrams(
        [t for group in refs for t in group], k=100, tokenize="code", lang=lang)
    # the public recipe gives the package README's list (ties in first-seen order)
    recipe = readme_recipe([t for group in ref_tokens for t in group], 100)
    assert shared == list(recipe)
    metric = CrystalBleuMetric(lang=lang, trivially_shared=shared, smoothing=smoothing,
                               epsilon=0.0001)
    result = metric.compute(preds, refs, per_item=True)
    corpus, items = peer(pred_tokens, ref_tokens, recipe, smoothing, 0.0001)
    assert result["score"] == corpus  # bit for bit
    assert result["per_item"] == items
    # the list matters: with it the score differs from BLEU (the package without ignoring)
    assert result["score"] != peer(pred_tokens, ref_tokens, None, smoothing, 0.0001)[0]


def test_equal_to_the_package_on_hearthstone_outputs_pretokenized():
    rows = [json.loads(line) for line in open(DATA / "hearthstone" / "hs.graded.jsonl",
                                              encoding="utf-8")]
    preds = [" ".join(r["prediction"].split()) for r in rows]
    refs = [[" ".join(r["references"][0].split())] for r in rows]
    shared = trivially_shared_ngrams([g[0] for g in refs], k=500, tokenize="none")
    result = cgm_metrics.score("crystal_bleu", preds, refs, tokenize="none",
                               trivially_shared=shared, per_item=True)
    corpus, items = peer([p.split() for p in preds], [[g[0].split()] for g in refs],
                         set(shared))
    assert result["score"] == corpus
    assert result["per_item"] == items


def test_worked_examples_of_the_package():
    ref, hyp = "int x = a + b ; return x ;", "int y = a + b ; return y ;"
    plain = CrystalBleuMetric(tokenize="none").compute([hyp], [ref])["score"]
    assert plain == sentence_bleu([ref.split()], hyp.split())
    corpus = ["int i = 0 ; for ( int i = 0 ; i < n ; i ++ ) { }", "int j = 0 ; return j ;", ref]
    shared = trivially_shared_ngrams(corpus, k=10, tokenize="none")
    assert shared == [(";",), ("int",), ("i",), ("=",), ("0",), ("=", "0"), ("0", ";"),
                      ("=", "0", ";"), ("int", "i"), ("i", "=")]
    metric = CrystalBleuMetric(tokenize="none", trivially_shared=shared, smoothing="method1",
                               epsilon=1e-4)
    expected = sentence_bleu([ref.split()], hyp.split(), ignoring=shared,
                             smoothing_function=SmoothingFunction(epsilon=1e-4).method1)
    assert metric.compute([hyp], [ref])["score"] == expected
    # every hypothesis unigram ignored: 0, as the package
    everything = CrystalBleuMetric(tokenize="none", trivially_shared=[("a",), ("b",)])
    assert everything.compute(["a b a"], ["a b"])["score"] == 0.0
    assert sentence_bleu([["a", "b"]], ["a", "b", "a"], ignoring=[("a",), ("b",)]) == 0


_TOKENS = st.lists(st.sampled_from(list("abcd") + [";", "=", "(", ")"]), max_size=12)


@settings(max_examples=150, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(
    items=st.lists(st.tuples(_TOKENS, st.lists(_TOKENS, min_size=1, max_size=3)), min_size=1,
                   max_size=4),
    k=st.integers(1, 20),
    smoothing=st.sampled_from(["method0", "method1", "method2", "method3"]),
    weights=st.sampled_from([(0.25,) * 4, (0.5, 0.5), (1 / 3,) * 3, (0.1, 0.2, 0.3, 0.4)]),
)
def test_equal_to_the_package_on_generated_token_lists(items, k, smoothing, weights):
    preds = [" ".join(p) for p, _ in items]
    refs = [[" ".join(r) for r in group] for _, group in items]
    corpus_docs = [r for group in refs for r in group] + ["a b c ;"]
    shared = trivially_shared_ngrams(corpus_docs, k=k, tokenize="none")
    metric = CrystalBleuMetric(tokenize="none", trivially_shared=shared, smoothing=smoothing,
                               epsilon=0.01, weights=weights)
    result = metric.compute(preds, refs, per_item=True)
    expected, per_item = peer([p.split() for p in preds],
                              [[r.split() for r in group] for group in refs],
                              dict.fromkeys(shared), smoothing, 0.01, weights)
    assert result["score"] == expected
    assert result["per_item"] == per_item


def test_corpus_score_of_summed_rows_and_resampled_rows_is_the_package_corpus_score():
    preds, refs = _golden("java")
    shared = trivially_shared_ngrams([g[0] for g in refs], k=200, lang="java")
    metric = CrystalBleuMetric(lang="java", trivially_shared=shared, smoothing="method1",
                               epsilon=1e-4)
    stats = metric.statistics(preds, refs)
    assert stats.shape == (len(preds), len(metric.columns()))
    split = tokenizer("code", "java")
    rng = np.random.default_rng(0)
    for _ in range(3):
        sample = rng.integers(0, len(preds), len(preds))
        expected, _ = peer([split(preds[i]) for i in sample],
                           [[split(r) for r in refs[i]] for i in sample], set(shared),
                           "method1", 1e-4)
        assert metric.score_from_statistics(stats[sample].sum(0)) == expected


def test_pygments_tokens_are_the_paper_tokens():
    from pygments.lexers import JavaLexer
    from pygments.token import Comment

    code = 'public int f(int x) { // add one\n    return x + 1; /* done */ String s = "a b"; }'
    expected = [text for kind, text in JavaLexer().get_tokens(code)
                if not re.fullmatch(r"\s+", text) and kind not in Comment]
    assert tokenizer("pygments", "java")(code) == expected
    assert "//" not in " ".join(expected) and "add" not in expected


def test_code_tokens_drop_comments_and_keep_strings_whole():
    tokens = tokenizer("code", "python")('x = f("a b")  # note\n')
    assert tokens == ["x", "=", "f", "(", '"a b"', ")"]


def test_identical_code_scores_one_and_determinism_under_hash_seeds():
    preds, refs = _golden("python")
    shared = trivially_shared_ngrams([g[0] for g in refs], k=50)
    result = cgm_metrics.score("crystal_bleu", preds[:20], preds[:20], trivially_shared=shared,
                               per_item=True)
    assert result["score"] == 1.0
    code = ("import cgm_metrics, json, warnings\nwarnings.simplefilter('ignore')\n"
            "from cgm_metrics.maths.crystal_bleu import trivially_shared_ngrams as t\n"
            "p = ['x = a + b ;', 'for i in range(3): print(i)']\n"
            "r = [['x = a + c ;'], ['for j in range(3): print(j)']]\n"
            "s = t([g[0] for g in r] * 3, k=7)\n"
            "print(json.dumps([s, cgm_metrics.score('crystal_bleu', p, r,"
            " trivially_shared=set(s), per_item=True)]))\n")
    outputs = set()
    for seed in ("0", "1", "777"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        outputs.add(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                   env=env, check=True, timeout=300).stdout)
    assert len(outputs) == 1


def test_signature_names_the_list(tmp_path):
    shared = [("(",), (")",), (";",), ("=", "0")]
    a = CrystalBleuMetric(trivially_shared=shared).signature()
    b = CrystalBleuMetric(trivially_shared=list(reversed(shared)) + [(";",)]).signature()
    c = CrystalBleuMetric(trivially_shared=shared[:3]).signature()
    assert a == b != c
    assert re.search(r"trivially_shared:sha256-[0-9a-f]{16}/4\|", a)
    path = tmp_path / "shared.json"
    save_ngrams(shared, path)
    assert CrystalBleuMetric(trivially_shared=str(path)).signature() == a
    assert CrystalBleuMetric(trivially_shared=json.dumps(shared)).signature() == a
    crystal_bleu._WARNED.clear()  # shown once per process: this worker may have shown it
    with pytest.warns(UserWarning, match="plain BLEU"):
        assert "trivially_shared:none" in CrystalBleuMetric().signature()


def test_the_plain_bleu_warning_is_shown_once_per_process():
    crystal_bleu._WARNED.clear()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        for _ in range(3):
            CrystalBleuMetric()
    assert [str(w.message)[:40] for w in seen] == ["crystal_bleu without `trivially_shared` "]


@pytest.mark.parametrize("options,error,text", [
    ({"tokenize": "13a"}, ValueError, "Unknown `tokenize` '13a'"),
    ({"smoothing": "method4"}, ValueError, "methods 4 to 7"),
    ({"weights": ()}, ValueError, "`weights`"),
    ({"weights": (0.5, -0.5)}, ValueError, "`weights`"),
    ({"epsilon": 0}, ValueError, "`epsilon`"),
    ({"trivially_shared": ["int", "x"]}, TypeError, "('int',)"),
    ({"trivially_shared": [()]}, TypeError, "non-empty tuple"),
    ({"trivially_shared": 5}, TypeError, "list of n-grams"),
    ({"trivially_shared": "no/such/file.json"}, ValueError, "does not exist"),
    ({"trivially_shared": "[[1, 2"}, ValueError, "not a JSON list"),
    ({"lang": "cobol"}, ValueError, "Supported"),
    ({"colour": "red"}, ValueError, "Unknown option 'colour'"),
])
def test_bad_options_are_clear_errors(options, error, text):
    with pytest.raises(error, match=re.escape(text)):
        cgm_metrics.get_metric("crystal_bleu", **options)


def test_recipe_arguments_are_checked():
    with pytest.raises(TypeError, match="not one string"):
        trivially_shared_ngrams("x = 1")
    with pytest.raises(ValueError, match="`k`"):
        trivially_shared_ngrams(["x = 1"], k=0)
    with pytest.raises(TypeError, match=r"corpus\[1\]"):
        trivially_shared_ngrams(["x = 1", 3])
    assert trivially_shared_ngrams([["a", "b"], ["a"]], k=2) == [("a",), ("b",)]


def test_module_result_and_metadata():
    result = compute_crystal_bleu(["x = a + b"], ["x = a + c"], trivially_shared=[("=",)],
                                  return_per_sample=True)
    assert set(result) == {"crystal_bleu", "scores", "signature"}
    assert result["scores"] == [result["crystal_bleu"]]
    metric = cgm_metrics.get_metric("crystal_bleu", trivially_shared=[("=",)])
    assert (metric.display_name, metric.scale, metric.higher_is_better, metric.runs_code) == (
        "CrystalBLEU", 1.0, True, False)
    assert metric.languages is None and "\n" not in metric.description  # any language


def test_cli_scores_with_a_list_file(tmp_path):
    refs = ["x = a + b ;", "return f ( x ) ;", "y = g ( a , b ) ;"]
    preds = ["x = a + c ;", "return f ( y ) ;", "y = g ( b , a ) ;"]
    (tmp_path / "refs.txt").write_text("\n".join(refs) + "\n")
    (tmp_path / "sys.txt").write_text("\n".join(preds) + "\n")
    shared = [(";",), ("=",), ("(",), (")",)]
    save_ngrams(shared, tmp_path / "shared.json")
    env = dict(os.environ, HF_EVALUATE_OFFLINE="1")
    done = subprocess.run(
        [sys.executable, "-m", "cgm_metrics", "score", "--references", str(tmp_path / "refs.txt"),
         "--predictions", str(tmp_path / "sys.txt"), "--metrics", "crystal_bleu",
         "--option", f"crystal_bleu.trivially_shared={tmp_path / 'shared.json'}",
         "--option", "crystal_bleu.tokenize=none", "--json", "-", "--no-progress"],
        capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    entry = json.loads(done.stdout)["systems"]["sys"]["crystal_bleu"]
    expected, _ = peer([p.split() for p in preds], [[r.split()] for r in refs], set(shared))
    assert entry["score"] == expected


def test_a_metric_built_directly_pickles_for_worker_processes():
    import pickle

    for tokenize in ("code", "pygments", "none"):
        metric = CrystalBleuMetric(lang="java", tokenize=tokenize, trivially_shared=[(";",)])
        copy = pickle.loads(pickle.dumps(metric))
        pair = (["int x = a + b ;"], ["int y = a + b ;"])
        assert copy.compute(*pair) == metric.compute(*pair)
