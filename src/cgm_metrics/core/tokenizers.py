"""Tokenizers shared by the metrics."""

from __future__ import annotations

import re

from ..languages.parts import LanguageSpec
from .parsing import ParsedCode, leaves, parse

_NON_WORD = re.compile(r"([^A-Za-z0-9_])")
_CAMEL = re.compile(r"([a-z])([A-Z])")
_SPACES = re.compile(r"\s+")
# One token: a run of word characters or a single other non-space character.
_TOKEN = re.compile(r"[A-Za-z0-9_]+|[^A-Za-z0-9_\s]")


def whitespace_tokens(code: str) -> list[str]:
    """``code.split()``: the tokenizer of CodeXGLUE's CodeBLEU."""
    return code.split()


def tranx_tokenize(code: str) -> str:
    """The TranX / Out of the BLEU code tokenizer, returning space-joined tokens.

    Every non-word character becomes its own token, camelCase is split, whitespace runs
    collapse, and quotes become backticks (the order of the study's four steps).
    """
    code = _NON_WORD.sub(r" \1 ", code)
    code = _CAMEL.sub(r"\1 \2", code)
    code = _SPACES.sub(" ", code)
    return code.replace('"', "`").replace("'", "`")


def code_tokens(code: str) -> list[str]:
    """The TranX / Out of the BLEU code tokens of ``code`` as a list.

    Equal to ``tranx_tokenize(code).split()`` in one regex pass: a camelCase boundary always
    lies inside a run of word characters, and quotes are single characters either way.
    """
    code = code.replace('"', "`").replace("'", "`")
    return _TOKEN.findall(_CAMEL.sub(r"\1 \2", code))


def leaf_tokens(
    code: str | ParsedCode,
    lang: str | LanguageSpec | None = None,
    keep_comments: bool = False,
) -> list[str]:
    """The texts of the tree-sitter leaves, string literals kept whole, comments dropped."""
    if isinstance(code, ParsedCode):
        parsed = code
    else:
        if lang is None:
            raise ValueError("`lang` is required for tree-sitter tokens; pass e.g. lang='python'.")
        parsed = parse(code, lang)
    spec = parsed.language
    tokens = []
    for node in leaves(parsed.root, spec.string_types | spec.comment_types):
        if not keep_comments and node.type in spec.comment_types:
            continue
        tokens.append(parsed.node_text(node))
    return tokens
