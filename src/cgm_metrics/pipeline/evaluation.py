"""The evaluation pipeline: from texts to results, the one path every front end calls.

``cgm score/compare/demo``, the Space and the library's :func:`score` go through here and
only parse arguments, format and draw:

1. :func:`load_metrics`: metric names (defaults :data:`DEFAULT_METRICS`), a language and
   options -> a :class:`MetricSet` of bound metrics, with the reason for every metric that
   was skipped (unavailable here, or not covering the language);
2. :class:`Evaluation`: the systems' outputs on shared references -> per-item statistics of
   every (metric, system), computed once, in one process, ``jobs`` processes or on Ray
   (the choice lives here);
3. :meth:`Evaluation.scores` -> :class:`ScoreResult` (scores with bootstrap intervals,
   per-item scores), :meth:`Evaluation.compare` -> :class:`CompareResult` (every pair:
   p-values, verdicts, minimum detectable differences; from
   :func:`cgm_metrics.significance.compare`), :meth:`Evaluation.items` (per-item scores with
   components and labels). Each result has ``to_dict()``.

The same pipeline on the tasks of a problem file, whose samples are judged in the sandbox
(``cgm score/compare --problems``), is
:class:`cgm_metrics.execution.problem_runs.ProblemEvaluation`.

>>> from cgm_metrics.pipeline.evaluation import Evaluation, load_metrics
>>> metric_set = load_metrics(["chrf_code"])
>>> evaluation = Evaluation(metric_set, [["x = 1"], ["y = 2"]],
...                         {"a": ["x = 1", "y = 3"], "b": ["x = 1", "y = 2"]})
>>> round(evaluation.scores().table["b"]["chrf_code"]["score"], 1)
100.0
>>> evaluation.compare().rows()["chrf_code"]["pairs"][0]["verdict"]
'no detectable difference'

Problems the user can fix raise :class:`~cgm_metrics.base.errors.InputError` (a ``ValueError``)
naming the metric, the system or the option.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from ..base.errors import InputError, MetricUnavailableError, UnsupportedLanguageError
from ..core.inputs import did_you_mean
from .registry import DEFAULT_METRICS as REGISTRY_DEFAULT_METRICS

if TYPE_CHECKING:
    import numpy as np

    from ..significance import Comparison
    from .metric import Metric

#: what ``cgm score/compare`` compute when no metric is named: the registry's table
DEFAULT_METRICS = REGISTRY_DEFAULT_METRICS
METHODS = ("paired_bootstrap", "approximate_randomization")


# ---------------------------------------------------------------- languages and metrics


def check_language(lang: Any, argument: str = "lang") -> str:
    """The canonical name of ``lang`` (built-in or plugin), or an :class:`InputError`
    listing every usable language."""
    from ..languages import resolve_language

    try:
        return resolve_language(lang, argument=argument).name
    except (ValueError, TypeError) as error:
        raise InputError(str(error)) from None


def describe_metrics(runs_code: bool | None = None) -> list[dict[str, Any]]:
    """The metadata of every registered metric that can be imported here (for menus,
    tables and ``--list-metrics``): ``{"name", "display_name", "description", "scale",
    "higher_is_better", "languages", "runs_code", "seconds_per_1k_chars", "plugin"}``.
    ``runs_code=False`` keeps only the metrics that never run the code they score."""
    from .registry import is_plugin, metric_class, metrics

    described = []
    for name in metrics():
        try:
            cls = metric_class(name)
        except ImportError:
            continue
        if runs_code is not None and bool(cls.runs_code) != runs_code:
            continue
        described.append({
            "name": name, "display_name": cls.display_name or name,
            "description": cls.description, "scale": float(cls.scale),
            "higher_is_better": bool(cls.higher_is_better), "languages": cls.languages,
            "runs_code": bool(cls.runs_code),
            "seconds_per_1k_chars": cls.seconds_per_1k_chars, "plugin": is_plugin(name),
        })
    return described


@dataclass
class MetricSet:
    """The metrics an evaluation runs, bound to the language and their options, and the
    ones it had to skip (with the reason)."""

    lang: str | None = None
    metrics: dict[str, Metric] = field(default_factory=dict)  # name -> bound metric, in order
    options: dict[str, dict] = field(default_factory=dict)  # name -> constructor options
    skipped: dict[str, str] = field(default_factory=dict)  # name -> reason

    @property
    def names(self) -> list[str]:
        return list(self.metrics)


class MetricCache:
    """Metrics built once and kept for the life of a process (a server: METEOR loads
    WordNet once, CodeBLEU its parsers), keyed by name and options; thread-safe."""

    def __init__(self) -> None:
        self._built: dict[tuple[str, str], Metric] = {}
        self._lock = threading.Lock()

    def get(self, name: str, options: dict[str, Any]) -> Metric:
        from .registry import get_metric

        key = (name, repr(sorted(options.items())))
        with self._lock:
            metric = self._built.get(key)
            if metric is None:
                metric = self._built[key] = get_metric(name, **options)
            return metric

    def clear(self) -> None:
        with self._lock:
            self._built.clear()


def load_metrics(
    names: Sequence[str] | None = None,
    lang: Any = None,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    *,
    explicit: bool | None = None,
    cache: MetricCache | None = None,
) -> MetricSet:
    """Bind each metric name (default :data:`DEFAULT_METRICS`) to ``lang`` and to
    ``options[name]``, in the given order (repeats dropped).

    An unknown name, language or option is an :class:`InputError`. A metric that cannot
    run here (not importable, a missing database such as WordNet) or does not cover ``lang``
    is skipped with the reason, or, when ``explicit`` (default: the names were given), an
    :class:`InputError`. ``lang=None`` leaves each metric its own default; a metric that
    covers only some languages then asks for it.
    """
    from .registry import get_metric, is_metric, metrics

    if explicit is None:
        explicit = names is not None
    names = list(DEFAULT_METRICS if names is None else names)
    if isinstance(names, str) or not all(isinstance(name, str) for name in names):
        raise InputError(f"Metrics must be a list of metric names, got {names!r}.")
    unknown = [name for name in names if not is_metric(name)]
    if unknown:
        raise InputError(f"Unknown metric {', '.join(repr(n) for n in unknown)}."
                         f"{did_you_mean(unknown[0], metrics())} Available "
                         f"metrics: {', '.join(metrics())} (and pass@k for any k).")
    lang = None if lang is None else check_language(lang)
    result = MetricSet(lang=lang)
    for name in dict.fromkeys(names):
        bound = {**({"lang": lang} if lang is not None else {}), **dict((options or {})
                                                                        .get(name) or {})}
        try:
            metric = cache.get(name, bound) if cache is not None else get_metric(name, **bound)
        except (ImportError, MetricUnavailableError, UnsupportedLanguageError) as error:
            reason = (str(error) if isinstance(error, UnsupportedLanguageError)
                      else f"it cannot run in this installation: {error}")
            if explicit:
                raise InputError(f"Metric {name!r} cannot run: {reason}") from None
            result.skipped[name] = reason
            continue
        except (ValueError, TypeError) as error:
            raise InputError(f"Metric {name!r}: {error}") from None
        result.metrics[name] = metric
        result.options[name] = bound
    if not result.metrics:
        skipped = "; ".join(f"{name}: {reason}" for name, reason in result.skipped.items())
        raise InputError(f"None of the metrics can run ({skipped}).")
    return result


def score(
    name: str,
    predictions: Any,
    references: Any,
    lang: str | None = None,
    per_item: bool = False,
    **options: Any,
) -> dict[str, Any]:
    """Score with the metric ``name``: ``{"score", components..., "per_item"?,
    "item_labels"?, "signature"}``.

    ``lang`` is required by the metrics that cover only some languages (CodeBLEU: a
    ``ValueError`` lists them, never Python by default); without it the others use their
    own default.
    """
    from .registry import get_metric

    bound = dict(options)
    if lang is not None:
        bound["lang"] = lang
    return get_metric(name, **bound).compute(predictions, references, per_item)


# ---------------------------------------------------------------- statistics


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


def _progress_bar(total: int, enabled: bool, description: str, unit: str = "item") -> Any:
    if not enabled or total <= 1:
        return _NoBar()
    try:
        from tqdm import tqdm
    except ImportError:  # the bar is a convenience; never fail without it
        return _NoBar()
    return tqdm(total=total, desc=description, unit=unit, file=sys.stderr, leave=False)


def compute_statistics(
    metric_set: MetricSet,
    systems: Mapping[str, list[str]],
    references: list[list[str]],
    *,
    jobs: int = 1,
    ray: str | None = None,
    progress: bool = False,
) -> dict[str, dict[str, np.ndarray]]:
    """``{metric: {system: stats[n_items, k]}}``: in this process, in ``jobs`` processes
    (:func:`cgm_metrics.pipeline.runner.compute_many`), or on the Ray cluster at ``ray`` ("local",
    "auto", "host:port"; :mod:`cgm_metrics.pipeline.distributed`). Every engine gives the same rows;
    ``progress`` shows a bar on stderr."""
    from ..core.inputs import check_inputs

    checked: dict[str, list[str]] = {}
    refs = references
    for system, predictions in systems.items():
        try:
            checked[system], refs = check_inputs(predictions, references)
        except (ValueError, TypeError) as error:
            raise InputError(f"System {system!r}: {error}") from None
    if ray is not None:
        return _ray_statistics(metric_set, checked, refs, ray, progress)
    from .runner import Task, compute_many

    keys = [(name, system) for name in metric_set.metrics for system in checked]
    tasks = [Task(metric_set.metrics[name], checked[system], refs) for name, system in keys]
    bar = _progress_bar(len(tasks) * len(refs), progress, "statistics")
    try:
        results = compute_many(tasks, jobs, bar.update if progress else None)
    finally:
        bar.close()
    out: dict[str, dict[str, np.ndarray]] = {name: {} for name in metric_set.metrics}
    for (name, system), stats in zip(keys, results, strict=True):
        out[name][system] = stats
    return out


def _ray_statistics(metric_set: MetricSet, systems: dict[str, list[str]],
                    references: list[list[str]], address: str, progress: bool):
    from . import distributed

    try:
        distributed.require_ray()
    except ImportError as error:
        raise InputError(str(error)) from None
    try:
        started = distributed.connect(address, log_to_driver=False)  # no worker logs on stderr
    except ConnectionError as error:
        raise InputError(f"Cannot join the Ray cluster at {address!r}: {error}") from None
    try:
        return distributed.ray_statistics_table(dict(metric_set.metrics), systems, references,
                                                progress=progress)
    finally:
        if started:
            distributed.disconnect()


# ---------------------------------------------------------------- results


@dataclass
class ScoreResult:
    """Scores of every system under every metric, with bootstrap intervals."""

    n_items: int
    lang: str | None
    metric_set: MetricSet
    statistics: dict[str, dict[str, Any]]  # metric -> system -> stats
    confidence: float
    n_resamples: int
    seed: int
    #: ``{system: {metric: {"score", "low", "high", components..., "signature"}}}``
    table: dict[str, dict[str, dict[str, Any]]]

    @property
    def systems(self) -> list[str]:
        return list(self.table)

    def to_dict(self) -> dict[str, Any]:
        return {"n_items": self.n_items, "lang": self.lang, "confidence": self.confidence,
                "n_resamples": self.n_resamples, "seed": self.seed,
                "metrics": self.metric_set.names, "skipped_metrics": dict(self.metric_set.skipped),
                "systems": self.table}

    def records(self) -> tuple[list[str], list[list[Any]]]:
        """The table as rows ``[system, metric, score, low, high]``, with headers."""
        rows = [[system, name, entry["score"], entry["low"], entry["high"]]
                for system, by_metric in self.table.items() for name, entry in by_metric.items()]
        return ["system", "metric", "score", "low", "high"], rows

    def per_item(self) -> list[dict[str, Any]]:
        """One record per system and item: ``{"item", "system", metric: score, ...}``."""
        names = self.metric_set.names
        scores = {name: {system: self.metric_set.metrics[name].item_scores(stats)
                         for system, stats in self.statistics[name].items()}
                  for name in names}
        return [{"item": index, "system": system,
                 **{name: float(scores[name][system][index]) for name in names}}
                for system in self.systems for index in range(self.n_items)]


@dataclass
class CompareResult:
    """Every pair of systems under every metric (:func:`cgm_metrics.significance.compare`)."""

    n_items: int
    lang: str | None
    systems: list[str]
    metric_set: MetricSet
    comparisons: dict[str, Comparison]
    #: method, correction, alpha, power, n_resamples (as asked; None: the method's default),
    #: seed, confidence
    settings: dict[str, Any]
    #: per metric, an exact test of every pair (in the order of the pairs) where the metric
    #: has one for these statistics: McNemar's for pass@1 with one sample a task
    exact_tests: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def rows(self) -> dict[str, dict[str, Any]]:
        """``{metric: {"scale", "signature", "higher_is_better", "scores": {system: {"score",
        "low", "high"}}, "pairs": [{"a", "b", "delta" (b - a), "p_value", "p_adjusted",
        "significant", "ci_delta", "mdd", "verdict", "test", "resampled"?,
        "exact_test"?}]}}``: what every front end displays. ``test`` names the test the
        pair's p-value, significance and verdict come from: McNemar's exact test
        (``"mcnemar_exact"``) where it applies (pass@1 with one sample a task: the outcomes
        are paired binary, and the exact test is the test), else the resampling ``method``;
        the resampled test's own p-values are then in ``resampled`` (``{"method",
        "p_value", "p_adjusted", "significant"}``), and ``ci_delta`` is always the
        resampled interval of the difference. ``exact_test``: ``{"test", "only_a_passes",
        "only_b_passes", "both_pass", "neither_passes", "p_value", "p_adjusted"}``."""
        from ..significance.paired import exact_test_override

        out = {}
        method = self.settings.get("method")
        for name, comparison in self.comparisons.items():
            rows = comparison.rows()
            for pair in rows["pairs"]:
                pair["test"] = method
            for pair, exact in zip(rows["pairs"], self.exact_tests.get(name, ()), strict=False):
                pair["exact_test"] = exact
                pair.update(exact_test_override(pair, exact, comparison.alpha, method,
                                                comparison.higher_is_better, pair["a"],
                                                pair["b"]))
            out[name] = {"scale": self.metric_set.metrics[name].scale,
                         "signature": self.metric_set.metrics[name].signature(),
                         "higher_is_better": comparison.higher_is_better, **rows}
        return out

    def to_dict(self) -> dict[str, Any]:
        settings = {key: value for key, value in self.settings.items() if key != "confidence"}
        return {"n_items": self.n_items, "lang": self.lang, "systems": self.systems,
                **settings, "skipped_metrics": dict(self.metric_set.skipped),
                "metrics": self.rows()}

    def records(self) -> tuple[list[str], list[list[Any]]]:
        """Every pair of every metric as a row, with headers (the ``--csv`` table)."""
        headers = ["metric", "system_a", "system_b", "score_a", "score_b", "delta_b_minus_a",
                   "p_value", "p_adjusted", "significant", "mdd", "verdict"]
        rows = []
        for name, result in self.rows().items():
            for p in result["pairs"]:
                rows.append([name, p["a"], p["b"], result["scores"][p["a"]]["score"],
                             result["scores"][p["b"]]["score"], p["delta"], p["p_value"],
                             p["p_adjusted"], p["significant"], p["mdd"], p["verdict"]])
        return headers, rows

    def differences(self) -> dict[str, dict[str, np.ndarray]]:
        """Per metric, ``{"a vs b": resampled differences b - a}`` (the draws behind the
        intervals and p-values), for plots."""
        return {name: comparison.differences()
                for name, comparison in self.comparisons.items()}


# ---------------------------------------------------------------- the evaluation


class Evaluation:
    """Systems' outputs on shared references under a :class:`MetricSet`.

    The per-item statistics are computed once, on first need, and serve :meth:`scores`,
    :meth:`compare` and :meth:`items` alike.
    """

    def __init__(
        self,
        metric_set: MetricSet,
        references: Any,
        systems: Mapping[str, Any],
        *,
        jobs: int = 1,
        ray: str | None = None,
        progress: bool = False,
    ) -> None:
        if not isinstance(systems, Mapping) or not systems:
            raise InputError("Give at least one system's outputs ({name: predictions}).")
        from .runner import check_jobs

        try:
            self.jobs = check_jobs(jobs)
        except ValueError as error:
            raise InputError(str(error)) from None
        self.metric_set = metric_set
        self.references = references
        self.systems = dict(systems)
        self.ray = ray
        self.progress = progress

    @property
    def n_items(self) -> int:
        return len(self.references)

    @cached_property
    def statistics(self) -> dict[str, dict[str, np.ndarray]]:
        """``{metric: {system: stats[n_items, k]}}``."""
        return compute_statistics(self.metric_set, self.systems, self.references,
                                  jobs=self.jobs, ray=self.ray, progress=self.progress)

    def scores(self, n_resamples: int = 1000, seed: int = 12345,
               confidence: float = 0.95) -> ScoreResult:
        """Every system's score under every metric with a percentile bootstrap interval
        (none for a single item), its components and the metric's signature."""
        from ..significance import bootstrap_ci

        table: dict[str, dict[str, dict[str, Any]]] = {system: {} for system in self.systems}
        for name, metric in self.metric_set.metrics.items():
            for system in self.systems:
                rows = self.statistics[name][system]
                entry: dict[str, Any] = {"score": metric.corpus_score(rows), "low": None,
                                         "high": None}
                if len(rows) >= 2:  # an interval needs 2 items
                    value, low, high = bootstrap_ci(rows, metric, n_resamples=n_resamples,
                                                    seed=seed, confidence=confidence)
                    entry.update(score=float(value), low=float(low), high=float(high))
                for key, part in metric.components_from_statistics(rows.sum(axis=0)).items():
                    entry[key] = float(part)
                entry["signature"] = metric.signature()
                table[system][name] = entry
        return ScoreResult(self.n_items, self.metric_set.lang, self.metric_set,
                           self.statistics, confidence, n_resamples, seed, table)

    def check_comparable(self) -> None:
        """An :class:`InputError` unless there are 2 systems and 2 items or more."""
        if len(self.systems) < 2:
            raise InputError(f"A comparison needs at least two systems, got "
                             f"{len(self.systems)}.")
        if self.n_items < 2:
            raise InputError(f"A comparison needs at least 2 items for a paired test, got "
                             f"{self.n_items}; score a single item instead.")

    def compare(self, method: str = "paired_bootstrap", n_resamples: int | None = None,
                seed: int = 12345, alpha: float = 0.05, correction: str = "holm",
                power: float | None = 0.8, confidence: float = 0.95) -> CompareResult:
        """Scores with intervals and every pair of systems tested under every metric
        (a is the earlier system, delta = b - a), p-values adjusted over the pairs."""
        from ..significance import compare

        self.check_comparable()
        comparisons = {
            name: compare(self.statistics[name], metric, method=method,
                          n_resamples=n_resamples, seed=seed, alpha=alpha,
                          correction=correction, confidence=confidence, power=power)
            for name, metric in self.metric_set.metrics.items()
        }
        settings = {"method": method, "correction": correction, "alpha": alpha, "power": power,
                    "n_resamples": n_resamples, "seed": seed, "confidence": confidence}
        return CompareResult(self.n_items, self.metric_set.lang, list(self.systems),
                             self.metric_set, comparisons, settings,
                             self._exact_tests(comparisons, correction))

    def _exact_tests(self, comparisons: dict[str, Comparison],
                     correction: str) -> dict[str, list[dict[str, Any]]]:
        """The metrics' own exact tests of every pair (McNemar's on the verdicts of
        ``metric.paired_outcomes(stats_a, stats_b)``, for pass@1 with one sample a task),
        their p-values adjusted over the pairs as the resampled ones are."""
        from ..significance import adjust
        from ..significance.classical import metric_exact_test

        out: dict[str, list[dict[str, Any]]] = {}
        for name, comparison in comparisons.items():
            metric = self.metric_set.metrics[name]
            if getattr(metric, "paired_outcomes", None) is None:
                continue
            stats = self.statistics[name]
            found = [metric_exact_test(metric, stats[pair.system_a], stats[pair.system_b])
                     for pair in comparison.pairs]
            results = [result for result in found if result is not None]
            if not results or len(results) < len(found):
                continue
            adjusted = adjust([result["p_value"] for result in results], correction)
            out[name] = [{**result, "p_adjusted": float(q)}
                         for result, q in zip(results, adjusted.tolist(), strict=True)]
        return out

    def items(self, system: str) -> list[dict[str, dict[str, Any]]]:
        """Per item of ``system``: ``{metric: {"score", "components"?, label...}}`` (e.g.
        CodeBLEU's four parts, RUBY's level)."""
        out: list[dict[str, dict[str, Any]]] = [{} for _ in range(self.n_items)]
        for name, metric in self.metric_set.metrics.items():
            stats = self.statistics[name][system]
            labels = metric.item_labels(stats)
            scores = metric.item_scores(stats)
            for index, row in enumerate(stats):
                entry: dict[str, Any] = {"score": float(scores[index])}
                components = metric.components_from_statistics(row)
                if components:
                    entry["components"] = {k: float(v) for k, v in components.items()}
                entry.update({key: values[index] for key, values in labels.items()})
                out[index][name] = entry
        return out
