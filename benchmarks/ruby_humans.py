"""RUBY against human grades: each level and the default, beside the published RUBY.

1. HearthStone (Out of the BLEU, 66 items x 2 systems, M-MSR grades 0-4; tests/data):
   Pearson, Spearman and Kendall (tau-b) of per-item scores with the grades, for RUBY forced to
   start at each level (``graph``, ``tree``, ``string``), the default, and the published
   per-item RUBY stored in the data; plus each one's order of the two systems by mean score.
2. The hand-graded one-liners of tests/data/ruby_oneliners (5 made-up systems, grades given
   by the grade definitions before scoring): the same correlations and the order of the 5
   systems by mean score against their mean grades (Kendall tau).

    python benchmarks/ruby_humans.py

Every run appends its figures (correlations, seconds per level), with the machine, the load
and the date, to benchmarks/results/ruby_humans.json.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

from cgm_metrics.maths.ruby import compute_ruby

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchtools import Record  # noqa: E402

HS = ROOT / "tests" / "data" / "hearthstone" / "hs.graded.jsonl"
ONE_LINERS = ROOT / "tests" / "data" / "ruby_oneliners" / "graded.jsonl"
LEVELS = ("graph", "tree", "string", None)


def correlations(scores, grades) -> tuple[float, float, float]:
    return (
        float(stats.pearsonr(scores, grades)[0]),
        float(stats.spearmanr(scores, grades)[0]),
        float(stats.kendalltau(scores, grades)[0]),
    )


def system_order(scores, grades, systems) -> float:
    """Kendall tau between the systems' mean scores and their mean grades."""
    names = sorted(set(systems))
    mean = {s: np.mean([x for x, y in zip(scores, systems, strict=True) if y == s]) for s in names}
    human = {s: np.mean([x for x, y in zip(grades, systems, strict=True) if y == s]) for s in names}
    if len(names) < 2:
        return float("nan")
    if len(names) == 2:  # tau of two systems: +1 same order, -1 reversed
        a, b = names
        return float(np.sign(mean[a] - mean[b]) * np.sign(human[a] - human[b]))
    return float(stats.kendalltau([mean[s] for s in names], [human[s] for s in names])[0])


def table(record, key, title, predictions, references, grades, systems,
          published=None) -> None:
    print(f"\n{title}")
    print(
        f"{'RUBY':<18}{'Pearson':>9}{'Spearman':>10}{'Kendall':>9}{'systems':>9}"
        f"{'time':>8}  levels used"
    )
    if published is not None:
        p, s, k = correlations(published, grades)
        order = system_order(published, grades, systems)
        print(f"{'published':<18}{p:9.3f}{s:10.3f}{k:9.3f}{order:9.2f}")
        _correlations(record, f"{key} published", p, s, k, order)
    for level in LEVELS:
        start = time.perf_counter()
        result = compute_ruby(predictions, references, level=level, return_per_sample=True)
        elapsed = time.perf_counter() - start
        p, s, k = correlations(result["scores"], grades)
        order = system_order(result["scores"], grades, systems)
        name = f"level={level}" if level else "default"
        used = ", ".join(f"{n} {c}" for n, c in result["levels"].items() if c)
        print(f"{name:<18}{p:9.3f}{s:10.3f}{k:9.3f}{order:9.2f}{elapsed:7.2f}s  {used}")
        _correlations(record, f"{key} {name}", p, s, k, order)
        record.value(f"{key} {name} seconds", elapsed, "s",
                     f"compute_ruby of all {len(predictions)} items, one run, wall clock")


def _correlations(record, key: str, pearson: float, spearman: float, kendall: float,
                  order: float) -> None:
    for name, value in (("Pearson", pearson), ("Spearman", spearman), ("Kendall", kendall),
                        ("systems tau", order)):
        record.value(f"{key} {name}", value, "correlation", "per-item scores vs the grades"
                     if name != "systems tau" else "systems' order by mean score vs by grade")


def main() -> None:
    record = Record("ruby_humans", {})
    if HS.exists():
        rows = [json.loads(line) for line in HS.read_text(encoding="utf-8").splitlines()]
        table(
            record, "HearthStone",
            f"HearthStone: {len(rows)} items, M-MSR grades (systems: tau of the 2 systems' order)",
            [r["prediction"] for r in rows],
            [r["references"] for r in rows],
            [r["grade"] for r in rows],
            [r["system"] for r in rows],
            [r["scores"]["ruby"] for r in rows],
        )
    else:
        print(f"HearthStone data not found at {HS}; skipped")
    items = [json.loads(line) for line in ONE_LINERS.read_text(encoding="utf-8").splitlines()]
    predictions, references, grades, systems = [], [], [], []
    for item in items:
        for system, (output, grade) in item["outputs"].items():
            predictions.append(output)
            references.append(item["references"])
            grades.append(grade)
            systems.append(system)
    table(
        record, "one-liners",
        f"Hand-graded one-liners: {len(items)} intents x {len(set(systems))} systems "
        "(systems: tau of the 5 systems' order)",
        predictions,
        references,
        grades,
        systems,
    )
    record.write()


if __name__ == "__main__":
    main()
