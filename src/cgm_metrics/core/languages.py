"""The language registry: one table row per language, read by every generic walker.

A row says which tree-sitter grammar parses the language and which node types matter to the
metrics (comments, string literals, identifiers). Language differences live here as data,
not as per-language code paths.
"""

import importlib
from functools import cache
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:  # tree-sitter is imported when a grammar is first needed
    from tree_sitter import Language


class LanguageSpec(NamedTuple):
    """What the metrics need to know about one programming language (an immutable row; a
    NamedTuple rather than a dataclass, and this module without postponed annotations, so
    that a first CodeBLEU call imports neither dataclasses nor inspect nor compiles them)."""

    name: str
    module: str  # the grammar wheel's import name
    function: str  # the function of that module that returns the grammar pointer
    comment_types: frozenset[str]
    string_types: frozenset[str]  # literals kept whole as one token
    identifier_types: frozenset[str]  # leaves renamed by identifier normalisation
    docstrings: bool = False  # Python: a string statement opening a body is documentation

    @property
    def grammar(self) -> "Language":
        return _load_grammar(self.module, self.function)


@cache
def _load_grammar(module: str, function: str) -> "Language":
    from tree_sitter import Language

    return Language(getattr(importlib.import_module(module), function)())


_LANGUAGES: tuple[LanguageSpec, ...] = (
    LanguageSpec(
        "python",
        "tree_sitter_python",
        "language",
        comment_types=frozenset({"comment"}),
        string_types=frozenset({"string", "concatenated_string"}),
        identifier_types=frozenset({"identifier"}),
        docstrings=True,
    ),
    LanguageSpec(
        "java",
        "tree_sitter_java",
        "language",
        comment_types=frozenset({"line_comment", "block_comment", "comment"}),
        string_types=frozenset({"string_literal", "character_literal", "text_block"}),
        identifier_types=frozenset({"identifier", "type_identifier"}),
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
    ),
    LanguageSpec(
        "c",
        "tree_sitter_c",
        "language",
        comment_types=frozenset({"comment"}),
        string_types=frozenset({"string_literal", "char_literal", "system_lib_string"}),
        identifier_types=frozenset({"identifier", "field_identifier", "type_identifier"}),
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
    ),
    LanguageSpec(
        "php",
        "tree_sitter_php",
        "language_php",
        comment_types=frozenset({"comment"}),
        string_types=frozenset({"string", "encapsed_string", "heredoc", "nowdoc"}),
        identifier_types=frozenset({"name"}),
    ),
    LanguageSpec(
        "ruby",
        "tree_sitter_ruby",
        "language",
        comment_types=frozenset({"comment"}),
        string_types=frozenset({"string", "character", "regex", "heredoc_body", "simple_symbol"}),
        identifier_types=frozenset({"identifier", "constant", "instance_variable"}),
    ),
    LanguageSpec(
        "rust",
        "tree_sitter_rust",
        "language",
        comment_types=frozenset({"line_comment", "block_comment"}),
        string_types=frozenset({"string_literal", "raw_string_literal", "char_literal"}),
        identifier_types=frozenset({"identifier", "field_identifier", "type_identifier"}),
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
