"""evaluate's own code_eval as a live peer of ``cgm/code_eval``.

The peer is the module HuggingFace published (``code_eval.py`` with its ``_compute`` and
``execute.py``, human-eval's harness), unpacked by ``scripts/test.sh`` from the sdist of
datasets 1.18.4, where it lived before it moved to evaluate unchanged. It is loaded with
``evaluate.load(folder)`` in a child interpreter (its ``datasets.Metric`` base is evaluate's
``Metric`` today) and runs only the benign programs below, outside any sandbox.
"""

from __future__ import annotations

import evaluate
import pytest
from _peers import code_eval_peer, run_peer
from conftest import METRICS_DIR
from hostile_programs import needs_sandbox

_PEER = r'''
import json, os, sys
import datasets, evaluate
datasets.Metric, datasets.MetricInfo = evaluate.Metric, evaluate.MetricInfo  # its old base
call = json.loads(sys.stdin.read())
os.environ["HF_ALLOW_CODE_EVAL"] = "1"
code_eval = evaluate.load(call.pop("folder"))
out = []
for kwargs in call["calls"]:
    scores, results = code_eval.compute(**kwargs)
    out.append({"pass_at_k": {key: float(value) for key, value in scores.items()},
                "results": {str(task): [[cid, r["passed"], r["result"]] for cid, r in rows]
                            for task, rows in results.items()}})
print(json.dumps(out))
'''

ADD_TEST = "assert add(2, 3) == 5\nassert add(-1, 1) == 0"
CANDIDATES = {
    "right": "def add(a, b):\n    return a + b",
    "wrong": "def add(a, b):\n    return a * b",
    "raises": "def add(a, b):\n    raise ValueError('no')",
    "syntax": "def add(a, b)\n    return a + b",
    "name": "def plus(a, b):\n    return a + b",
    "loops": "def add(a, b):\n    while True:\n        pass",
}
SORT_TEST = "assert sort([3, 1, 2]) == [1, 2, 3]\nassert sort([]) == []"
SORTS = {
    "right": "def sort(x):\n    return sorted(x)",
    "reversed": "def sort(x):\n    return sorted(x, reverse=True)",
    "inplace": "def sort(x):\n    x.sort()",
}

CALLS = [
    # the module's documented example
    {"references": ["assert add(2,3)==5"],
     "predictions": [["def add(a,b): return a*b", "def add(a, b): return a+b"]], "k": [1, 2]},
    # a grid: tasks with every kind of outcome, several k, k larger than some task's n
    {"references": [ADD_TEST, SORT_TEST, ADD_TEST],
     "predictions": [
         [CANDIDATES[name] for name in ("right", "wrong", "raises", "syntax", "name")],
         [SORTS["right"], SORTS["reversed"], SORTS["inplace"], SORTS["right"], SORTS["right"]],
         [CANDIDATES["wrong"], CANDIDATES["right"], CANDIDATES["wrong"], CANDIDATES["wrong"],
          CANDIDATES["syntax"]],
     ],
     "k": [1, 2, 3, 5, 10], "timeout": 3.0},
    # a candidate that never ends: the timeout makes it a failure
    {"references": [ADD_TEST], "predictions": [[CANDIDATES["loops"], CANDIDATES["right"]]],
     "k": [1, 2], "timeout": 1.0, "num_workers": 2},
]


def _ours(monkeypatch, calls: list[dict]) -> list[dict]:
    monkeypatch.setenv("HF_ALLOW_CODE_EVAL", "1")
    module = evaluate.load(str(METRICS_DIR / "code_eval"))
    out = []
    for kwargs in calls:
        scores, results = module.compute(**kwargs)
        out.append({"pass_at_k": {key: float(value) for key, value in scores.items()},
                    "results": {str(task): [[cid, r["passed"], r["result"]] for cid, r in rows]
                                for task, rows in results.items()}})
    return out


@needs_sandbox
def test_code_eval_equals_evaluates_code_eval(monkeypatch):
    folder = code_eval_peer()
    expected = run_peer(_PEER, {"folder": str(folder), "calls": CALLS}, timeout=600)
    got = _ours(monkeypatch, CALLS)
    for call, want, have in zip(CALLS, expected, got, strict=True):
        assert have["pass_at_k"] == pytest.approx(want["pass_at_k"], rel=1e-12, abs=1e-15), call
        assert set(have["pass_at_k"]) == set(want["pass_at_k"])  # the same k left out
        # every program's verdict and result text ("passed", "failed: <error>", "timed out")
        assert have["results"] == want["results"], call
