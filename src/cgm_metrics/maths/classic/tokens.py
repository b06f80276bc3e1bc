"""Token lists for ROUGE-L and METEOR: the study's code tokens, or plain whitespace."""

from __future__ import annotations

from collections.abc import Callable

from ...core.tokenizers import code_tokens, whitespace_tokens

#: ``tokenize`` option of rouge_l and meteor -> function from text to tokens.
TOKEN_LISTS: dict[str, Callable[[str], list[str]]] = {
    "code": code_tokens,  # TranX tokens, as Out of the BLEU computed them
    "whitespace": whitespace_tokens,
}


def token_function(tokenize: object, metric: str) -> Callable[[str], list[str]]:
    """The tokenizer named ``tokenize``, or a ``ValueError`` listing the choices."""
    if not isinstance(tokenize, str) or tokenize not in TOKEN_LISTS:
        raise ValueError(
            f"Unknown `tokenize` {tokenize!r} for {metric}; choose one of "
            f"{', '.join(repr(name) for name in TOKEN_LISTS)} (default 'code', the TranX "
            "code tokenizer of Out of the BLEU)."
        )
    return TOKEN_LISTS[tokenize]
