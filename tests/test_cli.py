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
from conftest import shared_data

import cgm_metrics
from cgm_metrics import cli
from cgm_metrics.io import (
    InputError,
    escape_code,
    read_graded,
    read_predictions,
    read_references,
    unescape_code,
)
from cgm_metrics.registry import get_metric

ROOT = Path(__file__).resolve().parents[1]
DEMO_JSON = ROOT / "src" / "cgm_metrics" / "data" / "demo" / "demo.json"




def cgm(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, HF_EVALUATE_OFFLINE="1", PYTHONHASHSEED="0")
    return subprocess.run(
        [sys.executable, "-m", "cgm_metrics", *map(str, args)],
        capture_output=True, text=True, cwd=cwd, env=env, timeout=300,
    )


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
    assert read_predictions(path) == codes
    assert unescape_code(r"f()\nreturn 'a\\nb'") == "f()\nreturn 'a\\nb'"
    assert unescape_code(r"keep \x as is") == r"keep \x as is"
    assert read_predictions(path, unescape=False)[0] == r"def add(a, b):\n    return a + b"


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
    data = read_graded(shared_data("hearthstone", "hs.graded.jsonl"))
    assert data.systems == ["gcnn", "nl2code"]
    assert len(data.items) == 66 and len(data.references) == 66
    assert all(len(data.predictions[s]) == 66 for s in data.systems)


# ---------------------------------------------------------------- help and usage


@pytest.mark.parametrize("command", ["", "demo", "score", "compare", "agreement"])
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
    assert scripts.get("cgm") == "cgm_metrics.cli:main"


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
    from cgm_metrics.commands import score

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(score, "score_table", broken)
    code = cli.main(["score", "--references", str(files["refs"]), "--predictions",
                     str(files["a"]), "--metrics", "edit_sim"])
    assert code == 2
    assert "internal error: RuntimeError: boom" in capsys.readouterr().err


# ---------------------------------------------------------------- score


def test_score_matches_library_and_writes_json_csv_per_item(files, tmp_path):
    out, table, items = tmp_path / "o.json", tmp_path / "o.csv", tmp_path / "items.csv"
    result = cgm("score", "--references", files["refs"], "--predictions", files["a"],
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
    result = cgm("score", "--references", files["refs"], "--references", second,
                 "--predictions", files["b"], "--metrics", "chrf_code", "--json", "-")
    assert result.returncode == 0, result.stderr
    text = result.stdout[result.stdout.index("{"):]
    assert json.loads(text)["systems"]["sys_b"]["chrf_code"]["score"] == pytest.approx(expected)

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
        result = cgm("score", "--references", refs, "--predictions", preds, "--metrics",
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
    from cgm_metrics.significance import compare_systems

    path = shared_data("hearthstone", "hs.graded.jsonl")
    out, table = tmp_path / "c.json", tmp_path / "c.csv"
    result = cgm("compare", "--graded", path, "--metrics", "chrf_code", "--json", out,
                 "--csv", table)
    assert result.returncode == 0, result.stderr
    payload = json.loads(out.read_text())
    data = read_graded(path)
    metric = get_metric("chrf_code", lang="python")
    stats = {s: metric.statistics(data.predictions[s], data.references) for s in data.systems}
    expected = compare_systems(stats, metric).to_dict()["pairs"][0]
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
            expected = cgm_metrics.score(name, data["systems"][system]["outputs"], refs)
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
    result = cgm("compare", "--references", tmp_path / "data" / "references.txt", *files,
                 "--metrics", "chrf_code", "--json", out)
    assert result.returncode == 0, result.stderr
    demo = cgm("demo", "--metrics", "chrf_code", "--json", tmp_path / "d.json")
    assert demo.returncode == 0, demo.stderr
    ours = json.loads(out.read_text())["metrics"]["chrf_code"]
    theirs = json.loads((tmp_path / "d.json").read_text())["metrics"]["chrf_code"]
    assert ours["scores"] == theirs["scores"]
    assert ours["pairs"] == theirs["pairs"]


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
         "--predictions", str(preds), "--metrics", "chrf_code"],
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
    quiet = cgm("score", "--references", refs, "--predictions", preds, "--metrics", "chrf_code")
    assert "statistics" not in quiet.stderr


def test_agreement_runs_through_cgm(tmp_path):
    path = shared_data("hearthstone", "hs.graded.jsonl")
    out = tmp_path / "agreement.json"
    result = cgm("agreement", path, "--json", out)
    assert result.returncode == 0, result.stderr
    assert {"gcnn", "nl2code"} <= set(json.loads(out.read_text())["models"])
    missing = cgm("agreement", tmp_path / "absent.jsonl")
    assert missing.returncode == 1 and "absent.jsonl" in missing.stderr
