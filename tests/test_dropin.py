"""Drop-in: the calls people write for the `codebleu` package, the k4black/codebleu evaluate
module, CodeXGLUE's calc_code_bleu.py and evaluate's chrf, changed only in the import or the
module path, give the peer's numbers or a clear error.

Every expected CodeBLEU value is computed by the `codebleu` package 0.7.0 itself, in a child
process with PYTHONHASHSEED=0 (its dataflow depends on the hash seed; this library reproduces
seed 0); the tests that need it skip without it, the chrF and RUBY tests run regardless.
"""

from __future__ import annotations

import inspect
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from _peers import codebleu_package, regex_tokens, require
from conftest import METRICS_DIR, ROOT

from cgm_metrics.maths.codebleu import calc_codebleu, compute_codebleu


@pytest.fixture(scope="module")
def package():
    """The `codebleu` package 0.7.0 in this process, for its signature and its errors (never
    for numbers: those come from :func:`package_results`)."""
    return require("codebleu")


KEYS = (
    "codebleu",
    "ngram_match_score",
    "weighted_ngram_match_score",
    "syntax_match_score",
    "dataflow_match_score",
)
TOL = 1e-12

# The package README's example, verbatim.
PREDICTION = "def add ( a , b ) :\n return a + b"
REFERENCE = "def sum ( first , second ) :\n return second + first"
RAW_PREDICTION = "def add(a, b):\n    return a + b"
RAW_REFERENCE = "def sum(first, second):\n    return second + first"

JAVA_PREDICTIONS = [
    "public int sum(int[] xs) { int s = 0; for (int x : xs) { s += x; } return s; }",
    'public String greet(String name) { return "Hello, " + name + "!"; }',
    "public int max(int a, int b) { if (a > b) { return a; } return b; }",
]
JAVA_REFERENCES = [
    ["public int sum(int[] values) { int total = 0; for (int v : values) total += v; return total; }",
     "public int sum(int[] xs) { int s = 0; for (int i = 0; i < xs.length; i++) { s = s + xs[i]; } return s; }"],
    'public String greet(String who) { return "Hello, " + who; }',
    ["public int max(int a, int b) { return a > b ? a : b; }"],
]
CPP_PREDICTIONS = [
    "#include <iostream>\nint main() { std::cout << add(1, 2) << std::endl; return 0; }",
    "class Box { public: int w; int area() const { return w * w; } };",
]
CPP_REFERENCES = [
    "#include <iostream>\nusing namespace std;\nint main() { cout << add(1, 2) << endl; }",
    "struct Box { int w; int area() { return w * w; } };",
]

def package_results(calls: list[dict]) -> list[dict]:
    """``codebleu.calc_codebleu(*args, **kwargs)`` of each call, run by the package itself
    (a child process at PYTHONHASHSEED=0; the test skips without the package)."""
    return codebleu_package(calls)


def same(ours: dict, theirs: dict) -> bool:
    return set(ours) >= set(KEYS) and all(
        ours[key] == pytest.approx(theirs[key], rel=TOL, abs=TOL) for key in KEYS
    )


def _load_module():
    import evaluate

    return evaluate.load(str(METRICS_DIR / "codebleu"))


# -- the package's calc_codebleu ------------------------------------------------------------


def test_signature_is_the_packages(package):
    ours = inspect.signature(calc_codebleu).parameters
    theirs = inspect.signature(package.calc_codebleu).parameters
    assert list(ours) == list(theirs) == [
        "references", "predictions", "lang", "weights", "tokenizer", "keywords_dir"]
    for name in ours:
        assert ours[name].kind == theirs[name].kind, name
        if name != "keywords_dir":  # the package's default is its own folder; ours None
            assert ours[name].default == theirs[name].default, name
    assert ours["lang"].default is inspect.Parameter.empty  # required, as in the package
    assert ours["keywords_dir"].default is None


def test_call_shapes_give_the_packages_numbers(tmp_path):
    keywords = tmp_path / "keywords"
    keywords.mkdir()
    (keywords / "java.txt").write_text("int\nreturn\nString\n\nfor\n", encoding="utf-8")
    weights = (0.1, 0.1, 0.4, 0.4)
    shapes = [
        # (description, our call, the package call as JSON)
        ("package README, verbatim",
         lambda: calc_codebleu([REFERENCE], [PREDICTION], lang="python",
                               weights=(0.25, 0.25, 0.25, 0.25), tokenizer=None),
         {"args": [[REFERENCE], [PREDICTION]],
          "kwargs": {"lang": "python", "weights": [0.25] * 4, "tokenizer": None}}),
        ("positional, Java, several references",
         lambda: calc_codebleu(JAVA_REFERENCES, JAVA_PREDICTIONS, "java"),
         {"args": [JAVA_REFERENCES, JAVA_PREDICTIONS, "java"], "kwargs": {}}),
        ("positional weights and tokenizer",
         lambda: calc_codebleu(JAVA_REFERENCES, JAVA_PREDICTIONS, "java", weights, regex_tokens),
         {"args": [JAVA_REFERENCES, JAVA_PREDICTIONS, "java", list(weights)], "kwargs": {},
          "tokenizer": True}),
        ("keyword tokenizer, Python",
         lambda: calc_codebleu([RAW_REFERENCE], [RAW_PREDICTION], lang="python",
                               tokenizer=regex_tokens),
         {"args": [[RAW_REFERENCE], [RAW_PREDICTION]], "kwargs": {"lang": "python"},
          "tokenizer": True}),
        ("keywords_dir",
         lambda: calc_codebleu(JAVA_REFERENCES, JAVA_PREDICTIONS, "java", keywords_dir=keywords),
         {"args": [JAVA_REFERENCES, JAVA_PREDICTIONS, "java"], "kwargs": {},
          "keywords_dir": str(keywords)}),
        ("C++ by its name",
         lambda: calc_codebleu(CPP_REFERENCES, CPP_PREDICTIONS, "cpp"),
         {"args": [CPP_REFERENCES, CPP_PREDICTIONS, "cpp"], "kwargs": {}}),
        ("sides swapped (the package's own order)",
         lambda: calc_codebleu(CPP_PREDICTIONS, CPP_REFERENCES, "cpp"),
         {"args": [CPP_PREDICTIONS, CPP_REFERENCES, "cpp"], "kwargs": {}}),
        ("raw Python, whitespace tokens",
         lambda: calc_codebleu([RAW_REFERENCE], [RAW_PREDICTION], "python"),
         {"args": [[RAW_REFERENCE], [RAW_PREDICTION], "python"], "kwargs": {}}),
    ]
    expected = package_results([call for _, _, call in shapes])
    for (description, ours, _), theirs in zip(shapes, expected, strict=True):
        got = ours()
        assert list(got) == list(KEYS), description
        assert same(got, theirs), (description, got, theirs)
    # the shapes discriminate: a tokenizer, custom keywords and the order all change numbers
    java, keyworded = expected[1], expected[4]
    gap = abs(keyworded["weighted_ngram_match_score"] - java["weighted_ngram_match_score"])
    assert gap > 1e-3
    assert abs(expected[3]["ngram_match_score"] - expected[7]["ngram_match_score"]) > 1e-3
    assert abs(expected[6]["codebleu"] - expected[5]["codebleu"]) > 1e-3


def test_without_lang_the_package_and_this_library_raise_the_same_error(package):
    with pytest.raises(TypeError, match="lang"):
        package.calc_codebleu(JAVA_REFERENCES, JAVA_PREDICTIONS)
    with pytest.raises(TypeError, match="lang"):
        calc_codebleu(JAVA_REFERENCES, JAVA_PREDICTIONS)


def test_missing_or_wrong_arguments_fail_clearly(tmp_path):
    # no lang: a TypeError naming `lang`, as the package raises (checked against it above)
    with pytest.raises(TypeError, match="lang"):
        calc_codebleu(JAVA_REFERENCES, JAVA_PREDICTIONS)
    with pytest.raises(ValueError, match="needs `lang`.*c_sharp.*java"):
        compute_codebleu(JAVA_PREDICTIONS, JAVA_REFERENCES)
    with pytest.raises(ValueError, match="Supported"):
        calc_codebleu(JAVA_REFERENCES, JAVA_PREDICTIONS, "fortran")
    with pytest.raises(TypeError, match="callable"):
        calc_codebleu([REFERENCE], [PREDICTION], "python", tokenizer="split")
    # a tokenizer object returning a dict (as HuggingFace tokenizers do) is named, with the fix;
    # the package would count the dict's keys as tokens and return a number
    with pytest.raises(TypeError, match=r"returned dict.*\.tokenize"):
        calc_codebleu([REFERENCE], [PREDICTION], "python",
                      tokenizer=lambda s: {"input_ids": [1, 2]})
    with pytest.raises(TypeError, match="holding int"):
        calc_codebleu([REFERENCE], [PREDICTION], "python", tokenizer=lambda s: [1, 2])
    with pytest.raises(ValueError, match="no java.txt"):
        calc_codebleu(JAVA_REFERENCES, JAVA_PREDICTIONS, "java", keywords_dir=tmp_path)
    with pytest.raises(ValueError, match="one language per call"):
        compute_codebleu(JAVA_PREDICTIONS, JAVA_REFERENCES, lang=["java", "python", "java"])


# -- the evaluate module: the k4black/codebleu call shapes -----------------------------------


def test_evaluate_module_call_shapes():
    module = _load_module()
    n = len(JAVA_PREDICTIONS)
    java_refs = [r if isinstance(r, list) else [r] for r in JAVA_REFERENCES]
    expected = package_results([
        {"args": [JAVA_REFERENCES, JAVA_PREDICTIONS, "java"], "kwargs": {}},
        {"args": [JAVA_REFERENCES, JAVA_PREDICTIONS, "java", [0.1, 0.1, 0.4, 0.4]],
         "kwargs": {}, "tokenizer": True},
        {"args": [[REFERENCE], [PREDICTION], "python"], "kwargs": {}},
        {"args": [CPP_REFERENCES, CPP_PREDICTIONS, "cpp"], "kwargs": {}},
        {"args": [CPP_REFERENCES, CPP_PREDICTIONS, "c"], "kwargs": {}},
    ])
    java, java_tokens, readme, cpp, as_c = expected
    # k4black's compute: lang as a list, weights, tokenizer=None
    for lang in (["java"], ["java"] * n, "java"):
        got = module.compute(predictions=JAVA_PREDICTIONS, references=java_refs,
                             lang=lang, weights=(0.25, 0.25, 0.25, 0.25), tokenizer=None)
        assert same(got, java), lang
    got = module.compute(predictions=JAVA_PREDICTIONS, references=java_refs,
                         lang=["java"], weights=(0.1, 0.1, 0.4, 0.4), tokenizer=regex_tokens)
    assert same(got, java_tokens)
    # k4black's docstring example (its `language=` keyword is not in its own signature either)
    got = module.compute(references=[REFERENCE], predictions=[PREDICTION], lang=["python"])
    assert same(got, readme)
    # a batch mixing strings and lists, as the package takes it (evaluate alone would turn the
    # string after a list into a list of characters, silently; k4black's module does)
    for references in (JAVA_REFERENCES, [JAVA_REFERENCES[1]] + [java_refs[0], java_refs[2]]):
        order = [1, 0, 2] if references[0] == JAVA_REFERENCES[1] else [0, 1, 2]
        got = module.compute(predictions=[JAVA_PREDICTIONS[i] for i in order],
                             references=references, lang="java")
        assert same(got, java)
    # add_batch, then compute with tokenizer=None
    module.add_batch(predictions=JAVA_PREDICTIONS[:2], references=java_refs[:2])
    module.add_batch(predictions=JAVA_PREDICTIONS[2:], references=java_refs[2:])
    assert same(module.compute(lang="java", tokenizer=None), java)
    for prediction, reference in zip(JAVA_PREDICTIONS, java_refs, strict=True):
        module.add(prediction=prediction, reference=reference)
    assert same(module.compute(lang=["java"]), java)
    # a string lang is the whole name: "cpp" is C++ (k4black reads "c", and scores C)
    got = module.compute(predictions=CPP_PREDICTIONS, references=CPP_REFERENCES, lang="cpp")
    assert same(got, cpp)
    assert abs(cpp["codebleu"] - as_c["codebleu"]) > 1e-3
    # Java without lang: a clear error listing the languages, not Python's numbers
    with pytest.raises(ValueError, match="needs `lang`.*java"):
        module.compute(predictions=JAVA_PREDICTIONS, references=java_refs)
    # evaluate's compute takes keywords only (k4black's README passes them by position)
    with pytest.raises(TypeError):
        module.compute([REFERENCE], [PREDICTION], lang="python")


# -- evaluate's chrf -------------------------------------------------------------------------

CHRF_PREDICTION = ["The relationship between cats and dogs is not exactly friendly.",
                   "a good bookshop is just a genteel black hole that knows how to read."]
CHRF_REFERENCE = [["The relationship between dogs and cats is not exactly friendly."],
                  ["A good bookshop is just a genteel Black Hole that knows how to read."]]


@pytest.mark.parametrize("options, documented", [
    ({}, {"score": 84.64214891738334, "char_order": 6, "word_order": 0, "beta": 2}),
    ({"word_order": 2}, {"score": 82.87263732906315, "char_order": 6, "word_order": 2, "beta": 2}),
    ({"word_order": 2, "lowercase": True},
     {"score": 92.12853119829202, "char_order": 6, "word_order": 2, "beta": 2}),
])
def test_evaluate_chrf_documented_examples(options, documented):
    """evaluate's chrf docstring examples, verbatim but for the module path; the documented
    values are evaluate's."""
    import evaluate

    chrf = evaluate.load(str(METRICS_DIR / "chrf_code"))
    results = chrf.compute(predictions=CHRF_PREDICTION, references=CHRF_REFERENCE, **options)
    assert {key: results[key] for key in documented} == pytest.approx(documented, rel=1e-12)
    # the same references as one list and one string (evaluate alone would split the string)
    mixed = [CHRF_REFERENCE[0], CHRF_REFERENCE[1][0]]
    results = chrf.compute(predictions=CHRF_PREDICTION, references=mixed, **options)
    assert results["score"] == pytest.approx(documented["score"], rel=1e-12)


# -- CodeXGLUE's calc_code_bleu.py command line ----------------------------------------------

# One snippet per line; backslashes inside string and char literals are literal.
CODEXGLUE_HYP = r"""public String join(String x, String y) { return x + "\n" + y; }
public String path(String d) { return d + "/" + "file.txt"; }
public int count(String s) { int k = 0; for (int i = 0; i < s.length(); i++) { if (s.charAt(i) == '\t') k++; } return k; }
public String quote(String s) { return "\"" + s + "\""; }
"""
CODEXGLUE_REF1 = r"""public String join(String a, String b) { return a + "\n" + b; }
public String path(String dir) { return dir + "\\" + "file.txt"; }
public int count(String s) { int n = 0; for (char c : s.toCharArray()) { if (c == '\t') { n++; } } return n; }
public String quote(String s) { return "\"" + s.replace("\\", "\\\\") + "\""; }
"""
CODEXGLUE_REF2 = r"""public String join(String first, String second) { return first + "\n" + second; }
public String path(String dir) { return dir + java.io.File.separator + "file.txt"; }
public int count(String text) { return (int) text.chars().filter(c -> c == '\t').count(); }
public String quote(String s) { return '"' + s + '"'; }
"""
_LINES = re.compile(
    r"ngram match: (\S+), weighted ngram match: (\S+), syntax_match: (\S+), "
    r"dataflow_match: (\S+)\nCodeBLEU score:  (\S+)\n\Z"
)


def _run_cli(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run([sys.executable, "-m", "cgm_metrics.maths.codebleu", *args], env=env,
                          capture_output=True, text=True, timeout=300)


def test_codexglue_command_line(tmp_path):
    hyp, ref1, ref2 = tmp_path / "hyp.txt", tmp_path / "ref1.txt", tmp_path / "ref2.txt"
    for path, text in ((hyp, CODEXGLUE_HYP), (ref1, CODEXGLUE_REF1), (ref2, CODEXGLUE_REF2)):
        path.write_bytes(text.encode("utf-8"))
    assert b"\\n" in hyp.read_bytes() and b"\\\\" in ref1.read_bytes()
    unescaped = [t.replace("\\n", "\n").replace("\\t", "\t") for t in CODEXGLUE_HYP.splitlines()]
    expected = package_results([
        {"args": ["java"], "kwargs": {}, "files": [[str(ref1)], str(hyp)]},
        {"args": ["java", [0.1, 0.1, 0.4, 0.4]], "kwargs": {},
         "files": [[str(ref1), str(ref2)], str(hyp)]},
        # what a reader that decodes escapes would score instead
        {"args": [[[t] for t in CODEXGLUE_REF1.splitlines()], unescaped, "java"], "kwargs": {}},
    ])
    runs = [_run_cli("--refs", str(ref1), "--hyp", str(hyp), "--lang", "java"),
            _run_cli("--refs", str(ref1), str(ref2), "--hyp", str(hyp), "--lang", "java",
                     "--params", "0.1,0.1,0.4,0.4")]
    for done, theirs in zip(runs, expected[:2], strict=True):
        assert done.returncode == 0, done.stderr
        match = _LINES.match(done.stdout)
        assert match, done.stdout
        values = [float(x) for x in match.groups()]
        assert values == pytest.approx([theirs[k] for k in KEYS[1:]] + [theirs["codebleu"]],
                                       rel=TOL, abs=TOL)
    assert abs(expected[2]["codebleu"] - expected[0]["codebleu"]) > 1e-3


def test_codexglue_command_line_errors(tmp_path):
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("int a = 1;\nint b = 2;\n", encoding="utf-8")
    ref.write_text("int a = 1;\n", encoding="utf-8")
    done = _run_cli("--refs", str(ref), "--hyp", str(hyp), "--lang", "java")
    assert done.returncode == 2 and "one line per hypothesis line" in done.stderr
    done = _run_cli("--refs", str(hyp), "--hyp", str(hyp), "--lang", "fortran")
    assert done.returncode == 2 and "Supported" in done.stderr
    done = _run_cli("--refs", str(hyp), "--hyp", str(hyp), "--lang", "java", "--params", "1,2")
    assert done.returncode == 2 and "four comma-separated numbers" in done.stderr
    done = _run_cli("--refs", str(tmp_path / "missing.txt"), "--hyp", str(hyp), "--lang", "java")
    assert done.returncode == 2 and "missing.txt" in done.stderr
    assert not Path(tmp_path / "missing.txt").exists()


def test_ruby_module_takes_references_mixing_strings_and_lists():
    """Every module makes a mixed batch uniform before evaluate casts it (evaluate alone would
    split a string after a list into characters): the same scores as all lists."""
    import evaluate

    ruby = evaluate.load(str(METRICS_DIR / "ruby"))
    predictions = ["x = a + b", "print(y)"]
    as_lists = [["x = a + b", "x = b + a"], ["print(x)"]]
    mixed = [as_lists[0], as_lists[1][0]]
    expected = ruby.compute(predictions=predictions, references=as_lists, lang="python",
                            return_per_sample=True)
    got = ruby.compute(predictions=predictions, references=mixed, lang="python",
                       return_per_sample=True)
    assert got["scores"] == expected["scores"]
