"""Haskell: everything the library knows of it."""

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

# Haskell 2010 Language Report, section 2.4 "Identifiers and Operators"
# (https://www.haskell.org/onlinereport/haskell2010/haskellch2.html#x7-180002.4): reservedid,
# and the identifiers with a special meaning in import declarations (as, qualified, hiding).
KEYWORDS = words(
    "case class data default deriving do else foreign if import in infix infixl infixr "
    "instance let module newtype of then type where _ as qualified hiding"
)

RULES = DataflowRules(
    definition=("bind", "generator"),
    definition_value="match",
    branch=("conditional", "else", "alternatives", "alternative"),
    identifier="variable",
    atomic=("char", "string"),
    comments=("comment", "haddock"),
    separators=("<-",),
    opaque=("operator", "signature"),
)

COMMENT_STYLE = CommentStyle(
    block=(("{-", "-}"),),
    nested=True,
    line=("--",),
    line_symbols="!#$%&*+./<=>?@\\^|~:",
    quotes=(
        Quote(delimiter='"', escape=True, multiline=False, not_after=""),
        Quote(
            delimiter="'",
            escape=True,
            multiline=False,
            not_after="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_'",
        ),
    ),
)

PROBE = (
    "f :: Int -> [Int] -> Int\n"
    "f a b = s where s = a + sum [v | v <- b] -- c\n"
    "g x = if x > 0 then x else negate x\n"
    "data S = S { x :: Int }\n"
    "y = "
)

LANGUAGE = Language(
    name="haskell",
    display_name="Haskell",
    aliases=("hs",),
    multipl_e=(),
    extensions=(".hs",),
    parsing=LanguageSpec(
        "haskell",
        "tree_sitter_haskell",
        "language",
        comment_types=frozenset({"comment", "haddock"}),
        string_types=frozenset({"char", "string"}),
        identifier_types=frozenset({"variable"}),
    ),
    codebleu=CodeBleuPart(KEYWORDS, RULES, COMMENT_STYLE, PROBE),
    tsed=TsedPart(pack="haskell"),
)
