"""Perl, a language added as one module (``cgm_metrics/languages/perl.py``): parsed with the
pinned tree-sitter-perl grammar, scored by CodeBLEU, TSED (against the `tsed` package) and the
language-agnostic metrics, and run as MultiPL-E runs its Perl programs (``perl`` with
``Test::Deep``): right, wrong, non-compiling and endless programs.

The Perl programs of tests/data/codebleu_languages/perl.txt were written for these tests; the
MultiPL-E-style task below follows its Perl translation (``dataset_builder/humaneval_to_pl.py``:
``sub NAME { my($args) = @_;`` then ``use Test::Deep;`` and ``eq_deeply`` tests that
``exit 1`` on a mismatch).
"""

from __future__ import annotations

import numpy as np
import pytest
import TSED
from conftest import ROOT
from hostile_programs import needs_sandbox

import cgm_metrics
from cgm_metrics import languages
from cgm_metrics.base.errors import UnsupportedLanguageError
from cgm_metrics.core.parsing import parse
from cgm_metrics.core.text import strip_comments
from cgm_metrics.execution.code_eval import compute_code_eval
from cgm_metrics.execution.languages import find_toolchain, get_language
from cgm_metrics.maths.codebleu import CodeBleuMetric, compute_codebleu
from cgm_metrics.maths.codebleu.dataflow import data_flow
from cgm_metrics.maths.codebleu.options import CodeBleuOptions
from cgm_metrics.maths.codebleu.preprocess import remove_comments
from cgm_metrics.maths.codebleu.tree import flatten
from cgm_metrics.maths.tsed import tsed

PROGRAMS = [p.strip("\n") for p in (ROOT / "tests" / "data" / "codebleu_languages" / "perl.txt")
            .read_text(encoding="utf-8").split("\n=====\n")]


def test_names_and_parts():
    assert "perl" in cgm_metrics.languages.names()
    for name in ("perl", "PERL", "pl", "perl5"):
        assert languages.resolve(name).name == "perl"
    language = languages.resolve("perl")
    assert language.module == "cgm_metrics.languages.perl"
    assert [part for part in languages.PARTS if language.has(part)] == [
        "parsing", "codebleu", "tsed", "execution", "extraction"]
    assert get_language("pl").name == "perl"  # MultiPL-E's key, for problem files
    assert "perl" in CodeBleuMetric.languages


def test_parses_and_flags_broken_code():
    for program in PROGRAMS:
        assert not parse(program, "perl").has_error, program
    assert parse("sub f { my $x = ; ", "perl").has_error


def test_comments_and_pod_are_stripped_strings_kept():
    code = 'my $s = "a # b"; # gone\n=pod\n\nDocs.\n\n=cut\nprint $#list;\n'
    stripped = strip_comments(code, "perl")
    assert "gone" not in stripped and "Docs" not in stripped
    assert '"a # b"' in stripped and "$#list" in stripped


# -- CodeBLEU -----------------------------------------------------------------------------------


def test_codebleu_comment_removal_by_hand():
    # perlsyn: # to the end of the line where a word starts ($#a, s/a#b// stay); quotes keep
    # their content; a line left blank is dropped
    source = 'my $n = $#a; # c\n# whole\nmy $s = "x # y" . \'#\';\n$t =~ s/a#b//;'
    expected = 'my $n = $#a;  \nmy $s = "x # y" . \'#\';\n$t =~ s/a#b//;'
    options = CodeBleuOptions("perl")
    assert remove_comments(source, options.comment_style) == expected
    from cgm_metrics.maths.codebleu import engine

    if engine.library() is not None:
        assert engine.strip_comments([source], options.comment_style) == [expected]


C, F = "comesFrom", "computedFrom"


@pytest.mark.parametrize("code, expected", [
    # for_statement: fields variable and list, the body the field block; walked twice (xs
    # then comes from itself); $s += $v: s is computed from v
    # tokens: for0 my1 $2 v3 (4 @5 xs6 )7 {8 $9 s10 +=11 $12 v13 ;14 }15
    ("for my $v (@xs) { $s += $v; }", [
        ("v", 3, F, ("xs",), (6,)), ("xs", 6, C, ("xs",), (6,)), ("s", 10, F, ("v",), (13,)),
        ("v", 13, C, ("v",), (3,)),
    ]),
    # a list assignment: each variable computed from each on the right; "..." is one token;
    # an if without else: b after it comes from before it and from inside it
    # tokens: my0 (1 $2 a3 ,4 $5 b6 )7 =8 @9 _10 ;11 my12 $13 t14 =15 "$a"16 ;17 if18 (19
    # $20 a21 )22 {23 $24 b25 =26 $27 t28 ;29 }30 print31 $32 b33 ;34
    ('my ($a, $b) = @_;\nmy $t = "$a";\nif ($a) { $b = $t; }\nprint $b;', [
        ("a", 3, F, ("_",), (10,)), ("b", 6, F, ("_",), (10,)), ("_", 10, C, (), ()),
        ("t", 14, F, ('"$a"',), (16,)), ('"$a"', 16, C, (), ()), ("a", 21, C, ("a",), (3,)),
        ("b", 25, F, ("t",), (28,)), ("t", 28, C, ("t",), (14,)),
        ("b", 33, C, ("b",), (6, 25)),
    ]),
])
def test_dataflow_rules_by_hand(code, expected, monkeypatch):
    options = CodeBleuOptions("perl")
    tree = flatten(remove_comments(code, options.comment_style), options.spec)
    assert data_flow(tree, options.rules, "source") == expected
    for engine in ("python", "compiled"):
        monkeypatch.setenv("CGM_CODEBLEU_ENGINE", engine)
        assert compute_codebleu([code], [[code]], lang="perl")["dataflow_match_score"] == 1.0


def test_identical_code_scores_one_and_keywords_weigh():
    for program in PROGRAMS:
        result = compute_codebleu([program], [[program]], lang="perl")
        assert result == {key: 1.0 for key in result}, program
    assert {"sub", "my", "elsif", "unless", "foreach"} <= CodeBleuOptions("perl").keywords


def test_compiled_engine_equals_reference(monkeypatch):
    from cgm_metrics.maths.codebleu import engine

    if engine.library() is None:
        pytest.skip("the compiled CodeBLEU engine is not built")
    predictions = [a for a in PROGRAMS for _ in PROGRAMS] + [p[: len(p) // 2] for p in PROGRAMS]
    references = [[b] for _ in PROGRAMS for b in PROGRAMS] + [[p] for p in PROGRAMS]
    metric = CodeBleuMetric(lang="perl")
    monkeypatch.setenv("CGM_CODEBLEU_ENGINE", "python")
    reference = metric.statistics(predictions, references)
    monkeypatch.setenv("CGM_CODEBLEU_ENGINE", "compiled")
    compiled = metric.statistics(predictions, references)
    assert np.array_equal(reference, compiled)
    assert reference[:, -1].sum() > 0
    options = CodeBleuOptions("perl")
    assert engine.language_tables("perl", options.rules).compiled_walk


# -- TSED and the other metrics ---------------------------------------------------------------


def test_tsed_equals_the_package():
    for first in PROGRAMS:
        for second in PROGRAMS:
            assert tsed(first, second, lang="perl") == pytest.approx(
                TSED.Calculate("perl", first, second, 1.0, 0.8, 1.0), abs=1e-12)


@pytest.mark.parametrize("name", ["chrf_code", "ruby", "edit_sim", "bleu", "tsed",
                                  "codebleu"])
def test_every_parsing_metric_takes_perl(name):
    result = cgm_metrics.score(name, [PROGRAMS[0]], [PROGRAMS[0]], lang="perl")
    assert result["score"] == pytest.approx(100.0 if name in ("chrf_code", "bleu") else 1.0)


# -- execution ----------------------------------------------------------------------------------

PROMPT = "# Add two numbers\nsub add {\n    my($x, $y) = @_;\n"
TESTS = (
    "}\nuse Test::Deep;\n\nsub testhumaneval {\n    my $candidate = \\&add;\n"
    "        if(eq_deeply($candidate->(2, 3),5)) {\n        print \"ok!\" }else{\n"
    "        exit 1;\n        }\n"
    "        if(eq_deeply($candidate->(7, 5),12)) {\n        print \"ok!\" }else{\n"
    "        exit 1;\n        }\n}\n\ntesthumaneval();\n"
)
CASES = [  # completion, MultiPL-E's verdict (ours for a program that does not compile)
    ("    return $x + $y;\n", "OK"),
    ("    return $x - $y;\n", "Exception"),  # eq_deeply fails: exit 1
    ("    return $x + ;\n", "SyntaxError"),  # aborted due to compilation errors
    ("    while (1) {}\n", "Timeout"),
    ("    print STDERR \"ERROR\\n\"; return $x + $y;\n", "Exception"),  # ERROR printed
    ("    die 'no';\n", "Exception"),
]


@needs_sandbox
def test_code_eval_runs_perl_right_wrong_broken_and_endless():
    find_toolchain("perl")  # perl and Test::Deep: scripts/test.sh installs them
    pass_at_k, results = compute_code_eval(
        [[PROMPT + completion] for completion, _ in CASES], [TESTS] * len(CASES), k=[1],
        num_workers=2, timeout=3.0, allow_code_execution=True, lang="perl",
    )
    verdicts = [results[i][0][1]["verdict"] for i in range(len(CASES))]
    assert verdicts == [verdict for _, verdict in CASES]
    assert results[0][0][1]["result"] == "passed"
    assert results[3][0][1]["result"] == "timed out"
    assert results[2][0][1]["result"].startswith("failed: SyntaxError")
    assert pass_at_k["pass@1"] == pytest.approx(1 / len(CASES))


ANSWER = """Sure! Here it is:

```python
def add(x, y):
    return x + y
```

In Perl:

```perl
use strict;
use warnings;
use Test::More;

sub twice { return 2 * $_[0]; }

sub add {
    my ($x, $y) = @_;
    return twice($x) - $x + $y;
}

print add(2, 3), "\\n";
is(add(1, 2), 3);
done_testing();
```
"""


@needs_sandbox
def test_extract_finds_the_perl_solution_in_a_chat_answer_and_its_program_runs():
    """--extract on a MultiPL-E-style Perl task: the ```perl block (not the ```python one),
    its helper and `use` lines kept, its usage and own tests (Test::More) dropped, the
    prompt's signature replaced, the tests' leading `}` dropped; the program passes. A wrong
    version fails, an answer without code fails for sure."""
    from cgm_metrics.execution.extract import assemble, extract_code
    from cgm_metrics.execution.languages import run_sources
    from cgm_metrics.execution.tasks import Problem

    find_toolchain("perl")
    problem = Problem("HumanEval_add", PROMPT, TESTS, "add", language="perl")
    found = extract_code(ANSWER, problem)
    assert found.how.startswith("fenced block 2 of 2 (perl): the only block that defines add")
    assert found.left == ("block 1 (python): another language",)
    assert found.defines_entry_point
    wrong = extract_code(ANSWER.replace("- $x + $y", "+ $y"), problem)
    no_code = extract_code("I cannot answer that.", problem)
    assert no_code.code is None
    texts = [next(iter(assemble(problem, e).files.values())) for e in (found, wrong, no_code)]
    text = texts[0]
    assert text.startswith(PROMPT[:PROMPT.index("sub add")]) and "sub twice" in text and "use warnings;" in text and "Test::More" not in text
    assert "print add(2, 3)" not in text and "done_testing" not in text
    assert text.count("sub add") == 1
    outcomes = run_sources(texts, "perl", num_workers=1, allow_code_execution=True)
    assert [o.passed for o in outcomes] == [True, False, False], [o.message for o in outcomes]


def test_a_language_that_cannot_run_says_what_its_module_lacks():
    with pytest.raises(UnsupportedLanguageError, match=r"kotlin.*no execution .*ExecutionPart"):
        compute_code_eval([["x"]], ["y"], k=[1], allow_code_execution=True, lang="kotlin")
    with pytest.raises(UnsupportedLanguageError, match=r"C# .*no RUBY's graph level part.*PdgSpec"):
        languages.resolve("cs", part="pdg")


@needs_sandbox
def test_pass_at_k_metric_takes_perl_as_code_eval_does():
    from cgm_metrics.execution.metrics import candidate_statistics

    metric = cgm_metrics.get_metric("pass@1", lang="pl", allow_code_execution=True, timeout=3)
    stats = candidate_statistics(metric, [[[PROMPT + c] for c, _ in CASES[:3]]], [TESTS] * 3)
    assert metric.corpus_score(stats[0]) == pytest.approx(1 / 3)  # only the right one passes
