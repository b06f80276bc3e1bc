"""Which metric to trust: every similarity metric's agreement with the HearthStone programmers'
grades, as the README's table.

The data: tests/data/hearthstone (Out of the BLEU's replication package: 66 Hearthstone cards,
the outputs of GCNN and NL2Code, graded 0-4 by four programmers). Every metric of
``cgm_metrics.metrics()`` that does not run code (the execution metrics, pass@k and COMBINED,
need unit tests, which the data does not have) is computed from the rows' prediction and references
(``registry:NAME``, so the per-item scores the paper published in the file are not used), in
Python, with default options except CrystalBLEU's trivially shared n-grams: the package
README's recipe (the 500 most frequent 1- to 4-grams) on the 66 reference programs, the corpus
at hand; CrystalBLEU without a list (plain BLEU on its code tokens, what the command runs)
is a row of its own. The agreement analysis runs with its defaults (``cgm agreement``'s default protocol:
M-MSR grades, 28 synthetic models beside the 2 real systems, 1000 paired-bootstrap resamples,
seed 12345, Holm over the pairs of a metric, bins 0, 2, 5, 10, 100 points). It is the same
analysis as

    cgm agreement tests/data/hearthstone/hs.graded.jsonl --metrics registry:bleu ...

(the command has no way to pass CrystalBLEU's list; ``run_agreement(metric_options=...)`` has).

The columns: per-item Kendall's tau and Pearson's r with the aggregated grades (132 cells: 66
items x 2 systems), the system-order tau (Kendall's tau between the metric's and the humans'
scores of the 30 models), and the disagreement rate (Type-I, Type-II or opposite verdicts
among the pairs of models) by bin of metric difference, with the number of pairs in the bin;
95% bootstrap intervals in brackets. ``--published`` prints the same table for the per-item
scores the paper published in the file (BLEU, chrF, ROUGE-L, METEOR, CodeBLEU, RUBY).

    python benchmarks/metric_agreement.py [--published] [--protocol evtikhiev2023]
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import warnings
from pathlib import Path

from cgm_metrics.agreement import graded_from_rows, run_agreement
from cgm_metrics.maths.crystal_bleu import DEFAULT_K, trivially_shared_ngrams
from cgm_metrics.pipeline.evaluation import describe_metrics

ROOT = Path(__file__).resolve().parents[1]
HS = ROOT / "tests" / "data" / "hearthstone" / "hs.graded.jsonl"


def _interval(entry: dict) -> str:
    if entry["value"] is None:
        return "-"
    return f"{entry['value']:.3f} [{entry['low']:.2f}, {entry['high']:.2f}]"


def similarity_metrics() -> list[str]:
    """The registry's metrics that do not run code (pass@k and COMBINED need unit tests, which
    the HearthStone data does not have)."""
    return [entry["name"] for entry in describe_metrics() if not entry["runs_code"]]


def _rows() -> list[dict]:
    return [json.loads(line) for line in HS.read_text(encoding="utf-8").splitlines() if line]


def crystal_bleu_list(rows: list[dict]) -> list[tuple[str, ...]]:
    """CrystalBLEU's trivially shared n-grams by the package README's recipe (the 500 most
    frequent 1- to 4-grams, code tokens), from the corpus at hand: the 66 reference programs."""
    references = {row["item"]: row["references"][0] for row in rows}
    return trivially_shared_ngrams([references[item] for item in sorted(references)],
                                   k=DEFAULT_K, lang="python")


def agreement_rows(names: list[str], protocol: str = "default",
                   options: dict[str, dict] | None = None,
                   labels: dict[str, str] | None = None) -> tuple[str, list[str], list[str]]:
    """The analysis of ``names`` (``registry:NAME`` or the file's score names) on the
    HearthStone data: its header line, the bin labels and one markdown row per metric."""
    result = run_agreement(graded_from_rows(_rows()), protocol=protocol, metrics=names,
                           lang="python", metric_options=options)
    bins = [f"{lo:g}-{hi:g}" for lo, hi in itertools.pairwise(result.bins)]
    header = (f"protocol {result.protocol} | aggregate {result.aggregate} | "
              f"{result.models_summary()} | {result.n_resamples} resamples | seed "
              f"{result.seed} | alpha {result.alpha}")
    lines = []
    for name in names:
        per_item = result.correlations["per_item"][name]
        per_system = result.correlations["per_system"][name]
        by_bin = {row["bin"]: row for row in result.table[name]}
        rates = []
        for label in [*bins, "all"]:
            row = by_bin[label]
            rate = row["mismatch_rate"]
            rates.append("- (0)" if rate is None else f"{rate:.3f} ({row['pairs']})")
        label = (labels or {}).get(name, f"`{name.removeprefix('registry:')}`")
        lines.append(f"| {label} | {_interval(per_item['kendall'])} | "
                     f"{_interval(per_item['pearson'])} | {_interval(per_system['kendall'])} | "
                     + " | ".join(rates) + " |")
    return header, bins, lines


def _table(bins: list[str], lines: list[str]) -> str:
    head = ("| metric | Kendall (items) | Pearson (items) | system-order tau | "
            + " | ".join(f"disagreement {label}" for label in bins) + " | disagreement all |")
    return "\n".join([head, "|---|---|---|---|" + "---|" * (len(bins) + 1), *lines])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--published", action="store_true",
                        help="also the per-item scores the paper published in the file")
    parser.add_argument("--protocol", choices=("default", "evtikhiev2023"), default="default")
    args = parser.parse_args(argv)
    names = [f"registry:{name}" for name in similarity_metrics()]
    options = {"registry:crystal_bleu": {"trivially_shared": crystal_bleu_list(_rows())}}
    header, bins, lines = agreement_rows(
        names, args.protocol, options,
        {"registry:crystal_bleu": "`crystal_bleu` (list from the references)"})
    # CrystalBLEU as the command runs it, without a list (plain BLEU on its code tokens): the
    # same resamples (one stream serves every metric, Holm is per metric), so the same row as
    # in the analysis above
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*trivially_shared", category=UserWarning)
        _, _, plain = agreement_rows(["registry:crystal_bleu"], args.protocol, None,
                                     {"registry:crystal_bleu": "`crystal_bleu` (no list)"})
    at = names.index("registry:crystal_bleu") + 1
    lines[at:at] = plain
    print(f"Every similarity metric of the registry, computed ({header})")
    print(_table(bins, lines))
    if args.published:
        header, bins, lines = agreement_rows(["bleu", "chrf", "rouge_l", "meteor", "codebleu",
                                              "ruby"], args.protocol)
        print(f"\nThe paper's published per-item scores ({header})")
        print(_table(bins, lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
