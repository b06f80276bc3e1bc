"""The Space's three views, each a function from what the user typed or uploaded to the
numbers to display, all computed by :mod:`cgm_metrics.pipeline.evaluation` (the path of ``cgm``):

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

import shlex
from typing import Any

from ...base.errors import InputError
from ...base.io import escape_code
from ...languages import DEFAULT_LANGUAGE
from ...pipeline import evaluation
from . import limits as _limits
from .limits import (
    ALPHA,
    RESAMPLES,
    SEED,
    SpaceInputError,
    item_sizes,
    plan_metrics,
    test_seconds,
)
from .uploads import _friendly, check_upload, escaped_warning, read_uploads

#: metrics built once for the life of the server (METEOR loads WordNet once)
METRICS = evaluation.MetricCache()
DEFAULT_SYSTEM_METRICS = evaluation.DEFAULT_METRICS

def _examples() -> list[tuple[str, str, str, str, str]]:
    """The side-by-side examples of the language modules (``Language.examples``): the default
    language's first, then the others' by name."""
    from ...languages import builtin

    languages = sorted(builtin().values(), key=lambda x: (x.name != DEFAULT_LANGUAGE, x.name))
    return [(language.name, *example) for language in languages
            for example in language.examples]


#: (language, reference, candidate A, B, C) of the Space's side-by-side examples
EXAMPLES: list[tuple[str, str, str, str, str]] = _examples()



# ---------------------------------------------------------------- choices


def language_choices() -> list[str]:
    """Every usable language (built-in and plugins), for the language menus."""
    from ...languages import names

    return names("parsing")


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


def warm_up(languages: Any = None, plots: bool = False) -> None:
    """Load every metric and parser once (METEOR's WordNet, the tree-sitter grammars, the
    compiled CodeBLEU kernels) by scoring a small realistic pair in every language, so that
    no user request pays for loading: the time budget is for scoring. ``plots``: load
    matplotlib too (the agreement plot)."""
    reference = ("def mean(values):\n    if not values:\n        return 0.0\n"
                 "    total = 0\n    for v in values:\n        total += v\n"
                 "    return total / len(values)\n")
    candidates = [reference.replace("values", "xs"), "def mean(xs):\n    return sum(xs) / len(xs)\n"]
    import warnings

    for lang in languages or language_choices():
        try:
            with warnings.catch_warnings():  # the warm-up's own calls warn nobody
                warnings.simplefilter("ignore", UserWarning)
                side_by_side(reference, candidates, lang)
        except Exception:  # noqa: BLE001 - a language that cannot warm up is loaded later
            continue
    # a comparison too: reading uploads, the significance tests (scipy), tables and the plot
    import tempfile
    from pathlib import Path

    from .html import systems_html
    from .plots import differences_svg

    with tempfile.TemporaryDirectory(prefix="cgm-space-warm-") as folder:
        paths = [Path(folder) / name for name in ("references.txt", "a.txt", "b.txt")]
        for path, text in zip(paths, [reference, candidates[0], candidates[1]], strict=True):
            path.write_text("\n".join([escape_code(text)] * 3) + "\n", encoding="utf-8")
        result = compare_uploads(paths[0], paths[1:], DEFAULT_LANGUAGE, ["chrf_code"],
                                 unescape=True)
        differences_svg(result)
        systems_html(result)
    if plots:
        import matplotlib

        matplotlib.use("Agg", force=True)
        from matplotlib.figure import Figure

        figure = Figure(figsize=(1, 1))  # fonts and the backend, loaded once
        figure.subplots().plot([0.0, 1.0], label="x")
        figure.savefig(__import__("io").BytesIO(), format="png")


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


def score_command(name: str, lang: str) -> str:
    """The ``cgm`` command that scores candidates against a reference with ``name``."""
    return (f"cgm score --predictions candidates.jsonl --lang {lang} --metrics {name} "
            "--per-item scores.csv")


SCORE_FILE_HINT = (' (candidates.jsonl: one line per candidate, {"prediction": candidate, '
                   '"references": [reference]})')


def side_by_side(
    reference: Any, candidates: Any, lang: Any = DEFAULT_LANGUAGE, metrics: Any = None
) -> dict[str, Any]:
    """Every metric for every candidate against one reference.

    Returns ``{"lang", "metrics": [names], "scales": {name: 1 or 100}, "skipped": {name:
    reason}, "candidates": [{"label", "code", "scores": {name: {"score", "components"?,
    "level"?}}}]}``.
    """
    lang = check_language(lang)
    reference, labelled = check_snippets(reference, candidates)
    chosen = _chosen(metrics, metric_choices())
    sizes = item_sizes([[code for _, code in labelled]], [[reference]] * len(labelled))
    plan = plan_metrics(chosen, sizes, lang, command=lambda name: score_command(name, lang))
    metric_set = _load(plan.admitted, lang)
    skipped = {**metric_set.skipped,
               **{name: reason + SCORE_FILE_HINT for name, reason in plan.skipped.items()}}
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


def compare_command(names: str, lang: str, files: list[str], unescape: bool = False) -> str:
    """The ``cgm compare`` command for the uploaded files (their names, references first)."""
    references, *systems = (shlex.quote(name) for name in files)
    return (f"cgm compare --references {references} {' '.join(systems)} --lang {lang} "
            f"--metrics {names}" + (" --unescape" if unescape else ""))


def compare_uploads(
    references_path: Any, system_paths: Any, lang: Any = DEFAULT_LANGUAGE, metrics: Any = None,
    seed: int = SEED, unescape: bool = False,
) -> dict[str, Any]:
    """Scores with 95% CIs, Holm-adjusted paired bootstrap tests and verdicts per metric
    (:meth:`cgm_metrics.pipeline.evaluation.Evaluation.compare`, what ``cgm compare`` prints), plus
    the bootstrap differences for the plot.

    Plain-text uploads are read verbatim unless ``unescape``; read so, files whose lines look
    like escaped multi-line code get a warning (``"warnings"``).

    Returns ``{"n_items", "lang", "systems", "skipped", "warnings", "metrics": {name: {"scale",
    "signature", "higher_is_better", "scores": {system: {"score", "low", "high"}}, "pairs":
    [{"a", "b", "delta" (b - a), "p_value", "p_adjusted", "significant", "mdd",
    "verdict"}]}}, "differences": {name: {"a vs b": ndarray of bootstrap B - A}}}``.
    """
    lang = check_language(lang)
    chosen = _chosen(metrics, DEFAULT_SYSTEM_METRICS)
    unescape = unescape is True
    references, systems, files = read_uploads(references_path, system_paths, unescape)
    escaped = None if unescape else escaped_warning(references, systems, files)
    sizes = item_sizes(systems.values(), references)
    n_chars = sum(sizes)
    n_systems = len(systems)

    def command(name: str) -> str:
        return compare_command(name, lang, files, unescape)

    plan = plan_metrics(chosen, sizes, lang, test_seconds(len(references), n_systems),
                        command)
    if not plan.admitted:
        raise SpaceInputError(
            f"This comparison is too large for the Space ({n_systems} systems x "
            f"{len(references):,} items, {n_chars:,} characters to score): even the cheapest "
            f"chosen metric would take more than the {_limits.TIME_BUDGET:g} s the Space allows "
            f"a request. Compute it with `{command(' '.join(chosen))}` (pip install "
            "cgm-metrics), or upload fewer items or systems here."
        )
    names = plan.admitted
    too_large = plan.skipped
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
            "seed": seed, "n_resamples": RESAMPLES, "alpha": ALPHA,
            "warnings": [escaped] if escaped else []}


# ---------------------------------------------------------------- agreement


BIN_PRESETS = {"CoNaLa (0, 2, 5, 10, 100)": (0, 2, 5, 10, 100),
               "HearthStone (0, 1, 2, 4, 100)": (0, 1, 2, 4, 100)}


def agreement_upload(path: Any, protocol: str = "default", bins: Any = None) -> Any:
    """The :class:`~cgm_metrics.agreement.AgreementResult` of an uploaded graded JSONL,
    within :data:`LIMITS` (rows, systems)."""
    from ...agreement import read_graded_jsonl, run_agreement

    graded = check_upload(path, "a graded JSONL file", (".jsonl", ".ndjson", ".json"))
    limits = _limits.LIMITS
    with graded.open("rb") as handle:
        rows = sum(1 for line in handle if line.strip())
    if rows > limits.max_graded_rows:
        raise SpaceInputError(
            f"{graded.name} has {rows:,} rows; the limit here is {limits.max_graded_rows:,}. "
            f"Analyse it with `cgm agreement {shlex.quote(graded.name)}` (pip install "
            "cgm-metrics).")
    if isinstance(bins, str):
        bins = BIN_PRESETS.get(bins)
    try:
        data = read_graded_jsonl(graded)
        if data.n_systems > limits.max_graded_systems:
            raise SpaceInputError(
                f"{graded.name} has {data.n_systems:,} systems; the limit here is "
                f"{limits.max_graded_systems} (each system adds 16 synthetic models, and the "
                "analysis compares every pair of models). Analyse it with `cgm agreement "
                f"{shlex.quote(graded.name)}` (pip install cgm-metrics), or upload fewer "
                "systems here.")
        return run_agreement(data, protocol=protocol, bins=bins)
    except (ValueError, TypeError) as error:
        raise _friendly(error, [graded]) from None
