"""Which metric to trust: every registry metric's agreement with the HearthStone programmers'
grades, as the README's table.

The data: tests/data/hearthstone (Out of the BLEU's replication package: 66 Hearthstone cards,
the outputs of GCNN and NL2Code, graded 0-4 by four programmers). Every metric of
``cgm_metrics.metrics()`` is computed from the rows' prediction and references
(``registry:NAME``, so the per-item scores the paper published in the file are not used), in
Python, and the agreement analysis runs with its defaults (``cgm agreement``'s default protocol:
M-MSR grades, 28 synthetic models beside the 2 real systems, 1000 paired-bootstrap resamples,
seed 12345, Holm over the pairs of a metric, bins 0, 2, 5, 10, 100 points). It is the same
analysis as

    cgm agreement tests/data/hearthstone/hs.graded.jsonl --metrics registry:bleu ...

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
from pathlib import Path

from cgm_metrics import metrics as registry_metrics
from cgm_metrics.agreement import graded_from_rows, run_agreement

ROOT = Path(__file__).resolve().parents[1]
HS = ROOT / "tests" / "data" / "hearthstone" / "hs.graded.jsonl"


def _interval(entry: dict) -> str:
    if entry["value"] is None:
        return "-"
    return f"{entry['value']:.3f} [{entry['low']:.2f}, {entry['high']:.2f}]"


def agreement_table(names: list[str], protocol: str = "default") -> tuple[str, str]:
    """The header line and the markdown table of ``names`` (``registry:NAME`` or the file's
    score names) on the HearthStone data."""
    rows = [json.loads(line) for line in HS.read_text(encoding="utf-8").splitlines() if line]
    result = run_agreement(graded_from_rows(rows), protocol=protocol, metrics=names,
                           lang="python")
    bins = [f"{lo:g}-{hi:g}" for lo, hi in itertools.pairwise(result.bins)]
    header = (f"protocol {result.protocol} | aggregate {result.aggregate} | "
              f"{result.models_summary()} | {result.n_resamples} resamples | seed "
              f"{result.seed} | alpha {result.alpha}")
    lines = ["| metric | Kendall (items) | Pearson (items) | system-order tau | "
             + " | ".join(f"disagreement {label}" for label in bins) + " | disagreement all |",
             "|---|---|---|---|" + "---|" * (len(bins) + 1)]
    for name in names:
        per_item = result.correlations["per_item"][name]
        per_system = result.correlations["per_system"][name]
        by_bin = {row["bin"]: row for row in result.table[name]}
        rates = []
        for label in [*bins, "all"]:
            row = by_bin[label]
            rate = row["mismatch_rate"]
            rates.append("- (0)" if rate is None else f"{rate:.3f} ({row['pairs']})")
        label = name.removeprefix("registry:")
        lines.append(f"| `{label}` | {_interval(per_item['kendall'])} | "
                     f"{_interval(per_item['pearson'])} | {_interval(per_system['kendall'])} | "
                     + " | ".join(rates) + " |")
    return header, "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--published", action="store_true",
                        help="also the per-item scores the paper published in the file")
    parser.add_argument("--protocol", choices=("default", "evtikhiev2023"), default="default")
    args = parser.parse_args(argv)
    names = [f"registry:{name}" for name in registry_metrics()]
    header, table = agreement_table(names, args.protocol)
    print(f"Every registry metric, computed ({header})")
    print(table)
    if args.published:
        header, table = agreement_table(["bleu", "chrf", "rouge_l", "meteor", "codebleu",
                                         "ruby"], args.protocol)
        print(f"\nThe paper's published per-item scores ({header})")
        print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
