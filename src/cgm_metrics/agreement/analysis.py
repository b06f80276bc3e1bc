"""The agreement analysis: from graded outputs to verdicts, delta bins and correlations."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np

from ..base.io import InputError
from ..languages import resolve_language
from ..pipeline.registry import DEFAULT_METRICS
from ..significance import resampling
from ..significance.multiple import CORRECTIONS, compare
from . import engine
from .aggregation import AGGREGATIONS, aggregate
from .correlation import (
    average_ranks,
    dense_codes,
    kendall_rows,
    pearson_rows,
    spearman_rows,
)
from .data import GradedData, GradedInputError, check_grade_range, read_graded_jsonl
from .statistics import REGISTRY_PREFIX, ItemStatistics, from_values, registry_metric

OUTCOMES = {0: "agree", 1: "type_i", 2: "type_ii", -1: "opposite"}
DEFAULT_COMPUTED = DEFAULT_METRICS  # the registry's: computed when the rows name none
#: the most models (real and synthetic) one analysis compares: every pair of models is
#: tested, so time and memory grow with the square (200 models: 19,900 pairs per metric;
#: the published studies compare 30 and 82)
MAX_MODELS = 200


@dataclass
class AgreementResult:
    """Everything the analysis found; :meth:`to_dict` is the JSON that `cgm agreement --json` writes."""

    protocol: str
    aggregate: str
    n_resamples: int
    seed: int
    alpha: float
    bins: tuple
    systems: list[str]
    models: list[str]
    metrics: list[str]  # "grade" first
    sources: dict[str, str]
    synthetic: dict[str, dict]
    pair_probabilities: dict
    model_scores: dict
    pairs: list[dict]  # one per unordered pair and metric
    table: dict[str, list[dict]]
    correlations: dict = field(default_factory=dict)
    human_points: float = 25.0
    correction: str = "holm"
    notes: list[str] = field(default_factory=list)  # what the analysis left out, and why

    def models_summary(self) -> str:
        """How many models were compared and where they come from, e.g. "102 models (6 real
        systems; 96 synthetic)"; real systems whose outputs equal a compared model's are
        counted apart."""
        real = [name for name in self.models if name not in self.synthetic]
        merged = len(self.systems) - len(real)
        origin = f"{len(real):,} real systems"
        if merged:
            origin = (f"{len(real):,} of the {len(self.systems):,} real systems; the other "
                      f"{merged:,} {'has' if merged == 1 else 'have'} outputs identical to a "
                      "compared model")
        return (f"{len(self.models):,} models ({origin}; "
                f"{len(self.models) - len(real):,} synthetic)")

    def to_dict(self) -> dict[str, Any]:
        return {
            "protocol": self.protocol,
            "aggregate": self.aggregate,
            "n_resamples": self.n_resamples,
            "seed": self.seed,
            "alpha": self.alpha,
            "correction": self.correction,
            "bins": list(self.bins),
            "systems": self.systems,
            "models": self.models,
            "metrics": self.metrics,
            "metric_sources": self.sources,
            "synthetic": self.synthetic,
            "pair_probabilities": self.pair_probabilities,
            "model_scores": self.model_scores,
            "table": self.table,
            "pairs": self.pairs,
            "correlations": self.correlations,
            "notes": self.notes,
        }


def _human_grades(data: GradedData, method: str) -> tuple[np.ndarray, str]:
    if data.raw_grades is not None:
        grades = aggregate(data.raw_grades, method)
        return grades.reshape(data.n_systems, data.n_items), method
    return np.asarray(data.grade, dtype=np.float64), "given"


def _metric_statistics(data: GradedData, names: list[str] | None, protocol: str,
                       lang: str | None, options: dict[str, dict]) -> list[ItemStatistics]:
    have_text = data.predictions is not None and data.references is not None
    out: list[ItemStatistics] = []
    wanted = list(names) if names is not None else list(data.scores)
    if names is None and protocol == "evtikhiev2023" and have_text and "bleu" not in wanted:
        wanted.append("bleu")
    if names is None and not wanted:
        wanted = list(DEFAULT_COMPUTED)
    for name in options:
        if name not in wanted or (name in data.scores and not name.startswith(REGISTRY_PREFIX)):
            raise GradedInputError(
                f"metric_options names {name!r}, which is not a computed metric of this "
                f"analysis (metrics: {', '.join(wanted)}); options apply to registry metrics "
                "computed from the rows (registry:NAME where the rows' 'scores' have NAME)."
            )
    for name in wanted:
        if name == "grade":
            continue
        if name == "bleu" and protocol == "evtikhiev2023" and have_text:
            # the study's BLEU: corpus BLEU of the registry (code tokenizer), resampled from
            # its statistics; the file's per-item BLEU stays the per-item value
            out.append(_computed("bleu", data, lang, data.scores.get("bleu")))
        elif name in data.scores and not name.startswith(REGISTRY_PREFIX):
            out.append(from_values(name, data.scores[name], "file"))
        else:
            # "registry:NAME" computes the registry's NAME even where the rows' 'scores' hold
            # a value of that name (e.g. a paper's published CodeBLEU beside ours)
            forced = name.startswith(REGISTRY_PREFIX)
            base = name[len(REGISTRY_PREFIX):] if forced else name
            if not have_text:
                raise GradedInputError(
                    f"metric {name!r} is not in the rows' 'scores' and cannot be computed: "
                    "rows need 'prediction' and 'references'."
                )
            from ..pipeline.registry import metrics as registered

            if base not in registered():
                known = f"a registered metric ({', '.join(registered())})"
                raise GradedInputError(
                    f"metric {name!r} is not {known}." if forced else
                    f"metric {name!r} is neither in the rows' 'scores' ({', '.join(data.scores)}"
                    f" or none) nor {known}."
                )
            try:
                computed = _computed(base, data, lang, options=options.get(name))
                out.append(replace(computed, name=name) if forced else computed)
            except ImportError as error:
                if names is not None:
                    raise GradedInputError(f"metric {name!r} is not available in this "
                                           f"installation ({error}).") from None
    if not out:
        raise GradedInputError("no metric to compare with the human grades: give 'scores' in "
                               "the rows or name registered metrics (--metrics).")
    return out


def _computed(name: str, data: GradedData, lang: str | None, item_values: np.ndarray | None = None,
              options: dict | None = None) -> ItemStatistics:
    """A registry metric on the rows' texts; what the user can fix is a GradedInputError."""
    assert data.predictions is not None and data.references is not None
    try:
        return registry_metric(name, data.predictions, data.references, lang, item_values,
                               options=options)
    except (ValueError, TypeError) as error:
        raise GradedInputError(f"metric {name!r} cannot score the rows: {error}") from None


def _verdicts(decision: np.ndarray, protocol: str, alpha: float,
              delta: np.ndarray) -> np.ndarray:
    """+1 / -1 (the later model significantly better / worse) or 0, for every pair."""
    if protocol == "evtikhiev2023":  # win fractions of the later model
        return np.where(decision >= 1 - alpha, 1, np.where(decision <= alpha, -1, 0))
    return np.where(decision < alpha, np.sign(delta), 0).astype(np.int64)


def _outcomes(human: np.ndarray, metric: np.ndarray) -> np.ndarray:
    """0 agree, 1 Type-I (only the metric sees a difference), 2 Type-II (only the humans),
    -1 opposite directions."""
    return np.select(
        [(human == 0) & (metric != 0), (human != 0) & (metric == 0),
         (human != 0) & (metric != 0) & (human != metric)],
        [1, 2, -1], 0)


def _bin_label(lo: float, hi: float) -> str:
    return f"{lo:g}-{hi:g}"


def _correlations(human_items: np.ndarray, metric_items: dict[str, np.ndarray],
                  human_models: np.ndarray, metric_models: dict[str, np.ndarray],
                  human_boot: np.ndarray, metric_boot: dict[str, np.ndarray],
                  n_resamples: int, seed: int, alpha: float) -> dict:
    """Per-item (real systems' cells) and per-system (all models) correlations with CIs."""
    n_items = human_items.shape[1]
    item_draws = resampling.bootstrap_indices(n_items, n_resamples, seed)
    lo_q, hi_q = alpha / 2, 1 - alpha / 2
    result: dict[str, dict] = {"per_item": {}, "per_system": {}}

    def summary(point: float, draws: np.ndarray) -> dict:
        draws = draws[np.isfinite(draws)]
        if not np.isfinite(point) or len(draws) == 0:
            return {"value": None, "low": None, "high": None}
        return {"value": float(point), "low": float(np.quantile(draws, lo_q)),
                "high": float(np.quantile(draws, hi_q))}

    draw = np.arange(min(n_resamples, human_boot.shape[1]))  # the first resamples

    def entry(point_x: np.ndarray, point_y: np.ndarray, boot_x: np.ndarray,
              boot_y: np.ndarray, codes: tuple[np.ndarray, np.ndarray],
              ranks_x: np.ndarray) -> dict:
        """Correlations of the points with intervals from the resampled rows; ``codes`` of
        the rows and the average ranks of x rows serve the rank correlations."""
        ok = bool(np.ptp(point_x) > 0 and np.ptp(point_y) > 0)
        draws = {
            "pearson": pearson_rows(boot_x, boot_y),
            "spearman": pearson_rows(ranks_x, average_ranks(codes[1])),
            "kendall": kendall_rows(*codes),
        }
        out: dict[str, Any] = {}
        for kind, function in (("pearson", pearson_rows), ("spearman", spearman_rows),
                               ("kendall", kendall_rows)):
            value = float(function(point_x[None], point_y[None])[0]) if ok else np.nan
            out[kind] = summary(value, draws[kind])
        out["n"] = int(point_x.size)
        return out

    hx = human_items.T  # [item, system]
    # the human side of the per-item rows is the same for every metric: coded and ranked once
    human_rows = hx[item_draws].reshape(n_resamples, -1)
    human_codes = dense_codes(hx)[item_draws].reshape(n_resamples, -1)
    human_ranks = average_ranks(human_codes)
    for name, values in metric_items.items():
        mx = values.T
        metric_codes = dense_codes(mx)[item_draws].reshape(n_resamples, -1)
        result["per_item"][name] = entry(
            hx.ravel(), mx.ravel(), human_rows, mx[item_draws].reshape(n_resamples, -1),
            (human_codes, metric_codes), human_ranks)
    human_system = human_boot.T[draw]  # [resample, model]
    system_ranks = average_ranks(human_system)
    for name, scores in metric_models.items():
        metric_system = metric_boot[name].T[draw]
        result["per_system"][name] = entry(
            np.asarray(human_models, dtype=np.float64), np.asarray(scores, dtype=np.float64),
            human_system, metric_system, (human_system, metric_system), system_ranks)
    return result


def _check_model_count(n_models: int, max_models: int) -> None:
    if n_models > max_models:
        raise GradedInputError(
            f"{n_models:,} systems with distinct outputs are more than the {max_models} "
            f"models one analysis compares ({n_models * (n_models - 1) // 2:,} pairs instead "
            f"of at most {max_models * (max_models - 1) // 2:,}); keep the rows of at most "
            f"{max_models} systems (or raise max_models, at a cost that grows with its "
            "square)."
        )


def run_agreement(
    data: GradedData | str | Path,
    protocol: str = "default",
    aggregate_method: str = "mmsr",
    metrics: list[str] | None = None,
    n_resamples: int | None = None,
    seed: int | None = None,
    alpha: float = 0.05,
    bins: tuple | list | None = None,
    grade_range: tuple[float, float] = (0, 4),
    synthetic: bool = True,
    correlations: bool = True,
    lang: str | None = None,
    correction: str = "holm",
    correlation_resamples: int = 200,
    max_models: int = MAX_MODELS,
    metric_options: dict[str, dict] | None = None,
) -> AgreementResult:
    """Metric-human agreement of graded outputs (see the package docstring).

    ``metric_options`` maps a computed metric's name in ``metrics`` to its options
    (``get_metric(name, lang=lang, **options)``), e.g.
    ``{"registry:crystal_bleu": {"trivially_shared": ngrams}}``.

    Every pair of models is compared, so the work grows with the square of the number of
    models: at most ``max_models`` are compared. When the real systems and their synthetic
    models together are more, the synthetic models are left out (``notes`` says so); more
    distinct real systems than ``max_models`` is an error that asks for fewer."""
    if protocol not in engine.PROTOCOLS:
        raise InputError(f"protocol={protocol!r} is not supported; choose one of "
                         f"{', '.join(engine.PROTOCOLS)}.")
    if aggregate_method not in AGGREGATIONS:
        raise InputError(f"aggregate={aggregate_method!r} is not supported; choose one of "
                         f"{', '.join(AGGREGATIONS)}.")
    if correction not in CORRECTIONS:
        raise InputError(f"correction={correction!r} is not supported; choose one of "
                         f"{', '.join(CORRECTIONS)}.")
    if not 0 < alpha < 0.5:
        raise InputError(f"alpha={alpha!r} must lie in (0, 0.5), e.g. 0.05.")
    try:
        lang = None if lang is None else resolve_language(lang).name
    except (TypeError, ValueError) as error:
        raise InputError(str(error)) from None
    if isinstance(data, (str, Path)):
        data = read_graded_jsonl(data)
    low, high = grade_range
    if not high > low:
        raise InputError(f"grade_range={grade_range!r}: the upper end must exceed the lower.")
    check_grade_range(data, low, high)
    if n_resamples is None:
        n_resamples = 500 if protocol == "evtikhiev2023" else 1000
    if not isinstance(n_resamples, int) or n_resamples < 20:
        raise InputError(f"n_resamples={n_resamples!r} must be an integer >= 20.")
    if isinstance(max_models, bool) or not isinstance(max_models, int) or max_models < 2:
        raise InputError(f"max_models={max_models!r} must be an integer >= 2.")
    if seed is None:
        seed = 42 if protocol == "evtikhiev2023" else 12345
    # resamples that cannot be computed are refused before any scoring
    resampling.check_budget(data.n_items, n_resamples, n_series=1)
    if protocol == "evtikhiev2023" and data.n_items * n_resamples > engine.MAX_PUBLISHED_DRAWS:
        raise InputError(
            f"n_resamples={n_resamples:,} on {data.n_items:,} items: the published protocol "
            f"holds every draw in memory, at most {engine.MAX_PUBLISHED_DRAWS:,} "
            f"(n_resamples <= {engine.MAX_PUBLISHED_DRAWS // data.n_items:,} here); the "
            "default protocol draws in blocks."
        )
    bins = tuple(bins) if bins is not None else engine.CONALA_BINS
    if len(bins) < 2 or any(b <= a for a, b in pairwise(bins)):
        raise InputError(f"bins={bins!r} must be increasing edges, e.g. (0, 2, 5, 10, 100).")

    real = [engine.Model(name, np.full(data.n_items, s)) for s, name in enumerate(data.systems)]
    if data.predictions is not None:  # too many distinct systems: said before any scoring
        _check_model_count(len(engine.deduplicate(real, data.predictions, None, protocol)),
                           max_models)
    grades, used_aggregate = _human_grades(data, aggregate_method)
    human = from_values("grade", grades, "human")
    human.points = 100.0 / (high - low)
    metric_stats = _metric_statistics(data, metrics, protocol, lang, metric_options or {})
    all_metrics = [human] + metric_stats

    fallback = np.stack([grades] + [m.item_values for m in metric_stats], axis=-1)
    notes: list[str] = []
    models = engine.deduplicate(engine.synthesize(grades, data.systems) if synthetic else real,
                                data.predictions, fallback, protocol)
    if synthetic and len(models) > max_models:
        with_synthetic = len(models)
        models = engine.deduplicate(real, data.predictions, fallback, protocol)
        notes.append(
            f"synthetic models left out: with them {with_synthetic:,} models would be "
            f"compared ({with_synthetic * (with_synthetic - 1) // 2:,} pairs), more than "
            f"max_models={max_models}; the {len(models):,} real systems are compared alone."
        )
    _check_model_count(len(models), max_models)
    if len(models) < 2:
        raise GradedInputError("all systems have identical outputs; nothing to compare.")
    names = [m.name for m in models]

    resampling.check_budget(data.n_items, n_resamples, n_series=len(models))
    indices = engine.resample_indices(data.n_items, n_resamples, protocol, seed)
    exact = protocol == "evtikhiev2023"
    full: dict[str, np.ndarray] = {}
    boot: dict[str, np.ndarray] = {}
    pair_probabilities: dict = {m: {} for m in names}
    model_scores: dict = {m: {} for m in names}
    decision: dict[str, np.ndarray] = {}
    point: dict[str, np.ndarray] = {}
    k = round(alpha * n_resamples / 2)
    for metric in all_metrics:
        if exact:
            assert isinstance(indices, np.ndarray)  # the published draws: Python's random
            full[metric.name], b = engine.published_bootstrap(metric, models, indices)
            ordered = np.sort(b, axis=1)
            point[metric.name] = ordered[:, round(n_resamples / 2)]
            lows, highs = ordered[:, k], ordered[:, -k]
            decision[metric.name] = engine.win_fractions(b)
        else:
            stats = engine.model_statistics(metric, models)
            comparison = compare(
                dict(zip(names, stats, strict=True)), metric, n_resamples=n_resamples,
                seed=seed, alpha=alpha, correction=correction, confidence=1 - alpha,
                p_values="normal", indices=indices,
            )
            full[metric.name] = np.array([comparison.scores[m]["score"] for m in names])
            b = np.stack([comparison.resamples[m] for m in names])
            point[metric.name] = full[metric.name]
            lows = np.array([comparison.scores[m]["ci"][0] for m in names])
            highs = np.array([comparison.scores[m]["ci"][1] for m in names])
            index = {m: i for i, m in enumerate(names)}
            p = np.ones((len(names), len(names)))
            for pair in comparison.pairs:
                i, j = index[pair.system_a], index[pair.system_b]
                p[i, j] = p[j, i] = pair.adjusted_p_value
            decision[metric.name] = p
        boot[metric.name] = b
        wins = engine.win_fractions(b) if not exact else decision[metric.name]
        for i, m1 in enumerate(names):
            model_scores[m1][metric.name] = {"score": float(point[metric.name][i]),
                                             "low": float(lows[i]), "high": float(highs[i])}
            for j, m2 in enumerate(names):
                if i != j:
                    pair_probabilities[m1].setdefault(m2, {})[metric.name] = float(wins[i, j])

    pairs: list[dict] = []
    table: dict[str, list[dict]] = {}
    labels = [_bin_label(lo, hi) for lo, hi in pairwise(bins)]
    # every unordered pair once: model_a is the earlier model (the baseline), model_b the
    # later one, deltas are b - a and a verdict +1 means b is significantly better
    later, earlier = np.tril_indices(len(names), -1)
    order = np.lexsort((earlier, later))
    later, earlier = later[order], earlier[order]
    d_human = point["grade"][later] - point["grade"][earlier]
    v_human = _verdicts(decision["grade"][later, earlier], protocol, alpha, d_human)
    for metric in metric_stats:
        d_metric = point[metric.name][later] - point[metric.name][earlier]
        v_metric = _verdicts(decision[metric.name][later, earlier], protocol, alpha, d_metric)
        outcome = _outcomes(v_human, v_metric)
        delta_points = np.abs(d_metric) * metric.points
        bucket = np.floor(delta_points) if exact else delta_points  # the study's int()
        edges = np.asarray(bins, dtype=np.float64)
        found = np.searchsorted(edges, bucket, side="right") - 1  # lo <= bucket < hi
        bin_index = np.where((found >= 0) & (found < len(labels)), found, -1)
        rows: dict[str, dict[str, Any]] = {
            label: {"bin": label, "pairs": 0, "significant": 0, "not_significant": 0,
                    "mismatches": 0, "type_i": 0, "type_ii": 0, "opposite": 0}
            for label in labels + ["all"]}
        for key, chosen in [(label, bin_index == k) for k, label in enumerate(labels)] + [
                ("all", np.ones(len(bin_index), dtype=bool))]:
            row = rows[key]
            row["pairs"] = int(chosen.sum())
            row["significant"] = int((chosen & (v_metric != 0)).sum())
            row["not_significant"] = row["pairs"] - row["significant"]
            row["mismatches"] = int((chosen & (outcome != 0)).sum())
            row["type_ii"] = int((chosen & (outcome == 2)).sum())
            row["type_i"] = row["mismatches"] - row["type_ii"]
            row["opposite"] = int((chosen & (outcome == -1)).sum())
            row["mismatch_rate"] = row["mismatches"] / row["pairs"] if row["pairs"] else None
        table[metric.name] = list(rows.values())
        metric_points, human_points = metric.points, human.points
        pairs.extend(
            {"model_a": names[a], "model_b": names[b], "metric": metric.name,
             "metric_delta": dm, "human_delta": dh,
             "metric_delta_points": dm * metric_points, "human_delta_points": dh * human_points,
             "metric_verdict": vm, "human_verdict": vh, "outcome": OUTCOMES[oc],
             "bin": labels[k] if k >= 0 else None}
            for a, b, dm, dh, vm, vh, oc, k in zip(
                earlier.tolist(), later.tolist(), d_metric.tolist(), d_human.tolist(),
                v_metric.tolist(), v_human.tolist(), outcome.tolist(), bin_index.tolist(),
                strict=True)
        )

    corr = {}
    if correlations:
        corr = _correlations(
            grades, {m.name: m.item_values for m in metric_stats},
            full["grade"], {m.name: full[m.name] for m in metric_stats},
            boot["grade"], {m.name: boot[m.name] for m in metric_stats},
            correlation_resamples, seed, alpha,
        )
    return AgreementResult(
        protocol=protocol, aggregate=used_aggregate, n_resamples=n_resamples, seed=seed,
        alpha=alpha, bins=bins, systems=list(data.systems), models=names,
        metrics=[m.name for m in all_metrics],
        sources={m.name: m.source for m in all_metrics},
        synthetic={m.name: {"base": m.base, "percent": m.percent, "improve": m.improve}
                   for m in models if m.base is not None},
        pair_probabilities=pair_probabilities, model_scores=model_scores, pairs=pairs,
        table=table, correlations=corr, human_points=human.points,
        correction=correction if protocol == "default" else "none", notes=notes,
    )
