"""The tiny shared parsing core: languages, parsing, comment stripping, tokenizers.

The names below are imported on first use, so importing one submodule (e.g. ``languages``
for a first CodeBLEU call) does not import the others.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .inputs import check_inputs, check_predictions, check_references
    from .languages import ALIASES, LANGUAGES, LanguageSpec, resolve_language, supported_languages
    from .parsing import ParsedCode, leaves, parse, walk
    from .text import normalize_identifiers, strip_comments
    from .tokenizers import code_tokens, leaf_tokens, tranx_tokenize, whitespace_tokens

_HOMES = {
    **dict.fromkeys(("check_inputs", "check_predictions", "check_references"), "inputs"),
    **dict.fromkeys(("ALIASES", "LANGUAGES", "LanguageSpec", "resolve_language",
                     "supported_languages"), "languages"),
    **dict.fromkeys(("ParsedCode", "leaves", "parse", "walk"), "parsing"),
    **dict.fromkeys(("normalize_identifiers", "strip_comments"), "text"),
    **dict.fromkeys(("code_tokens", "leaf_tokens", "tranx_tokenize", "whitespace_tokens"),
                    "tokenizers"),
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)


__all__ = [
    "ALIASES",
    "LANGUAGES",
    "LanguageSpec",
    "ParsedCode",
    "check_inputs",
    "check_predictions",
    "check_references",
    "code_tokens",
    "leaf_tokens",
    "leaves",
    "normalize_identifiers",
    "parse",
    "resolve_language",
    "strip_comments",
    "supported_languages",
    "tranx_tokenize",
    "walk",
    "whitespace_tokens",
]
