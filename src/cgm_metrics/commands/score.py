"""``cgm score``: corpus scores with bootstrap confidence intervals, and per-item scores."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from ..io import InputError
from . import _common as common
from . import _options

if TYPE_CHECKING:
    import numpy as np

DESCRIPTION = """\
Score one or more systems' outputs against references, with bootstrap confidence intervals.

Inputs: plain text, one item per line, read verbatim as CodeXGLUE and sacrebleu read it
(with --unescape, \\n inside a line is a newline and \\\\ a backslash: the format of
`cgm demo --export`), or JSONL with named fields (--field, --reference-field). A FILE of '-'
is standard input. Several --references files give several
references per item; in JSONL a reference field may hold a list. Without --references, the
references come from the reference field of the first JSONL predictions file. --graded reads
the canonical graded-outputs JSONL (one row per item and system).

Scores keep each metric's usual scale: chrf_code and bleu 0-100 (as sacrebleu), the others 0-1.
Metric options: --codebleu-weights, --codebleu-dataflow, --chrf-char-order, --chrf-word-order,
--chrf-beta, --ruby-level, or any option as --option METRIC.KEY=VALUE. One item is scored
without a confidence interval (an interval needs at least 2 items).

examples:
  cgm score --references refs.txt --predictions model.txt
  cgm score --references refs.txt --predictions a.txt b.txt --metrics chrf_code ruby --json out.json
  cgm score --predictions outputs.jsonl --per-item items.csv
  cgm score --graded hs.graded.jsonl --system gcnn
  cgm score --references refs.txt --predictions model.txt --codebleu-weights 0.1,0.1,0.4,0.4
  generate | cgm score --references refs.txt --predictions - --json - | jq .systems
"""


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "score",
        help="score outputs with confidence intervals",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    common.add_data_arguments(parser, predictions=True)
    common.add_input_arguments(parser)
    common.add_metric_arguments(parser)
    parser.add_argument("--list-metrics", action="store_true",
                        help="list the registered metrics and exit")
    common.add_resampling_arguments(parser)
    common.add_output_arguments(parser)
    parser.add_argument(
        "--per-item", metavar="FILE",
        help="write per-item scores (CSV if FILE ends in .csv, else JSONL)",
    )
    parser.set_defaults(run=run)


def read_data(args: argparse.Namespace, system_paths) -> tuple[list[list[str]], dict]:
    """References and systems from --graded or from reference/system files."""
    if args.graded:
        if system_paths:
            raise InputError("Give either --graded or system files, not both.")
        return common.load_graded(args.graded, args.system)
    if args.system:
        raise InputError("--system selects systems of a --graded file; give --graded FILE.")
    if not system_paths:
        raise InputError("No systems: give --predictions FILE (or --graded FILE).")
    return common.load_inputs(args, system_paths)


def score_table(
    metric_set: common.MetricSet,
    stats: dict[str, dict[str, np.ndarray]],
    n_resamples: int,
    seed: int,
    confidence: float,
) -> dict[str, dict[str, dict]]:
    """``{system: {metric: {"score", "low", "high", components..., "signature"}}}``."""
    library = common.significance_library()
    systems = list(next(iter(stats.values())))
    result: dict[str, dict[str, dict]] = {system: {} for system in systems}
    for name in metric_set.names:
        metric = metric_set.metrics[name]
        for system in systems:
            rows = stats[name][system]
            entry: dict = {"score": metric.corpus_score(rows), "low": None, "high": None}
            if library is not None and len(rows) >= 2:  # an interval needs 2 items
                value, low, high = library.bootstrap_ci(
                    rows, metric, n_resamples=n_resamples, seed=seed, confidence=confidence
                )
                entry.update(score=float(value), low=float(low), high=float(high))
            for key, value in metric.components_from_statistics(rows.sum(axis=0)).items():
                entry[key] = float(value)
            entry["signature"] = metric.signature()
            result[system][name] = entry
    return result


def print_scores(metric_set, table_data, confidence: float) -> None:
    level = f"{confidence:.0%} CI"
    headers = ["system"] + [f"{name} [{level}]" for name in metric_set.names]
    rows = []
    for system, by_metric in table_data.items():
        row = [system]
        for name in metric_set.names:
            entry = by_metric[name]
            scale = metric_set.metrics[name].scale
            text = common.format_value(entry["score"], scale)
            if entry["low"] is not None:
                text += (f" [{common.format_value(entry['low'], scale)}, "
                         f"{common.format_value(entry['high'], scale)}]")
            row.append(text)
        rows.append(row)
    print(common.table(headers, rows))


def csv_rows(metric_set, table_data):
    headers = ["system", "metric", "score", "low", "high"]
    rows = [
        [system, name, entry["score"], entry["low"], entry["high"]]
        for system, by_metric in table_data.items()
        for name, entry in by_metric.items()
    ]
    return headers, rows


def write_per_item(path: str, metric_set, stats) -> None:
    systems = list(next(iter(stats.values())))
    per_item = {
        name: {s: metric_set.metrics[name].item_scores(stats[name][s]) for s in systems}
        for name in metric_set.names
    }
    n_items = len(next(iter(per_item[metric_set.names[0]].values())))
    records = [
        {"item": index, "system": system,
         **{name: float(per_item[name][system][index]) for name in metric_set.names}}
        for system in systems
        for index in range(n_items)
    ]
    if Path(path).suffix.lower() == ".csv":
        headers = ["item", "system"] + metric_set.names
        common.write_csv(path, headers, [[r[h] for h in headers] for r in records])
    else:
        common.write_text(path, "".join(json.dumps(r) + "\n" for r in records))


def report_skipped(metric_set) -> None:
    for name, reason in metric_set.skipped.items():
        common.note(f"note: metric {name} skipped: {reason}")


def run(args: argparse.Namespace) -> int:
    if args.list_metrics:
        from ..registry import metrics

        print("\n".join(metrics()))
        return 0
    lang = common.check_language(args.lang)
    names = args.metrics or common.DEFAULT_METRICS
    metric_set = common.load_metrics(names, lang, explicit=bool(args.metrics),
                                     options=_options.metric_options(args, names))
    references, systems = read_data(args, args.predictions or [])
    if common.significance_library() is not None and len(references) >= 2:
        from ..significance.resampling import check_budget

        check_budget(len(references), args.n_resamples, n_series=1)  # before the scoring
    report_skipped(metric_set)
    runner = common.StatisticsRunner(args.jobs, common.want_progress(args), args.ray)
    stats = runner.run(metric_set, systems, references)
    table_data = score_table(metric_set, stats, args.n_resamples, args.seed, args.confidence)
    if len(references) < 2:
        common.note("note: one item: scores without confidence intervals (an interval needs "
                    "at least 2 items)")
    elif common.significance_library() is None:
        common.note("note: confidence intervals skipped: cgm_metrics.significance is not "
                    "available in this installation")
    print(f"{len(references)} items, language {lang}")
    print_scores(metric_set, table_data, args.confidence)
    if args.json:
        common.write_json(args.json, {
            "command": "score",
            "n_items": len(references),
            "lang": lang,
            "confidence": args.confidence,
            "n_resamples": args.n_resamples,
            "seed": args.seed,
            "metrics": metric_set.names,
            "skipped_metrics": metric_set.skipped,
            "systems": table_data,
        })
    if args.csv:
        common.write_csv(args.csv, *csv_rows(metric_set, table_data))
    if args.per_item:
        write_per_item(args.per_item, metric_set, stats)
    return 0
