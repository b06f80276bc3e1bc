"""CodeBLEU's options, checked once: the language, weights, dataflow mode, set order, tokenizer
and keywords. Imports no numpy, so a first ``calc_codebleu`` call stays quick."""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ...base.errors import UnsupportedLanguageError
from ...languages import DEFAULT_LANGUAGE, Language, names, resolve
from ...languages.parts import LanguageSpec
from .tables import DataflowRules, comment_style_name

DATAFLOW_MODES = ("package", "zero", "renormalize")
SET_ORDERS = ("package", "source")
OUT_OF_THE_BLEU_WEIGHTS = (0.1, 0.1, 0.4, 0.4)


def codebleu_languages() -> list[str]:
    """The languages with a CodeBLEU part (their modules' ``codebleu``), sorted: the
    package's ten, and the others of :mod:`cgm_metrics.languages`, plugins included."""
    return names("codebleu")


def codebleu_language(lang: object) -> LanguageSpec:
    """The parsing row of ``lang`` if CodeBLEU has it (:func:`codebleu_language_of`)."""
    spec = codebleu_language_of(lang).parsing
    assert spec is not None
    return spec


def codebleu_language_of(lang: object) -> Language:
    """The language ``lang`` names if CodeBLEU has it.

    ``lang`` is a name or alias, or a list of one name repeated (the k4black/codebleu evaluate
    module takes a list and reads its first element; a list naming several languages is an
    error here, not silently its first one).
    """
    if lang is None:
        raise ValueError(
            "CodeBLEU needs `lang`, as the codebleu package does: one of "
            f"{', '.join(codebleu_languages())}; e.g. lang={DEFAULT_LANGUAGE!r}."
        )
    if isinstance(lang, (list, tuple)) and lang and all(isinstance(x, str) for x in lang):
        if len({x.strip().lower() for x in lang}) > 1:
            raise ValueError(
                f"CodeBLEU scores one language per call; `lang` names several: {sorted(set(lang))}."
                " Score each language separately."
            )
        lang = lang[0]
    try:
        return resolve(lang, part="codebleu", user="CodeBLEU")
    except UnsupportedLanguageError as error:
        if str(error).startswith("Unknown language"):  # name CodeBLEU's, not every metric's
            raise UnsupportedLanguageError(
                f"CodeBLEU does not know lang={lang!r}. Supported languages: "
                f"{', '.join(codebleu_languages())} (or an alias such as js, kt, sh)."
            ) from None
        raise


def check_weights(weights: object) -> tuple[float, float, float, float]:
    if isinstance(weights, str) or not isinstance(weights, Sequence) or len(weights) != 4:
        raise ValueError(
            "`weights` must be four numbers (ngram, weighted ngram, syntax, dataflow), e.g. "
            f"(0.25, 0.25, 0.25, 0.25) or (0.1, 0.1, 0.4, 0.4); got {weights!r}."
        )
    try:
        values = tuple(float(w) for w in weights)
    except (TypeError, ValueError):
        raise TypeError(f"`weights` must be numbers, got {weights!r}.") from None
    if any(not math.isfinite(w) or w < 0 for w in values):
        raise ValueError(f"`weights` must be finite and non-negative, got {weights!r}.")
    return values  # type: ignore[return-value]


def check_tokenizer(tokenizer: object) -> Callable[[str], list[str]]:
    """``str.split`` for None (the package's default), else ``tokenizer`` with its output
    checked: the package feeds it to n-gram counting, which needs a list of str tokens."""
    if tokenizer is None:
        return str.split
    if not callable(tokenizer):
        raise TypeError(
            "`tokenizer` must be a callable taking a string and returning a list of str tokens "
            f"(as in the codebleu package), or None for whitespace tokens; got "
            f"{type(tokenizer).__name__}."
        )

    def tokenize(text: str) -> list[str]:
        tokens = tokenizer(text)
        if isinstance(tokens, (list, tuple)) and all(isinstance(t, str) for t in tokens):
            return list(tokens)
        kind = type(tokens).__name__
        if isinstance(tokens, (list, tuple)):
            kind = f"a {kind} holding {type(next(t for t in tokens if not isinstance(t, str))).__name__}"
        raise TypeError(
            f"`tokenizer` must return a list of str tokens, but it returned {kind}. Pass a "
            "function str -> list[str], e.g. a HuggingFace tokenizer's `.tokenize` method "
            "rather than the tokenizer object or `.encode`."
        )

    return tokenize


def callable_name(function: object) -> str:
    module = getattr(function, "__module__", None) or ""
    name = getattr(function, "__qualname__", None) or type(function).__qualname__
    return f"{module}.{name}" if module and module != "builtins" else name


def check_keywords(keywords: object) -> frozenset[str]:
    if isinstance(keywords, str) or not isinstance(keywords, Iterable):
        raise TypeError(f"`keywords` must be a list of str, got {type(keywords).__name__}.")
    words = list(keywords)
    if not all(isinstance(word, str) for word in words):
        raise TypeError("`keywords` must hold strings only.")
    return frozenset(words)


def read_keywords(keywords_dir: object, lang: str) -> list[str]:
    """The keywords of ``lang`` from ``<keywords_dir>/<lang>.txt``, one a line, read as the
    package reads its ``codebleu/keywords`` folder (each line stripped)."""
    if not isinstance(keywords_dir, (str, os.PathLike)):
        raise TypeError(
            f"`keywords_dir` must be a folder path (str or pathlib.Path), got "
            f"{type(keywords_dir).__name__}; None uses the package's keyword lists."
        )
    path = os.path.join(os.fspath(keywords_dir), f"{lang}.txt")
    if not os.path.isfile(path):
        raise ValueError(
            f"`keywords_dir` has no {lang}.txt ({path} not found): it must hold one file "
            "<lang>.txt per language with one keyword a line, like the codebleu package's "
            "codebleu/keywords folder; None uses the package's lists."
        )
    with open(path, encoding="utf-8") as handle:
        return [line.strip() for line in handle.readlines()]


class CodeBleuOptions:
    """One CodeBLEU configuration, validated: what the statistics engines and the score read.

    ``options`` holds what the metric's signature records (language, weights, dataflow, set
    order, and a custom tokenizer or keyword list when given).
    """

    def __init__(
        self,
        lang: object,
        weights: object = (0.25, 0.25, 0.25, 0.25),
        dataflow: object = "package",
        set_order: object = "package",
        tokenizer: Callable[[str], list[str]] | None = None,
        keywords: Iterable[str] | None = None,
    ) -> None:
        language = codebleu_language_of(lang)
        spec = language.parsing
        part = language.codebleu
        assert spec is not None and part is not None
        if set_order not in SET_ORDERS:
            raise ValueError(f"`set_order` must be 'package' or 'source'; got {set_order!r}.")
        checked_weights = check_weights(weights)
        if dataflow not in DATAFLOW_MODES:
            raise ValueError(
                f"`dataflow` must be one of {', '.join(DATAFLOW_MODES)}; got {dataflow!r}."
            )
        self.spec: LanguageSpec = spec
        self.weights = checked_weights
        self.dataflow: str = dataflow
        self.set_order: str = set_order
        self.tokenize = check_tokenizer(tokenizer)
        self.custom_tokenizer = tokenizer is not None
        self.keywords = frozenset(part.keywords) if keywords is None else check_keywords(keywords)
        self.rules: DataflowRules = part.rules
        self.comment_style: str = comment_style_name(spec.name, part)
        self.options: dict[str, Any] = {
            "lang": spec.name, "weights": checked_weights, "dataflow": dataflow,
            "set_order": set_order,
        }
        if tokenizer is not None:
            self.options["tokenizer"] = callable_name(tokenizer)
        if keywords is not None:
            self.options["keywords"] = f"custom({len(self.keywords)})"
