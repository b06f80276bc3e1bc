"""Time the agreement analysis against the published procedure run with its own libraries.

The peer is the procedure of Out of the BLEU's replication package (notebooks 01 and 03) as
it runs there, one step after the other with the libraries it used: M-MSR by crowd-kit
(``MMSR().fit_predict`` on tasks ``item + system * n_items``), the synthetic models built
item by item, ``random.seed(42)`` and 500 ``random.choices`` resamples, each model's score on
each resample as ``numpy.mean`` of its per-item values (corpus BLEU from sacrebleu's
sufficient statistics of the code tokens, summed over the resample, as sacrebleu's own paired
test does), strict win fractions, significance at <= 0.05 or >= 0.95, the bins of the median
difference. It is the reference a reviewer knows (the published method, with its published
libraries); ours must give the same numbers: every pair fraction is checked equal.

1. HearthStone (tests/data/hearthstone: 66 items x 2 systems -> 30 models, 7 metrics, 500
   resamples), the published protocol: ours (``run_agreement(protocol="evtikhiev2023")``,
   reading the file, aggregating, synthesising, resampling, the table) against the peer doing
   the same from the same file. Also ours with correlations and with the default protocol
   (no peer: the published procedure has neither).
2. Synthetic data the size of the CoNaLa study (472 items, 5 systems, 4 graders, 6 per-item
   scores and code for corpus BLEU), the same comparison.
3. End to end through the command, each in a fresh process (imports included), next to a
   bare ``python -c pass`` (the interpreter's own start-up, the peer of this row): ``cgm
   --help``, ``cgm agreement`` on HearthStone, and on the CoNaLa-sized file with the published
   protocol and ``--json``.

Every side runs ``--repeats`` (>= 3) times, interleaved; the best run counts (the median is
recorded too). Every run appends its figures to benchmarks/results/agreement.json.

    python benchmarks/agreement.py [--repeats 3] [--cli-only]
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchtools import Record, interleaved, load, tranx_tokens  # noqa: E402

from cgm_metrics.agreement import graded_from_rows, run_agreement  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
HS = ROOT / "tests" / "data" / "hearthstone" / "hs.graded.jsonl"
METRICS = ("rouge_l", "codebleu", "chrf", "meteor", "ruby", "edit_sim")
PERCENTAGES = (1, 3, 5, 10, 15, 20, 25, 30)


# ---------------------------------------------------------------- the published procedure


def published_procedure(rows: list[dict], n_resamples: int = 500, seed: int = 42) -> dict:
    """Pair fractions ``{m1: {m2: {metric: fraction}}}`` and the binned outcomes, computed as
    the replication package computes them."""
    import pandas as pd
    from crowdkit.aggregation import MMSR
    from sacrebleu.metrics import BLEU

    systems = list(dict.fromkeys(row["system"] for row in rows))
    items = sorted({row["item"] for row in rows})
    n = len(items)
    at = {(row["system"], row["item"]): row for row in rows}
    # notebook 01: M-MSR on the raw grades, task = item + system * n_items
    labels = [{"worker": worker, "task": i + s * n, "label": grade}
              for s, system in enumerate(systems) for i, item in enumerate(items)
              for worker, grade in at[system, item]["grades"].items()]
    aggregated = MMSR().fit_predict(pd.DataFrame(labels))
    values = {"grade": [[float(aggregated[i + s * n]) for i in range(n)]
                        for s in range(len(systems))]}
    for metric in rows[0]["scores"]:
        if metric != "bleu":
            values[metric] = [[at[system, item]["scores"][metric] for item in items]
                              for system in systems]
    # corpus BLEU with the code tokenizer: sacrebleu's statistics of each (system, item)
    bleu = BLEU(tokenize="none")
    bleu_stats = [np.array(bleu._extract_corpus_statistics(
        [" ".join(tranx_tokens(at[system, item]["prediction"])) for item in items],
        [[" ".join(tranx_tokens(at[system, item]["references"][0])) for item in items]]))
        for system in systems]
    outputs = [[at[system, item]["prediction"] for item in items] for system in systems]
    # notebook 03: synthetic models (base, p %, improve), then de-duplication
    models = [(system, [s] * n) for s, system in enumerate(systems)]
    grade = values["grade"]
    for base, name in enumerate(systems):
        for improve in (True, False):
            changes = []
            for i in range(n):
                donor, best = None, 0.0
                for other in range(len(systems)):
                    difference = grade[other][i] - grade[base][i]
                    if other != base and (difference > 0 if improve else difference < 0) \
                            and abs(difference) > best:
                        donor, best = other, abs(difference)
                if donor is not None:
                    changes.append((best, i, donor))
            changes.sort(key=lambda change: -change[0])
            for p in PERCENTAGES:
                source = [base] * n
                for _, i, donor in changes[: round(p * n / 100)]:
                    source[i] = donor
                models.append((f"{name}_{p}_{int(improve)}", source))
    texts = [[outputs[s][i] for i, s in enumerate(source)] for _, source in models]
    models = [model for k, model in enumerate(models)
              if not any(texts[k] == texts[later] for later in range(k + 1, len(models)))]
    # the paired bootstrap: the same resamples for every model and metric
    random.seed(seed)
    resamples = [random.choices(range(n), k=n) for _ in range(n_resamples)]
    scores: dict[str, dict[str, np.ndarray]] = {}
    for name, source in models:
        scores[name] = {}
        for metric, table in values.items():
            row = np.array([table[s][i] for i, s in enumerate(source)])
            scores[name][metric] = np.array([np.mean(row[r]) for r in resamples])
        stats = np.array([bleu_stats[s][i] for i, s in enumerate(source)])
        scores[name]["bleu"] = np.array([
            bleu._compute_score_from_stats(list(stats[r].sum(axis=0))).score for r in resamples])
    names = [name for name, _ in models]
    fractions = {m1: {m2: {metric: float(np.mean(scores[m1][metric] > scores[m2][metric]))
                           for metric in scores[m1]} for m2 in names if m2 != m1}
                 for m1 in names}
    outcomes: dict[str, list] = {}
    for a in range(len(names)):
        for b in range(a + 1, len(names)):
            m1, m2 = names[a], names[b]
            human = fractions[m1][m2]["grade"]
            for metric in scores[m1]:
                if metric == "grade":
                    continue
                f = fractions[m1][m2][metric]
                human_sig, metric_sig = human <= 0.05 or human >= 0.95, f <= 0.05 or f >= 0.95
                if human_sig and metric_sig:
                    outcome = 0 if (human >= 0.95) == (f >= 0.95) else -1
                else:
                    outcome = 0 if human_sig == metric_sig else (1 if metric_sig else 2)
                median = sorted(scores[m1][metric])[n_resamples // 2] \
                    - sorted(scores[m2][metric])[n_resamples // 2]
                outcomes.setdefault(metric, []).append((int(100 * abs(median)), outcome))
    return {"models": names, "fractions": fractions, "outcomes": outcomes}


def same_fractions(ours, peer: dict) -> int:
    """How many pair fractions were compared; stops the run on the first difference."""
    assert ours.models == peer["models"], (ours.models, peer["models"])
    compared = 0
    for m1, row in peer["fractions"].items():
        for m2, values in row.items():
            for metric, value in values.items():
                if ours.pair_probabilities[m1][m2][metric] != value:
                    raise SystemExit(f"pair fraction differs: {m1} > {m2} on {metric}: "
                                     f"ours {ours.pair_probabilities[m1][m2][metric]}, "
                                     f"published procedure {value}")
                compared += 1
    return compared


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


def timed_process(args: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, *args], check=True, capture_output=True)
    return time.perf_counter() - start


def command_line(repeats: int, record: Record) -> None:
    with tempfile.TemporaryDirectory() as folder:
        conala = Path(folder) / "conala-sized.graded.jsonl"
        conala.write_text("".join(json.dumps(row) + "\n" for row in conala_sized_rows()))
        runs = {"python -c pass (interpreter start-up)": ["-c", "pass"],
                "cgm --help": ["-m", "cgm_metrics", "--help"],
                "cgm agreement HearthStone (default protocol)":
                    ["-m", "cgm_metrics", "agreement", str(HS)],
                "cgm agreement CoNaLa-sized --protocol evtikhiev2023 --json":
                    ["-m", "cgm_metrics", "agreement", str(conala), "--protocol",
                     "evtikhiev2023", "--json", str(Path(folder) / "out.json")]}
        timed = interleaved({label: (lambda a=args: timed_process(a)) for label, args in
                             runs.items()}, repeats)
        bare = timed["python -c pass (interpreter start-up)"].best
        print("| end to end, fresh process | seconds | x interpreter start-up |\n|---|---:|---:|")
        for label, timing in timed.items():
            print(f"| {label} | {timing.best:.2f} | {timing.best / bare:.1f} |")
            record.value(label, timing.best, "s", "wall seconds of a fresh process, best run")


def in_process(repeats: int, record: Record) -> None:
    hs_rows = [json.loads(line) for line in HS.read_text(encoding="utf-8").splitlines()]
    conala_rows = conala_sized_rows()
    print("| data, published protocol | published procedure (s) | ours (s) | ratio | pair "
          "fractions equal |\n|---|---:|---:|---:|---|")
    for key, label, rows, source in (
            ("HearthStone", "HearthStone, 66 items, 2 systems, 7 metrics, 500 resamples",
             hs_rows, HS),
            ("CoNaLa-sized", "CoNaLa-sized, 472 items, 5 systems, 7 metrics, 500 resamples",
             conala_rows, None)):
        def ours(rows=rows, source=source):
            data = source if source is not None else graded_from_rows(rows)
            return run_agreement(data, protocol="evtikhiev2023", correlations=False)

        timed = interleaved({"peer": lambda rows=rows: published_procedure(rows), "ours": ours},
                            repeats)
        compared = same_fractions(timed["ours"].result, timed["peer"].result)
        peer_time, our_time = timed["peer"].best, timed["ours"].best
        ratio = record.ratio(key, timed["peer"], timed["ours"],
                             f"{label}: the published procedure with its libraries vs "
                             "run_agreement(protocol='evtikhiev2023', correlations=False)")
        print(f"| {label} ({len(timed['ours'].result.models)} models) | {peer_time:.2f} | "
              f"{our_time:.3f} | {ratio:.0f}x | all {compared} |", flush=True)
    data = graded_from_rows(conala_rows)
    timed = interleaved({
        "HearthStone, published protocol + correlations":
            lambda: run_agreement(HS, protocol="evtikhiev2023"),
        "HearthStone, default protocol (1000 resamples)":
            lambda: run_agreement(HS, correlations=False),
        "CoNaLa-sized, default protocol (500 resamples)":
            lambda: run_agreement(data, n_resamples=500, correlations=False),
    }, repeats)
    print("\n| ours only (no published counterpart) | seconds |\n|---|---:|")
    for label, timing in timed.items():
        print(f"| {label} | {timing.best:.3f} |")
        record.value(label, timing.best, "s", "ours only, best run")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="interleaved runs (>= 3)")
    parser.add_argument("--cli-only", action="store_true")
    args = parser.parse_args()
    print(f"best of {args.repeats} interleaved runs; {load()}")
    record = Record("agreement", {"repeats": args.repeats, "cli_only": args.cli_only})
    if not args.cli_only:
        in_process(args.repeats, record)
        print()
    command_line(args.repeats, record)
    print(load())
    record.write()


if __name__ == "__main__":
    main()
