"""CodeBLEU against the `codebleu` package 0.7.0, cold and warm, per language, in one run.

Corpora: 1000 standard-library functions against mutated copies (``corpus.stdlib_pairs``,
Python) and the golden files of tests/data/codebleu (the package's ten languages).

**Cold**: the first call of a new process in a new environment, import included, as a user
meets it in a fresh venv, a CI job or a new container. A venv is made in a temporary folder
and this project is installed into it from source with pip (which compiles the C library);
the dependencies are shared read-only from this environment (a ``.pth`` entry), so nothing
is downloaded. Every measurement is a new process that imports ``calc_codebleu`` (ours, or
the package's) and calls it once on the first 1, 10, 100 items or the whole corpus: CPU
time of import plus call inside the process, and wall time of the whole process
(interpreter start-up included). Ours, the package and our pure-Python engine (what a
platform without a C compiler gets, ``CGM_CODEBLEU_ENGINE=python``) alternate; each figure is
the median of ``--cold-runs`` processes. The very first process of the new environment is
reported on its own line.

**Warm**: in this process, after a first call of each (grammars loaded): CPU time per pair
of ours (the compiled engine), of the pure-Python reference engine (what a platform without
a C compiler gets) and of the package, on the same corpus call, ``--repeats`` interleaved runs
(best and median); the scores are compared
(all five keys; the package runs with PYTHONHASHSEED=0, whose set order our dataflow
reproduces); where our time goes per stage; and calls of 1 and 10 pairs repeated.

    pip install codebleu==0.7.0 --no-deps      # the peer
    PYTHONHASHSEED=0 python benchmarks/codebleu.py [--quick] [--cold-runs 5] [--no-cold]
        [--cold-only] [--cold-sizes 1 10]

Every ratio (cold: per corpus and size, CPU of the package's process / ours, best and median
of the runs; warm: per corpus, and the small calls) is appended to
``benchmarks/results/codebleu.json``.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import json
import marshal
import os
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from functools import partial
from pathlib import Path

from cgm_metrics.maths.codebleu import calc_codebleu
from cgm_metrics.maths.codebleu.options import CodeBleuOptions
from cgm_metrics.maths.codebleu.statistics import STAGES, engine, statistics_rows

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# this file is named codebleu.py: keep its folder off the path so `codebleu` is the package
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
sys.modules.pop("codebleu", None)
_spec = importlib.util.spec_from_file_location("benchmark_corpus", HERE / "corpus.py")
_corpus = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_corpus)
_spec = importlib.util.spec_from_file_location("benchtools", HERE / "benchtools.py")
_benchtools = importlib.util.module_from_spec(_spec)
sys.modules["benchtools"] = _benchtools  # its dataclasses look their module up
_spec.loader.exec_module(_benchtools)
Record, Timing, interleaved = _benchtools.Record, _benchtools.Timing, _benchtools.interleaved

KEYS = (
    "codebleu",
    "ngram_match_score",
    "weighted_ngram_match_score",
    "syntax_match_score",
    "dataflow_match_score",
)
LANGUAGES = ("python", "java", "c", "c_sharp", "cpp", "javascript", "php", "go", "ruby", "rust")
GOLDEN = ROOT / "tests" / "data" / "codebleu"
ENGINE = "CGM_CODEBLEU_ENGINE"

# the child process of a cold measurement: data first (marshal, no imports), then the clocks
CHILD = """
import marshal, sys, time
impl, data_file, first = sys.argv[1], sys.argv[2], int(sys.argv[3])
with open(data_file, "rb") as handle:
    lang, predictions, references = marshal.load(handle)
predictions, references = predictions[:first], references[:first]
cpu, wall = time.process_time(), time.perf_counter()
if impl == "ours":
    from cgm_metrics.maths.codebleu import calc_codebleu
else:
    from codebleu import calc_codebleu
imported = time.process_time()
result = calc_codebleu(references, predictions, lang=lang)
done = time.process_time()
print(repr([imported - cpu, done - cpu, time.perf_counter() - wall, [result[k] for k in KEYS]]))
""".replace("KEYS", repr(KEYS))


def corpora(quick: bool) -> list[tuple[str, str, list[str], list[list[str]]]]:
    predictions, references = _corpus.stdlib_pairs(200 if quick else 1000)
    found = [("stdlib", "python", list(predictions),
              [r if isinstance(r, list) else [r] for r in references])]
    for lang in LANGUAGES:
        rows = [json.loads(line) for line in
                (GOLDEN / f"codebleu_public_{lang}.jsonl").read_text(encoding="utf-8").splitlines()]
        found.append((lang, lang, [r["predictions"][0] for r in rows],
                      [r["references"] for r in rows]))
    return found


def _median(values: list[float]) -> float:
    return statistics.median(values)


# -- cold --------------------------------------------------------------------------------------


def make_environment(folder: Path) -> tuple[Path, Path]:
    """A new venv with this project installed from source; returns its python and its
    site-packages. Nothing is imported in it yet."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    python = folder / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True).stdout.strip()
    shared = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    shared |= {p for p in sys.path if p.endswith("site-packages")}
    Path(purelib, "shared_dependencies.pth").write_text("\n".join(sorted(shared)) + "\n")
    started = time.perf_counter()
    done = subprocess.run(
        [str(python), "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index",
         "--quiet", str(ROOT)], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"installing the project into the new venv failed:\n{done.stderr}")
    built = any(Path(purelib, "cgm_metrics").glob("_native.*"))
    print(f"new environment {folder}: pip install from source {time.perf_counter() - started:.0f}"
          f" s, C library {'built' if built else 'NOT built (no compiler?)'}")
    return python, Path(purelib)


def cold(args: argparse.Namespace, data: list, package_available: bool, record) -> None:
    sizes = args.cold_sizes or ((1, 10, 100) if args.quick else (1, 10, 100, 1000))
    with tempfile.TemporaryDirectory(prefix="cgm-cold-") as folder:
        python, purelib = make_environment(Path(folder) / "env")
        child = Path(folder) / "child.py"
        child.write_text(CHILD)
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        env.pop(ENGINE, None)
        env.pop("PYTHONPATH", None)  # the new venv imports its own install, not a checkout

        python_engine = {**env, ENGINE: "python"}

        def run(impl: str, data_file: Path, first: int) -> tuple[float, float, float, list]:
            started = time.perf_counter()
            done = subprocess.run(
                [str(python), str(child), "ours" if impl == "python-engine" else impl,
                 str(data_file), str(first)],
                capture_output=True, text=True, env=python_engine if impl == "python-engine" else env,
                cwd=folder)
            process = time.perf_counter() - started
            if done.returncode != 0:
                raise RuntimeError(f"{impl} failed in the new environment:\n{done.stderr}")
            _, total, _, scores = ast.literal_eval(done.stdout.strip().splitlines()[-1])
            return total, process, done.stdout, scores

        files = {}
        for name, lang, predictions, references in data:
            files[name] = Path(folder) / f"{name}.marshal"
            files[name].write_bytes(marshal.dumps((lang, predictions, references)))
        total, process, _, _ = run("ours", files["java"], 10)
        print(f"first process of the new environment: 10 Java pairs, import and call "
              f"{1000 * total:.0f} ms CPU, {1000 * process:.0f} ms wall for the whole process")
        found = subprocess.run([str(python), "-c", "import cgm_metrics; print(cgm_metrics.__file__)"],
                               capture_output=True, text=True, check=True, env=env).stdout.strip()
        if not found.startswith(str(purelib)):
            raise RuntimeError(f"the new venv imports cgm_metrics from {found}, not its install")
        bare = []
        for _ in range(5):
            started = time.perf_counter()
            subprocess.run([str(python), "-c", "pass"], check=True, env=env)
            bare.append(time.perf_counter() - started)
        print(f"a bare `python -c pass` in the new environment: {1000 * _median(bare):.0f} ms "
              "wall (part of every process below)")
        print(f"\n== cold: a new process per call (median of {args.cold_runs}), CPU of import + "
              "call inside / wall of the whole process; the last column is our pure-Python "
              "engine (what a platform without a C compiler gets) ==")
        print(f"{'corpus':12s} {'pairs':>5s}  {'ours':>16s}  {'package':>16s}  {'ratio':>6s}"
              f"                  {'Python engine':>16s}")
        worst = 0.0
        for name, _, predictions, _ in data:
            for first in sizes:
                if first > len(predictions):
                    continue
                ours, theirs, reference = [], [], []
                for _ in range(args.cold_runs):
                    ours.append(run("ours", files[name], first))
                    if package_available:
                        theirs.append(run("package", files[name], first))
                    reference.append(run("python-engine", files[name], first))
                ours_cpu = _median([r[0] for r in ours])
                ours_wall = _median([r[1] for r in ours])
                line = f"{name:12s} {first:5d}  {1000 * ours_cpu:6.0f} / {1000 * ours_wall:5.0f} ms"
                if theirs:
                    their_cpu = _median([r[0] for r in theirs])
                    their_wall = _median([r[1] for r in theirs])
                    difference = max(abs(a - b) for a, b in zip(ours[0][3], theirs[0][3], strict=True))
                    worst = max(worst, difference)
                    record.ratio(f"cold_{name}_{first}", Timing([r[0] for r in theirs]),
                                 Timing([r[0] for r in ours]),
                                 "codebleu 0.7.0 vs ours: CPU of import + first call in a new "
                                 "process of a new venv (the README quotes the median)", 1,
                                 f"call of {first} pairs")
                    line += (f"  {1000 * their_cpu:6.0f} / {1000 * their_wall:5.0f} ms  "
                             f"{their_cpu / ours_cpu:5.1f}x (wall {their_wall / ours_wall:.1f}x)")
                reference_cpu = _median([r[0] for r in reference])
                reference_wall = _median([r[1] for r in reference])
                line += f"  {1000 * reference_cpu:6.0f} / {1000 * reference_wall:5.0f} ms"
                if theirs:
                    line += f" {their_cpu / reference_cpu:4.1f}x"
                print(line)
        if package_available:
            print(f"largest difference of the five keys, ours vs the package: {worst:.1e}")


# -- warm --------------------------------------------------------------------------------------


def _timed(function, *args):
    started = time.process_time()
    result = function(*args)
    return result, time.process_time() - started


def _with_engine(name: str, function, *args):
    previous = os.environ.get(ENGINE)
    os.environ[ENGINE] = name
    try:
        return _timed(function, *args)
    finally:
        if previous is None:
            os.environ.pop(ENGINE, None)
        else:
            os.environ[ENGINE] = previous


def _engine_result(name: str, function, *args):
    return _with_engine(name, function, *args)[0]


def warm(data: list, package, record, repeats: int) -> None:
    print(f"\n== warm: one process, CPU time per pair (engine in use: {engine()}; best and "
          f"median of {repeats} interleaved runs) ==")
    for lang in LANGUAGES:  # grammars loaded outside the timings, for both
        calc_codebleu(["x = 1"], ["x = 1"], lang)
        _with_engine("python", calc_codebleu, ["x = 1"], ["x = 1"], lang)
        if package is not None:
            package.calc_codebleu(["x = 1"], ["x = 1"], lang=lang)
    summary = []
    for name, lang, predictions, references in data:
        n = len(predictions)
        sides = {
            "ours": partial(calc_codebleu, references, predictions, lang),
            "python": partial(_engine_result, "python", calc_codebleu, references, predictions,
                              lang),
        }
        if package is not None:
            sides["package"] = partial(package.calc_codebleu, references, predictions, lang=lang)
        timed = interleaved(sides, repeats, clock=time.process_time)
        ours, ours_seconds = timed["ours"].result, timed["ours"].best
        reference_seconds = timed["python"].best
        timings: dict[str, float] = {}
        started = time.process_time()
        statistics_rows(CodeBleuOptions(lang), predictions, references, timings)
        profiled = time.process_time() - started
        print(f"\n-- {name}: {n} pairs, lang={lang}")
        print(f"cgm-metrics (compiled engine) : {1e6 * ours_seconds / n:7.0f} us/pair")
        print(f"cgm-metrics (Python reference): {1e6 * reference_seconds / n:7.0f} us/pair")
        other = max(profiled - sum(timings.values()), 0.0)
        print("  per pair (us): " + ", ".join(
            f"{key} {1e6 * timings.get(key, 0.0) / n:.0f}" for key in STAGES)
            + f", other {1e6 * other / n:.0f}")
        record.value(f"warm_stages_{name}", {key: 1e6 * timings.get(key, 0.0) / n
                                             for key in STAGES}, "CPU us a pair",
                     "where our time goes, one profiled call")
        if package is None:
            continue
        theirs, package_seconds = timed["package"].result, timed["package"].best
        ratio = record.ratio(f"warm_{name}", timed["package"], timed["ours"],
                             "codebleu 0.7.0 calc_codebleu vs ours (compiled engine), one corpus "
                             "call, CPU time", n, "pair")
        record.ratio(f"warm_{name}_python_engine", timed["package"], timed["python"],
                     "codebleu 0.7.0 vs our pure-Python engine, one corpus call, CPU time", n,
                     "pair")
        print(f"codebleu 0.7.0                : {1e6 * package_seconds / n:7.0f} us/pair")
        median = timed["package"].median / timed["ours"].median
        print(f"ratio (package / ours): {ratio:.1f}x (median {median:.1f}x); "
              f"Python reference engine: {package_seconds / reference_seconds:.1f}x")
        print(f"  largest difference over the five keys: "
              f"{max(abs(ours[key] - theirs[key]) for key in KEYS):.1e}")
        summary.append((name, ratio, package_seconds / reference_seconds,
                        1e6 * ours_seconds / n, 1e6 * package_seconds / n))
    if package is not None:
        small_batches(data, package, record)
    if summary:
        print("\n== summary, warm: package CPU time / ours (one process) ==")
        for name, ratio, reference, ours_us, package_us in summary:
            print(f"  {name:12s} {ratio:5.1f}x  (ours {ours_us:5.0f} us/pair, package "
                  f"{package_us:5.0f} us/pair; Python reference engine {reference:.1f}x)")
        if os.environ.get("PYTHONHASHSEED") != "0":
            print("  (dataflow equality needs PYTHONHASHSEED=0 for the package run)")


def _repeated(function, references, predictions, lang, repeats):
    for _ in range(repeats):
        function(references, predictions, lang=lang)


def small_batches(data: list, package, record) -> None:
    """Calls of 1 and 10 pairs, repeated: the fixed cost of a call, warm."""
    print("\n== warm, small calls repeated (CPU per call) ==")
    for name, lang, predictions, references in data[:2]:
        for size, repeats in ((1, 200), (10, 40)):
            refs, preds = references[:size], predictions[:size]
            timed = interleaved({
                "ours": partial(_repeated, calc_codebleu, refs, preds, lang, repeats),
                "package": partial(_repeated, package.calc_codebleu, refs, preds, lang, repeats),
            }, 3, clock=time.process_time)
            ours, theirs = timed["ours"].best, timed["package"].best
            record.ratio(f"warm_{name}_{size}_a_call", timed["package"], timed["ours"],
                         f"codebleu 0.7.0 vs ours, {repeats} calls of {size} pairs, CPU time",
                         repeats, "call")
            print(f"  {name:8s} {size:3d} pairs a call: ours {1e3 * ours / repeats:6.2f} ms, "
                  f"package {1e3 * theirs / repeats:6.2f} ms ({theirs / ours:.1f}x)")


def nested_loops(package, record) -> None:
    """The pathological case: 16 nested loops against a two-line stub (one call each, CPU)."""
    lines = ["    " * d + f"for i{d} in range(n{d}):" for d in range(16)]
    code = "\n".join(lines + ["    " * 16 + "s = s + i0"])
    stub = "def f(x):\n    return x"
    _, ours = _timed(calc_codebleu, [[stub]], [code], "python")
    print(f"\n== 16 nested loops vs a stub ==\ncgm-metrics   : {1000 * ours:8.1f} ms")
    record.value("nested_loops_16 ours", ours, "CPU s",
                 "one call on 16 nested loops against a two-line stub, warm")
    if package is not None:
        _, theirs = _timed(package.calc_codebleu, [[stub]], [code], "python")
        print(f"codebleu 0.7.0: {1000 * theirs:8.1f} ms")
        record.value("nested_loops_16 package", theirs, "CPU s",
                     "the package's call on the same pair, warm")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="200 stdlib pairs, 3 cold runs")
    parser.add_argument("--cold-runs", type=int, default=None,
                        help="processes per cold figure (default 5, 3 with --quick)")
    parser.add_argument("--no-cold", action="store_true", help="skip the cold measurements")
    parser.add_argument("--cold-only", action="store_true", help="skip the warm measurements")
    parser.add_argument("--cold-sizes", type=int, nargs="+", default=None,
                        help="pairs of the cold calls (default 1 10 100 1000)")
    parser.add_argument("--repeats", type=int, default=5, help="interleaved warm runs")
    args = parser.parse_args()
    args.cold_runs = args.cold_runs or (3 if args.quick else 5)
    try:
        package = importlib.import_module("codebleu")
    except ImportError:
        package = None
        print("the codebleu package is not installed: pip install codebleu==0.7.0 --no-deps")
    data = corpora(args.quick)
    record = Record("codebleu", {"quick": args.quick, "cold_runs": 0 if args.no_cold else
                                 args.cold_runs, "repeats": 0 if args.cold_only else args.repeats,
                                 "cold_sizes": args.cold_sizes,
                                 "pythonhashseed": os.environ.get("PYTHONHASHSEED")})
    if not args.no_cold:
        cold(args, data, package is not None, record)
    if not args.cold_only:
        warm(data, package, record, args.repeats)
        nested_loops(package, record)
    record.write()


if __name__ == "__main__":
    main()
