"""Roy et al. 2021's metrics and protocol against their peers, in one run.

    python benchmarks/roy2021.py [--repeat 3] [--kendall PATH/kendalls_tau.py]

- sentence BLEU with nltk's smoothing method 5 (``bleu``, ``smooth_method="nltk-method5"``)
  against nltk's ``sentence_bleu`` item by item;
- ROUGE-1..4 and ROUGE-L with ``implementation="rouge"`` against the rouge package 1.0.1's
  ``Rouge().get_scores``;
- with ``--kendall``: ``darr_kendall`` against the replication package's
  ``kendalls_tau.py`` (needs pandas) on the 6,253 assessments (the script is not part of
  this project; give its path);
- the protocol end to end (``run_roy2021``) on HearthStone and on the replication data's
  human side with a stand-in per-item metric (382 items, 5 systems, 105 models, 5,460 pairs).

Texts: 2000 summary-like sentences (a vocabulary of code-comment words, periods inside) and
their mutated copies. Every value is checked equal before timing counts. Both sides of a
comparison run ``--repeat`` (>= 3) times, interleaved; the best run counts and the median is
recorded too; every run appends its figures to benchmarks/results/roy2021.json.
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import json
import random
import sys
import time
from pathlib import Path

import numpy as np

import cgm_metrics
from cgm_metrics.agreement import darr_kendall, graded_from_rows, run_roy2021

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchtools import Record, interleaved, load  # noqa: E402

WORDS = ("returns the value of a given key in the map . sets name for this object , if not "
         "null . creates new list from items e.g. array and adds element to end of queue").split()


def sentences(n: int, seed: int) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)
    refs = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 20))) for _ in range(n)]
    hyps = []
    for ref in refs:
        words = ref.split()
        for _ in range(rng.randint(0, 4)):
            words[rng.randrange(len(words))] = rng.choice(WORDS)
        hyps.append(" ".join(words))
    return hyps, refs


def best(repeat: int, function):
    times, value = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        value = function()
        times.append(time.perf_counter() - start)
    return min(times), value


def responses_rows() -> list[dict]:
    path = ROOT / "tests" / "data" / "roy2021" / "responses.csv"
    cells: dict = {}
    with open(path, encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            mid = int(float(row["mid"]))
            if mid == 0:
                continue
            cell = cells.setdefault((int(row["question_id"]), mid), {
                "item": int(row["question_id"]), "system": f"M{mid}", "grades": {}})
            cell["grades"][row["user_id"]] = float(row["Overall DA Score"])
    rows = [cells[key] for key in sorted(cells)]
    rng = random.Random(0)
    for row in rows:  # a stand-in metric: the cell's mean DA, blurred
        mean = float(np.mean(list(row["grades"].values())))
        row["scores"] = {"stand_in": min(1.0, max(0.0, mean / 100 + rng.gauss(0, 0.15)))}
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--kendall", help="path of the replication package's kendalls_tau.py")
    parser.add_argument("--trials", type=int, default=1000,
                        help="randomization trials of the protocol runs (default 1000)")
    args = parser.parse_args()
    hyps, refs = sentences(2000, 1)
    record = Record("roy2021", {"sentences": 2000, "repeat": args.repeat,
                                "trials": args.trials, "kendall": bool(args.kendall)})
    print(f"{args.repeat} interleaved runs; {load()}")
    print("| what | peer (s) | ours (s) | ratio |\n|---|---:|---:|---:|")

    from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

    method5 = SmoothingFunction().method5
    metric = cgm_metrics.get_metric("bleu", smooth_method="nltk-method5", tokenize="none")
    timed = interleaved({
        "peer": lambda: [100 * sentence_bleu([r.split()], h.split(), smoothing_function=method5)
                         for h, r in zip(hyps, refs, strict=True)],
        "ours": lambda: metric.compute(hyps, refs, per_item=True)}, args.repeat)
    assert timed["ours"].result["per_item"] == timed["peer"].result
    ratio = record.ratio("sentBLEU", timed["peer"], timed["ours"],
                         "nltk sentence_bleu (method 5) of every sentence vs our bleu "
                         "compute(per_item=True)", 2000, "sentence")
    print(f"| sentBLEU (nltk method 5), 2000 sentences | {timed['peer'].best:.3f} | "
          f"{timed['ours'].best:.3f} | {ratio:.1f}x |")

    from rouge import Rouge

    names = ["rouge-1", "rouge-2", "rouge-3", "rouge-4", "rouge-l"]
    metrics = [cgm_metrics.get_metric("rouge_n", n=n, implementation="rouge",
                                      tokenize="whitespace") for n in range(1, 5)]
    metrics.append(cgm_metrics.get_metric("rouge_l", implementation="rouge",
                                          tokenize="whitespace"))
    timed = interleaved({
        "peer": lambda: Rouge(metrics=names).get_scores(hyps, refs),
        "ours": lambda: [m.compute(hyps, refs, per_item=True) for m in metrics]}, args.repeat)
    expected = timed["peer"].result
    for name, result in zip(names, timed["ours"].result, strict=True):
        assert result["per_item"] == [e[name]["f"] for e in expected], name
    ratio = record.ratio("ROUGE", timed["peer"], timed["ours"],
                         "rouge 1.0.1 Rouge().get_scores (ROUGE-1..4 and L in one call) vs "
                         "our five metrics' compute(per_item=True)", 2000, "sentence")
    print(f"| ROUGE-1..4 + ROUGE-L (rouge 1.0.1), 2000 sentences | {timed['peer'].best:.3f} | "
          f"{timed['ours'].best:.3f} | {ratio:.1f}x |")

    rows = responses_rows()
    data = graded_from_rows(rows)
    human, metric_values, groups = [], [], []
    for row in rows:
        for user, value in row["grades"].items():
            human.append(value)
            metric_values.append(row["scores"]["stand_in"])
            groups.append((row["item"], user))
    if args.kendall:
        import pandas as pd

        spec = importlib.util.spec_from_file_location("roy_kendalls_tau", args.kendall)
        oracle = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(oracle)
        frame = pd.DataFrame({"question_id": [g[0] for g in groups],
                              "user_id": [g[1] for g in groups], "human": human,
                              "metric": [-m for m in metric_values]})
        timed = interleaved({
            "peer": lambda: oracle.kendalls_tau_darr(frame, human_col="human",
                                                     metric_col="metric"),
            "ours": lambda: darr_kendall(human, metric_values, groups)}, args.repeat)
        expected = timed["peer"].result
        assert timed["ours"].result == {k: (float(v) if k == "tau" else int(v))
                                        for k, v in expected.items()}
        ratio = record.ratio("DARR Kendall", timed["peer"], timed["ours"],
                             "the replication package's kendalls_tau_darr vs our "
                             "darr_kendall, 5,201 assessments")
        print(f"| DARR Kendall's tau, 5,201 assessments (9,759 pairs) | "
              f"{timed['peer'].best:.3f} | {timed['ours'].best:.4f} | {ratio:.0f}x |")

    hs = ROOT / "tests" / "data" / "hearthstone" / "hs.graded.jsonl"
    our_time, result = best(1, lambda: run_roy2021(hs, grade_range=(0, 4),
                                                    n_resamples=args.trials))
    print(f"| protocol, HearthStone: {len(result.models)} models, 6 metrics, {args.trials} "
          f"trials | | {our_time:.2f} | |")
    record.value("protocol HearthStone", our_time, "s",
                 f"run_roy2021 on HearthStone, {len(result.models)} models, {args.trials} trials")
    our_time, result = best(1, lambda: run_roy2021(data, n_resamples=args.trials))
    print(f"| protocol, replication data: {len(result.models)} models, 1 metric, "
          f"{args.trials} trials | | {our_time:.2f} | |")
    record.value("protocol replication data", our_time, "s",
                 f"run_roy2021 on the replication data's human side, {len(result.models)} "
                 f"models, one stand-in metric, {args.trials} trials")
    print(json.dumps(result.type_i["stand_in"]["[0, 2]"]))
    record.write()


if __name__ == "__main__":
    main()
