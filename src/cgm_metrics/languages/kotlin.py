"""Kotlin: everything the library knows of it."""

from . import Language
from .parts import (
    C_STYLE,
    CodeBleuPart,
    DataflowRules,
    LanguageSpec,
    TsedPart,
    words,
)

# Kotlin language documentation, "Keywords and operators"
# (https://kotlinlang.org/docs/keyword-reference.html): hard, soft and modifier keywords and
# the special identifiers.
KEYWORDS = words(
    "as as? break class continue do else false for fun if in !in interface is !is null object "
    "package return super this throw true try typealias typeof val var when while by catch "
    "constructor delegate dynamic field file finally get import init param property receiver "
    "set setparam value where abstract actual annotation companion const crossinline data "
    "enum expect external final infix inline inner internal lateinit noinline open operator "
    "out override private protected public reified sealed suspend tailrec vararg it"
)

RULES = DataflowRules(
    definition=("property_declaration",),
    assignment=("assignment",),
    branch=("if_expression", "else", "when_expression", "when_entry"),
    foreach=("for_statement",),
    loop=("while_statement", "do_while_statement"),
    atomic=("character_literal", "multiline_string_literal", "string_literal"),
    comments=("block_comment", "line_comment"),
    separators=("=", "in"),
    opaque=(
        "function_type",
        "non_nullable_type",
        "nullable_type",
        "parenthesized_type",
        "type_arguments",
        "type_constraints",
        "type_parameters",
        "user_type",
    ),
    foreach_body="",
)

COMMENT_STYLE = C_STYLE

PROBE = (
    "fun f(a: Int, b: List<Int>): Int { var s = a; for (v in b) { s += v } // c\n"
    "return if (s > 0) s else -s }\n"
    "class C(val x: Int)\n"
    "val y = "
)

LANGUAGE = Language(
    name="kotlin",
    display_name="Kotlin",
    aliases=("kt", "kts"),
    multipl_e=(),
    extensions=(".kt", ".kts"),
    parsing=LanguageSpec(
        "kotlin",
        "tree_sitter_kotlin",
        "language",
        comment_types=frozenset({"block_comment", "line_comment"}),
        string_types=frozenset({"character_literal", "multiline_string_literal", "string_literal"}),
        identifier_types=frozenset({"identifier"}),
    ),
    codebleu=CodeBleuPart(KEYWORDS, RULES, COMMENT_STYLE, PROBE),
    tsed=TsedPart(pack="kotlin"),
)
