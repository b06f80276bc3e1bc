"""``cgm demo``: the whole job on example data shipped with the package, offline, in seconds.

The data (``cgm_metrics/data/demo/demo.json``, hand-written for this project) holds 45 small
Python tasks with reference solutions and tests, and four systems: ``strong`` (correct,
written differently), ``strong_v2`` (the same with a few outputs rewritten), ``near_miss``
(the reference with one small bug: fails the tests, easy to fix) and ``weak``.
"""

from __future__ import annotations

import argparse
import json
from importlib import resources

from ...base.errors import InputError
from ...base.io import escape_code
from ...pipeline import evaluation
from . import _arguments, _output
from . import compare as compare_command

DESCRIPTION = """\
Run the whole evaluation on example data shipped with cgm-metrics: 45 Python tasks with
reference solutions, and the outputs of four systems (strong, strong_v2 = strong with a few
outputs rewritten, near_miss = the reference with one small bug per task, weak). Scores every
system with chrf_code, codebleu and ruby with 95% confidence intervals, tests every pair of
systems (Holm-adjusted p-values) and says in plain words which differences are real.

examples:
  cgm demo
  cgm demo --report demo-report        # report.md + scores.png + significance.png
  cgm demo --export demo-data          # the data as text files, to try `cgm compare` on

The exported files hold one item per line with multi-line code escaped (\\n = newline,
\\\\ = backslash), so read them back with --unescape, as the command printed after the export
shows.
"""


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="compare four example systems on built-in data (start here)",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--metrics", nargs="+", metavar="NAME",
                        help=f"metrics (default: {' '.join(evaluation.DEFAULT_METRICS)})")
    parser.add_argument("--report", metavar="DIR",
                        help="write report.md with scores.png and significance.png to DIR")
    parser.add_argument("--export", metavar="DIR",
                        help="write the demo data as plain-text files (references.txt and one "
                        "file per system, escaped one item per line: read them with "
                        "--unescape) to DIR, then exit")
    compare_command.add_test_arguments(parser)
    _arguments.add_output_arguments(parser)
    parser.set_defaults(run=run)


def load_demo() -> dict:
    """The demo data: ``{"tasks": [...], "systems": {name: {"outputs", "passes", ...}}}``."""
    text = resources.files("cgm_metrics").joinpath("data/demo/demo.json").read_text("utf-8")
    return json.loads(text)


def export(data: dict, directory: str) -> list[str]:
    from pathlib import Path

    folder = Path(directory)
    if folder.exists() and not folder.is_dir():
        raise InputError(f"--export {directory}: this is a file; give a folder (it is created "
                         "if missing).")
    written = []
    files = {"references": [t["reference"] for t in data["tasks"]]}
    files.update({name: system["outputs"] for name, system in data["systems"].items()})
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name, items in files.items():
            path = folder / f"{name}.txt"
            path.write_text("".join(escape_code(code) + "\n" for code in items),
                            encoding="utf-8")
            written.append(str(path))
    except OSError as error:
        raise InputError(f"--export {directory}: cannot write there ({error.strerror}); "
                         "choose a folder you can write to.") from None
    return written


def reading(result: evaluation.CompareResult, pass_rate: dict[str, str]) -> str:
    """The plain-language summary: where the metrics disagree, and what the demo shows."""
    lines = ["Reading it:"]
    rows = result.rows()
    first = next(iter(rows.values()))
    for index, pair in enumerate(first["pairs"]):
        verdicts = {name: entry["pairs"][index]["verdict"] for name, entry in rows.items()}
        if len(set(verdicts.values())) > 1:
            detail = "; ".join(f"{name}: {verdict}" for name, verdict in verdicts.items())
            lines.append(f"- the metrics disagree on {pair['a']} vs {pair['b']} ({detail}).")
    lines.append(
        f"- near_miss passes {pass_rate.get('near_miss', '?')} task tests yet scores closest "
        "to the references (one wrong token changes little text), while strong passes "
        f"{pass_rate.get('strong', '?')} with different wording: similarity metrics measure "
        "closeness to a reference, not correctness."
    )
    lines.append("- a difference is real only when the verdict says 'significant'; the MDD "
                 "column is the smallest difference this test set can reliably detect.")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    data = load_demo()
    if args.export:
        for path in export(data, args.export):
            print(path)
        print("The files hold one item per line with newlines escaped as \\n; read them "
              "with --unescape. Try:")
        import shlex

        files = [shlex.quote(f"{args.export}/{name}.txt") for name in data["systems"]]
        print(f"  cgm compare --unescape --lang {data['lang']} --references "
              f"{shlex.quote(args.export + '/references.txt')} {' '.join(files)}")
        return 0
    lang = data["lang"]
    metric_set = evaluation.load_metrics(args.metrics or evaluation.DEFAULT_METRICS, lang,
                                         explicit=bool(args.metrics))
    references = [[task["reference"]] for task in data["tasks"]]
    systems = {name: system["outputs"] for name, system in data["systems"].items()}
    names = list(systems)
    pass_rate = {
        name: f"{sum(s['passes'])}/{len(s['passes'])}" for name, s in data["systems"].items()
    }

    print(f"cgm demo: {len(references)} Python tasks with reference solutions, "
          f"{len(names)} systems (hand-written example data)")
    print(_output.table(
        ["system", "passes tests", "what it is"],
        [[name, pass_rate[name], data["systems"][name]["description"]] for name in names],
        align="lrl",
    ))
    _output.report_skipped(metric_set.skipped)
    scoring = evaluation.Evaluation(metric_set, references, systems, jobs=args.jobs,
                                    ray=args.ray, progress=_output.want_progress(args))
    result = compare_command.compare(scoring, args)
    compare_command.print_comparison(result)
    print("\n" + reading(result, pass_rate))

    payload = result.to_dict()
    payload = {"command": "demo", "n_items": payload.pop("n_items"),
               "lang": payload.pop("lang"), "systems": payload.pop("systems"),
               "pass_rate": pass_rate, **payload}
    _output.write_results(args, payload, result.records())
    if args.report:
        from ._report import write_report

        intro = (f"{len(references)} hand-written Python tasks with reference solutions; "
                 f"systems: " + "; ".join(f"**{n}**: {data['systems'][n]['description']}"
                                          for n in names) + ".\n\n"
                 + reading(result, pass_rate).replace("Reading it:\n", ""))
        if metric_set.skipped:
            intro += " Skipped metrics: " + ", ".join(metric_set.skipped) + "."
        paths = write_report(
            args.report, "cgm demo report", intro, result,
            compare_command.CORRECTION_NAMES[args.correction],
            extra_columns={"passes tests": pass_rate},
        )
        _output.write_json(str(paths[0].with_name("results.json")), payload)
        print(f"\nReport written: {', '.join(str(p) for p in paths)}")
    return 0
