"""The language table: one row per language, read by every generic walker.

A row says which tree-sitter grammar parses the language and which node types matter to the
metrics (comments, string literals, identifiers). Language differences live here as data,
not as per-language code paths.

The built-in rows are below; another package adds a language with an entry point of the
group ``cgm_metrics.languages`` naming a :class:`LanguageSpec` instance::

    [project.entry-points."cgm_metrics.languages"]
    lua = "my_package:LUA"      # LUA = LanguageSpec(name="lua", module="tree_sitter_lua", ...)

Plugin languages are found on first need (a name not built in, or the full list), never on
import, and work in every metric that needs no per-language table of its own.
"""

import importlib
import threading
import warnings
from collections.abc import Iterable
from functools import cache
from typing import TYPE_CHECKING, NamedTuple

from .inputs import did_you_mean

if TYPE_CHECKING:  # tree-sitter is imported when a grammar is first needed
    from tree_sitter import Language


class _LanguageRow(NamedTuple):
    name: str
    module: str  # the grammar wheel's import name
    function: str  # the function of that module that returns the grammar pointer
    comment_types: frozenset[str]
    string_types: frozenset[str]  # literals kept whole as one token
    identifier_types: frozenset[str]  # leaves renamed by identifier normalisation
    docstrings: bool = False  # Python: a string statement opening a body is documentation


class LanguageSpec(_LanguageRow):
    """What the metrics need to know about one programming language: an immutable row (a
    NamedTuple rather than a dataclass, and this module without postponed annotations, so
    that a first CodeBLEU call imports neither dataclasses nor inspect), checked when built.

    >>> spec = LanguageSpec(name="starlark", module="tree_sitter_python", function="language",
    ...                     comment_types=["comment"], string_types=["string"],
    ...                     identifier_types=["identifier"])
    >>> spec.comment_types
    frozenset({'comment'})
    """

    __slots__ = ()

    def __new__(cls, name: str, module: str, function: str, comment_types: Iterable[str],
                string_types: Iterable[str], identifier_types: Iterable[str],
                docstrings: bool = False) -> "LanguageSpec":
        for key, value in (("name", name), ("module", module), ("function", function)):
            if not isinstance(value, str) or not value.strip():
                raise TypeError(f"LanguageSpec `{key}` must be a non-empty string, got "
                                f"{value!r}.")
        if name != name.strip().lower():
            raise ValueError(f"LanguageSpec `name` must be lower case without spaces around "
                             f"it, e.g. {name.strip().lower()!r}; got {name!r}.")
        return super().__new__(
            cls, name, module, function, _node_types(comment_types, "comment_types"),
            _node_types(string_types, "string_types"),
            _node_types(identifier_types, "identifier_types"), bool(docstrings),
        )

    @property
    def grammar(self) -> "Language":
        return _load_grammar(self.module, self.function)


def _node_types(value: object, key: str) -> frozenset[str]:
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise TypeError(f"LanguageSpec `{key}` must be a set or list of tree-sitter node type "
                        f"names, got {value!r}.")
    types = frozenset(value)
    if not all(isinstance(item, str) for item in types):
        raise TypeError(f"LanguageSpec `{key}` must hold strings, got {sorted(map(repr, types))}.")
    return types


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
    LanguageSpec(
        "kotlin",
        "tree_sitter_kotlin",
        "language",
        comment_types=frozenset({"line_comment", "block_comment"}),
        string_types=frozenset({"string_literal", "multiline_string_literal", "character_literal"}),
        identifier_types=frozenset({"identifier"}),
    ),
    LanguageSpec(
        "swift",
        "tree_sitter_swift",
        "language",
        comment_types=frozenset({"comment", "multiline_comment"}),
        string_types=frozenset(
            {"line_string_literal", "multi_line_string_literal", "raw_string_literal",
             "regex_literal"}
        ),
        identifier_types=frozenset({"simple_identifier", "type_identifier"}),
    ),
    LanguageSpec(
        "scala",
        "tree_sitter_scala",
        "language",
        comment_types=frozenset({"comment", "block_comment"}),
        string_types=frozenset({"string", "interpolated_string_expression", "character_literal"}),
        identifier_types=frozenset({"identifier", "type_identifier"}),
    ),
    LanguageSpec(
        "lua",
        "tree_sitter_lua",
        "language",
        comment_types=frozenset({"comment"}),
        string_types=frozenset({"string"}),
        identifier_types=frozenset({"identifier"}),
    ),
    LanguageSpec(
        "bash",
        "tree_sitter_bash",
        "language",
        comment_types=frozenset({"comment"}),
        string_types=frozenset({"string", "raw_string", "ansi_c_string", "translated_string"}),
        identifier_types=frozenset({"variable_name"}),
    ),
    LanguageSpec(
        "haskell",
        "tree_sitter_haskell",
        "language",
        comment_types=frozenset({"comment", "haddock"}),
        string_types=frozenset({"string", "char"}),
        identifier_types=frozenset({"variable"}),
    ),
    LanguageSpec(
        "julia",
        "tree_sitter_julia",
        "language",
        comment_types=frozenset({"line_comment", "block_comment"}),
        string_types=frozenset(
            {"string_literal", "character_literal", "command_literal", "prefixed_string_literal"}
        ),
        identifier_types=frozenset({"identifier"}),
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
    "kt": "kotlin",
    "kts": "kotlin",
    "sh": "bash",
    "shell": "bash",
    "hs": "haskell",
    "jl": "julia",
}

# File extensions of source files: `cgm score/compare` takes the language from its input files'
# extensions when they all name the same one (.txt, .jsonl and the like name none).
EXTENSIONS: dict[str, str] = {
    ".py": "python", ".java": "java", ".js": "javascript", ".mjs": "javascript",
    ".cjs": "javascript", ".ts": "typescript", ".c": "c", ".cpp": "cpp", ".cc": "cpp",
    ".cxx": "cpp", ".hpp": "cpp", ".cs": "c_sharp", ".go": "go", ".php": "php", ".rb": "ruby",
    ".rs": "rust", ".kt": "kotlin", ".kts": "kotlin", ".swift": "swift", ".scala": "scala",
    ".lua": "lua", ".sh": "bash", ".bash": "bash", ".hs": "haskell", ".jl": "julia",
}


def language_from_paths(paths: Iterable[str]) -> str | None:
    """The language every path's extension names (``None`` when none names one or two
    disagree): ``refs.py`` and ``out.py`` are Python; ``refs.txt`` says nothing."""
    import os.path

    named = {EXTENSIONS.get(os.path.splitext(str(path))[1].lower()) for path in paths}
    named.discard(None)
    return named.pop() if len(named) == 1 else None


_PLUGINS: dict[str, LanguageSpec] | None = None
_PLUGINS_LOCK = threading.Lock()


def plugin_languages() -> dict[str, LanguageSpec]:
    """The languages of installed packages (entry points ``cgm_metrics.languages``), read
    once. An entry point that fails to load, names no :class:`LanguageSpec`, or reuses a
    built-in name or alias is left out with a warning saying why."""
    global _PLUGINS
    with _PLUGINS_LOCK:
        if _PLUGINS is None:
            from .plugins import LANGUAGES_GROUP, entry_points, load

            found: dict[str, LanguageSpec] = {}
            for name, point in entry_points(LANGUAGES_GROUP).items():
                try:
                    spec = load(point)
                except ImportError as error:
                    warnings.warn(f"language plugin left out: {error}", RuntimeWarning,
                                  stacklevel=2)
                    continue
                if not isinstance(spec, LanguageSpec):
                    warnings.warn(f"language plugin {name} = {point.value} left out: it names a "
                                  f"{type(spec).__name__}, not a cgm_metrics.LanguageSpec.",
                                  RuntimeWarning, stacklevel=2)
                    continue
                problem = None
                if spec.name in LANGUAGES or spec.name in ALIASES:
                    problem = f"{spec.name!r} is a built-in language"
                elif spec.name in found:
                    problem = f"{spec.name!r} is declared by another entry point"
                if problem:
                    warnings.warn(f"language plugin {name} = {point.value} left out: {problem}.",
                                  RuntimeWarning, stacklevel=2)
                    continue
                found[spec.name] = spec
            _PLUGINS = found
        return _PLUGINS


def supported_languages() -> list[str]:
    """The canonical names of every usable language, sorted: the built-in ones and those
    of installed plugins (``cgm_metrics.languages()``)."""
    return sorted({*LANGUAGES, *plugin_languages()})


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
    if key in LANGUAGES:
        return LANGUAGES[key]
    plugins = plugin_languages()
    if key not in plugins:
        raise ValueError(
            f"Unknown language {lang!r} for `{argument}`."
            f"{did_you_mean(key, [*supported_languages(), *ALIASES])} Supported: "
            f"{', '.join(supported_languages())} (aliases: {', '.join(sorted(ALIASES))})."
        )
    return plugins[key]
