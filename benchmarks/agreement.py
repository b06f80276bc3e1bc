"""Time the agreement analysis.

1. The Out of the BLEU protocol on HearthStone (66 items x 2 systems -> 30 models, 7 metrics,
   500 resamples; tests/data/hearthstone): target < 1 s. The published notebook took
   about 5 minutes for this dataset (48 minutes with CoNaLa).
2. Synthetic data the size of the CoNaLa study: 472 items, 5 real systems -> 82 models after
   synthesis and de-duplication, 6 per-item metrics + corpus BLEU (7 metrics plus the human
   grade), 500 resamples, both protocols.
3. End to end through the command, each in a fresh process (imports included), next to a
   bare ``python -c pass`` of the same run (the interpreter's own start-up, the reference
   of the ratios): ``cgm --help`` (target < 0.3 s), ``cgm agreement`` on HearthStone
   (target < 1.5 s) and on the CoNaLa-sized file with the published protocol and ``--json``
   (2,360 rows; target < 3 s).

    python benchmarks/agreement.py [--cli-only]
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from cgm_metrics.agreement import graded_from_rows, run_agreement

ROOT = Path(__file__).resolve().parents[1]
HS = ROOT / "tests" / "data" / "hearthstone" / "hs.graded.jsonl"
METRICS = ("rouge_l", "codebleu", "chrf", "meteor", "ruby", "edit_sim")


def conala_sized_rows(n_items: int = 472, n_systems: int = 5, seed: int = 0) -> list[dict]:
    """Graded rows shaped like the CoNaLa study: 5 systems, 4 graders, 6 per-item scores and
    code text for corpus BLEU; quality differs by system and item."""
    rng = np.random.default_rng(seed)
    words = ["x", "y", "sum", "len", "(", ")", "=", "+", "for", "in", "range", ":", "print"]
    texts = random.Random(seed)
    rows = []
    for item in range(n_items):
        reference = " ".join(texts.choice(words) for _ in range(12))
        difficulty = rng.normal()
        for s in range(n_systems):
            quality = 1 / (1 + np.exp(-(0.6 * s - 1.2 - difficulty + rng.normal(0, 0.8))))
            tokens = reference.split()
            kept = [t if texts.random() < quality else texts.choice(words) for t in tokens]
            grade = int(np.clip(round(4 * quality + rng.normal(0, 0.5)), 0, 4))
            rows.append({
                "item": item, "system": f"sys{s}", "prediction": " ".join(kept),
                "references": [reference],
                "grades": {f"g{g}": int(np.clip(grade + rng.integers(-1, 2), 0, 4))
                           for g in range(4)},
                "scores": {m: float(np.clip(quality + rng.normal(0, 0.1), 0, 1)).__round__(3)
                           for m in METRICS},
            })
    return rows


def timed(label: str, function, repeat: int = 3):
    best = float("inf")
    result = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    print(f"{label:<58} {best:7.3f} s")
    return result


def timed_process(label: str, args: list[str], repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run([sys.executable, *args], check=True, capture_output=True)
        best = min(best, time.perf_counter() - start)
    print(f"{label:<58} {best:7.3f} s")
    return best


def command_line() -> None:
    with tempfile.TemporaryDirectory() as folder:
        conala = Path(folder) / "conala-sized.graded.jsonl"
        conala.write_text("".join(json.dumps(row) + "\n" for row in conala_sized_rows()))
        bare = timed_process("python -c pass (interpreter start-up)", ["-c", "pass"])
        runs = [("cgm --help", ["-m", "cgm_metrics", "--help"], 0.3)]
        if HS.exists():
            runs.append(("cgm agreement HearthStone (default protocol)",
                         ["-m", "cgm_metrics", "agreement", str(HS)], 1.5))
        runs.append(("cgm agreement CoNaLa-sized --protocol evtikhiev2023 --json",
                      ["-m", "cgm_metrics", "agreement", str(conala), "--protocol",
                       "evtikhiev2023", "--json", str(Path(folder) / "out.json")], 3.0))
        for label, args, target in runs:
            took = timed_process(label, args)
            print(f"  {took / bare:5.1f} x start-up; target < {target} s")


def main() -> None:
    command_line()
    if "--cli-only" in sys.argv:
        return
    if HS.exists():
        result = timed("HearthStone, evtikhiev2023 (30 models, 7 metrics, 500)",
                       lambda: run_agreement(HS, protocol="evtikhiev2023", correlations=False))
        timed("HearthStone, evtikhiev2023 + correlations",
              lambda: run_agreement(HS, protocol="evtikhiev2023"))
        timed("HearthStone, default protocol (1000 resamples)",
              lambda: run_agreement(HS, correlations=False))
        print(f"  models: {len(result.models)}, metrics: {len(result.metrics)}")
    data = graded_from_rows(conala_sized_rows())
    result = timed("CoNaLa-sized, evtikhiev2023 (472 items, 500 resamples)",
                   lambda: run_agreement(data, protocol="evtikhiev2023", correlations=False))
    print(f"  models: {len(result.models)}, metrics: {len(result.metrics)} "
          f"({', '.join(result.metrics)})")
    timed("CoNaLa-sized, default protocol (500 resamples)",
          lambda: run_agreement(data, n_resamples=500, correlations=False))
    timed("CoNaLa-sized, evtikhiev2023 + correlations",
          lambda: run_agreement(data, protocol="evtikhiev2023"), repeat=1)


if __name__ == "__main__":
    main()
