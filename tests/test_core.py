"""The parsing core: language registry, parsing, comment stripping, tokenizers, identifier
normalisation, bounded cost on deep nesting."""

from __future__ import annotations

import re

import pytest

from cgm_metrics import languages
from cgm_metrics.core.inputs import check_inputs
from cgm_metrics.core.parsing import leaves, parse, walk
from cgm_metrics.core.text import normalize_identifiers, strip_comments
from cgm_metrics.core.tokenizers import code_tokens, leaf_tokens, tranx_tokenize
from cgm_metrics.languages import resolve_language

# the parsing part of every built-in language, and their aliases
LANGUAGES = {name: language.parsing for name, language in languages.builtin().items()
             if language.parsing is not None}
ALIASES = {alias: name for alias, name in languages.aliases().items()
           if name in LANGUAGES and alias not in LANGUAGES}

REQUIRED = [
    "python",
    "java",
    "javascript",
    "typescript",
    "c",
    "cpp",
    "c_sharp",
    "go",
    "php",
    "ruby",
    "rust",
    "kotlin",
    "swift",
    "scala",
    "lua",
    "bash",
    "haskell",
    "julia",
]

# (valid snippet with line and block/trailing comments, broken snippet, snippet without comments)
SNIPPETS = {
    "python": (
        "def f(a):\n    # halve\n    return a // 2  # floor\n",
        "def f(a:\n  return )",
        "def f(a):\n    return a // 2\n",
    ),
    "java": (
        "class A { int f(int a) {\n  // halve\n  return a / 2; /* floor */\n} }",
        "class A { int f( { }",
        "class A { int f(int a) {\n  return a / 2;\n} }",
    ),
    "javascript": (
        "function f(a) {\n  // halve\n  return a / 2; /* floor */\n}",
        "function f(a { return }",
        "function f(a) {\n  return a / 2;\n}",
    ),
    "typescript": (
        "function f(a: number): number {\n  // halve\n  return a / 2; /* floor */\n}",
        "function f(a: { return }",
        "function f(a: number): number {\n  return a / 2;\n}",
    ),
    "c": (
        "int f(int a) {\n  // halve\n  return a / 2; /* floor */\n}",
        "int f(int a { return }",
        "int f(int a) {\n  return a / 2;\n}",
    ),
    "cpp": (
        "int f(int a) {\n  // halve\n  return a / 2; /* floor */\n}",
        "int f(int a { return }",
        "int f(int a) {\n  return a / 2;\n}",
    ),
    "c_sharp": (
        "class A { int F(int a) {\n  // halve\n  return a / 2; /* floor */\n} }",
        "class A { int F(int a { } ",
        "class A { int F(int a) {\n  return a / 2;\n} }",
    ),
    "go": (
        "package m\nfunc f(a int) int {\n  // halve\n  return a / 2 /* floor */\n}\n",
        "package m\nfunc f(a int { return }",
        "package m\nfunc f(a int) int {\n  return a / 2\n}\n",
    ),
    "php": (
        "<?php\nfunction f($a) {\n  // halve\n  # floor\n  return $a / 2; /* c */\n}\n",
        "<?php\nfunction f($a { return }",
        "<?php\nfunction f($a) {\n  return $a / 2;\n}\n",
    ),
    "ruby": (
        "def f(a)\n  # halve\n  a / 2 # floor\nend\n",
        "def f(a\n  a / \n",
        "def f(a)\n  a / 2\nend\n",
    ),
    "rust": (
        "fn f(a: i32) -> i32 {\n  // halve\n  a / 2 /* floor */\n}",
        "fn f(a: i32 -> { a / }",
        "fn f(a: i32) -> i32 {\n  a / 2\n}",
    ),
    "kotlin": (
        "fun f(a: Int): Int {\n  // halve\n  return a / 2 /* floor */\n}",
        "fun f(a: Int { return }",
        "fun f(a: Int): Int {\n  return a / 2\n}",
    ),
    "swift": (
        "func f(a: Int) -> Int {\n  // halve\n  return a / 2 /* floor */\n}",
        "func f(a: Int -> { return }",
        "func f(a: Int) -> Int {\n  return a / 2\n}",
    ),
    "scala": (
        "def f(a: Int): Int = {\n  // halve\n  a / 2 /* floor */\n}",
        "def f(a: Int = { a / }",
        "def f(a: Int): Int = {\n  a / 2\n}",
    ),
    "lua": (
        "function f(a)\n  -- halve\n  return a // 2 --[[ floor ]]\nend",
        "function f(a\n  return a //\n",
        "function f(a)\n  return a // 2\nend",
    ),
    "bash": (
        "f() {\n  # halve\n  echo $(( $1 / 2 )) ${#1} # floor\n}",
        "f() {\n  echo $(( $1 / \n",
        "f() {\n  echo $(( $1 / 2 )) ${#1}\n}",
    ),
    "haskell": (
        "f :: Int -> Int\n-- halve\nf a = a `div` 2 {- floor -}\n",
        "f :: Int ->\nf a = a `div`\n",
        "f :: Int -> Int\nf a = a `div` 2\n",
    ),
    "julia": (
        "function f(a)\n  # halve\n  return a ÷ 2 #= floor =#\nend",
        "function f(a\n  return a ÷\n",
        "function f(a)\n  return a ÷ 2\nend",
    ),
    "perl": (
        "sub f {\n  # halve\n  my ($a) = @_;\n  return int($a / 2);\n}\n\n=pod\n\nfloor\n\n=cut\n",
        "sub f {\n  my ($a) = @_;\n  return int($a / ;\n",
        "sub f {\n  my ($a) = @_;\n  return int($a / 2);\n}",
    ),
}


def _squeeze(code: str) -> str:
    return re.sub(r"\s+", " ", code).strip()


# -- registry -----------------------------------------------------------------------------


def test_every_language_has_a_parsing_test():
    assert set(REQUIRED) <= set(languages.names("parsing"))
    assert set(SNIPPETS) == set(LANGUAGES)  # each language's parsing is tested below


@pytest.mark.parametrize(
    "alias, name",
    [
        ("py", "python"),
        ("Python", "python"),
        (" python3 ", "python"),
        ("js", "javascript"),
        ("ts", "typescript"),
        ("c#", "c_sharp"),
        ("cs", "c_sharp"),
        ("C#", "c_sharp"),
        ("c++", "cpp"),
        ("golang", "go"),
        ("rb", "ruby"),
        ("kt", "kotlin"),
        ("sh", "bash"),
        ("Shell", "bash"),
        ("hs", "haskell"),
        ("jl", "julia"),
        (["java"], "java"),
    ],
)
def test_language_aliases(alias, name):
    assert resolve_language(alias).name == name


def test_every_alias_resolves_to_a_language():
    for alias, name in ALIASES.items():
        assert resolve_language(alias) is LANGUAGES[name]


def test_unknown_language_lists_supported_ones():
    with pytest.raises(ValueError, match="klingon") as info:
        resolve_language("klingon")
    for name in REQUIRED:
        assert name in str(info.value)
    with pytest.raises(TypeError, match="lang"):
        resolve_language(3)


# -- parsing ------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", sorted(SNIPPETS))
def test_every_language_parses_and_flags_broken_code(lang):
    valid, broken, _ = SNIPPETS[lang]
    parsed = parse(valid, lang)
    assert not parsed.has_error
    assert parsed.node_text(parsed.root).strip() == valid.strip()
    assert parse(broken, lang).has_error


def test_walk_is_preorder_in_source_order():
    parsed = parse("x = f(a, b)\n", "python")
    identifiers = [parsed.node_text(n) for n in walk(parsed.root) if n.type == "identifier"]
    assert identifiers == ["x", "f", "a", "b"]
    assert [parsed.node_text(n) for n in leaves(parsed.root)] == list("x=f(a,b)")


def test_node_text_uses_byte_offsets():
    parsed = parse("s = 'héllo'; t = 1\n", "python")
    names = [parsed.node_text(n) for n in walk(parsed.root) if n.type == "identifier"]
    assert names == ["s", "t"]


# -- comment stripping --------------------------------------------------------------------


@pytest.mark.parametrize("lang", sorted(SNIPPETS))
def test_strip_comments_per_language(lang):
    valid, _, plain = SNIPPETS[lang]
    stripped = strip_comments(valid, lang)
    assert _squeeze(stripped) == _squeeze(plain)
    for word in ("halve", "floor"):
        assert word not in stripped
    assert not parse(stripped, lang).has_error


def test_python_floor_division_and_strings_stay():
    code = 'def f(a):\n    s = "# not // a comment"\n    return a // 2  # halve\n'
    assert strip_comments(code, "python") == (
        'def f(a):\n    s = "# not // a comment"\n    return a // 2\n'
    )


def test_python_docstrings_removed_other_strings_kept():
    code = (
        '"""Module doc."""\n'
        "class A:\n"
        "    '''Class doc.'''\n"
        "    def f(self):\n"
        '        """Method doc."""\n'
        '        x = "kept"\n'
        '        "also kept: not the first statement"\n'
        "        return x\n"
    )
    stripped = strip_comments(code, "python")
    assert "doc" not in stripped
    assert '"kept"' in stripped and "also kept" in stripped
    assert not parse(stripped, "python").has_error


def test_ruby_comments_removed():
    code = "=begin\nblock comment\n=end\nx = 1 # one\n# whole line\nputs x\n"
    assert strip_comments(code, "ruby") == "x = 1\nputs x\n"


def test_c_family_url_in_string_is_not_a_comment():
    code = 'char *u = "http://example.org"; // site\n'
    assert strip_comments(code, "c") == 'char *u = "http://example.org";\n'


def test_strip_comments_needs_a_language():
    with pytest.raises(ValueError, match="lang"):
        strip_comments("x = 1  # c")


# -- tokenizers ---------------------------------------------------------------------------


def _tranx_steps(code: str) -> str:
    """The four steps of the Out of the BLEU / TranX tokenizer, as the study lists them."""
    code = re.sub(r"([^A-Za-z0-9_])", r" \1 ", code)
    code = re.sub(r"([a-z])([A-Z])", r"\1 \2", code)
    code = re.sub(r"\s+", " ", code)
    return code.replace('"', "`").replace("'", "`")


@pytest.mark.parametrize(
    "code",
    [
        "sorted(l, key=lambda x: x['count'])",
        'os.system("ls -l")',
        "getValue()",
        "class Archmage(MinionCard):\n    def __init__(self):\n        pass",
        "re.sub('[^a-z]', '', myString).lower()",
        "x = {'a': 1, \"b\": 2}",
    ],
)
def test_tranx_tokenizer_on_study_examples(code):
    assert tranx_tokenize(code) == _tranx_steps(code)
    assert code_tokens(code) == _tranx_steps(code).split()


def test_tranx_tokens_by_hand():
    assert code_tokens('getValue("x")') == ["get", "Value", "(", "`", "x", "`", ")"]
    assert code_tokens("a_b+=1") == ["a_b", "+", "=", "1"]


def test_leaf_tokens_keep_strings_whole_and_drop_comments():
    code = 'print("hello world")  # greet\n'
    assert leaf_tokens(code, "python") == ["print", "(", '"hello world"', ")"]
    assert leaf_tokens(code, "python", keep_comments=True)[-1] == "# greet"
    with pytest.raises(ValueError, match="lang"):
        leaf_tokens(code)


# -- identifier normalisation -------------------------------------------------------------


@pytest.mark.parametrize(
    "lang, first, second",
    [
        (
            "python",
            "def area(r):\n    return 3.14 * r * r\n",
            "def surface(radius):\n    return 3.14 * radius * radius\n",
        ),
        (
            "java",
            "int add(int a, int b) { return a + b; }",
            "int plus(int x, int y) { return x + y; }",
        ),
        ("javascript", "const s = xs.map(x => x * 2);", "const out = items.map(i => i * 2);"),
        (
            "go",
            "package m\nfunc add(a int, b int) int { return a + b }\n",
            "package m\nfunc sum(x int, y int) int { return x + y }\n",
        ),
        ("ruby", "def add(a, b)\n  a + b\nend\n", "def plus(x, y)\n  x + y\nend\n"),
    ],
)
def test_normalize_identifiers_makes_renamed_snippets_equal(lang, first, second):
    assert first != second
    assert normalize_identifiers(first, lang) == normalize_identifiers(second, lang)


def test_normalize_identifiers_order_of_first_appearance_and_literals_kept():
    code = 'def area(radius):\n    return "radius" * radius  # radius\n'
    assert normalize_identifiers(code, "python") == (
        'def v0(v1):\n    return "radius" * v1  # radius\n'
    )
    assert normalize_identifiers("b = a\na = b\n", "python") == "v0 = v1\nv1 = v0\n"


# -- bounded cost -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "lang, code",
    [
        ("python", "x = " + "[" * 5000 + "]" * 5000 + "\n"),
        ("java", "class A { int[] x = " + "{" * 5000 + "}" * 5000 + "; }"),
        ("javascript", "x = " + "(" * 5000 + "1" + ")" * 5000 + ";"),
    ],
)
def test_deep_nesting_walks_without_recursion_error(lang, code):
    parsed = parse(code, lang)
    assert sum(1 for _ in walk(parsed.root)) > 10000
    assert len(list(leaves(parsed.root))) >= 10000
    assert strip_comments(code, lang) == code
    assert len(normalize_identifiers(code, lang)) >= len(code) - 1
    assert len(leaf_tokens(code, lang)) >= 10000


# -- input validation ---------------------------------------------------------------------


def test_check_inputs_normalises_references():
    preds, refs = check_inputs(["a", "b"], ["x", ["y", "z"]])
    assert preds == ["a", "b"]
    assert refs == [["x"], ["y", "z"]]


@pytest.mark.parametrize(
    "predictions, references, error, text",
    [
        (["a"], ["x", "y"], ValueError, "references"),
        ([], [], ValueError, "empty"),
        ("a", ["x"], TypeError, "predictions"),
        ([1], ["x"], TypeError, "predictions"),
        (["a"], [[]], ValueError, "references"),
        (["a"], [None], TypeError, "references"),
    ],
)
def test_check_inputs_errors(predictions, references, error, text):
    with pytest.raises(error, match=text):
        check_inputs(predictions, references)


def test_strip_comments_keeps_crlf_line_endings():
    code = "x = 1  # one\r\n# whole line\r\ny = 2\r\n"
    assert strip_comments(code, "python") == "x = 1\r\ny = 2\r\n"
