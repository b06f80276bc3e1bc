"""CodeBLEU on sufficient statistics, identical to the `codebleu` package 0.7.0 by default."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..core.languages import LanguageSpec, resolve_language
from ..metric import Metric
from .dataflow import data_flow, match_count, normalize
from .keywords import KEYWORDS
from .ngrams import ngram_rows
from .preprocess import remove_comments
from .tables import RULES
from .tree import flatten, subtree_keys

# the package's ten languages plus TypeScript
CODEBLEU_LANGUAGES = (
    "c", "c_sharp", "cpp", "go", "java", "javascript", "php", "python", "ruby", "rust",
    "typescript",
)  # fmt: skip
DATAFLOW_MODES = ("package", "zero", "renormalize")
OUT_OF_THE_BLEU_WEIGHTS = (0.1, 0.1, 0.4, 0.4)
COMPONENTS = (
    "ngram_match_score",
    "weighted_ngram_match_score",
    "syntax_match_score",
    "dataflow_match_score",
)

# columns of a statistics row
NGRAM_CLIPPED = slice(0, 4)
NGRAM_TOTAL = slice(4, 8)
HYP_LENGTH = 8
REF_LENGTH = 9
WEIGHTED_CLIPPED = slice(10, 14)
WEIGHTED_TOTAL = slice(14, 18)
WEIGHTED_REF_LENGTH = 18
SYNTAX_MATCH, SYNTAX_TOTAL = 19, 20
DATAFLOW_MATCH, DATAFLOW_TOTAL = 21, 22
N_COLUMNS = 23
COLUMN_NAMES = (
    *(f"ngram_clipped_{n}" for n in range(1, 5)), *(f"ngram_total_{n}" for n in range(1, 5)),
    "hyp_len", "ref_len",
    *(f"weighted_clipped_{n}" for n in range(1, 5)),
    *(f"weighted_total_{n}" for n in range(1, 5)),
    "weighted_ref_len", "syntax_match", "syntax_total", "dataflow_match", "dataflow_total",
)
EPSILON = 0.1  # NLTK's smoothing method1


def _comment_style(name: str) -> str:
    return {"python": "python", "ruby": "none"}.get(name, "c")


def codebleu_language(lang: object) -> LanguageSpec:
    """The registry row of ``lang`` if CodeBLEU has it.

    ``lang`` is a name or alias, or a list of one name repeated (the k4black/codebleu evaluate
    module takes a list and reads its first element; a list naming several languages is an
    error here, not silently its first one).
    """
    if lang is None:
        raise ValueError(
            "CodeBLEU needs `lang`, as the codebleu package does: one of "
            f"{', '.join(CODEBLEU_LANGUAGES)}; e.g. lang=\"java\"."
        )
    if isinstance(lang, (list, tuple)) and lang and all(isinstance(x, str) for x in lang):
        if len({x.strip().lower() for x in lang}) > 1:
            raise ValueError(
                f"CodeBLEU scores one language per call; `lang` names several: {sorted(set(lang))}."
                " Score each language separately."
            )
        lang = lang[0]
    spec = resolve_language(lang)
    if spec.name not in CODEBLEU_LANGUAGES:
        raise ValueError(
            f"CodeBLEU does not support lang={spec.name!r}. Supported languages: "
            f"{', '.join(CODEBLEU_LANGUAGES)}."
        )
    return spec


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
    if any(not np.isfinite(w) or w < 0 for w in values):
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


def _callable_name(function: object) -> str:
    module = getattr(function, "__module__", None) or ""
    name = getattr(function, "__qualname__", None) or type(function).__qualname__
    return f"{module}.{name}" if module and module != "builtins" else name


def _check_keywords(keywords: object) -> list[str]:
    if isinstance(keywords, str) or not isinstance(keywords, Iterable):
        raise TypeError(f"`keywords` must be a list of str, got {type(keywords).__name__}.")
    words = list(keywords)
    if not all(isinstance(word, str) for word in words):
        raise TypeError("`keywords` must hold strings only.")
    return words


def read_keywords(keywords_dir: object, lang: str) -> list[str]:
    """The keywords of ``lang`` from ``<keywords_dir>/<lang>.txt``, one a line, read as the
    package reads its ``codebleu/keywords`` folder (each line stripped)."""
    if not isinstance(keywords_dir, (str, Path)):
        raise TypeError(
            f"`keywords_dir` must be a folder path (str or pathlib.Path), got "
            f"{type(keywords_dir).__name__}; None uses the package's keyword lists."
        )
    path = Path(keywords_dir) / f"{lang}.txt"
    if not path.is_file():
        raise ValueError(
            f"`keywords_dir` has no {lang}.txt ({path} not found): it must hold one file "
            "<lang>.txt per language with one keyword a line, like the codebleu package's "
            "codebleu/keywords folder; None uses the package's lists."
        )
    with open(path, encoding="utf-8") as handle:
        return [line.strip() for line in handle.readlines()]


def _bleu_from(clipped: np.ndarray, total: np.ndarray, hyp: np.ndarray, ref: np.ndarray):
    """NLTK corpus BLEU-4 with method1 smoothing from summed statistics (vectorised)."""
    smoothed = np.where(clipped == 0, EPSILON, clipped)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_precision = np.log(smoothed / np.where(total > 0, total, 1)).sum(axis=-1) / 4
        penalty = np.where(
            hyp > ref, 1.0, np.where(hyp == 0, 0.0, np.exp(1 - ref / np.where(hyp > 0, hyp, 1)))
        )
    return np.where(clipped[..., 0] == 0, 0.0, penalty * np.exp(log_precision))


class CodeBleuMetric(Metric):
    """CodeBLEU (Ren et al., 2020) as the `codebleu` package computes it.

    Options: ``lang`` (default "python"), ``weights`` (default 0.25 each; Out of the BLEU uses
    (0.1, 0.1, 0.4, 0.4)) and ``dataflow``: what a dataflow score of 0 means. "package"
    (default): the package's ``score or 1``, so no reference dataflow *and* a genuine 0 both
    count as 1; "zero": the value as it is (0 without reference dataflow); "renormalize": a
    corpus without reference dataflow drops the component and renormalises the other weights
    (Out of the BLEU), a genuine 0 stays 0. ``tokenizer``: the package's, a callable
    str -> list of str for the two n-gram components (default whitespace, ``str.split``);
    ``keywords``: the keywords of the weighted n-gram component (default the package's list
    of ``lang``).
    """

    name = "codebleu"
    display_name = "CodeBLEU"
    description = ("The mean of four parts, 0-1: n-gram match (BLEU), weighted n-gram match "
                   "(keywords count more), syntax match (AST subtrees) and dataflow match "
                   "(variable dependencies). Identical to the codebleu package.")
    languages = CODEBLEU_LANGUAGES
    seconds_per_1k_chars = 0.011  # benchmarks/metric_cost.py, worst case

    def __init__(
        self,
        lang: object = "python",
        weights: Sequence[float] = (0.25, 0.25, 0.25, 0.25),
        dataflow: str = "package",
        set_order: str = "package",
        tokenizer: Callable[[str], list[str]] | None = None,
        keywords: Iterable[str] | None = None,
    ) -> None:
        spec = codebleu_language(lang)
        if set_order not in ("package", "source"):
            raise ValueError(f"`set_order` must be 'package' or 'source'; got {set_order!r}.")
        weights = check_weights(weights)
        if dataflow not in DATAFLOW_MODES:
            raise ValueError(
                f"`dataflow` must be one of {', '.join(DATAFLOW_MODES)}; got {dataflow!r}."
            )
        extra: dict[str, Any] = {}
        if tokenizer is not None:
            extra["tokenizer"] = _callable_name(tokenizer)
        if keywords is not None:
            keywords = frozenset(_check_keywords(keywords))
            extra["keywords"] = f"custom({len(keywords)})"
        super().__init__(
            lang=spec.name, weights=weights, dataflow=dataflow, set_order=set_order, **extra
        )
        self.set_order = set_order
        self.spec = spec
        self.weights = weights
        self.dataflow = dataflow
        self.tokenize = check_tokenizer(tokenizer)
        self.custom_tokenizer = tokenizer is not None
        self.keywords = frozenset(KEYWORDS[spec.name]) if keywords is None else keywords
        self.rules = RULES[spec.name]
        self.comment_style = _comment_style(spec.name)

    # -- statistics ------------------------------------------------------------------------
    def statistics(
        self,
        predictions: list[str],
        references: list[list[str]],
        timings: dict[str, float] | None = None,
    ) -> np.ndarray:
        """One row per item (see the column constants of this module).

        Computed by the compiled kernels (``fast.py``) unless ``CGM_CODEBLEU_ENGINE=python``
        selects the pure-Python reference below; both give the same rows. The kernels split
        tokens on whitespace (the package's default), so a custom ``tokenizer`` (any Python
        callable) is run by the reference path.
        """
        from .fast import compiled_statistics, engine

        if engine() == "compiled" and not self.custom_tokenizer:
            return compiled_statistics(self, predictions, references, timings)
        clock = time.process_time
        spent = {"ngrams": 0.0, "parse": 0.0, "syntax": 0.0, "dataflow": 0.0}
        rows = np.zeros((len(predictions), N_COLUMNS))
        interned: dict = {}
        for item, (prediction, refs) in enumerate(zip(predictions, references, strict=False)):
            start = clock()
            hypothesis = prediction.strip()
            stripped_refs = [ref.strip() for ref in refs]
            hyp_tokens = self.tokenize(hypothesis)
            ref_tokens = [self.tokenize(ref) for ref in stripped_refs]
            row = rows[item]
            row[0:19] = ngram_rows(hyp_tokens, ref_tokens, self.keywords)
            middle = clock()
            spent["ngrams"] += middle - start
            self._structure(hypothesis, stripped_refs, row, interned, spent)
        if timings is not None:
            for key, value in spent.items():
                timings[key] = timings.get(key, 0.0) + value
        return rows

    def _structure(
        self,
        hypothesis: str,
        references: list[str],
        row: np.ndarray,
        interned: dict,
        spent: dict[str, float],
    ) -> None:
        """Syntax and dataflow statistics of one item; each distinct text is parsed once."""
        clock = time.process_time
        style = self.comment_style
        cache: dict[str, tuple] = {}

        def analysed(text: str) -> tuple:
            found = cache.get(text)
            if found is None:
                start = clock()
                tree = flatten(text, self.spec)
                parsed = clock()
                keys = subtree_keys(tree, interned)
                keyed = clock()
                flow = normalize(data_flow(tree, self.rules, self.set_order))
                spent["parse"] += parsed - start
                spent["syntax"] += keyed - parsed
                spent["dataflow"] += clock() - keyed
                found = cache[text] = (keys, None, flow)
            return found

        candidate = hypothesis
        syntax_match = syntax_total = flow_match = flow_total = 0
        for reference in references:
            # the package strips the candidate again for every reference (cumulatively)
            candidate = remove_comments(candidate, style)
            cand_keys, _, cand_flow = analysed(candidate)
            ref_keys, _, ref_flow = analysed(remove_comments(reference, style))
            cand_set = set(cand_keys)
            syntax_match += sum(1 for key in ref_keys if key in cand_set)
            syntax_total += len(ref_keys)
            if ref_flow:
                flow_total += len(ref_flow)
                flow_match += match_count(cand_flow, ref_flow)
        row[SYNTAX_MATCH] = syntax_match
        row[SYNTAX_TOTAL] = syntax_total
        row[DATAFLOW_MATCH] = flow_match
        row[DATAFLOW_TOTAL] = flow_total

    def columns(self) -> tuple[str, ...]:
        return COLUMN_NAMES

    # -- scores ----------------------------------------------------------------------------
    def components_from_statistics(self, stats: np.ndarray) -> dict[str, np.ndarray]:
        stats = np.asarray(stats, dtype=np.float64)
        hyp = stats[..., HYP_LENGTH]
        ngram = _bleu_from(stats[..., NGRAM_CLIPPED], stats[..., NGRAM_TOTAL], hyp,
                           stats[..., REF_LENGTH])
        weighted = _bleu_from(stats[..., WEIGHTED_CLIPPED], stats[..., WEIGHTED_TOTAL], hyp,
                              stats[..., WEIGHTED_REF_LENGTH])
        with np.errstate(divide="ignore", invalid="ignore"):
            syntax_total = stats[..., SYNTAX_TOTAL]
            syntax = np.where(syntax_total > 0,
                              stats[..., SYNTAX_MATCH] / np.where(syntax_total > 0, syntax_total, 1),
                              0.0)
            flow_total = stats[..., DATAFLOW_TOTAL]
            flow = np.where(flow_total > 0,
                            stats[..., DATAFLOW_MATCH] / np.where(flow_total > 0, flow_total, 1),
                            0.0)
        return {
            "ngram_match_score": ngram,
            "weighted_ngram_match_score": weighted,
            "syntax_match_score": syntax,
            "dataflow_match_score": flow,
        }

    def score_from_statistics(self, stats: np.ndarray) -> np.ndarray:
        parts = self.components_from_statistics(stats)
        alpha, beta, gamma, theta = self.weights
        partial = (
            alpha * parts["ngram_match_score"]
            + beta * parts["weighted_ngram_match_score"]
            + gamma * parts["syntax_match_score"]
        )
        flow = parts["dataflow_match_score"]
        if self.dataflow == "package":
            return partial + theta * np.where(flow == 0, 1.0, flow)
        if self.dataflow == "zero":
            return partial + theta * flow
        no_flow = np.asarray(stats, dtype=np.float64)[..., DATAFLOW_TOTAL] == 0
        kept = alpha + beta + gamma
        with np.errstate(divide="ignore", invalid="ignore"):
            dropped = partial / kept if kept > 0 else np.zeros_like(partial)
        return np.where(no_flow, dropped, partial + theta * flow)

    def scores(self, stats: np.ndarray) -> dict[str, Any]:
        """The package's five keys from (summed) statistics."""
        summed = np.asarray(stats, dtype=np.float64)
        result = {"codebleu": float(self.score_from_statistics(summed))}
        result.update(
            {k: float(v) for k, v in self.components_from_statistics(summed).items()}
        )
        return result


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
    item; ``lang``: required, one of the package's ten languages (or typescript, or an alias
    such as "js"); ``weights``: alpha, beta, gamma, theta; ``tokenizer``: a callable
    str -> list of str for the two n-gram components (None: whitespace, as in the package);
    ``keywords_dir``: a folder with ``<lang>.txt`` (one keyword a line) replacing the
    package's keyword list (None: the package's own list, which this library ships).
    Inputs are validated with clear errors where the package asserts or fails deep inside.
    For the library's keyword-first API with more options, see :func:`compute_codebleu`.
    """
    from ..core.inputs import check_inputs

    spec = codebleu_language(lang)
    keywords = None if keywords_dir is None else read_keywords(keywords_dir, spec.name)
    metric = CodeBleuMetric(lang=spec.name, weights=weights, tokenizer=tokenizer,
                            keywords=keywords)
    preds, refs = check_inputs(predictions, references)
    return metric.scores(metric.statistics(preds, refs).sum(axis=0))


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
    from ..core.inputs import check_inputs

    metric = CodeBleuMetric(lang=lang, weights=weights, dataflow=dataflow, set_order=set_order,
                            tokenizer=tokenizer)
    preds, refs = check_inputs(predictions, references)
    stats = metric.statistics(preds, refs)
    result: dict[str, Any] = metric.scores(stats.sum(axis=0))
    if return_per_sample:
        result["scores"] = [float(x) for x in metric.item_scores(stats)]
    return result
