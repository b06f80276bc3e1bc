"""Every figure the README, the docs pages, the metric cards and the Space's page quote (a
ratio, a time, a size or a rate) is tied to one recorded value of one benchmark script
(``<!--fig SCRIPT FIGURE FIELD STATISTIC RUNS-->`` right after it; benchmarks/quoted.py
says how), in its unit, from runs that recorded their commit, of code unchanged since (or
marked † as from an earlier version). A figure with no tie fails, unless it is one of the
untied figures listed, word for word with the text before it, in benchmarks/untied_figures.txt
(figures of unrecorded runs, kept until they are measured again or removed; the list may only
shrink). Each kind of wrong figure, pasted into a copy of the docs, fails the check."""

from __future__ import annotations

import copy
import importlib.util
import json
import re
import subprocess
import sys

import pytest
from conftest import ROOT


def _load_quoted():
    """benchmarks/quoted.py, loaded by path: benchmarks/ on sys.path would let its scripts
    (codebleu.py, ruby.py, ...) shadow the real packages of the same names."""
    spec = importlib.util.spec_from_file_location("cgm_benchmark_quoted",
                                                  ROOT / "benchmarks" / "quoted.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up
    spec.loader.exec_module(module)
    return module


q = _load_quoted()

RESULTS = ROOT / "benchmarks" / "results"
UNTIED = ROOT / "benchmarks" / "untied_figures.txt"
# Scripts that do not record their runs: metric_agreement.py (agreement statistics, no
# timings). A script leaves this set when it records its runs.
NOT_RECORDED = {"metric_agreement"}
# Modules of benchmarks/ that are not benchmark scripts (shared helpers and inputs).
HELPERS = {"benchtools", "corpus", "humaneval_variants", "quoted"}


@pytest.fixture(scope="module")
def texts() -> dict[str, str]:
    return q.read_documents()


@pytest.fixture(scope="module")
def results() -> dict[str, dict]:
    return q.load_results()


def untied_listed() -> set[tuple[str, str, str]]:
    rows = set()
    for line in UNTIED.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            doc, written, before = line.split("\t")
            rows.add((doc, written, before))
    return rows


def _key(doc: str, quote: q.Quoted, line: str) -> tuple[str, str, str]:
    return (doc, quote.written, line[max(0, quote.start - 40):quote.start])


def figure_problems(texts: dict[str, str], results: dict[str, dict],
                    git: q.Git | None = None) -> list[str]:
    """The check's problems, an untied figure forgiven only if it is listed word for word."""
    listed = untied_listed()
    found = []
    for doc, text in texts.items():
        lines = text.splitlines()
        for quote in q.quoted(doc, text):
            line = lines[int(quote.where.rsplit(":", 1)[1]) - 1]
            if quote.spec is None and _key(doc, quote, line) in listed:
                continue
            found.extend(q.check(quote, results, git))
    for doc, text in texts.items():
        if "†<!--fig" in text and "† " not in text.replace("†<!--fig", ""):
            found.append(f"{doc}: figures marked † but no line saying what † means")
    return found


def test_every_quoted_figure_is_tied(texts, results):
    quotes = [quote for doc, text in texts.items() for quote in q.quoted(doc, text)]
    assert sum(quote.spec not in (None, "setting") for quote in quotes) > 100
    assert figure_problems(texts, results) == []


# The untied list may only shrink: lower this when a figure leaves it.
UNTIED_AT_MOST = 69


def test_the_untied_list_holds_only_figures_still_quoted_untied(texts):
    assert len(untied_listed()) <= UNTIED_AT_MOST
    present = set()
    for doc, text in texts.items():
        lines = text.splitlines()
        for quote in q.quoted(doc, text):
            if quote.spec is None:
                present.add(_key(doc, quote, lines[int(quote.where.rsplit(":", 1)[1]) - 1]))
    assert untied_listed() - present == set()


def test_measured_code_unchanged_since_each_run(texts, results):
    """The commit of every run a current figure is tied to is in the repository, and the code
    its script measures is the same in the checkout (else the figure is marked earlier)."""
    git = q.Git()
    if not git.usable():
        pytest.skip("needs the repository's history (git, not a shallow clone)")
    assert [p for p in figure_problems(texts, results, git) if "changed since" in p
            or "not in this repository" in p] == []


# -- each kind of wrong figure, pasted into a copy of the docs, fails -------------------------


def _find(texts: dict[str, str], script: str, figure: str, field: str) -> tuple[str, q.Quoted]:
    for doc, text in texts.items():
        for quote in q.quoted(doc, text):
            if quote.spec and quote.spec.split()[:1] == [script]:
                words = q.shlex.split(quote.spec)
                if words[1] == figure and words[2] == field:
                    return doc, quote
    raise AssertionError(f"the docs quote no {field} of {figure!r} of {script}")


def _recorded(results: dict, script: str, figure: str, field: str, quote: q.Quoted,
              runs: str = "all") -> str:
    """Another figure's recorded value written as ``quote`` is (its digits, a range or not)."""
    values, _, _ = q.value_of([script, figure, field, "range", runs], results)
    digits = q._digits(quote.low)
    low, high = f"{min(values):.{digits}f}", f"{max(values):.{digits}f}"
    return low if quote.high is None or low == high else f"{low}-{high}"


def _paste(texts: dict[str, str], doc: str, quote: q.Quoted, number: str) -> dict[str, str]:
    """A copy of the docs with ``quote``'s number replaced by ``number`` (its tie kept)."""
    edited = dict(texts)
    lines = edited[doc].split("\n")
    index = int(quote.where.rsplit(":", 1)[1]) - 1
    line = lines[index]
    old = quote.low + (f"-{quote.high}" if quote.high else "")
    assert line[quote.start:quote.start + len(old)] == old
    lines[index] = line[:quote.start] + number + line[quote.start + len(old):]
    edited[doc] = "\n".join(lines)
    return edited


def _fails(texts: dict[str, str], results: dict, doc: str) -> list[str]:
    return [p for p in figure_problems({doc: texts[doc]}, results) if p.startswith(doc)]


@pytest.mark.parametrize("script,figure,field,wrong_figure,wrong_field", [
    # chrF's corpus ratio given the sentence range, or its own median range
    ("chrf", "corpus", "ratio", "sentence", "ratio"),
    ("chrf", "corpus", "ratio", "corpus", "ratio_median"),
    # chrF given the "both" figure (the cost of asking for both, not a speed-up)
    ("chrf", "corpus", "ratio", "both", "ratio"),
    # RUBY's end-to-end ratio given the pure-Python kernel's
    ("ruby", "RUBY tree level", "ratio", "plain Python kernel", "ratio"),
    # code_eval's first call given the trivial program's ratio
    ("execution", "humaneval", "ratio", "trivial", "ratio"),
])
def test_another_figures_value_fails(texts, results, script, figure, field, wrong_figure,
                                     wrong_field):
    doc, quote = _find(texts, script, figure, field)
    assert _fails(texts, results, doc) == []
    # the other figure of the same runs, written as the quoted one is
    wrong = _recorded(results, script, wrong_figure, wrong_field, quote,
                      q.shlex.split(quote.spec)[4])
    assert wrong != quote.low + (f"-{quote.high}" if quote.high else "")
    assert _fails(_paste(texts, doc, quote, wrong), results, doc)


def test_codebleu_cold_given_a_per_language_ratio_fails(texts, results):
    """The first call's ratio with one standard-library pair (the median processes') given
    one language's golden pair instead."""
    doc, quote = _find(texts, "codebleu", "cold_stdlib_1", "ratio_median")
    runs = q.shlex.split(quote.spec)[4]
    assert _fails(texts, results, doc) == []
    candidates = {_recorded(results, "codebleu", f"cold_{lang}_1", "ratio_median", quote, runs)
                  for lang in ("python", "java", "c", "cpp", "go", "ruby", "rust", "php")}
    written = quote.low + (f"-{quote.high}" if quote.high else "")
    wrong = sorted(candidates - {written})
    assert wrong, "every language's cold ratio equals the standard-library one"
    for number in wrong:
        assert _fails(_paste(texts, doc, quote, number), results, doc)


@pytest.mark.parametrize("unit", ["ms", "s", "MB", "/s", "µs"])
def test_a_wrong_figure_in_each_unit_fails(texts, results, unit):
    """A tied figure in ms, s, MB, items a second or µs, its number changed by a unit in its
    last digit, fails."""
    for doc, text in texts.items():
        for quote in q.quoted(doc, text):
            if quote.spec and quote.spec.split()[0] not in ("setting", "cited") \
                    and quote.unit.endswith(unit) and (unit != "s" or quote.unit == "s"):
                assert _fails(texts, results, doc) == []
                digits = q._digits(quote.low)
                number = float(quote.low.replace(",", "")) + 10 ** -digits
                wrong = f"{number:.{digits}f}" + (f"-{quote.high}" if quote.high else "")
                assert _fails(_paste(texts, doc, quote, wrong), results, doc)
                return
    pytest.fail(f"no tied figure in {unit} to change")


def test_a_figure_in_text_naming_no_script_fails(texts, results):
    doc = "docs/metrics/codebleu.md"
    edited = dict(texts)
    edited[doc] = texts[doc] + "\nA first call is 1.9x faster than the package's.\n"
    assert any("no tie" in p for p in _fails(edited, results, doc))


@pytest.mark.parametrize("how", ["none", "written in afterwards"])
def test_a_tie_to_a_run_with_no_commit_fails(texts, results, how):
    """A run with no commit, or whose commit was written into the results after the run (a
    note beside it, which the script never writes), backs no figure."""
    doc, quote = _find(texts, "chrf", "corpus", "ratio")
    assert _fails(texts, results, doc) == []
    runs = q.shlex.split(quote.spec)[4]
    uncommitted = copy.deepcopy(results)
    for run in uncommitted["chrf"]["runs"]:
        if runs == "all" or run["date"] in runs.split(","):
            if how == "none":
                run.pop("code", None)
            else:
                run["code"]["note"] = "added after the run"
    assert any("recorded no commit" in p for p in _fails(texts, uncommitted, doc))


def test_a_unit_of_another_kind_fails(texts, results):
    """The chrF corpus ratio's number written in ms instead of x."""
    doc, quote = _find(texts, "chrf", "corpus", "ratio")
    edited = dict(texts)
    lines = edited[doc].split("\n")
    index = int(quote.where.rsplit(":", 1)[1]) - 1
    end = quote.start + len(quote.written)
    lines[index] = lines[index][:quote.start] + quote.written[:-1] + " ms" + lines[index][end:]
    edited[doc] = "\n".join(lines)
    assert any("written in" in p for p in _fails(edited, results, doc))


def test_changed_measured_code_needs_a_new_run_or_the_earlier_mark(results):
    """A run whose work tree had the measured files changed does not describe its commit."""
    git = q.Git()
    if not git.usable():
        pytest.skip("needs the repository's history (git, not a shallow clone)")
    texts = {"x.md": ""}
    chrf = copy.deepcopy(results)
    run = next(r for r in reversed(chrf["chrf"]["runs"]) if (r.get("code") or {}).get("commit"))
    ratio = run["figures"]["corpus"]["ratio"]
    text = f"{ratio:.1f}x<!--fig chrf corpus ratio one {run['date']}-->"
    run["code"]["changed"] = True
    run["code"]["changed_paths"] = ["src/cgm_metrics/maths/chrf.py"]
    texts["x.md"] = text
    found = [p for doc, t in texts.items() for quote in q.quoted(doc, t)
             for p in q.check(quote, chrf, git)]
    assert any("changed since" in p for p in found)
    marked = f"{ratio:.1f}x†<!--fig chrf corpus ratio one {run['date']} earlier-->"
    found = [p for quote in q.quoted("x.md", marked) for p in q.check(quote, chrf, git)]
    assert found == []


@pytest.mark.parametrize("changed, script, stale", [
    ("src/cgm_metrics/frontends/service/pool.py", "passk", False),
    ("src/cgm_metrics/rewards.py", "execution", False),
    ("src/cgm_metrics/rewards.py", "serve_soak", False),
    ("src/cgm_metrics/frontends/commands/serve.py", "execution", False),
    ("src/cgm_metrics/frontends/service/pool.py", "serve_soak", True),
    ("src/cgm_metrics/execution/judge.py", "passk", True),
    ("src/cgm_metrics/frontends/cli.py", "compare_cost", True),
    ("src/cgm_metrics/execution/_sandbox_runner.py", "compare_cost", False),
    ("src/cgm_metrics/execution/_sandbox_child.py", "passk", True),
    ("src/cgm_metrics/execution/_sandbox_runner.py", "serve_soak", True),
    ("src/cgm_metrics/execution/_sandbox_runner.py", "io_judge_speed", True),
])
def test_the_service_and_the_sandbox_side_are_measured_only_where_they_run(changed, script,
                                                                           stale):
    """The execution service runs only under ``cgm serve``: its files stale the soak's figures,
    not the others'; the reward functions (run by no script) stale none; the sandbox worker's
    own files stale only scripts that run programs; the
    rest of the package stales every script that names no narrower set. Both readers of the
    pathspecs agree: the recorded changed files and ``git diff``'s."""
    assert q._under(changed, q.measured(script)) is stale
    git = q.Git()
    if not git.usable():
        pytest.skip("needs the repository's history (git, not a shallow clone)")
    done = subprocess.run(["git", "ls-files", "--", *q.measured(script)], cwd=ROOT,
                          capture_output=True, text=True, check=True)
    assert (changed in done.stdout.split()) is stale


def test_every_script_that_runs_programs_measures_the_sandbox_side():
    """A script that reaches the execution side (the sandbox, code_eval, problem files, the
    service) is one of the scripts whose figures the sandbox worker's files stale."""
    runs = re.compile(r"cgm_metrics\.execution|Sandbox\(|code_eval|allow_code_execution|"
                      r"--problems|cgm serve|frontends\.service")
    for path in sorted((ROOT / "benchmarks").glob("*.py")):
        if path.stem in HELPERS or not runs.search(path.read_text(encoding="utf-8")):
            continue
        measured = q.measured(path.stem)
        assert all(q._under(side, measured) for side in q.SANDBOX_SIDE), path.name


# -- the records themselves ---------------------------------------------------------------------


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


def test_runs_record_their_commit_themselves():
    """The commit comes from benchtools.Record (git at the run's start), with the files that
    differed from it: not something written into the results afterwards."""
    source = (ROOT / "benchmarks" / "benchtools.py").read_text(encoding="utf-8")
    assert re.search(r"self\.code = code_version\(\)", source)
    assert '"changed_paths"' in source


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
