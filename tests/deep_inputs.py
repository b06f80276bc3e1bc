"""Deeply nested code in every language, for the tests that no metric crashes on it.

Each shape nests ``n`` levels in the language's own syntax where it has one (a list literal,
an ``if`` block, a unary minus), so tree-sitter builds a tree about ``n`` levels deep:

- ``parens``: ``((((a))))``;
- ``brackets``: nested blocks ``{ { { } } }`` (Python: nested subscripts ``a[a[a[a]]]``);
- ``lists``: nested list (array, table) literals;
- ``ifs``: nested conditionals (Python: ``a if a else a if a else ...``, right-deep);
- ``blocks``: nested functions or blocks (Python: ``lambda: lambda: ... a``);
- ``unary``: ``- - - - a``;
- ``concat``: ``a + a + a + ...``, a left-deep chain of binary operators.
"""

from __future__ import annotations

SHAPES = ("parens", "brackets", "lists", "ifs", "blocks", "unary", "concat")


def _c_family(wrap: str, atom: str = "a", list_open: str = "{", list_close: str = "}",
              if_open: str = "if (a) { ", block_open: str = "{ ", statement: str = "") -> dict:
    return {"wrap": wrap, "atom": atom, "list": (list_open, list_close), "if": (if_open, "}"),
            "block": (block_open, "}"), "statement": statement or atom + ";"}


# wrap: "{e}" an expression, "{s}" statements; list/if/block: (opening, closing) per level
_LANGUAGES: dict[str, dict] = {
    "python": {"wrap": "x = {e}\n", "atom": "a", "list": ("[", "]")},
    "c": _c_family("int f(void) {{ int x = {e}; {s} }}\n"),
    "cpp": _c_family("int f() {{ int x = {e}; {s} }}\n"),
    "c_sharp": _c_family("class A {{ int F() {{ var x = {e}; {s} }} }}\n", statement="a();",
                         list_open="new[] { ", list_close=" }"),
    "java": _c_family("class A {{ int f() {{ int x = {e}; {s} }} }}\n",
                      list_open="new Object[] { ", list_close=" }"),
    "go": _c_family("package main\nfunc f() {{ x := {e}\n{s} }}\n", list_open="[]any{",
                    if_open="if a { ", statement="a()"),
    "rust": _c_family("fn f() {{ let x = {e}; {s} }}\n", list_open="[", list_close="]",
                      if_open="if a { "),
    "javascript": _c_family("function f() {{ let x = {e}; {s} }}\n", list_open="[",
                            list_close="]"),
    "typescript": _c_family("function f(): void {{ let x = {e}; {s} }}\n", list_open="[",
                            list_close="]"),
    "kotlin": _c_family("fun f() {{ val x = {e}\n{s} }}\n", list_open="listOf(",
                        list_close=")", block_open="run { "),
    "scala": _c_family("object A {{ def f() = {{ val x = {e}\n{s} }} }}\n", list_open="List(",
                       list_close=")"),
    "swift": _c_family("func f() {{ let x = {e}\n{s} }}\n", list_open="[", list_close="]",
                       if_open="if a { ", block_open="do { "),
    "php": _c_family("<?php function f() {{ $x = {e}; {s} }}\n", atom="$a", list_open="[",
                     list_close="]", if_open="if ($a) { "),
    "perl": _c_family("sub f {{ my $x = {e}; {s} }}\n", atom="$a", list_open="[",
                      list_close="]", if_open="if ($a) { "),
    "ruby": {"wrap": "x = {e}\n{s}\n", "atom": "a", "list": ("[", "]"),
             "if": ("if a then ", " end"), "block": ("begin ", " end")},
    "lua": {"wrap": "local x = {e}\n{s}\n", "atom": "a", "list": ("{", "}"),
            "if": ("if a then ", " end"), "block": ("do ", " end"), "statement": "a()"},
    "julia": {"wrap": "x = {e}\n{s}\n", "atom": "a", "list": ("[", "]"),
              "if": ("if a ", " end"), "block": ("begin ", " end")},
    "haskell": {"wrap": "x = {e}\n", "atom": "a", "list": ("[", "]"),
                "if": ("if a then ", " else a"), "block": ("do { ", " }")},
    "bash": {"wrap": "x=$(( {e} ))\n{s}\n", "atom": "a", "list": ("$(echo ", ")"),
             "if": ("if a; then ", "; fi"), "block": ("{ ", "; }")},
}


#: (language, shape) pairs whose tree-sitter grammar parses deep nesting in a time that grows
#: about quadratically with the depth (measured: Perl's every shape 4.1 s at 20,000 levels of
#: parentheses and 18 s at 11,000 nested ifs; Scala's nested ifs 12.5 s at 20,000, and its
#: scoring of every shape but the ``a + a`` chain 480 s at 100,000 on a loaded machine;
#: Haskell's nested blocks 141 s at 100,000): the tests take them at SLOW_DEPTH levels, so the
#: suite's time stays bounded. Slow, not fatal: nothing crashed on them.
QUADRATIC = frozenset({*(("perl", shape) for shape in SHAPES),
                       *(("scala", shape) for shape in SHAPES if shape != "concat"),
                       ("haskell", "blocks")})
SLOW_DEPTH = 3_000


def depth_for(lang: str, shape: str, depth: int) -> int:
    """``depth``, or SLOW_DEPTH for a pair whose parse time grows quadratically."""
    return min(depth, SLOW_DEPTH) if (lang, shape) in QUADRATIC else depth


def languages() -> tuple[str, ...]:
    return tuple(sorted(_LANGUAGES))


def deep_code(lang: str, shape: str, n: int) -> str:
    """``n`` levels of ``shape`` in ``lang``."""
    spec = _LANGUAGES[lang]
    atom = spec["atom"]
    wrap = spec["wrap"]
    expression, statements = atom, ""
    if shape == "parens":
        expression = "(" * n + atom + ")" * n
    elif shape == "unary":
        if lang in ("scala", "swift"):  # one prefix operator an operand
            expression = "-(" * n + atom + ")" * n
        else:
            expression = "- " * n + atom
    elif shape == "concat":
        expression = "+".join([atom] * n)
    elif shape == "lists":
        opening, closing = spec["list"]
        expression = opening * n + atom + closing * n
    elif shape == "brackets":
        if lang == "bash":
            statements = "( " * n + atom + " )" * n
        elif "{s}" in wrap and lang not in ("ruby", "lua", "julia"):
            statements = "{ " * n + "}" * n
        else:  # nested subscripts
            expression = f"{atom}[" * n + atom + "]" * n
    elif shape in ("ifs", "blocks"):
        if lang == "python":
            expression = (f"{atom} if {atom} else " * n + atom if shape == "ifs"
                          else "lambda: " * n + atom)
        else:
            opening, closing = spec["if" if shape == "ifs" else "block"]
            body = opening * n + spec.get("statement", atom) + closing * n
            if "{s}" in wrap:
                statements = body
            else:
                expression = body
    else:
        raise ValueError(f"unknown shape {shape!r}; choose one of {SHAPES}")
    return wrap.format(e=expression, s=statements)
