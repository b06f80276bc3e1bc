"""``cgm compare``: every pair of systems, adjusted p-values, verdicts and the minimum
detectable difference."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ..formatting import matrix_rows
from ..io import InputError
from . import _common as common
from . import _options
from . import score as score_command

if TYPE_CHECKING:
    import numpy as np

METHODS = ("paired_bootstrap", "approximate_randomization")
CORRECTIONS = ("holm", "bh")
CORRECTION_NAMES = {"holm": "Holm", "bh": "Benjamini-Hochberg"}
CORRECTION_SHORT = {"holm": "Holm", "bh": "BH"}

DESCRIPTION = """\
Compare systems on the same items: scores with confidence intervals, a paired test for every
pair of systems with p-values adjusted for the number of pairs (Holm by default), a
plain-language verdict per pair, and the minimum detectable difference: the smallest
difference this test set can detect at the chosen alpha and power.

Inputs as for `cgm score` (plain text read verbatim, --unescape for \\n escapes, or JSONL;
--graded for the canonical graded-outputs JSONL). Metric options as for `cgm score`.

examples:
  cgm compare --references refs.txt model_a.txt model_b.txt model_c.txt
  cgm compare --references refs.txt a.jsonl b.jsonl --metrics codebleu --method approximate_randomization
  cgm compare --graded hs.graded.jsonl --json comparison.json --csv pairs.csv
"""


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "compare",
        help="test which systems differ significantly",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("systems", nargs="*", metavar="SYSTEM_FILE",
                        help="one file of outputs per system (at least two)")
    common.add_data_arguments(parser)
    common.add_input_arguments(parser)
    common.add_metric_arguments(parser)
    add_test_arguments(parser)
    common.add_output_arguments(parser)
    parser.set_defaults(run=run)


def add_test_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("significance test")
    group.add_argument("--method", choices=METHODS, default="paired_bootstrap",
                       help="paired test (default: paired_bootstrap)")
    group.add_argument("--correction", choices=CORRECTIONS, default="holm",
                       help="adjustment of p-values over all pairs: holm (Holm-Bonferroni, "
                       "default) or bh (Benjamini-Hochberg)")
    group.add_argument("--alpha", type=common.probability, default=0.05,
                       help="significance level (default: 0.05)")
    group.add_argument("--power", type=common.probability, default=0.8,
                       help="power for the minimum detectable difference (default: 0.8)")
    group.add_argument(
        "--n-resamples", type=common.positive_int, default=None, metavar="R",
        help="resamples of the test (default: 1000 for the bootstrap, 10000 for "
        "approximate randomization); confidence intervals use 1000",
    )
    group.add_argument("--seed", type=_options.seed, default=12345,
                       help="random seed, 0 to 2**32-1 (default: 12345)")


# ---------------------------------------------------------------- the comparison itself


def compare_metric(metric, stats_by_system: dict[str, np.ndarray], method: str = "paired_bootstrap",
                   n_resamples: int | None = None, seed: int = 12345, alpha: float = 0.05,
                   correction: str = "holm", power: float = 0.8,
                   confidence: float = 0.95) -> dict:
    """Scores with CIs, the pairwise tests and the minimum detectable differences of one
    metric: :func:`cgm_metrics.significance.compare`, as rows."""
    from ..significance import compare

    comparison = compare(stats_by_system, metric, method=method, n_resamples=n_resamples,
                         seed=seed, alpha=alpha, correction=correction,
                         confidence=confidence, power=power)
    return {"scale": metric.scale, "signature": metric.signature(),
            "higher_is_better": comparison.higher_is_better, **comparison.rows()}


def run_comparison(metric_set, stats, args, confidence: float = 0.95) -> dict:
    common.require_significance()
    return {
        name: compare_metric(metric_set.metrics[name], stats[name], method=args.method,
                             n_resamples=args.n_resamples, seed=args.seed, alpha=args.alpha,
                             correction=args.correction, power=args.power,
                             confidence=confidence)
        for name in metric_set.names
    }


# ---------------------------------------------------------------- presentation


def print_comparison(results: dict, systems: list[str], n_items: int, args) -> None:
    correction = CORRECTION_NAMES[args.correction]
    for name, result in results.items():
        scale = result["scale"]
        scale_text = "0-100" if scale >= 10 else "0-1"
        print(f"\n== {name} ({scale_text}) ==")
        print(common.table(
            ["system", "score", "95% CI"],
            [[s, common.format_value(v["score"], scale),
              f"[{common.format_value(v['low'], scale)}, {common.format_value(v['high'], scale)}]"]
             for s, v in result["scores"].items()],
        ))
        print(f"\npairs ({args.method}, p-values {correction}-adjusted over "
              f"{len(result['pairs'])} pairs, alpha {args.alpha}):")
        print(common.table(
            ["A vs B", "B - A", "p", f"p ({CORRECTION_SHORT[args.correction]})", "MDD",
             "verdict"],
            [[f"{p['a']} vs {p['b']}", _signed(p["delta"], scale), common.format_p(p["p_value"]),
              common.format_p(p["p_adjusted"]), common.format_value(p["mdd"], scale),
              p["verdict"]]
             for p in result["pairs"]],
            align="lrrrrl",
        ))
        print(f"\nsignificance matrix ({correction}-adjusted p-values, * = significant):")
        print(common.table([""] + systems, matrix_rows(systems, result["pairs"])))
        mdds = [p["mdd"] for p in result["pairs"] if p["mdd"] is not None]
        if mdds:
            low, high = (common.format_value(v, scale) for v in (min(mdds), max(mdds)))
            span = low if low == high else f"{low}-{high} (depending on the pair)"
            print(f"\nWith {n_items} items, differences below {span} {name} points cannot "
                  f"be reliably detected (MDD at alpha {args.alpha}, power {args.power}).")


def _signed(value: float, scale: float) -> str:
    text = common.format_value(abs(value), scale)
    return ("-" if value < 0 else "+") + text


def pair_csv(results: dict) -> tuple[list[str], list[list]]:
    headers = ["metric", "system_a", "system_b", "score_a", "score_b", "delta_b_minus_a", "p_value",
               "p_adjusted", "significant", "mdd", "verdict"]
    rows = []
    for name, result in results.items():
        for p in result["pairs"]:
            rows.append([name, p["a"], p["b"], result["scores"][p["a"]]["score"],
                         result["scores"][p["b"]]["score"], p["delta"], p["p_value"],
                         p["p_adjusted"], p["significant"], p["mdd"], p["verdict"]])
    return headers, rows


def settings(args) -> dict:
    return {"method": args.method, "correction": args.correction, "alpha": args.alpha,
            "power": args.power, "n_resamples": args.n_resamples, "seed": args.seed}


def run(args: argparse.Namespace) -> int:
    lang = common.check_language(args.lang)
    names = args.metrics or common.DEFAULT_METRICS
    metric_set = common.load_metrics(names, lang, explicit=bool(args.metrics),
                                     options=_options.metric_options(args, names))
    references, systems = score_command.read_data(args, args.systems)
    if len(systems) < 2:
        raise InputError(f"compare needs at least two systems, got {len(systems)}; give two "
                         "or more SYSTEM_FILEs (or a --graded file with two systems).")
    if len(references) < 2:
        raise InputError(f"compare needs at least 2 items for a paired test, got "
                         f"{len(references)}; score a single item with `cgm score`.")
    common.require_significance()
    from ..significance.paired import check_resamples
    from ..significance.resampling import check_budget

    # a request of resamples too large is refused before the (long) scoring, not after it
    check_budget(len(references), check_resamples(args.n_resamples, args.method), len(systems))
    score_command.report_skipped(metric_set)
    runner = common.StatisticsRunner(args.jobs, common.want_progress(args), args.ray)
    stats = runner.run(metric_set, systems, references)
    results = run_comparison(metric_set, stats, args)
    names = list(systems)
    print(f"{len(references)} items, {len(names)} systems, language {lang}")
    print_comparison(results, names, len(references), args)
    if args.json:
        common.write_json(args.json, {
            "command": "compare", "n_items": len(references), "lang": lang,
            "systems": names, **settings(args), "skipped_metrics": metric_set.skipped,
            "metrics": results,
        })
    if args.csv:
        common.write_csv(args.csv, *pair_csv(results))
    return 0
