"""The protocol of Roy, Fakhoury & Arnaoudova (ESEC/FSE 2021), "Reassessing Automatic
Evaluation Metrics for Code Summarization Tasks", section 4, on graded JSONL.

Human judgements are direct assessments (DA) on 0-100; grades on another scale (``grade_range``)
are mapped linearly, ``100 * (grade - low) / (high - low)``, and the output says so.

- **Summary level** (Table 6): DARR pairs, every pair of systems within one annotator's
  assessments of one item; a human difference under ``threshold`` (25) points is a tie and
  left out; the modified Kendall's tau of Table 1 (variant B of Stanchev et al. 2020: metric
  ties count against the metric), :func:`darr_kendall`, per metric and human dimension.
- **Corpus level** (Tables 4 and 5): synthetic systems built the paper's way: for every real
  system, proportion p in 1, 2, 5, 10, 15, 20, 25, 30 % and minimum change t in 1, 5, 10, 15,
  20 points, its worst ``round(p * n / 100)`` outputs (by the item's mean DA) are replaced by
  the best other system's output where that improves the item's DA by at least t (and its
  best outputs by the worst other system's where that lowers it by at least t); models with
  a corpus DA equal to an earlier model's are dropped, and a seeded sample of 100 is kept
  beside the real systems. Every pair of models is tested with approximate randomization on
  the metric (:func:`cgm_metrics.significance.compare`, two-sided, no correction) and the
  Wilcoxon signed-rank test on the items' mean DA; Type-I (the metric finds a difference
  the humans do not), Type-II (the reverse) and disagreement (Type-I, Type-II, or metric and
  human differences of opposite sign) rates per bin of metric difference.

>>> from cgm_metrics.agreement import darr_kendall
>>> darr_kendall([90, 40, 10], [0.9, 0.5, 0.5], [("item", "ann")] * 3)
{'tau': 0.6666666666666666, 'concordant': 2, 'discordant': 0, 'ties': 1}
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..base.io import InputError
from ..languages import resolve_language
from ..significance.classical import wilcoxon_test
from ..significance.multiple import compare
from ..significance.paired import DEFAULT_RESAMPLES
from .data import GradedData, GradedInputError, read_graded_jsonl
from .statistics import REGISTRY_PREFIX, ItemStatistics, from_values, registry_metric

PERCENTAGES = (1, 2, 5, 10, 15, 20, 25, 30)
THRESHOLDS = (1, 5, 10, 15, 20)
BINS = (0, 2, 5, 10, 15, 20, 100)  # points of metric difference: [0,2], (2,5], ..., (20,100]
NOT_SIGNIFICANT = "not significant"
SAMPLE = 100
DEFAULT_SEED = 12345
DEFAULT_TRIALS = DEFAULT_RESAMPLES["approximate_randomization"]  # trials per pair (10000)
OVERALL = "overall"

#: The study's metrics that run here, as registry metrics with options (section 3.5 and the
#: replication package's README): corpus BLEU is sacrebleu's default, sentBLEU nltk's
#: method 5, ROUGE the rouge package 1.0.1, chrF Popovic's chrF++.py default (character
#: 6-grams and word 2-grams, beta 2, F averaged over orders). METEOR 1.5 (Java) and BERTScore
#: (a model download) are not available.
STUDY_METRICS: dict[str, tuple[str, dict[str, Any]]] = {
    "BLEU": ("bleu", {"tokenize": "13a"}),
    "sentBLEU": ("bleu", {"smooth_method": "nltk-method5", "tokenize": "none"}),
    "ROUGE-1": ("rouge_n", {"n": 1, "implementation": "rouge", "tokenize": "whitespace"}),
    "ROUGE-2": ("rouge_n", {"n": 2, "implementation": "rouge", "tokenize": "whitespace"}),
    "ROUGE-3": ("rouge_n", {"n": 3, "implementation": "rouge", "tokenize": "whitespace"}),
    "ROUGE-4": ("rouge_n", {"n": 4, "implementation": "rouge", "tokenize": "whitespace"}),
    "ROUGE-L": ("rouge_l", {"implementation": "rouge", "tokenize": "whitespace"}),
    "ROUGE-W": ("rouge_w", {"tokenize": "whitespace"}),
    "chrF": ("chrf_code", {"word_order": 2, "eps_smoothing": True}),
}
#: levels of the study's metrics (section 3.5): corpus BLEU only in the corpus-level tables,
#: sentBLEU only in the summary-level one; every other metric in both
STUDY_LEVELS = {"BLEU": "corpus", "sentBLEU": "summary"}


# ------------------------------------------------------------------ DARR and Kendall's tau


def _group_codes(groups: Any, n: int) -> np.ndarray:
    """Integer codes of the rows' groups (any hashable per row, e.g. (item, annotator))."""
    if isinstance(groups, np.ndarray) and groups.ndim == 1 and groups.dtype.kind in "iu":
        codes = groups.astype(np.int64)
    else:
        seen: dict[Any, int] = {}
        try:
            codes = np.fromiter((seen.setdefault(_hashable(g), len(seen)) for g in groups),
                                np.int64)
        except TypeError:
            raise ValueError("`groups` must give each row a hashable group, e.g. an (item, "
                             "annotator) tuple.") from None
    if codes.shape != (n,):
        raise ValueError(f"`groups` must have one entry per row ({n}), got {codes.size}.")
    return codes


def _hashable(value: Any) -> Any:
    if isinstance(value, (list, np.ndarray)):
        return tuple(np.asarray(value).tolist())
    return value


def darr_pairs(groups: Any, n: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(first, second)`` row indices of every pair of rows in the same group, first < second
    (the DARR pairs when a group is one annotator's assessments of one item)."""
    groups_list = groups if isinstance(groups, np.ndarray) else list(groups)
    codes = _group_codes(groups_list, len(groups_list) if n is None else n)
    order = np.argsort(codes, kind="stable")
    sorted_codes = codes[order]
    starts = np.flatnonzero(np.r_[True, sorted_codes[1:] != sorted_codes[:-1]])
    sizes = np.diff(np.r_[starts, len(codes)])
    firsts, seconds = [], []
    for size in np.unique(sizes):
        if size < 2:
            continue
        a, b = np.triu_indices(int(size), 1)
        base = starts[sizes == size][:, None]
        firsts.append(order[(base + a).ravel()])
        seconds.append(order[(base + b).ravel()])
    if not firsts:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    first, second = np.concatenate(firsts), np.concatenate(seconds)
    swap = first > second
    first[swap], second[swap] = second[swap], first[swap]
    return first, second


def _finite_vector(values: Any, name: str) -> np.ndarray:
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"`{name}` must be a sequence of numbers, one per row.") from None
    if array.ndim != 1:
        raise ValueError(f"`{name}` must be one number per row, got shape {array.shape}.")
    if not np.isfinite(array).all():
        raise ValueError(f"`{name}` contains NaN or infinite values; drop those rows first.")
    return array


def darr_kendall(human: Any, metric: Any, groups: Any, threshold: float = 25) -> dict:
    """Kendall's tau of DARR pairs as Roy et al. 2021 (Table 1, variant B of Stanchev et al.).

    Rows are assessments: ``human[k]`` (a direct assessment, 0-100), ``metric[k]`` (the
    metric's score of the same output) and ``groups[k]`` (the row's (item, annotator)). Every
    pair of rows in a group is a DARR pair; a pair whose human scores differ by less than
    ``threshold`` is a human tie and left out (a difference of exactly ``threshold`` counts).
    Of the rest, a pair is *concordant* when the metric orders the two outputs as the human
    did, *discordant* when it orders them the other way, and a *tie* when the metric scores
    are equal (which counts against the metric)::

        tau = (concordant - discordant) / (concordant + discordant + ties)

    The paper prints ``|concordant - discordant|``; the sign here says whether the metric
    agrees (+) or disagrees (-). The replication package's ``kendalls_tau.py`` counts the
    same pairs, but ranks human scores best first and metric scores worst first, so on
    scores where higher is better its "concordant" and "discordant" are swapped (its tau is
    the negative of this one).

    Returns ``{"tau", "concordant", "discordant", "ties"}``; raises ``ValueError`` when no
    pair has a human difference of at least ``threshold``.
    """
    h = _finite_vector(human, "human")
    m = _finite_vector(metric, "metric")
    if h.shape != m.shape:
        raise ValueError(f"`human` and `metric` must have one value per row each; got {h.size} "
                         f"and {m.size}.")
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float, np.integer,
                                                                 np.floating)) or not (
            math.isfinite(threshold) and threshold >= 0):
        raise ValueError(f"`threshold` must be a number >= 0 (points of DA), got {threshold!r}.")
    first, second = darr_pairs(groups, h.size)
    human_difference = h[first] - h[second]
    counted = np.abs(human_difference) >= threshold
    counted &= human_difference != 0
    direction = np.sign(human_difference[counted])
    metric_difference = np.sign(m[first][counted] - m[second][counted])
    ties = int(np.sum(metric_difference == 0))
    concordant = int(np.sum(metric_difference == direction))
    discordant = int(counted.sum()) - ties - concordant
    total = concordant + discordant + ties
    if total == 0:
        raise ValueError(
            f"no DARR pair has a human difference of at least {threshold:g} points "
            f"({first.size} pairs within groups); Kendall's tau is undefined."
        )
    return {"tau": (concordant - discordant) / total, "concordant": concordant,
            "discordant": discordant, "ties": ties}


# ------------------------------------------------------------------ human assessments


@dataclass
class Assessments:
    """One dimension of human judgements, mapped to 0-100: per task (system-major), grader ->
    value."""

    name: str
    low: float
    high: float
    tasks: list[dict[str, float]]

    def mapped(self, value: float) -> float:
        return 100.0 * (value - self.low) / (self.high - self.low)

    def cell_sums(self, n_systems: int, n_items: int) -> tuple[np.ndarray, np.ndarray]:
        """``(sum, count)`` of the mapped values per ``[system, item]``."""
        sums = np.zeros(n_systems * n_items)
        counts = np.zeros(n_systems * n_items)
        for task, grades in enumerate(self.tasks):
            for value in grades.values():
                sums[task] += self.mapped(value)
                counts[task] += 1
        return sums.reshape(n_systems, n_items), counts.reshape(n_systems, n_items)


def _checked_range(value: Any, what: str) -> tuple[float, float]:
    try:
        low, high = (float(v) for v in value)
    except (TypeError, ValueError):
        raise InputError(f"{what} must be two numbers (low, high), got {value!r}.") from None
    if not (math.isfinite(low) and math.isfinite(high) and high > low):
        raise InputError(f"{what}={value!r}: the upper end must exceed the lower.")
    return low, high


def human_dimensions(data: GradedData, grade_range: tuple[float, float] = (0, 100),
                     dimension_ranges: dict[str, tuple[float, float]] | None = None,
                     ) -> list[Assessments]:
    """The overall assessment (raw ``grades``, or the given ``grade`` as one pseudo-annotator)
    and each of the rows' ``dimensions`` (default range 1-5, the paper's Likert scale), each
    checked against its range."""
    low, high = _checked_range(grade_range, "grade_range")
    if data.raw_grades is not None:
        tasks = [dict(grades) for grades in data.raw_grades]
    elif data.grade is not None:
        tasks = [{"": float(v)} for v in np.asarray(data.grade).ravel()]
    else:
        raise GradedInputError("no human grades; every row needs 'grades' or 'grade'.")
    ranges = dict(dimension_ranges or {})
    unknown = sorted(set(ranges) - set(data.dimensions))
    if unknown:
        raise InputError(f"dimension_ranges names {', '.join(map(repr, unknown))}, which no row "
                         f"has (dimensions: {', '.join(data.dimensions) or 'none'}).")
    out = [Assessments(OVERALL, low, high, tasks)]
    for name, per_task in data.dimensions.items():
        d_low, d_high = _checked_range(ranges.get(name, (1, 5)), f"the range of {name!r}")
        out.append(Assessments(name, d_low, d_high, per_task))
    for dimension in out:
        for task, grades in enumerate(dimension.tasks):
            for grader, value in grades.items():
                if not dimension.low <= value <= dimension.high:
                    system, item = divmod(task, data.n_items)
                    fix = ("set grade_range (--grade-range LOW HIGH)" if dimension.name == OVERALL
                           else f"set its range (--dimension-range {dimension.name} LOW HIGH)")
                    raise GradedInputError(
                        f"{dimension.name} {value!r} of {grader!r} for item "
                        f"{data.items[item]!r}, system {data.systems[system]!r} is outside "
                        f"[{dimension.low:g}, {dimension.high:g}]; fix it or {fix}."
                    )
    return out


def corpus_human_scores(data: GradedData, grade_range: tuple[float, float] = (0, 100),
                        dimension_ranges: dict[str, tuple[float, float]] | None = None,
                        ) -> dict[str, dict[str, float]]:
    """Table 3: per system, the mean of all its assessments in every dimension (the overall
    assessment on 0-100 after the linear mapping, the other dimensions on their own scale)."""
    table: dict[str, dict[str, float]] = {s: {} for s in data.systems}
    for dimension in human_dimensions(data, grade_range, dimension_ranges):
        sums, counts = dimension.cell_sums(data.n_systems, data.n_items)
        for s, system in enumerate(data.systems):
            count = counts[s].sum()
            if not count:
                continue
            mean = sums[s].sum() / count
            if dimension.name != OVERALL:  # back to the dimension's own scale
                mean = dimension.low + mean * (dimension.high - dimension.low) / 100.0
            table[system][dimension.name] = float(mean)
    return table


def darr_rows(data: GradedData, dimension: Assessments,
              values: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, list]:
    """``(human, metric, groups)`` rows of every assessment of ``dimension`` (mapped to 0-100),
    with ``values[system, item]`` as the metric (zeros without), for :func:`darr_kendall`."""
    human, metric, groups = [], [], []
    for task, grades in enumerate(dimension.tasks):
        system, item = divmod(task, data.n_items)
        for grader, value in grades.items():
            human.append(dimension.mapped(value))
            metric.append(0.0 if values is None else values[system, item])
            groups.append((item, grader))
    return np.asarray(human), np.asarray(metric), groups


# ------------------------------------------------------------------ synthetic systems


@dataclass(frozen=True)
class SyntheticModel:
    """Which real system answers each item; ``base`` etc. are None for a real system."""

    name: str
    source: np.ndarray
    base: str | None = None
    percent: int | None = None
    threshold: float | None = None
    improve: bool | None = None


def synthesize(item_human: np.ndarray, systems: list[str], percentages=PERCENTAGES,
               thresholds=THRESHOLDS) -> list[SyntheticModel]:
    """The real systems, then every synthetic system of section 4.2.2 (before de-duplication).

    ``item_human[system, item]`` is the item's mean DA. Improving base system s by p % with
    minimum change t: its ``round(p * n / 100)`` worst items (lowest DA, earlier item first
    on ties) each take the output of the other system with the highest DA on that item (the
    first one on ties) when that DA is at least t points higher; degrading is the mirror
    image (best items, lowest other system, at least t lower).
    """
    n_systems, n_items = item_human.shape
    models = [SyntheticModel(name, np.full(n_items, s)) for s, name in enumerate(systems)]
    for base, base_name in enumerate(systems):
        others = [s for s in range(n_systems) if s != base]
        if not others:
            continue
        own = item_human[base]
        other_rows = item_human[others]
        best_other = np.asarray(others)[np.argmax(other_rows, axis=0)]
        worst_other = np.asarray(others)[np.argmin(other_rows, axis=0)]
        worst_first = np.argsort(own, kind="stable")
        best_first = np.argsort(-own, kind="stable")
        for improve in (True, False):
            ranked = worst_first if improve else best_first
            donor = best_other if improve else worst_other
            change = item_human[donor, np.arange(n_items)] - own
            if not improve:
                change = -change
            for percent in percentages:
                chosen = ranked[: int(round(percent * n_items / 100))]
                for threshold in thresholds:
                    source = np.full(n_items, base)
                    replace = chosen[change[chosen] >= threshold]
                    source[replace] = donor[replace]
                    direction = "up" if improve else "down"
                    models.append(SyntheticModel(
                        f"{base_name}_{percent}_{threshold:g}_{direction}", source, base_name,
                        percent, threshold, improve))
    return models


def _corpus_human(model: SyntheticModel, sums: np.ndarray, counts: np.ndarray) -> float:
    items = np.arange(sums.shape[1])
    total = counts[model.source, items].sum()
    return float(sums[model.source, items].sum() / total) if total else math.nan


def select_models(models: list[SyntheticModel], n_real: int, sums: np.ndarray,
                  counts: np.ndarray, sample: int, seed: int) -> tuple[list[SyntheticModel], int]:
    """Real systems plus a seeded sample of the synthetic models whose corpus DA differs from
    every earlier model's; also returns how many such synthetic models there were."""
    seen: set[float] = set()
    unique: list[SyntheticModel] = []
    for index, model in enumerate(models):
        key = round(_corpus_human(model, sums, counts), 9)
        if index < n_real:
            seen.add(key)
        elif key not in seen:
            seen.add(key)
            unique.append(model)
    if len(unique) > sample:
        chosen = np.sort(np.random.default_rng(seed).choice(len(unique), sample, replace=False))
        kept = [unique[i] for i in chosen]
    else:
        kept = unique
    return models[:n_real] + kept, len(unique)


# ------------------------------------------------------------------ the protocol


@dataclass
class RoyResult:
    """The tables of Roy et al. 2021 for the given data; :meth:`to_dict` is the JSON."""

    human_scale: dict
    threshold: float
    n_resamples: int
    seed: int
    alpha: float
    bin_edges: tuple
    bins: list[str]
    systems: list[str]
    models: list[str]
    synthetic: dict
    candidates: int
    metrics: list[str]
    sources: dict[str, str]
    human_scores: dict
    model_scores: dict
    darr: dict
    type_i: dict
    type_ii: dict
    disagreement: dict
    kendall: dict
    pairs: list[dict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "protocol": "roy2021",
            "human_scale": self.human_scale,
            "darr_threshold": self.threshold,
            "n_resamples": self.n_resamples,
            "seed": self.seed,
            "alpha": self.alpha,
            "bin_edges": list(self.bin_edges),
            "bins": self.bins,
            "systems": self.systems,
            "models": self.models,
            "synthetic": self.synthetic,
            "synthetic_candidates": self.candidates,
            "metrics": self.metrics,
            "metric_sources": self.sources,
            "human_scores": self.human_scores,
            "model_scores": self.model_scores,
            "darr": self.darr,
            "type_i": self.type_i,
            "type_ii": self.type_ii,
            "disagreement": self.disagreement,
            "kendall": self.kendall,
            "notes": self.notes,
            "pairs": self.pairs,
        }


def bin_labels(edges: Sequence[float]) -> list[str]:
    """``[0, 2]``, ``(2, 5]``, ...: the first bin is closed, the others open on the left."""
    return [f"{'[' if k == 0 else '('}{lo:g}, {hi:g}]"
            for k, (lo, hi) in enumerate(zip(edges[:-1], edges[1:], strict=True))]


def _bin_index(points: np.ndarray, edges: np.ndarray) -> np.ndarray:
    index = np.searchsorted(edges, points, side="left") - 1
    index = np.where(points == edges[0], 0, index)
    return np.where((index >= 0) & (index < len(edges) - 1), index, -1)


def _rate(errors: int, size: int) -> dict:
    return {"rate": errors / size if size else None, "errors": errors, "size": size}


def _study_metric(label: str, data: GradedData, lang: str | None) -> ItemStatistics:
    name, options = STUDY_METRICS[label]
    assert data.predictions is not None and data.references is not None
    metric = registry_metric(name, data.predictions, data.references, lang, options=options)
    metric.name = label
    metric.source = f"study:{metric.source}"
    return metric


def _level(metric: ItemStatistics) -> str:
    """"corpus", "summary" or "both": the study's metrics at the level(s) the paper used."""
    if metric.source.startswith("study:"):
        return STUDY_LEVELS.get(metric.name, "both")
    return "both"


def _metric_list(data: GradedData, names: Sequence[str] | None, lang: str | None) -> list[ItemStatistics]:
    have_text = data.predictions is not None and data.references is not None
    if names is None:
        wanted = list(data.scores) or (list(STUDY_METRICS) if have_text else [])
    else:
        wanted = []
        for name in names:
            for expanded in (STUDY_METRICS if name == "study" else [name]):
                if expanded not in wanted:
                    wanted.append(expanded)
    out: list[ItemStatistics] = []
    for name in wanted:
        try:
            # "registry:NAME": the registry's NAME even where the rows' 'scores' have a NAME
            forced = name.startswith(REGISTRY_PREFIX)
            if name in data.scores and not forced:
                out.append(from_values(name, data.scores[name], "file"))
                continue
            if not have_text:
                raise GradedInputError(
                    f"metric {name!r} is not in the rows' 'scores' and cannot be computed: rows "
                    "need 'prediction' and 'references'.")
            if name in STUDY_METRICS:
                out.append(_study_metric(name, data, lang))
                continue
            from ..pipeline.registry import metrics as registered

            base = name[len(REGISTRY_PREFIX):] if forced else name
            if forced and base not in registered():
                raise GradedInputError(f"metric {name!r} is not a registered metric "
                                       f"({', '.join(registered())}).")
            if base not in registered():
                raise GradedInputError(
                    f"metric {name!r} is neither in the rows' 'scores' "
                    f"({', '.join(data.scores) or 'none'}), nor one of the study's metrics "
                    f"({', '.join(STUDY_METRICS)}, or 'study' for all), nor a registered "
                    f"metric ({', '.join(registered())}).")
            assert data.predictions is not None and data.references is not None
            computed = registry_metric(base, data.predictions, data.references, lang)
            computed.name = name
            out.append(computed)
        except (ValueError, TypeError) as error:
            if isinstance(error, GradedInputError):
                raise
            raise GradedInputError(f"metric {name!r} cannot score the rows: {error}") from None
    if not out:
        raise GradedInputError("no metric to compare with the human assessments: give 'scores' "
                               "in the rows, or 'prediction' and 'references' for the study's "
                               "metrics, or name metrics.")
    return out


def run_roy2021(
    data: GradedData | str | Path,
    metrics: Sequence[str] | None = None,
    grade_range: tuple[float, float] = (0, 100),
    dimension_ranges: dict[str, tuple[float, float]] | None = None,
    threshold: float = 25,
    n_resamples: int | None = None,
    seed: int | None = None,
    alpha: float = 0.05,
    bins: Sequence[float] | None = None,
    synthetic: bool = True,
    sample: int = SAMPLE,
    lang: str | None = None,
    percentages: Sequence[int] = PERCENTAGES,
    thresholds: Sequence[float] = THRESHOLDS,
    progress: Any = None,
) -> RoyResult:
    """Roy et al. 2021's analysis of graded outputs (see the module docstring).

    ``metrics``: keys of the rows' ``scores`` (default: all of them; without any, the study's
    metrics on the rows' texts), the study's metric names (:data:`STUDY_METRICS`, or
    ``"study"`` for all) or registry metric names; the study's corpus BLEU enters only the
    corpus-level tables and sentBLEU only the summary-level one, as in the paper.
    ``n_resamples``: approximate-randomization trials per pair (default 10000, sacrebleu's).
    ``progress``: called with a line of text as each metric's pairs are tested.
    """
    if not 0 < alpha < 0.5:
        raise InputError(f"alpha={alpha!r} must lie in (0, 0.5), e.g. 0.05.")
    try:
        lang = None if lang is None else resolve_language(lang).name
    except (TypeError, ValueError) as error:
        raise InputError(str(error)) from None
    if n_resamples is None:
        n_resamples = DEFAULT_TRIALS
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 20:
        raise InputError(f"n_resamples={n_resamples!r} must be an integer >= 20.")
    seed = DEFAULT_SEED if seed is None else seed
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InputError(f"seed={seed!r} must be a non-negative integer.")
    if isinstance(sample, bool) or not isinstance(sample, int) or sample < 0:
        raise InputError(f"sample={sample!r} must be a non-negative integer.")
    edges = tuple(float(b) for b in (BINS if bins is None else bins))
    if len(edges) < 2 or any(b <= a for a, b in zip(edges, edges[1:], strict=False)):
        raise InputError(f"bins={bins!r} must be increasing edges, e.g. (0, 2, 5, 10, 100).")
    if isinstance(data, (str, Path)):
        data = read_graded_jsonl(data)

    if data.n_items < 2:
        raise GradedInputError(f"{data.n_items} item; the paired tests need at least 2 items "
                               "per system.")
    dimensions = human_dimensions(data, grade_range, dimension_ranges)
    overall = dimensions[0]
    sums, counts = overall.cell_sums(data.n_systems, data.n_items)
    if (counts == 0).any():
        system, item = np.argwhere(counts == 0)[0]
        raise GradedInputError(f"item {data.items[item]!r} of system {data.systems[system]!r} "
                               "has no assessment.")
    item_human = sums / counts
    metric_stats = _metric_list(data, metrics, lang)

    all_models = (synthesize(item_human, data.systems, percentages, thresholds) if synthetic
                  else synthesize(item_human, data.systems, (), ()))
    models, candidates = select_models(all_models, data.n_systems, sums, counts, sample, seed)
    names = [m.name for m in models]
    items = np.arange(data.n_items)
    human_corpus = np.array([_corpus_human(m, sums, counts) for m in models])
    human_items = np.stack([item_human[m.source, items] for m in models])

    # the humans' verdict on every pair: Wilcoxon signed-rank on the items' mean DA
    first, second = np.triu_indices(len(models), 1)
    human_p = np.array([wilcoxon_test(human_items[a], human_items[b]).p_value
                        for a, b in zip(first.tolist(), second.tolist(), strict=True)])
    human_delta = human_corpus[second] - human_corpus[first]
    human_sig = human_p < alpha

    labels = bin_labels(edges)
    all_bins = labels + [NOT_SIGNIFICANT]
    edge_array = np.asarray(edges)
    model_scores: dict[str, dict[str, float]] = {
        name: {"human": float(score)} for name, score in zip(names, human_corpus, strict=True)}
    type_i: dict[str, dict] = {}
    type_ii: dict[str, dict] = {}
    disagreement: dict[str, dict] = {}
    pairs: list[dict] = []
    for metric in [m for m in metric_stats if _level(m) != "summary"]:
        if progress is not None:
            progress(f"{metric.name}: {len(first)} pairs of {len(models)} models, "
                     f"{n_resamples} randomization trials each")
        stats = {m.name: metric.stats[m.source, items] for m in models}
        comparison = compare(stats, metric, method="approximate_randomization",
                             n_resamples=n_resamples, seed=seed, alpha=alpha, correction="none")
        metric_p = np.array([pair.p_value for pair in comparison.pairs])
        metric_delta = np.array([pair.delta for pair in comparison.pairs])
        for name in names:
            model_scores[name][metric.name] = comparison.scores[name]["score"]
        metric_sig = metric_p < alpha
        is_type_i = metric_sig & ~human_sig
        is_type_ii = ~metric_sig & human_sig
        disagree = is_type_i | is_type_ii | (metric_delta * human_delta < 0)
        points = np.abs(metric_delta) * metric.points
        where = _bin_index(points, edge_array)
        rows_i, rows_ii, rows_d = {}, {}, {}
        for k, label in enumerate(all_bins):
            chosen = (where == k) if k < len(labels) else ~metric_sig
            rows_i[label] = _rate(int((chosen & is_type_i).sum()), int((chosen & metric_sig).sum()))
            rows_ii[label] = _rate(int((chosen & is_type_ii).sum()),
                                   int((chosen & ~metric_sig).sum()))
            rows_d[label] = _rate(int((chosen & disagree).sum()), int(chosen.sum()))
        type_i[metric.name], type_ii[metric.name] = rows_i, rows_ii
        disagreement[metric.name] = rows_d
        outcome = np.where(is_type_i, "type_i", np.where(
            is_type_ii, "type_ii", np.where(disagree, "opposite", "agree")))
        pairs.extend(
            {"model_a": names[a], "model_b": names[b], "metric": metric.name,
             "metric_delta_points": dm * metric.points, "human_delta_points": dh,
             "metric_p_value": pm, "human_p_value": ph, "outcome": oc,
             "bin": labels[k] if k >= 0 else None}
            for a, b, dm, dh, pm, ph, oc, k in zip(
                first.tolist(), second.tolist(), metric_delta.tolist(), human_delta.tolist(),
                metric_p.tolist(), human_p.tolist(), outcome.tolist(), where.tolist(),
                strict=True))

    kendall: dict[str, dict] = {}
    darr: dict[str, dict] = {}
    for dimension in dimensions:
        human, _, groups = darr_rows(data, dimension)
        pair_a, pair_b = darr_pairs(groups, len(groups))
        difference = np.abs(human[pair_a] - human[pair_b])
        darr[dimension.name] = {"pairs": int(pair_a.size),
                                "counted": int(((difference >= threshold)
                                                & (difference != 0)).sum())}
    for metric in [m for m in metric_stats if _level(m) != "corpus"]:
        kendall[metric.name] = {}
        for dimension in dimensions:
            human, values, groups = darr_rows(data, dimension, metric.item_values)
            try:
                kendall[metric.name][dimension.name] = darr_kendall(human, values, groups,
                                                                    threshold)
            except ValueError:  # no pair reaches the threshold
                kendall[metric.name][dimension.name] = {
                    "tau": None, "concordant": 0, "discordant": 0, "ties": 0}

    notes = []
    given = [v for grades in overall.tasks for v in grades.values()]
    if (overall.low, overall.high) == (0, 100) and given and max(given) <= 10:
        notes.append(f"every grade lies in [{min(given):g}, {max(given):g}] and was read as a "
                     "direct assessment on 0-100; if the grades are on another scale, give "
                     "grade_range (--grade-range LOW HIGH) to map them to 0-100.")
    scale = {"grade_range": [overall.low, overall.high],
             "mapping": f"DA = 100 * (grade - {overall.low:g}) / {overall.high - overall.low:g}",
             "identity": bool(overall.low == 0 and overall.high == 100),
             "dimensions": {d.name: [d.low, d.high] for d in dimensions[1:]}}
    return RoyResult(
        human_scale=scale, threshold=float(threshold), n_resamples=n_resamples, seed=seed,
        alpha=alpha, bin_edges=edges, bins=all_bins, systems=list(data.systems), models=names,
        synthetic={m.name: {"base": m.base, "percent": m.percent, "threshold": m.threshold,
                            "improve": m.improve} for m in models if m.base is not None},
        candidates=candidates, metrics=[m.name for m in metric_stats],
        sources={m.name: m.source for m in metric_stats},
        human_scores=corpus_human_scores(data, grade_range, dimension_ranges),
        model_scores=model_scores, darr=darr, type_i=type_i, type_ii=type_ii,
        disagreement=disagreement, kendall=kendall, pairs=pairs, notes=notes,
    )


# ------------------------------------------------------------------ reports


def _percent(entry: dict) -> str:
    return "-" if entry["rate"] is None else f"{100 * entry['rate']:.1f}%"


def format_roy2021(result: RoyResult) -> str:
    """Tables 3-6 of the paper for the given data, as plain text."""
    scale = result.human_scale
    lines = [
        f"protocol roy2021 | {len(result.models)} models ({len(result.systems)} real, "
        f"{len(result.models) - len(result.systems)} synthetic of {result.candidates} unique) | "
        f"{result.n_resamples} randomization trials | seed {result.seed} | alpha "
        f"{result.alpha:g}",
        "human scale: " + ("direct assessment 0-100" if scale["identity"] else
                           f"grades {scale['grade_range'][0]:g}-{scale['grade_range'][1]:g} "
                           f"mapped linearly to 0-100 ({scale['mapping']})"),
        "",
        "Corpus-level human scores (Table 3)",
    ]
    dims = list(next(iter(result.human_scores.values()), {}))
    lines.append(f"{'system':<16}" + "".join(f"{d:>18}" for d in dims))
    for system, scores in result.human_scores.items():
        lines.append(f"{system:<16}" + "".join(f"{scores.get(d, math.nan):>18.2f}" for d in dims))
    lines += ["", "Type-I / Type-II error rates (Table 4): rate (group size)"]
    lines.append(f"{'metric':<12}{'error':>6}" + "".join(f"{b:>18}" for b in result.bins))
    for metric in result.type_i:
        for kind, source in (("I", result.type_i), ("II", result.type_ii)):
            cells = [f"{_percent(e)} ({e['size']})" for e in source[metric].values()]
            lines.append(f"{metric:<12}{kind:>6}" + "".join(f"{c:>18}" for c in cells))
    lines += ["", "Disagreement rates (Table 5): rate (group size)"]
    lines.append(f"{'metric':<12}{'':>6}" + "".join(f"{b:>18}" for b in result.bins))
    for metric in result.disagreement:
        cells = [f"{_percent(e)} ({e['size']})" for e in result.disagreement[metric].values()]
        lines.append(f"{metric:<12}{'':>6}" + "".join(f"{c:>18}" for c in cells))
    dims = list(result.darr)
    lines += ["", f"Kendall's tau of DARR pairs (Table 6; human ties under "
                  f"{result.threshold:g} points left out)"]
    lines.append(f"{'metric':<12}" + "".join(f"{d:>18}" for d in dims))
    for metric in result.kendall:
        cells = ["-" if v["tau"] is None else f"{v['tau']:.3f}"
                 for v in result.kendall[metric].values()]
        lines.append(f"{metric:<12}" + "".join(f"{c:>18}" for c in cells))
    lines.append(f"{'DARR pairs':<12}" + "".join(
        f"{str(v['counted']) + ' of ' + str(v['pairs']):>18}" for v in result.darr.values()))
    lines += [f"note: {note}" for note in result.notes]
    return "\n".join(lines)


def to_json(result: RoyResult, path: str | Path | None = None) -> str:
    """The result as JSON, one top-level key per line (compact values)."""
    text = "{\n" + ",\n".join(
        f"{json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}"
        for key, value in result.to_dict().items()) + "\n}"
    if path is not None:
        Path(path).write_text(text + "\n", encoding="utf-8")
    return text


def to_csv(result: RoyResult, path: str | Path | None = None) -> str:
    """Tables 4-6 as CSV rows: table, metric, bin (or dimension), rate, errors, size."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["table", "metric", "bin", "rate", "errors", "size"])
    for table, source in (("type_i", result.type_i), ("type_ii", result.type_ii),
                          ("disagreement", result.disagreement)):
        for metric, rows in source.items():
            for label, entry in rows.items():
                writer.writerow([table, metric, label, entry["rate"], entry["errors"],
                                 entry["size"]])
    for metric, rows in result.kendall.items():
        for dimension, entry in rows.items():
            writer.writerow(["kendall", metric, dimension, entry["tau"],
                             f"{entry['concordant']}/{entry['discordant']}/{entry['ties']}",
                             entry["concordant"] + entry["discordant"] + entry["ties"]])
    text = buffer.getvalue()
    if path is not None:
        Path(path).write_text(text, encoding="utf-8")
    return text
