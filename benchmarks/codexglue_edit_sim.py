"""codexglue_edit_sim against CodeXGLUE's evaluator loop (fuzzywuzzy with python-Levenshtein).

    python benchmarks/codexglue_edit_sim.py [--lines 20000] [--repeats 3]

Items: lines of the codebleu golden files (tests/data) as predictions (with indentation and a
newline, as in a predictions file), against edited copies or other lines. The evaluator's loop
per item: strip the prediction, restore literal placeholders in both, ``fuzz.ratio``, compare
the whitespace-split tokens. codexglue_edit_sim computes the same rows with one vectorised
``rapidfuzz.process.cpdist`` call. Each side runs ``--repeats`` times on the same items; the
best time counts, and every per-item value must be equal.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import time
import warnings
from pathlib import Path

from cgm_metrics.maths.codexglue import CodeXGlueEditSimMetric

GOLDEN = Path(__file__).resolve().parent.parent / "tests" / "data" / "codebleu"


def lines(count: int) -> tuple[list[str], list[str]]:
    pool = []
    for path in sorted(GOLDEN.glob("codebleu_public_*.jsonl")):
        for line in path.open(encoding="utf-8"):
            record = json.loads(line)
            for text in record["predictions"] + record["references"]:
                pool.extend(x for x in text.split("\n") if x.strip())
    rng = random.Random(0)
    preds, refs = [], []
    for _ in range(count):
        line = rng.choice(pool)
        preds.append(line + "\n")
        roll = rng.random()
        if roll < 0.1:  # CodeXGLUE's placeholders, in some lines
            refs.append(line.strip().replace("0", "<NUM_LIT:0>").replace('""', '"<STR_LIT>"'))
        elif roll < 0.5:
            refs.append(line.strip()[: rng.randint(0, len(line))] + "x")
        else:
            refs.append(rng.choice(pool).strip())
    return preds, refs


_PLACEHOLDER = re.compile(r"<(STR|NUM|CHAR)_LIT:(.*?)>", re.S)


def evaluator_post_process(code: str) -> str:
    """The evaluator's literal restoration, step for step (no shortcut)."""
    code = code.replace("<NUM_LIT>", "0").replace("<STR_LIT>", "").replace("<CHAR_LIT>", "")
    for kind, value in _PLACEHOLDER.findall(code):
        code = code.replace(f"<{kind}_LIT:{value}>", value)
    return code


def run_evaluator(preds, refs):
    from fuzzywuzzy import fuzz

    ratios, exact = [], []
    for pred, gt in zip(preds, refs, strict=True):
        pred, gt = evaluator_post_process(pred.strip()), evaluator_post_process(gt)
        ratios.append(fuzz.ratio(pred, gt))
        exact.append(pred.split() == gt.split())
    return ratios, exact


def run_ours(preds, refs):
    stats = CodeXGlueEditSimMetric().statistics(preds, [[r] for r in refs])
    return stats[:, 0].tolist(), [bool(x) for x in stats[:, 1]]


def best_of(repeats, function, *args):
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function(*args)
        best = min(best, time.perf_counter() - start)
    return best, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    preds, refs = lines(args.lines)
    n = len(preds)
    print(f"{n} lines, {sum(map(len, preds)) / n:.0f} characters per prediction on average")
    theirs_time, theirs = best_of(args.repeats, run_evaluator, preds, refs)
    ours_time, ours = best_of(args.repeats, run_ours, preds, refs)
    same = ours == (list(map(float, theirs[0])), theirs[1])
    print(f"edit sim {sum(ours[0]) / n:.4f}, EM {100 * sum(ours[1]) / n:.2f}; per-item values "
          f"{'all equal' if same else 'DIFFER'}")
    print(f"evaluator loop      {theirs_time:7.3f} s ({1e6 * theirs_time / n:.1f} us/line)")
    print(f"codexglue_edit_sim  {ours_time:7.3f} s ({1e6 * ours_time / n:.1f} us/line)")
    print(f"throughput ratio (codexglue_edit_sim / evaluator): {theirs_time / ours_time:.1f}x")
    if not same:
        raise SystemExit("codexglue_edit_sim and the evaluator disagree")


if __name__ == "__main__":
    main()
