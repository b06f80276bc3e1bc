"""``cgm agreement FILE``: how often do metrics agree with human judgements on system pairs?

    cgm agreement graded.jsonl
    cgm agreement hs.graded.jsonl --protocol evtikhiev2023 --json out.json --plot pairs.png
    cgm agreement assessments.graded.jsonl --protocol roy2021 --json tables.json
"""

from __future__ import annotations

import argparse

from . import _arguments, _output


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "agreement",
        help="metric-human agreement on pairs of systems (graded JSONL)",
        description="Aggregate human grades, build synthetic models, run a paired bootstrap "
        "over every model pair and metric, and tabulate how often each metric's verdict "
        "matches the humans' by size of the metric difference.",
    )
    parser.add_argument("file", metavar="FILE", help="graded-outputs JSONL (one row per "
                        "item and system; see ARCHITECTURE.md)")
    parser.add_argument("--protocol", choices=("default", "evtikhiev2023", "roy2021"),
                        default="default",
                        help="evtikhiev2023 reproduces Out of the BLEU exactly; roy2021: Roy et "
                        "al. 2021 (direct assessments 0-100, DARR Kendall's tau, approximate "
                        "randomization and Wilcoxon; --aggregate and --correction do not "
                        "apply); default: numpy RNG, two-sided p-values, Holm "
                        "(default: %(default)s)")
    parser.add_argument("--aggregate", choices=("mmsr", "mean", "majority"), default="mmsr",
                        help="how raw grades are aggregated per (item, system) "
                        "(default: %(default)s)")
    parser.add_argument("--metrics", nargs="+", metavar="NAME", default=None,
                        help="metrics to compare: keys of the rows' 'scores', or registered "
                        "metrics computed from prediction/references (registry:NAME computes "
                        "NAME even where the rows' 'scores' have one; default: all 'scores')")
    parser.add_argument("--n-resamples", type=_arguments.positive_int, default=None, metavar="R",
                        dest="n_resamples",
                        help="bootstrap resamples (default: 500 for evtikhiev2023, else 1000; "
                        "roy2021: randomization trials per pair, default 10000)")
    parser.add_argument("--resamples", type=_arguments.positive_int, dest="n_resamples",
                        help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=_arguments.seed, default=None,
                        help="random seed (default: 42 for evtikhiev2023, else 12345)")
    parser.add_argument("--alpha", type=float, default=0.05, help="significance level")
    parser.add_argument("--bins", type=_arguments.bin_edge, nargs="+", default=None,
                        metavar="EDGE", action=_arguments.BinEdges,
                        help="edges of the metric-difference bins in points "
                        "(default: 0 2 5 10 100, roy2021 0 2 5 10 15 20 100; the Out of the "
                        "BLEU HearthStone tables use 0 1 2 4 100)")
    parser.add_argument("--grade-range", type=float, nargs=2, default=None,
                        metavar=("LOW", "HIGH"), help="valid grade range (default: 0 4; 0 100 "
                        "for roy2021, which maps other ranges linearly to 0-100)")
    parser.add_argument("--dimension-range", nargs=3, action="append", default=None,
                        metavar=("NAME", "LOW", "HIGH"), dest="dimension_ranges",
                        help="roy2021: the scale of a human dimension of the rows' "
                        "'dimensions' (default 1 5); repeat for several")
    parser.add_argument("--correction", choices=("holm", "bh", "none"), default="holm",
                        help="multiple-comparison correction of the default protocol: holm "
                        "(default), bh (Benjamini-Hochberg) or none")
    parser.add_argument("--no-synthetic", action="store_true",
                        help="compare the real systems only (no synthetic models)")
    parser.add_argument("--no-correlations", action="store_true",
                        help="skip the per-item and per-system correlations")
    parser.add_argument("--lang", default=None,
                        help="language of the metrics computed from the file's texts; required "
                        "by the metrics that depend on one (e.g. codebleu)")
    parser.add_argument("--json", metavar="OUT",
                        help="write the full result as JSON ('-' = stdout)")
    parser.add_argument("--csv", metavar="OUT", help="write the per-bin table as CSV "
                        "('-' = stdout)")
    parser.add_argument("--plot", metavar="FILE.png", type=_arguments.plot_file,
                        help="draw metric vs human deltas (.png, .pdf, .svg, ...)")
    parser.set_defaults(run=run)
    return parser


def run(args: argparse.Namespace) -> int:
    """Problems the user can fix raise ``InputError`` (``cgm`` exits 1 with the message);
    anything else is an internal error (exit 2)."""
    if args.protocol == "roy2021":
        return _run_roy2021(args)
    from ...agreement import format_table, plot, run_agreement, to_csv, to_json

    result = run_agreement(
        args.file,
        protocol=args.protocol,
        aggregate_method=args.aggregate,
        metrics=args.metrics,
        n_resamples=args.n_resamples,
        seed=args.seed,
        alpha=args.alpha,
        bins=args.bins,
        grade_range=tuple(args.grade_range or (0.0, 4.0)),
        synthetic=not args.no_synthetic,
        correlations=not args.no_correlations,
        lang=args.lang,
        correction=args.correction,
    )
    print(format_table(result))
    if args.json:
        _write(args.json, to_json, result)
    if args.csv:
        _write(args.csv, to_csv, result)
    if args.plot:
        plot(result, args.plot)
    return 0


def _run_roy2021(args: argparse.Namespace) -> int:
    import sys

    from ...agreement import roy2021
    from ...base.errors import InputError

    if args.plot:
        raise InputError("--plot is not available with --protocol roy2021; the pairs are in "
                         "--json (metric_delta_points, human_delta_points, outcome).")
    ranges = {}
    for name, low, high in args.dimension_ranges or []:
        try:
            ranges[name] = (float(low), float(high))
        except ValueError:
            raise InputError(f"--dimension-range {name} {low} {high}: LOW and HIGH must be "
                             "numbers.") from None
    result = roy2021.run_roy2021(
        args.file, metrics=args.metrics, n_resamples=args.n_resamples, seed=args.seed,
        alpha=args.alpha, bins=args.bins, grade_range=tuple(args.grade_range or (0.0, 100.0)),
        dimension_ranges=ranges, synthetic=not args.no_synthetic, lang=args.lang,
        progress=lambda line: print(line, file=sys.stderr, flush=True),
    )
    print(roy2021.format_roy2021(result))
    if args.json:
        _write(args.json, roy2021.to_json, result)
    if args.csv:
        _write(args.csv, roy2021.to_csv, result)
    return 0


def _write(path: str, writer, result) -> None:
    """The text of ``writer(result)`` to ``path`` (atomically), or to stdout for ``-``."""
    text = writer(result)
    _output.write_text(path, text if text.endswith("\n") else text + "\n")
