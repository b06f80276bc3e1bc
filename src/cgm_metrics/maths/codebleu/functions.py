"""``calc_codebleu`` (the codebleu package's call) and ``compute_codebleu`` (predictions first),
both the result of :class:`~.metric.CodeBleuMetric` (``Metric.compute``) in their own keys.

Neither imports numpy: a first call in a fresh process costs the import of the grammar and
the engine only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from .options import codebleu_language, read_keywords
from .score import COMPONENTS

if TYPE_CHECKING:
    from pathlib import Path


def _package_keys(result: dict[str, Any]) -> dict[str, Any]:
    """``Metric.compute``'s result in the package's five keys (and per-item ``scores``)."""
    out: dict[str, Any] = {"codebleu": result["score"]}
    out.update({key: result[key] for key in COMPONENTS})
    if "per_item" in result:
        out["scores"] = result["per_item"]
    return out


def calc_codebleu(
    references: Any,
    predictions: Any,
    lang: str,
    weights: Sequence[float] = (0.25, 0.25, 0.25, 0.25),
    tokenizer: Callable[[str], list[str]] | None = None,
    keywords_dir: str | Path | None = None,
) -> dict[str, float]:
    """The `codebleu` package's ``calc_codebleu``: same signature and positional order
    (references first), same numbers, same five keys.

    ``references``: a string or a list of strings per item; ``predictions``: one string per
    item; ``lang``: required, one of the package's ten languages or another language with a
    CodeBLEU part (``codebleu_languages()``, ``cgm modules --languages``), or an alias;
    ``weights``: alpha, beta, gamma, theta; ``tokenizer``: a callable
    str -> list of str for the two n-gram components (None: whitespace, as in the package);
    ``keywords_dir``: a folder with ``<lang>.txt`` (one keyword a line) replacing the
    package's keyword list (None: the package's own list, which this library ships).
    Inputs are validated with clear errors where the package asserts or fails deep inside.
    For the library's keyword-first API with more options, see :func:`compute_codebleu`.
    """
    from .metric import CodeBleuMetric

    spec = codebleu_language(lang)
    keywords = None if keywords_dir is None else read_keywords(keywords_dir, spec.name)
    metric = CodeBleuMetric(spec.name, weights, tokenizer=tokenizer, keywords=keywords)
    return _package_keys(metric.compute(predictions, references))


def compute_codebleu(
    predictions: Any,
    references: Any,
    lang: object = None,
    *,
    weights: Sequence[float] = (0.25, 0.25, 0.25, 0.25),
    tokenizer: Callable[[str], list[str]] | None = None,
    dataflow: str = "package",
    return_per_sample: bool = False,
    set_order: str = "package",
) -> dict[str, Any]:
    """Corpus CodeBLEU, predictions first (the evaluate module's order): the package's five
    keys, plus per-item ``scores`` with ``return_per_sample``. ``lang`` is required (a
    ``ValueError`` lists the languages); the other options are keyword-only."""
    from .metric import CodeBleuMetric

    metric = CodeBleuMetric(lang, weights, dataflow, set_order, tokenizer)
    return _package_keys(metric.compute(predictions, references, per_item=return_per_sample))
