"""The tiny shared parsing core: languages, parsing, comment stripping, tokenizers."""

from .inputs import check_inputs, check_predictions, check_references
from .languages import ALIASES, LANGUAGES, LanguageSpec, resolve_language, supported_languages
from .parsing import ParsedCode, leaves, parse, walk
from .text import normalize_identifiers, strip_comments
from .tokenizers import code_tokens, leaf_tokens, tranx_tokenize, whitespace_tokens

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
