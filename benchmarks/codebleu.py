"""CodeBLEU throughput against the `codebleu` package 0.7.0, in one run, on one process.

Corpora: the Python golden file of tests/data/codebleu and 1000 standard
library functions against mutated copies (``corpus.stdlib_pairs``). Both implementations score
the same corpus call; the script checks the scores agree (n-gram, weighted and syntax exactly;
dataflow exactly too, since this module reproduces the package's set order at hash seed 0 when
the package runs with ``PYTHONHASHSEED=0``) and prints pairs/s (process CPU time), the ratio
and where our time goes.

    pip install codebleu==0.7.0 --no-deps      # optional benchmark dependency
    PYTHONHASHSEED=0 python benchmarks/codebleu.py
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import sys
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
GOLDEN = Path(__file__).resolve().parents[1] / "tests" / "data" / "codebleu"


def _corpora() -> list[tuple[str, list[str], list[list[str]]]]:
    corpora = []
    golden = GOLDEN / "codebleu_public_python.jsonl"
    if golden.exists():
        rows = [json.loads(line) for line in golden.read_text(encoding="utf-8").splitlines()]
        corpora.append(
            ("golden python", [r["predictions"][0] for r in rows], [r["references"] for r in rows])
        )
    predictions, references = stdlib_pairs(1000)
    corpora.append(
        ("stdlib 1000", list(predictions), [r if isinstance(r, list) else [r] for r in references])
    )
    return corpora


def _ours(predictions, references, timings):
    metric = CodeBleuMetric(lang="python")
    stats = metric.statistics(predictions, references, timings=timings)
    return metric.scores(stats.sum(axis=0))


def main() -> None:
    try:
        package = importlib.import_module("codebleu")
    except ImportError:
        package = None
        print("the codebleu package is not installed: pip install codebleu==0.7.0 --no-deps")
    seed = os.environ.get("PYTHONHASHSEED")
    _ours(["x = 1"], [["x = 1"]], {})  # load the grammars once for both
    if package is not None:
        package.calc_codebleu([["x = 1"]], ["x = 1"], lang="python")
    for name, predictions, references in _corpora():
        n = len(predictions)
        timings: dict[str, float] = {}
        # process CPU time: both run single-threaded here, and the machine may be shared
        start = time.process_time()
        ours = _ours(predictions, references, timings)
        ours_seconds = time.process_time() - start
        print(f"\n== {name}: {n} pairs ==")
        print(f"cgm-metrics : {ours_seconds:7.2f} s  {n / ours_seconds:8.0f} pairs/s  "
              f"{1000 * ours_seconds / n:6.3f} ms/pair")
        other = sum(timings.values())  # wall-clock parts; "other" is mostly comment removal
        parts = dict(timings, other=max(ours_seconds - other, 0.0))
        print("  where our time goes (ms/pair): " + ", ".join(
            f"{key} {1000 * value / n:.3f}" for key, value in parts.items()))
        if package is None:
            continue
        start = time.process_time()
        theirs = package.calc_codebleu(references, predictions, lang="python")
        package_seconds = time.process_time() - start
        print(f"codebleu 0.7.0: {package_seconds:7.2f} s  {n / package_seconds:8.0f} pairs/s  "
              f"{1000 * package_seconds / n:6.3f} ms/pair")
        print(f"ratio (throughput, ours / package): {package_seconds / ours_seconds:.1f}x")
        for key in KEYS:
            print(f"  {key:28s} ours {ours[key]:.12f}  package {theirs[key]:.12f}"
                  f"  diff {abs(ours[key] - theirs[key]):.1e}")
        if seed != "0":
            print("  (dataflow equality needs PYTHONHASHSEED=0 for the package run)")
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
