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
their mutated copies. Every value is checked equal before timing counts; the best of
``--repeat`` runs is printed.
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import json
import random
import time
from pathlib import Path

import numpy as np

import cgm_metrics
from cgm_metrics.agreement import darr_kendall, graded_from_rows, run_roy2021

ROOT = Path(__file__).resolve().parents[1]
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
    print("| what | peer (s) | ours (s) | ratio |\n|---|---:|---:|---:|")

    from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

    method5 = SmoothingFunction().method5
    metric = cgm_metrics.get_metric("bleu", smooth_method="nltk-method5", tokenize="none")
    peer_time, expected = best(args.repeat, lambda: [
        100 * sentence_bleu([r.split()], h.split(), smoothing_function=method5)
        for h, r in zip(hyps, refs, strict=True)])
    our_time, ours = best(args.repeat, lambda: metric.compute(hyps, refs, per_item=True))
    assert ours["per_item"] == expected
    print(f"| sentBLEU (nltk method 5), 2000 sentences | {peer_time:.3f} | {our_time:.3f} | "
          f"{peer_time / our_time:.1f}x |")

    from rouge import Rouge

    names = ["rouge-1", "rouge-2", "rouge-3", "rouge-4", "rouge-l"]
    peer_time, expected = best(args.repeat, lambda: Rouge(metrics=names).get_scores(hyps, refs))
    metrics = [cgm_metrics.get_metric("rouge_n", n=n, implementation="rouge",
                                      tokenize="whitespace") for n in range(1, 5)]
    metrics.append(cgm_metrics.get_metric("rouge_l", implementation="rouge",
                                          tokenize="whitespace"))
    our_time, ours = best(args.repeat, lambda: [m.compute(hyps, refs, per_item=True)
                                                for m in metrics])
    for name, result in zip(names, ours, strict=True):
        assert result["per_item"] == [e[name]["f"] for e in expected], name
    print(f"| ROUGE-1..4 + ROUGE-L (rouge 1.0.1), 2000 sentences | {peer_time:.3f} | "
          f"{our_time:.3f} | {peer_time / our_time:.1f}x |")

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
        peer_time, expected = best(1, lambda: oracle.kendalls_tau_darr(
            frame, human_col="human", metric_col="metric"))
        our_time, value = best(args.repeat, lambda: darr_kendall(human, metric_values, groups))
        assert value == {k: (float(v) if k == "tau" else int(v)) for k, v in expected.items()}
        print(f"| DARR Kendall's tau, 5,201 assessments (9,759 pairs) | {peer_time:.3f} | "
              f"{our_time:.4f} | {peer_time / our_time:.0f}x |")

    hs = ROOT / "tests" / "data" / "hearthstone" / "hs.graded.jsonl"
    our_time, result = best(1, lambda: run_roy2021(hs, grade_range=(0, 4),
                                                    n_resamples=args.trials))
    print(f"| protocol, HearthStone: {len(result.models)} models, 6 metrics, {args.trials} "
          f"trials | | {our_time:.2f} | |")
    our_time, result = best(1, lambda: run_roy2021(data, n_resamples=args.trials))
    print(f"| protocol, replication data: {len(result.models)} models, 1 metric, "
          f"{args.trials} trials | | {our_time:.2f} | |")
    print(json.dumps(result.type_i["stand_in"]["[0, 2]"]))


if __name__ == "__main__":
    main()
