"""CodeBLEU: parity with the `codebleu` package 0.7.0 (golden files), determinism, cost, options.

Expected values come from the package: its golden outputs in tests/data/codebleu (per
pair, per corpus, its own test vectors) or a live run of the package where it is installed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from _peers import codebleu_of
from conftest import METRICS_DIR, ROOT, shared_data

from cgm_metrics.maths.codebleu import CodeBleuMetric, compute_codebleu
from cgm_metrics.maths.codebleu.keywords import keywords
from cgm_metrics.maths.codebleu.setorder import set_order, string_hash

KEYS = (
    "codebleu",
    "ngram_match_score",
    "weighted_ngram_match_score",
    "syntax_match_score",
    "dataflow_match_score",
)
LANGUAGES = ("python", "c", "c_sharp", "cpp", "javascript", "java", "php", "go", "ruby", "rust")
TOL = 1e-9

# Unstable pairs whose value lies outside the package's observed 25-seed range, with the
# reason. With the package's own seed-0 set order (the default) there are none; the limit
# of the data README is 5% of the unstable pairs of a file.
EXPLAINED_OUTSIDE: dict[str, str] = {}


def _records(lang: str) -> list[dict]:
    path = shared_data("codebleu", f"codebleu_public_{lang}.jsonl")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _within(value: float, bounds: dict) -> bool:
    return bounds["min"] - TOL <= value <= bounds["max"] + TOL


@pytest.mark.parametrize("lang", LANGUAGES)
def test_golden_pairs(lang):
    """Each pair scored alone: stable pairs equal, unstable pairs within the 25-seed range."""
    records = _records(lang)
    stable_failures, outside = [], []
    n_unstable = 0
    for record in records:
        got = compute_codebleu(record["predictions"], [record["references"]], lang=lang)
        if record["stable_25_seeds"]:
            wrong = [k for k in KEYS if abs(got[k] - record[k]["min"]) > TOL]
            if wrong:
                stable_failures.append((record["id"], wrong))
        else:
            n_unstable += 1
            bounds = record.get("range_25_seeds") or {k: record[k] for k in KEYS}
            if not all(_within(got[k], bounds[k]) for k in KEYS):
                outside.append(record["id"])
    assert not stable_failures, stable_failures[:10]
    unexplained = [rid for rid in outside if rid not in EXPLAINED_OUTSIDE]
    assert not unexplained, unexplained
    assert len(outside) <= 0.05 * max(n_unstable, 1)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_golden_corpus(lang):
    """Each file as one corpus: n-gram, weighted and syntax exact; all keys in the seed range,
    and equal to the package's run with PYTHONHASHSEED=0 (the order we reproduce)."""
    corpus = json.loads(shared_data("codebleu", "codebleu_public_corpus.json").read_text())
    record = corpus[lang]
    rows = _records(lang)
    assert len(rows) == record["n_pairs"]
    got = compute_codebleu([r["predictions"][0] for r in rows], [r["references"] for r in rows],
                        lang=lang)
    bounds = record.get("range_25_seeds") or {k: record[k] for k in KEYS}
    for key in KEYS:
        assert _within(got[key], bounds[key]), (key, got[key], bounds[key])
    for key in ("ngram_match_score", "weighted_ngram_match_score", "syntax_match_score"):
        assert got[key] == pytest.approx(record[key]["min"], abs=TOL)
    for key in KEYS:
        assert got[key] == pytest.approx(record["per_seed"]["0"][key], abs=TOL)


def test_golden_corpus_is_micro_average_of_rows():
    """Corpus score = score of summed per-item rows; per-item scores = each pair alone."""
    rows = _records("python")[:40]
    preds = [r["predictions"][0] for r in rows]
    refs = [r["references"] for r in rows]
    metric = CodeBleuMetric(lang="python")
    stats = metric.statistics(preds, refs)
    assert stats.shape == (40, 23)
    whole = compute_codebleu(preds, refs, lang="python")
    assert metric.corpus_score(stats) == pytest.approx(whole["codebleu"], abs=TOL)
    parts = metric.components_from_statistics(stats.sum(axis=0))
    for key in KEYS[1:]:
        assert float(parts[key]) == pytest.approx(whole[key], abs=TOL)
    per_item = metric.item_scores(stats)
    for i, record in enumerate(rows[:10]):
        if record["stable_25_seeds"]:
            assert per_item[i] == pytest.approx(record["codebleu"]["min"], abs=TOL)
    # vectorised over resamples, as the significance engine uses it
    counts = np.random.default_rng(0).multinomial(40, [1 / 40] * 40, size=5)
    resampled = metric.score_from_statistics(counts @ stats)
    assert resampled.shape == (5,)
    assert resampled[0] == pytest.approx(metric.corpus_score(np.repeat(stats, counts[0], 0)))


def test_package_test_vectors():
    """The package's own test suite inputs (and README example, edge cases): every key."""
    path = shared_data("codebleu", "package_test_vectors.jsonl")
    vectors = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(vectors) >= 20
    for vector in vectors:
        got = compute_codebleu(vector["pred"], vector["ref"], lang=vector["lang"])
        for key in KEYS:
            assert got[key] == pytest.approx(vector[key], abs=TOL), (vector["tag"], key)
        # what the package's own tests assert (rounded); issue #32 quotes an older release
        if vector["asserted"] is not None and vector["tag"] != "issue32":
            assert got["codebleu"] == pytest.approx(vector["asserted"], rel=0.1)


def test_evaluate_module_matches_package_and_accepts_lang_list():
    import evaluate

    module = evaluate.load(str(METRICS_DIR / "codebleu"))
    # README example of the package: 0.5537842627792564 (codebleu), 0.10419044640136393 (ngram)
    prediction = "def add ( a , b ) :\n return a + b"
    reference = "def sum ( first , second ) :\n return second + first"
    for lang in ("python", ["python"], "py"):
        result = module.compute(predictions=[prediction], references=[reference], lang=lang)
        assert result["codebleu"] == pytest.approx(0.5537842627792564, abs=TOL)
        assert result["ngram_match_score"] == pytest.approx(0.10419044640136393, abs=TOL)
    # package, weights (0.1, 0.1, 0.4, 0.4), each pair alone: 0.9057264525574326 and 0.4
    result = module.compute(predictions=["x = 1", ""], references=[["x = 1"], ["y = 2"]],
                            lang="python", weights=(0.1, 0.1, 0.4, 0.4),
                            return_per_sample=True)
    assert result["scores"] == pytest.approx([0.9057264525574326, 0.4], abs=TOL)
    assert result["codebleu"] == pytest.approx(0.43003218895440254, abs=TOL)


_SEED_SCRIPT = """
import json, sys
from cgm_metrics.maths.codebleu import compute_codebleu
rows = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
rows = [r for r in rows if not r["stable_25_seeds"]][:12]
out = [compute_codebleu(r["predictions"], [r["references"]], lang=r["lang"], set_order=sys.argv[2])
       for r in rows]
out.append(compute_codebleu([r["predictions"][0] for r in rows], [r["references"] for r in rows],
                         lang=rows[0]["lang"], set_order=sys.argv[2]))
print(json.dumps(out))
"""


@pytest.mark.parametrize("order", ["package", "source"])
def test_deterministic_under_any_hash_seed(order):
    """Pairs on which the package's value changes with PYTHONHASHSEED give one value here."""
    path = shared_data("codebleu", "codebleu_public_python.jsonl")
    outputs = []
    for seed in ("0", "1", "123"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, "-c", _SEED_SCRIPT, str(path), order], env=env,
                              capture_output=True, text=True, timeout=300, check=True)
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1] == outputs[2]


def test_set_order_equals_cpython_at_seed_zero():
    """Our computed set order is CPython's own list(set(...)) under PYTHONHASHSEED=0."""
    words = ["x", "i", "self", "value", "_curses", "$foo", "ä", "日本", "😀", "", "n"]
    words += [f"v{i}" for i in range(30)] + ["a_b", "count", "result", "tmp", "$this"]
    cases = [words[i : i + k] + words[: k // 2] for i in range(len(words)) for k in (2, 5, 9, 17)]
    script = (
        "import json,sys; cases=json.loads(sys.stdin.read()); "
        "print(json.dumps([[hash(w) & (2**64-1) for w in cases[0]], "
        "[list(set(c)) for c in cases[1:]]]))"
    )
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run([sys.executable, "-c", script], input=json.dumps([words] + cases),
                          env=env, capture_output=True, text=True, check=True, timeout=60)
    hashes, orders = json.loads(done.stdout)
    assert hashes == [string_hash(w) for w in words]
    assert orders == [set_order(c) for c in cases]


def _nested_for(depth: int) -> str:
    lines = ["    " * d + f"for i{d} in range(n{d}):" for d in range(depth)]
    return "\n".join(lines + ["    " * depth + "s = s + i0"])


def test_nested_loops_are_not_exponential():
    """The package needs seconds for this pair (2^16 walks); the bound here only guards against
    exponential growth (benchmarks/codebleu.py prints both timings)."""
    compute_codebleu(["x = 1"], ["x = 1"], lang="python")  # parsers loaded
    code = _nested_for(16)
    start = time.perf_counter()
    compute_codebleu([code], [["def f(x):\n    return x"]], lang="python")
    compute_codebleu([code], [[code]], lang="python")
    assert time.perf_counter() - start < 1.0
    java = "class A { void f() { " + "for (int i = 0; i < n; i++) { " * 16 + "s += i;"
    java += " }" * 16 + " } }"
    start = time.perf_counter()
    result = compute_codebleu([java], [[java]], lang="java")
    assert time.perf_counter() - start < 1.0
    assert result["codebleu"] == pytest.approx(1.0)


def test_deep_nesting_has_no_recursion_error():
    deep_python = "x = " + "(" * 5000 + "1" + ")" * 5000
    result = compute_codebleu([deep_python], [[deep_python]], lang="python")
    assert result["syntax_match_score"] == 1.0
    deep_java = "class A { void f() { " + "if (a) { " * 2000 + "x = 1;" + " }" * 2000 + " } }"
    result = compute_codebleu([deep_java], [[deep_java]], lang="java")
    assert result["syntax_match_score"] == 1.0


def test_big_input_in_bounded_time():
    body = "\n".join(
        f"def f{i}(a, b):\n    c = a + b * {i}\n    if c:\n        c = a\n    return c"
        for i in range(1500)
    )
    assert len(body) > 90_000
    compute_codebleu(["x = 1"], [["x = 1"]], lang="python")  # grammar and engine loaded
    start = time.perf_counter()
    result = compute_codebleu([body], [[body]], lang="python")
    assert time.perf_counter() - start < 60
    assert result["codebleu"] == pytest.approx(1.0)


def test_typescript_keywords_and_dataflow():
    """TypeScript is not in the package. Its dataflow uses the package's JavaScript rules, so on
    the JavaScript golden pairs (valid TypeScript) it must give the package's JavaScript
    dataflow wherever the two grammars build the same tree (all but a few pairs)."""
    assert {"interface", "type", "readonly", "function", "const"} <= set(keywords("typescript"))
    equal = total = 0
    for record in _records("javascript"):
        if not record["stable_25_seeds"]:
            continue
        got = compute_codebleu(record["predictions"], [record["references"]], lang="typescript")
        total += 1
        equal += abs(got["dataflow_match_score"] - record["dataflow_match_score"]["min"]) <= TOL
        # the n-gram parts never depend on the grammar
        assert got["ngram_match_score"] == pytest.approx(record["ngram_match_score"]["min"])
    assert equal >= 0.9 * total
    typed = "function add(a: number, b: number): number {\n  let c: number = a + b;\n  return c;\n}"
    same = compute_codebleu([typed], [[typed]], lang="ts")
    assert same["codebleu"] == pytest.approx(1.0)
    renamed = typed.replace("let c", "let d").replace("return c", "return d")
    other = compute_codebleu([renamed], [[typed]], lang="typescript")
    assert other["dataflow_match_score"] == 1.0  # renaming keeps every dataflow edge
    assert other["syntax_match_score"] == 1.0
    broken = compute_codebleu(["let c: number = ;"], [[typed]], lang="typescript")
    assert broken["dataflow_match_score"] < 1.0


def test_weights_and_dataflow_options():
    """Options recombine the package's own components (values from the package)."""
    # package: x = 1 vs itself: ng 0.5623413251903491, w 0.4949232003839766, syn 1, df 0 -> 1
    pair = (["x = 1"], [["x = 1"]])
    ng, w = 0.5623413251903491, 0.4949232003839766
    assert compute_codebleu(*pair, lang="python")["codebleu"] == pytest.approx((ng + w + 1 + 1) / 4, abs=TOL)
    oob = compute_codebleu(*pair, lang="python", weights=(0.1, 0.1, 0.4, 0.4))["codebleu"]
    assert oob == pytest.approx(0.1 * ng + 0.1 * w + 0.4 + 0.4, abs=TOL)
    # package: "def foo ( x ) : pass" vs itself: ng, w, syn 1.0, raw dataflow 0 (no edges)
    # counted as 1; "zero" keeps the 0, "renormalize" drops it
    pair = (["def foo ( x ) : pass"], [["def foo ( x ) : pass"]])
    assert compute_codebleu(*pair, lang="python")["codebleu"] == pytest.approx(1.0, abs=TOL)
    assert compute_codebleu(*pair, lang="python")["dataflow_match_score"] == 0.0
    assert compute_codebleu(*pair, lang="python", dataflow="zero")["codebleu"] == pytest.approx(0.75, abs=TOL)
    renorm = compute_codebleu(*pair, lang="python", dataflow="renormalize", weights=(0.1, 0.2, 0.3, 0.4))
    assert renorm["codebleu"] == pytest.approx(1.0, abs=TOL)
    # a genuine 0 dataflow match stays 0 with "renormalize" and becomes 1 with "package"
    # package: codebleu 0.33002303306113934, components below, dataflow 0 with edges in the ref
    pred, ref = "def f(a):\n    return 1", "def f(a):\n    b = a\n    return b"
    package = compute_codebleu([pred], [[ref]], lang="python")
    components = (0.08881915596542085, 0.08841583342199358, 0.14285714285714285, 0.0)
    assert [package[k] for k in KEYS[1:]] == pytest.approx(components, abs=TOL)
    assert package["codebleu"] == pytest.approx(0.33002303306113934, abs=TOL)
    kept = compute_codebleu([pred], [[ref]], lang="python", dataflow="renormalize")
    assert kept["codebleu"] == pytest.approx(sum(components) / 4, abs=TOL)


def test_bad_inputs():
    with pytest.raises(ValueError, match="Supported.*python.*typescript"):
        compute_codebleu(["x"], ["x"], lang="fortran")
    with pytest.raises(ValueError, match="cobol.*haskell"):
        CodeBleuMetric(lang="cobol")
    with pytest.raises(TypeError, match=r"predictions\[1\]"):
        compute_codebleu(["x", None], ["x", "y"], lang="python")
    with pytest.raises(TypeError, match=r"references\[0\]\[1\]"):
        compute_codebleu(["x"], [["x", None]], lang="python")
    with pytest.raises(ValueError, match="references"):
        compute_codebleu(["x", "y"], ["x"], lang="python")
    with pytest.raises(ValueError, match="empty"):
        compute_codebleu([], [], lang="python")
    with pytest.raises(ValueError, match="weights"):
        compute_codebleu(["x"], ["x"], lang="python", weights=(0.5, 0.5))
    with pytest.raises(ValueError, match="dataflow"):
        compute_codebleu(["x"], ["x"], lang="python", dataflow="one")


def test_empty_and_unparsable_predictions_get_the_documented_score():
    # package: empty prediction -> every component 0, codebleu 0.25 (the dataflow "or 1")
    empty = compute_codebleu([""], [["def f ( x ) :\n    return x"]], lang="python")
    assert empty == pytest.approx({"codebleu": 0.25, "ngram_match_score": 0.0,
                                   "weighted_ngram_match_score": 0.0,
                                   "syntax_match_score": 0.0, "dataflow_match_score": 0.0})
    # golden edge cases of every language: syntax errors and empty predictions
    for lang in LANGUAGES:
        for record in _records(lang):
            if record["kind"] in ("edge:syntax_error_prediction", "edge:empty_prediction"):
                got = compute_codebleu(record["predictions"], [record["references"]], lang=lang)
                bounds = record.get("range_25_seeds") or {k: record[k] for k in KEYS}
                assert all(_within(got[k], bounds[k]) for k in KEYS), record["id"]


def test_registry_entry():
    import cgm_metrics

    result = cgm_metrics.score("codebleu", ["x = 1"], ["x = 1"], lang="python", per_item=True)
    assert result["score"] == pytest.approx(0.7643161313935813, abs=TOL)  # package value
    assert result["per_item"] == pytest.approx([0.7643161313935813], abs=TOL)
    assert "codebleu" in result["signature"]


def test_no_machine_paths_in_module_files():
    for path in [*(ROOT / "src" / "cgm_metrics" / "maths" / "codebleu").glob("*.py"),
                 *(METRICS_DIR / "codebleu").iterdir()]:
        if path.is_file():
            assert "/work/" not in Path(path).read_text(encoding="utf-8")


def test_fast_python_comment_removal_equals_tokenize_rules():
    """The tokenize-free path gives the package's tokenize-based text on real and broken code."""
    import random

    from cgm_metrics.maths.codebleu.preprocess import _strip_tokenize, _strip_tokenize_fast

    def package_rules(text):
        try:
            return _strip_tokenize(text)
        except Exception:  # the package keeps the text when tokenize fails
            return text

    texts = []
    for record in _records("python"):
        texts += [t.strip() for t in record["predictions"] + record["references"]]
    rng = random.Random(0)
    inserts = ["'", '"', "(", ")", "#", '"""', "\\\n", "\n    ", "\t", "r'x'", "\n\n", "'''"]
    broken = []
    for text in [t for t in texts if t][:400]:
        i = rng.randrange(len(text))
        broken.append(text[:i] + text[i + rng.randint(1, 6):])
        broken.append(text[:i] + rng.choice(inserts) + text[i:])
    used = 0
    for text in texts + broken:
        fast = _strip_tokenize_fast(text)
        if fast is not None:
            used += 1
            assert fast == package_rules(text), text
    assert used > 0.7 * len(texts + broken)


# -- the compiled engine against the pure-Python reference ---------------------------------


def _compiled_engine():
    """The compiled engine's module; skips where its library is not built (no C compiler at
    install time; test_compiled_engine_is_built fails then if a compiler is present)."""
    from cgm_metrics.maths.codebleu import engine

    if engine.library() is None:
        from cgm_metrics.base import native

        pytest.skip(f"the compiled CodeBLEU engine is not built: {native.unavailable_reason()}")
    return engine


def test_compiled_engine_is_built():
    """Where a C compiler exists the install builds the library, and it is the one in use."""
    import shutil

    from cgm_metrics.base import native
    from cgm_metrics.maths.codebleu import engine
    from cgm_metrics.maths.codebleu.statistics import engine as engine_in_use

    if not any(shutil.which(name) for name in ("cc", "gcc", "clang", "cl")):
        pytest.skip("no C compiler on this machine: the pure-Python engines run")
    assert native.library() is not None, native.unavailable_reason()
    assert engine.library() is not None
    assert engine_in_use() == "compiled"


def _both_engines(lang, predictions, references, monkeypatch, **options):
    _compiled_engine()
    metric = CodeBleuMetric(lang=lang, **options)
    monkeypatch.setenv("CGM_CODEBLEU_ENGINE", "python")
    reference = metric.statistics(predictions, references)
    monkeypatch.setenv("CGM_CODEBLEU_ENGINE", "compiled")
    compiled = metric.statistics(predictions, references)
    return reference, compiled


@pytest.mark.parametrize("lang", LANGUAGES)
def test_compiled_engine_equals_reference_on_golden_files(lang, monkeypatch):
    """Every statistics row (n-grams, syntax, dataflow) of the compiled engine is the
    reference's, exactly, on the golden pairs of every language, in both set orders."""
    rows = _records(lang)
    preds = [r["predictions"][0] for r in rows]
    refs = [r["references"] for r in rows]
    for order in ("package", "source"):
        reference, compiled = _both_engines(lang, preds, refs, monkeypatch, set_order=order)
        assert reference.shape == compiled.shape
        differing = np.nonzero((reference != compiled).any(axis=1))[0]
        assert differing.size == 0, (order, [rows[i]["id"] for i in differing[:10]])


def test_compiled_engine_equals_reference_on_hard_cases(monkeypatch):
    """Several references, comments and docstrings, broken code, non-ASCII text, deep and
    nested code (the reference walker takes over loops nested deeper than the engine's
    limit), empty snippets, a custom tokenizer and keyword list."""
    python = _records("python")[:30]
    preds = [r["predictions"][0] for r in python] + [
        "", "x = 1  # c\n'''doc'''\nfor i in y:\n    x += i", "déf = 'é'\nx = déf  # ü",
        _nested_for(12), "x = " + "(" * 900 + "1" + ")" * 900, "if a:\n  b = 1\nelse:\n  c = b",
        "def f(\n", "s = '''x\n", "x = 1 + \\\n    2  # c", "日本 = 1\nx = 日本 + 'ü'\n\x00",
        "y = 1\nx = " + "(" * 250 + "y" + ")" * 250,
    ]
    refs = [[r["references"][0], r["predictions"][0]] for r in python] + [
        ["x = 1"], ["x = 2 # d\nfor j in y:\n    x += j", "x = 1"], ["déf = 'e'\nx = déf"],
        [_nested_for(11)], ["x = (1)"], ["if a:\n  b = 2\nelif c:\n  b = 3\nelse:\n  d = b"],
        ["def f(x):\n    return x"], ["s = 1"], ["x = 1 + 2"], ["日本 = 2\nx = 日本"],
        ["y = 2\nx = " + "(" * 240 + "y" + ")" * 240],
    ]
    reference, compiled = _both_engines("python", preds, refs, monkeypatch)
    assert np.array_equal(reference, compiled)
    java = "class A { void f() { " + "for (int i = 0; i < n; i++) { " * 12 + "s += i;"
    java += " }" * 12 + " } }"
    reference, compiled = _both_engines("java", [java, "int x = ;", 'String s = "é"; // ü'],
                                        [[java], ["int x = 1;"], ['String s = "e";']],
                                        monkeypatch)
    assert np.array_equal(reference, compiled)
    options = {"tokenizer": lambda s: s.replace("(", " ( ").split(), "keywords": ["x", "for"]}
    reference, compiled = _both_engines("python", preds[:35], refs[:35], monkeypatch, **options)
    assert np.array_equal(reference, compiled)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_compiled_tree_walk_equals_cursor_walk(lang):
    """The compiled walk over tree-sitter's trees gives exactly the Python cursor walk's flat
    rows (types, fields, byte ranges, parents, MISSING and ERROR flags) on every snippet of
    the golden file, broken ones included."""
    engine = _compiled_engine()
    from cgm_metrics.maths.codebleu.options import CodeBleuOptions

    options = CodeBleuOptions(lang)
    tables = engine.language_tables(options.spec.name, options.rules)
    assert tables.compiled_walk, f"the compiled walk is off for {lang}"
    batch = engine.Batch(tables, compiled_walk=True)
    try:
        texts = {t for r in _records(lang) for t in r["predictions"] + r["references"]}
        for text in sorted(texts):
            source = text.encode("utf-8", errors="surrogatepass")
            tree = tables.parse(source)
            batch.clear()
            compiled = batch.add_tree(tree, source, text)
            walked = batch.add_walked_tree(tree, source, text)
            assert batch.compiled_walk
            assert batch.tree_rows(compiled) == batch.tree_rows(walked), text
    finally:
        batch.close()


def test_engine_option_is_checked(monkeypatch):
    monkeypatch.setenv("CGM_CODEBLEU_ENGINE", "fortran")
    with pytest.raises(ValueError, match="CGM_CODEBLEU_ENGINE"):
        compute_codebleu(["x = 1"], [["x = 1"]], lang="python")


def _mutated(texts, inserts, seed):
    import random

    rng = random.Random(seed)
    out = list(texts)
    for text in [t for t in texts if t][:400]:
        i = rng.randrange(len(text))
        out.append(text[:i] + text[i + rng.randint(1, 6):])
        out.append(text[:i] + rng.choice(inserts) + text[i:])
    return out


def test_compiled_python_scanner_decides_unmatched_closers_and_open_quotes():
    """Where a closing bracket has no opener (the bracket depth goes negative and stays so) the
    scanner knows tokenize raises "EOF in multi-line statement" and keeps the text; before
    Python 3.12 an unterminated quote with no backslash after it on its line is tokenize's
    ERRORTOKEN and the scanner goes on. Both agree with tokenize's own removal; a depth back
    at 0, or a backslash after the quote, is still left to tokenize. The pure-Python path
    decides the closers alike."""
    import ctypes
    import sys
    from array import array

    from cgm_metrics.maths.codebleu.preprocess import _strip_tokenize, _strip_tokenize_fast

    engine = _compiled_engine()

    def package_rules(text):
        try:
            return _strip_tokenize(text)
        except Exception:  # the package keeps the text when tokenize fails
            return text

    body = 'def f(x):\n    """Doc."""\n    # note\n    y = g(x,\n          z)\n    return y\n'
    decided = [
        body.replace("    y = g(x,\n", ""),  # a closer without its line: depth -1 to the end
        body + "x = 1)\n'''doc'''\n",
        ")\n" + body,
        ")]\n# c\nf(a)\n",
    ]
    quotes = [
        body.replace("    return y", "    return 'y  # not a comment"),
        body.replace("    return y", '    return b"y # x'),
        body + "s = 'it\n'''doc'''\nt = 'ok'  # c\n",
        "'abc\n" + body,
    ]
    undecided = [
        body + "x = 1)\n(2\n",  # depth back at 0: tokenize decides
        body.replace("    return y", "    return 'y \\\n  # more"),
    ]
    texts = decided + quotes + undecided
    assert engine.strip_comments(texts, "tokenize") == [package_rules(t) for t in texts]
    data, starts = engine._utf8(texts)
    out = ctypes.create_string_buffer(len(data) + 1)
    lengths = array("q", [0]) * len(texts)
    engine.library().cgm_strip_comments(engine.TOKENIZE_STYLE, None, data,
                                        engine._address(starts), len(texts), out,
                                        engine._address(lengths))
    assert all(length == engine.KEEP for length in lengths[: len(decided)])
    quote_lengths = lengths[len(decided) : len(decided) + len(quotes)]
    if sys.version_info < (3, 12):
        assert all(length >= 0 for length in quote_lengths)
    else:
        assert all(length == engine.UNSURE for length in quote_lengths)
    assert all(length == engine.UNSURE for length in lengths[-len(undecided) :])
    # the pure-Python engine's tokenize-free path decides the same closers
    assert [_strip_tokenize_fast(t) for t in decided] == [package_rules(t) for t in decided]
    assert _strip_tokenize_fast(undecided[0]) is None


def test_compiled_comment_removal_equals_reference():
    """The compiled scanners give the reference's text (tokenize rules for Python, the
    regular expression for the C family) on real and broken code, including the texts where
    the Python scanner defers to tokenize."""
    engine = _compiled_engine()
    from cgm_metrics.maths.codebleu.preprocess import remove_comments

    texts = []
    for record in _records("python"):
        texts += [t.strip() for t in record["predictions"] + record["references"]]
    inserts = ["'", '"', "(", ")", "#", '"""', "\\\n", "\n    ", "\t", "r'x'", "\n\n", "'''",
               "é", "rb'\\''", "f'''a\nb'''", " \\\n  ", "\\", "\u3000"]
    texts = _mutated(texts, inserts, 1)
    assert engine.strip_comments(texts, "tokenize") == [remove_comments(t, "tokenize") for t in texts]
    c_texts = []
    for lang in ("java", "c", "cpp", "javascript", "go", "php", "rust", "c_sharp"):
        for record in _records(lang)[:60]:
            c_texts += [t.strip() for t in record["predictions"] + record["references"]]
    inserts = ["'", '"', "/*", "*/", "//", "\\", "\n\n", "é", "\u3000", "\\'", "/", "*"]
    c_texts = _mutated(c_texts, inserts, 2)
    assert engine.strip_comments(c_texts, "c_comments") == [remove_comments(t, "c_comments") for t in c_texts]


def test_compiled_string_hash_and_set_order_equal_reference():
    from array import array

    engine = _compiled_engine()
    library = engine.library()
    words = ["x", "i", "self", "value", "_curses", "$foo", "ä", "日本", "😀", "", "n"]
    words += [f"v{i}" for i in range(30)] + ["a_b", "count", "result", "tmp", "$this"]
    points, starts = engine._code_points(words)
    hashes = array("Q", [0]) * len(words)
    library.cgm_string_hashes(engine._address(points), engine._address(starts), len(words),
                              engine._address(hashes))
    assert list(hashes) == [string_hash(w) for w in words]
    for i in range(len(words)):
        for k in (2, 5, 9, 17):
            case = list(range(i, min(i + k, len(words)))) + list(range(k // 2))
            items = array("q", case)
            case_hashes = array("Q", [hashes[j] for j in case])
            out = array("q", [0]) * len(case)
            count = library.cgm_set_order(engine._address(items), len(case),
                                          engine._address(case_hashes), engine._address(out))
            assert [words[j] for j in out[:count]] == set_order([words[j] for j in case])


# -- one formula, floats or arrays ------------------------------------------------------------


def test_scores_of_rows_and_of_arrays_are_the_same_bits():
    """calc_codebleu (summed rows, plain floats), the metric's corpus score, its per-item
    scores and resampled scores (numpy arrays) come from one formula: equal to the last bit."""
    from cgm_metrics.maths.codebleu.score import scores

    rows = _records("java")
    preds = [r["predictions"][0] for r in rows]
    refs = [r["references"] for r in rows]
    for dataflow in ("package", "zero", "renormalize"):
        metric = CodeBleuMetric(lang="java", dataflow=dataflow, weights=(0.1, 0.2, 0.3, 0.4))
        stats = metric.statistics(preds, refs)
        whole = compute_codebleu(preds, refs, lang="java", dataflow=dataflow,
                                 weights=(0.1, 0.2, 0.3, 0.4), return_per_sample=True)
        assert whole["codebleu"] == metric.corpus_score(stats)
        assert whole["scores"] == [float(x) for x in metric.item_scores(stats)]
        summed = scores(stats.sum(axis=0), metric.weights, dataflow)
        assert {k: whole[k] for k in KEYS} == summed
        counts = np.random.default_rng(1).multinomial(len(rows), [1 / len(rows)] * len(rows), 6)
        sums = counts @ stats
        resampled = metric.score_from_statistics(sums)  # arrays
        assert list(resampled) == [metric.score_from_statistics(row) for row in sums]  # floats


def test_calc_codebleu_imports_no_numpy():
    """The package's call is answered without numpy (its import alone costs more than the
    package's whole first call)."""
    script = (
        "import sys\n"
        "from cgm_metrics.maths.codebleu import calc_codebleu\n"
        "result = calc_codebleu(['x = 1'], ['x = 1'], 'python')\n"
        "assert 'numpy' not in sys.modules, sorted(m for m in sys.modules if 'numpy' in m)\n"
        "print(result['codebleu'])\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert float(done.stdout) == pytest.approx(0.7643161313935813, abs=TOL)  # the package's


@pytest.mark.parametrize("lang", ["java", "c_sharp", "js"])
def test_first_call_imports_only_its_language(lang):
    """A first call loads the one language module it names (an alias loads them all, to
    resolve it), the grammar's compiled binding without its package (whose __init__ imports
    importlib.resources and pathlib), and none of pkgutil, inspect, difflib: its import
    time is the point of the call's speed against the package's, and the scores are the
    package's."""
    script = (
        "import json, sys\n"
        "from cgm_metrics.maths.codebleu import calc_codebleu\n"
        "result = calc_codebleu(['int f(int a) { return a + 1; }'],"
        " ['int f(int b) { return b + 1; }'], LANG)\n"
        "print(json.dumps([result['codebleu'], sorted(sys.modules)]))\n"
    ).replace("LANG", repr(lang))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    score, modules = json.loads(done.stdout)
    languages = [m for m in modules if m.startswith("cgm_metrics.languages.")
                 and m.rsplit(".", 1)[1] not in ("parts", "_record")]
    if lang == "js":  # an alias: every module is read to find it
        assert len(languages) > 10
    else:
        assert languages == [f"cgm_metrics.languages.{lang}"]
        grammar = f"tree_sitter_{lang}"
        assert f"{grammar}._binding" in modules and grammar not in modules
        for heavy in ("pkgutil", "inspect", "difflib", "importlib.resources", "pathlib",
                      "numpy"):
            assert heavy not in modules, heavy
    name = {"js": "javascript"}.get(lang, lang)
    expected = codebleu_of(["int f(int a) { return a + 1; }"],
                           ["int f(int b) { return b + 1; }"], name)["codebleu"]
    assert score == pytest.approx(expected, abs=TOL)


def test_without_the_compiled_library_the_reference_engine_gives_the_same_numbers():
    """What a platform without a C compiler gets: the install has no library, CodeBLEU runs
    the pure-Python engine with the same numbers and says why."""
    script = (
        "import json\n"
        "import cgm_metrics.base.native as native\n"
        "native._state.update(library=None, reason='no compiler in this test')\n"
        "from cgm_metrics.maths.codebleu import compute_codebleu\n"
        "from cgm_metrics.maths.codebleu.statistics import engine\n"
        "rows = [json.loads(line) for line in open(PATH, encoding='utf-8')][:60]\n"
        "result = compute_codebleu([r['predictions'][0] for r in rows],\n"
        "                          [r['references'] for r in rows], lang='java')\n"
        "print(json.dumps([engine(), native.unavailable_reason(), result]))\n"
    ).replace("PATH", repr(str(shared_data("codebleu", "codebleu_public_java.jsonl"))))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    engine_used, reason, result = json.loads(done.stdout)
    assert engine_used == "python" and reason == "no compiler in this test"
    rows = _records("java")[:60]
    expected = compute_codebleu([r["predictions"][0] for r in rows],
                                [r["references"] for r in rows], lang="java")
    assert result == expected  # the same bits from either engine


def test_source_set_order_against_the_package_range():
    """The README's figures for set_order="source": per pair, 3 of the 1,300 golden pairs fall
    outside the package's 25-seed range (every key); per corpus, six of the ten dataflow values
    lie above it. The ranges are the package's own (golden files)."""
    corpus = json.loads(shared_data("codebleu", "codebleu_public_corpus.json").read_text())
    outside, above = [], []
    for lang in LANGUAGES:
        rows = _records(lang)
        for record in rows:
            got = compute_codebleu(record["predictions"], [record["references"]], lang=lang,
                                   set_order="source")
            bounds = record.get("range_25_seeds") or {k: record[k] for k in KEYS}
            if not all(_within(got[k], bounds[k]) for k in KEYS):
                outside.append(record["id"])
        got = compute_codebleu([r["predictions"][0] for r in rows], [r["references"] for r in rows],
                               lang=lang, set_order="source")
        bounds = corpus[lang].get("range_25_seeds") or {k: corpus[lang][k] for k in KEYS}
        if got["dataflow_match_score"] > bounds["dataflow_match_score"]["max"] + TOL:
            above.append(lang)
    assert sorted(outside) == ["c-0103", "go-0060", "javascript-0068"]
    assert sorted(above) == ["c", "go", "java", "javascript", "php", "python"]
