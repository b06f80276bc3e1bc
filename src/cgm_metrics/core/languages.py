"""The language registry: one table row per language, read by every generic walker.

A row says which tree-sitter grammar parses the language and which node types matter to the
metrics (comments, string literals, identifiers). Language differences live here as data,
not as per-language code paths.
"""

from __future__ import annotations

import importlib
import keyword
from dataclasses import dataclass, field
from functools import cache

from tree_sitter import Language


@dataclass(frozen=True)
class LanguageSpec:
    """What the metrics need to know about one programming language."""

    name: str
    module: str  # the grammar wheel's import name
    function: str  # the function of that module that returns the grammar pointer
    comment_types: frozenset[str]
    string_types: frozenset[str]  # literals kept whole as one token
    identifier_types: frozenset[str]  # leaves renamed by identifier normalisation
    keywords: tuple[str, ...] = field(default=())
    docstrings: bool = False  # Python: a string statement opening a body is documentation

    @property
    def grammar(self) -> Language:
        return _load_grammar(self.module, self.function)


@cache
def _load_grammar(module: str, function: str) -> Language:
    return Language(getattr(importlib.import_module(module), function)())


_C_KEYWORDS = (
    "auto break case char const continue default do double else enum extern float for goto "
    "if inline int long register restrict return short signed sizeof static struct switch "
    "typedef union unsigned void volatile while _Bool _Complex _Imaginary"
).split()
_CPP_KEYWORDS = tuple(
    _C_KEYWORDS
    + (
        "alignas alignof and and_eq asm bitand bitor bool catch char8_t char16_t char32_t class "
        "compl concept consteval constexpr constinit const_cast co_await co_return co_yield "
        "decltype delete dynamic_cast explicit export false friend mutable namespace new noexcept "
        "not not_eq nullptr operator or or_eq private protected public reinterpret_cast requires "
        "static_assert static_cast template this thread_local throw true try typeid typename "
        "using virtual wchar_t xor xor_eq"
    ).split()
)
_JAVA_KEYWORDS = (
    "abstract assert boolean break byte case catch char class const continue default do double "
    "else enum extends final finally float for goto if implements import instanceof int "
    "interface long native new package private protected public return short static strictfp "
    "super switch synchronized this throw throws transient try void volatile while var record "
    "yield sealed permits true false null"
).split()
_JS_KEYWORDS = (
    "await break case catch class const continue debugger default delete do else enum export "
    "extends false finally for function if import in instanceof let new null return static "
    "super switch this throw true try typeof var void while with yield async of get set"
).split()
_TS_KEYWORDS = tuple(
    _JS_KEYWORDS
    + (
        "abstract any as asserts boolean declare infer interface is keyof module namespace never "
        "number object private protected public readonly require string symbol type undefined "
        "unique unknown implements satisfies override"
    ).split()
)
_CS_KEYWORDS = (
    "abstract as base bool break byte case catch char checked class const continue decimal "
    "default delegate do double else enum event explicit extern false finally fixed float for "
    "foreach goto if implicit in int interface internal is lock long namespace new null object "
    "operator out override params private protected public readonly ref return sbyte sealed "
    "short sizeof stackalloc static string struct switch this throw true try typeof uint ulong "
    "unchecked unsafe ushort using virtual void volatile while var async await dynamic get set "
    "yield record init"
).split()
_GO_KEYWORDS = (
    "break case chan const continue default defer else fallthrough for func go goto if import "
    "interface map package range return select struct switch type var true false nil iota"
).split()
_PHP_KEYWORDS = (
    "abstract and array as break callable case catch class clone const continue declare default "
    "do echo else elseif empty enddeclare endfor endforeach endif endswitch endwhile enum extends "
    "final finally fn for foreach function global goto if implements include include_once "
    "instanceof insteadof interface isset list match namespace new or print private protected "
    "public readonly require require_once return static switch throw trait try unset use var "
    "while xor yield true false null self parent"
).split()
_RUBY_KEYWORDS = (
    "BEGIN END alias and begin break case class def defined? do else elsif end ensure false for "
    "if in module next nil not or redo rescue retry return self super then true undef unless "
    "until when while yield __FILE__ __LINE__ __method__"
).split()
_RUST_KEYWORDS = (
    "as async await break const continue crate dyn else enum extern false fn for if impl in let "
    "loop match mod move mut pub ref return self Self static struct super trait true type unsafe "
    "use where while"
).split()

_LANGUAGES: tuple[LanguageSpec, ...] = (
    LanguageSpec(
        "python",
        "tree_sitter_python",
        "language",
        comment_types=frozenset({"comment"}),
        string_types=frozenset({"string", "concatenated_string"}),
        identifier_types=frozenset({"identifier"}),
        keywords=tuple(keyword.kwlist + ["match", "case", "type"]),
        docstrings=True,
    ),
    LanguageSpec(
        "java",
        "tree_sitter_java",
        "language",
        comment_types=frozenset({"line_comment", "block_comment", "comment"}),
        string_types=frozenset({"string_literal", "character_literal", "text_block"}),
        identifier_types=frozenset({"identifier", "type_identifier"}),
        keywords=tuple(_JAVA_KEYWORDS),
    ),
    LanguageSpec(
        "javascript",
        "tree_sitter_javascript",
        "language",
        comment_types=frozenset({"comment", "html_comment"}),
        string_types=frozenset({"string", "template_string", "regex"}),
        identifier_types=frozenset(
            {"identifier", "property_identifier", "shorthand_property_identifier"}
        ),
        keywords=tuple(_JS_KEYWORDS),
    ),
    LanguageSpec(
        "typescript",
        "tree_sitter_typescript",
        "language_typescript",
        comment_types=frozenset({"comment", "html_comment"}),
        string_types=frozenset({"string", "template_string", "regex"}),
        identifier_types=frozenset(
            {
                "identifier",
                "property_identifier",
                "shorthand_property_identifier",
                "type_identifier",
            }
        ),
        keywords=_TS_KEYWORDS,
    ),
    LanguageSpec(
        "c",
        "tree_sitter_c",
        "language",
        comment_types=frozenset({"comment"}),
        string_types=frozenset({"string_literal", "char_literal", "system_lib_string"}),
        identifier_types=frozenset({"identifier", "field_identifier", "type_identifier"}),
        keywords=tuple(_C_KEYWORDS),
    ),
    LanguageSpec(
        "cpp",
        "tree_sitter_cpp",
        "language",
        comment_types=frozenset({"comment"}),
        string_types=frozenset(
            {"string_literal", "char_literal", "raw_string_literal", "system_lib_string"}
        ),
        identifier_types=frozenset(
            {"identifier", "field_identifier", "type_identifier", "namespace_identifier"}
        ),
        keywords=_CPP_KEYWORDS,
    ),
    LanguageSpec(
        "c_sharp",
        "tree_sitter_c_sharp",
        "language",
        comment_types=frozenset({"comment"}),
        string_types=frozenset(
            {
                "string_literal",
                "character_literal",
                "verbatim_string_literal",
                "raw_string_literal",
                "interpolated_string_expression",
            }
        ),
        identifier_types=frozenset({"identifier"}),
        keywords=tuple(_CS_KEYWORDS),
    ),
    LanguageSpec(
        "go",
        "tree_sitter_go",
        "language",
        comment_types=frozenset({"comment"}),
        string_types=frozenset(
            {"interpreted_string_literal", "raw_string_literal", "rune_literal"}
        ),
        identifier_types=frozenset(
            {"identifier", "field_identifier", "type_identifier", "package_identifier"}
        ),
        keywords=tuple(_GO_KEYWORDS),
    ),
    LanguageSpec(
        "php",
        "tree_sitter_php",
        "language_php",
        comment_types=frozenset({"comment"}),
        string_types=frozenset({"string", "encapsed_string", "heredoc", "nowdoc"}),
        identifier_types=frozenset({"name"}),
        keywords=tuple(_PHP_KEYWORDS),
    ),
    LanguageSpec(
        "ruby",
        "tree_sitter_ruby",
        "language",
        comment_types=frozenset({"comment"}),
        string_types=frozenset({"string", "character", "regex", "heredoc_body", "simple_symbol"}),
        identifier_types=frozenset({"identifier", "constant", "instance_variable"}),
        keywords=tuple(_RUBY_KEYWORDS),
    ),
    LanguageSpec(
        "rust",
        "tree_sitter_rust",
        "language",
        comment_types=frozenset({"line_comment", "block_comment"}),
        string_types=frozenset({"string_literal", "raw_string_literal", "char_literal"}),
        identifier_types=frozenset({"identifier", "field_identifier", "type_identifier"}),
        keywords=tuple(_RUST_KEYWORDS),
    ),
)

LANGUAGES: dict[str, LanguageSpec] = {spec.name: spec for spec in _LANGUAGES}

ALIASES: dict[str, str] = {
    "py": "python",
    "python3": "python",
    "js": "javascript",
    "ts": "typescript",
    "c#": "c_sharp",
    "cs": "c_sharp",
    "csharp": "c_sharp",
    "c-sharp": "c_sharp",
    "c++": "cpp",
    "cxx": "cpp",
    "golang": "go",
    "rb": "ruby",
    "rs": "rust",
}


def supported_languages() -> list[str]:
    """The canonical names of every supported language, sorted."""
    return sorted(LANGUAGES)


def resolve_language(lang: object, argument: str = "lang") -> LanguageSpec:
    """Return the registry row for ``lang`` (a name or alias, case-insensitive).

    ``lang`` may also be a one-element list, as ``evaluate.load("k4black/codebleu")`` users
    pass it. Unknown names raise ``ValueError`` listing the supported languages.
    """
    if isinstance(lang, (list, tuple)) and len(lang) == 1:
        lang = lang[0]
    if not isinstance(lang, str):
        raise TypeError(
            f"`{argument}` must be a language name such as 'python', got {type(lang).__name__}. "
            f"Supported: {', '.join(supported_languages())}."
        )
    key = lang.strip().lower()
    key = ALIASES.get(key, key)
    if key not in LANGUAGES:
        raise ValueError(
            f"Unknown language {lang!r} for `{argument}`. Supported: "
            f"{', '.join(supported_languages())} (aliases: {', '.join(sorted(ALIASES))})."
        )
    return LANGUAGES[key]
