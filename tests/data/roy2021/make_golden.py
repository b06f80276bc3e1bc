"""Make ``golden.json``: the outputs of two peer scripts on generated and real cases.

    python tests/data/roy2021/make_golden.py KENDALLS_TAU_PY CHRF_PY

- ``KENDALLS_TAU_PY``: ``scripts/kendalls_tau.py`` of Roy et al.'s replication package
  (github.com/devjeetr/Re-assessing-automatic-evaluation-metrics-for-source-code-summarization-tasks,
  CC0, commit d76e77b6ba373a3fc132e457d8eb27e79a7ee100), the oracle of
  ``cgm_metrics.agreement.darr_kendall``. Needs pandas.
- ``CHRF_PY``: ``chrF++.py`` of github.com/m-popovic/chrF (commit
  6d3c384c8327a35c937ae231437cdb33ad4cd42d), the implementation the study's chrF names
  ("default setup": character 6-grams, word 2-grams, beta 2), the oracle of the registry's
  ``chrf_code`` with ``word_order=2, eps_smoothing=True``.

Neither script is part of this project: they are imported from the paths given and only
their outputs are written (with the inputs they were run on).

Kendall cases: ``kendalls_tau_darr(df, groupby=["question_id", "user_id"],
human_col="human", metric_col="metric", threshold=t)`` on random data frames (groups of 1 to
7 rows, integer and fractional human scores with many differences of exactly the threshold,
metric scores with many ties), run twice: on the metric as given ("oracle") and on the
metric negated ("oracle_negated_metric"). The script ranks human scores best first (rank 1 =
the higher score) but metric scores with pandas ``rank(method="min")`` (rank 1 = the lower
score), so on scores where higher is better its "c" and "d" are the discordant and concordant
pairs of the paper's Table 1; on the negated metric they are Table 1's. And on the real
assessments (``responses.csv`` beside this script, models M1-M5, groups (question_id,
user_id), Overall DA): with a constant metric every DARR pair whose human difference reaches
25 is a tie, so "ties" counts those pairs.

And on the Hearthstone data (``../hearthstone/hs.graded.jsonl``: 66 items, 2 systems, 4
graders grading 0-4): groups (item, grader), human = 25 * grade (0-4 mapped to 0-100), metric
= each of the rows' per-item scores ("hearthstone_darr", same two runs).

chrF cases: Hearthstone predictions and references (``../hearthstone/hs.graded.jsonl``) with
their whitespace collapsed to single spaces (chrF++.py reads one line per sentence), and
random word texts, some with several references (joined by ``*#``, the script's separator).
Per sentence: ``computeChrF([ref], [hyp], ...)``'s average F (the sentence F at full
precision); per corpus: the document-level F and the average of sentence F. The script
cannot score a sentence whose F is 0 for every reference (it then reuses the counts of the
previous sentence, or fails on the first); such sentences are left out (listed as skipped).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def load(path: str, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def kendall_case(rng: random.Random, n_groups: int, threshold: float, fractional: bool) -> dict:
    groups, humans, metrics = [], [], []
    for g in range(n_groups):
        size = rng.randint(1, 7)
        base = rng.randint(0, 100)
        for _ in range(size):
            if rng.random() < 0.4:  # differences of exactly the threshold, or just below it
                human = base + rng.choice([-1, 1]) * rng.choice([threshold, threshold - 1,
                                                                 threshold + 0.5, 0])
            else:
                human = rng.randint(0, 100)
            if fractional:
                human = human + rng.choice([0, 0.25, 0.5])
            humans.append(float(human))
            # few distinct metric values: many ties within a group
            metrics.append(rng.choice([0.0, 0.1, 0.25, 0.5, 0.5, 1.0, rng.random()]))
            groups.append([rng.randint(0, n_groups // 2), f"u{g % 5}"])
    return {"groups": groups, "human": humans, "metric": metrics, "threshold": threshold}


def run_kendall(oracle, case: dict, negate: bool) -> dict:
    import pandas as pd

    frame = pd.DataFrame({
        "question_id": [g[0] for g in case["groups"]],
        "user_id": [g[1] for g in case["groups"]],
        "human": case["human"],
        "metric": [-m if negate else m for m in case["metric"]],
    })
    result = oracle.kendalls_tau_darr(frame, groupby=["question_id", "user_id"],
                                      human_col="human", metric_col="metric",
                                      threshold=case["threshold"])
    return {key: (float(value) if key == "tau" else int(value)) for key, value in result.items()}


def responses_cases(oracle) -> dict:
    import pandas as pd

    frame = pd.read_csv(HERE / "responses.csv", index_col=0)
    models = frame[frame["mid"] > 0].rename(columns={"Overall DA Score": "human"})
    out = {}
    for name, metric in (("constant_metric", 0.0), ("metric_equals_human", None)):
        data = models.assign(metric=models["human"] if metric is None else metric)
        result = oracle.kendalls_tau_darr(data, groupby=["question_id", "user_id"],
                                          human_col="human", metric_col="metric", threshold=25)
        out[name] = {k: (float(v) if k == "tau" else int(v)) for k, v in result.items()}
    return out


def hearthstone_cases(oracle) -> dict:
    import pandas as pd

    rows = [json.loads(line) for line in
            (HERE.parent / "hearthstone" / "hs.graded.jsonl").read_text(encoding="utf-8")
            .splitlines() if line.strip()]
    out = {}
    for metric in rows[0]["scores"]:
        records = [{"question_id": row["item"], "user_id": grader, "human": 25.0 * grade,
                    "metric": row["scores"][metric]}
                   for row in rows for grader, grade in row["grades"].items()]
        frame = pd.DataFrame.from_records(records)
        runs = {}
        for key, sign in (("oracle", 1.0), ("oracle_negated_metric", -1.0)):
            data = frame.assign(metric=sign * frame["metric"])
            result = oracle.kendalls_tau_darr(data, groupby=["question_id", "user_id"],
                                              human_col="human", metric_col="metric",
                                              threshold=25)
            runs[key] = {k: (float(v) if k == "tau" else int(v)) for k, v in result.items()}
        out[metric] = runs
    return out


def word_texts(rng: random.Random, count: int) -> list[str]:
    words = ["the", "cat", "sat", "on", "mat", "returns", "value", "of", "list", "x", "a",
             "(", ")", ",", ".", "get", "set", "name", "id", "an", "item", "e.g."]
    return [" ".join(rng.choice(words) for _ in range(rng.randint(1, 14)))
            for _ in range(count)]


def chrf_cases(oracle, rng: random.Random) -> dict:
    rows = [json.loads(line) for line in
            (HERE.parent / "hearthstone" / "hs.graded.jsonl").read_text(encoding="utf-8")
            .splitlines() if line.strip()]
    hyps = [" ".join(r["prediction"].split()) for r in rows]
    refs = [[" ".join(r["references"][0].split())] for r in rows]
    texts = word_texts(rng, 300)
    hyps += texts[:100]
    refs += [[t] for t in texts[100:200]]
    hyps += texts[200:260]
    refs += [rng.sample(texts[:200], rng.randint(2, 3)) for _ in range(60)]
    out: dict = {"source": "hearthstone (whitespace collapsed) and generated word texts"}
    for name, nworder in (("c6w2", 2), ("c6w0", 0)):
        sentence, skipped = [], []
        kept_h, kept_r = [], []
        for index, (hyp, ref) in enumerate(zip(hyps, refs, strict=True)):
            try:
                _, average, _, _ = oracle.computeChrF(["*#".join(ref)], [hyp], nworder, 6, 2.0)
            except (NameError, UnboundLocalError, TypeError):
                skipped.append(index)
                continue
            if average == 0:
                skipped.append(index)
                continue
            sentence.append(average)
            kept_h.append(hyp)
            kept_r.append(ref)
        total, average, _, _ = oracle.computeChrF(["*#".join(r) for r in kept_r], kept_h,
                                                  nworder, 6, 2.0)
        out[name] = {"word_order": nworder, "sentence": sentence, "document": total,
                     "average": average, "skipped": skipped}
    out["hypotheses"], out["references"] = hyps, refs
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kendalls_tau", help="path of the replication package's kendalls_tau.py")
    parser.add_argument("chrf", help="path of m-popovic/chrF's chrF++.py")
    parser.add_argument("--out", default=str(HERE / "golden.json"))
    args = parser.parse_args()
    kendall = load(args.kendalls_tau, "roy_kendalls_tau")
    chrf = load(args.chrf, "popovic_chrf")

    rng = random.Random(2021)
    cases = []
    for index in range(36):
        threshold = [25, 25, 25, 10, 0][index % 5]
        case = kendall_case(rng, rng.randint(1, 40), threshold, fractional=index % 3 == 0)
        case["oracle"] = run_kendall(kendall, case, negate=False)
        case["oracle_negated_metric"] = run_kendall(kendall, case, negate=True)
        cases.append(case)
    golden = {
        "generator": "tests/data/roy2021/make_golden.py (see its docstring)",
        "oracles": {
            "kendalls_tau": "devjeetr/Re-assessing-automatic-evaluation-metrics-for-source-"
                            "code-summarization-tasks@d76e77b6ba373a3fc132e457d8eb27e79a7ee100:"
                            "scripts/kendalls_tau.py",
            "chrf": "m-popovic/chrF@6d3c384c8327a35c937ae231437cdb33ad4cd42d:chrF++.py",
        },
        "kendall_cases": cases,
        "kendall_responses": responses_cases(kendall),
        "hearthstone_darr": hearthstone_cases(kendall),
        "chrf": chrf_cases(chrf, random.Random(7)),
    }
    Path(args.out).write_text(json.dumps(golden, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}: {len(cases)} Kendall cases", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
