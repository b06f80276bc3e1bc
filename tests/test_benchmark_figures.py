"""Every speed ratio the README, the docs pages and the cards quote next to a benchmark script
is a figure that script recorded (benchmarks/results/<script>.json, appended by every run): a single value is
one run's ratio (of its best runs, or of its median runs), a range ``a-b`` the lowest and
highest ratio of one figure over the recorded runs, each at the precision it is written with. Changing a quoted ratio, or quoting one that no
run produced, fails here."""

from __future__ import annotations

import json
import re

import pytest
from conftest import ROOT

DOCS = [ROOT / "README.md", *sorted(ROOT.glob("docs/**/*.md")),
        *sorted(ROOT.glob("metrics/*/README.md")), *sorted(ROOT.glob("spaces/*.md"))]
RESULTS = ROOT / "benchmarks" / "results"
SCRIPT = re.compile(r"benchmarks/(\w+)\.py")
RATIO = re.compile(r"(?<![\w.\-])(\d+(?:\.\d+)?)(?:-(\d+(?:\.\d+)?))?x\b")
# Scripts that do not record their runs: execution.py (its rows say "an earlier run, not
# recorded") and metric_agreement.py (agreement statistics, no timings). A script leaves this
# set when it records its runs; the test below checks that the set and the results agree.
NOT_RECORDED = {"execution", "metric_agreement"}


# Modules of benchmarks/ that are not benchmark scripts (shared helpers and inputs).
HELPERS = {"benchtools", "corpus", "humaneval_variants"}


def _units(text: str) -> list[tuple[str, set[str]]]:
    """Paragraphs and table rows, each with the benchmark scripts it names (a table row that
    names none belongs to the paragraph before its table)."""
    units: list[tuple[str, set[str]]] = []
    paragraph: list[str] = []
    context: set[str] = set()

    def close() -> None:
        nonlocal context
        if paragraph:
            joined = " ".join(paragraph)
            context = set(SCRIPT.findall(joined))
            units.append((joined, context))
            paragraph.clear()

    for line in text.splitlines():
        if line.startswith("|"):
            close()
            named = set(SCRIPT.findall(line))
            units.append((line, named or context))
        elif line.strip():
            paragraph.append(line)
        else:
            close()
    close()
    return units


def _ratios(name: str) -> dict[str, list[float]]:
    path = RESULTS / f"{name}.json"
    out: dict[str, list[float]] = {}
    for run in json.loads(path.read_text(encoding="utf-8"))["runs"]:
        for key, figure in run["figures"].items():
            if "ratio" in figure:  # the best runs' ratio, and the median runs'
                out.setdefault(key, []).append(float(figure["ratio"]))
                out.setdefault(f"{key} (median)", []).append(float(figure["ratio_median"]))
    return out


def _digits(text: str) -> int:
    return len(text.split(".")[1]) if "." in text else 0


def _tied(low: str, high: str | None, recorded: dict[str, list[float]]) -> bool:
    for values in recorded.values():
        if high is None:
            if any(f"{v:.{_digits(low)}f}" == low for v in values):
                return True
        elif (f"{min(values):.{_digits(low)}f}" == low
              and f"{max(values):.{_digits(high)}f}" == high):
            return True
    return False


def quoted_figures() -> list[tuple[str, str, set[str]]]:
    found = []
    for doc in DOCS:
        for text, scripts in _units(doc.read_text(encoding="utf-8")):
            for match in RATIO.finditer(text):
                if scripts:
                    found.append((f"{doc.relative_to(ROOT)}: {match.group(0)}", text, scripts))
    return found


def untied(figures: list[tuple[str, str, set[str]]]) -> list[str]:
    bad = []
    for where, text, scripts in figures:
        recorded = {name: _ratios(name) for name in scripts if (RESULTS / f"{name}.json").exists()}
        match = RATIO.search(where.rsplit(": ", 1)[1])
        assert match is not None
        low, high = match.group(1), match.group(2)
        if any(_tied(low, high, ratios) for ratios in recorded.values()):
            continue
        if scripts & NOT_RECORDED:
            continue
        bad.append(f"{where} (in: {text[:100]}...; recorded: {sorted(recorded)})")
    return bad


def test_every_quoted_ratio_is_a_recorded_one():
    figures = quoted_figures()
    assert figures  # the README quotes ratios next to its scripts
    assert untied(figures) == []


def test_a_changed_ratio_fails(monkeypatch):
    """The check is live: a README whose chrF corpus ratio is edited no longer passes."""
    figures = [(where, text, scripts) for where, text, scripts in quoted_figures()
               if "chrf" in scripts and "chrf" not in NOT_RECORDED]
    assert figures and untied(figures) == []
    where, text, scripts = figures[0]
    edited = [(where.rsplit(": ", 1)[0] + ": 99.9x", text, scripts)]
    assert untied(edited)


def test_every_recording_script_has_recorded_runs():
    """A script out of NOT_RECORDED has a results file with at least one run, and a script
    whose results exist is not listed as unrecorded; every name listed is a script."""
    scripts = {path.stem for path in (ROOT / "benchmarks").glob("*.py")} - HELPERS
    assert NOT_RECORDED <= scripts
    for name in sorted(scripts - NOT_RECORDED):
        path = RESULTS / f"{name}.json"
        assert path.exists(), f"benchmarks/{name}.py records nothing yet: run it"
        assert json.loads(path.read_text(encoding="utf-8"))["runs"], name
        assert "Record(" in (ROOT / "benchmarks" / f"{name}.py").read_text(encoding="utf-8")
    for name in sorted(NOT_RECORDED):
        assert not (RESULTS / f"{name}.json").exists(), f"{name} records: leave NOT_RECORDED"


@pytest.mark.parametrize("path", sorted(RESULTS.glob("*.json")), ids=lambda p: p.name)
def test_recorded_results_say_where_and_when(path):
    recorded = json.loads(path.read_text(encoding="utf-8"))
    assert recorded["script"] == f"benchmarks/{path.stem}.py"
    assert (ROOT / recorded["script"]).exists()
    for run in recorded["runs"]:
        assert {"date", "machine", "load_before", "load_after", "settings", "figures"} <= set(run)
        assert run["machine"]["cpus"] >= 1
        for figure in run["figures"].values():
            if "ratio" in figure:
                assert figure["runs"] >= 3 and figure["compares"]
                assert figure["ratio"] == pytest.approx(figure["peer_best_s"]
                                                        / figure["ours_best_s"])
