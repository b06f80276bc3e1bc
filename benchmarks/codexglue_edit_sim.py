"""codexglue_edit_sim against CodeXGLUE's evaluator loop (fuzzywuzzy with python-Levenshtein).

    python benchmarks/codexglue_edit_sim.py [--lines 20000] [--repeats 3]

Items: lines of the codebleu golden files (tests/data) as predictions (with indentation and a
newline, as in a predictions file), against edited copies or other lines. The evaluator's loop
per item: strip the prediction, restore literal placeholders in both, ``fuzz.ratio``, compare
the whitespace-split tokens. codexglue_edit_sim computes the same rows with one vectorised
``rapidfuzz.process.cpdist`` call. Both sides run ``--repeats`` (>= 3) times on the same
items, interleaved; the best run counts (the median is recorded too, in
benchmarks/results/codexglue_edit_sim.json), and every per-item value must be equal.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import warnings
from pathlib import Path

from cgm_metrics.maths.codexglue import CodeXGlueEditSimMetric

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchtools import Record, interleaved, load  # noqa: E402

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=3, help="interleaved runs (>= 3)")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    preds, refs = lines(args.lines)
    n = len(preds)
    print(f"{n} lines, {sum(map(len, preds)) / n:.0f} characters per prediction on average; "
          f"{args.repeats} interleaved runs; {load()}")
    record = Record("codexglue_edit_sim", {"lines": n, "repeats": args.repeats})
    timed = interleaved({"evaluator": lambda: run_evaluator(preds, refs),
                         "ours": lambda: run_ours(preds, refs)}, args.repeats)
    theirs_time, theirs = timed["evaluator"].best, timed["evaluator"].result
    ours_time, ours = timed["ours"].best, timed["ours"].result
    same = ours == (list(map(float, theirs[0])), theirs[1])
    print(f"edit sim {sum(ours[0]) / n:.4f}, EM {100 * sum(ours[1]) / n:.2f}; per-item values "
          f"{'all equal' if same else 'DIFFER'}")
    print(f"evaluator loop      {theirs_time:7.3f} s ({1e6 * theirs_time / n:.1f} us/line)")
    print(f"codexglue_edit_sim  {ours_time:7.3f} s ({1e6 * ours_time / n:.1f} us/line)")
    if not same:
        raise SystemExit("codexglue_edit_sim and the evaluator disagree")
    ratio = record.ratio("lines", timed["evaluator"], timed["ours"],
                         "CodeXGLUE's evaluator loop (fuzzywuzzy per line) vs "
                         "CodeXGlueEditSimMetric().statistics on the same lines", n, "line")
    print(f"throughput ratio (codexglue_edit_sim / evaluator): {ratio:.1f}x (medians "
          f"{timed['evaluator'].median / timed['ours'].median:.1f}x)")
    record.write()


if __name__ == "__main__":
    main()
