"""CodeBLEU on sufficient statistics, identical to the `codebleu` package 0.7.0 by default."""

from __future__ import annotations

import time
from collections.abc import Sequence
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
EPSILON = 0.1  # NLTK's smoothing method1


def _comment_style(name: str) -> str:
    return {"python": "python", "ruby": "none"}.get(name, "c")


def codebleu_language(lang: object) -> LanguageSpec:
    """The registry row of ``lang`` (a name, alias or one-element list) if CodeBLEU has it."""
    if isinstance(lang, (list, tuple)) and len(lang) == 1:
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
    (Out of the BLEU), a genuine 0 stays 0.
    """

    name = "codebleu"

    def __init__(
        self,
        lang: object = "python",
        weights: Sequence[float] = (0.25, 0.25, 0.25, 0.25),
        dataflow: str = "package",
        set_order: str = "package",
    ) -> None:
        spec = codebleu_language(lang)
        if set_order not in ("package", "source"):
            raise ValueError(f"`set_order` must be 'package' or 'source'; got {set_order!r}.")
        weights = check_weights(weights)
        if dataflow not in DATAFLOW_MODES:
            raise ValueError(
                f"`dataflow` must be one of {', '.join(DATAFLOW_MODES)}; got {dataflow!r}."
            )
        super().__init__(lang=spec.name, weights=weights, dataflow=dataflow, set_order=set_order)
        self.set_order = set_order
        self.spec = spec
        self.weights = weights
        self.dataflow = dataflow
        self.keywords = frozenset(KEYWORDS[spec.name])
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
        selects the pure-Python reference below; both give the same rows.
        """
        from .fast import compiled_statistics, engine

        if engine() == "compiled":
            return compiled_statistics(self, predictions, references, timings)
        clock = time.process_time
        spent = {"ngrams": 0.0, "parse": 0.0, "syntax": 0.0, "dataflow": 0.0}
        rows = np.zeros((len(predictions), N_COLUMNS))
        interned: dict = {}
        for item, (prediction, refs) in enumerate(zip(predictions, references, strict=False)):
            start = clock()
            hypothesis = prediction.strip()
            stripped_refs = [ref.strip() for ref in refs]
            hyp_tokens = hypothesis.split()
            ref_tokens = [ref.split() for ref in stripped_refs]
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
    predictions: Any,
    references: Any,
    lang: object = "python",
    weights: Sequence[float] = (0.25, 0.25, 0.25, 0.25),
    dataflow: str = "package",
    set_order: str = "package",
) -> dict[str, float]:
    """Corpus CodeBLEU with the package's five keys (its ``calc_codebleu``, validated)."""
    from ..core.inputs import check_inputs

    metric = CodeBleuMetric(lang=lang, weights=weights, dataflow=dataflow, set_order=set_order)
    preds, refs = check_inputs(predictions, references)
    return metric.scores(metric.statistics(preds, refs).sum(axis=0))


def compute_codebleu(
    predictions: Any,
    references: Any,
    lang: object = "python",
    weights: Sequence[float] = (0.25, 0.25, 0.25, 0.25),
    dataflow: str = "package",
    return_per_sample: bool = False,
    set_order: str = "package",
) -> dict[str, Any]:
    """The evaluate module's result: the package's five keys, plus per-item ``scores``."""
    from ..core.inputs import check_inputs

    metric = CodeBleuMetric(lang=lang, weights=weights, dataflow=dataflow, set_order=set_order)
    preds, refs = check_inputs(predictions, references)
    stats = metric.statistics(preds, refs)
    result: dict[str, Any] = metric.scores(stats.sum(axis=0))
    if return_per_sample:
        result["scores"] = [float(x) for x in metric.item_scores(stats)]
    return result
