"""Keyword lists of CodeBLEU's weighted n-gram component: each language module's
``codebleu.keywords`` (:mod:`cgm_metrics.languages`).

A token listed weighs 1 in the weighted unigram match, any other token 0.2. The lists of the
`codebleu` package's ten languages are the ones it ships (same entries, same order), so the
weighted component is identical; the other languages take the keywords of their language
reference, named in their module. Tokens are whitespace-separated words, so purely symbolic
reserved tokens are left out, as the package's lists leave out operators.
"""

from __future__ import annotations


def keywords(lang: str) -> tuple[str, ...]:
    """The keyword list of ``lang`` (a language with a CodeBLEU part)."""
    from ...languages import resolve

    part = resolve(lang, part="codebleu", user="CodeBLEU").codebleu
    assert part is not None
    return part.keywords

