"""CodeBLEU's per-language data, read from each language module's ``codebleu`` part
(:mod:`cgm_metrics.languages`): dataflow rules, comment styles (keywords: ``keywords.py``).

A language is data, not code: the one generic dataflow walker (``dataflow.py``, and the
compiled engine's ``csrc/dataflow.c``) reads these rules. Each row reproduces what the `codebleu` package's per-language ``DFG_*`` function does with
that language's node types (C and C++ use the C# rules there, and here). The package's
functions differ only in these details, so one walker reads them from this table.

Kinds of node the walker knows:
- ``definition``: a declaration with an optional initial value (``name`` comes from ``value``)
- ``assignment``: ``pairwise`` (each left variable computed from each right variable) or
  ``tuple`` (``a, b = x, y`` paired element by element; Python and Ruby)
- ``increment``: ``i++``: each variable of the node computed from each
- ``branch``: if/else: branches start from the same state, their states are merged
- ``for_in`` / ``foreach`` / ``while``: the loop is walked twice (loop-carried flow)
- ``c_for``: C-style ``for``: walked once, then the part after its initialiser again

Beyond the package's rules, for grammars it does not have (its ten languages keep the
defaults, so their graphs are unchanged): the identifier type (a new name is registered only
at a leaf of this type), which nodes are kept whole as tokens (``atomic``) and which are
comments, the fields of an assignment's sides, ``separators`` (where a definition, assignment
or for-each node has no field for its first side, its sides are the children just before
and after its first separator token, e.g. Kotlin's ``val x = 1`` or Lua's ``a, b = 1, 2``;
without a separator either it is walked as any other node), ``opaque`` node types (types and
operators: the walker neither walks them nor reads variables from them) and a for-each body
given by a field or, with ``foreach_body=""``, as the children after the iterated value.
"""

from ...languages.parts import (
    ATOMIC_TYPES,
    C_STYLE,
    CodeBleuPart,
    CommentStyle,
    DataflowRules,
    Quote,
)

# Trees deeper than this have no dataflow graph: the package's recursion gives up on them (a
# RecursionError it swallows), whatever the language.
MAX_DEPTH = 800


#: the name of the package's comment style of the C family (:data:`C_STYLE`)
C_COMMENTS = "c_comments"


def comment_style_name(lang: str, part: CodeBleuPart) -> str:
    """How comments of ``lang`` are removed before the syntax and dataflow components
    (preprocess.py): the package's "tokenize" (Python's tokenize rules: comments and
    docstrings) and "none" (kept), "c_comments" (the package's regular expression for the C
    family), or the name of the language whose scanned :class:`CommentStyle` it uses (its
    own)."""
    style = part.comment_style
    if isinstance(style, str):
        return style
    return C_COMMENTS if style == C_STYLE else lang


def scanned_style(name: str) -> CommentStyle:
    """The :class:`CommentStyle` a name of :func:`comment_style_name` stands for."""
    if name == C_COMMENTS:
        return C_STYLE
    from ...languages import resolve

    part = resolve(name, part="codebleu").codebleu
    assert part is not None and isinstance(part.comment_style, CommentStyle)
    return part.comment_style


__all__ = ["ATOMIC_TYPES", "C_STYLE", "MAX_DEPTH", "CommentStyle", "DataflowRules", "Quote",
           "comment_style_name", "scanned_style"]
