"""The Gradio Space (spaces/app.py) and its library (cgm_metrics.space).

Library tests check values against peers (sacrebleu, the codebleu package) and the limits and
messages; the served tests launch the app on 127.0.0.1 and drive it with gradio_client and a
real headless Chromium (Debian's /usr/bin/chromium through playwright).
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import socket
from pathlib import Path

import numpy as np
import pytest
from _peers import codebleu_of, codebleu_package, require, skip_missing
from conftest import ROOT, shared_data

from cgm_metrics import space
from cgm_metrics.io import escape_code

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
    from cgm_metrics.evaluation import MetricCache

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
    image = space.plot_differences(result)
    assert image.size[0] > 300 and image.size[1] > 200
    differences = result["differences"]["chrf_code"]["good vs mutated"]
    assert len(differences) == space.RESAMPLES and differences.max() <= 0  # B - A: mutated - good


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
    image = space.agreement_image(result)
    assert image.size[0] > 600
    with pytest.raises(space.SpaceInputError, match="expected a .jsonl"):
        space.agreement_upload(ROOT / "spaces" / "README.md")


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
def served_space():
    """spaces/app.py served on 127.0.0.1 in this process (a server thread); closed after."""
    app = _load_app(ROOT / "spaces" / "app.py", "cgm_space_app")
    assert os.environ["GRADIO_ANALYTICS_ENABLED"] == "False"
    port = _free_port()
    app.demo.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True,
                    quiet=True, **app.LAUNCH_OPTIONS)
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        app.demo.close()


def test_api_with_gradio_client(served_space, system_files):
    import sacrebleu
    from gradio_client import Client, handle_file

    client = Client(served_space, verbose=False, download_files=False)
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
    assert "good &gt; mutated, significant" in html


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
            page.locator("#systems-plot img").wait_for()
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
    from cgm_metrics.registry import get_metric

    lang, make = WORST_SNIPPETS[shape]
    reference = make(0)
    candidates = [make(v) for v in range(1, 5)]
    result = space.side_by_side(reference, candidates, lang)
    n_chars = sum(len(c) + len(reference) for c in candidates)
    planned, too_large = space.plan_metrics(space.metric_choices(), n_chars)
    assert sum(space.estimated_seconds(n, n_chars) for n in planned) <= space.METRIC_BUDGET
    assert set(result["metrics"]) | set(result["skipped"]) == set(space.metric_choices())
    assert "chrf_code" in result["metrics"]
    for name, reason in too_large.items():
        assert "too large for the Space" in result["skipped"][name]
        assert "cgm score" in reason
    # the numbers shown are the library's
    for name in result["metrics"]:
        if name == "ruby":
            continue
        metric = get_metric(name, lang=lang)
        expected = metric.item_scores(np.asarray(metric.statistics(
            candidates, [[reference]] * 4), dtype=np.float64))
        shown = [c["scores"][name]["score"] for c in result["candidates"]]
        assert shown == pytest.approx(list(expected)), name
    html = space.side_by_side_html(result)
    assert "too large for the Space" in html


def test_small_snippets_get_every_metric():
    result = space.side_by_side(REFERENCE, CANDIDATES * 2, "python")
    assert not [r for r in result["skipped"].values() if "too large" in r]


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
    image = space.plot_differences(result)  # "$" must not start matplotlib's mathtext
    assert image.size[0] > 300
    assert "sys_$\\frac$" in space.systems_html(result)
    assert space.plain_label("sys_$\\frac$") == "sys_\\$\\frac\\$"


def test_worst_cases_in_headless_chromium(served_space, tmp_path):
    """The slow-by-construction requests through the page: four 5,000-character candidates,
    uploads with a ``$`` name and two ``model.txt``, and uploads at the limits."""
    if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
        skip_missing(f"chromium (not found at {CHROMIUM})",
                     "scripts/test.sh installs Debian's chromium package")
    playwright_api = require("playwright.sync_api")
    import time

    ARTIFACTS.mkdir(exist_ok=True)
    small_refs, small_systems = _uploads(tmp_path / "small", 30, 200)
    big_refs, big_systems = _uploads(tmp_path / "big", 500, 3_990)
    timings = {}
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
            start = time.perf_counter()
            page.locator("#score-button").click()
            text = _wait_text(page, "#side-scores", "too large for the Space", 180)
            timings["side_by_side"] = time.perf_counter() - start
            assert "chrf_code" in text and "cgm score" in text
            assert page.locator("#side-diffs ins").count() >= 4
            page.screenshot(path=str(ARTIFACTS / "space-worst-side.png"), full_page=True)

            # systems: a "$" in a file name and two files called model.txt
            page.get_by_role("tab", name="Systems").click()
            page.locator("#references-file input[type=file]").set_input_files(str(small_refs))
            page.locator("#systems-files input[type=file]").set_input_files(
                [str(p) for p in small_systems[:3]])
            _wait_text(page, "#systems-files", "model", 60)
            start = time.perf_counter()
            page.locator("#compare-button").click()
            text = _wait_text(page, "#systems-result", "Signature", 240)
            timings["compare_uploads_small"] = time.perf_counter() - start
            # two model.txt accepted under distinct names (the browser upload drops "$" and
            # "\\" from file names; the function test above keeps them)
            assert "model (2)" in text and "sys_" in text
            page.locator("#systems-plot img").wait_for()
            page.screenshot(path=str(ARTIFACTS / "space-worst-systems.png"), full_page=True)

            # systems at the upload limits: a polite refusal, not the generic error
            page.reload(wait_until="domcontentloaded")
            page.get_by_role("tab", name="Systems").click()
            page.locator("#references-file input[type=file]").set_input_files(str(big_refs))
            page.locator("#systems-files input[type=file]").set_input_files(
                [str(p) for p in big_systems])
            _wait_text(page, "#systems-files", "other", 120)
            start = time.perf_counter()
            page.locator("#compare-button").click()
            page.wait_for_function(
                "() => document.body.innerText.includes('too large for the Space')",
                timeout=240_000)
            timings["compare_uploads_limits"] = time.perf_counter() - start
            body = page.locator("body").inner_text()
            assert "cgm compare" in body and "Something went wrong" not in body
            page.screenshot(path=str(ARTIFACTS / "space-worst-limits.png"), full_page=True)
        except Exception:
            page.screenshot(path=str(ARTIFACTS / "space-worst-failure.png"), full_page=True)
            raise
        finally:
            browser.close()
    (ARTIFACTS / "space-worst-timings.json").write_text(json.dumps(timings, indent=2))
