"""Swift: everything the library knows of it."""

from . import Language
from .parts import (
    C_STYLE,
    CodeBleuPart,
    DataflowRules,
    LanguageSpec,
    TsedPart,
    words,
)

# The Swift Programming Language, "Lexical Structure", Keywords and Punctuation
# (https://docs.swift.org/swift-book/documentation/the-swift-programming-language/lexicalstructure/):
# keywords of declarations, statements, expressions and types, patterns, those beginning with
# a number sign, and those reserved in particular contexts.
KEYWORDS = words(
    "associatedtype borrowing class consuming deinit enum extension fileprivate func import "
    "init inout internal let nonisolated open operator private precedencegroup protocol "
    "public rethrows static struct subscript typealias var break case catch continue default "
    "defer do else fallthrough for guard if in repeat return throw switch where while Any as "
    "await false is nil self Self super throws true try _ #available #colorLiteral #else "
    "#elseif #endif #fileLiteral #if #imageLiteral #keyPath #selector #sourceLocation "
    "#unavailable associativity convenience didSet dynamic final get indirect infix lazy left "
    "mutating none nonmutating optional override package postfix precedence prefix Protocol "
    "required right set some Type unowned weak willSet"
)

RULES = DataflowRules(
    definition=("property_declaration",),
    assignment=("assignment",),
    branch=("if_statement", "else", "switch_statement", "switch_entry"),
    foreach=("for_statement",),
    foreach_name="item",
    foreach_value="collection",
    loop=("while_statement", "repeat_while_statement"),
    identifier="simple_identifier",
    atomic=("line_string_literal", "multi_line_string_literal", "raw_string_literal"),
    comments=("comment", "multiline_comment"),
    left="target",
    right="result",
    foreach_body="",
)

COMMENT_STYLE = C_STYLE

PROBE = (
    "func f(a: Int, b: [Int]) -> Int { var s = a; for v in b { s += v } // c\n"
    "if s > 0 { return s } else { return -s } }\n"
    "struct S { let x: Int }\n"
    "let y = "
)

LANGUAGE = Language(
    name="swift",
    display_name="Swift",
    aliases=(),
    multipl_e=("swift",),
    extensions=(".swift",),
    parsing=LanguageSpec(
        "swift",
        "tree_sitter_swift",
        "language",
        comment_types=frozenset({"comment", "multiline_comment"}),
        string_types=frozenset(
            {
                "line_string_literal",
                "multi_line_string_literal",
                "raw_string_literal",
                "regex_literal",
            }
        ),
        identifier_types=frozenset({"simple_identifier", "type_identifier"}),
    ),
    codebleu=CodeBleuPart(KEYWORDS, RULES, COMMENT_STYLE, PROBE),
    tsed=TsedPart(pack="swift"),
)
