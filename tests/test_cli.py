"""The ``cgm`` command, run as a user runs it: a subprocess, files in, exit code and files out.

Numbers are checked against the library (``cgm_metrics.score`` and
``cgm_metrics.significance``) on the same inputs.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from _peers import codebleu_of, codebleu_package
from conftest import shared_data

import cgm_metrics
from cgm_metrics.agreement.data import read_graded_jsonl
from cgm_metrics.base.errors import InputError
from cgm_metrics.base.io import escape_code, read_predictions, read_references, unescape_code
from cgm_metrics.frontends import cli
from cgm_metrics.pipeline.registry import get_metric

ROOT = Path(__file__).resolve().parents[1]
DEMO_JSON = ROOT / "src" / "cgm_metrics" / "data" / "demo" / "demo.json"




def cgm(*args: str, cwd: Path | None = None, stdin: str | None = None,
        ) -> subprocess.CompletedProcess:
    env = dict(os.environ, HF_EVALUATE_OFFLINE="1", PYTHONHASHSEED="0")
    return subprocess.run(
        [sys.executable, "-m", "cgm_metrics", *map(str, args)],
        capture_output=True, text=True, cwd=cwd, env=env, timeout=300,
        input=stdin if stdin is not None else "",
    )


def escaped(*args: str) -> subprocess.CompletedProcess:
    """``cgm`` on files written by :func:`write_lines` (escaped one-line code)."""
    return cgm(*args, "--unescape")


REFS = [
    "def add(a, b):\n    return a + b",
    'print("tab\\there")',
    "x = [i * i for i in range(10)]",
    "for k in d:\n    print(k, d[k])",
    "class A:\n    pass",
]
PREDS_A = [
    "def add(x, y):\n    return x + y",
    'print("tab here")',
    "x = [i ** 2 for i in range(10)]",
    "for key, value in d.items():\n    print(key, value)",
    "class A:\n    x = 1",
]
PREDS_B = [
    "def add(a, b):\n    return a - b",
    "print(tab)",
    "x = list(range(10))",
    "print(d)",
    "class B:\n    pass",
]


def write_lines(path: Path, items: list[str]) -> Path:
    path.write_text("".join(escape_code(item) + "\n" for item in items), encoding="utf-8")
    return path


@pytest.fixture
def files(tmp_path):
    return {
        "refs": write_lines(tmp_path / "refs.txt", REFS),
        "a": write_lines(tmp_path / "sys_a.txt", PREDS_A),
        "b": write_lines(tmp_path / "sys_b.txt", PREDS_B),
    }


# ---------------------------------------------------------------- readers


def test_escape_convention_round_trips_and_reads_back(tmp_path):
    codes = REFS + ["a\\nb", "back\\\\slash", "", "trailing\\", "\t\r\n"]
    path = write_lines(tmp_path / "x.txt", codes)
    assert len(path.read_text().splitlines()) == len(codes)
    assert read_predictions(path, unescape=True) == codes
    assert unescape_code(r"f()\nreturn 'a\\nb'") == "f()\nreturn 'a\\nb'"
    assert unescape_code(r"keep \x as is") == r"keep \x as is"
    # the default reads lines verbatim, as CodeXGLUE and sacrebleu do
    assert read_predictions(path)[0] == r"def add(a, b):\n    return a + b"


def test_text_lines_are_verbatim_crlf_ends_lines_and_bare_cr_is_refused(tmp_path):
    path = tmp_path / "x.txt"
    path.write_bytes(b'String s = "a\\nb\\\\";\r\nreturn "\\t";\r\n\r\n')
    assert read_predictions(path) == ['String s = "a\\nb\\\\";', 'return "\\t";', ""]
    path.write_bytes(b"x = 1\ry = 2\r")
    with pytest.raises(InputError, match=r"x.txt, line 1: a carriage return .*--unescape"):
        read_predictions(path)
    path.write_bytes(b"x = 1\ny = '\r'\n")
    with pytest.raises(InputError, match="line 2"):
        read_references(path)


def test_jsonl_references_lists_and_errors(tmp_path):
    path = tmp_path / "in.jsonl"
    path.write_text('{"prediction": "a", "references": ["b", "c"]}\n\n'
                    '{"prediction": "d", "references": "e"}\n', encoding="utf-8")
    assert read_predictions(path) == ["a", "d"]
    assert read_references(path) == [["b", "c"], ["e"]]
    path.write_text('{"prediction": "a"}\n{"prediction": "b", \n', encoding="utf-8")
    with pytest.raises(InputError, match="line 2"):
        read_predictions(path)
    path.write_text('\n{"prediction": "a"}\n', encoding="utf-8")
    with pytest.raises(InputError, match="line 2: no field 'references'"):
        read_references(path)


def test_graded_reader_on_hearthstone():
    data = read_graded_jsonl(shared_data("hearthstone", "hs.graded.jsonl"),
                             require_grades=False, require_text=True)
    references, systems = data.outputs()
    assert data.systems == list(systems) == ["gcnn", "nl2code"]
    assert len(data.items) == 66 and len(references) == 66
    assert all(len(systems[s]) == 66 for s in data.systems)


# ---------------------------------------------------------------- help and usage


@pytest.mark.parametrize("command", ["", "demo", "score", "compare", "agreement", "serve"])
def test_help_of_every_command(command):
    result = cgm(*([command] if command else []), "--help")
    assert result.returncode == 0, result.stderr
    assert "usage: cgm" in result.stdout
    if command in ("score", "compare"):
        assert "--references" in result.stdout and "--json" in result.stdout
        assert "--jobs" in result.stdout and "\\n" in result.stdout  # escape convention
    if command == "compare":
        assert "--correction" in result.stdout and "holm" in result.stdout
    if command == "demo":
        assert "--report" in result.stdout


def test_version_and_console_script_entry_point():
    assert cgm("--version").stdout.strip() == f"cgm-metrics {cgm_metrics.__version__}"
    from importlib.metadata import entry_points

    scripts = {e.name: e.value for e in entry_points(group="console_scripts")}
    assert scripts.get("cgm") == "cgm_metrics.frontends.cli:main"


def test_usage_errors_exit_1_not_2(files):
    for args in (["--bogus"], ["score", "--jobs", "0"], ["compare", "--alpha", "2"],
                 ["compare", "--correction", "sidak"], []):
        result = cgm(*args)
        assert result.returncode == 1, (args, result.stderr)
        assert "usage" in (result.stderr + result.stdout).lower()


# ---------------------------------------------------------------- input errors


def test_missing_file(files, tmp_path):
    result = cgm("score", "--references", tmp_path / "nope.txt", "--predictions", files["a"])
    assert result.returncode == 1
    assert "File not found" in result.stderr and "nope.txt" in result.stderr
    assert "Traceback" not in result.stderr


def test_line_counts_differ_names_files_and_counts(files, tmp_path):
    short = write_lines(tmp_path / "short.txt", PREDS_A[:3])
    result = cgm("score", "--references", files["refs"], "--predictions", short)
    assert result.returncode == 1
    assert "refs.txt: 5 items" in result.stderr and "short.txt: 3 items" in result.stderr


def test_malformed_jsonl_gives_line_number(tmp_path, files):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"prediction": "x = 1"}\n{"prediction": "y"}\n{"prediction": oops}\n')
    result = cgm("score", "--references", files["refs"], "--predictions", bad)
    assert result.returncode == 1
    assert "bad.jsonl, line 3: malformed JSON" in result.stderr


def test_unknown_metric_lists_valid_ones(files):
    result = cgm("score", "--references", files["refs"], "--predictions", files["a"],
                 "--metrics", "bleurt")
    assert result.returncode == 1
    assert "Unknown metric 'bleurt'" in result.stderr
    for name in cgm_metrics.metrics():
        assert name in result.stderr


def test_unknown_language_lists_valid_ones(files):
    result = cgm("score", "--references", files["refs"], "--predictions", files["a"],
                 "--lang", "cobol")
    assert result.returncode == 1
    assert "cobol" in result.stderr
    for lang in ("python", "java", "rust"):
        assert lang in result.stderr


def test_compare_needs_two_systems(files):
    result = cgm("compare", "--references", files["refs"], files["a"])
    assert result.returncode == 1 and "at least two systems" in result.stderr


def test_internal_error_exits_2(monkeypatch, capsys, files):
    from cgm_metrics.frontends.commands import score

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(score, "print_scores", broken)
    code = cli.main(["score", "--references", str(files["refs"]), "--predictions",
                     str(files["a"]), "--metrics", "edit_sim"])
    assert code == 2
    assert "internal error: RuntimeError: boom" in capsys.readouterr().err


# ---------------------------------------------------------------- score


def test_score_matches_library_and_writes_json_csv_per_item(files, tmp_path):
    out, table, items = tmp_path / "o.json", tmp_path / "o.csv", tmp_path / "items.csv"
    result = escaped("score", "--references", files["refs"], "--predictions", files["a"],
                 files["b"], "--metrics", "chrf_code", "--json", out, "--csv", table,
                 "--per-item", items)
    assert result.returncode == 0, result.stderr
    assert "sys_a" in result.stdout and "chrf_code" in result.stdout
    payload = json.loads(out.read_text())
    assert payload["n_items"] == 5
    for name, preds in (("sys_a", PREDS_A), ("sys_b", PREDS_B)):
        expected = cgm_metrics.score("chrf_code", preds, REFS, per_item=True)
        entry = payload["systems"][name]["chrf_code"]
        assert entry["score"] == pytest.approx(expected["score"], abs=1e-9)
        assert entry["signature"] == expected["signature"]
        assert entry["low"] <= entry["score"] <= entry["high"]
        rows = [r for r in csv.DictReader(items.open()) if r["system"] == name]
        assert [float(r["chrf_code"]) for r in rows] == pytest.approx(expected["per_item"])
    rows = list(csv.DictReader(table.open()))
    assert [(r["system"], r["metric"]) for r in rows] == [("sys_a", "chrf_code"),
                                                          ("sys_b", "chrf_code")]
    assert float(rows[0]["score"]) == pytest.approx(payload["systems"]["sys_a"]["chrf_code"]
                                                    ["score"])


def test_several_reference_files_and_jsonl_reference_lists(files, tmp_path):
    second = write_lines(tmp_path / "refs2.txt", PREDS_A)  # a second reference per item
    both = [[r, a] for r, a in zip(REFS, PREDS_A, strict=True)]
    expected = cgm_metrics.score("chrf_code", PREDS_B, both)["score"]
    result = escaped("score", "--references", files["refs"], "--references", second,
                     "--predictions", files["b"], "--metrics", "chrf_code", "--json", "-")
    assert result.returncode == 0, result.stderr
    # --json - : stdout is the JSON alone, the table goes to stderr
    assert json.loads(result.stdout)["systems"]["sys_b"]["chrf_code"]["score"] == pytest.approx(
        expected)
    assert "chrf_code [95% CI]" in result.stderr

    jsonl = tmp_path / "b.jsonl"
    jsonl.write_text("".join(json.dumps({"output": p, "refs": r}) + "\n"
                             for p, r in zip(PREDS_B, both, strict=True)))
    out = tmp_path / "j.json"
    result = cgm("score", "--predictions", jsonl, "--field", "output", "--reference-field",
                 "refs", "--metrics", "chrf_code", "--json", out)
    assert result.returncode == 0, result.stderr
    assert json.loads(out.read_text())["systems"]["b"]["chrf_code"]["score"] == pytest.approx(
        expected)


def test_jobs_gives_identical_statistics(tmp_path):
    data = json.loads(DEMO_JSON.read_text())
    refs = write_lines(tmp_path / "refs.txt", [t["reference"] for t in data["tasks"]] * 2)
    preds = write_lines(tmp_path / "weak.txt", data["systems"]["weak"]["outputs"] * 2)
    outputs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"items{jobs}.jsonl"
        result = escaped("score", "--references", refs, "--predictions", preds, "--metrics",
                         "chrf_code", "--jobs", jobs, "--per-item", out)
        assert result.returncode == 0, result.stderr
        assert "chunk" not in result.stderr and "%|" not in result.stderr  # no bar off a tty
        outputs.append(out.read_text())
    assert outputs[0] == outputs[1]
    assert len(outputs[0].splitlines()) == 90


def test_score_graded_hearthstone_matches_library(tmp_path):
    path = shared_data("hearthstone", "hs.graded.jsonl")
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    out = tmp_path / "hs.json"
    result = cgm("score", "--graded", path, "--metrics", "chrf_code", "--json", out)
    assert result.returncode == 0, result.stderr
    payload = json.loads(out.read_text())
    assert payload["n_items"] == 66
    for system in ("gcnn", "nl2code"):
        mine = sorted((r for r in rows if r["system"] == system), key=lambda r: r["item"])
        expected = cgm_metrics.score("chrf_code", [r["prediction"] for r in mine],
                                     [r["references"] for r in mine])
        assert payload["systems"][system]["chrf_code"]["score"] == pytest.approx(
            expected["score"], abs=1e-9)


# ---------------------------------------------------------------- compare and demo


def test_compare_graded_hearthstone_matches_significance_library(tmp_path):
    from cgm_metrics.significance import compare

    path = shared_data("hearthstone", "hs.graded.jsonl")
    out, table = tmp_path / "c.json", tmp_path / "c.csv"
    result = cgm("compare", "--graded", path, "--metrics", "chrf_code", "--json", out,
                 "--csv", table)
    assert result.returncode == 0, result.stderr
    payload = json.loads(out.read_text())
    references, systems = read_graded_jsonl(path, require_grades=False,
                                            require_text=True).outputs()
    metric = get_metric("chrf_code", lang="python")
    stats = {s: metric.statistics(predictions, references) for s, predictions in systems.items()}
    expected = compare(stats, metric).to_dict()["pairs"][0]
    assert "comparison" not in payload["metrics"]["chrf_code"]  # each pair once
    (pair,) = payload["metrics"]["chrf_code"]["pairs"]
    assert (pair["a"], pair["b"]) == ("gcnn", "nl2code")
    assert pair["p_value"] == pytest.approx(expected["p_value"])
    assert pair["p_adjusted"] == pytest.approx(expected["adjusted_p_value"])
    assert pair["delta"] == pytest.approx(expected["delta"])  # b - a, the library's convention
    assert pair["verdict"] in result.stdout
    (row,) = list(csv.DictReader(table.open()))
    assert row["verdict"] == pair["verdict"]


def _demo_metrics() -> list[str]:
    return ["chrf_code", "codebleu", "ruby"]


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("demo")
    result = cgm("demo", "--report", folder / "report", "--json", folder / "demo.json",
                 "--csv", folder / "demo.csv")
    return folder, result


def test_demo_runs_and_says_which_differences_are_real(demo_run):
    folder, result = demo_run
    assert result.returncode == 0, result.stderr
    payload = json.loads((folder / "demo.json").read_text())
    assert payload["systems"] == ["strong", "strong_v2", "near_miss", "weak"]
    assert sorted(payload["metrics"]) == sorted(_demo_metrics())
    for name, results in payload["metrics"].items():
        pairs = {(p["a"], p["b"]): p for p in results["pairs"]}
        assert len(pairs) == 6
        for pair in pairs.values():
            assert pair["p_adjusted"] >= pair["p_value"]  # Holm never lowers a p-value
            assert pair["verdict"] in result.stdout
        tiny = pairs[("strong", "strong_v2")]
        assert not tiny["significant"], (name, tiny)
        assert tiny["verdict"] == "no detectable difference"
        if name in ("chrf_code", "codebleu"):
            assert pairs[("strong", "weak")]["verdict"] == "strong > weak, significant", name
        assert pairs[("near_miss", "weak")]["verdict"] == "near_miss > weak, significant"
        for system, entry in results["scores"].items():
            assert entry["low"] <= entry["score"] <= entry["high"], (name, system)
    assert "95% CI" in result.stdout and "significance matrix" in result.stdout


def test_demo_scores_equal_the_library(demo_run):
    folder, _ = demo_run
    payload = json.loads((folder / "demo.json").read_text())
    data = json.loads(DEMO_JSON.read_text())
    refs = [t["reference"] for t in data["tasks"]]
    for name in payload["metrics"]:
        for system, entry in payload["metrics"][name]["scores"].items():
            expected = cgm_metrics.score(name, data["systems"][system]["outputs"], refs,
                                         lang=data["lang"])
            assert entry["score"] == pytest.approx(expected["score"], abs=1e-9)


def test_demo_report_files_and_images(demo_run):
    folder, _ = demo_run
    report = folder / "report"
    text = (report / "report.md").read_text()
    assert "## Scores" in text and "no detectable difference" in text
    assert "![scores](scores.png)" in text
    import matplotlib.image

    for png in ("scores.png", "significance.png"):
        raw = (report / png).read_bytes()
        assert raw[:8] == b"\x89PNG\r\n\x1a\n"
        image = matplotlib.image.imread(report / png)
        assert image.shape[0] > 100 and image.shape[1] > 200
        assert np.ptp(image) > 0  # not a blank canvas
    rows = list(csv.DictReader((folder / "demo.csv").open()))
    assert len(rows) == 6 * len(_demo_metrics())


def test_exported_demo_files_compare_like_the_demo(tmp_path):
    result = cgm("demo", "--export", tmp_path / "data")
    assert result.returncode == 0, result.stderr
    files = [tmp_path / "data" / f"{n}.txt" for n in ("strong", "strong_v2", "near_miss",
                                                        "weak")]
    out = tmp_path / "c.json"
    assert "--unescape" in result.stdout  # the export says how to read its files back
    result = cgm("compare", "--references", tmp_path / "data" / "references.txt", *files,
                 "--metrics", "chrf_code", "--json", out, "--unescape")
    assert result.returncode == 0, result.stderr
    demo = cgm("demo", "--metrics", "chrf_code", "--json", tmp_path / "d.json")
    assert demo.returncode == 0, demo.stderr
    ours = json.loads(out.read_text())["metrics"]["chrf_code"]
    theirs = json.loads((tmp_path / "d.json").read_text())["metrics"]["chrf_code"]
    assert ours["scores"] == theirs["scores"]
    assert ours["pairs"] == theirs["pairs"]


def test_exported_demo_files_without_unescape_get_a_warning_naming_the_flag(tmp_path):
    """The plain mistake: the export read without --unescape scores the two characters \\
    and n (sacrebleu's chrF of the raw lines, 60.73 instead of 58.86 for strong), so cgm says
    so and names the flag; --unescape and --no-unescape are each without the warning."""
    import sacrebleu

    assert cgm("demo", "--export", tmp_path / "data").returncode == 0
    refs, strong = tmp_path / "data" / "references.txt", tmp_path / "data" / "strong.txt"
    raw = [refs.read_text().splitlines(), strong.read_text().splitlines()]

    def chrf(*flags: str) -> subprocess.CompletedProcess:
        return cgm("score", "--references", refs, "--predictions", strong, "--metrics",
                   "chrf_code", "--json", "-", *flags)

    plain, decoded, verbatim = chrf(), chrf("--unescape"), chrf("--no-unescape")
    for result in (plain, decoded, verbatim):
        assert result.returncode == 0, result.stderr
    warning = [line for line in plain.stderr.splitlines() if line.startswith("warning:")]
    assert len(warning) == 1, plain.stderr
    for phrase in ("references.txt (45 of 45 lines)", "strong.txt (45 of 45 lines)",
                   "Add --unescape", "--no-unescape"):
        assert phrase in warning[0]
    assert "warning" not in decoded.stderr and "warning" not in verbatim.stderr

    def score(result: subprocess.CompletedProcess) -> float:
        return json.loads(result.stdout)["systems"]["strong"]["chrf_code"]["score"]

    expected_raw = sacrebleu.CHRF().corpus_score(raw[1], [raw[0]]).score
    expected = sacrebleu.CHRF().corpus_score([unescape_code(x) for x in raw[1]],
                                             [[unescape_code(x) for x in raw[0]]]).score
    assert score(plain) == score(verbatim) == pytest.approx(expected_raw, abs=1e-9)
    assert score(decoded) == pytest.approx(expected, abs=1e-9)
    assert (round(expected_raw, 2), round(expected, 2)) == (60.73, 58.86)
    both = cgm("score", "--references", refs, "--predictions", strong, "--unescape",
               "--no-unescape")
    assert both.returncode == 1 and "not allowed with" in both.stderr


def test_the_command_the_export_suggests_runs_every_default_metric(tmp_path):
    """The command `cgm demo --export` prints, run as printed: with --lang python (CodeBLEU
    is not skipped for want of a language) and --unescape (no warning)."""
    import shlex

    export = cgm("demo", "--export", tmp_path / "demo data")
    assert export.returncode == 0, export.stderr
    command = shlex.split(export.stdout.strip().splitlines()[-1])
    assert command[:2] == ["cgm", "compare"] and "--lang" in command and "--unescape" in command
    result = cgm(*command[1:])
    assert result.returncode == 0, result.stderr
    assert "skipped" not in result.stderr and "warning" not in result.stderr
    from cgm_metrics.pipeline.evaluation import DEFAULT_METRICS

    for name in DEFAULT_METRICS:
        assert f"== {name} " in result.stdout


def test_readme_and_help_count_the_demo_systems():
    """The README's quick start, Getting started and `cgm demo --help` say how many systems
    the demo compares: as many as its data has."""
    count = len(json.loads(DEMO_JSON.read_text())["systems"])
    word = {3: "three", 4: "four", 5: "five"}[count]
    quick_start = (ROOT / "README.md").read_text().split("## Quick start", 1)[1].split("```")[1]
    assert f"score {word} example systems" in quick_start
    assert f"score {word} example systems" in (ROOT / "docs" / "getting-started.md").read_text()
    assert f"compare {word} example systems" in cgm("--help").stdout


def test_one_line_code_with_newline_escapes_in_strings_is_not_taken_for_escaped(tmp_path):
    """CodeXGLUE-style lines (\\n inside string literals) read verbatim without a warning; a
    JSONL field is never decoded by --unescape, so it never gets the warning either."""
    from cgm_metrics.base.io import escaped_line_count

    assert escaped_line_count(JAVA_REFS) == escaped_line_count(JAVA_PREDS) == 0
    refs = _plain(tmp_path / "refs.txt", JAVA_REFS)
    preds = _plain(tmp_path / "hyp.txt", JAVA_PREDS)
    result = cgm("score", "--references", refs, "--predictions", preds, "--metrics",
                 "chrf_code")
    assert result.returncode == 0 and "warning" not in result.stderr, result.stderr
    demo = json.loads(DEMO_JSON.read_text())
    escaped = [escape_code(task["reference"]) for task in demo["tasks"]]
    assert escaped_line_count(escaped) == len(escaped)
    jsonl = tmp_path / "escaped.jsonl"
    jsonl.write_text("".join(json.dumps({"prediction": line, "references": line}) + "\n"
                             for line in escaped), encoding="utf-8")
    result = cgm("score", "--predictions", jsonl, "--metrics", "chrf_code")
    assert result.returncode == 0 and "warning" not in result.stderr, result.stderr


# ---------------------------------------------------------------- the demo data itself


def _passes(code: str, tests: str) -> bool:
    namespace: dict = {}
    try:
        exec(compile(code + "\n" + tests, "<demo>", "exec"), namespace)  # noqa: S102
    except Exception:
        return False
    return True


def test_demo_data_is_what_it_claims(capsys):
    data = json.loads(DEMO_JSON.read_text())
    tasks = data["tasks"]
    assert len(tasks) >= 40 and len({t["id"] for t in tasks}) == len(tasks)
    assert all(_passes(t["reference"], t["tests"]) for t in tasks)
    systems = data["systems"]
    assert all(_passes(code, t["tests"])
               for code, t in zip(systems["strong"]["outputs"], tasks, strict=True))
    for name in ("near_miss", "weak"):
        assert not any(_passes(code, t["tests"])
                       for code, t in zip(systems[name]["outputs"], tasks, strict=True)), name
    for name, system in systems.items():
        assert system["passes"] == [_passes(c, t["tests"]) for c, t in
                                    zip(system["outputs"], tasks, strict=True)], name
    # near misses are small edits of the reference; the variant differs from strong a little
    import difflib

    ratios = [difflib.SequenceMatcher(None, c, t["reference"]).ratio()
              for c, t in zip(systems["near_miss"]["outputs"], tasks, strict=True)]
    assert min(ratios) > 0.7
    changed = sum(a != b for a, b in zip(systems["strong"]["outputs"],
                                         systems["strong_v2"]["outputs"], strict=True))
    assert 3 <= changed <= 10
    capsys.readouterr()


def test_demo_json_is_built_from_build_py():
    import importlib.util

    spec = importlib.util.spec_from_file_location("demo_build",
                                                  ROOT / "scripts" / "build_demo.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.build() == json.loads(DEMO_JSON.read_text())


# ---------------------------------------------------------------- terminal and agreement


def test_progress_bar_only_on_a_terminal(tmp_path):
    import pty

    data = json.loads(DEMO_JSON.read_text())
    refs = write_lines(tmp_path / "refs.txt", [t["reference"] for t in data["tasks"]] * 3)
    preds = write_lines(tmp_path / "weak.txt", data["systems"]["weak"]["outputs"] * 3)
    import fcntl
    import struct
    import termios

    master, slave = pty.openpty()
    # a terminal of 24 x 100 (a fresh pty has width 0, where tqdm draws nothing)
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    env = dict(os.environ, HF_EVALUATE_OFFLINE="1")
    process = subprocess.run(
        [sys.executable, "-m", "cgm_metrics", "score", "--references", str(refs),
         "--predictions", str(preds), "--metrics", "chrf_code", "--unescape"],
        stdout=subprocess.PIPE, stderr=slave, env=env, timeout=300,
    )
    os.close(slave)
    chunks = []
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(master)
    assert process.returncode == 0
    assert "statistics" in b"".join(chunks).decode(errors="replace")  # the tqdm bar
    quiet = escaped("score", "--references", refs, "--predictions", preds, "--metrics",
                    "chrf_code")
    assert "statistics" not in quiet.stderr


def test_agreement_runs_through_cgm(tmp_path):
    path = shared_data("hearthstone", "hs.graded.jsonl")
    out = tmp_path / "agreement.json"
    result = cgm("agreement", path, "--json", out)
    assert result.returncode == 0, result.stderr
    assert {"gcnn", "nl2code"} <= set(json.loads(out.read_text())["models"])
    missing = cgm("agreement", tmp_path / "absent.jsonl")
    assert missing.returncode == 1 and "absent.jsonl" in missing.stderr


# ---------------------------------------------------------------- raw lines and metric options

JAVA_REFS = [
    'String s = "a\\nb" + path.replace("\\\\", "/");',
    'if (x > 0) { System.out.println("tab\\there"); return x; }',
    'return p.endsWith("\\\\") ? p : p + "\\\\";',
]
JAVA_PREDS = [
    'String s = "a\\nb" + path.replace("/", "\\\\");',
    'if (x >= 0) { System.out.println("tab\\t here"); return x; }',
    'return p.endsWith("\\\\") ? p + "\\\\" : p;',
]


def _plain(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_codexglue_style_files_score_as_the_codebleu_package(tmp_path):
    """One snippet per line with literal backslashes: read verbatim by default, as CodeXGLUE's
    calc_code_bleu.py reads them, so the number is the package's."""
    refs = _plain(tmp_path / "refs.txt", JAVA_REFS)
    preds = _plain(tmp_path / "hyp.txt", JAVA_PREDS)
    unescaped = [unescape_code(line) for line in JAVA_PREDS]
    expected, expected_decoded = codebleu_package([
        {"args": [JAVA_REFS, JAVA_PREDS], "kwargs": {"lang": "java"}},
        {"args": [[unescape_code(r) for r in JAVA_REFS], unescaped], "kwargs": {"lang": "java"}},
    ])
    result = cgm("score", "--references", refs, "--predictions", preds, "--lang", "java",
                 "--metrics", "codebleu", "--json", "-")
    assert result.returncode == 0, result.stderr
    entry = json.loads(result.stdout)["systems"]["hyp"]["codebleu"]
    assert entry["score"] == pytest.approx(expected["codebleu"], abs=1e-12)
    # --unescape decodes \n and \\ inside the lines: different code, a different number
    decoded = cgm("score", "--references", refs, "--predictions", preds, "--lang", "java",
                  "--metrics", "codebleu", "--json", "-", "--unescape")
    assert decoded.returncode == 0, decoded.stderr
    assert json.loads(decoded.stdout)["systems"]["hyp"]["codebleu"]["score"] == pytest.approx(
        expected_decoded["codebleu"], abs=1e-12)


def test_metric_options_on_the_command_line_give_the_peers_numbers(tmp_path):
    import sacrebleu

    refs = _plain(tmp_path / "refs.txt", JAVA_REFS)
    preds = _plain(tmp_path / "hyp.txt", JAVA_PREDS)
    result = cgm("score", "--references", refs, "--predictions", preds, "--lang", "java",
                 "--metrics", "codebleu", "chrf_code", "--codebleu-weights", "0.1,0.1,0.4,0.4",
                 "--chrf-char-order", "4", "--chrf-word-order", "2", "--chrf-beta", "1",
                 "--json", "-")
    assert result.returncode == 0, result.stderr
    systems = json.loads(result.stdout)["systems"]["hyp"]
    chrf = sacrebleu.CHRF(char_order=4, word_order=2, beta=1).corpus_score(
        JAVA_PREDS, [JAVA_REFS]).score
    assert systems["chrf_code"]["score"] == pytest.approx(chrf, abs=1e-9)
    # the generic form gives the same numbers
    generic = cgm("score", "--references", refs, "--predictions", preds, "--lang", "java",
                  "--metrics", "codebleu", "chrf_code", "--option",
                  "codebleu.weights=0.1,0.1,0.4,0.4", "--option", "char_order=4", "--option",
                  "chrf_code.word_order=2", "--option", "beta=1", "--json", "-")
    assert generic.returncode == 0, generic.stderr
    assert json.loads(generic.stdout)["systems"]["hyp"] == systems
    ruby = cgm("score", "--references", refs, "--predictions", preds, "--lang", "java",
               "--metrics", "ruby", "--ruby-level", "string", "--json", "-")
    assert ruby.returncode == 0, ruby.stderr
    assert "level:string" in json.loads(ruby.stdout)["systems"]["hyp"]["ruby"]["signature"]
    dataflow = cgm("score", "--references", refs, "--predictions", preds, "--lang", "java",
                   "--metrics", "codebleu", "--codebleu-dataflow", "renormalize", "--json", "-")
    assert dataflow.returncode == 0, dataflow.stderr
    assert "dataflow:renormalize" in json.loads(dataflow.stdout)["systems"]["hyp"]["codebleu"][
        "signature"]
    # last, as it skips without the codebleu package: its number for these weights
    package = codebleu_of(JAVA_REFS, JAVA_PREDS, "java", weights=[0.1, 0.1, 0.4, 0.4])
    assert systems["codebleu"]["score"] == pytest.approx(package["codebleu"], abs=1e-12)


@pytest.mark.parametrize(("options", "message"), [
    (["--codebleu-weights", "0.5,0.5"], "give four numbers"),
    (["--codebleu-weights", "a,b,c,d"], "four numbers joined by commas"),
    (["--option", "chrf_code.foo=1"], "chrf_code has no option 'foo'. Its options are: "
                                      "char_order"),
    (["--option", "nonsense"], "write KEY=VALUE"),
    (["--option", "bleurt.x=1"], "unknown metric 'bleurt'"),
    (["--option", "lang=java"], "give the language with --lang"),
    (["--ruby-level", "graph"], "option of ruby, which is not among the metrics computed"),
    (["--option", "beta=-1"], "beta"),
    (["--chrf-char-order", "x"], "expected a whole number"),
])
def test_bad_metric_options_exit_1_with_one_line(files, options, message):
    result = escaped("score", "--references", files["refs"], "--predictions", files["a"],
                     "--metrics", "chrf_code", "codebleu", *options)
    assert result.returncode == 1, result.stderr
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


# ---------------------------------------------------------------- every user error exits 1


def _user_error(result: subprocess.CompletedProcess, *phrases: str) -> None:
    assert result.returncode == 1, (result.returncode, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr and "bug" not in result.stderr
    for phrase in phrases:
        assert phrase in lines[0], lines[0]


@pytest.fixture
def pair_files(tmp_path):
    return (_plain(tmp_path / "refs.txt", ["x = a + b", "y = f(x)", "return y"]),
            _plain(tmp_path / "one.txt", ["x = a - b", "y = f(x)", "return x"]),
            _plain(tmp_path / "two.txt", ["x = b + a", "y = g(x)", "return y"]))


def test_compare_with_one_item_is_a_user_error(tmp_path):
    refs, a = _plain(tmp_path / "r.txt", ["x = 1"]), _plain(tmp_path / "a.txt", ["x = 2"])
    b = _plain(tmp_path / "b.txt", ["x = 1"])
    _user_error(cgm("compare", "--references", refs, a, b, "--metrics", "chrf_code"),
                "at least 2 items", "cgm score")


def test_score_one_item_simply_scores_it(tmp_path):
    import sacrebleu

    refs, a = _plain(tmp_path / "r.txt", ["x = a + b"]), _plain(tmp_path / "a.txt", ["x = a - b"])
    result = cgm("score", "--references", refs, "--predictions", a, "--metrics", "chrf_code",
                 "--json", "-")
    assert result.returncode == 0, result.stderr
    entry = json.loads(result.stdout)["systems"]["a"]["chrf_code"]
    assert entry["score"] == pytest.approx(sacrebleu.sentence_chrf("x = a - b",
                                                                   ["x = a + b"]).score)
    assert entry["low"] is None and "without confidence intervals" in result.stderr


@pytest.mark.parametrize("command", ["score", "compare"])
def test_negative_seed_is_a_usage_error(pair_files, command):
    refs, a, b = pair_files
    systems = ["--predictions", a, b] if command == "score" else [a, b]
    _user_error(cgm(command, "--references", refs, *systems, "--seed", "-1"),
                "--seed", "between 0 and")


def test_deeply_nested_jsonl_line_is_a_user_error(tmp_path):
    deep = tmp_path / "deep.jsonl"
    deep.write_text('{"prediction": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    refs = _plain(tmp_path / "r.txt", ["x"])
    _user_error(cgm("score", "--references", refs, "--predictions", deep),
                "deep.jsonl, line 1", "nested too deeply")


def test_a_5_mb_line_is_scored(tmp_path):
    import sacrebleu

    line = "; ".join(f"x{i} = f(y{i})" for i in range(400_000))[:5_000_000]
    other = line.replace("f(", "g(", 1000)
    (tmp_path / "big.jsonl").write_text(json.dumps({"prediction": other, "references": line})
                                        + "\n" + json.dumps({"prediction": "x = 1",
                                                             "references": "x = 2"}) + "\n")
    result = cgm("score", "--predictions", tmp_path / "big.jsonl", "--metrics", "chrf_code",
                 "--json", "-")
    assert result.returncode == 0, result.stderr
    expected = sacrebleu.corpus_chrf([other, "x = 1"], [[line, "x = 2"]]).score
    assert json.loads(result.stdout)["systems"]["big"]["chrf_code"]["score"] == pytest.approx(
        expected)


UNWRITABLE = ("{file}/out.x", "/proc/cgm-test/out.x")


@pytest.mark.parametrize("target", UNWRITABLE)
@pytest.mark.parametrize("option", ["--json", "--csv", "--per-item"])
def test_output_into_an_unwritable_folder_is_a_user_error(pair_files, target, option):
    refs, a, b = pair_files
    path = target.format(file=refs)  # under a regular file, or in /proc (root cannot write)
    _user_error(cgm("score", "--references", refs, "--predictions", a, "--metrics",
                    "chrf_code", option, path), "Cannot write", "choose another path")


@pytest.mark.parametrize("option", ["--json", "--csv"])
def test_compare_output_into_an_unwritable_folder_is_a_user_error(pair_files, option):
    refs, a, b = pair_files
    _user_error(cgm("compare", "--references", refs, a, b, "--metrics", "chrf_code", option,
                    f"{refs}/out.x"), "is a file, not a folder")


AGREEMENT_FAST = ("--resamples", "20", "--no-synthetic", "--no-correlations", "--metrics",
                  "chrf")


@pytest.mark.parametrize("option", ["--json", "--csv", "--plot"])
def test_agreement_output_into_an_unwritable_folder_is_a_user_error(tmp_path, option):
    path = shared_data("hearthstone", "hs.graded.jsonl")
    _user_error(cgm("agreement", path, *AGREEMENT_FAST, option, "/proc/cgm-test/out.png"),
                "Cannot write /proc/cgm-test/out.png")
    blocker = _plain(tmp_path / "file.txt", ["x"])
    _user_error(cgm("agreement", path, *AGREEMENT_FAST, option, f"{blocker}/out.png"),
                "Not a directory")


def test_agreement_plot_with_an_unknown_extension_and_bad_bins_are_usage_errors(tmp_path):
    path = shared_data("hearthstone", "hs.graded.jsonl")
    _user_error(cgm("agreement", path, "--plot", tmp_path / "p.xyz"), "'.xyz'", ".png")
    _user_error(cgm("agreement", path, "--bins", "-5", "0", "5"), "--bins", "at least 0")
    _user_error(cgm("agreement", path, "--bins", "5", "2"), "increase strictly")
    _user_error(cgm("agreement", path, "--seed", "-1"), "--seed")


def test_agreement_json_to_stdout_is_only_json():
    path = shared_data("hearthstone", "hs.graded.jsonl")
    result = cgm("agreement", path, *AGREEMENT_FAST, "--json", "-")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["n_resamples"] == 20
    assert "metric" in result.stderr  # the table went to stderr


def test_demo_export_onto_a_file_or_an_unwritable_folder(tmp_path):
    blocker = _plain(tmp_path / "file.txt", ["x"])
    _user_error(cgm("demo", "--export", blocker), "is a file; give a folder")
    _user_error(cgm("demo", "--export", "/proc/cgm-test-export"), "cannot write there")
    _user_error(cgm("demo", "--export", f"{blocker}/sub"), "cannot write there")


def test_bare_carriage_returns_are_a_user_error(tmp_path):
    old_mac = tmp_path / "mac.txt"
    old_mac.write_bytes(b"x = a + b\ry = f(x)\r")
    crlf = tmp_path / "dos.txt"
    crlf.write_bytes(b"x = a + b\r\ny = f(x)\r\n")
    _user_error(cgm("score", "--references", crlf, "--predictions", old_mac),
                "mac.txt, line 1", "carriage return", "--unescape")
    result = cgm("score", "--references", crlf, "--predictions", crlf, "--metrics",
                 "chrf_code", "--json", "-")  # \r\n line ends are line ends
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["n_items"] == 2


def test_non_utf8_system_names_in_json_and_csv(pair_files, tmp_path):
    refs, a, _ = pair_files
    raw = os.fsencode(str(tmp_path)) + b"/sys_\xff\xfe.txt"
    with open(raw, "wb") as handle:
        handle.write(a.read_bytes())
    out, table = tmp_path / "o.json", tmp_path / "o.csv"
    result = cgm("score", "--references", refs, "--predictions", os.fsdecode(raw),
                 "--metrics", "chrf_code", "--json", out, "--csv", table)
    assert result.returncode == 0, result.stderr
    assert list(json.loads(out.read_text(encoding="utf-8"))["systems"]) == ["sys_\\xff\\xfe"]
    assert "sys_\\xff\\xfe,chrf_code" in table.read_text(encoding="utf-8")


def test_standard_input_is_dash(pair_files):
    refs, a, _ = pair_files
    result = cgm("score", "--references", refs, "--predictions", "-", "--metrics", "chrf_code",
                 "--json", "-", stdin=a.read_text())
    assert result.returncode == 0, result.stderr
    assert "reading '-' from standard input" in result.stderr
    from_file = cgm("score", "--references", refs, "--predictions", a, "--metrics", "chrf_code",
                    "--json", "-")
    assert (json.loads(result.stdout)["systems"]["stdin"]["chrf_code"]
            == json.loads(from_file.stdout)["systems"]["one"]["chrf_code"])
    _user_error(cgm("score", "--references", "-", "--predictions", "-"), "Only one input")


def test_a_fifo_is_announced_before_it_blocks(pair_files, tmp_path):
    import time

    refs, a, _ = pair_files
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    env = dict(os.environ, HF_EVALUATE_OFFLINE="1")
    process = subprocess.Popen(
        [sys.executable, "-m", "cgm_metrics", "score", "--references", str(refs),
         "--predictions", str(fifo), "--metrics", "chrf_code"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        notice = process.stderr.readline()  # printed before the read blocks
        assert "pipe.txt is a pipe" in notice and "until its writer closes it" in notice
        time.sleep(0.2)
        assert process.poll() is None  # still waiting for a writer
        fifo.write_text(a.read_text())
        stdout, _ = process.communicate(timeout=120)
    finally:
        process.kill()
    assert process.returncode == 0 and "pipe" in stdout


def test_two_outputs_on_stdout_are_refused(pair_files):
    refs, a, _ = pair_files
    _user_error(cgm("score", "--references", refs, "--predictions", a, "--json", "-",
                    "--csv", "-"), "only one output can go to stdout")


# ---------------------------------------------------------------- atomic output files


@pytest.mark.parametrize("option", ["--json", "--csv", "--per-item"])
def test_a_write_that_fails_part_way_keeps_the_previous_file(files, tmp_path, option):
    """Every output goes to a temporary file beside the target and is renamed over it when
    complete: a file size limit hit mid-write (``ulimit -f``) is a user error (exit 1) and
    leaves the previous result whole, with no partial file beside it."""
    import resource

    (tmp_path / "out").mkdir()
    target = tmp_path / "out" / "out.json"
    previous = json.dumps({"previous": "result"}) + "\n"
    target.write_text(previous)
    args = [sys.executable, "-m", "cgm_metrics", "score", "--references", str(files["refs"]),
            "--predictions", str(files["a"]), "--metrics", "chrf_code", option, str(target),
            "--unescape"]

    def limit_file_size():  # 40 bytes: every result here is larger
        resource.setrlimit(resource.RLIMIT_FSIZE, (40, 40))

    result = subprocess.run(args, capture_output=True, text=True, timeout=300,
                            preexec_fn=limit_file_size,
                            env=dict(os.environ, HF_EVALUATE_OFFLINE="1"))
    _user_error(result, f"Cannot write {target}", "previous file")
    assert target.read_text() == previous
    assert sorted(p.name for p in target.parent.iterdir()) == ["out.json"]


def test_output_files_keep_the_mode_of_the_file_they_replace(files, tmp_path):
    target = tmp_path / "scores.json"
    target.write_text("{}")
    target.chmod(0o640)
    result = cgm("score", "--references", files["refs"], "--predictions", files["a"],
                 "--metrics", "chrf_code", "--json", target)
    assert result.returncode == 0, result.stderr
    assert json.loads(target.read_text())["command"] == "score"
    assert target.stat().st_mode & 0o777 == 0o640


def test_every_result_says_the_environment_it_came_from(files, tmp_path):
    import platform

    import cgm_metrics

    result = cgm("score", "--references", files["refs"], "--predictions", files["a"],
                 "--metrics", "chrf_code", "--json", tmp_path / "s.json")
    assert result.returncode == 0, result.stderr
    environment = json.loads((tmp_path / "s.json").read_text())["environment"]
    assert environment["cgm_metrics"] == cgm_metrics.__version__
    assert environment["python"] == platform.python_version()
    assert environment["cpus"] >= 1 and environment["platform"]
    assert (environment["toolchains"], environment["limits"]) == ({}, None)  # no program ran


# ---------------------------------------------------------------- Ctrl-C


@pytest.mark.parametrize("delay", [0.3, 0.6, 1.0, 1.5, 3.0])
def test_ctrl_c_exits_130_at_any_moment(tmp_path, delay):
    """SIGINT while Python starts, while numpy, tree-sitter and the compiled CodeBLEU kernels
    load, or while scoring: exit 130 with one line, never a traceback or exit 2. (A signal
    that comes before ``cgm`` itself runs, in the interpreter's own start-up, ends it by
    SIGINT, which shells also report as 130.)"""
    import signal
    import time

    # enough work to outlast the longest delay on a fast machine (3,000 pairs took under 3 s)
    refs = _plain(tmp_path / "refs.txt", [f"def f{i}(a, b):  return a + b * {i}"
                                          for i in range(60_000)])
    preds = _plain(tmp_path / "sys.txt", [f"def f{i}(x, y):  return x - y * {i}"
                                          for i in range(60_000)])
    process = subprocess.Popen(
        [sys.executable, "-m", "cgm_metrics", "score", "--references", str(refs),
         "--predictions", str(preds), "--metrics", "codebleu", "ruby", "--lang", "python"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=dict(os.environ, HF_EVALUATE_OFFLINE="1"))
    time.sleep(delay)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=300)
    assert process.returncode in (130, -signal.SIGINT), (process.returncode, stderr)
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr


@pytest.mark.parametrize("args,phrase", [
    (("score", "--metrics", "codebleau"), "Did you mean 'codebleu'?"),
    (("score", "--metrics", "chrf_code", "--lang", "pyhton"), "Did you mean 'python'?"),
    (("score", "--metrics", "chrf_code", "--option", "chrf_code.char_ordr=3"),
     "Did you mean 'char_order'?"),
    (("score", "--refrences", "x"), "Did you mean '--references'?"),
    (("scor",), "Did you mean 'score'?"),
    (("compare", "--method", "bootsrap"), "Did you mean 'paired_bootstrap'?"),
])
def test_a_misspelt_name_gets_the_closest_valid_one(tmp_path, args, phrase):
    refs = _plain(tmp_path / "refs.txt", ["x = 1", "y = 2"])
    preds = _plain(tmp_path / "out.txt", ["x = 1", "y = 3"])
    files = ("--references", refs, "--predictions", preds) if "--refrences" not in args else ()
    extra = files if args[0] == "score" and "--refrences" not in args else ()
    _user_error(cgm(*args, *extra), phrase)


def test_the_language_comes_from_the_extensions_or_from_lang(tmp_path):
    """Never Python by default: .py files name it; .txt files name none, and CodeBLEU then asks
    for --lang (a default metric it needs is skipped with that reason)."""
    for suffix in (".py", ".txt"):
        _plain(tmp_path / f"refs{suffix}", ["x = 1", "def f(a):\n    return a"])
        _plain(tmp_path / f"out{suffix}", ["x = 2", "def f(b):\n    return b"])
    named = cgm("score", "--references", tmp_path / "refs.py", "--predictions",
                tmp_path / "out.py", "--metrics", "codebleu")
    assert named.returncode == 0, named.stderr
    assert "language python" in named.stdout and "from the input files' extensions" in named.stderr
    unnamed = cgm("score", "--references", tmp_path / "refs.txt", "--predictions",
                  tmp_path / "out.txt", "--metrics", "codebleu")
    # the command's words (--lang python), not the Python call's (lang='python')
    _user_error(unnamed, "CodeBLEU needs --lang", "e.g. --lang python.")
    assert "lang=" not in unnamed.stderr
    default = cgm("score", "--references", tmp_path / "refs.txt", "--predictions",
                  tmp_path / "out.txt")
    assert default.returncode == 0, default.stderr
    assert "codebleu skipped: CodeBLEU needs --lang" in default.stderr
    assert "lang=" not in default.stderr
    assert "language not given (--lang)" in default.stdout
    mixed = cgm("score", "--references", tmp_path / "refs.py", "--predictions",
                tmp_path / "out.txt", "--metrics", "codebleu", "--lang", "java")
    assert mixed.returncode == 0 and "language java" in mixed.stdout, mixed.stderr
