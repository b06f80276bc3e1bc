"""The plugin door, for real: a package outside this project (tests/data/plugin_pkg) declares a
metric (entry point ``cgm_metrics.metrics``) and a language (``cgm_metrics.languages``); pip
installs it and this project, unchanged, into a fresh venv; then the library, ``cgm score``,
``cgm compare``, the ``paired_significance`` module, the agreement analysis and the Space's
menus use both.

The toy metric is the share of the reference's distinct whitespace tokens found in the
prediction; its expected values are counted by hand below. The toy language is Starlark
(Bazel's Python dialect) on the Python grammar wheel, so its syntax trees are Python's: RUBY's
tree level must give what it gives for Python at that level.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest
from conftest import ROOT, shared_data

PLUGIN = ROOT / "tests" / "data" / "plugin_pkg"
REFS = ["x = a + b  # sum", "def f(n):\n    return n * 2", "y = [i for i in range(3)]"]
SYS_A = ["x = a + c", "def f(n):\n    return n", "y = list(range(3))"]
SYS_B = list(REFS)
# distinct tokens of each reference found in A: {x,=,a,+} of {x,=,a,+,b,#,sum} = 4/7;
# {def,f(n):,return,n} of {def,f(n):,return,n,*,2} = 4/6; {y,=} of {y,=,[i,for,i,in,range(3)]}
# = 2/7; B reproduces every reference: 1 each
EXPECTED_A = [4 / 7, 4 / 6, 2 / 7]
pytestmark = pytest.mark.xdist_group("plugin-venv")


def _source_copy(target: Path) -> Path:
    ignore = shutil.ignore_patterns(".git", "build", "dist", "*.egg-info", "__pycache__",
                                    "test-artifacts", ".pytest_cache", ".ruff_cache", ".venv")
    shutil.copytree(ROOT, target, ignore=ignore, symlinks=True)
    return target


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    """A fresh venv that sees the test environment's packages (as a user's venv on a machine
    with the dependencies does; ``--system-site-packages`` would show the base interpreter's
    instead), with its own setuptools and wheel (pip builds both projects with them, without
    isolation), and this project and the plugin package installed into it by pip, offline."""
    folder = tmp_path_factory.mktemp("plugin-venv")
    source = _source_copy(folder / "cgm-metrics")
    plugin = shutil.copytree(PLUGIN, folder / "plugin_pkg")
    made = subprocess.run([sys.executable, "-m", "venv", str(folder / "venv")],
                          capture_output=True, text=True, timeout=300)
    if made.returncode != 0:
        raise RuntimeError(f"cannot make a venv: {made.stderr[-2000:]}")  # set-up failure
    python = folder / "venv" / "bin" / "python"
    # setuptools and wheel inside the venv, before it sees the test environment's packages
    tools = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "setuptools>=64",
                            "wheel"], capture_output=True, text=True, timeout=900, cwd=folder)
    if tools.returncode != 0:
        raise RuntimeError(f"cannot install setuptools and wheel in the venv: "
                           f"{tools.stdout[-2000:]}{tools.stderr[-3000:]}")
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, timeout=60, check=True).stdout.strip()
    # the test environment's packages after the venv's own, as a site directory
    (Path(purelib) / "zz_test_environment.pth").write_text(
        f"import site; site.addsitedir({sysconfig.get_paths()['purelib']!r})\n")
    installed = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
         "--no-index", str(source), str(plugin)],
        capture_output=True, text=True, timeout=900, cwd=folder)
    if installed.returncode != 0:
        raise RuntimeError(f"pip install failed: {installed.stdout[-2000:]}"
                           f"{installed.stderr[-3000:]}")
    return python, folder


def _run(venv, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    python, folder = venv
    env = {**os.environ, "HF_EVALUATE_OFFLINE": "1", "PYTHONHASHSEED": "0"}
    env.pop("PYTHONPATH", None)
    return subprocess.run([str(python), *args], capture_output=True, text=True, cwd=folder,
                          env=env, timeout=600, input=stdin)


def _python(venv, code: str) -> dict:
    done = _run(venv, "-c", textwrap.dedent(code))
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _files(folder: Path) -> dict[str, str]:
    from cgm_metrics.base.io import escape_code

    paths = {}
    for name, items in (("refs", REFS), ("sys_a", SYS_A), ("sys_b", SYS_B)):
        path = folder / f"{name}.txt"
        path.write_text("".join(escape_code(item) + "\n" for item in items))
        paths[name] = str(path)
    return paths


def test_the_installed_project_is_the_one_in_the_venv(venv):
    python, folder = venv
    seen = _python(venv, """
        import json, cgm_metrics, cgm_toy_plugin
        print(json.dumps([cgm_metrics.__file__, cgm_toy_plugin.__file__]))
    """)
    assert all(path.startswith(str(folder / "venv")) for path in seen), seen


def test_library_uses_the_plugin_metric_and_language(venv):
    result = _python(venv, f"""
        import json, warnings
        warnings.simplefilter("error")  # a plugin that is left out would warn
        import cgm_metrics
        from cgm_metrics.maths.ruby import RubyMetric
        from cgm_metrics.core.text import strip_comments
        refs, preds = {REFS!r}, {SYS_A!r}
        out = {{"metrics": cgm_metrics.metrics(), "languages": cgm_metrics.languages.names()}}
        out["toy"] = cgm_metrics.score("token_overlap", preds, refs, lang="starlark",
                                       per_item=True)
        # chrF with comment stripping on the plugin language = chrF of the stripped code
        stripped = cgm_metrics.score("chrf_code", preds, refs, lang="starlark",
                                     strip_comments=True)["score"]
        by_hand = cgm_metrics.score("chrf_code", preds,
                                    [strip_comments(r, "starlark") for r in refs])["score"]
        out["chrf"] = [stripped, by_hand, strip_comments(refs[0], "starlark")]
        # RUBY: no graph for Starlark, its trees are Python's
        ruby = cgm_metrics.score("ruby", preds, refs, lang="starlark", per_item=True)
        python_tree = RubyMetric(lang="python", level="tree").compute(preds, refs, True)
        out["ruby"] = [ruby["per_item"], ruby["item_labels"]["level"], python_tree["per_item"]]
        try:
            cgm_metrics.score("codebleu", preds, refs, lang="starlark")
        except ValueError as error:
            out["codebleu"] = str(error)
        try:
            cgm_metrics.score("codebleu", preds, refs)
        except ValueError as error:
            out["codebleu_without_lang"] = str(error)
        from cgm_metrics.agreement import run_agreement
        agreement = run_agreement({str(shared_data("hearthstone", "hs.graded.jsonl"))!r},
                                  metrics=["token_overlap"], lang="starlark", n_resamples=50,
                                  synthetic=False, correlations=False)
        out["agreement"] = sorted(agreement.table)
        print(json.dumps(out))
    """)
    assert "token_overlap" in result["metrics"] and "chrf_code" in result["metrics"]
    assert "starlark" in result["languages"] and "python" in result["languages"]
    toy = result["toy"]
    assert toy["per_item"] == pytest.approx(EXPECTED_A, abs=1e-12)
    assert toy["score"] == pytest.approx(sum(EXPECTED_A) / 3, abs=1e-12)
    assert toy["signature"].startswith("token_overlap|lang:starlark|")
    stripped, by_hand, first = result["chrf"]
    assert stripped == pytest.approx(by_hand, abs=1e-12) and first == "x = a + b"
    per_item, levels, python_tree = result["ruby"]
    assert levels == ["tree"] * 3 and per_item == pytest.approx(python_tree, abs=1e-12)
    assert "CodeBLEU does not support lang='starlark'" in result["codebleu"]
    assert "python" in result["codebleu"] and "java" in result["codebleu"]
    assert "CodeBLEU needs `lang`" in result["codebleu_without_lang"]
    assert result["agreement"] == ["token_overlap"]


def test_cgm_score_and_compare_with_the_plugins(venv):
    python, folder = venv
    files = _files(folder)
    done = _run(venv, "-m", "cgm_metrics", "score", "--references", files["refs"],
                "--predictions", files["sys_a"], files["sys_b"], "--unescape", "--metrics",
                "token_overlap", "chrf_code", "--lang", "starlark", "--json", "-")
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert payload["lang"] == "starlark" and payload["metrics"] == ["token_overlap", "chrf_code"]
    toy = payload["systems"]["sys_a"]["token_overlap"]
    assert toy["score"] == pytest.approx(sum(EXPECTED_A) / 3, abs=1e-12)
    assert payload["systems"]["sys_b"]["token_overlap"]["score"] == 1.0

    # the default metrics on the plugin language: CodeBLEU is skipped with the reason
    done = _run(venv, "-m", "cgm_metrics", "compare", "--references", files["refs"],
                files["sys_a"], files["sys_b"], "--unescape", "--lang", "starlark",
                "--metrics", "token_overlap", "--json", "-")
    assert done.returncode == 0, done.stderr
    pairs = json.loads(done.stdout)["metrics"]["token_overlap"]["pairs"]
    assert [(p["a"], p["b"]) for p in pairs] == [("sys_a", "sys_b")]
    assert pairs[0]["delta"] == pytest.approx(1 - sum(EXPECTED_A) / 3, abs=1e-12)
    done = _run(venv, "-m", "cgm_metrics", "score", "--references", files["refs"],
                "--predictions", files["sys_a"], "--unescape", "--lang", "starlark")
    assert done.returncode == 0, done.stderr
    assert "metric codebleu skipped: CodeBLEU does not support --lang starlark" in done.stderr
    done = _run(venv, "-m", "cgm_metrics", "score", "--references", files["refs"],
                "--predictions", files["sys_a"], "--unescape", "--lang", "starlark",
                "--metrics", "codebleu")
    assert done.returncode == 1 and "does not support --lang starlark" in done.stderr

    listing = _run(venv, "-m", "cgm_metrics", "score", "--list-metrics")
    assert listing.returncode == 0, listing.stderr
    assert "token_overlap  (Token overlap, 0-1, any language; plugin)" in listing.stdout
    assert "starlark" in listing.stdout.splitlines()[-1]


def test_a_flag_the_plugin_metric_declares_works_on_cgm_score(venv):
    """The toy metric declares ``min_length`` as a flag (its class attribute ``cli_flags``):
    ``cgm score`` offers it as ``--token-overlap-min-length``, in its help too, and passes it
    to the metric."""
    python, folder = venv
    files = _files(folder)
    done = _run(venv, "-m", "cgm_metrics", "score", "--references", files["refs"],
                "--predictions", files["sys_a"], "--unescape", "--metrics", "token_overlap",
                "--token-overlap-min-length", "2", "--json", "-")
    assert done.returncode == 0, done.stderr
    toy = json.loads(done.stdout)["systems"]["sys_a"]["token_overlap"]
    # tokens of 2+ characters: {sum} none in A (0); {def,f(n):,return} all in A (1);
    # {[i,for,in,range(3)]} none of A's {list(range(3))} (0)
    assert toy["score"] == pytest.approx(1 / 3, abs=1e-12)
    assert "min_length:2" in toy["signature"]
    helped = _run(venv, "-m", "cgm_metrics", "score", "--help")
    assert helped.returncode == 0, helped.stderr
    assert "--token-overlap-min-length N" in helped.stdout
    assert "count only tokens of at least N characters" in helped.stdout
    done = _run(venv, "-m", "cgm_metrics", "score", "--references", files["refs"],
                "--predictions", files["sys_a"], "--metrics", "token_overlap",
                "--token-overlap-min-length", "two")
    assert done.returncode == 1
    assert "--token-overlap-min-length: expected a whole number, got 'two'" in done.stderr


def test_paired_significance_module_with_the_plugin_metric(venv):
    result = _python(venv, f"""
        import json, evaluate, cgm_metrics
        test = evaluate.load(cgm_metrics.module_path("paired_significance"))
        result = test.compute(predictions_a={SYS_A!r} * 4, predictions_b={SYS_B!r} * 4,
                              references={REFS!r} * 4, metric="token_overlap",
                              metric_kwargs={{"lang": "starlark"}})
        print(json.dumps({{k: result[k] for k in ("score_a", "score_b", "delta", "signature")}}))
    """)
    assert result["score_a"] == pytest.approx(sum(EXPECTED_A) / 3, abs=1e-12)
    assert result["score_b"] == 1.0
    assert result["signature"].startswith("token_overlap|lang:starlark")


def test_space_offers_and_scores_the_plugins(venv):
    result = _python(venv, f"""
        import json, runpy
        from cgm_metrics.frontends import space
        space.warm_up = lambda *args, **kwargs: None  # menus only: no parsers to load
        app = runpy.run_path({str(ROOT / "spaces" / "app.py")!r}, run_name="space_app")
        blocks = app["demo"].blocks.values()
        choices = {{b.elem_id: [c[0] if isinstance(c, (list, tuple)) else c
                                for c in getattr(b, "choices", [])]
                    for b in blocks if getattr(b, "elem_id", None)}}
        side = space.side_by_side({REFS[0]!r}, {[SYS_A[0], SYS_B[0]]!r}, "starlark",
                                  metrics=["token_overlap", "codebleu", "ruby"])
        from cgm_metrics.frontends.space import limits
        growth = [space.rate_growth("token_overlap"), limits.rate_growth("token_overlap")]
        print(json.dumps({{"choices": choices, "metrics": side["metrics"],
                          "skipped": side["skipped"], "growth": growth,
                          "scores": [c["scores"] for c in side["candidates"]],
                          "explanations": space.explanation_markdown()}}))
    """)
    choices = result["choices"]
    assert "token_overlap" in choices["metric-choice"]
    assert "starlark" in choices["side-lang"] and "starlark" in choices["systems-lang"]
    assert result["metrics"] == ["token_overlap", "ruby"]
    assert "does not support lang='starlark'" in result["skipped"]["codebleu"]
    first, second = result["scores"]
    assert first["token_overlap"]["score"] == pytest.approx(EXPECTED_A[0], abs=1e-12)
    assert second["token_overlap"]["score"] == 1.0 and first["ruby"]["level"] == "tree"
    assert "**token_overlap** (Token overlap)" in result["explanations"]
    assert result["growth"] == [0.002, 0.002]  # the plugin class's attribute, not a table


PYLITE = [  # (candidate, test program, the verdict of each run)
    ("def add(a, b):\n    return a + b\n", "assert add(2, 3) == 5\n", "OK"),
    ("def add(a, b):\n    return a - b\n", "assert add(2, 3) == 5\n", "Exception"),
    ("def add(a, b)\n    return a + b\n", "assert add(2, 3) == 5\n", "SyntaxError"),
    ("def add(a, b):\n    while True:\n        pass\n", "assert add(2, 3) == 5\n", "Timeout"),
]


def test_a_language_module_of_another_package_reaches_every_part(venv):
    """cgm_toy_plugin.pylite is one module of the outside package (entry point
    ``cgm_metrics.languages``): with no edit here it is parsed, scored by CodeBLEU (its
    Python keywords and rules: Python's numbers) and TSED (the pack's Python grammar: Python's
    numbers), and its programs run (python3 after a py_compile step), with MultiPL-E's
    verdicts."""
    result = _python(venv, f"""
        import json, warnings
        warnings.simplefilter("error")
        import cgm_metrics
        from cgm_metrics import languages
        from cgm_metrics.maths.codebleu import compute_codebleu
        from cgm_metrics.execution.code_eval import compute_code_eval
        refs, preds = {REFS!r}, {SYS_A!r}
        language = languages.resolve("PYL")
        out = {{"languages": cgm_metrics.languages.names(), "module": language.module,
                "parts": [p for p in languages.PARTS if language.has(p)]}}
        out["codebleu"] = [compute_codebleu(preds, [[r] for r in refs], lang=lang)
                           for lang in ("pylite", "python")]
        out["tsed"] = [cgm_metrics.score("tsed", preds, refs, lang=lang, per_item=True)["per_item"]
                       for lang in ("pylite", "python")]
        cases = {PYLITE!r}
        _, runs = compute_code_eval([[c] for c, _, _ in cases], [t for _, t, _ in cases], k=[1],
                                    num_workers=2, timeout=3.0, allow_code_execution=True,
                                    lang="pylite")
        out["verdicts"] = [runs[i][0][1]["verdict"] for i in range(len(cases))]
        from cgm_metrics.execution.extract import candidate_from_answer
        answer = ("Here:\\n```python\\ndef add(a, b):\\n    return a - b\\n```\\n"
                  "In Pylite:\\n```pyl\\ndef add(a, b):\\n    return a + b\\n\\nprint(add(1, 2))\\n```\\n")
        code, found = candidate_from_answer(answer, "assert add(2, 3) == 5\\n", "pylite")
        out["extracted"] = [code, found.how, list(found.left)]
        _, runs = compute_code_eval([[code]], ["assert add(2, 3) == 5\\n"], k=[1], num_workers=1,
                                    timeout=3.0, allow_code_execution=True, lang="pylite")
        out["verdicts"].append(runs[0][0][1]["verdict"])
        try:
            compute_code_eval([["x"]], ["y"], k=[1], allow_code_execution=True, lang="starlark")
        except ValueError as error:
            out["starlark"] = str(error)
        print(json.dumps(out))
    """)
    assert "pylite" in result["languages"] and "perl" in result["languages"]
    assert result["module"] == "cgm_toy_plugin.pylite"
    assert result["parts"] == ["parsing", "codebleu", "tsed", "execution", "extraction"]
    pylite, python = result["codebleu"]
    assert pylite == pytest.approx(python, abs=1e-12) and 0 < pylite["codebleu"] < 1
    assert result["tsed"][0] == pytest.approx(result["tsed"][1], abs=1e-12)
    assert result["verdicts"] == [verdict for _, _, verdict in PYLITE] + ["OK"]
    # its own extraction part: the ```pyl block, without its usage line; ```python is another
    # language
    code, how, left = result["extracted"]
    assert code == "def add(a, b):\n    return a + b\n"
    assert how.startswith("fenced block 2 of 2 (pyl)")
    assert left == ["block 1 (python): another language"]
    # the parsing-only plugin language says what it lacks to run
    assert "no execution" in result["starlark"] and "ExecutionPart" in result["starlark"]
