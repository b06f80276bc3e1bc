"""The figures the README, the docs pages, the metric cards and the Space's page quote, each
tied to one recorded value of one benchmark script.

A quoted figure is a number (or a range ``a-b``) with a unit: ``x`` (a ratio), ``µs``, ``ms``,
``s``, ``min``, ``MB``/``MiB``/``GB`` or a rate (``items/s``, ``pairs/s``, ``/s``...), and a
bare number directly before ``vs <number> <unit>`` or ``against <number> <unit>`` (the unit
of both); fenced code is left out (the docs' tests run it). Every one is followed,
with nothing between them, by a tie::

    37.8x<!--fig chrf corpus ratio one 2026-12-02T09:23:09Z-->
    0.58-0.69 s<!--fig compare_cost compare_best value range DATE,DATE,DATE-->

``fig SCRIPT FIGURE FIELD STATISTIC RUNS [earlier]`` (words split as a shell would, so a
figure name with spaces is quoted):

- SCRIPT: ``benchmarks/SCRIPT.py``, whose runs are in ``benchmarks/results/SCRIPT.json``;
- FIGURE: the name of a figure of those runs;
- FIELD: a number of that figure (``ratio``, ``ratio_median``, ``ours_best_s``,
  ``peer_median_s``, ``value``, ``value.parse`` for a part of a value...), ``FIELD/units`` for
  its time per item (``units`` items a call), ``units/FIELD`` for items a second;
- STATISTIC: ``one`` (the value of the one run named), ``min``, ``max``, ``median``, or
  ``range`` (written ``a-b``: the lowest and the highest over the runs named, or ``a`` when both
  round to it);
- RUNS: ``all``, or the runs' dates (``date`` of each run) separated by commas;
- ``earlier``: the figure was measured on an earlier version of the code it measures (the
  text marks it with ``†`` before the tie).

The written number must be what the statistic gives, rounded as written (its digits after
the point), in the written unit (seconds in ``ms`` multiplied by 1000, and so on); a unit that
is not the recorded one's kind (a time for a ratio, a size for a time) fails. Every run named
must have recorded its commit itself (``code.commit``, not written in afterwards: a run whose
``code`` holds anything but what :class:`benchtools.Record` writes does not count); the code a
script measures (:data:`MEASURED`) must not differ between that commit and the checkout, nor have differed
from the commit when the run started (``code.changed_paths``), unless the figure is marked
``earlier``. Numbers that are not measurements carry a tie saying what they are instead:
``fig setting`` (a limit, a default, an argument) or ``fig cited SOURCE`` (a number from a
paper, another project's documentation, or a measurement the text itself says how it was
made).

``tests/test_benchmark_figures.py`` checks every document with :func:`check` and fails on any
figure with no tie (unless listed word for word in ``benchmarks/untied_figures.txt``, a list
that may only shrink) or with a tie the records do not give; ``python benchmarks/quoted.py``
prints the same problems, untied figures included; ``python scripts/tie_figures.py`` proposes
ties.
"""

from __future__ import annotations

import json
import re
import shlex
import statistics
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"


def documents(root: Path = ROOT) -> list[Path]:
    """The texts that quote figures: README, docs pages, metric cards, the Space's page."""
    return [root / "README.md", *sorted(root.glob("docs/**/*.md")),
            *sorted(root.glob("metrics/*/README.md")), *sorted(root.glob("spaces/*.md"))]


# The code each script measures (git pathspecs): a figure whose run's commit differs from the
# checkout in one of these is from an earlier version. The default is the whole package (and
# the evaluate modules) with the script itself; a script that times one metric names its part
# of the package and what every metric's computation goes through (COMMON; not the registry,
# which only finds a metric's class, outside the timings).
_EVERYTHING = ("src/cgm_metrics", ":(glob)metrics/*/*.py", "spaces/app.py", "setup.py")
# The reward functions are imported only by a training loop (their earlier path too): no
# script runs them. The execution service is imported only by ``cgm serve``: no script but
# the service's runs its code.
_REWARDS = ("src/cgm_metrics/rewards.py", "src/cgm_metrics/frontends/rewards.py")
_SERVICE = ("src/cgm_metrics/frontends/service", "src/cgm_metrics/frontends/commands/serve.py")
# Code that runs only in a sandbox worker's process: only scripts that run programs run it.
SANDBOX_SIDE = ("src/cgm_metrics/execution/_sandbox_child.py",
                "src/cgm_metrics/execution/_sandbox_runner.py")
_WITH_SERVICE = (*_EVERYTHING, *(f":(exclude){path}" for path in _REWARDS))
_NOT_SERVICE = (*_WITH_SERVICE, *(f":(exclude){path}" for path in _SERVICE))
DEFAULT_MEASURED = (*_NOT_SERVICE, *(f":(exclude){path}" for path in SANDBOX_SIDE))
#: the scripts that run programs in the sandbox (a test checks that no other script names the
#: execution side)
RUN_PROGRAMS = ("execution", "execution_languages", "extraction", "humaneval_variants",
                "passk")
COMMON = ("src/cgm_metrics/__init__.py", "src/cgm_metrics/pipeline/metric.py", "src/cgm_metrics/base/errors.py",
          "src/cgm_metrics/base/native.py", "src/cgm_metrics/core",
          "src/cgm_metrics/maths/__init__.py", "src/cgm_metrics/maths/csrc", "setup.py")
_LANGUAGES = ("src/cgm_metrics/languages",)
MEASURED: dict[str, tuple[str, ...]] = {
    "chrf": (*COMMON, "src/cgm_metrics/maths/chrf.py"),
    "crystal_bleu": (*COMMON, *_LANGUAGES, "src/cgm_metrics/maths/crystal_bleu.py"),
    "codebleu": (*COMMON, *_LANGUAGES, "src/cgm_metrics/maths/codebleu"),
    "codebleu_languages": (*COMMON, *_LANGUAGES, "src/cgm_metrics/maths/codebleu"),
    "ruby": (*COMMON, *_LANGUAGES, "src/cgm_metrics/maths/ruby"),
    "ruby_humans": (*COMMON, *_LANGUAGES, "src/cgm_metrics/maths/ruby"),
    "tsed": (*COMMON, *_LANGUAGES, "src/cgm_metrics/maths/tsed.py"),
    "codexglue_edit_sim": (*COMMON, "src/cgm_metrics/maths/codexglue.py"),
    "meteor": (*COMMON, "src/cgm_metrics/maths/classic"),
    "io_judge_speed": (*COMMON, *_LANGUAGES, "src/cgm_metrics/execution"),
    "serve_soak": _WITH_SERVICE,
    **{script: _NOT_SERVICE for script in RUN_PROGRAMS},
    "significance": (*COMMON, "src/cgm_metrics/significance", "src/cgm_metrics/maths/chrf.py",
                     "src/cgm_metrics/maths/classic"),
}


def measured(script: str) -> tuple[str, ...]:
    return (*MEASURED.get(script, DEFAULT_MEASURED), f"benchmarks/{script}.py")


_NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_UNIT = (r"(?:x(?![\w])|\s?(?:µs|ms|s|min|MB|MiB|GB|KB)(?![\w/])"
         r"|\s?(?:[a-z]+)?/s(?![\w]))")
FIGURE = re.compile(rf"(?<![\w.,/\-])(?P<low>{_NUMBER})(?:-(?P<high>{_NUMBER}))?"
                    rf"(?P<unit>{_UNIT})(?P<earlier>†)?(?P<tie><!--fig (?P<spec>.*?)-->)?")
# a bare number before "vs <figure>" takes that figure's unit (0.09-0.35 vs 3.3-8.0 ms)
BEFORE_VS = re.compile(rf"(?<![\w.,/\-])(?P<low>{_NUMBER})(?:-(?P<high>{_NUMBER}))?"
                       rf"(?P<earlier>†)?(?P<tie><!--fig (?P<spec>.*?)-->)?"
                       rf"(?P<vs> (?:vs|against) )(?={_NUMBER})")
TIE = re.compile(r"<!--fig (?P<spec>.*?)-->")
FENCE = re.compile(r"^(```|~~~)")


@dataclass
class Quoted:
    where: str          # document:line
    written: str        # as written, without the tie
    low: str
    high: str | None
    unit: str           # as written ('x', 'ms', 'items/s'...)
    earlier: bool
    spec: str | None
    context: str
    start: int = 0      # where the figure is on its line


def quoted(name: str, text: str) -> list[Quoted]:
    """Every figure of one document (fenced code excluded: its examples are run by the docs'
    tests), with its tie if it has one."""
    found: list[Quoted] = []
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line.lstrip()):
            fenced = not fenced
            continue
        if fenced:
            continue
        for match in FIGURE.finditer(line):
            found.append(Quoted(f"{name}:{number}", match.group(0).split("<!--")[0],
                                match["low"], match["high"], match["unit"].strip(),
                                bool(match["earlier"]), match["spec"],
                                line[max(0, match.start() - 80):match.end() + 20],
                                match.start()))
        for match in BEFORE_VS.finditer(line):
            after = FIGURE.match(line, match.end())
            if after is None:
                continue
            written = match.group(0).split("<!--")[0].removesuffix(match["vs"])
            found.append(Quoted(f"{name}:{number}", written,
                                match["low"], match["high"], after["unit"].strip(),
                                bool(match["earlier"]), match["spec"],
                                line[max(0, match.start() - 80):match.end() + 40],
                                match.start()))
        covered = {m.start("tie") for m in FIGURE.finditer(line) if m["tie"]}
        covered |= {m.start("tie") for m in BEFORE_VS.finditer(line) if m["tie"]}
        for tie in TIE.finditer(line):
            if tie.start() not in covered:
                found.append(Quoted(f"{name}:{number}", "", "", None, "", False,
                                    tie["spec"], line[max(0, tie.start() - 80):tie.end()]))
    return found


# -- units -------------------------------------------------------------------------------------

_SECONDS = {"µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0}
_BYTES = {"KB": 1e3, "MB": 1e6, "GB": 1e9, "MiB": 2**20}


def _kind(unit: str) -> tuple[str, float]:
    """('ratio'|'time'|'rate'|'size'|'count'|'other', scale to the base unit)."""
    unit = unit.strip()
    if unit in ("x", "ratio"):
        return "ratio", 1.0
    if unit.endswith("/s"):
        return "rate", 1.0
    head = unit.removeprefix("CPU ").split("/")[0].split(" ")[0]
    if head in _SECONDS:
        return "time", _SECONDS[head]
    if head in _BYTES:
        return "size", _BYTES[head]
    if head in ("modules", "requests"):
        return "count", 1.0
    return "other", 1.0


def _field(figure: dict[str, Any], field: str) -> tuple[float, str]:
    """The number ``field`` names in one run's figure, with its recorded unit."""
    per_item = rate = False
    if field.endswith("/units"):
        field, per_item = field[: -len("/units")], True
    elif field.startswith("units/"):
        field, rate = field[len("units/"):], True
    name, _, part = field.partition(".")
    value: Any = figure[name]
    if part:
        value = value[part]
    if name in ("ratio", "ratio_median"):
        unit = "x"
    elif name.endswith("_s"):
        unit = "s"
    else:
        unit = figure.get("unit", "")
    value = float(value)
    if per_item:
        value /= float(figure["units"])
    if rate:
        value, unit = float(figure["units"]) / value, "items/s"
    return value, unit


def _digits(text: str) -> int:
    return len(text.split(".")[1]) if "." in text else 0


def _rounds_to(value: float, written: str) -> bool:
    plain = written.replace(",", "")
    return f"{value:.{_digits(plain)}f}" == plain


# -- git ---------------------------------------------------------------------------------------


class Git:
    """What the checkout says about a run's commit (cached; None when git cannot tell)."""

    def __init__(self, root: Path = ROOT) -> None:
        self.root = root
        self._cache: dict[tuple[str, tuple[str, ...]], list[str] | None] = {}

    def usable(self) -> bool:
        try:
            shallow = subprocess.run(["git", "rev-parse", "--is-shallow-repository"],
                                     cwd=self.root, capture_output=True, text=True, timeout=30)
        except OSError:
            return False
        return shallow.returncode == 0 and shallow.stdout.strip() == "false"

    def changed_since(self, commit: str, paths: tuple[str, ...]) -> list[str] | None:
        """Files of ``paths`` that differ between ``commit`` and the work tree; None if the
        commit is not in the repository."""
        key = (commit, paths)
        if key not in self._cache:
            done = subprocess.run(["git", "diff", "--name-only", commit, "--", *paths],
                                  cwd=self.root, capture_output=True, text=True, timeout=60)
            self._cache[key] = done.stdout.split() if done.returncode == 0 else None
        return self._cache[key]


def _under(path: str, paths: Iterable[str]) -> bool:
    """Whether ``path`` is one of the pathspecs ``paths`` names, as ``git diff`` reads them
    (a folder, a file, ``:(glob)`` patterns, and ``:(exclude)`` for what they leave out)."""
    import fnmatch

    paths = list(paths)
    excluded = [p.removeprefix(":(exclude)") for p in paths if p.startswith(":(exclude)")]
    if excluded and _under(path, excluded):
        return False
    paths = [p for p in paths if not p.startswith(":(exclude)")]
    return any(fnmatch.fnmatchcase(path, p.removeprefix(":(glob)")) if p.startswith(":(glob)")
               else path == p or path.startswith(p.rstrip("/") + "/") for p in paths)


# -- checking ----------------------------------------------------------------------------------


def load_results(root: Path = ROOT) -> dict[str, dict[str, Any]]:
    return {path.stem: json.loads(path.read_text(encoding="utf-8"))
            for path in sorted((root / "benchmarks" / "results").glob("*.json"))}


def value_of(spec: list[str], results: dict[str, dict[str, Any]]) \
        -> tuple[list[float], str, list[dict[str, Any]]]:
    """The values over the named runs, their unit and the runs, for a tie's words."""
    script, figure, field, _statistic, runs = spec[:5]
    if script not in results:
        raise ValueError(f"no recorded runs of benchmarks/{script}.py")
    recorded = results[script]["runs"]
    chosen = recorded if runs == "all" else [r for r in recorded if r["date"] in runs.split(",")]
    if runs != "all":
        missing = set(runs.split(",")) - {r["date"] for r in chosen}
        if missing:
            raise ValueError(f"benchmarks/{script}.py has no run of {sorted(missing)}")
    chosen = [r for r in chosen if figure in r["figures"]]
    if not chosen:
        raise ValueError(f"no run named records the figure {figure!r} of {script}")
    values, unit = [], ""
    for run in chosen:
        try:
            value, unit = _field(run["figures"][figure], field)
        except (KeyError, TypeError, ValueError, ZeroDivisionError) as error:
            raise ValueError(f"figure {figure!r} of {script} has no field {field!r}") from error
        values.append(value)
    return values, unit, chosen


def recorded_commit(run: dict[str, Any]) -> str | None:
    """The commit a run recorded itself (benchtools.Record at its start): None when it has
    none, or when its commit was written in afterwards (a ``note`` beside it says so; the
    script writes only commit, changed and changed_paths)."""
    code = run.get("code") or {}
    if not code.get("commit") or set(code) - {"commit", "changed", "changed_paths"}:
        return None
    return str(code["commit"])


def check(quote: Quoted, results: dict[str, dict[str, Any]], git: Git | None) -> list[str]:
    """What is wrong with one quoted figure (nothing: an empty list)."""
    at = f"{quote.where}: {quote.written or '(a tie)'}"
    if quote.spec is None:
        return [f"{at}: no tie (follow it with <!--fig SCRIPT FIGURE FIELD STATISTIC RUNS-->, "
                f"see benchmarks/quoted.py) in: ...{quote.context}..."]
    try:
        words = shlex.split(quote.spec)
    except ValueError as error:
        return [f"{at}: unreadable tie {quote.spec!r}: {error}"]
    if not quote.written:
        return [f"{at}: a tie that follows no figure: {quote.spec!r}"]
    if words[:1] == ["setting"] or (words[:1] == ["cited"] and len(words) >= 2):
        return [f"{at}: a setting or a cited number marked as from an earlier version"] \
            if quote.earlier else []
    earlier = words[5:] == ["earlier"]
    if len(words) != 5 and not earlier:
        return [f"{at}: a tie has five words and maybe 'earlier': {quote.spec!r}"]
    if earlier != quote.earlier:
        return [f"{at}: the tie says {'earlier' if earlier else 'current'} but the text "
                f"{'does not mark' if earlier else 'marks'} the figure with †"]
    statistic = words[3]
    try:
        values, unit, runs = value_of(words, results)
    except ValueError as error:
        return [f"{at}: {error}"]
    kind, scale = _kind(unit)
    written_kind, written_scale = _kind(quote.unit)
    if kind != written_kind:
        return [f"{at}: written in {quote.unit!r}, recorded in {unit!r} ({kind})"]
    factor = scale / written_scale if kind in ("time", "size") else 1.0
    values = [v * factor for v in values]
    problems = []
    if statistic == "range":
        low, high = min(values), max(values)
        ok = (_rounds_to(low, quote.low) and _rounds_to(high, quote.high or quote.low))
    elif statistic in ("one", "min", "max", "median"):
        if statistic == "one" and len(values) != 1:
            return [f"{at}: 'one' names {len(values)} runs"]
        value = {"one": values[0], "min": min(values), "max": max(values),
                 "median": statistics.median(values)}[statistic]
        low = high = value
        ok = quote.high is None and _rounds_to(value, quote.low)
    else:
        return [f"{at}: unknown statistic {statistic!r}"]
    if not ok:
        shown = f"{low:.4g}" if low == high else f"{low:.4g}-{high:.4g}"
        problems.append(f"{at}: the records give {shown} {quote.unit} "
                        f"({statistic} of {words[2]} of {words[1]!r}, benchmarks/{words[0]}.py, "
                        f"{len(runs)} run(s))")
    for run in runs:
        code = run.get("code") or {}
        if not recorded_commit(run):
            problems.append(f"{at}: the run of {run['date']} recorded no commit itself (run "
                            f"benchmarks/{words[0]}.py again and quote that run)")
            continue
        if earlier or git is None:
            continue
        paths = measured(words[0])
        if code.get("changed") and "changed_paths" not in code:
            stale: list[str] | None = ["(the run's work tree had changes it did not list)"]
        else:
            stale = [p for p in code.get("changed_paths", []) if _under(p, paths)]
        since = git.changed_since(code["commit"], paths)
        if since is None:
            problems.append(f"{at}: the commit {code['commit'][:12]} of the run of "
                            f"{run['date']} is not in this repository")
            continue
        stale = stale + since
        if stale:
            problems.append(f"{at}: the code benchmarks/{words[0]}.py measures changed since "
                            f"the run of {run['date']} ({', '.join(sorted(set(stale))[:4])}): "
                            "run it again and quote that run, or mark the figure † with "
                            "'earlier' in its tie")
    return problems


def problems(texts: dict[str, str], results: dict[str, dict[str, Any]],
             git: Git | None) -> list[str]:
    """Every problem of every quoted figure of ``texts`` ({name: markdown})."""
    found = []
    for name, text in texts.items():
        for quote in quoted(name, text):
            found.extend(check(quote, results, git))
        if "†<!--fig" in text and "† " not in text.replace("†<!--fig", ""):
            found.append(f"{name}: figures marked † but no line saying what † means "
                         "(for instance '† measured on an earlier version of the code')")
    return found


def read_documents(root: Path = ROOT) -> dict[str, str]:
    return {str(path.relative_to(root)): path.read_text(encoding="utf-8")
            for path in documents(root)}


if __name__ == "__main__":
    import sys

    found = problems(read_documents(), load_results(), Git() if Git().usable() else None)
    print("\n".join(found) or "every quoted figure is tied to its recorded value")
    sys.exit(1 if found else 0)
