"""The logic of the Gradio Space (``spaces/app.py``), testable without a browser.

Three views, each a pure function from user input to numbers, HTML and images:

* :func:`side_by_side`: one reference and two or more candidate snippets scored by every
  registered metric (with CodeBLEU's four parts and the RUBY level used), a highlighted
  diff of each candidate against the reference (:func:`diff_html`) and what each number means.
* :func:`compare_uploads`: a references file and two or more system files (the formats of
  the ``cgm`` readers) -> scores with 95% intervals, Holm-adjusted pairwise tests with
  verdicts, and the bootstrap distributions of every difference (:func:`plot_differences`).
* :func:`agreement_upload`: a graded-outputs JSONL -> the agreement table and the metric vs
  human plot of :mod:`cgm_metrics.agreement`.

Everything is bounded (:data:`LIMITS`): a problem the user can fix raises
:class:`SpaceInputError` with a message meant for a browser. No code is ever executed (the
edit_sim metric is used for EDIT-SIM only, never with unit tests) and nothing here reaches
the network.

>>> result = side_by_side("x = a + b", ["x = a + b", "x = a - b"], metrics=["chrf_code"])
>>> [round(c["scores"]["chrf_code"]["score"], 2) for c in result["candidates"]]
[100.0, 32.67]
"""

from __future__ import annotations

import html
import io
import os
import re
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .io import InputError, check_same_length, read_predictions, read_references, safe_name

SIDE_BY_SIDE_METRICS = ("chrf_code", "codebleu", "ruby", "bleu", "rouge_l", "meteor", "edit_sim")
SYSTEM_METRICS = ("chrf_code", "codebleu", "ruby", "bleu", "rouge_l", "meteor", "edit_sim")
DEFAULT_SYSTEM_METRICS = ("chrf_code", "codebleu", "ruby")
SEED = 12345
RESAMPLES = 1000
ALPHA = 0.05


class SpaceInputError(ValueError):
    """A problem with what the user typed or uploaded, phrased for the browser."""


@dataclass(frozen=True)
class Limits:
    """What one request may ask for; the cost of a request is bounded by these."""

    max_snippet_chars: int = 5_000  # per snippet in the side-by-side view
    max_candidates: int = 4
    max_upload_bytes: int = 2_000_000  # per uploaded file
    max_items: int = 500  # per system file
    max_item_chars: int = 5_000  # per prediction or reference in uploaded files
    max_systems: int = 5
    max_graded_rows: int = 5_000


LIMITS = Limits()

# ---------------------------------------------------------------- the time budget
#
# Every request answers within TIME_BUDGET seconds. Before computing anything, the cost of
# each chosen metric is estimated from the characters it would score (each candidate or
# prediction together with its reference) at the worst rate measured on the Space's machine
# for code shaped to be slow (long flat code, deep nesting, many blocks: see
# benchmarks/space.py); a comparison adds the cost of its significance tests. Metrics are
# admitted in the order chosen while the estimates fit METRIC_BUDGET; the others are
# reported as too large for the Space, with the `cgm` command to use instead.

TIME_BUDGET = 2.0  # seconds per request
METRIC_BUDGET = 1.5  # seconds of it for metrics and tests; the rest for diffs, tables, plots
SECONDS_PER_1K_CHARS = {  # worst measured rate, seconds per 1,000 characters scored
    "chrf_code": 0.003, "codebleu": 0.2, "ruby": 0.27, "bleu": 0.03, "rouge_l": 0.005,
    "meteor": 0.015, "edit_sim": 0.002,
}
SECONDS_PER_TEST_UNIT = 0.0006  # significance tests: per item x (systems + pairs), per metric


def estimated_seconds(name: str, n_chars: int) -> float:
    """The budget's estimate of scoring ``n_chars`` characters with the metric ``name``."""
    return SECONDS_PER_1K_CHARS.get(name, max(SECONDS_PER_1K_CHARS.values())) * n_chars / 1000


def plan_metrics(names: list[str], n_chars: int, fixed_seconds: float = 0.0,
                 command: str = "cgm score") -> tuple[list[str], dict[str, str]]:
    """``(admitted, {skipped: reason})``: as many of the metrics as fit :data:`METRIC_BUDGET`
    by estimated cost (plus ``fixed_seconds`` each, for the tests), cheapest first; the
    admitted ones keep the order of ``names``."""
    admitted: list[str] = []
    skipped: dict[str, str] = {}
    spent = 0.0
    costs = {name: estimated_seconds(name, n_chars) + fixed_seconds for name in names}
    for name in sorted(names, key=costs.__getitem__):
        cost = costs[name]
        if spent + cost <= METRIC_BUDGET:
            admitted.append(name)
            spent += cost
        else:
            skipped[name] = (
                f"too large for the Space: {n_chars:,} characters to score would take about "
                f"{cost:.1f} s, and the Space answers every request within "
                f"{TIME_BUDGET:g} s. Use `{command}` (pip install cgm-metrics) for this input, "
                "or shorten it here."
            )
    return [name for name in names if name in admitted], {
        name: skipped[name] for name in names if name in skipped}

EXPLANATIONS: dict[str, str] = {
    "chrf_code": "chrF: F-score (recall weighted twice, beta=2) of character 1-6-grams, 0-100, "
    "identical to sacrebleu's chrF. In Out of the BLEU it agreed with programmers' "
    "judgements better than BLEU and CodeBLEU.",
    "codebleu": "CodeBLEU: the mean of four parts, 0-1: n-gram match (BLEU), weighted n-gram "
    "match (keywords count more), syntax match (AST subtrees) and dataflow match "
    "(variable dependencies). Identical to the codebleu package.",
    "ruby": "RUBY: similarity of program-dependence graphs, or of syntax trees when the graph "
    "cannot be built, or of token strings when the code does not parse; 0-1. The level "
    "shows which one was used.",
    "bleu": "BLEU: 1-4-gram precision with a brevity penalty on code tokens, 0-100. On a "
    "single short snippet it is noisy (one missing 4-gram changes it a lot).",
    "rouge_l": "ROUGE-L: F-measure of the longest common token subsequence, 0-1.",
    "meteor": "METEOR: unigram alignment with stems and WordNet synonyms, with a penalty for "
    "fragmented matches, 0-1.",
    "edit_sim": "EDIT-SIM: 1 - character edit distance / length of the longer string, 0-1 "
    "(Dibia et al. 2023). The code is never run here.",
}

TRUST_NOTE = (
    "**How far to trust these numbers.** One snippet is one item; metric differences are "
    "noisy. Differences under 2 points (0.02 on 0-1 scales) are often not significant "
    "(Roy et al. 2021), and on CoNaLa no metric reproduced programmers' preferences with "
    "95% certainty below a 5-point difference (2 points on HearthStone; Evtikhiev et al. "
    "2023, *Out of the BLEU*). chrF agreed with humans better than BLEU and CodeBLEU there. "
    "To claim one system is better, score a whole test set in the **Systems** tab, which "
    "runs a paired significance test."
)

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


# ---------------------------------------------------------------- metrics


_METRICS: dict[tuple[str, str], Any] = {}
_METRICS_LOCK = threading.Lock()


def language_choices() -> list[str]:
    from .core.languages import supported_languages

    return list(supported_languages())


def check_language(lang: Any) -> str:
    from .core.languages import resolve_language

    try:
        return resolve_language(lang).name
    except (ValueError, TypeError):
        raise SpaceInputError(
            f"Unknown language {lang!r}; choose one of {', '.join(language_choices())}."
        ) from None


def load_metrics(names: Any, lang: str) -> tuple[dict[str, Any], dict[str, str]]:
    """``({name: Metric}, {name: reason skipped})`` for ``names`` in the given order.

    A metric that cannot run here (METEOR without WordNet, a metric whose implementation is
    not installed) is skipped with the reason instead of failing the whole request. Built
    metrics are kept for the life of the process (METEOR loads WordNet once).
    """
    from .classic.wordnet import WordNetNotFoundError
    from .registry import get_metric, metrics

    known = metrics()
    loaded: dict[str, Any] = {}
    skipped: dict[str, str] = {}
    for name in dict.fromkeys(names or ()):
        if name not in known:
            raise SpaceInputError(f"Unknown metric {name!r}; choose from {', '.join(known)}.")
        with _METRICS_LOCK:
            metric = _METRICS.get((name, lang))
            if metric is None:
                try:
                    metric = get_metric(name, lang=lang)
                except WordNetNotFoundError:
                    skipped[name] = ("WordNet 3.0 is not installed on this server, so METEOR "
                                     "is skipped (see `python -m cgm_metrics.classic.wordnet`).")
                    continue
                except (ImportError, AttributeError) as error:
                    skipped[name] = f"not available in this installation ({error})."
                    continue
                _METRICS[(name, lang)] = metric
        loaded[name] = metric
    return loaded, skipped


def _check_metric_names(names: Any) -> None:
    from .registry import metrics

    if isinstance(names, str) or not isinstance(names, (list, tuple)):
        raise SpaceInputError("Metrics must be a list of metric names.")
    unknown = [name for name in names if name not in metrics()]
    if unknown:
        raise SpaceInputError(f"Unknown metric {unknown[0]!r}; choose from "
                              f"{', '.join(metrics())}.")


def warm_up(languages: Any = None) -> None:
    """Load every metric and parser once (METEOR's WordNet, the tree-sitter grammars), so
    that no user request pays for loading: the time budget is for scoring."""
    for lang in languages or language_choices():
        try:
            side_by_side("x = 1", ["x = 2", "y = 1"], lang)
        except Exception:  # noqa: BLE001 - a language that cannot warm up is loaded later
            continue
    figure = _pyplot()(figsize=(1, 1))  # matplotlib's fonts and backend, loaded once
    figure.subplots().hist([0.0, 1.0], label="x")
    _figure_image(figure)


def format_score(value: float | None, scale: float) -> str:
    """A score on its metric's scale: 2 decimals on 0-100, 4 on 0-1 (as the ``cgm`` tables)."""
    from .formatting import format_value

    return format_value(value, scale)


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
    if len(labelled) > LIMITS.max_candidates:
        raise SpaceInputError(f"At most {LIMITS.max_candidates} candidates at a time.")
    for label, code in [("the reference", reference)] + [
        (f"candidate {label}", code) for label, code in labelled
    ]:
        if len(code) > LIMITS.max_snippet_chars:
            raise SpaceInputError(
                f"{label[0].upper() + label[1:]} has {len(code):,} characters; the limit here "
                f"is {LIMITS.max_snippet_chars:,}. Score longer code with the `cgm` command."
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
    _check_metric_names(metrics or SIDE_BY_SIDE_METRICS)
    n_chars = sum(len(code) + len(reference) for _, code in labelled)
    names, too_large = plan_metrics(list(dict.fromkeys(metrics or SIDE_BY_SIDE_METRICS)),
                                    n_chars)
    loaded, skipped = load_metrics(names, lang)
    skipped.update(too_large)
    predictions = [code for _, code in labelled]
    references = [[reference] for _ in labelled]
    per_metric: dict[str, list[dict]] = {}
    for name, metric in loaded.items():
        if name == "ruby" and hasattr(metric, "item_results"):
            values, levels = metric.item_results(predictions, references)
            per_metric[name] = [{"score": float(v), "level": lv}
                                for v, lv in zip(values, levels, strict=True)]
            continue
        stats = np.asarray(metric.statistics(predictions, references), dtype=np.float64)
        scores = metric.item_scores(stats)
        entries = []
        for row, value in zip(stats, scores, strict=True):
            entry: dict[str, Any] = {"score": float(value)}
            components = metric.components_from_statistics(row)
            if components:
                entry["components"] = {k: float(v) for k, v in components.items()}
            entries.append(entry)
        per_metric[name] = entries
    return {
        "lang": lang,
        "metrics": list(loaded),
        "scales": {name: float(metric.scale) for name, metric in loaded.items()},
        "skipped": skipped,
        "candidates": [
            {"label": label, "code": code,
             "scores": {name: per_metric[name][index] for name in loaded}}
            for index, (label, code) in enumerate(labelled)
        ],
    }


_COMPONENT_NAMES = {
    "ngram_match_score": "n-gram",
    "weighted_ngram_match_score": "weighted n-gram",
    "syntax_match_score": "syntax",
    "dataflow_match_score": "dataflow",
}


def side_by_side_html(result: dict[str, Any]) -> str:
    """The scores as an HTML table: one row per metric (and component), one column per
    candidate; the best candidate of each row is bold."""
    labels = [c["label"] for c in result["candidates"]]
    head = "".join(f"<th>candidate {html.escape(label)}</th>" for label in labels)
    rows = []
    for name in result["metrics"]:
        scale = result["scales"][name]
        entries = [c["scores"][name] for c in result["candidates"]]
        values = [e["score"] for e in entries]
        best = max(values)
        cells = []
        for entry in entries:
            text = format_score(entry["score"], scale)
            if "level" in entry:
                text += f" <small>({html.escape(entry['level'])})</small>"
            strong = entry["score"] == best and len(set(values)) > 1
            cells.append(f"<td class='num'>{'<b>' + text + '</b>' if strong else text}</td>")
        range_text = "0-100" if scale >= 10 else "0-1"
        rows.append(f"<tr data-metric='{name}'><th>{name} <small>({range_text})</small></th>"
                    + "".join(cells) + "</tr>")
        components = entries[0].get("components") or {}
        for key in components:
            part_cells = "".join(
                f"<td class='num'>{format_score(e['components'][key], scale)}</td>"
                for e in entries
            )
            label = _COMPONENT_NAMES.get(key, key)
            rows.append(f"<tr class='component' data-metric='{name}.{key}'>"
                        f"<th>&nbsp;&nbsp;{html.escape(label)}</th>{part_cells}</tr>")
    notes = "".join(
        f"<p class='note'>{html.escape(name)} skipped: {html.escape(reason)}</p>"
        for name, reason in result["skipped"].items()
    )
    return (f"<table class='cgm-scores' id='side-by-side-scores'><thead><tr><th>metric</th>"
            f"{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>{notes}")


_TOKEN = re.compile(r"\s+|\w+|[^\w\s]", re.UNICODE)


def _changes(opcodes) -> list[tuple[str, int, int, int, int]]:
    """Indel opcodes with each run of deletions and insertions merged into one ``replace``
    (so a changed token shows as ``<del>old</del><ins>new</ins>``)."""
    merged: list[tuple[str, int, int, int, int]] = []
    for op in opcodes:
        tag, i1, i2, j1, j2 = op.tag, op.src_start, op.src_end, op.dest_start, op.dest_end
        if tag != "equal" and merged and merged[-1][0] != "equal":
            _, a1, _, b1, _ = merged[-1]
            merged[-1] = ("replace", a1, i2, b1, j2)
        else:
            merged.append((tag, i1, i2, j1, j2))
    return merged


def _token_diff(reference: str, candidate: str, parts: list[str]) -> tuple[int, int]:
    """Append the token diff of two texts to ``parts``; ``(common tokens, all tokens)``."""
    from rapidfuzz.distance import Indel

    ref_tokens = _TOKEN.findall(reference)
    cand_tokens = _TOKEN.findall(candidate)
    common = 0
    for tag, i1, i2, j1, j2 in _changes(Indel.opcodes(ref_tokens, cand_tokens)):
        if tag == "equal":
            parts.append(html.escape("".join(cand_tokens[j1:j2])))
            common += 2 * (j2 - j1)
            continue
        if i2 > i1:
            parts.append(f"<del>{html.escape(''.join(ref_tokens[i1:i2]))}</del>")
        if j2 > j1:
            parts.append(f"<ins>{html.escape(''.join(cand_tokens[j1:j2]))}</ins>")
    return common, len(ref_tokens) + len(cand_tokens)


def diff_html(reference: str, candidate: str, label: str = "") -> str:
    """Where a candidate differs from the reference, as escaped HTML: ``<del>`` for reference
    text the candidate lacks, ``<ins>`` for text it adds.

    Lines are aligned first and tokens only inside the changed lines, both with rapidfuzz's
    bit-parallel longest common subsequence (about a millisecond for two 5,000-character
    snippets, where difflib on tokens took up to a minute)."""
    from rapidfuzz.distance import Indel

    ref_lines = reference.splitlines(keepends=True)
    cand_lines = candidate.splitlines(keepends=True)
    parts: list[str] = []
    common = total = 0
    for tag, i1, i2, j1, j2 in _changes(Indel.opcodes(ref_lines, cand_lines)):
        if tag == "equal":
            text = "".join(cand_lines[j1:j2])
            parts.append(html.escape(text))
            n_tokens = len(_TOKEN.findall(text))
            common, total = common + 2 * n_tokens, total + 2 * n_tokens
            continue
        block_common, block_total = _token_diff("".join(ref_lines[i1:i2]),
                                                "".join(cand_lines[j1:j2]), parts)
        common, total = common + block_common, total + block_total
    title = f"<h4>candidate {html.escape(label)} vs reference</h4>" if label else ""
    ratio = common / total if total else 1.0
    return (f"<div class='cgm-diff'>{title}<pre>{''.join(parts)}</pre>"
            f"<small>{ratio:.0%} of tokens in common</small></div>")


def explanation_markdown(names: Any = SIDE_BY_SIDE_METRICS) -> str:
    lines = [f"- **{name}**: {EXPLANATIONS[name]}" for name in names if name in EXPLANATIONS]
    return "\n".join(lines) + "\n\n" + TRUST_NOTE


# ---------------------------------------------------------------- uploads


def _display_name(path: str | Path) -> str:
    return Path(path).name


def upload_names(paths: list[Path]) -> list[str]:
    """System names for uploads: the file names without extension. Browsers keep uploads
    in separate folders, so two different files may share a name (``model.txt`` twice):
    the later ones become ``model (2)``, ``model (3)``. The same server file twice is a
    mistake."""
    seen: set[str] = set()
    for path in paths:
        key = str(Path(path).resolve())
        if key in seen:
            raise SpaceInputError(f"{Path(path).name} is uploaded twice; upload each system "
                                  "once.")
        seen.add(key)
    names: list[str] = []
    for path in paths:
        stem = safe_name(Path(path).stem) or "system"
        name, copy = stem, 1
        while name in names:
            copy += 1
            name = f"{stem} ({copy})"
        names.append(name)
    return names


def _friendly(error: Exception, paths: list[str | Path]) -> SpaceInputError:
    """The reader's message with upload folders removed (only file names remain)."""
    message = str(error)
    for path in sorted({str(p) for p in paths}, key=len, reverse=True):
        message = message.replace(path, _display_name(path))
    return SpaceInputError(message)


def check_upload(path: Any, what: str, suffixes: tuple[str, ...] | None = None) -> Path:
    """The path of an uploaded file, checked for presence and size."""
    if path is None or path == "":
        raise SpaceInputError(f"Upload {what}.")
    if not isinstance(path, (str, os.PathLike)):  # a file object of older gradio versions
        path = getattr(path, "path", None) or getattr(path, "name", "")
    path = Path(path)
    if not path.is_file():
        raise SpaceInputError(f"The upload of {what} did not arrive; upload it again.")
    size = path.stat().st_size
    if size > LIMITS.max_upload_bytes:
        raise SpaceInputError(
            f"{path.name} is {size / 1e6:.1f} MB; the limit here is "
            f"{LIMITS.max_upload_bytes / 1e6:.0f} MB per file. Use the `cgm` command for "
            "larger files."
        )
    if suffixes and path.suffix.lower() not in suffixes:
        raise SpaceInputError(f"{path.name}: expected a {' or '.join(suffixes)} file.")
    return path


def _check_items(name: str, texts: list[str]) -> None:
    if len(texts) > LIMITS.max_items:
        raise SpaceInputError(
            f"{name} has {len(texts):,} items; the limit here is {LIMITS.max_items:,}. Use "
            "the `cgm compare` command for larger test sets."
        )
    for index, text in enumerate(texts, start=1):
        if len(text) > LIMITS.max_item_chars:
            raise SpaceInputError(
                f"{name}, item {index} has {len(text):,} characters; the limit here is "
                f"{LIMITS.max_item_chars:,}."
            )


def read_uploads(
    references_path: Any, system_paths: Any, unescape: bool = False
) -> tuple[list[list[str]], dict[str, list[str]]]:
    """References and ``{system name: predictions}`` from uploads, with the ``cgm`` readers
    (plain text, one item per line read verbatim, or with ``\\n`` escapes decoded when
    ``unescape``; or JSONL with ``prediction``/``references`` fields)."""
    unescape = unescape is True
    refs_file = check_upload(references_path, "a references file")
    if not system_paths:
        raise SpaceInputError("Upload two or more system files (one per system).")
    if not isinstance(system_paths, (list, tuple)):
        system_paths = [system_paths]
    if len(system_paths) < 2:
        raise SpaceInputError(f"Upload at least two system files to compare (got "
                              f"{len(system_paths)}).")
    if len(system_paths) > LIMITS.max_systems:
        raise SpaceInputError(f"At most {LIMITS.max_systems} systems at a time (got "
                              f"{len(system_paths)}).")
    files = [check_upload(p, "a system file") for p in system_paths]
    all_paths: list[str | Path] = [refs_file, *files]
    try:
        names = upload_names(files)
        references = read_references(refs_file, unescape=unescape)
        _check_items(refs_file.name, [r for refs in references for r in refs])
        systems = {}
        for name, path in zip(names, files, strict=True):
            systems[name] = read_predictions(path, unescape=unescape)
            _check_items(path.name, systems[name])
        check_same_length([(refs_file.name, len(references))]
                          + [(path.name, len(systems[name]))
                             for name, path in zip(names, files, strict=True)])
    except InputError as error:
        raise _friendly(error, all_paths) from None
    if len(references) < 2:
        raise SpaceInputError(f"{refs_file.name} has {len(references)} item(s); a significance "
                              "test needs at least 2 (ideally hundreds).")
    return references, systems


def compare_uploads(
    references_path: Any, system_paths: Any, lang: Any = "python", metrics: Any = None,
    seed: int = SEED, unescape: bool = False,
) -> dict[str, Any]:
    """Scores with 95% CIs, Holm-adjusted paired bootstrap tests and verdicts per metric,
    from :func:`cgm_metrics.significance.compare` (what ``cgm compare`` prints), plus the
    bootstrap differences for the plot.

    Returns ``{"n_items", "lang", "systems", "skipped", "metrics": {name: {"scale",
    "signature", "scores": {system: {"score", "low", "high"}}, "pairs": [{"a", "b", "delta"
    (b - a), "p_value", "p_adjusted", "significant", "mdd", "verdict"}]}}, "differences":
    {name: {"a vs b": ndarray of bootstrap B - A}}}``.
    """
    from .runner import Task, compute_many
    from .significance import compare

    lang = check_language(lang)
    _check_metric_names(metrics or DEFAULT_SYSTEM_METRICS)
    references, systems = read_uploads(references_path, system_paths, unescape)
    n_chars = sum(len(p) + sum(len(r) for r in refs)
                  for predictions in systems.values()
                  for p, refs in zip(predictions, references, strict=True))
    n_systems = len(systems)
    test_seconds = (SECONDS_PER_TEST_UNIT * len(references)
                    * (n_systems + n_systems * (n_systems - 1) // 2))
    names, too_large = plan_metrics(list(dict.fromkeys(metrics or DEFAULT_SYSTEM_METRICS)),
                                    n_chars, test_seconds, "cgm compare")
    if not names:
        raise SpaceInputError(
            f"This comparison is too large for the Space ({n_systems} systems x "
            f"{len(references):,} items, {n_chars:,} characters to score): it would take "
            f"more than the {TIME_BUDGET:g} s the Space allows a request. Use `cgm compare` "
            "(pip install cgm-metrics) on your machine, or upload fewer items or systems "
            "(chrf_code is the cheapest metric)."
        )
    loaded, skipped = load_metrics(names, lang)
    skipped.update(too_large)
    if not loaded:
        raise SpaceInputError("None of the chosen metrics can run here: "
                              + "; ".join(f"{k}: {v}" for k, v in skipped.items()))
    names = list(systems)
    keys = [(name, system) for name in loaded for system in names]
    try:
        computed = compute_many([Task(loaded[name], systems[system], references)
                                 for name, system in keys])
    except (ValueError, TypeError) as error:
        raise SpaceInputError(str(error)) from None
    stats: dict[str, dict[str, np.ndarray]] = {name: {} for name in loaded}
    for (name, system), rows in zip(keys, computed, strict=True):
        stats[name][system] = rows
    results: dict[str, Any] = {}
    differences: dict[str, dict[str, np.ndarray]] = {}
    for name, metric in loaded.items():
        comparison = compare(stats[name], metric, n_resamples=RESAMPLES, seed=seed,
                             alpha=ALPHA, correction="holm", power=0.8)
        results[name] = {"scale": metric.scale, "signature": metric.signature(),
                         **comparison.rows()}
        boots = comparison.resamples  # the draws of the intervals and the p-values
        differences[name] = {f"{p['a']} vs {p['b']}": boots[p["b"]] - boots[p["a"]]
                             for p in results[name]["pairs"]}
    return {"n_items": len(references), "lang": lang, "systems": names, "skipped": skipped,
            "metrics": results, "differences": differences, "seed": seed,
            "n_resamples": RESAMPLES, "alpha": ALPHA}


def systems_html(result: dict[str, Any]) -> str:
    """Scores with intervals, the pairs with verdicts and the significance matrix as HTML."""
    from .formatting import format_p, matrix_rows

    systems = result["systems"]
    names = list(result["metrics"])
    parts = [f"<p>{result['n_items']} items, {len(systems)} systems, language "
             f"{html.escape(result['lang'])}; paired bootstrap, {result['n_resamples']} "
             f"resamples, seed {result['seed']}, p-values Holm-adjusted over all pairs, "
             f"alpha {result['alpha']}.</p>"]
    head = "".join(f"<th>{html.escape(n)} [95% CI]</th>" for n in names)
    rows = []
    for system in systems:
        cells = []
        for name in names:
            entry, scale = result["metrics"][name]["scores"][system], result["metrics"][name][
                "scale"]
            cells.append(f"<td class='num'>{format_score(entry['score'], scale)} "
                         f"<small>[{format_score(entry['low'], scale)}, "
                         f"{format_score(entry['high'], scale)}]</small></td>")
        rows.append(f"<tr><th>{html.escape(system)}</th>{''.join(cells)}</tr>")
    parts.append(f"<h3>Scores</h3><table class='cgm-scores' id='system-scores'><thead><tr>"
                 f"<th>system</th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>")
    for name in names:
        entry = result["metrics"][name]
        scale = entry["scale"]
        pair_rows = "".join(
            f"<tr class='{'sig' if p['significant'] else 'ns'}'>"
            f"<td>{html.escape(p['a'])} vs {html.escape(p['b'])}</td>"
            f"<td class='num'>{'+' if p['delta'] >= 0 else '-'}"
            f"{format_score(abs(p['delta']), scale)}</td>"
            f"<td class='num'>{format_p(p['p_value'])}</td>"
            f"<td class='num'>{format_p(p['p_adjusted'])}</td>"
            f"<td class='num'>{format_score(p['mdd'], scale)}</td>"
            f"<td class='verdict'>{html.escape(p['verdict'])}</td></tr>"
            for p in entry["pairs"]
        )
        matrix = matrix_rows(systems, entry["pairs"])
        matrix_head = "".join(f"<th>{html.escape(s)}</th>" for s in systems)
        matrix_body = "".join(
            "<tr>" + f"<th>{html.escape(row[0])}</th>"
            + "".join(f"<td class='num'>{html.escape(c)}</td>" for c in row[1:]) + "</tr>"
            for row in matrix
        )
        parts.append(
            f"<h3>{html.escape(name)}</h3><table class='cgm-pairs' data-metric='{name}'>"
            "<thead><tr><th>A vs B</th><th>B - A</th><th>p</th><th>p (Holm)</th>"
            "<th>MDD</th><th>verdict</th></tr></thead>"
            f"<tbody>{pair_rows}</tbody></table>"
            f"<p><small>Significance matrix (Holm-adjusted p; * = significant):</small></p>"
            f"<table class='cgm-matrix'><thead><tr><th></th>{matrix_head}</tr></thead>"
            f"<tbody>{matrix_body}</tbody></table>"
            f"<p><small>Signature: <code>{html.escape(entry['signature'])}</code></small></p>"
        )
    parts += [f"<p class='note'>{html.escape(n)} skipped: {html.escape(r)}</p>"
              for n, r in result["skipped"].items()]
    parts.append("<p><small>MDD: the minimum detectable difference, the smallest difference "
                 "this test set detects at alpha 0.05 with power 0.8. A difference below it "
                 "that is not significant says little either way.</small></p>")
    return "".join(parts)


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=True)  # images only, no display
    from matplotlib.figure import Figure

    return Figure


def _figure_image(figure: Any) -> Any:
    from PIL import Image

    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100)
    buffer.seek(0)
    image = Image.open(buffer)
    image.load()
    return image


def plain_label(text: str) -> str:
    """Text matplotlib shows as typed: ``$`` would start mathtext (``sys_$\\frac$`` fails
    to parse), so it is escaped."""
    return text.replace("$", r"\$")


def plot_differences(result: dict[str, Any]) -> Any:
    """A PIL image: per metric, the bootstrap distribution of every pair's difference B - A,
    with 0 marked; a distribution that straddles 0 is a difference the data cannot confirm."""
    figure_type = _pyplot()
    names = list(result["differences"])
    figure = figure_type(figsize=(4.6 * len(names), 3.4), layout="constrained")
    axes = figure.subplots(1, len(names), squeeze=False)[0]
    colours = ["#1c7ed6", "#e8590c", "#2b8a3e", "#ae3ec9", "#f08c00", "#0ca678", "#c92a2a",
               "#5c940d", "#364fc7", "#862e9c"]
    for ax, name in zip(axes, names, strict=True):
        pairs = {p["a"] + " vs " + p["b"]: p for p in result["metrics"][name]["pairs"]}
        for index, (label, values) in enumerate(result["differences"][name].items()):
            star = "*" if pairs[label]["significant"] else ""
            colour = colours[index % len(colours)]
            first, second = label.split(" vs ", 1)
            text = plain_label(f"{second} - {first}{star}")
            if np.ptp(values) == 0:  # the same outputs: a spike would flatten the others
                ax.axvline(float(values[0]), color=colour, lw=2, ls="--",
                           label=f"{text} (no variation)")
            else:
                ax.hist(values, bins=40, alpha=0.55, color=colour, label=text)
        ax.axvline(0.0, color="black", lw=1)
        ax.set_title(plain_label(f"{name}: bootstrap B - A (* significant, Holm)"),
                     fontsize=10)
        ax.set_xlabel("difference (metric units)")
        ax.set_ylabel("resamples")
        ax.legend(fontsize=7)
    return _figure_image(figure)


# ---------------------------------------------------------------- agreement


BIN_PRESETS = {"CoNaLa (0, 2, 5, 10, 100)": (0, 2, 5, 10, 100),
               "HearthStone (0, 1, 2, 4, 100)": (0, 1, 2, 4, 100)}


def agreement_upload(path: Any, protocol: str = "default", bins: Any = None) -> Any:
    """The :class:`~cgm_metrics.agreement.AgreementResult` of an uploaded graded JSONL."""
    from .agreement import run_agreement

    graded = check_upload(path, "a graded JSONL file", (".jsonl", ".ndjson", ".json"))
    with graded.open("rb") as handle:
        rows = sum(1 for line in handle if line.strip())
    if rows > LIMITS.max_graded_rows:
        raise SpaceInputError(f"{graded.name} has {rows:,} rows; the limit here is "
                              f"{LIMITS.max_graded_rows:,}. Use `cgm agreement` for it.")
    if isinstance(bins, str):
        bins = BIN_PRESETS.get(bins)
    try:
        return run_agreement(graded, protocol=protocol, bins=bins)
    except (ValueError, TypeError) as error:
        raise _friendly(error, [graded]) from None


def agreement_html(result: Any) -> str:
    """The per-metric, per-bin mismatch table and the correlations as HTML."""
    header = ("<tr><th>metric</th><th>|metric delta| bin</th><th>pairs</th><th>significant"
              "</th><th>not significant</th><th>mismatches</th><th>Type I</th><th>Type II</th>"
              "<th>opposite</th><th>mismatch rate</th></tr>")
    rows = []
    for metric, bins in result.table.items():
        for row in bins:
            rate = "-" if row["mismatch_rate"] is None else f"{row['mismatch_rate']:.3f}"
            rows.append(
                f"<tr data-metric='{html.escape(metric)}'><th>{html.escape(metric)}</th>"
                f"<td>{html.escape(str(row['bin']))}</td>"
                + "".join(f"<td class='num'>{row[k]}</td>" for k in (
                    "pairs", "significant", "not_significant", "mismatches", "type_i",
                    "type_ii", "opposite"))
                + f"<td class='num'>{rate}</td></tr>"
            )
    intro = (f"<p>protocol {html.escape(result.protocol)}, grades aggregated with "
             f"{html.escape(result.aggregate)}, {html.escape(result.models_summary())}, "
             f"{result.n_resamples} resamples, seed {result.seed}, alpha {result.alpha:g}. "
             + "".join(f"Note: {html.escape(note)} " for note in result.notes)
             + "A mismatch is a pair "
             "where the metric's verdict differs from the humans' (Type I: the metric sees a "
             "difference the humans do not; Type II: the humans see one the metric misses).</p>")
    parts = [intro, f"<table class='cgm-agreement' id='agreement-table'><thead>{header}"
                    f"</thead><tbody>{''.join(rows)}</tbody></table>"]
    if result.correlations:
        corr_rows = []
        for level in ("per_item", "per_system"):
            for metric, entry in result.correlations.get(level, {}).items():
                cells = []
                for kind in ("pearson", "spearman", "kendall"):
                    c = entry[kind]
                    cells.append("<td>-</td>" if c["value"] is None else
                                 f"<td class='num'>{c['value']:.3f} <small>[{c['low']:.3f}, "
                                 f"{c['high']:.3f}]</small></td>")
                corr_rows.append(f"<tr><th>{html.escape(metric)}</th><td>{level}</td>"
                                 + "".join(cells) + "</tr>")
        parts.append("<h3>Correlation with human grades</h3><table class='cgm-scores'><thead>"
                     "<tr><th>metric</th><th>level</th><th>Pearson</th><th>Spearman</th>"
                     f"<th>Kendall</th></tr></thead><tbody>{''.join(corr_rows)}</tbody></table>")
    return "".join(parts)


def agreement_image(result: Any) -> Any:
    """The metric vs human delta plot of :func:`cgm_metrics.agreement.plot` as a PIL image."""
    from PIL import Image

    from .agreement import plot

    with tempfile.TemporaryDirectory(prefix="cgm-space-") as folder:
        path = plot(result, Path(folder) / "agreement.png")
        image = Image.open(path)
        image.load()
    return image
