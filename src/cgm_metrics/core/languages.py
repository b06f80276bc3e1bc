"""The parsing view of the languages (:mod:`cgm_metrics.languages`, one module per language):
the :class:`LanguageSpec` of every language that can be parsed, and :func:`resolve_language`,
the one resolver (:func:`cgm_metrics.languages.resolve`) asking for the parsing part.

Every generic walker (parsing, tokenizers, comment stripping, identifier normalisation) reads
a language's node types from its :class:`LanguageSpec`; nothing here names a language.
"""

from typing import Any

from ..languages.parts import LanguageSpec


def plugin_languages() -> dict[str, LanguageSpec]:
    """The parsing part of the languages of installed packages (entry points
    ``cgm_metrics.languages``), read once."""
    from .. import languages

    return {name: language.parsing for name, language in languages.plugins().items()
            if language.parsing is not None}


def supported_languages() -> list[str]:
    """The canonical names of every language that can be parsed, sorted: the built-in ones
    and those of installed plugins (``cgm_metrics.languages()``)."""
    from .. import languages

    return languages.names("parsing")


def resolve_language(lang: object, argument: str = "lang") -> LanguageSpec:
    """The :class:`LanguageSpec` of ``lang`` (a name or alias, case-insensitive; a
    one-element list as evaluate modules pass it). An unknown name, or a language without a
    grammar, raises :class:`~cgm_metrics.errors.UnsupportedLanguageError` (a ``ValueError``)
    listing the supported languages."""
    from .. import languages

    spec = languages.resolve(lang, argument, part="parsing").parsing
    assert spec is not None  # resolve checked the part
    return spec


def __getattr__(name: str) -> Any:
    # LANGUAGES and ALIASES of the built-in languages, built on first use
    from .. import languages

    if name == "LANGUAGES":
        return {key: language.parsing for key, language in languages.builtin().items()
                if language.parsing is not None}
    if name == "ALIASES":
        languages.builtin()
        return {alias: key for alias, key in languages.aliases().items()
                if alias not in languages.builtin()}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def language_from_paths(paths: Any) -> str | None:
    """The language every path's extension names (:func:`cgm_metrics.languages.
    language_from_paths`), or None."""
    from .. import languages

    return languages.language_from_paths(paths)


__all__ = ["LanguageSpec", "language_from_paths", "plugin_languages", "resolve_language",
           "supported_languages"]
