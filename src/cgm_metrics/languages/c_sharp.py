"""C#: everything the library knows of it."""

from . import Language
from .parts import (
    C_STYLE,
    CodeBleuPart,
    DataflowRules,
    LanguageSpec,
    TsedPart,
    words,
)

KEYWORDS = words(
    "abstract as base bool break byte case catch char checked class const continue decimal "
    "default delegate do double else enum event explicit extern false finally fixed float for "
    "foreach goto if implicit in int interface internal is lock long namespace new null "
    "object operator out override params private protected public readonly ref return sbyte "
    "sealed short sizeof stackalloc static string struct switch this throw true try typeof "
    "uint ulong unchecked unsafe ushort using virtual void volatile while add alias ascending "
    "async await by descending dynamic equals from get global group into join let nameof "
    "notnull on orderby partial remove select set unmanaged value var when where yield"
)

RULES = DataflowRules(
    definition=("variable_declarator",),
    definition_style="two_children",
    assignment=("assignment_expression",),
    increment=("postfix_unary_expression",),
    branch=("if_statement", "else"),
    c_for=("for_statement",),
    c_for_restart="local_variable_declaration",
    foreach=("for_each_statement",),
    foreach_name="left",
    foreach_value="right",
    loop=("while_statement",),
)

COMMENT_STYLE = C_STYLE

PROBE = (
    "class A : B { int F(int a, int[] b) { foreach (var i in b) { a += i; } // c\n"
    "if (a > 0) { return a; } else { return -a; } } }\n"
    "int x = ;"
)

LANGUAGE = Language(
    name="c_sharp",
    pygments="csharp",
    display_name="C#",
    aliases=("c#", "csharp", "c-sharp"),
    multipl_e=("cs",),
    extensions=(".cs",),
    parsing=LanguageSpec(
        "c_sharp",
        "tree_sitter_c_sharp",
        "language",
        comment_types=frozenset({"comment"}),
        string_types=frozenset(
            {
                "character_literal",
                "interpolated_string_expression",
                "raw_string_literal",
                "string_literal",
                "verbatim_string_literal",
            }
        ),
        identifier_types=frozenset({"identifier"}),
    ),
    codebleu=CodeBleuPart(KEYWORDS, RULES, COMMENT_STYLE, PROBE),
    tsed=TsedPart(pack="csharp"),
    cost={
        "chrf_code": 0.0001,
        "codebleu": 0.0006,
        "ruby": 0.0014,
        "bleu": 0.00073,
        "edit_sim": 1e-05,
        "meteor": 0.0003,
        "rouge_l": 9e-05,
        "rouge_w": 0.0018,
        "tsed": 0.0011,
        "crystal_bleu": 0.00034,
        "codexglue_edit_sim": 7e-06,
    },
)
