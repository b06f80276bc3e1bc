"""CodeBLEU throughput against the `codebleu` package 0.7.0, in one run, on one process.

Corpora: 1000 standard library functions against mutated copies (``corpus.stdlib_pairs``,
Python) and the golden files of tests/data/codebleu (all ten languages,
Java among them). Both implementations score the same corpus call in this process; the
script checks that the scores agree (all five keys: the package runs with
``PYTHONHASHSEED=0``, whose set order our dataflow reproduces) and prints, per pair, process
CPU time of the package and of ours, the ratio, and where our time goes: comment removal,
parsing, flattening (one cursor walk into arrays), n-grams, syntax, token texts, dataflow.
The reference (pure Python) engine is timed too.

The compiled kernels are compiled once and cached on disk by numba; the first call of a
process loads them (or compiles them when the cache is empty). That cost is reported on its
own line, outside the per-pair figures; ``--cold`` measures a compile from an empty cache in a
subprocess.

    pip install codebleu==0.7.0 --no-deps      # optional benchmark dependency
    PYTHONHASHSEED=0 python benchmarks/codebleu.py [--cold] [--quick]
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cgm_metrics.codebleu import CodeBleuMetric

HERE = Path(__file__).resolve().parent
# this file is named codebleu.py: keep its folder off the path so `codebleu` is the package
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
sys.modules.pop("codebleu", None)
_spec = importlib.util.spec_from_file_location("benchmark_corpus", HERE / "corpus.py")
_corpus = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_corpus)
stdlib_pairs = _corpus.stdlib_pairs

KEYS = (
    "codebleu",
    "ngram_match_score",
    "weighted_ngram_match_score",
    "syntax_match_score",
    "dataflow_match_score",
)
LANGUAGES = ("python", "java", "c", "c_sharp", "cpp", "javascript", "php", "go", "ruby", "rust")
GOLDEN = Path(__file__).resolve().parents[1] / "tests" / "data" / "codebleu"
STAGES = ("comments", "parse", "flatten", "ngrams", "syntax", "tokens", "dataflow")
ENGINE = "CGM_CODEBLEU_ENGINE"


def _corpora(quick: bool) -> list[tuple[str, str, list[str], list[list[str]]]]:
    predictions, references = stdlib_pairs(200 if quick else 1000)
    corpora = [("python", f"stdlib {len(predictions)}", list(predictions),
                [r if isinstance(r, list) else [r] for r in references])]
    for lang in LANGUAGES:
        golden = GOLDEN / f"codebleu_public_{lang}.jsonl"
        if golden.exists():
            rows = [json.loads(line) for line in golden.read_text(encoding="utf-8").splitlines()]
            corpora.append((lang, f"golden {lang}", [r["predictions"][0] for r in rows],
                            [r["references"] for r in rows]))
    return corpora


def _ours(lang, predictions, references, timings, engine="compiled"):
    previous = os.environ.get(ENGINE)
    os.environ[ENGINE] = engine
    try:
        metric = CodeBleuMetric(lang=lang)
        stats = metric.statistics(predictions, references, timings=timings)
        return metric.scores(stats.sum(axis=0))
    finally:
        if previous is None:
            os.environ.pop(ENGINE, None)
        else:
            os.environ[ENGINE] = previous


def _timed(function, *args):
    start = time.process_time()
    result = function(*args)
    return result, time.process_time() - start


def first_call() -> float:
    """CPU seconds of the first compiled call of this process (kernels loaded or compiled)."""
    start = time.process_time()
    for lang in ("python", "java"):
        _ours(lang, ["x = 1\nfor i in y:\n    x += i"], [["x = 2"]], {})
    return time.process_time() - start


def cold_compile() -> float:
    """CPU seconds of a first call with an empty numba cache (a compile), in a subprocess."""
    code = (
        "import time, os; t = time.process_time();"
        "from cgm_metrics.codebleu import calc_codebleu;"
        "calc_codebleu(['x = 1\\nfor i in y:\\n    x += i'], [['x = 2']], lang='python');"
        "print(time.process_time() - t)"
    )
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache, ENGINE: "compiled"}
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                              text=True)
    if done.returncode != 0:
        raise RuntimeError(f"the compile run failed:\n{done.stderr}")
    return float(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cold", action="store_true", help="also time a compile from scratch")
    parser.add_argument("--quick", action="store_true", help="200 stdlib pairs")
    args = parser.parse_args()
    try:
        package = importlib.import_module("codebleu")
    except ImportError:
        package = None
        print("the codebleu package is not installed: pip install codebleu==0.7.0 --no-deps")
    seed = os.environ.get("PYTHONHASHSEED")
    print(f"first compiled call of this process (kernels from numba's disk cache, or compiled "
          f"when it is empty): {first_call():.2f} s CPU, not counted below")
    if args.cold:
        print(f"compile from an empty cache (subprocess): {cold_compile():.1f} s CPU")
    if package is not None:
        for lang in LANGUAGES:  # load the package's grammars outside the timings
            package.calc_codebleu([["x = 1"]], ["x = 1"], lang=lang)
    for lang in LANGUAGES:
        _ours(lang, ["x = 1"], [["x = 1"]], {}, "python")
    summary = []
    for lang, name, predictions, references in _corpora(args.quick):
        n = len(predictions)
        timings: dict[str, float] = {}
        ours, ours_seconds = _timed(_ours, lang, predictions, references, timings)
        _, reference_seconds = _timed(_ours, lang, predictions, references, {}, "python")
        print(f"\n== {name}: {n} pairs, lang={lang} ==")
        print(f"cgm-metrics (compiled) : {1e6 * ours_seconds / n:8.0f} us/pair")
        print(f"cgm-metrics (reference): {1e6 * reference_seconds / n:8.0f} us/pair")
        other = max(ours_seconds - sum(timings.values()), 0.0)
        print("  per pair (us): " + ", ".join(
            f"{key} {1e6 * timings.get(key, 0.0) / n:.0f}" for key in STAGES)
            + f", other {1e6 * other / n:.0f}")
        if package is None:
            continue
        theirs, package_seconds = _timed(package.calc_codebleu, references, predictions, lang)
        ratio = package_seconds / ours_seconds
        print(f"codebleu 0.7.0         : {1e6 * package_seconds / n:8.0f} us/pair")
        print(f"ratio (package CPU time / ours): {ratio:.1f}x "
              f"(reference engine: {package_seconds / reference_seconds:.1f}x)")
        worst = max(abs(ours[key] - theirs[key]) for key in KEYS)
        print(f"  largest difference over the five keys: {worst:.1e}")
        summary.append((name, ratio, 1e6 * ours_seconds / n, 1e6 * package_seconds / n))
        if seed != "0":
            print("  (dataflow equality needs PYTHONHASHSEED=0 for the package run)")
    if summary:
        print("\n== summary: ratio to the package (CPU time, one process) ==")
        for name, ratio, ours_us, package_us in summary:
            print(f"  {name:18s} {ratio:5.1f}x   ours {ours_us:6.0f} us/pair, "
                  f"package {package_us:6.0f} us/pair")
    nested_loops(package)


def nested_loops(package) -> None:
    """The pathological case: 16 nested loops against a two-line stub."""
    lines = ["    " * d + f"for i{d} in range(n{d}):" for d in range(16)]
    code = "\n".join(lines + ["    " * 16 + "s = s + i0"])
    stub = "def f(x):\n    return x"
    metric = CodeBleuMetric(lang="python")
    start = time.process_time()
    metric.statistics([code], [[stub]])
    ours = time.process_time() - start
    print(f"\n== 16 nested loops vs a stub ==\ncgm-metrics : {1000 * ours:8.1f} ms")
    if package is not None:
        start = time.process_time()
        package.calc_codebleu([[stub]], [code], lang="python")
        print(f"codebleu 0.7.0: {1000 * (time.process_time() - start):8.1f} ms")


if __name__ == "__main__":
    main()
