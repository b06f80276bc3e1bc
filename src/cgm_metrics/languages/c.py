"""C: everything the library knows of it."""

from . import Language, c_sharp
from .parts import (
    C_STYLE,
    CodeBleuPart,
    LanguageSpec,
    TsedPart,
    words,
)

KEYWORDS = words(
    "auto else long switch break enum register typedef case extern return union char float "
    "short unsigned const for signed void continue goto sizeof volatile default if static "
    "while do int struct _Packed double"
)

# the codebleu package reads the C family with one set of rules: C#'s
RULES = c_sharp.RULES

COMMENT_STYLE = C_STYLE

PROBE = (
    "int f(int a, char *b) { for (int i = 0; i < a; i++) { a += b[i]; } // c\n"
    "if (a) return a; else return -a; }\n"
    "struct S { int x; } s = {1};\n"
    "int y = ;"
)

LANGUAGE = Language(
    name="c",
    display_name="C",
    aliases=(),
    multipl_e=(),
    extensions=(".c", ".h"),
    parsing=LanguageSpec(
        "c",
        "tree_sitter_c",
        "language",
        comment_types=frozenset({"comment"}),
        string_types=frozenset({"char_literal", "string_literal", "system_lib_string"}),
        identifier_types=frozenset({"field_identifier", "identifier", "type_identifier"}),
    ),
    codebleu=CodeBleuPart(KEYWORDS, RULES, COMMENT_STYLE, PROBE),
    tsed=TsedPart(pack="c"),
    cost={
        "chrf_code": 0.0001,
        "codebleu": 0.00043,
        "ruby": 0.0009,
        "bleu": 0.00069,
        "edit_sim": 1e-05,
        "meteor": 0.00025,
        "rouge_l": 9e-05,
        "rouge_w": 0.0021,
        "tsed": 0.00086,
        "crystal_bleu": 0.00031,
        "codexglue_edit_sim": 9e-06,
    },
)
