"""The languages: one module per language, holding all that is known of it.

Each module of this package (``python.py``, ``java.py``, ...) defines ``LANGUAGE``, a
:class:`Language`: its names (canonical name, display name, aliases, MultiPL-E's keys, file
extensions) and its parts (:mod:`.parts`): ``parsing`` (tree-sitter grammar, node types),
``codebleu`` (keywords, dataflow rules, comment style), ``tsed`` (TSED's grammar), ``pdg``
(RUBY's graph rules), ``execution`` (toolchain, steps, verdict rules, default timeout,
canary), ``extraction`` (how a chat answer's code is found and assembled) and ``cost`` (the
Space's measured rates). Every table an engine reads (CodeBLEU's
keywords and rules, TSED's grammars, RUBY's graph languages, the execution languages, the
Space's rates) is built from these modules, and :func:`resolve` is the one resolver: ``lang``
means the same language to every metric and to execution.

Another package adds a language with an entry point of the group ``cgm_metrics.languages``
naming a module of the same kind (or its ``Language``)::

    [project.entry-points."cgm_metrics.languages"]
    zig = "my_package.zig"          # my_package/zig.py defines LANGUAGE = Language(...)

Plugin languages are read on first need (a name not built in, or the full list), never on
import. A bare :class:`~.parts.LanguageSpec` is still taken (a language for parsing only).

:func:`names` lists every usable language (``cgm_metrics.languages.names()``).
"""

import _thread
import types
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ..base.errors import UnsupportedLanguageError, did_you_mean
from .parts import (
    CodeBleuPart,
    CommentStyle,
    DataflowRules,
    ExecutionPart,
    ExtractionPart,
    LanguageSpec,
    PdgSpec,
    TsedPart,
)

if TYPE_CHECKING:  # checked as the named tuple it behaves as
    from typing import NamedTuple as Record
else:
    from ._record import Record

#: The parts a language may have, and what each one serves.
PARTS: dict[str, str] = {
    "parsing": "parsing (every tree-sitter metric)",
    "codebleu": "CodeBLEU",
    "tsed": "TSED",
    "pdg": "RUBY's graph level",
    "execution": "execution (code_eval, pass@k, EDIT-SIM)",
    "extraction": "chat-answer extraction (--extract)",
}
_HOW_TO_ADD = {
    "parsing": "a `parsing=LanguageSpec(...)` naming its tree-sitter grammar wheel",
    "codebleu": "a `codebleu=CodeBleuPart(keywords, DataflowRules(...))`",
    "tsed": "a `tsed=TsedPart()` (its own grammar) or `TsedPart(pack=...)`",
    "pdg": "a `pdg=PdgSpec(...)`",
    "execution": "an `execution=ExecutionPart(tools, source, commands, ...)` with its tools' "
    "Debian packages, steps, verdict rule, default timeout and canary",
    "extraction": "an `extraction=ExtractionPart(tags, definition, code_start, no_code, ...)` "
    "with its fence tags, definition pattern and the rules that assemble a whole solution",
}
_TYPES = {
    "parsing": LanguageSpec,
    "codebleu": CodeBleuPart,
    "tsed": TsedPart,
    "pdg": PdgSpec,
    "execution": ExecutionPart,
    "extraction": ExtractionPart,
}


class Language(Record):
    """All that is known of one programming language (see the module's documentation)."""

    name: str
    display_name: str
    parsing: "LanguageSpec | None" = None
    aliases: tuple[str, ...] = ()
    multipl_e: tuple[str, ...] = ()  # MultiPL-E's keys (problem files' `language` field)
    code_contests: tuple[int, ...] = ()  # CodeContests' ids of its solutions' language
    extensions: tuple[str, ...] = ()  # file name endings, with the dot
    codebleu: "CodeBleuPart | None" = None
    tsed: "TsedPart | None" = None
    pdg: "PdgSpec | None" = None
    execution: "ExecutionPart | None" = None
    extraction: "ExtractionPart | None" = None  # chat answers' code (needs ``execution``)
    cost: Mapping[str, float] = {}  # metric -> CPU seconds per 1,000 characters of real code
    # the language's own parser, where published pipelines use it beside the grammar (RUBY's
    # reads code as parsable only when it accepts it): code -> bool
    accepts: "Callable[[str], bool] | None" = None
    pygments: str = ""  # Pygments' lexer name where it is not ``name`` (CrystalBLEU's tokens)
    # the Space's side-by-side examples: (reference, candidate A, candidate B, candidate C or "")
    examples: tuple[tuple[str, str, str, str], ...] = ()
    module: str = ""  # where it is defined (set by the loader)

    def has(self, part: str) -> bool:
        return getattr(self, part) is not None

    @property
    def names(self) -> tuple[str, ...]:
        """Every name it answers to: its own, its aliases and MultiPL-E's keys."""
        return tuple(dict.fromkeys((self.name, *self.aliases, *self.multipl_e)))


def check(language: Any, origin: str) -> Language:
    """``language`` checked (names, part types), with ``module`` set to ``origin``."""
    if isinstance(language, LanguageSpec):  # a language for parsing only
        language = Language(language.name, language.name, parsing=language)
    if not isinstance(language, Language):
        raise TypeError(
            f"{origin}: `LANGUAGE` must be a cgm_metrics.languages.Language, got "
            f"{type(language).__name__}."
        )
    name = language.name
    if not isinstance(name, str) or not name or name != name.strip().lower():
        raise ValueError(
            f"{origin}: a language's `name` must be lower case, e.g. 'perl'; got {name!r}."
        )
    for part, kind in _TYPES.items():
        value = getattr(language, part)
        if value is not None and not isinstance(value, kind):
            raise TypeError(
                f"{origin}: `{part}` of {name!r} must be a {kind.__name__} or None, "
                f"got {type(value).__name__}."
            )
    if language.parsing is not None and language.parsing.name != name:
        raise ValueError(
            f"{origin}: the parsing part of {name!r} is named {language.parsing.name!r}."
        )
    if (
        language.codebleu is not None
        and not isinstance(language.codebleu.comment_style, CommentStyle)
        and (language.codebleu.comment_style not in ("tokenize", "none"))
    ):
        raise ValueError(
            f"{origin}: CodeBLEU's `comment_style` of {name!r} must be a "
            "CommentStyle, 'tokenize' or 'none'."
        )
    if language.codebleu is not None and not isinstance(language.codebleu.rules, DataflowRules):
        raise TypeError(f"{origin}: CodeBLEU's `rules` of {name!r} must be DataflowRules.")
    if language.extraction is not None and language.execution is None:
        raise ValueError(
            f"{origin}: the `extraction` part of {name!r} needs an `execution` part: the "
            "program it assembles from a chat answer runs."
        )
    for key in ("aliases", "multipl_e", "extensions"):
        values = getattr(language, key)
        if isinstance(values, str) or not all(isinstance(x, str) for x in values):
            raise TypeError(f"{origin}: `{key}` of {name!r} must be a tuple of strings.")
    aliases = tuple(x.strip().lower() for x in language.aliases)
    keys = tuple(x.strip().lower() for x in language.multipl_e)
    return language._replace(
        aliases=aliases, multipl_e=keys, cost=dict(language.cost), module=origin
    )


def _module_language(module: types.ModuleType) -> Language:
    if not hasattr(module, "LANGUAGE"):
        raise TypeError(f"the language module {module.__name__} defines no `LANGUAGE`.")
    return check(module.LANGUAGE, module.__name__)


_LOCK = _thread.RLock()  # threading's RLock, without importing threading
_BUILTIN: dict[str, Language] | None = None
_PLUGINS: dict[str, Language] | None = None
_ALIASES: dict[str, str] = {}
_MODULES: list[str] | None = None  # the package's language modules, by module name
_LOADED: dict[str, Language] = {}  # the built-in languages loaded so far, by module name


def _module_names() -> list[str]:
    """The names of this package's language modules, sorted, found without importing them
    (a folder listing: ``pkgutil`` would import ``inspect`` and ``ast``, a tenth of a first
    CodeBLEU call)."""
    global _MODULES
    if _MODULES is None:
        import os

        found: set[str] = set()
        for folder in __path__:
            if not os.path.isdir(folder):  # a zipped install: pkgutil knows its importers
                import pkgutil

                found |= {info.name for info in pkgutil.iter_modules([folder])}
                continue
            for entry in os.listdir(folder):
                stem, dot, extension = entry.partition(".")
                if (dot and extension == "py") or (
                    not dot and os.path.isfile(os.path.join(folder, entry, "__init__.py"))
                ):
                    found.add(stem)
        _MODULES = sorted(
            name for name in found
            if name.isidentifier() and not name.startswith("_") and name != "parts"
        )
    return _MODULES


def _builtin_module(module_name: str) -> Language:
    """The language of one module of this package, loaded and checked once."""
    language = _LOADED.get(module_name)
    if language is None:
        import importlib

        language = _module_language(importlib.import_module(f"{__name__}.{module_name}"))
        _LOADED[module_name] = language
    return language


def builtin() -> dict[str, Language]:
    """The languages of this package's modules, by name, sorted."""
    global _BUILTIN
    with _LOCK:
        if _BUILTIN is None:
            found: dict[str, Language] = {}
            for module_name in _module_names():
                language = _builtin_module(module_name)
                found[language.name] = language
            aliases: dict[str, str] = {}
            for language in found.values():
                for alias in language.names[1:]:
                    if alias in found and alias != language.name:
                        continue  # a language's own name wins over another's alias
                    aliases.setdefault(alias, language.name)
            _ALIASES.update(aliases)
            _BUILTIN = found
        return _BUILTIN


def _named_module(key: str) -> Language | None:
    """The built-in language whose own name is ``key`` when its module has that name, loaded
    alone (the others wait until a listing or an alias needs them): a language's own name
    wins over every alias, so this is what :func:`find` would answer."""
    with _LOCK:
        if key not in _module_names():
            return None
        language = _builtin_module(key)
        return language if language.name == key else None


def plugins() -> dict[str, Language]:
    """The languages of installed packages (entry points ``cgm_metrics.languages``), read
    once. An entry point that fails to load, names no language, or reuses a built-in name
    or alias is left out with a warning saying why."""
    global _PLUGINS
    with _LOCK:
        if _PLUGINS is None:
            from ..base.plugins import LANGUAGES_GROUP, entry_points, load

            known = builtin()
            found: dict[str, Language] = {}
            for name, point in entry_points(LANGUAGES_GROUP).items():
                try:
                    loaded = load(point)
                    language = (
                        _module_language(loaded)
                        if isinstance(loaded, types.ModuleType)
                        else check(loaded, point.value)
                    )
                except ImportError as error:
                    warnings.warn(
                        f"language plugin left out: {error}", RuntimeWarning, stacklevel=2
                    )
                    continue
                except (TypeError, ValueError) as error:
                    warnings.warn(
                        f"language plugin {name} = {point.value} left out: {error}",
                        RuntimeWarning,
                        stacklevel=2,
                    )
                    continue
                problem = None
                if language.name in known or language.name in _ALIASES:
                    problem = f"{language.name!r} is a built-in language"
                elif language.name in found:
                    problem = f"{language.name!r} is declared by another entry point"
                if problem:
                    warnings.warn(
                        f"language plugin {name} = {point.value} left out: {problem}.",
                        RuntimeWarning,
                        stacklevel=2,
                    )
                    continue
                found[language.name] = language
            _PLUGINS = found
        return _PLUGINS


def all_languages() -> dict[str, Language]:
    """Every usable language by name, sorted: the built-in ones and those of plugins."""
    return dict(sorted({**builtin(), **plugins()}.items()))


def names(part: str | None = None) -> list[str]:
    """The canonical names of every usable language, sorted; with ``part``, of those that
    have it (``"codebleu"``, ``"execution"``, ...)."""
    return [
        name for name, language in all_languages().items() if part is None or language.has(part)
    ]


def builtin_names(part: str | None = None) -> tuple[str, ...]:
    """As :func:`names`, for the built-in languages only (no plugin is read)."""
    return tuple(name for name, language in builtin().items() if part is None or language.has(part))


def aliases() -> dict[str, str]:
    """Every alias (MultiPL-E's keys included) -> its language's name."""
    builtin()
    found = dict(_ALIASES)
    for language in plugins().values():
        for alias in language.names[1:]:
            found.setdefault(alias, language.name)
    return dict(sorted(found.items()))


def find(lang: str) -> Language | None:
    """The language named ``lang`` (a name or alias, any case), or None."""
    key = lang.strip().lower()
    if _BUILTIN is None and (language := _named_module(key)) is not None:
        return language  # one module imported, not every language's
    known = builtin()
    key = _ALIASES.get(key, key)
    if key in known:
        return known[key]
    extra = plugins()
    if key in extra:
        return extra[key]
    for language in extra.values():
        if key in language.names:
            return language
    return None


def resolve(
    lang: object, argument: str = "lang", part: str | None = "parsing", user: str = ""
) -> Language:
    """The one resolver: the :class:`Language` ``lang`` names (a name or alias, any case;
    MultiPL-E's keys included; a one-element list as evaluate modules pass it).

    With ``part``, the language must have it: a language that can be parsed but not run (or
    the reverse) says which part it lacks and how to add it. Raises
    :class:`~cgm_metrics.base.errors.UnsupportedLanguageError` (a ``ValueError``); ``user`` names
    the metric or engine asking, for the message.
    """
    if isinstance(lang, (list, tuple)) and len(lang) == 1:
        lang = lang[0]
    if not isinstance(lang, str):
        covered = names(part)
        raise TypeError(
            f"`{argument}` must be a language name such as {_example(covered)!r}, got "
            f"{type(lang).__name__}. Supported: {', '.join(covered)}."
        )
    language = find(lang)
    who = f" of {user}" if user else ""
    if language is None:
        covered = names(part)
        raise UnsupportedLanguageError(
            f"Unknown language {lang!r} for `{argument}`{who}."
            f"{did_you_mean(lang, [*names(), *aliases()])} Supported: "
            f"{', '.join(covered)} (aliases: {', '.join(aliases())}); `cgm modules --languages`"
            " lists them."
        )
    if part is not None and not language.has(part):
        covered = names(part)
        raise UnsupportedLanguageError(
            f"{language.display_name} ({language.name!r}, `{argument}`) has no {PARTS[part]} "
            f"part: its module {language.module} defines no `{part}`. Supported: "
            f"{', '.join(covered)}. To add it, give {language.module} "
            f"{_HOW_TO_ADD[part]} (ARCHITECTURE.md, 'A new language')."
        )
    return language


def _example(covered: list[str]) -> str:
    return DEFAULT_LANGUAGE if DEFAULT_LANGUAGE in covered else (covered[0] if covered else "")


#: The language of a metric's ``lang`` when none is given (where a default makes sense).
DEFAULT_LANGUAGE = "python"


class covering:  # noqa: N801 - used as a class attribute, like a property
    """A metric class's ``languages``: the names of the languages with ``part``, read when
    asked (so plugin languages count, and nothing is read on import)."""

    def __init__(self, part: str) -> None:
        self.part = part

    def __get__(self, instance: object, owner: type | None = None) -> tuple[str, ...]:
        return tuple(names(self.part))


def extensions() -> dict[str, str]:
    """Every file extension of the languages' modules (``.py``, ``.pl``...) -> the language's
    name (the first language that claims it)."""
    found: dict[str, str] = {}
    for language in all_languages().values():
        for extension in language.extensions:
            found.setdefault(extension.lower(), language.name)
    return found


def language_from_paths(paths: Iterable[str]) -> str | None:
    """The language every path's extension names (``None`` when none names one or two
    disagree): ``refs.py`` and ``out.py`` are Python; ``refs.txt`` says nothing."""
    import os.path

    known = extensions()
    named = {known.get(os.path.splitext(str(path))[1].lower()) for path in paths}
    named.discard(None)
    return named.pop() if len(named) == 1 else None


def describe(part: str | None = None) -> list[dict[str, Any]]:
    """Per language: its names and the parts it has (for listings)."""
    return [
        {
            "name": language.name,
            "display_name": language.display_name,
            "aliases": list(language.names[1:]),
            "extensions": list(language.extensions),
            "parts": [key for key in PARTS if language.has(key)],
            "module": language.module,
        }
        for language in all_languages().values()
        if part is None or language.has(part)
    ]


def _reset_plugins() -> None:
    """Forget the plugins read (tests installing a package in the running process)."""
    global _PLUGINS
    with _LOCK:
        _PLUGINS = None


def resolve_language(lang: object, argument: str = "lang") -> LanguageSpec:
    """The parsing part (:class:`~.parts.LanguageSpec`) of the language ``lang`` names:
    :func:`resolve` asking for ``part="parsing"``, for the generic walkers (parsing,
    tokenizers, comment stripping) and every tree metric."""
    spec = resolve(lang, argument, part="parsing").parsing
    assert spec is not None  # resolve checked the part
    return spec


def iter_parts(part: str, languages: Iterable[Language] | None = None) -> dict[str, Any]:
    """``{name: part}`` of the languages that have ``part`` (all usable ones by default)."""
    chosen = all_languages().values() if languages is None else languages
    return {language.name: getattr(language, part) for language in chosen if language.has(part)}


__all__ = [
    "DEFAULT_LANGUAGE",
    "PARTS",
    "Language",
    "aliases",
    "all_languages",
    "builtin",
    "builtin_names",
    "covering",
    "describe",
    "extensions",
    "find",
    "language_from_paths",
    "iter_parts",
    "names",
    "plugins",
    "resolve",
    "resolve_language",
]
