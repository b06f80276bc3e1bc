"""TSED against the `tsed` package (TSED.Calculate, its S-expression reader and APTED) on real
code in every language both support, on generated inputs, and the metric's contract."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys

import numpy as np
import pytest
import TSED
from apted import APTED, PerEditOperationConfig
from conftest import DATA
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cgm_metrics
from cgm_metrics.maths.ruby.ted import Tree, tree_edit_distance
from cgm_metrics.maths.tsed import (
    MAX_TABLE_CELLS,
    compute_tsed,
    sexp,
    sexp_tree,
    tsed,
    tsed_languages,
)

WEIGHTS = (1.0, 0.8, 1.0)
CODEBLEU_LANGUAGES = ["c", "c_sharp", "cpp", "go", "java", "javascript", "php", "python",
                      "ruby", "rust"]


def peer(lang: str, origin: str, target: str, weights=WEIGHTS) -> float:
    return TSED.Calculate(tsed_languages()[lang], origin, target, *weights)


def _pairs(lang: str, count: int, max_chars: int = 700) -> list[tuple[str, str]]:
    """Real (prediction, reference) pairs of the codebleu golden files, short ones first (the
    peer's pure-Python APTED is slow), plus one long pair."""
    pairs = []
    with open(DATA / "codebleu" / f"codebleu_public_{lang}.jsonl", encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            for reference in record["references"]:
                pairs.append((record["predictions"][0], reference))
    pairs.sort(key=lambda pair: len(pair[0]) + len(pair[1]))
    short = [p for p in pairs if len(p[0]) + len(p[1]) <= max_chars]
    rng = random.Random(lang)
    return rng.sample(short, min(count, len(short)))


@pytest.mark.parametrize("lang", CODEBLEU_LANGUAGES)
def test_equal_to_the_package_on_real_code(lang):
    pairs = _pairs(lang, 8)
    assert len(pairs) == 8
    for prediction, reference in pairs:
        ours = tsed(prediction, reference, lang)
        assert ours == pytest.approx(peer(lang, prediction, reference), rel=1e-12, abs=1e-12)
        # asymmetric weights: the other direction too
        back = tsed(reference, prediction, lang)
        assert back == pytest.approx(peer(lang, reference, prediction), rel=1e-12, abs=1e-12)


def test_equal_to_the_package_on_hearthstone_outputs():
    rows = [json.loads(line) for line in open(DATA / "hearthstone" / "hs.graded.jsonl",
                                              encoding="utf-8")]
    rng = random.Random(7)
    rows = [r for r in rows if len(r["prediction"]) + len(r["references"][0]) < 900]
    for row in rng.sample(rows, 12):
        prediction, reference = row["prediction"], row["references"][0]
        assert tsed(prediction, reference, "python") == pytest.approx(
            peer("python", prediction, reference), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("weights", [(1.0, 1.0, 1.0), (0.5, 1.5, 2.0), (1.0, 0.8, 0.0)])
def test_equal_to_the_package_with_other_weights(weights):
    for prediction, reference in _pairs("java", 4) + _pairs("python", 4):
        lang = "java" if "{" in prediction + reference else "python"
        assert tsed(prediction, reference, lang, weights) == pytest.approx(
            peer(lang, prediction, reference, weights), rel=1e-12, abs=1e-12)


# Real snippets of the languages the grammar pack has beyond the codebleu golden files.
OTHER_LANGUAGES = {
    "typescript": ("function add(a: number, b: number): number { return a + b; }",
                   "function add(x: number, y: number): number { const s = x + y; return s; }"),
    "kotlin": ("fun add(a: Int, b: Int): Int { return a + b }",
               "fun add(a: Int, b: Int): Int {\n    val s = a + b\n    return s\n}"),
    "swift": ("func add(a: Int, b: Int) -> Int { return a + b }",
              "func add(_ a: Int, _ b: Int) -> Int {\n    let s = a + b\n    return s\n}"),
    "scala": ("def add(a: Int, b: Int): Int = a + b",
              "def add(a: Int, b: Int): Int = {\n  val s = a + b\n  s\n}"),
    "lua": ("function add(a, b)\n  return a + b\nend",
            "local function add(a, b)\n  local s = a + b\n  return s\nend"),
    "bash": ('for f in *.txt; do\n  echo "$f"\ndone',
             'for f in *.txt; do\n  wc -l "$f" > "$f.count"\ndone'),
    "haskell": ("add :: Int -> Int -> Int\nadd a b = a + b",
                "add :: Int -> Int -> Int\nadd a b = let s = a + b in s"),
    "julia": ("function add(a, b)\n    return a + b\nend",
              "function add(a, b)\n    s = a + b\n    s\nend"),
}


def test_languages_by_their_names_and_aliases():
    """TSED takes the languages by every name the resolver knows."""
    assert cgm_metrics.get_metric("tsed", lang="sh").lang == "bash"
    assert cgm_metrics.get_metric("tsed", lang="jl").lang == "julia"


@pytest.mark.parametrize("lang", sorted(OTHER_LANGUAGES))
def test_equal_to_the_package_in_the_other_languages(lang):
    first, second = OTHER_LANGUAGES[lang]
    for a, b in ((first, second), (second, first), (first, first)):
        assert tsed(a, b, lang) == pytest.approx(peer(lang, a, b), rel=1e-12, abs=1e-12)
    assert tsed(first, second, lang) < 1.0


def _peer_tree(node) -> tuple[list[str], list[list[int]]]:
    """The package's Node tree as (labels, children) in pre-order."""
    labels, children, stack = [], [], [(node, -1)]
    while stack:
        current, parent = stack.pop()
        index = len(labels)
        labels.append(current.name)
        children.append([])
        if parent >= 0:
            children[parent].append(index)
        stack.extend((kid, index) for kid in reversed(current.children))
    return labels, children


@pytest.mark.parametrize("lang,code", [
    ("python", "def f(x):\n    return x + 1\n"),
    ("java", "class A { void f() { g(1; } }"),  # (MISSING ")"): a quoted paren
    ("rust", "fn f() { g(1; }"),
    ("c", "int f() { return (1; }"),
    ("python", "print(1"),
    ("php", "<?php echo $x + 1; ?>"),
    ("go", "package main\nfunc f(x int) int {\n\treturn x + 1\n}\n"),
    ("python", ""),
])
def test_trees_are_read_as_the_package_reads_them(lang, code):
    tree, size = sexp_tree(sexp(code, lang))
    node = TSED._get_tree(tsed_languages()[lang], code)
    labels, children = _peer_tree(node)
    assert list(tree.labels) == labels
    assert [list(kids) for kids in tree.children] == children
    assert size == node.len_sexp


def test_field_names_relabel_the_parent_and_source_text_vanishes():
    tree, size = sexp_tree(sexp("def f(x):\n    return x + 1\n", "python"))
    assert tree.labels[1] == "body:"  # function_definition, relabelled by its last field
    assert size == len(tree) == 10
    # operators and identifiers are not in the tree
    assert tsed("int f(int x){return x+1;}", "int f(int x){return x-1;}", "cpp") == 1.0


def test_worked_examples_of_the_package():
    assert tsed("def f(x):\n    return x + 1\n",
                "def f(x):\n    if x > 0:\n        return x\n    return -x\n") == 0.575
    assert tsed("def f(x):\n    if x > 0:\n        return x\n    return -x\n",
                "def f(x):\n    return x + 1\n") == 0.5
    assert tsed("", "x = 1\n") == pytest.approx(peer("python", "", "x = 1\n"))
    assert tsed("x = 1\n", "def f(:\n") == pytest.approx(peer("python", "x = 1\n", "def f(:\n"))


_TEXT = st.text(alphabet=st.sampled_from(list("abx=+-*()[]{}:;,.'\"\n\t 01#")), max_size=40)


@settings(max_examples=60, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(a=_TEXT, b=_TEXT, lang=st.sampled_from(["python", "javascript", "c"]))
def test_equal_to_the_package_on_generated_code(a, b, lang):
    assert tsed(a, b, lang) == pytest.approx(peer(lang, a, b), rel=1e-12, abs=1e-12)


@st.composite
def _trees(draw, max_nodes=9):
    n = draw(st.integers(1, max_nodes))
    parents = [draw(st.integers(0, k - 1)) for k in range(1, n)]
    labels = [draw(st.sampled_from("abc")) for _ in range(n)]
    return labels, parents


class _Node:
    def __init__(self, name):
        self.name, self.children = name, []


@settings(max_examples=80, deadline=None, derandomize=True, database=None)
@given(_trees(), _trees(), st.sampled_from([(1.0, 0.8, 1.0), (0.3, 2.0, 1.1), (1.0, 1.0, 0.5)]))
def test_weighted_tree_edit_distance_equals_apted(first, second, weights):
    """The kernel shared with RUBY, with TSED's per-operation costs, against APTED."""

    def build(tree):
        labels, parents = tree
        nodes = [_Node(label) for label in labels]
        for child, parent in enumerate(parents, start=1):
            nodes[parent].children.append(nodes[child])
        children = [[] for _ in labels]
        for child, parent in enumerate(parents, start=1):
            children[parent].append(child)
        # our Tree wants pre-order: renumber by a traversal
        order, stack = [], [0]
        while stack:
            k = stack.pop()
            order.append(k)
            stack.extend(reversed(children[k]))
        index = {k: i for i, k in enumerate(order)}
        ours = Tree(tuple(labels[k] for k in order),
                    tuple(tuple(index[c] for c in children[k]) for k in order))
        return nodes[0], ours

    (peer1, ours1), (peer2, ours2) = build(first), build(second)
    delete, insert, rename = weights
    expected = APTED(peer1, peer2, PerEditOperationConfig(delete, insert, rename)
                     ).compute_edit_distance()
    got = tree_edit_distance(ours1, ours2, relabel=rename, delete=delete, insert=insert)
    assert got == pytest.approx(expected, rel=1e-12, abs=1e-12)


# ---------------------------------------------------------------- the metric's contract


def test_identical_code_scores_one_and_several_references_take_the_best():
    codes = ["def add(a, b):\n    return a + b\n", "for i in range(3):\n    print(i)\n", ""]
    result = cgm_metrics.score("tsed", codes, codes, lang="python", per_item=True)
    assert result["score"] == 1.0 and result["per_item"] == [1.0, 1.0, 1.0]
    a, b = "x = 1\n", "def f():\n    return 1\n"
    together = cgm_metrics.score("tsed", [a], [[b, a]], lang="python", per_item=True)["per_item"][0]
    assert together == 1.0
    alone = [cgm_metrics.score("tsed", [a], [r], lang="python")["score"] for r in (b, "")]
    assert cgm_metrics.score("tsed", [a], [[b, ""]], lang="python")["score"] == max(alone)


def test_corpus_score_is_the_mean_of_items_and_resamples_from_statistics():
    pairs = _pairs("python", 6)
    preds, refs = [p for p, _ in pairs], [r for _, r in pairs]
    metric = cgm_metrics.get_metric("tsed", lang="python")
    stats = metric.statistics(preds, [[r] for r in refs])
    expected = [peer("python", p, r) for p, r in pairs]
    assert metric.corpus_score(stats) == pytest.approx(sum(expected) / len(expected), abs=1e-12)
    subset = [0, 0, 3, 5]
    assert metric.score_from_statistics(stats[subset].sum(0)) == pytest.approx(
        np.mean([expected[i] for i in subset]), abs=1e-12)


def test_module_output_is_the_tsed_space_output():
    pairs = _pairs("java", 3)
    preds, refs = [p for p, _ in pairs], [r for _, r in pairs]
    result = compute_tsed(preds, refs, language="java")
    scores = [peer("java", p, r) for p, r in pairs]
    assert result["tsed_scores"] == pytest.approx(scores, abs=1e-12)
    assert result["tsed"] == pytest.approx(sum(scores) / len(scores), abs=1e-12)
    assert "tree-sitter-language-pack==0.9.0" in result["signature"]
    assert compute_tsed(preds, refs, language="java", return_per_sample=False).keys() == {"tsed", "signature"}


def test_deterministic_under_any_hash_seed():
    code = ("import cgm_metrics, json\n"
            "p = ['def f(x):\\n    return x + 1\\n', 'class A { int f() { return 1; } }']\n"
            "r = [['def g(y):\\n    if y:\\n        return y\\n'], ['class B { }']]\n"
            "print(json.dumps([cgm_metrics.score('tsed', p, r, lang=l, per_item=True)"
            " for l in ('python', 'java')]))\n")
    outputs = set()
    for seed in ("0", "1", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              env=env, check=True, timeout=300)
        outputs.add(done.stdout)
    assert len(outputs) == 1


def test_metadata_and_languages():
    metric = cgm_metrics.get_metric("tsed", lang="go")
    assert metric.name == "tsed" and metric.display_name == "TSED" and metric.scale == 1.0
    assert metric.higher_is_better and metric.runs_code is False
    assert set(CODEBLEU_LANGUAGES) <= set(metric.languages)
    assert "\n" not in metric.description


@pytest.mark.parametrize("options,error,text", [
    ({"lang": "cobol"}, ValueError, "Unknown language 'cobol'"),
    ({"lang": 3}, TypeError, "`lang` must be a language name"),
    ({"weights": (1.0, 0.8)}, ValueError, "three numbers"),
    ({"weights": (1.0, -0.8, 1.0)}, ValueError, "weights (insertion)"),
    ({"weights": (1.0, float("nan"), 1.0)}, ValueError, "weights (insertion)"),
    ({"weights": "1,0.8,1"}, ValueError, "three numbers"),
    ({"colour": "red"}, ValueError, "Unknown option 'colour' for metric 'tsed'"),
])
def test_bad_options_are_clear_errors(options, error, text):
    with pytest.raises(error, match=re.escape(text)):
        cgm_metrics.get_metric("tsed", **{"lang": "python", **options})


def test_module_arguments_are_checked():
    with pytest.raises(ValueError, match="disagree"):
        compute_tsed(["x = 1"], ["x = 1"], lang="python", language="java")
    with pytest.raises(TypeError, match="return_per_sample"):
        compute_tsed(["x = 1"], ["x = 1"], return_per_sample="yes")
    assert compute_tsed(["x = 1"], ["x = 1"], lang="py", language="python")["tsed"] == 1.0


def test_oversized_trees_are_refused_with_the_fix(monkeypatch):
    import cgm_metrics.maths.tsed as module

    monkeypatch.setattr(module, "MAX_TABLE_CELLS", 50)
    with pytest.raises(ValueError, match="score smaller units"):
        tsed("def f(x):\n    return x + 1\n", "def g(y):\n    return [y for y in z]\n")
    assert MAX_TABLE_CELLS == 200_000_000


def test_cli_scores_and_compares_with_tsed(tmp_path):
    refs = tmp_path / "refs.txt"
    a = tmp_path / "a.txt"
    b = tmp_path / "b.txt"
    refs.write_text("int f(int x) { return x + 1; }\nint g() { return 0; }\n"
                    "void h() { for (;;) {} }\n")
    a.write_text("int f(int y) { return y - 1; }\nint g() { return 1; }\n"
                 "void h() { for (;;) {} }\n")
    b.write_text("int f(int x) { int y = x; return y; }\nint g;\nvoid h() {}\n")
    env = dict(os.environ, HF_EVALUATE_OFFLINE="1")
    done = subprocess.run(
        [sys.executable, "-m", "cgm_metrics", "score", "--references", str(refs),
         "--predictions", str(a), str(b), "--metrics", "tsed", "--lang", "java",
         "--json", "-", "--no-progress"],
        capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    systems = payload["systems"]
    lines = [refs.read_text().splitlines(), a.read_text().splitlines(),
             b.read_text().splitlines()]
    for name, preds in (("a", lines[1]), ("b", lines[2])):
        expected = np.mean([peer("java", p, r) for p, r in zip(preds, lines[0], strict=True)])
        assert systems[name]["tsed"]["score"] == pytest.approx(expected, abs=1e-12)
    done = subprocess.run(
        [sys.executable, "-m", "cgm_metrics", "compare", "--references", str(refs), str(a),
         str(b), "--metrics", "tsed", "--lang", "java", "--no-progress"],
        capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "tsed" in done.stdout


def test_types_reading_labels_nodes_by_type():
    """tree="types": named nodes by type, checked against APTED on trees built here from the
    grammar pack's parser."""
    from tree_sitter_language_pack import get_parser

    def peer_typed(code, lang):
        root = get_parser(tsed_languages()[lang]).parse(code.encode()).root_node

        def build(node):
            built = _Node(node.type)
            built.children = [build(kid) for kid in node.children if kid.is_named]
            return built

        def size(node):
            return 1 + sum(size(kid) for kid in node.children)

        tree = build(root)
        return tree, size(tree)

    for lang, (a, b) in [("python", ("def f(x):\n    return x + 1\n",
                                      "def f(x):\n    if x > 0:\n        return x\n")),
                         ("java", _pairs("java", 1)[0]), ("go", _pairs("go", 1)[0])]:
        (t1, n1), (t2, n2) = peer_typed(a, lang), peer_typed(b, lang)
        distance = APTED(t1, t2, PerEditOperationConfig(*WEIGHTS)).compute_edit_distance()
        longest = max(n1, n2)
        expected = max(0.0, (longest - distance) / longest)
        assert tsed(a, b, lang, tree="types") == pytest.approx(expected, rel=1e-12, abs=1e-12)
    metric = cgm_metrics.get_metric("tsed", lang="python", tree="types")
    assert "tree:types" in metric.signature()
    assert "tree:" not in cgm_metrics.get_metric("tsed", lang="python").signature()
    with pytest.raises(ValueError, match="Unknown `tree` 'ast'"):
        cgm_metrics.get_metric("tsed", lang="python", tree="ast")


def test_a_metric_built_directly_pickles_for_worker_processes():
    import pickle

    from cgm_metrics.maths.tsed import TsedMetric

    for tree in ("sexp", "types"):
        metric = TsedMetric(lang="java", tree=tree)
        copy = pickle.loads(pickle.dumps(metric))
        pair = (["class A { int f() { return 1; } }"], ["class A { }"])
        assert copy.compute(*pair) == metric.compute(*pair)
