"""Scala: everything the library knows of it."""

from . import Language
from .parts import (
    C_STYLE,
    CodeBleuPart,
    DataflowRules,
    LanguageSpec,
    TsedPart,
    words,
)

# Scala 3 language reference, "Lexical Syntax", Keywords
# (https://docs.scala-lang.org/scala3/reference/syntax.html): regular and soft keywords.
KEYWORDS = words(
    "abstract case catch class def do else enum export extends false final finally for given "
    "if implicit import lazy match new null object override package private protected return "
    "sealed super then throw trait true try type val var while with yield as derives end "
    "extension infix inline opaque open transparent using"
)

RULES = DataflowRules(
    definition=("val_definition", "var_definition", "enumerator"),
    definition_name="pattern",
    assignment=("assignment_expression",),
    branch=("if_expression", "else", "case_block", "case_clause"),
    loop=("for_expression", "while_expression", "do_while_expression"),
    atomic=("character_literal", "interpolated_string_expression", "string"),
    comments=("block_comment", "comment"),
    separators=("<-", "="),
    opaque=("operator_identifier",),
)

COMMENT_STYLE = C_STYLE

PROBE = (
    "def f(a: Int, b: List[Int]): Int = { var s = a; for (v <- b) { s = s + v } // c\n"
    "if (s > 0) s else -s }\n"
    "class C(x: Int)\n"
    "val y = "
)

LANGUAGE = Language(
    name="scala",
    display_name="Scala",
    aliases=(),
    multipl_e=("scala",),
    extensions=(".scala",),
    parsing=LanguageSpec(
        "scala",
        "tree_sitter_scala",
        "language",
        comment_types=frozenset({"block_comment", "comment"}),
        string_types=frozenset({"character_literal", "interpolated_string_expression", "string"}),
        identifier_types=frozenset({"identifier", "type_identifier"}),
    ),
    codebleu=CodeBleuPart(KEYWORDS, RULES, COMMENT_STYLE, PROBE),
    tsed=TsedPart(pack="scala"),
)
