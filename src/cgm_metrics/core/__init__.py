"""The tiny shared parsing core: languages, parsing, comment stripping, tokenizers, input
checks. Names are imported on first use, so the language table alone does not load numpy or
tree-sitter."""

from __future__ import annotations

import importlib
from typing import Any

_WHERE = {
    "check_inputs": "inputs", "check_predictions": "inputs", "check_references": "inputs",
    "ALIASES": "languages", "LANGUAGES": "languages", "LanguageSpec": "languages",
    "resolve_language": "languages", "supported_languages": "languages",
    "ParsedCode": "parsing", "leaves": "parsing", "parse": "parsing", "walk": "parsing",
    "normalize_identifiers": "text", "strip_comments": "text",
    "code_tokens": "tokenizers", "leaf_tokens": "tokenizers", "tranx_tokenize": "tokenizers",
    "whitespace_tokens": "tokenizers",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
