"""The Gradio Space (spaces/app.py) and its library (cgm_metrics.frontends.space).

Library tests check values against peers (sacrebleu, the codebleu package) and the limits and
messages; the served tests launch the app on 127.0.0.1 and drive it with gradio_client and a
real headless Chromium (Debian's /usr/bin/chromium through playwright).
"""

from __future__ import annotations

import importlib.util
import io
import json
import os
import re
import shutil
import socket
from pathlib import Path

import numpy as np
import pytest
from _peers import codebleu_of, codebleu_package, require, skip_missing
from conftest import ROOT, shared_data

from cgm_metrics.base.io import escape_code
from cgm_metrics.frontends import space

ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = os.environ.get("CGM_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
REFERENCE = "def add(a, b):\n    return a + b"
CANDIDATES = ["def add(x, y):\n    return x + y", "def add(a, b):\n    return a - b"]


# ---------------------------------------------------------------- data


def _corpus(n_items: int = 40):
    from conftest import stdlib_pairs

    return stdlib_pairs(n_items, seed=0)


@pytest.fixture(scope="module")
def system_files(tmp_path_factory):
    """references.txt, good.txt (= the references: chrF 100 on every item), mutated.txt (the
    mutated copies) and same.jsonl (= mutated, as JSONL)."""
    folder = tmp_path_factory.mktemp("systems")
    predictions, references = _corpus()
    (folder / "references.txt").write_text("".join(escape_code(r) + "\n" for r in references))
    (folder / "good.txt").write_text("".join(escape_code(r) + "\n" for r in references))
    (folder / "mutated.txt").write_text("".join(escape_code(p) + "\n" for p in predictions))
    (folder / "same.jsonl").write_text(
        "".join(json.dumps({"prediction": p}) + "\n" for p in predictions))
    return folder


# ---------------------------------------------------------------- library: values


def test_side_by_side_matches_the_peers():
    import sacrebleu

    result = space.side_by_side(REFERENCE, CANDIDATES + [""], "python")
    assert [c["label"] for c in result["candidates"]] == ["A", "B"]
    for candidate, code in zip(result["candidates"], CANDIDATES, strict=True):
        scores = candidate["scores"]
        expected_chrf = sacrebleu.sentence_chrf(code, [REFERENCE]).score
        assert scores["chrf_code"]["score"] == pytest.approx(expected_chrf, abs=1e-9)
        assert scores["ruby"]["level"] == "graph"  # both snippets parse into statement graphs
    # EDIT-SIM by hand: "a - b" vs "a + b" is one substitution in 31 characters
    assert result["candidates"][1]["scores"]["edit_sim"]["score"] == pytest.approx(30 / 31)
    html = space.side_by_side_html(result)
    assert "n-gram" in html and "dataflow" in html and "(graph)" in html
    assert f"{sacrebleu.sentence_chrf(CANDIDATES[1], [REFERENCE]).score:.2f}" in html
    # last, as it skips without the codebleu package: its numbers for each candidate
    packages = codebleu_package([{"args": [[REFERENCE], [code], "python"]} for code in CANDIDATES])
    for candidate, package in zip(result["candidates"], packages, strict=True):
        scores = candidate["scores"]
        assert scores["codebleu"]["score"] == pytest.approx(package["codebleu"], abs=1e-9)
        for key in ("ngram_match_score", "weighted_ngram_match_score", "syntax_match_score",
                    "dataflow_match_score"):
            assert scores["codebleu"]["components"][key] == pytest.approx(package[key], abs=1e-9)


def test_ruby_level_falls_back_to_string_for_unparsable_code():
    result = space.side_by_side("x = 1", ["x = (", "x = 1"], "python", metrics=["ruby"])
    levels = [c["scores"]["ruby"]["level"] for c in result["candidates"]]
    assert levels == ["string", "graph"]


def test_diff_is_escaped_and_marks_the_change():
    html = space.diff_html("if a < b:\n    x = 1", "if a < b:\n    x = '<script>'", "A")
    assert "<script>" not in html
    assert "&lt;script&gt;" in html and "&lt; b" in html
    assert "<del>1</del>" in html and "<ins>&#x27;&lt;script&gt;&#x27;</ins>" in html


def test_meteor_without_wordnet_is_skipped_with_a_note(tmp_path, monkeypatch):
    import nltk.data

    monkeypatch.delenv("NLTK_DATA", raising=False)
    monkeypatch.setattr(nltk.data, "path", [str(tmp_path)])
    from cgm_metrics.pipeline.evaluation import MetricCache

    monkeypatch.setattr(space.views, "METRICS", MetricCache())
    result = space.side_by_side(REFERENCE, CANDIDATES, "python", metrics=["meteor", "rouge_l"])
    assert result["metrics"] == ["rouge_l"]
    assert "WordNet" in result["skipped"]["meteor"]
    assert "meteor skipped" in space.side_by_side_html(result)


def test_explanations_state_the_trust_findings():
    text = space.explanation_markdown()
    assert "2 points" in text and "5-point" in text and "Out of the BLEU" in text
    assert all(f"**{name}**" in text for name in space.metric_choices())


# ---------------------------------------------------------------- library: limits and messages


@pytest.mark.parametrize(
    ("reference", "candidates", "message"),
    [
        ("", CANDIDATES, "Enter a reference snippet"),
        (REFERENCE, [CANDIDATES[0], "  "], "at least two candidate snippets"),
        (REFERENCE, CANDIDATES * 3, "At most 4 candidates"),
        ("x" * 5001, CANDIDATES, "The reference has 5,001 characters; the limit here is 5,000"),
        (REFERENCE, [CANDIDATES[0], "y" * 6000], "Candidate B has 6,000 characters"),
        (REFERENCE, [CANDIDATES[0], 3], "Candidate B must be text"),
    ],
)
def test_side_by_side_limits(reference, candidates, message):
    with pytest.raises(space.SpaceInputError, match=message):
        space.side_by_side(reference, candidates, "python")


def test_unknown_language_lists_the_supported_ones():
    with pytest.raises(space.SpaceInputError, match="Unknown language 'cobol'.*python"):
        space.side_by_side(REFERENCE, CANDIDATES, "cobol")


def test_compare_uploads_verdicts(system_files):
    result = space.compare_uploads(
        system_files / "references.txt",
        [system_files / "good.txt", system_files / "mutated.txt", system_files / "same.jsonl"],
        "python", ["chrf_code"], unescape=True,
    )
    chrf = result["metrics"]["chrf_code"]
    assert chrf["scores"]["good"]["score"] == pytest.approx(100.0)
    verdicts = {(p["a"], p["b"]): p["verdict"] for p in chrf["pairs"]}
    assert verdicts[("good", "mutated")] == "good > mutated, significant"
    assert verdicts[("good", "same")] == "good > same, significant"
    assert verdicts[("mutated", "same")] == "no detectable difference"  # identical outputs
    for entry in chrf["scores"].values():
        assert entry["low"] <= entry["score"] <= entry["high"]
    html = space.systems_html(result)
    assert "good &gt; mutated, significant" in html and "no detectable difference" in html
    differences = result["differences"]["chrf_code"]["good vs mutated"]
    assert len(differences) == space.RESAMPLES and differences.max() <= 0  # B - A: mutated - good
    svg = space.differences_svg(result)
    counts = dict(re.findall(r"data-pair='([^']*)' data-counts='([^']*)'", svg))
    assert set(counts) == set(result["differences"]["chrf_code"])
    # the bars are numpy's histogram of each pair's draws, on 40 bins shared by the pairs
    # (from the smallest to the largest draw and 0, widened by 4% on each side)
    draws = result["differences"]["chrf_code"]
    low = min(min(v.min() for v in draws.values()), 0.0)
    high = max(max(v.max() for v in draws.values()), 0.0)
    pad = (high - low) * 0.04
    for label, values in draws.items():
        bars = [int(c) for c in counts[label].split()]
        expected, _ = np.histogram(values, bins=40, range=(low - pad, high + pad))
        assert bars == list(expected), label
        assert sum(bars) == space.RESAMPLES
    # identical outputs (mutated vs same) have no spread: a dashed line, not a histogram
    assert "class='spike'" in svg and "class='zero'" in svg


def test_escaped_uploads_read_verbatim_get_a_warning(tmp_path):
    """The demo's export uploaded with "Escaped lines" unticked: the same numbers as `cgm`
    without --unescape (the raw lines: chrF 60.73 for strong, 58.86 decoded), and a warning
    that names the files (not the server's folder) and the checkbox; ticked, none."""
    from cgm_metrics.frontends.commands.demo import export, load_demo

    export(load_demo(), str(tmp_path))
    refs = tmp_path / "references.txt"
    systems = [tmp_path / "strong.txt", tmp_path / "weak.txt"]
    plain = space.compare_uploads(refs, systems, "python", ["chrf_code"])
    ticked = space.compare_uploads(refs, systems, "python", ["chrf_code"], unescape=True)
    assert ticked["warnings"] == [] and len(plain["warnings"]) == 1
    warning = plain["warnings"][0]
    for phrase in ("references.txt (45 of 45 lines)", "strong.txt (45 of 45 lines)",
                   "weak.txt (45 of 45 lines)", "Escaped lines"):
        assert phrase in warning
    assert str(tmp_path) not in warning
    scores = [round(r["metrics"]["chrf_code"]["scores"]["strong"]["score"], 2)
              for r in (plain, ticked)]
    assert scores == [60.73, 58.86]
    assert "Warning:" in space.systems_html(plain) and "Warning:" not in space.systems_html(ticked)
    page = space.compare_page(refs, systems, "python", ["chrf_code"])
    assert page["warnings"] == plain["warnings"]


def test_input_errors_log_one_line_real_errors_their_traceback(space_app, caplog, monkeypatch):
    """A user's mistake is one line in the server log and a message Gradio does not print a
    traceback of; a bug keeps its traceback in the log, and the browser gets a short message."""
    import logging

    import gradio as gr

    with caplog.at_level(logging.INFO, logger="cgm_metrics.frontends.space"):
        with pytest.raises(gr.Error, match="Choose at least one metric") as raised:
            space_app.compare_systems(None, None, "python", [])
    assert raised.value.print_exception is False
    records = [r for r in caplog.records if r.name == "cgm_metrics.frontends.space"]
    assert len(records) == 1 and records[0].exc_info is None
    assert "input error: Choose at least one metric" in records[0].getMessage()
    caplog.clear()

    def broken(*args):
        raise RuntimeError("a bug")

    monkeypatch.setattr(space_app.SCORING, "run", broken)
    with caplog.at_level(logging.INFO, logger="cgm_metrics.frontends.space"):
        with pytest.raises(gr.Error, match="Something went wrong") as raised:
            space_app.compare_systems(None, None, "python", ["chrf_code"])
    assert raised.value.print_exception is False  # the log has it, once
    records = [r for r in caplog.records if r.name == "cgm_metrics.frontends.space"]
    assert len(records) == 1 and records[0].exc_info is not None


def test_upload_messages_name_the_file_not_the_server_path(system_files, tmp_path):
    short = tmp_path / "short.txt"
    short.write_text("x = 1\n")
    with pytest.raises(space.SpaceInputError) as error:
        space.compare_uploads(system_files / "references.txt",
                              [system_files / "good.txt", short], "python", ["chrf_code"],
                              unescape=True)
    message = str(error.value)
    assert "different numbers of items" in message and "short.txt: 1 items" in message
    assert str(tmp_path) not in message and str(system_files) not in message
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"prediction": "x"}\n{"prediction": \n')
    with pytest.raises(space.SpaceInputError, match=r"broken.jsonl, line 2: malformed JSON"):
        space.read_uploads(system_files / "references.txt", [system_files / "good.txt", broken])


def test_upload_limits(system_files, tmp_path, monkeypatch):
    refs = system_files / "references.txt"
    good = system_files / "good.txt"
    with pytest.raises(space.SpaceInputError, match="Upload a references file"):
        space.read_uploads(None, [good, good])
    with pytest.raises(space.SpaceInputError, match="at least two system files"):
        space.read_uploads(refs, [good])
    with pytest.raises(space.SpaceInputError, match="At most 5 systems"):
        space.read_uploads(refs, [good] * 6)
    big = tmp_path / "big.txt"
    big.write_text("x = 1\n" * 400_000)
    with pytest.raises(space.SpaceInputError, match=r"big.txt is 2.4 MB; the limit here is 2 MB"):
        space.read_uploads(refs, [good, big])
    with pytest.raises(space.SpaceInputError, match="good.txt is uploaded twice"):
        space.read_uploads(refs, [good, good])
    mutated = system_files / "mutated.txt"
    many = tmp_path / "many.txt"
    many.write_text("x = 1\n" * 501)
    with pytest.raises(space.SpaceInputError, match="many.txt has 501 items; the limit here is 500"):
        space.read_uploads(many, [good, mutated])
    long_item = tmp_path / "long.txt"
    long_item.write_text("x" * 5001 + "\n" + "y\n")
    with pytest.raises(space.SpaceInputError, match="long.txt, item 1 has 5,001 characters"):
        space.read_uploads(long_item, [good, mutated])
    monkeypatch.setattr(space.limits, "LIMITS", space.Limits(max_graded_rows=10))
    with pytest.raises(space.SpaceInputError, match="hs.graded.jsonl has 132 rows; the limit"):
        space.agreement_upload(shared_data("hearthstone", "hs.graded.jsonl"))


def test_agreement_upload_on_hearthstone():
    result = space.agreement_upload(shared_data("hearthstone", "hs.graded.jsonl"), "default",
                                    "HearthStone (0, 1, 2, 4, 100)")
    assert result.systems == ["gcnn", "nl2code"]  # the two graded HS systems of the study
    assert result.bins == (0, 1, 2, 4, 100)
    n_pairs = len(result.models) * (len(result.models) - 1) // 2
    html = space.agreement_html(result)
    for metric in ("bleu", "chrf", "codebleu", "ruby"):
        rows = result.table[metric]
        assert rows[-1]["pairs"] == n_pairs
        assert f"data-metric='{metric}'" in html
    from PIL import Image

    image = Image.open(io.BytesIO(space.agreement_png(result)))
    assert image.format == "PNG" and image.size[0] > 600
    # the header counts what was compared: the two real systems and their synthetic models
    n_synthetic = len(result.models) - 2
    assert f"{len(result.models)} models (2 real systems; {n_synthetic} synthetic)," in html
    with pytest.raises(space.SpaceInputError, match="expected a .jsonl"):
        space.agreement_upload(ROOT / "spaces" / "README.md")


def _hearthstone_rows() -> list[dict]:
    return [json.loads(line) for line in
            shared_data("hearthstone", "hs.graded.jsonl").read_text().splitlines()]


def test_agreement_header_counts_systems_left_out(tmp_path):
    """A third system with the same outputs as gcnn is left out of the models, and the
    header says so (it used to count every uploaded system as a real model)."""
    rows = _hearthstone_rows()
    copies = [{**row, "system": "gcnn_copy"} for row in rows if row["system"] == "gcnn"]
    path = tmp_path / "hs_with_copy.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows + copies))
    result = space.agreement_upload(path, "default", "HearthStone (0, 1, 2, 4, 100)")
    assert result.systems == ["gcnn", "nl2code", "gcnn_copy"]
    assert "gcnn_copy" not in result.models
    real = [m for m in result.models if m in result.systems]
    assert real == ["gcnn", "nl2code"]
    n_synthetic = len(result.models) - 2
    assert result.models_summary() == (
        f"{len(result.models)} models (2 of the 3 real systems; the other 1 has outputs "
        f"identical to a compared model; {n_synthetic} synthetic)")
    assert result.models_summary() in space.agreement_html(result)


def test_agreement_upload_over_the_system_limit_is_refused(tmp_path):
    rows = _hearthstone_rows()
    many = [{**row, "system": f"{row['system']}_{k}"} for k in range(6) for row in rows]
    path = tmp_path / "twelve systems.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in many))
    assert len(many) <= space.LIMITS.max_graded_rows
    with pytest.raises(space.SpaceInputError, match=r"twelve systems.jsonl has 12 systems; the "
                       r"limit here is 10 .*`cgm agreement 'twelve systems.jsonl'`"):
        space.agreement_upload(path)


def test_worker_timings_are_logged_when_asked(monkeypatch, capfd):
    """CGM_SPACE_TIMINGS=1: each request writes one ``space-timing`` line (the server's
    timestamps and the worker's own) that benchmarks/space_load.py reads into its profile."""
    monkeypatch.setenv("CGM_SPACE_TIMINGS", "1")
    pool = space.workers.Pool("test", size=1, timeout=300.0, warm=False)
    try:
        pool.run("side_by_side", "python", REFERENCE, CANDIDATES)
    finally:
        pool.close()
    lines = [line for line in capfd.readouterr().err.splitlines()
             if line.startswith("space-timing ")]
    assert len(lines) == 1
    timing = json.loads(lines[0].split(" ", 1)[1])
    assert timing["pool"] == "test" and timing["task"] == "side_by_side"
    assert (timing["arrived"] <= timing["worker"] <= timing["started"] <= timing["computed"]
            <= timing["answered"])
    assert 0 < timing["cpu"] < 60


def test_server_never_imports_pyplot_to_answer():
    """Gradio asks matplotlib for its backend around every call: the app chooses one at start,
    so the first request does not import pyplot in the server's event loop (0.3 s that
    stalled every upload and call of a burst)."""
    import subprocess
    import sys

    code = ("import importlib.util, sys\n"
            f"spec = importlib.util.spec_from_file_location('app', {str(ROOT / 'spaces' / 'app.py')!r})\n"
            "app = importlib.util.module_from_spec(spec); spec.loader.exec_module(app)\n"
            "from gradio.utils import MatplotlibBackendMananger\n"
            "with MatplotlibBackendMananger():\n    pass\n"
            "print('pyplot' if 'matplotlib.pyplot' in sys.modules else 'no pyplot')\n")
    env = {key: value for key, value in os.environ.items() if key != "MPLBACKEND"}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env=env, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip().splitlines()[-1] == "no pyplot"


def test_worker_over_its_time_or_memory_is_replaced(tmp_path):
    """A request past the worker's time limit or memory allowance gets a message, and the
    next request is answered (by a new worker, or the same one after a MemoryError)."""
    refs, systems = _uploads(tmp_path, 200, 2_000)
    pool = space.workers.Pool("test", size=1, timeout=0.05, warm=False)
    try:
        with pytest.raises(space.SpaceInputError, match="took longer than the 0 s the Space "
                           "allows a request"):
            pool.run("compare", str(refs), [str(p) for p in systems[:2]], "python",
                     ["chrf_code"], False)
        pool.timeout = 300.0
        page = pool.run("side_by_side", "python", REFERENCE, CANDIDATES)
        assert page["numbers"]["metrics"][0] == "chrf_code"
    finally:
        pool.close()
    pool = space.workers.Pool("test", size=1, timeout=300.0, memory_mb=1, warm=False)
    try:
        for _ in range(2):
            with pytest.raises(space.SpaceInputError, match="needs more memory than the Space "
                               "allows a request"):
                pool.run("agreement", str(shared_data("hearthstone", "hs.graded.jsonl")),
                         "default", None)
    finally:
        pool.close()


def _paused(pool):
    """The pool's worker processes stopped (SIGSTOP) where they are, in their warm-up: a
    Space that has just started, however fast this machine is."""
    import signal

    pids = [worker.process.pid for worker in pool._workers]
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    return pids


def _resume(pids):
    import signal

    for pid in pids:
        os.kill(pid, signal.SIGCONT)


def test_first_request_is_answered_while_the_workers_warm_up():
    """``early=True``: until a worker is warm, requests are computed in the calling process
    (with the peers' numbers); from the first warm worker on, by the workers."""
    import sacrebleu

    pool = space.workers.Pool("test", size=1, timeout=300.0, early=True).start()
    pids = _paused(pool)
    try:
        assert not pool.warmed()
        page = pool.run("side_by_side", "python", REFERENCE, CANDIDATES)
        expected = sacrebleu.sentence_chrf(CANDIDATES[1], [REFERENCE]).score
        assert page["numbers"]["candidates"][1]["scores"]["chrf_code"]["score"] == (
            pytest.approx(expected))
        assert pool.answered_early == 1 and not pool.warmed()
        _resume(pids)
        pids = []
        pool._workers[0].wait_ready()
        assert pool.warmed()
        pool.run("side_by_side", "python", REFERENCE, CANDIDATES)
        assert pool.answered_early == 1  # the worker answered
    finally:
        _resume(pids)
        pool.close()


# ---------------------------------------------------------------- served: gradio_client


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _load_app(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def space_app():
    """spaces/app.py loaded in this process, its worker processes stopped after."""
    app = _load_app(ROOT / "spaces" / "app.py", "cgm_space_app")
    assert os.environ["GRADIO_ANALYTICS_ENABLED"] == "False"
    try:
        yield app
    finally:
        app.SCORING.close()
        app.AGREEMENT.close()


@pytest.fixture(scope="module")
def served_space(space_app):
    """spaces/app.py served on 127.0.0.1 in this process (a server thread, with its worker
    processes); closed after."""
    space_app.SCORING.start()
    space_app.AGREEMENT.start()
    # gradio gives up on its own server when one HEAD request takes over 3 s, which happens on
    # a loaded machine while the worker processes import; a harness hiccup, so try again
    for attempt in range(3):
        port = _free_port()
        try:
            space_app.demo.launch(server_name="127.0.0.1", server_port=port,
                                  prevent_thread_lock=True, quiet=True,
                                  **space_app.LAUNCH_OPTIONS)
            break
        except ValueError as error:
            space_app.demo.close()
            if "localhost is not accessible" not in str(error) or attempt == 2:
                raise
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        space_app.demo.close()


def test_queue_serves_users_at_once(space_app):
    """The queue takes 20 users at once and more (it refused 3 of 20 at max_size=16), and
    side by side and Systems share the scoring workers, more than one request at a time."""
    demo = space_app.demo
    assert space_app.QUEUE_SIZE >= 100 and demo._queue.max_size == space_app.QUEUE_SIZE
    events = {fn.api_name: fn for fn in demo.fns.values()}
    scoring = [events["side_by_side"], events["compare_systems"]]
    assert {fn.concurrency_id for fn in scoring} == {"scoring"}
    assert all(fn.concurrency_limit == max(1, 2 * space_app.SCORING.size) for fn in scoring)
    assert (events["agreement"].concurrency_id, events["agreement"].concurrency_limit) == (
        "agreement", 1)
    assert space_app.SCORING.size >= 1 or os.environ.get("CGM_SPACE_WORKERS") == "0"


def test_concurrent_requests_through_the_server_complete(served_space, system_files):
    """Eight requests sent at once (side by side in three languages and Systems uploads) all
    complete with the numbers of the peers, through the queue and the worker processes."""
    import sacrebleu
    from gradio_client import Client, handle_file

    # httpx waits 5 s for the queue to answer a join by default; a loaded test machine can
    # take longer, which is not the Space's answer time (what these tests check)
    client = Client(served_space, verbose=False, download_files=False,
                    httpx_kwargs={"timeout": 60})
    snippets = [("python", REFERENCE, CANDIDATES),
                ("java", "int f(int a) { return a + 1; }",
                 ["int f(int a) { return a + 2; }", "int f(int b) { return b + 1; }"]),
                ("javascript", "const f = (a) => a + 1;",
                 ["const f = (a) => a - 1;", "let f = (b) => b + 1;"])]
    jobs = []
    for lang, reference, candidates in snippets * 2:
        jobs.append(("side", reference, candidates, client.submit(
            lang, reference, *candidates, "", "", api_name="/side_by_side")))
    for _ in range(2):
        jobs.append(("compare", None, None, client.submit(
            handle_file(str(system_files / "references.txt")),
            [handle_file(str(system_files / "good.txt")),
             handle_file(str(system_files / "mutated.txt"))],
            "python", ["chrf_code"], True, api_name="/compare_systems")))
    for kind, reference, candidates, job in jobs:
        answer = job.result(timeout=600)
        if kind == "side":
            shown = [c["scores"]["chrf_code"]["score"] for c in answer[2]["candidates"]]
            expected = [sacrebleu.sentence_chrf(c, [reference]).score for c in candidates]
            assert shown == pytest.approx(expected)
        else:
            assert answer[2]["chrf_code"]["pairs"][0]["verdict"] == "good > mutated, significant"
            assert "<svg" in answer[1]


def test_api_with_gradio_client(served_space, system_files):
    import sacrebleu
    from gradio_client import Client, handle_file

    # httpx waits 5 s for the queue to answer a join by default; a loaded test machine can
    # take longer, which is not the Space's answer time (what these tests check)
    client = Client(served_space, verbose=False, download_files=False,
                    httpx_kwargs={"timeout": 60})
    scores_html, diffs_html, numbers = client.predict(
        "python", REFERENCE, *CANDIDATES, "", "", api_name="/side_by_side")
    expected = sacrebleu.sentence_chrf(CANDIDATES[1], [REFERENCE]).score
    assert numbers["candidates"][1]["scores"]["chrf_code"]["score"] == pytest.approx(expected)
    assert "<del>+</del><ins>-</ins>" in diffs_html and "side-by-side-scores" in scores_html
    with pytest.raises(Exception, match="at least two candidate snippets"):
        client.predict("python", REFERENCE, CANDIDATES[0], "", "", "", api_name="/side_by_side")
    html, _image, summary = client.predict(
        handle_file(str(system_files / "references.txt")),
        [handle_file(str(system_files / "good.txt")), handle_file(str(system_files / "mutated.txt"))],
        "python", ["chrf_code"], True, api_name="/compare_systems")
    assert summary["chrf_code"]["pairs"][0]["verdict"] == "good > mutated, significant"
    assert "good &gt; mutated, significant" in html and "Escaped lines" not in html
    # the same escaped files with the checkbox unticked: scored verbatim, with the warning
    html, _image, summary = client.predict(
        handle_file(str(system_files / "references.txt")),
        [handle_file(str(system_files / "good.txt")), handle_file(str(system_files / "mutated.txt"))],
        "python", ["chrf_code"], False, api_name="/compare_systems")
    assert "Warning:" in html and "Escaped lines" in html and "good.txt (" in html


WIDGET_CASES = {
    # folder: (rows, check of the result against a peer or a definition)
    "edit_sim": ([["abcd", "abed"]], lambda r: r["edit_sim"] == pytest.approx(0.75)),
    "chrf_code": ([["x = a - b", "x = a + b"]],
                  lambda r: r["score"] == pytest.approx(_sacrebleu_chrf("x = a - b", "x = a + b"))),
    "codebleu": ([[CANDIDATES[0], REFERENCE]],
                 lambda r: r["codebleu"] == pytest.approx(_package_codebleu(CANDIDATES[0]))),
    "ruby": ([[REFERENCE, REFERENCE]], lambda r: r["ruby"] == pytest.approx(1.0)),
    "paired_significance": (
        [["x = 1", "x = 2", "x = 1"], ["y = 2", "y = 2", "y = 2"], ["z = 3", "z = 4", "z = 3"]],
        lambda r: 0.0 < r["p_value"] <= 1.0),
}


def _sacrebleu_chrf(prediction: str, reference: str) -> float:
    import sacrebleu

    return sacrebleu.corpus_chrf([prediction], [[reference]]).score


def _package_codebleu(prediction: str) -> float:
    return codebleu_of([REFERENCE], [prediction], "python")["codebleu"]


@pytest.mark.parametrize("name", sorted(WIDGET_CASES))
def test_metric_widget_serves_with_this_gradio(name):
    """metrics/<name>/app.py launched on 127.0.0.1 and called over HTTP with gradio_client."""
    from gradio_client import Client

    folder = ROOT / "metrics" / name
    app = _load_app(folder / "app.py", f"cgm_widget_{name}")
    features = app.module.features
    headers = list(features[0] if isinstance(features, list) else features)
    rows, check = WIDGET_CASES[name]
    port = _free_port()
    app.demo.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True,
                    quiet=True)
    try:
        client = Client(f"http://127.0.0.1:{port}/", verbose=False)
        endpoint = client.view_api(return_format="dict")["named_endpoints"]["/compute"]
        extra = [p.get("parameter_default") for p in endpoint["parameters"][1:]]
        result = client.predict({"headers": headers, "data": rows}, *extra, api_name="/compute")
    finally:
        app.demo.close()
    assert check(result), result


# ---------------------------------------------------------------- served: a real browser


def _wait_text(page, selector: str, text: str, timeout: float) -> str:
    page.wait_for_function(
        "([s, t]) => { const e = document.querySelector(s); return e && e.innerText.includes(t); }",
        arg=[selector, text], timeout=timeout * 1000)
    return page.locator(selector).inner_text()


def test_space_in_headless_chromium(served_space, system_files):
    if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
        skip_missing(f"chromium (not found at {CHROMIUM})",
                     "scripts/test.sh installs Debian's chromium package")
    playwright_api = require("playwright.sync_api")
    import sacrebleu

    ARTIFACTS.mkdir(exist_ok=True)
    external: list[str] = []

    def route(request_route):
        url = request_route.request.url
        if url.startswith(served_space) or url.startswith(("data:", "blob:")):
            request_route.continue_()
        else:
            external.append(url)
            request_route.abort()

    with playwright_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM if Path(CHROMIUM).exists()
                                     else shutil.which("chromium"), args=CHROMIUM_ARGS,
                                     timeout=60_000)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.set_default_timeout(60_000)
            page.route("**/*", route)
            page.goto(served_space, wait_until="domcontentloaded")

            # side by side
            page.locator("#reference textarea").fill(REFERENCE)
            page.locator("#candidate-A textarea").fill(CANDIDATES[0])
            page.locator("#candidate-B textarea").fill(CANDIDATES[1])
            page.locator("#score-button").click()
            text = _wait_text(page, "#side-scores", "dataflow", 180)
            chrf_b = sacrebleu.sentence_chrf(CANDIDATES[1], [REFERENCE]).score
            chrf_row = page.locator("#side-by-side-scores tr[data-metric='chrf_code']")
            cells = chrf_row.locator("td").all_inner_texts()
            assert cells[1].strip() == f"{chrf_b:.2f}"
            assert "codebleu" in text and "ruby" in text and "(graph)" in text
            assert page.locator("#side-diffs del").count() >= 1
            page.screenshot(path=str(ARTIFACTS / "space-side-by-side.png"), full_page=True)

            # systems
            page.get_by_role("tab", name="Systems").click()
            page.locator("#references-file input[type=file]").set_input_files(
                str(system_files / "references.txt"))
            page.locator("#systems-files input[type=file]").set_input_files(
                [str(system_files / "good.txt"), str(system_files / "mutated.txt"),
                 str(system_files / "same.jsonl")])
            _wait_text(page, "#systems-files", "same", 60)  # names show as stem + suffix
            page.locator("#unescape input[type=checkbox]").check()
            page.locator("#compare-button").click()
            text = _wait_text(page, "#systems-result", "Signature", 240)
            assert "good > mutated, significant" in text
            assert "mutated vs same" in text and "no detectable difference" in text
            page.locator("#systems-plot svg.cgm-differences").wait_for()
            page.screenshot(path=str(ARTIFACTS / "space-systems.png"), full_page=True)

            # agreement
            page.get_by_role("tab", name="Agreement").click()
            page.locator("#graded-file input[type=file]").set_input_files(
                str(shared_data("hearthstone", "hs.graded.jsonl")))
            _wait_text(page, "#graded-file", "hs.graded", 60)
            page.locator("#agreement-button").click()
            text = _wait_text(page, "#agreement-result", "Correlation", 240)
            assert "chrf" in text and "mismatch rate" in text
            page.locator("#agreement-plot img").wait_for()
            page.screenshot(path=str(ARTIFACTS / "space-agreement.png"), full_page=True)
        except Exception:
            page.screenshot(path=str(ARTIFACTS / "space-failure.png"), full_page=True)
            raise
        finally:
            browser.close()
    assert external == [], f"the page tried to reach the network: {external}"


def test_first_click_in_headless_chromium_before_the_workers_are_warm():
    """A Space that has just started: its page served, its workers still in their warm-up
    (held there). A first click on Score is answered (by the server process), with sacrebleu's
    chrF; an agreement upload says that its worker is still loading."""
    if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
        skip_missing(f"chromium (not found at {CHROMIUM})",
                     "scripts/test.sh installs Debian's chromium package")
    playwright_api = require("playwright.sync_api")
    import sacrebleu

    app = _load_app(ROOT / "spaces" / "app.py", "cgm_space_app_starting")
    port = _free_port()
    app.demo.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True,
                    quiet=True, **app.LAUNCH_OPTIONS)
    url = f"http://127.0.0.1:{port}/"
    pids = _paused(app.SCORING.start()) + _paused(app.AGREEMENT.start())
    ARTIFACTS.mkdir(exist_ok=True)
    try:
        assert app.SCORING.size >= 1 and not app.SCORING.warmed()
        with playwright_api.sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM if Path(CHROMIUM).exists()
                                         else shutil.which("chromium"), args=CHROMIUM_ARGS,
                                         timeout=60_000)
            try:
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                page.set_default_timeout(60_000)
                page.goto(url, wait_until="domcontentloaded")
                page.locator("#reference textarea").fill(REFERENCE)
                page.locator("#candidate-A textarea").fill(CANDIDATES[0])
                page.locator("#candidate-B textarea").fill(CANDIDATES[1])
                page.locator("#score-button").click()
                _wait_text(page, "#side-scores", "dataflow", 180)
                chrf_b = sacrebleu.sentence_chrf(CANDIDATES[1], [REFERENCE]).score
                cells = page.locator("#side-by-side-scores tr[data-metric='chrf_code'] td")
                assert cells.all_inner_texts()[1].strip() == f"{chrf_b:.2f}"
                assert app.SCORING.answered_early >= 1 and not app.SCORING.warmed()
                # agreement waits for its own worker, and says so
                page.get_by_role("tab", name="Agreement").click()
                page.locator("#graded-file input[type=file]").set_input_files(
                    str(shared_data("hearthstone", "hs.graded.jsonl")))
                _wait_text(page, "#graded-file", "hs.graded", 60)
                page.locator("#agreement-button").click()
                page.get_by_text("agreement worker is still loading").first.wait_for(
                    timeout=60_000)
                _resume(pids)
                pids = []
                _wait_text(page, "#agreement-result", "Correlation", 600)
                page.screenshot(path=str(ARTIFACTS / "space-first-click.png"), full_page=True)
            except Exception:
                page.screenshot(path=str(ARTIFACTS / "space-first-click-failure.png"),
                                full_page=True)
                raise
            finally:
                browser.close()
    finally:
        _resume(pids)
        app.demo.close()
        app.SCORING.close()
        app.AGREEMENT.close()


# ---------------------------------------------------------------- the time budget: worst cases
#
# Requests at the advertised limits built to be slow (benchmarks/space.py times them; these
# tests check that each is answered, correctly, or refused politely).


def _fit(text: str, limit: int = 5_000) -> str:
    return text if len(text) <= limit else text[: text.rfind("\n", 0, limit)]


def _flat_python(variant: int) -> str:
    return _fit("".join(f"v{i} = w{i} * {i + variant} + f(x{i})\n" for i in range(400)))


def _deep_parentheses(variant: int) -> str:
    depth = 2_400 - variant
    return "x = " + "(" * depth + f"a + {variant}" + ")" * depth


def _java_blocks(variant: int) -> str:
    body = "".join(f"if (x{i} > {variant}) {{ y += {i}; }}\n" for i in range(300))
    return _fit("class A {\n void f() {\n" + body, 4_995) + "\n}\n}"


def _javascript(variant: int) -> str:
    return _fit("".join(f"let v{i} = {i + variant};\n" for i in range(600)))


WORST_SNIPPETS = {"flat_python": ("python", _flat_python),
                  "deep_parentheses": ("python", _deep_parentheses),
                  "java_blocks": ("java", _java_blocks), "javascript": ("javascript", _javascript)}


def _undiff(html_text: str, keep: str) -> str:
    """The text of one side of a diff: ``keep="ins"`` gives the candidate, ``"del"`` the
    reference."""
    import html as html_module
    import re

    drop = "del" if keep == "ins" else "ins"
    body = re.search(r"<pre>(.*)</pre>", html_text, re.S).group(1)
    body = re.sub(rf"<{drop}>.*?</{drop}>", "", body, flags=re.S)
    return html_module.unescape(re.sub(rf"</?{keep}>", "", body))


@pytest.mark.parametrize("shape", sorted(WORST_SNIPPETS))
def test_diff_of_5000_character_snippets_is_exact(shape):
    _, make = WORST_SNIPPETS[shape]
    reference, candidate = make(0), make(1)
    assert 4_500 < len(reference) <= 5_000 and len(candidate) <= 5_000
    html = space.diff_html(reference, candidate, "A")
    assert _undiff(html, "ins") == candidate and _undiff(html, "del") == reference
    assert "<del>" in html and "<ins>" in html
    # the share of common tokens is that of the longest common subsequence of the tokens
    from rapidfuzz.distance import Indel

    tokens = space._TOKEN.findall
    lcs = Indel.normalized_similarity(tokens(reference), tokens(candidate))
    shown = int(html.rsplit("<small>", 1)[1].split("%")[0])
    assert shown <= round(100 * lcs) + 1  # lines first can only find fewer common tokens
    assert shown >= 80  # every shape changes a few characters per line at most


@pytest.mark.parametrize("shape", sorted(WORST_SNIPPETS))
def test_side_by_side_at_the_limits_answers_within_the_budget_plan(shape):
    from cgm_metrics.pipeline.registry import get_metric

    lang, make = WORST_SNIPPETS[shape]
    reference = make(0)
    candidates = [make(v) for v in range(1, 5)]
    result = space.side_by_side(reference, candidates, lang)
    sizes = space.item_sizes([candidates], [[reference]] * 4)
    plan = space.plan_metrics(space.metric_choices(), sizes, lang)
    assert sum(plan.estimates[n] for n in plan.admitted) <= space.METRIC_BUDGET
    assert (sum(space.worst_case_seconds(n, sizes, lang) for n in plan.admitted)
            <= space.WORST_CASE_BUDGET)
    assert set(result["metrics"]) | set(result["skipped"]) == set(space.metric_choices())
    assert "chrf_code" in result["metrics"]
    for name in plan.skipped:
        assert "too large for the Space" in result["skipped"][name]
        assert f"cgm score --predictions candidates.jsonl --lang {lang} --metrics {name}" in (
            result["skipped"][name])
    # the numbers shown are the library's
    for name in result["metrics"]:
        if name == "ruby":
            continue
        metric = get_metric(name, lang=lang)
        expected = metric.item_scores(np.asarray(metric.statistics(
            candidates, [[reference]] * 4), dtype=np.float64))
        shown = [c["scores"][name]["score"] for c in result["candidates"]]
        assert shown == pytest.approx(list(expected)), name


def test_small_snippets_get_every_metric():
    result = space.side_by_side(REFERENCE, CANDIDATES * 2, "python")
    assert not [r for r in result["skipped"].values() if "too large" in r]


# ---------------------------------------------------------------- the cost model


def test_plan_runs_cheap_metrics_first_and_never_drops_one_for_a_dearer_one():
    names = space.metric_choices()
    for n_items in (1, 10, 100, 1_000, 10_000):
        for item_chars in (100, 1_000, 10_000):
            plan = space.plan_metrics(names, [item_chars] * n_items, "python",
                                      space.test_seconds(n_items, 1))
            assert set(plan.admitted) | set(plan.skipped) == set(names)
            assert sum(plan.estimates[n] for n in plan.admitted) <= space.METRIC_BUDGET
            for skipped in plan.skipped:
                assert all(plan.estimates[ran] <= plan.estimates[skipped]
                           for ran in plan.admitted)
    # the order asked for is kept
    plan = space.plan_metrics(["ruby", "chrf_code"], [1_000], "python")
    assert plan.admitted == ["ruby", "chrf_code"]


def _real_code_uploads(folder: Path, n_items: int = 100,
                       n_systems: int = 3) -> tuple[Path, list[Path]]:
    """JSONL uploads of real code: the references of the first ``n_items`` Python pairs of the
    codebleu golden file and up to five systems: the recorded predictions, the references
    re-indented with two spaces, without their last line, with ``self`` renamed, and the
    predictions re-indented."""
    rows = [json.loads(line) for line in
            shared_data("codebleu", "codebleu_public_python.jsonl").read_text().splitlines()]
    rows = rows[:n_items]
    folder.mkdir(parents=True, exist_ok=True)
    refs = folder / "references.jsonl"
    refs.write_text("".join(json.dumps({"references": r["references"]}) + "\n" for r in rows))
    outputs = {
        "recorded": [r["predictions"][0] for r in rows],
        "reindented": [r["references"][0].replace("    ", "  ") for r in rows],
        "truncated": ["\n".join(r["references"][0].splitlines()[:-1]) or "pass" for r in rows],
        "renamed": [re.sub(r"\bself\b", "this", r["references"][0]) for r in rows],
        "recorded_reindented": [r["predictions"][0].replace("    ", "  ") for r in rows],
    }
    paths = []
    for name, predictions in list(outputs.items())[:n_systems]:
        path = folder / f"{name}.jsonl"
        path.write_text("".join(json.dumps({"prediction": p}) + "\n" for p in predictions))
        paths.append(path)
    return refs, paths


def test_all_seven_metrics_on_3x100_real_code_keep_chrf(tmp_path):
    """Ticking every metric on 3 systems x 100 items of real code runs the cheap ones (it
    used to run EDIT-SIM alone); anything skipped is dearer than everything that ran."""
    refs, systems = _real_code_uploads(tmp_path)
    names = space.metric_choices()
    result = space.compare_uploads(refs, systems, "python", names)
    ran = list(result["metrics"])
    assert {"chrf_code", "codebleu", "edit_sim", "rouge_l"} <= set(ran)
    assert set(ran) | set(result["skipped"]) == set(names)
    references, outputs, _ = space.read_uploads(refs, systems)
    sizes = space.item_sizes(outputs.values(), references)
    estimates = {n: space.estimated_seconds(n, sizes, "python") for n in names}
    for name in result["skipped"]:
        assert all(estimates[r] <= estimates[name] for r in ran)


def test_skipped_metric_says_so_with_its_cgm_command(tmp_path):
    """5 systems x 300 items of real code: the expensive metrics do not fit the budget. Each
    says so on the page with the `cgm compare` command for the uploaded files; the cheap ones
    ran, and their numbers are the library's."""
    refs, systems = _real_code_uploads(tmp_path, 300, 5)
    names = space.metric_choices()
    result = space.compare_uploads(refs, systems, "python", names)
    ran = list(result["metrics"])
    assert "chrf_code" in ran and "ruby" in result["skipped"]
    html = space.systems_html(result)
    files = "references.jsonl " + " ".join(path.name for path in systems)
    for name, reason in result["skipped"].items():
        command = f"cgm compare --references {files} --lang python --metrics {name}"
        assert command in reason
        assert f"{name} skipped: too large for the Space" in html and command in html
    references, outputs, _ = space.read_uploads(refs, systems)
    # the numbers are the library's compare on the same texts
    from cgm_metrics.pipeline.evaluation import Evaluation, load_metrics

    expected = Evaluation(load_metrics(["chrf_code"], "python"), references, outputs).compare(
        n_resamples=space.RESAMPLES, seed=space.SEED).rows()["chrf_code"]
    assert result["metrics"]["chrf_code"]["scores"] == expected["scores"]


def _upload_item(seed: int, index: int, chars: int) -> str:
    words = [f"v{(index * 7 + k * (seed + 3)) % 97} = f(x{k})" for k in range(chars // 8)]
    return "; ".join(words)[:chars]


def _uploads(folder: Path, n_items: int, chars: int) -> tuple[Path, list[Path]]:
    folder.mkdir(parents=True, exist_ok=True)
    refs = folder / "references.txt"
    refs.write_text("".join(_upload_item(0, i, chars) + "\n" for i in range(n_items)))
    systems = []
    for seed, name in enumerate(["sys_$\\frac$.txt", "a/model.txt", "b/model.txt", "base.txt",
                                 "other.txt"], start=1):
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(_upload_item(seed if i % 3 else 0, i, chars) + "\n"
                                for i in range(n_items)))
        systems.append(path)
    return refs, systems


def test_compare_uploads_at_the_limits_is_refused_politely(tmp_path):
    refs, systems = _uploads(tmp_path, 500, 3_990)  # 2 MB a file: the upload limit
    assert all(path.stat().st_size <= space.LIMITS.max_upload_bytes for path in systems)
    with pytest.raises(space.SpaceInputError, match=r"too large for the Space \(5 systems x "
                       r"500 items.*cgm compare"):
        space.compare_uploads(refs, systems, "python", ["chrf_code", "codebleu", "ruby"])


def test_uploads_with_dollar_names_and_two_model_txt(tmp_path):
    refs, systems = _uploads(tmp_path, 30, 200)
    result = space.compare_uploads(refs, systems[:3], "python", ["chrf_code", "codebleu"])
    assert result["systems"] == ["sys_$\\frac$", "model", "model (2)"]
    chrf = result["metrics"]["chrf_code"]
    assert chrf["scores"]["model"]["score"] != chrf["scores"]["model (2)"]["score"]
    svg = space.differences_svg(result)  # names are text: "$" shows as typed
    assert "model (2) \u2212 sys_$\\frac$" in svg
    assert "sys_$\\frac$" in space.systems_html(result)


@pytest.mark.slow  # uploads at the limits through the browser; the budget plan is tested above
def test_worst_cases_in_headless_chromium(served_space, tmp_path):
    """The slow-by-construction requests through the page: four 5,000-character candidates,
    uploads with a ``$`` name and two ``model.txt``, and uploads at the limits."""
    if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
        skip_missing(f"chromium (not found at {CHROMIUM})",
                     "scripts/test.sh installs Debian's chromium package")
    playwright_api = require("playwright.sync_api")

    ARTIFACTS.mkdir(exist_ok=True)
    small_refs, small_systems = _uploads(tmp_path / "small", 30, 200)
    big_refs, big_systems = _uploads(tmp_path / "big", 500, 3_990)
    with playwright_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM if Path(CHROMIUM).exists()
                                     else shutil.which("chromium"), args=CHROMIUM_ARGS,
                                     timeout=60_000)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.set_default_timeout(60_000)
            page.goto(served_space, wait_until="domcontentloaded")

            # side by side: reference and four candidates of 5,000 characters
            reference = _flat_python(0)
            page.locator("#reference textarea").fill(reference)
            page.get_by_text("More candidates").click()
            for variant, label in enumerate("ABCD", start=1):
                page.locator(f"#candidate-{label} textarea").fill(_flat_python(variant))
            page.locator("#score-button").click()
            _wait_text(page, "#side-scores", "dataflow", 180)
            # at the snippet limits a metric whose worst case fits the budget gets a row, a
            # column a candidate; one that does not (TSED's tree edit distance on adversarial
            # trees) is named with the command that computes it
            planned = space.side_by_side(reference, [_flat_python(v) for v in range(1, 5)])
            assert {"chrf_code", "codebleu", "ruby", "bleu"} <= set(planned["metrics"])
            for name in planned["metrics"]:
                cells = page.locator(f"#side-by-side-scores tr[data-metric='{name}'] td")
                assert cells.count() == 4, name
            scores_text = page.locator("#side-scores").inner_text()
            for name in planned["skipped"]:
                assert f"{name} skipped" in scores_text and f"--metrics {name}" in scores_text
            assert set(planned["metrics"]) | set(planned["skipped"]) == set(space.metric_choices())
            assert page.locator("#side-diffs ins").count() >= 4
            page.screenshot(path=str(ARTIFACTS / "space-worst-side.png"), full_page=True)

            # systems: a "$" in a file name and two files called model.txt
            page.get_by_role("tab", name="Systems").click()
            page.locator("#references-file input[type=file]").set_input_files(str(small_refs))
            page.locator("#systems-files input[type=file]").set_input_files(
                [str(p) for p in small_systems[:3]])
            _wait_text(page, "#systems-files", "model", 60)
            page.locator("#compare-button").click()
            text = _wait_text(page, "#systems-result", "Signature", 240)
            # two model.txt accepted under distinct names (the browser upload drops "$" and
            # "\\" from file names; the function test above keeps them)
            assert "model (2)" in text and "sys_" in text
            page.locator("#systems-plot svg.cgm-differences").wait_for()
            page.screenshot(path=str(ARTIFACTS / "space-worst-systems.png"), full_page=True)

            # systems at the upload limits: a polite refusal, not the generic error
            page.reload(wait_until="domcontentloaded")
            page.get_by_role("tab", name="Systems").click()
            page.locator("#references-file input[type=file]").set_input_files(str(big_refs))
            page.locator("#systems-files input[type=file]").set_input_files(
                [str(p) for p in big_systems])
            _wait_text(page, "#systems-files", "other", 120)
            page.locator("#compare-button").click()
            page.wait_for_function(
                "() => document.body.innerText.includes('too large for the Space')",
                timeout=240_000)
            body = page.locator("body").inner_text()
            assert "cgm compare" in body and "Something went wrong" not in body
            page.screenshot(path=str(ARTIFACTS / "space-worst-limits.png"), full_page=True)
        except Exception:
            page.screenshot(path=str(ARTIFACTS / "space-worst-failure.png"), full_page=True)
            raise
        finally:
            browser.close()
