"""What a Space-sized comparison costs: ``cgm compare`` of 3 systems x 100 Python items with
the default metrics (chrF, CodeBLEU, RUBY), in CPU seconds in all and beyond the imports.

    python benchmarks/compare_cost.py [--repeats 5] [--user 0]

The items are those of the Space's load test (``space_load.compare_files``: references of 100
consecutive pairs of the Python golden file; systems: the recorded predictions and two mutated
copies). Two commands run in turn, ``--repeats`` times each (interleaved): ``cgm compare`` on
those files (``--json`` to a temporary file), and a bare ``python -c "import ..."`` of every
module that command ends up importing. The figures are the command's CPU seconds (user +
system of the finished child: start-up and imports included, what a user waits for), its
imports' alone and their difference, best and median, and how many modules it imports. The
package's bytecode is compiled first (``compileall``), as an installed package has it: with
``PYTHONDONTWRITEBYTECODE`` set, every run would otherwise compile each module from source.
Then, in this process, where the time goes:
each metric's statistics of the three systems (after a warm-up, parsed once per evaluation as
the command does) and the paired tests. No peer: the figures are ours alone, appended to
``benchmarks/results/compare_cost.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchtools import Record, load  # noqa: E402
from space_load import compare_files  # noqa: E402


def child_cpu(command: list[str]) -> float:
    """User + system CPU seconds of one run of ``command`` (its output thrown away)."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"{command[:3]} failed: {process.stderr.read().decode()[-2000:]}")
    process.stderr.close()
    return usage.ru_utime + usage.ru_stime


def imported_by(command: list[str]) -> list[str]:
    """The modules ``command`` (a ``cgm`` call) has imported when it ends, in import order."""
    code = ("import sys, atexit, json\n"
            "atexit.register(lambda: print(json.dumps(list(sys.modules)), file=sys.stderr))\n"
            "from cgm_metrics.frontends.cli import main\nsys.argv = ['cgm'] + sys.argv[1:]\nmain()\n")
    done = subprocess.run([sys.executable, "-c", code, *command], capture_output=True, text=True,
                          check=False)
    names = json.loads(done.stderr.strip().splitlines()[-1])
    return [name for name in names if name != "__main__"]


IMPORT_ALL = """import importlib, sys
for name in sys.argv[1:]:
    try:
        importlib.import_module(name)
    except Exception:
        pass
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--user", type=int, default=0, help="which window of 100 items")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="compare_cost_"))
    references, systems = compare_files(folder, args.user)
    arguments = ["compare", "--references", str(references), *map(str, systems), "--lang",
                 "python", "--no-progress", "--json", str(folder / "out.json")]
    import compileall

    import cgm_metrics

    compileall.compile_dir(Path(cgm_metrics.__file__).parent, quiet=1)
    modules = imported_by(arguments)
    imports = [sys.executable, "-c", IMPORT_ALL, *modules]
    command = [sys.executable, "-m", "cgm_metrics", *arguments]
    print(f"3 systems x 100 items, default metrics; {args.repeats} interleaved runs; {load()}")
    record = Record("compare_cost", {"systems": 3, "items": 100, "repeats": args.repeats,
                                     "user": args.user})
    compare_runs, import_runs = [], []
    child_cpu(command)  # warm-up: the file cache
    for _ in range(args.repeats):
        compare_runs.append(child_cpu(command))
        import_runs.append(child_cpu(imports))
    beyond = [a - b for a, b in zip(compare_runs, import_runs, strict=True)]
    print(f"cgm compare: {min(compare_runs):.3f} s CPU (median {statistics.median(compare_runs):.3f}); "
          f"its imports alone: {min(import_runs):.3f} s (median {statistics.median(import_runs):.3f})")
    print(f"beyond the imports: best {min(beyond):.3f} s, median {statistics.median(beyond):.3f} s"
          f"; {len(modules)} modules imported")
    record.value("compare_best", min(compare_runs), "CPU s",
                 "cgm compare in all (start-up, imports and work), best of the runs")
    record.value("compare_median", statistics.median(compare_runs), "CPU s",
                 "cgm compare in all (start-up, imports and work), median of the runs")
    record.value("imports_best", min(import_runs), "CPU s",
                 "a bare import of the modules cgm compare imports, best of the runs")
    record.value("modules_imported", len(modules), "modules", "sys.modules at the end")
    record.value("beyond_imports_best", min(beyond), "CPU s",
                 "cgm compare minus a bare import of its modules, paired runs, best")
    record.value("beyond_imports_median", statistics.median(beyond), "CPU s",
                 "cgm compare minus a bare import of its modules, paired runs, median")
    # where the time goes, in this process
    from cgm_metrics.base.io import read_outputs  # noqa: F401  (the command's reader, imported)
    from cgm_metrics.pipeline.evaluation import Evaluation, load_metrics

    refs = [json.loads(line)["references"] for line in
            references.read_text(encoding="utf-8").splitlines()]
    outputs = {path.stem: [json.loads(line)["prediction"] for line in
                           path.read_text(encoding="utf-8").splitlines()] for path in systems}
    metric_set = load_metrics(None, "python")
    Evaluation(metric_set, refs, outputs).compare()  # warm-up: grammars, engines
    parts: dict[str, list[float]] = {}
    for _ in range(args.repeats):
        for name in metric_set.names:
            alone = load_metrics([name], "python")
            started = time.process_time()
            Evaluation(alone, refs, outputs).statistics  # noqa: B018
            parts.setdefault(name, []).append(time.process_time() - started)
        evaluation = Evaluation(metric_set, refs, outputs)
        started = time.process_time()
        evaluation.statistics  # noqa: B018
        parts.setdefault("statistics of all three", []).append(time.process_time() - started)
        started = time.process_time()
        evaluation.compare()
        parts.setdefault("paired tests", []).append(time.process_time() - started)
    for name, runs in parts.items():
        print(f"  {name}: {min(runs):.3f} s CPU (median {statistics.median(runs):.3f})")
        record.value(f"in_process_{name.replace(' ', '_')}", min(runs), "CPU s",
                     "in this process after a warm-up, best of the runs")
    print(load())
    record.write()


if __name__ == "__main__":
    main()
