"""Timing rules shared by the benchmarks, so that ours and the peer are measured alike.

- Both sides get the same items and the same number of runs (at least 3), interleaved (ours,
  peer, ours, peer, ...) so that a change of load on a shared machine hits both; the best run
  and the median run are both kept (:func:`interleaved`).
- Whatever a user's call does (building the scorer, converting or parsing the inputs) is
  inside each side's timed function, or outside both.
- Every figure comes with the load average before and after, because the machine may be
  shared: compare the ratios of one run, not absolute times across runs.
- Every run of a script appends its figures, with the machine, the load, the date and the
  commit measured, to
  ``benchmarks/results/<script>.json`` (:class:`Record`); the README and the cards quote those
  files (a range over the recorded runs), and ``tests/test_benchmark_figures.py`` fails when a
  quoted ratio is in no recorded run.
"""

from __future__ import annotations

import json
import os
import platform
import re
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"
MIN_REPEATS = 3


def load() -> str:
    """The 1-, 5- and 15-minute load averages and the number of CPUs, as one line."""
    return f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs"


@dataclass
class Timing:
    """The wall seconds of every run of one side, and the result of its last run."""

    runs: list[float] = field(default_factory=list)
    result: Any = None

    @property
    def best(self) -> float:
        return min(self.runs)

    @property
    def median(self) -> float:
        return statistics.median(self.runs)


def interleaved(functions: dict[str, Callable[[], Any]], repeats: int,
                clock: Callable[[], float] = time.perf_counter,
                minimum: int = MIN_REPEATS) -> dict[str, Timing]:
    """Every function run ``repeats`` (>= 3) times, interleaved: ``{name: Timing}``."""
    if repeats < minimum:
        raise SystemExit(f"--repeats must be at least {MIN_REPEATS} (best and median of runs)")
    timings = {name: Timing() for name in functions}
    for _ in range(repeats):
        for name, function in functions.items():
            start = clock()
            timings[name].result = function()
            timings[name].runs.append(clock() - start)
    return timings


def best_of(functions: dict[str, Callable[[], Any]], repeats: int) -> dict[str, tuple[float, Any]]:
    """``{name: (best seconds, result)}``: every function run ``repeats`` times, interleaved."""
    return {name: (timing.best, timing.result)
            for name, timing in interleaved(functions, repeats, minimum=1).items()}


def machine() -> dict[str, Any]:
    """What the figures were measured on."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cpu": model, "cpus": os.cpu_count(), "system": platform.system(),
            "python": platform.python_version()}


def code_version() -> dict[str, Any]:
    """The commit of the code measured, and whether the work tree had changes (git, if any)."""
    import subprocess

    root = Path(__file__).resolve().parent.parent
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True,
                                text=True, timeout=10).stdout.strip()
        changed = subprocess.run(["git", "diff", "--name-only", "HEAD", "--",
                                  ".", ":!benchmarks/results"],
                                 cwd=root, capture_output=True, text=True,
                                 timeout=10).stdout.split()
    except (OSError, subprocess.SubprocessError):
        return {}
    # the files that differed from the commit when the run started, so that a check can tell
    # whether the code a figure measures was the commit's (tests/test_benchmark_figures.py)
    return {"commit": commit, "changed": bool(changed), "changed_paths": sorted(changed)} \
        if commit else {}


class Record:
    """One run of a benchmark script: its figures, appended to ``results/<name>.json`` by
    :meth:`write` with the machine, the load average before and after, the date and the
    settings. A ratio figure is ``peer / ours`` of the best runs (``ratio``) and of the
    median runs (``ratio_median``), with ``compares`` saying what is timed on each side."""

    def __init__(self, name: str, settings: dict[str, Any]) -> None:
        self.name = name
        self.settings = settings
        self.started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        self.load_before = [round(x, 2) for x in os.getloadavg()]
        self.code = code_version()
        self.figures: dict[str, dict[str, Any]] = {}

    def ratio(self, key: str, peer: Timing, ours: Timing, compares: str, unit: int = 1,
              unit_name: str = "call") -> float:
        """Record ``peer / ours`` (best and median runs); returns the best-run ratio."""
        figure = {
            "compares": compares, "ratio": peer.best / ours.best,
            "ratio_median": peer.median / ours.median, "runs": len(ours.runs),
            "peer_best_s": peer.best, "peer_median_s": peer.median,
            "ours_best_s": ours.best, "ours_median_s": ours.median,
            "per": unit_name, "units": unit,
        }
        self.figures[key] = figure
        return figure["ratio"]

    def value(self, key: str, value: float, unit: str, what: str) -> None:
        """Record a figure that is not a ratio (seconds, programs a second)."""
        self.figures[key] = {"value": value, "unit": unit, "what": what}

    def write(self) -> Path:
        RESULTS.mkdir(exist_ok=True)
        path = RESULTS / f"{self.name}.json"
        recorded = (json.loads(path.read_text(encoding="utf-8")) if path.exists()
                    else {"script": f"benchmarks/{self.name}.py", "runs": []})
        recorded["runs"].append({
            "date": self.started, "machine": machine(),
            "load_before": self.load_before, "load_after": [round(x, 2) for x in os.getloadavg()],
            "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]),
            **({"code": self.code} if self.code else {}),
            "settings": self.settings, "figures": self.figures,
        })
        path.write_text(json.dumps(recorded, indent=1) + "\n", encoding="utf-8")
        print(f"recorded in {path.relative_to(RESULTS.parent.parent)}")
        return path


def ratio_row(figure: str, peer_seconds: float, ours_seconds: float, unit: int,
              unit_name: str = "pair") -> str:
    """A markdown row: the figure, both times per unit and the ratio peer / ours."""
    return (f"| {figure} | {1e3 * peer_seconds / unit:.3f} ms/{unit_name} | "
            f"{1e3 * ours_seconds / unit:.3f} ms/{unit_name} | {peer_seconds / ours_seconds:.1f}x |")


def tranx_tokens(code: str) -> list[str]:
    """The code tokenizer of Out of the BLEU (TranX / Wang Ling) in its four published steps,
    as the peers of the benchmarks tokenize (the library has its own, faster)."""
    code = re.sub(r"([^A-Za-z0-9_])", r" \1 ", code)
    code = re.sub(r"([a-z])([A-Z])", r"\1 \2", code)
    code = re.sub(r"\s+", " ", code)
    return code.replace('"', "`").replace("'", "`").split()


def recorded_ratios(name: str) -> dict[str, list[float]]:
    """``{figure: [best-run ratio of every recorded run]}`` of ``results/<name>.json``."""
    path = RESULTS / f"{name}.json"
    out: dict[str, list[float]] = {}
    if not path.exists():
        return out
    for run in json.loads(path.read_text(encoding="utf-8"))["runs"]:
        for key, figure in run["figures"].items():
            if "ratio" in figure:
                out.setdefault(key, []).append(float(figure["ratio"]))
    return out


def quoted_range(values: list[float], digits: int = 1) -> str:
    """How the README quotes a figure over the recorded runs: ``9.4x`` or ``9.4-10.2x``."""
    low, high = f"{min(values):.{digits}f}", f"{max(values):.{digits}f}"
    return f"{low}x" if low == high else f"{low}-{high}x"
