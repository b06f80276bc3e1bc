"""Code nested 100,000 levels deep, in every language that parses, through every front end.

Every metric that walks a syntax tree must score such code by its documented fallback or
refuse the item by name, never crash the process (tree-sitter's S-expression printer recurses
in C: the ``tsed`` package's process dies of a segmentation fault near 20,000 nested brackets)
nor raise a RecursionError:

- CodeBLEU scores it (a tree deeper than 800 levels has no dataflow graph, as the package);
- RUBY falls back to the string level (the tree level takes up to 3,000 nodes);
- CrystalBLEU's tree-sitter tokens and chrF's comment stripping walk without recursion;
- TSED refuses code nested deeper than ``MAX_DEPTH`` levels with an error naming the item.

The shapes are built in each language's own syntax (tests/deep_inputs.py): parentheses,
blocks, list literals, conditionals, nested functions, unary minus chains and left-deep
``a + a + ...`` chains.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import pytest
from deep_inputs import SHAPES, deep_code, depth_for, languages

import cgm_metrics
from cgm_metrics.base.errors import ItemError
from cgm_metrics.maths import tsed as tsed_module

DEPTH = 100_000
pytestmark = pytest.mark.filterwarnings("ignore:crystal_bleu without:UserWarning")
LANGUAGES = languages()
# The default run takes three languages through every front end (Python; JavaScript, a
# C-family grammar; Haskell, one whose parse time grows quadratically with depth); the others
# are marked slow (`pytest --slow`, CGM_SLOW=1): the whole matrix is every language x 4 front ends.
REPRESENTATIVE = ("python", "javascript", "haskell")
EVERY_LANGUAGE = [lang if lang in REPRESENTATIVE else pytest.param(lang, marks=pytest.mark.slow)
                  for lang in LANGUAGES]
# the metrics that score deep code (TSED refuses it: tested apart)
SCORED = ("codebleu", "ruby", "crystal_bleu")
REFERENCE = "x = 1\n"


def test_every_language_is_covered():
    assert set(LANGUAGES) == set(cgm_metrics.languages.names())
    assert set(REPRESENTATIVE) <= set(LANGUAGES)


def _shapes_of(lang: str) -> tuple[str, ...]:
    """Two shapes a language for the slower front ends, turning through all of them."""
    index = LANGUAGES.index(lang)
    return SHAPES[index % len(SHAPES)], SHAPES[(index + 3) % len(SHAPES)]


def _check_scored(metric: str, per_item: list[float], labels: dict | None) -> None:
    assert all(math.isfinite(value) and 0.0 <= value <= 1.0 for value in per_item), per_item
    if metric == "ruby":  # RUBY's documented fallback: the string level
        assert labels is not None and set(labels["level"]) == {"string"}, labels


@pytest.mark.parametrize("lang", EVERY_LANGUAGE)
def test_score_every_shape(lang):
    """``cgm_metrics.score`` on every shape: scored by every metric but TSED, which names the
    item it refuses (each shape after a normal item)."""
    codes = [deep_code(lang, shape, depth_for(lang, shape, DEPTH)) for shape in SHAPES]
    references = [[REFERENCE]] * len(codes)
    for metric in SCORED:
        result = cgm_metrics.score(metric, codes, references, lang=lang, per_item=True)
        _check_scored(metric, result["per_item"], result.get("item_labels"))
    chrf = cgm_metrics.score("chrf_code", codes, references, lang=lang, strip_comments=True,
                             normalize_identifiers=True, per_item=True)
    assert all(math.isfinite(value) for value in chrf["per_item"])
    refused = []
    for shape, code in zip(SHAPES, codes, strict=True):
        try:  # a tree flattened by error recovery may stay within TSED's depth: then scored
            value = cgm_metrics.score("tsed", [REFERENCE, code], [[REFERENCE], [REFERENCE]],
                                      lang=lang)["score"]
        except ItemError as error:
            assert error.item == 1 and str(error).startswith(
                "item 1: tsed: the code nests more than 20,000 levels deep"), (shape, error)
            refused.append(shape)
        else:
            assert math.isfinite(value), shape
    if any(depth_for(lang, shape, DEPTH) == DEPTH for shape in SHAPES):
        assert refused, lang


def test_tsed_prints_deep_trees_as_tree_sitter_does():
    """Between 1,000 and MAX_DEPTH levels tree-sitter's printer runs on a thread with a stack
    sized for the tree: the S-expression is tree-sitter's own (compared with a print on a
    thread with a large stack) and the score is the package's formula on it."""
    import threading

    for lang, shape in (("python", "lists"), ("kotlin", "lists"), ("c", "ifs"),
                        ("javascript", "concat")):
        code = deep_code(lang, shape, 3_000)
        source = code.encode()
        root = tsed_module._parser(lang).parse(source).root_node
        assert tsed_module.PRINT_DEPTH < tsed_module.tree_depth(root) <= tsed_module.MAX_DEPTH
        expected: list[str] = []
        previous = threading.stack_size(1 << 28)
        try:
            thread = threading.Thread(target=lambda r=root, e=expected: e.append(str(r)))
            thread.start()
            thread.join()
        finally:
            threading.stack_size(previous)
        assert tsed_module.sexp(code, lang) == expected[0]
        reference = tsed_module.sexp_tree(tsed_module.sexp(REFERENCE, lang))
        value = tsed_module.tsed_similarity(tsed_module.sexp_tree(expected[0]), reference)
        assert cgm_metrics.score("tsed", [code], [[REFERENCE]], lang=lang)["score"] == value


def test_tsed_limit_counts_levels_not_nodes():
    """A large shallow tree is read in full; only depth is limited."""
    wide = "x = [" + ", ".join(["a"] * 30_000) + "]\n"
    tree, size = tsed_module._sexp_reader(wide, "python")
    assert size == len(tree) > 30_000


@pytest.fixture(scope="module")
def modules():
    import evaluate

    return {name: evaluate.load(cgm_metrics.module_path(name))
            for name in (*SCORED, "tsed")}


@pytest.mark.parametrize("lang", EVERY_LANGUAGE)
def test_evaluate_modules(lang, modules):
    codes = [deep_code(lang, shape, depth_for(lang, shape, DEPTH)) for shape in _shapes_of(lang)]
    references = [[REFERENCE]] * len(codes)
    for metric in SCORED:
        result = modules[metric].compute(predictions=codes, references=references, lang=lang)
        value = next(result[key] for key in (metric, "codebleu", "ruby", "crystal_bleu", "score")
                     if key in result)
        assert math.isfinite(value) and 0.0 <= value <= 1.0, (metric, result)
    if depth_for(lang, "concat", DEPTH) < DEPTH:
        return  # TSED's refusal needs more levels than the slow grammar is parsed at here
    with pytest.raises(ValueError, match=r"item 1: tsed: the code nests more than"):
        modules["tsed"].compute(predictions=[REFERENCE, deep_code(lang, "concat", DEPTH)],
                                references=[[REFERENCE], [REFERENCE]], language=lang)


def _cgm(*args: object) -> subprocess.CompletedProcess:
    env = dict(os.environ, HF_EVALUATE_OFFLINE="1", PYTHONHASHSEED="0")
    return subprocess.run([sys.executable, "-m", "cgm_metrics", *map(str, args)],
                          capture_output=True, text=True, env=env, timeout=900)


@pytest.mark.parametrize("lang", EVERY_LANGUAGE)
def test_cgm_score(lang, tmp_path):
    """``cgm score`` in a subprocess: scored (exit 0) by the metrics with a fallback; TSED
    exits 1 with a message naming the item, no traceback; never a signal."""
    codes = [deep_code(lang, shape, depth_for(lang, shape, DEPTH)) for shape in _shapes_of(lang)]
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps({"prediction": code, "references": [REFERENCE]}) + "\n"
                            for code in [REFERENCE, *codes]), encoding="utf-8")
    result = _cgm("score", "--predictions", path, "--lang", lang, "--metrics", *SCORED,
                  "--json", tmp_path / "out.json", "--no-progress")
    assert result.returncode == 0, (result.returncode, result.stderr[-2000:])
    scores = json.loads((tmp_path / "out.json").read_text())
    assert set(SCORED) <= set(json.dumps(scores).replace('"', " ").split()), scores
    if depth_for(lang, "concat", DEPTH) < DEPTH:
        return  # TSED's refusal needs more levels than the slow grammar is parsed at here
    path.write_text("".join(json.dumps({"prediction": code, "references": [REFERENCE]}) + "\n"
                            for code in [REFERENCE, deep_code(lang, "concat", DEPTH)]),
                    encoding="utf-8")
    result = _cgm("score", "--predictions", path, "--lang", lang, "--metrics", "tsed",
                  "--no-progress")
    assert result.returncode == 1, (result.returncode, result.stderr[-2000:])
    assert "item 1: tsed: the code nests more than" in result.stderr
    assert "Traceback" not in result.stderr


PURE_PYTHON = """
import json, sys
sys.path.insert(0, {tests!r})
from cgm_metrics.base import native
native._state.update(library=None, reason="disabled by the test")
import cgm_metrics
from deep_inputs import deep_code
out = {{}}
for lang in ("python", "java", "javascript"):
    codes = [deep_code(lang, shape, {depth}) for shape in ("ifs", "concat")]
    refs = [["x = 1"]] * len(codes)
    for metric in ("codebleu", "ruby"):
        result = cgm_metrics.score(metric, codes, refs, lang=lang, per_item=True)
        out[lang + " " + metric] = [result["per_item"], result.get("item_labels")]
print(json.dumps(out))
"""


def test_pure_python_engines():
    """Without the C library (CodeBLEU's and RUBY's pure-Python engines), in a subprocess."""
    from pathlib import Path

    script = PURE_PYTHON.format(tests=str(Path(__file__).parent), depth=DEPTH)
    env = dict(os.environ, CGM_CODEBLEU_ENGINE="python")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            env=env, timeout=900)
    assert result.returncode == 0, (result.returncode, result.stderr[-2000:])
    out = json.loads(result.stdout.splitlines()[-1])
    assert len(out) == 6
    for key, (per_item, labels) in out.items():
        _check_scored(key.split()[1], per_item, labels)


def _largest(lang: str, shape: str, chars: int) -> str:
    """The deepest code of ``shape`` in ``lang`` within ``chars`` characters."""
    low, high = 1, chars
    while low < high:
        middle = (low + high + 1) // 2
        if len(deep_code(lang, shape, middle)) <= chars:
            low = middle
        else:
            high = middle - 1
    return deep_code(lang, shape, low)


@pytest.mark.parametrize("lang", EVERY_LANGUAGE)
def test_space_side_by_side(lang):
    """The Space's side-by-side view, snippets as deep as its size limit lets them be: every
    metric scores them (TSED's limit lies beyond what the Space accepts)."""
    from cgm_metrics.frontends.space import views
    from cgm_metrics.frontends.space.limits import LIMITS

    chars = LIMITS.max_snippet_chars
    candidates = [_largest(lang, shape, chars) for shape in _shapes_of(lang)]
    page = views.side_by_side(_largest(lang, "parens", chars), candidates, lang)
    assert {"codebleu", "ruby", "tsed", "crystal_bleu"} <= set(page["metrics"]), page["skipped"]
    for candidate in page["candidates"]:
        for name, entry in candidate["scores"].items():
            assert math.isfinite(entry["score"]), (name, entry)


def test_tsed_types_trees_have_the_same_limit():
    code = deep_code("python", "unary", DEPTH)
    with pytest.raises(ItemError, match=r"^item 0: tsed: the code nests more than 20,000"):
        cgm_metrics.score("tsed", [code], [[REFERENCE]], lang="python", tree="types")
