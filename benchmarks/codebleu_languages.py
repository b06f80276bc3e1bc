"""CodeBLEU in the languages the `codebleu` package does not have: the compiled engine against
the pure-Python reference engine, per language, in one run.

No peer exists for Kotlin, Swift, Scala, Lua, Bash, Haskell and Julia, so the ratio is the
compiled engine (what an install with a C compiler runs) against the reference engine (what
a platform without a compiler runs, ``CGM_CODEBLEU_ENGINE=python``), with Java's golden
pairs as a language the package has, for scale.

Corpus per language: the five programs of tests/data/codebleu_languages, each against
``--variants`` edited copies of itself (a random span deleted, duplicated or replaced by
another program's line; a fixed seed). Every figure is CPU time per pair, the best (and the
median) of ``--repeats`` (>= 3) interleaved runs of one ``calc_codebleu`` call on the whole
corpus, after a first call that loads the grammar; the two engines' statistics rows are
compared. Every run appends its figures to benchmarks/results/codebleu_languages.json.

Cost at the Space's snippet size, as ``benchmarks/metric_cost.py`` measures it for the
languages of its worst cases (Python, Java, JavaScript): per language, one item of
``--chars`` characters (the five programs repeated) against 8 edited references, scored by
``CodeBleuMetric.statistics`` after a warm-up (median of ``--repeats``), in seconds per 1,000
characters next to the class attribute ``seconds_per_1k_chars``.

    python benchmarks/codebleu_languages.py [--variants 40] [--repeats 5] [--chars 5000]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]

from cgm_metrics.maths.codebleu import CodeBleuMetric, calc_codebleu  # noqa: E402
from cgm_metrics.maths.codebleu.options import CodeBleuOptions  # noqa: E402
from cgm_metrics.maths.codebleu.statistics import STAGES, engine, statistics_rows  # noqa: E402

sys.path.insert(0, str(HERE))
from benchtools import Record, interleaved, load  # noqa: E402

NEW = ("kotlin", "swift", "scala", "lua", "bash", "haskell", "julia")
DATA = ROOT / "tests" / "data" / "codebleu_languages"
ENGINE = "CGM_CODEBLEU_ENGINE"
ENGINES = ("compiled", "python")


def programs(lang: str) -> list[str]:
    text = (DATA / f"{lang}.txt").read_text(encoding="utf-8")
    return [program.strip("\n") for program in text.split("\n=====\n")]


def edited(program: str, others: list[str], rng: random.Random) -> str:
    lines = program.split("\n")
    k = rng.randrange(len(lines))
    choice = rng.randrange(3)
    if choice == 0:
        start = rng.randrange(len(program))
        return program[:start] + program[start + rng.randint(1, 20):]
    if choice == 1:
        return "\n".join(lines[: k + 1] + [lines[k]] + lines[k + 1:])
    donor = rng.choice(others).split("\n")
    return "\n".join(lines[:k] + [rng.choice(donor)] + lines[k + 1:])


def corpus(lang: str, variants: int, seed: int = 13) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)
    found = programs(lang)
    predictions, references = [], []
    for program in found:
        for _ in range(variants):
            predictions.append(edited(program, found, rng))
            references.append(program)
    return predictions, references


def java_corpus(limit: int) -> tuple[list[str], list[str]]:
    path = ROOT / "tests" / "data" / "codebleu" / "codebleu_public_java.jsonl"
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    records = records[:limit]
    return [r["predictions"][0] for r in records], [r["references"][0] for r in records]


def with_engine(name: str, function, *args):
    previous = os.environ.get(ENGINE)
    os.environ[ENGINE] = name
    try:
        started = time.process_time()
        result = function(*args)
        return result, time.process_time() - started
    finally:
        if previous is None:
            os.environ.pop(ENGINE, None)
        else:
            os.environ[ENGINE] = previous


def measure(lang: str, predictions: list[str], references: list[str], repeats: int) -> dict:
    calc_codebleu(["x"], ["x"], lang)  # grammar and tables loaded outside the timings
    with_engine("python", calc_codebleu, ["x"], ["x"], lang)
    timed = interleaved({name: (lambda name=name: with_engine(
        name, calc_codebleu, references, predictions, lang)[0]) for name in ENGINES},
        repeats, clock=time.process_time)
    best = {name: timing.best for name, timing in timed.items()}
    metric = CodeBleuMetric(lang=lang)
    refs = [[r] for r in references]
    rows = {name: with_engine(name, metric.statistics, predictions, refs)[0] for name in best}
    timings: dict[str, float] = {}
    started = time.process_time()
    statistics_rows(CodeBleuOptions(lang), predictions, refs, timings)
    profiled = time.process_time() - started
    score = calc_codebleu(references, predictions, lang)
    return {
        "pairs": len(predictions),
        "chars": sum(map(len, predictions)) + sum(map(len, references)),
        "compiled": best["compiled"],
        "python": best["python"],
        "timed": timed,
        "equal": bool(np.array_equal(rows["compiled"], rows["python"])),
        "stages": timings,
        "other": max(profiled - sum(timings.values()), 0.0),
        "codebleu": score["codebleu"],
        "dataflow": score["dataflow_match_score"],
    }


def cost(lang: str, chars: int, repeats: int) -> float:
    """Seconds per 1,000 characters of one item of ``chars`` characters with 8 references."""
    import statistics

    rng = random.Random(29)
    found = programs(lang)
    text = ""
    while len(text) < chars:
        text += "\n\n".join(found) + "\n\n"
    text = text[:chars]
    references = [edited(text, found, rng) for _ in range(8)]
    prediction = edited(text, found, rng)
    metric = CodeBleuMetric(lang=lang)
    metric.statistics([found[0]], [[found[1]]])
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        metric.statistics([prediction], [references])
        times.append(time.perf_counter() - started)
    return statistics.median(times) / ((len(prediction) + sum(map(len, references))) / 1000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", type=int, default=40, help="edited copies per program")
    parser.add_argument("--repeats", type=int, default=5,
                        help="interleaved runs (>= 3), best and median kept")
    parser.add_argument("--chars", type=int, default=5000, help="snippet size of the cost rows")
    args = parser.parse_args()
    if engine() != "compiled":
        sys.exit("the compiled CodeBLEU engine is not available here: nothing to compare")
    print(f"CodeBLEU, compiled vs pure-Python reference engine ({load()})")
    record = Record("codebleu_languages", {"variants": args.variants, "repeats": args.repeats,
                                           "chars": args.chars, "clock": "process_time"})
    print("| language | pairs | compiled us/pair | reference us/pair | reference / compiled | "
          "rows equal | corpus CodeBLEU | dataflow |")
    print("|---|---|---|---|---|---|---|---|")
    results = {}
    for lang in (*NEW, "java"):
        if lang == "java":
            predictions, references = java_corpus(5 * args.variants)
        else:
            predictions, references = corpus(lang, args.variants)
        found = results[lang] = measure(lang, predictions, references, args.repeats)
        n = found["pairs"]
        record.ratio(lang, found["timed"]["python"], found["timed"]["compiled"],
                     f"calc_codebleu on {n} {lang} pairs: the pure-Python engine vs the compiled "
                     "one (CPU seconds)", n, "pair")
        print(f"| {lang}{' (golden pairs)' if lang == 'java' else ''} | {n} | "
              f"{1e6 * found['compiled'] / n:.0f} | {1e6 * found['python'] / n:.0f} | "
              f"{found['python'] / found['compiled']:.1f}x | {found['equal']} | "
              f"{found['codebleu']:.4f} | {found['dataflow']:.4f} |")
    print("\nwhere the compiled engine's time goes, per pair (us):")
    for lang, found in results.items():
        n = found["pairs"]
        print(f"  {lang:8s} " + ", ".join(f"{key} {1e6 * found['stages'].get(key, 0.0) / n:.0f}"
                                          for key in STAGES)
              + f", other {1e6 * found['other'] / n:.0f}")
    print(f"\ncost at {args.chars:,} characters with 8 references (s / 1k chars; class attribute "
          f"{CodeBleuMetric.seconds_per_1k_chars}):")
    for lang in NEW:
        seconds = cost(lang, args.chars, args.repeats)
        record.value(f"cost {lang}", seconds, "s/1k chars",
                     f"CodeBleuMetric.statistics of one {args.chars}-character item with 8 "
                     "references, median")
        print(f"  {lang:8s} {seconds:.4f}")
    print(f"\n({load()}; CPU times of one process: compare the ratios, not the absolute "
          "figures across runs)")
    record.write()


if __name__ == "__main__":
    main()
