"""Julia: everything the library knows of it."""

from . import Language
from .parts import (
    CodeBleuPart,
    CommentStyle,
    DataflowRules,
    LanguageSpec,
    Quote,
    TsedPart,
    words,
)

# Julia manual, "Keywords" (https://docs.julialang.org/en/v1/base/base/#Keywords): the reserved
# keywords, the words of the two-word keywords (abstract type, mutable struct, primitive
# type) and the contextual ones.
KEYWORDS = words(
    "baremodule begin break catch const continue do else elseif end export false finally for "
    "function global if import let local macro module quote return struct true try using "
    "while abstract mutable primitive type where in isa outer as"
)

RULES = DataflowRules(
    definition=("for_binding",),
    assignment=("assignment", "compound_assignment_expression"),
    assignment_style="tuple",
    branch=("if_statement", "elseif_clause", "else_clause"),
    branch_style="plain",
    loop=("for_statement", "while_statement"),
    atomic=("character_literal", "command_literal", "prefixed_string_literal", "string_literal"),
    comments=("block_comment", "line_comment"),
    separators=("operator",),
    opaque=("operator",),
)

COMMENT_STYLE = CommentStyle(
    block=(("#=", "=#"),),
    nested=True,
    line=("#",),
    quotes=(
        Quote(delimiter='"""', escape=True, multiline=True, not_after=""),
        Quote(delimiter='"', escape=True, multiline=True, not_after=""),
        Quote(delimiter="`", escape=True, multiline=True, not_after=""),
        Quote(
            delimiter="'",
            escape=True,
            multiline=False,
            not_after="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_')]}.",
        ),
    ),
)

PROBE = (
    "function f(a, b::Vector{Int}) s = a; for v in b s += v end # c\n"
    "s > 0 ? s : -s end\n"
    "struct S x::Int end\n"
    "y = "
)

LANGUAGE = Language(
    name="julia",
    display_name="Julia",
    aliases=(),
    multipl_e=("jl",),
    extensions=(".jl",),
    parsing=LanguageSpec(
        "julia",
        "tree_sitter_julia",
        "language",
        comment_types=frozenset({"block_comment", "line_comment"}),
        string_types=frozenset(
            {"character_literal", "command_literal", "prefixed_string_literal", "string_literal"}
        ),
        identifier_types=frozenset({"identifier"}),
    ),
    codebleu=CodeBleuPart(KEYWORDS, RULES, COMMENT_STYLE, PROBE),
    tsed=TsedPart(pack="julia"),
)
