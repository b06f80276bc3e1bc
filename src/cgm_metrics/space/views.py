"""The Space's three views, each a function from what the user typed or uploaded to the
numbers to display, all computed by :mod:`cgm_metrics.evaluation` (the path of ``cgm``):

* :func:`side_by_side`: one reference and two or more candidate snippets scored by every
  metric that fits the time budget (with CodeBLEU's four parts and the RUBY level used);
* :func:`compare_uploads`: a references file and two or more system files -> scores with 95%
  intervals, Holm-adjusted pairwise tests with verdicts, and the bootstrap differences;
* :func:`agreement_upload`: a graded-outputs JSONL -> :mod:`cgm_metrics.agreement`'s result.

The metrics and languages offered are the registry's (built-in and plugins): every metric
that never runs code, every usable language. No code is ever executed and nothing reaches
the network.
"""

from __future__ import annotations

from typing import Any

from .. import evaluation
from ..errors import InputError
from . import limits as _limits
from .limits import ALPHA, RESAMPLES, SEED, SpaceInputError, plan_metrics
from .uploads import _friendly, check_upload, read_uploads

#: metrics built once for the life of the server (METEOR loads WordNet once)
METRICS = evaluation.MetricCache()
DEFAULT_SYSTEM_METRICS = evaluation.DEFAULT_METRICS

EXAMPLES: list[tuple[str, str, str, str, str]] = [
    (
        "python",
        "def add(a, b):\n    return a + b",
        "def add(x, y):\n    return x + y",
        "def add(a, b):\n    return a - b",
        "def add(a, b):\n    result = a\n    result += b\n    return result",
    ),
    (
        "python",
        "def mean(values):\n    if not values:\n        return 0.0\n"
        "    return sum(values) / len(values)",
        "def mean(xs):\n    return sum(xs) / len(xs) if xs else 0.0",
        "def mean(values):\n    total = 0\n    for v in values:\n        total += v\n"
        "    return total / len(values)",
        "",
    ),
    (
        "java",
        "int max(int a, int b) {\n    return a > b ? a : b;\n}",
        "int max(int a, int b) {\n    if (a > b) return a;\n    return b;\n}",
        "int max(int x, int y) {\n    return Math.max(x, y);\n}",
        "",
    ),
]



# ---------------------------------------------------------------- choices


def language_choices() -> list[str]:
    """Every usable language (built-in and plugins), for the language menus."""
    from ..core.languages import supported_languages

    return supported_languages()


def metric_choices() -> list[str]:
    """Every registered metric that never runs the code it scores, the default ones first,
    for the metric menus and the side-by-side table."""
    names = [entry["name"] for entry in evaluation.describe_metrics(runs_code=False)]
    first = [name for name in DEFAULT_SYSTEM_METRICS if name in names]
    return first + [name for name in names if name not in first]


def check_language(lang: Any) -> str:
    try:
        return evaluation.check_language(lang)
    except InputError as error:
        raise SpaceInputError(str(error)) from None


def _chosen(names: Any, default: Any) -> list[str]:
    """The metric names asked for (``default`` when none), checked against the offered ones."""
    names = names or list(default)
    if isinstance(names, str) or not isinstance(names, (list, tuple)):
        raise SpaceInputError("Metrics must be a list of metric names.")
    offered = metric_choices()
    unknown = [name for name in names if name not in offered]
    if unknown:
        raise SpaceInputError(f"Unknown metric {unknown[0]!r}; choose from {', '.join(offered)}.")
    return list(dict.fromkeys(names))


def _load(names: list[str], lang: str) -> evaluation.MetricSet:
    """The chosen metrics bound to ``lang``; a metric that cannot run here or does not
    cover ``lang`` is skipped with the reason rather than failing the request."""
    if not names:
        return evaluation.MetricSet(lang=lang)
    try:
        return evaluation.load_metrics(names, lang, explicit=False, cache=METRICS)
    except InputError as error:
        raise SpaceInputError(str(error)) from None


def warm_up(languages: Any = None) -> None:
    """Load every metric and parser once (METEOR's WordNet, the tree-sitter grammars), so
    that no user request pays for loading: the time budget is for scoring."""
    from .plots import _figure_image, _pyplot

    for lang in languages or language_choices():
        try:
            side_by_side("x = 1", ["x = 2", "y = 1"], lang)
        except Exception:  # noqa: BLE001 - a language that cannot warm up is loaded later
            continue
    figure = _pyplot()(figsize=(1, 1))  # matplotlib's fonts and backend, loaded once
    figure.subplots().hist([0.0, 1.0], label="x")
    _figure_image(figure)


# ---------------------------------------------------------------- side by side


def check_snippets(reference: Any, candidates: Any) -> tuple[str, list[tuple[str, str]]]:
    """The reference and the non-empty candidates as ``[(label, code)]``; labels are A, B, ..."""
    if not isinstance(reference, str) or not reference.strip():
        raise SpaceInputError("Enter a reference snippet (the code you consider correct).")
    if not isinstance(candidates, (list, tuple)):
        raise SpaceInputError("Candidates must be a list of code snippets.")
    labelled = []
    for index, code in enumerate(candidates):
        if code is None:
            continue
        if not isinstance(code, str):
            raise SpaceInputError(f"Candidate {chr(65 + index)} must be text.")
        if code.strip():
            labelled.append((chr(65 + index), code))
    if len(labelled) < 2:
        raise SpaceInputError(
            f"Enter at least two candidate snippets to compare (got {len(labelled)})."
        )
    if len(labelled) > _limits.LIMITS.max_candidates:
        raise SpaceInputError(f"At most {_limits.LIMITS.max_candidates} candidates at a time.")
    for label, code in [("the reference", reference)] + [
        (f"candidate {label}", code) for label, code in labelled
    ]:
        if len(code) > _limits.LIMITS.max_snippet_chars:
            raise SpaceInputError(
                f"{label[0].upper() + label[1:]} has {len(code):,} characters; the limit here "
                f"is {_limits.LIMITS.max_snippet_chars:,}. Score longer code with the `cgm` command."
            )
    return reference, labelled


def side_by_side(
    reference: Any, candidates: Any, lang: Any = "python", metrics: Any = None
) -> dict[str, Any]:
    """Every metric for every candidate against one reference.

    Returns ``{"lang", "metrics": [names], "scales": {name: 1 or 100}, "skipped": {name:
    reason}, "candidates": [{"label", "code", "scores": {name: {"score", "components"?,
    "level"?}}}]}``.
    """
    lang = check_language(lang)
    reference, labelled = check_snippets(reference, candidates)
    chosen = _chosen(metrics, metric_choices())
    n_chars = sum(len(code) + len(reference) for _, code in labelled)
    names, too_large = plan_metrics(chosen, n_chars)
    metric_set = _load(names, lang)
    skipped = {**metric_set.skipped, **too_large}
    per_item: list[dict[str, Any]] = [{} for _ in labelled]
    if metric_set.metrics:
        scoring = evaluation.Evaluation(metric_set, [[reference] for _ in labelled],
                                        {"candidates": [code for _, code in labelled]})
        try:
            per_item = scoring.items("candidates")
        except InputError as error:
            raise SpaceInputError(str(error)) from None
    return {
        "lang": lang,
        "metrics": metric_set.names,
        "scales": {name: float(metric.scale) for name, metric in metric_set.metrics.items()},
        "skipped": skipped,
        "candidates": [
            {"label": label, "code": code, "scores": per_item[index]}
            for index, (label, code) in enumerate(labelled)
        ],
    }


# ---------------------------------------------------------------- systems


def compare_uploads(
    references_path: Any, system_paths: Any, lang: Any = "python", metrics: Any = None,
    seed: int = SEED, unescape: bool = False,
) -> dict[str, Any]:
    """Scores with 95% CIs, Holm-adjusted paired bootstrap tests and verdicts per metric
    (:meth:`cgm_metrics.evaluation.Evaluation.compare`, what ``cgm compare`` prints), plus
    the bootstrap differences for the plot.

    Returns ``{"n_items", "lang", "systems", "skipped", "metrics": {name: {"scale",
    "signature", "higher_is_better", "scores": {system: {"score", "low", "high"}}, "pairs":
    [{"a", "b", "delta" (b - a), "p_value", "p_adjusted", "significant", "mdd",
    "verdict"}]}}, "differences": {name: {"a vs b": ndarray of bootstrap B - A}}}``.
    """
    lang = check_language(lang)
    chosen = _chosen(metrics, DEFAULT_SYSTEM_METRICS)
    references, systems = read_uploads(references_path, system_paths, unescape)
    n_chars = sum(len(p) + sum(len(r) for r in refs)
                  for predictions in systems.values()
                  for p, refs in zip(predictions, references, strict=True))
    n_systems = len(systems)
    test_seconds = (_limits.SECONDS_PER_TEST_UNIT * len(references)
                    * (n_systems + n_systems * (n_systems - 1) // 2))
    names, too_large = plan_metrics(chosen, n_chars, test_seconds, "cgm compare")
    if not names:
        raise SpaceInputError(
            f"This comparison is too large for the Space ({n_systems} systems x "
            f"{len(references):,} items, {n_chars:,} characters to score): it would take "
            f"more than the {_limits.TIME_BUDGET:g} s the Space allows a request. Use `cgm "
            "compare` (pip install cgm-metrics) on your machine, or upload fewer items or "
            "systems (chrf_code is the cheapest metric)."
        )
    metric_set = _load(names, lang)
    skipped = {**metric_set.skipped, **too_large}
    if not metric_set.metrics:
        raise SpaceInputError("None of the chosen metrics can run here: "
                              + "; ".join(f"{k}: {v}" for k, v in skipped.items()))
    try:
        result = evaluation.Evaluation(metric_set, references, systems).compare(
            n_resamples=RESAMPLES, seed=seed, alpha=ALPHA, correction="holm", power=0.8)
    except InputError as error:
        raise SpaceInputError(str(error)) from None
    return {"n_items": len(references), "lang": lang, "systems": result.systems,
            "skipped": skipped, "metrics": result.rows(), "differences": result.differences(),
            "seed": seed, "n_resamples": RESAMPLES, "alpha": ALPHA}


# ---------------------------------------------------------------- agreement


BIN_PRESETS = {"CoNaLa (0, 2, 5, 10, 100)": (0, 2, 5, 10, 100),
               "HearthStone (0, 1, 2, 4, 100)": (0, 1, 2, 4, 100)}


def agreement_upload(path: Any, protocol: str = "default", bins: Any = None) -> Any:
    """The :class:`~cgm_metrics.agreement.AgreementResult` of an uploaded graded JSONL."""
    from ..agreement import run_agreement

    graded = check_upload(path, "a graded JSONL file", (".jsonl", ".ndjson", ".json"))
    with graded.open("rb") as handle:
        rows = sum(1 for line in handle if line.strip())
    if rows > _limits.LIMITS.max_graded_rows:
        raise SpaceInputError(f"{graded.name} has {rows:,} rows; the limit here is "
                              f"{_limits.LIMITS.max_graded_rows:,}. Use `cgm agreement` for it.")
    if isinstance(bins, str):
        bins = BIN_PRESETS.get(bins)
    try:
        return run_agreement(graded, protocol=protocol, bins=bins)
    except (ValueError, TypeError) as error:
        raise _friendly(error, [graded]) from None

