"""CodeBLEU in the languages the `codebleu` package does not have: Kotlin, Swift, Scala, Lua,
Bash, Haskell and Julia.

No peer implementation exists for them, so the expected values below are worked out by hand
from CodeBLEU's definition (the arithmetic is in the comments): the n-gram parts from the
whitespace tokens, the syntax part from the tree-sitter trees (subtrees of the reference found
among the candidate's), the dataflow part from the documented rules of each language
(``codebleu/tables.py``). Beyond that: identical code scores 1 in every component, results do
not depend on the hash seed, the compiled and the pure-Python engines give the same rows, and
the comment scanner follows each language's comment syntax (and, for the C family, equals the
package's regular expression).

The programs in tests/data/codebleu_languages were written for these tests.
"""

from __future__ import annotations

import json
import math
import os
import random
import subprocess
import sys

import numpy as np
import pytest
from _peers import require
from conftest import ROOT

from cgm_metrics.maths.codebleu import (
    CodeBleuMetric,
    calc_codebleu,
    codebleu_languages,
    compute_codebleu,
)
from cgm_metrics.maths.codebleu.dataflow import data_flow
from cgm_metrics.maths.codebleu.keywords import keywords
from cgm_metrics.maths.codebleu.options import CodeBleuOptions
from cgm_metrics.maths.codebleu.preprocess import remove_comments
from cgm_metrics.maths.codebleu.tree import flatten

NEW = ("kotlin", "swift", "scala", "lua", "bash", "haskell", "julia")
DATA = ROOT / "tests" / "data" / "codebleu_languages"
TOL = 1e-12


def _programs(lang: str) -> list[str]:
    text = (DATA / f"{lang}.txt").read_text(encoding="utf-8")
    return [program.strip("\n") for program in text.split("\n=====\n")]


def _bleu(precisions, hyp_length, ref_length):
    """BLEU-4 from the four (matched, total) pairs with NLTK's method1 smoothing (0.1 for a
    zero count) and the brevity penalty, as CodeBLEU defines its n-gram parts."""
    product = 1.0
    for matched, total in precisions:
        product *= (matched if matched else 0.1) / total
    penalty = 1.0 if hyp_length > ref_length else math.exp(1 - ref_length / hyp_length)
    return penalty * product ** 0.25


# -- hand-computed values -------------------------------------------------------------------
#
# Each pair declares a = 1 (with a comment) and then b = a in the reference, and a = 2,
# b = 2 in the candidate. The comment counts in the n-gram parts (they read the raw text) and
# is removed before the syntax and dataflow parts.
#
# Dataflow, the same in every language once the language's rule has found the declaration's
# name and value: tokens of the reference a(i) ... 1(j) ... b(k) ... a(l):
#   a@i comes from 1@j; 1@j (no parent); b@k comes from a@l; a@l comes from a@i.
# Renamed by first appearance (parents first): (1 <- 0), (0), (2 <- 1), (1 <- 1).
# Candidate: a@i from 2@j, 2@j, b@k from 2@l, 2@l (a literal is no variable: no state):
#   (1 <- 0), (0), (2 <- 0), (0). Two of the reference's four edges are found: 2/4 = 0.5.
# (Kotlin, Swift, Scala, Bash and Haskell declare, so the relation is comesFrom; Lua's and
# Julia's plain assignments give computedFrom; either way the two graphs share two edges.)
HAND = {
    "kotlin": dict(
        reference="val a: Int = 1 // one\nval b = a",
        candidate="val a: Int = 2\nval b = 2",
        # tokens: ref [val a: Int = 1 // one val b = a] (11), cand [val a: Int = 2 val b = 2] (9)
        # 1-grams: val 2 + a: 1 + Int 1 + = 2 + b 1 = 7 of 9
        # 2-grams: (val a:) (a: Int) (Int =) (val b) (b =) = 5 of 8
        # 3-grams: (val a: Int) (a: Int =) (val b =) = 3 of 7; 4-grams: (val a: Int =) 1 of 6
        ngram=_bleu([(7, 9), (5, 8), (3, 7), (1, 6)], 9, 11),
        # keyword val weighs 1, the other 9 reference tokens 0.2: total 2 + 1.8 = 3.8;
        # found: val 2 + (a:, Int, =, =, b) 5 x 0.2 = 3.0. Recall of 2-4-grams: 5/10, 3/9,
        # 1/8; the pseudo reference length 2 gives no penalty.
        weighted=_bleu([(3.0, 3.8), (5, 10), (3, 9), (1, 8)], 9, 2),
        # reference subtrees: source_file, 2 property_declaration, 2 variable_declaration,
        # user_type = 6; the candidate's second declaration holds a number_literal, so the
        # second property_declaration and the root are not found: 4/6.
        syntax=4 / 6,
        # `val a: Int = 1` has no fields: name and value are the children around `=`; the
        # type is opaque, so Int is no variable (else a third name would join the graph)
        dataflow=2 / 4,
    ),
    "swift": dict(
        reference="var a = 1 // one\nlet b = a",
        candidate="var a = 2\nlet b = 2",
        # tokens: ref [var a = 1 // one let b = a] (10), cand [var a = 2 let b = 2] (8)
        # 1-grams: var a = = let b = 6 of 8; 2-grams: (var a) (a =) (let b) (b =) 4 of 7
        # 3-grams: (var a =) (let b =) 2 of 6; 4-grams: 0 of 5
        ngram=_bleu([(6, 8), (4, 7), (2, 6), (0, 5)], 8, 10),
        # keywords var, let: total 2 + 8 x 0.2 = 3.6; found 2 + (a, =, =, b) 0.8 = 2.8;
        # 2-4-grams 4/9, 2/8, 0/7
        weighted=_bleu([(2.8, 3.6), (4, 9), (2, 8), (0, 7)], 8, 2),
        # subtrees: root, 2 property_declaration, 2 value_binding_pattern, 2 pattern = 7;
        # not found: the second property_declaration (its value is an identifier) and root
        syntax=5 / 7,
        dataflow=2 / 4,  # fields name and value of property_declaration
    ),
    "scala": dict(
        reference="val a = 1 // one\nval b = a",
        candidate="val a = 2\nval b = 2",
        # as Swift's tokens with val for var and let: 6/8, 4/7, 2/6, 0/5, lengths 8 and 10
        ngram=_bleu([(6, 8), (4, 7), (2, 6), (0, 5)], 8, 10),
        # keyword val twice: total 2 + 1.6 = 3.6, found 2 + 0.8 = 2.8
        weighted=_bleu([(2.8, 3.6), (4, 9), (2, 8), (0, 7)], 8, 2),
        # subtrees: compilation_unit, 2 val_definition; the second is not found: 1/3
        syntax=1 / 3,
        dataflow=2 / 4,  # val_definition's fields pattern and value
    ),
    "lua": dict(
        reference="local a = 1 -- one\nb = a",
        candidate="local a = 2\nb = 2",
        # tokens: ref [local a = 1 -- one b = a] (9), cand [local a = 2 b = 2] (7)
        # 1-grams: local a = = b 5 of 7; 2-grams: (local a) (a =) (b =) 3 of 6;
        # 3-grams: (local a =) 1 of 5; 4-grams 0 of 4
        ngram=_bleu([(5, 7), (3, 6), (1, 5), (0, 4)], 7, 9),
        # keyword local: total 1 + 8 x 0.2 = 2.6; found 1 + (a, =, =, b) 0.8 = 1.8;
        # 2-4-grams 3/8, 1/7, 0/6
        weighted=_bleu([(1.8, 2.6), (3, 8), (1, 7), (0, 6)], 7, 2),
        # subtrees: chunk, variable_declaration, 2 assignment_statement, 2 variable_list,
        # 2 expression_list = 8; not found: the second expression_list (an identifier), the
        # second assignment_statement, chunk: 5/8
        syntax=5 / 8,
        # assignment_statement has no fields: its sides are around `=`, paired as a tuple
        dataflow=2 / 4,
    ),
    "bash": dict(
        reference="local a=1 # one\nlocal b=$a",
        candidate="local a=2\nlocal b=2",
        # tokens: ref [local a=1 # one local b=$a] (6), cand [local a=2 local b=2] (4)
        # 1-grams: local twice, 2 of 4; no longer n-gram is shared: 0/3, 0/2, 0/1
        ngram=_bleu([(2, 4), (0, 3), (0, 2), (0, 1)], 4, 6),
        # local is a builtin, not a reserved word: every token weighs 0.2, total 1.2, found
        # 0.4; 2-4-grams 0/5, 0/4, 0/3
        weighted=_bleu([(0.4, 1.2), (0, 5), (0, 4), (0, 3)], 4, 2),
        # subtrees: program, 2 declaration_command, 2 variable_assignment, simple_expansion
        # = 6; found: the first declaration_command and variable_assignment: 2/6
        syntax=2 / 6,
        # variable_assignment's fields name and value; $a is a variable_name inside a
        # simple_expansion
        dataflow=2 / 4,
    ),
    "haskell": dict(
        reference="a = 1 -- one\nb = a",
        candidate="a = 2\nb = 2",
        # tokens: ref [a = 1 -- one b = a] (8), cand [a = 2 b = 2] (6)
        # 1-grams: a = = b 4 of 6; 2-grams (a =) (b =) 2 of 5; 3- and 4-grams 0 of 4, 0 of 3
        ngram=_bleu([(4, 6), (2, 5), (0, 4), (0, 3)], 6, 8),
        # no keyword: total 8 x 0.2 = 1.6, found (a, =, =, b) 0.8; 2-4-grams 2/7, 0/6, 0/5
        weighted=_bleu([(0.8, 1.6), (2, 7), (0, 6), (0, 5)], 6, 2),
        # subtrees: haskell, declarations, 2 bind, 2 match, literal = 7; found: the first
        # bind, its match and the literal: 3/7
        syntax=3 / 7,
        dataflow=2 / 4,  # bind's fields name and match
    ),
    "julia": dict(
        reference="a = 1 # one\nb = a",
        candidate="a = 2\nb = 2",
        # as Haskell's tokens with # for --
        ngram=_bleu([(4, 6), (2, 5), (0, 4), (0, 3)], 6, 8),
        weighted=_bleu([(0.8, 1.6), (2, 7), (0, 6), (0, 5)], 6, 2),
        # subtrees: source_file and 2 assignment; the second is not found: 1/3
        syntax=1 / 3,
        # assignment has no fields: its sides are around the operator node
        dataflow=2 / 4,
    ),
}


@pytest.mark.parametrize("lang", NEW)
def test_hand_computed_scores(lang):
    case = HAND[lang]
    got = compute_codebleu([case["candidate"]], [[case["reference"]]], lang=lang)
    expected = {
        "ngram_match_score": case["ngram"],
        "weighted_ngram_match_score": case["weighted"],
        "syntax_match_score": case["syntax"],
        "dataflow_match_score": case["dataflow"],
    }
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, rel=TOL, abs=TOL), key
    assert got["codebleu"] == pytest.approx(sum(expected.values()) / 4, rel=TOL)


# Dataflow edges of each language's loop, binding or branch rule, walked by hand. An entry:
# (name, token position, relation, parent names, parent positions), in the source order of
# merged names; entries neither with a parent nor a parent of another are dropped.
C, F = "comesFrom", "computedFrom"
FLOWS = {
    # for_statement: name and value around `in` (no fields), the body is what follows the
    # value; walked twice (xs then comes from itself), s += x: s is computed from x
    # tokens: for0 (1 x2 in3 xs4 )5 {6 s7 +=8 x9 }10
    "kotlin": ("for (x in xs) { s += x }", [
        ("x", 2, F, ("xs",), (4,)), ("xs", 4, C, ("xs",), (4,)), ("s", 7, F, ("x",), (9,)),
        ("x", 9, C, ("x",), (2,)),
    ]),
    # for_statement: fields item and collection, the body follows the collection
    # tokens: for0 x1 in2 xs3 {4 s5 +=6 x7 }8
    "swift": ("for x in xs { s += x }", [
        ("x", 1, F, ("xs",), (3,)), ("xs", 3, C, ("xs",), (3,)), ("s", 5, F, ("x",), (7,)),
        ("x", 7, C, ("x",), (1,)),
    ]),
    # for_expression is a loop walked twice; the enumerator x <- xs a definition around
    # `<-`; the + operator is opaque (no variable); s is first read before any assignment,
    # then from the loop's previous pass
    # tokens: for0 (1 x2 <-3 xs4 )5 {6 s7 =8 s9 +10 x11 }12
    "scala": ("for (x <- xs) { s = s + x }", [
        ("x", 2, C, ("xs",), (4,)), ("xs", 4, C, ("xs",), (4,)),
        ("s", 7, F, ("s", "x"), (9, 11)), ("s", 9, C, ("s",), (7,)),
        ("x", 11, C, ("x",), (2,)),
    ]),
    # for_generic_clause: a definition around `in`, every name from every value
    # tokens: for0 _1 ,2 v3 in4 ipairs5 (6 t7 )8 do9 s10 =11 s12 +13 v14 end15
    "lua": ("for _, v in ipairs(t) do s = s + v end", [
        ("_", 1, C, ("ipairs", "t"), (5, 7)), ("v", 3, C, ("ipairs", "t"), (5, 7)),
        ("ipairs", 5, C, ("ipairs",), (5,)), ("t", 7, C, ("t",), (7,)),
        ("s", 10, F, ("s", "v"), (12, 14)), ("s", 12, C, ("s",), (10,)),
        ("v", 14, C, ("v",), (3,)),
    ]),
    # if/else (elif_clause and else_clause are the branches, as Python's): b is 9 on the
    # main path, 15 in the else branch, both after the statement; "$a" is not kept whole,
    # so a is read (a variable_name is a name); echo has no edge and is dropped
    # tokens: if0 [1 "2 $3 a4 "5 ]6 ;7 then8 b9 =10 $11 a12 ;13 else14 b15 =16 0_17 ;18 fi19
    # echo20 $21 b22
    "bash": ('if [ "$a" ]; then b=$a; else b=0; fi\necho $b', [
        ("a", 4, C, (), ()), ("b", 9, C, ("a",), (12,)), ("a", 12, C, ("a",), (4,)),
        ("b", 15, C, ("0",), (17,)), ("0", 17, C, (), ()), ("b", 22, C, ("b",), (9, 15)),
    ]),
    # a do-binding y <- g x (a definition around `<-`), a let binding, a conditional
    # tokens: f0 x1 =2 do3 y4 <-5 g6 x7 let8 z9 =10 y11 return12 (13 if14 z15 then16 x17
    # else18 y19 )20; f and return have no edge and are dropped
    "haskell": ("f x = do\n  y <- g x\n  let z = y\n  return (if z then x else y)", [
        ("x", 1, C, (), ()), ("y", 4, C, ("g", "x"), (6, 7)), ("g", 6, C, (), ()),
        ("x", 7, C, ("x",), (1,)), ("z", 9, C, ("y",), (11,)), ("y", 11, C, ("y",), (4,)),
        ("z", 15, C, ("z",), (9,)), ("x", 17, C, ("x",), (1,)), ("y", 19, C, ("y",), (4,)),
    ]),
    # for_binding: a definition around the operator node `in`; s += x around `+=`
    # tokens: for0 x1 in2 xs3 s4 +=5 x6 end7
    "julia": ("for x in xs\n    s += x\nend", [
        ("x", 1, C, ("xs",), (3,)), ("xs", 3, C, ("xs",), (3,)), ("s", 4, F, ("x",), (6,)),
        ("x", 6, C, ("x",), (1,)),
    ]),
}


@pytest.mark.parametrize("lang", NEW)
def test_dataflow_rules_by_hand(lang, monkeypatch):
    code, expected = FLOWS[lang]
    options = CodeBleuOptions(lang)
    tree = flatten(remove_comments(code, options.comment_style), options.spec)
    assert data_flow(tree, options.rules, "source") == expected
    # the compiled engine's graph of the same code matches the same edges
    for engine in ("python", "compiled"):
        monkeypatch.setenv("CGM_CODEBLEU_ENGINE", engine)
        assert compute_codebleu([code], [[code]], lang=lang)["dataflow_match_score"] == 1.0


# -- comments ------------------------------------------------------------------------------

# Each language's comment syntax, by hand from its reference: a comment becomes one space,
# strings keep their markers, lines left blank are dropped.
COMMENTS = {
    # Lua 5.4 manual 3.1: -- to the end of the line, --[==[ ]==] long comments, [[ ]] long
    # strings; an unclosed long comment is a line comment
    "lua": ('local s = "a -- b" -- c\nx = [[ -- kept\n]] --[==[ gone\n]] still ]==] y = 1\n'
            "--[[ unclosed\nz = 2",
            'local s = "a -- b"  \nx = [[ -- kept\n]]   y = 1\nz = 2'),
    # Bash manual 3.1.3: # starts a comment at the start of a word only ($#, ${#a}, a#b stay);
    # quotes and a backslash escape keep it
    "bash": ('echo $# ${#a} a#b "x # y" \\# # gone\n# whole\nf \'#\' # c',
             'echo $# ${#a} a#b "x # y" \\#  \nf \'#\'  '),
    # Haskell 2010 report 2.3: -- starts a comment unless the dashes are part of an operator
    # (-->, |--); {- -} nest; x' is a name, '-' a character literal
    "haskell": ("x --> y -- gone\na |-- b\n{- outer {- inner -} still -} f x' = \"--\" ++ '-' --- c",
                "x --> y  \na |-- b\n  f x' = \"--\" ++ '-'  "),
    # Julia manual: # to the end of the line, #= =# nest; a' is a transpose, '#' a character
    "julia": ("x = a' # c\n#= a #= b =# c =# y = \"#\" * '#'\ns = \"\"\"\n# kept\n\"\"\"",
              "x = a'  \n  y = \"#\" * '#'\ns = \"\"\"\n# kept\n\"\"\""),
    # Kotlin, Swift and Scala: the package's C-family rule (// and /* */, strings kept)
    "kotlin": ('val u = "http://x" // c\n/* b\n*/ val v = 1', 'val u = "http://x"  \n  val v = 1'),
}


@pytest.mark.parametrize("lang", sorted(COMMENTS))
def test_comment_removal_by_hand(lang):
    source, expected = COMMENTS[lang]
    style = CodeBleuOptions(lang=lang).comment_style
    assert remove_comments(source, style) == expected
    from cgm_metrics.maths.codebleu import engine

    if engine.library() is not None:
        assert engine.strip_comments([source], style) == [expected]


def _mutated(texts, inserts, seed, per_text=3):
    rng = random.Random(seed)
    out = list(texts)
    for text in [t for t in texts if t]:
        for _ in range(per_text):
            i = rng.randrange(len(text))
            out.append(text[:i] + text[i + rng.randint(1, 6):])
            out.append(text[:i] + rng.choice(inserts) + text[i:])
    return out


def test_c_family_comment_style_equals_the_package():
    """The C-family style is the package's regular expression, run by the scanner of styles:
    equal to the package's own function on its golden files' snippets and broken variants."""
    require("codebleu")
    from codebleu.parser import remove_comments_and_docstrings

    texts = []
    for lang in ("java", "c", "cpp", "javascript", "go", "php", "rust", "c_sharp"):
        path = ROOT / "tests" / "data" / "codebleu" / f"codebleu_public_{lang}.jsonl"
        for line in path.read_text(encoding="utf-8").splitlines()[:80]:
            record = json.loads(line)
            texts += [t.strip() for t in record["predictions"] + record["references"]]
    inserts = ["'", '"', "/*", "*/", "//", "\\", "\n\n", "é", "\u3000", "\\'", "/", "*", "/*/"]
    texts = _mutated(texts, inserts, 7)
    for text in texts:
        assert remove_comments(text, "c_comments") == remove_comments_and_docstrings(text, "java"), text


def test_compiled_comment_scanner_equals_reference_in_every_style():
    from cgm_metrics.maths.codebleu import engine

    if engine.library() is None:
        pytest.skip("the compiled CodeBLEU engine is not built")
    texts = [p for lang in NEW for p in _programs(lang)] + [s for s, _ in COMMENTS.values()]
    inserts = ["'", '"', "/*", "*/", "//", "\\", "--", "--[[", "]]", "[==[", "]==]", "[[", "#",
               "#=", "=#", "{-", "-}", "-->", "|--", '"""', "`", "a'", ")'", "$#", " #", "é'",
               "\n", "\u3000"]
    texts = _mutated(texts, inserts, 11, per_text=20)
    for style in ("c", "lua", "bash", "haskell", "julia"):
        assert engine.strip_comments(texts, style) == [remove_comments(t, style) for t in texts]


# -- every program -------------------------------------------------------------------------


@pytest.mark.parametrize("lang", NEW)
def test_identical_code_scores_one_in_every_component(lang):
    for program in _programs(lang):
        result = compute_codebleu([program], [[program]], lang=lang)
        assert result == {key: 1.0 for key in result}, program
        # and the graph is not empty: the language's rules find its variables
        options = CodeBleuOptions(lang)
        tree = flatten(remove_comments(program, options.comment_style), options.spec)
        assert data_flow(tree, options.rules), program


def _pairs(lang: str, seed: int) -> tuple[list[str], list[list[str]]]:
    """Every program against every other and against broken variants of itself."""
    programs = _programs(lang)
    rng = random.Random(seed)
    predictions, references = [], []
    for k, program in enumerate(programs):
        for other in programs:
            predictions.append(program)
            references.append([other])
        i = rng.randrange(len(program))
        predictions.append(program[:i] + program[i + rng.randint(1, 12):])
        references.append([program, programs[k - 1]])
    return predictions, references


@pytest.mark.parametrize("lang", NEW)
def test_compiled_engine_equals_reference(lang, monkeypatch):
    from cgm_metrics.maths.codebleu import engine

    if engine.library() is None:
        pytest.skip("the compiled CodeBLEU engine is not built")
    predictions, references = _pairs(lang, 3)
    for order in ("package", "source"):
        metric = CodeBleuMetric(lang=lang, set_order=order)
        monkeypatch.setenv("CGM_CODEBLEU_ENGINE", "python")
        reference = metric.statistics(predictions, references)
        monkeypatch.setenv("CGM_CODEBLEU_ENGINE", "compiled")
        compiled = metric.statistics(predictions, references)
        assert np.array_equal(reference, compiled), order
        assert reference[:, -1].sum() > 0  # dataflow edges were compared


@pytest.mark.parametrize("lang", NEW)
def test_compiled_tree_walk_equals_cursor_walk(lang):
    from cgm_metrics.maths.codebleu import engine

    if engine.library() is None:
        pytest.skip("the compiled CodeBLEU engine is not built")
    options = CodeBleuOptions(lang)
    tables = engine.language_tables(options.spec.name, options.rules)
    assert tables.compiled_walk, f"the compiled walk is off for {lang}"
    batch = engine.Batch(tables, compiled_walk=True)
    try:
        predictions, _ = _pairs(lang, 5)
        for text in sorted(set(predictions)):
            source = text.encode("utf-8")
            tree = tables.parse(source)
            batch.clear()
            compiled = batch.add_tree(tree, source, text)
            walked = batch.add_walked_tree(tree, source, text)
            assert batch.tree_rows(compiled) == batch.tree_rows(walked), text
    finally:
        batch.close()


_SEED_SCRIPT = r"""
import json, sys
from pathlib import Path
from cgm_metrics.maths.codebleu import compute_codebleu
data = Path(sys.argv[1])
out = {}
for lang in sys.argv[2].split(","):
    programs = [p.strip("\n") for p in (data / f"{lang}.txt").read_text(encoding="utf-8").split("\n=====\n")]
    preds = programs[1:] + programs[:1]
    for order in ("package", "source"):
        out[f"{lang}/{order}"] = compute_codebleu(preds, [[p] for p in programs], lang=lang,
                                                  set_order=order)
print(json.dumps(out, sort_keys=True))
"""


def test_deterministic_under_any_hash_seed():
    results = set()
    for seed in ("0", "1", "123", "random"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, "-c", _SEED_SCRIPT, str(DATA), ",".join(NEW)],
                              env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-2000:]
        results.add(done.stdout.strip().splitlines()[-1])
    assert len(results) == 1


# -- tables and errors ---------------------------------------------------------------------


def test_keywords_of_the_reference_lists():
    # a few words of each reference list, and no word twice
    samples = {"kotlin": {"fun", "val", "when", "!in"}, "swift": {"func", "guard", "let"},
               "scala": {"def", "given", "yield"}, "lua": {"local", "elseif", "nil"},
               "bash": {"fi", "esac", "done"}, "haskell": {"where", "newtype", "qualified"},
               "julia": {"function", "end", "mutable"}}
    for lang, words in samples.items():
        assert words <= set(keywords(lang)), lang
        assert len(keywords(lang)) == len(set(keywords(lang))), lang


@pytest.mark.parametrize("call", ["compute_codebleu", "calc_codebleu", "metric"])
def test_unknown_language_lists_every_language(call):
    with pytest.raises(ValueError) as info:
        if call == "compute_codebleu":
            compute_codebleu(["x"], [["x"]], lang="fortran")
        elif call == "calc_codebleu":
            calc_codebleu(["x"], ["x"], "fortran")
        else:
            CodeBleuMetric(lang="fortran")
    message = str(info.value)
    assert "fortran" in message
    for lang in codebleu_languages():
        assert lang in message


def test_aliases_of_the_new_languages():
    for alias, lang in (("kt", "kotlin"), ("sh", "bash"), ("hs", "haskell"), ("jl", "julia"),
                        ("Lua", "lua")):
        assert CodeBleuMetric(lang=alias).spec.name == lang


@pytest.mark.parametrize("style", ["python", "hash"])
def test_a_comment_style_is_a_scanned_style_tokenize_or_none(style):
    """Only the style names the engines know are taken: neither a language's name (the
    earlier spelling of "tokenize") nor an unknown word."""
    from cgm_metrics.languages import Language, check, python
    from cgm_metrics.languages.parts import CodeBleuPart

    spec = python.LANGUAGE.parsing._replace(name="styled")
    language = Language("styled", "Styled", parsing=spec,
                        codebleu=CodeBleuPart(python.KEYWORDS, python.RULES, style))
    with pytest.raises(ValueError, match="'tokenize' or 'none'"):
        check(language, "m")
