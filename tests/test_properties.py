"""Property-based tests (hypothesis) of every registry metric and every evaluate module.

Inputs: random unicode (control characters, NUL, astral planes), empty strings, whitespace
only, code that does not parse, real snippets and mutations of them, one to three references
per item. Properties: no crash and no NaN; scores and per-item values within the metric's
range; the same per-item values in a batch as one item at a time (every metric here defines
a per-item value); for metrics that are a mean of items, the score is that mean; with several
references, metrics defined by the best reference give the best single-reference value;
the modules give the library's numbers; mismatched lengths are an error naming the fix.

Deterministic for CI: ``derandomize=True``, no example database, a fixed number of examples.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import METRICS_DIR
from hostile_programs import needs_sandbox
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cgm_metrics
from cgm_metrics.pipeline.metric import MeanOfItems

SETTINGS = settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

SNIPPETS = [
    "def add(a, b):\n    return a + b\n",
    "for i in range(10):\n    print(i)",
    "x = [i * i for i in range(5)]",
    "class A:\n    def f(self):\n        return self.x\n",
    "if x:\n    y = 1\nelse:\n    y = 2",
    "import os\nprint(os.path.join('a', 'b'))",
    "while True:\n    break",
    "lambda x: x",
]
UNPARSABLE = ["def (", "((((", "x = = 1", "return )", "class:", "'''unterminated", "if x\n  y",
              "\\", "@@@", "def f(:\n\tpass"]
WHITESPACE = st.text(alphabet=" \t\n\r\x0b\x0c\u00a0\u2003", max_size=8)


@st.composite
def _mutated(draw):
    snippet = draw(st.sampled_from(SNIPPETS))
    start = draw(st.integers(0, len(snippet)))
    end = draw(st.integers(start, len(snippet)))
    return snippet[:start] + draw(st.text(max_size=6)) + snippet[end:]


CODE = st.one_of(
    st.text(max_size=40),  # random unicode, NUL and control characters included
    st.just(""),
    WHITESPACE,
    st.sampled_from(SNIPPETS),
    st.sampled_from(UNPARSABLE),
    _mutated(),
)


@st.composite
def batches(draw, max_items=4, max_refs=3):
    n = draw(st.integers(1, max_items))
    predictions = draw(st.lists(CODE, min_size=n, max_size=n))
    references = draw(
        st.lists(st.lists(CODE, min_size=1, max_size=max_refs), min_size=n, max_size=n)
    )
    return predictions, references


# the metrics that score texts (those that run code have their tests in test_passk.py)
REGISTRY = [name for name in cgm_metrics.metrics()
            if not cgm_metrics.pipeline.registry.metric_class(name).runs_code]
SCALE = {name: cgm_metrics.get_metric(name, lang="python").scale for name in REGISTRY}
# Metrics whose value with several references is the value of the best one (their docs say so).
BEST_REFERENCE = {"chrf_code", "codexglue_edit_sim", "edit_sim", "meteor", "rouge_l", "rouge_n",
                  "rouge_w", "ruby", "tsed"}


def _in_range(value: float, scale: float) -> bool:
    # Exact bounds: no metric here may leave [0, scale]. BLEU is capped at 100 because its
    # clipped precisions and brevity penalty are at most 1 (sacrebleu computes the same).
    return math.isfinite(value) and 0.0 <= value <= scale


def test_every_registry_metric_is_covered():
    assert set(REGISTRY) == {"bleu", "chrf_code", "codebleu", "codexglue_edit_sim",
                             "crystal_bleu", "edit_sim", "meteor", "rouge_l", "rouge_n",
                             "rouge_w", "ruby", "tsed"}, "add the new metric's properties here"


@pytest.mark.parametrize("name", REGISTRY)
def test_registry_metric_properties(name):
    metric = cgm_metrics.get_metric(name, lang="python")
    scale = SCALE[name]

    @SETTINGS
    @given(batch=batches())
    def check(batch):
        predictions, references = batch
        result = metric.compute(predictions, references, True)
        assert _in_range(result["score"], scale), result
        per_item = result["per_item"]
        assert len(per_item) == len(predictions)
        assert all(_in_range(v, scale) for v in per_item), per_item
        # a batch and one item at a time: the same per-item values
        single = [metric.compute([p], [r], True)["per_item"][0]
                  for p, r in zip(predictions, references, strict=True)]
        assert per_item == pytest.approx(single, rel=1e-12, abs=1e-12)
        if isinstance(metric, MeanOfItems):
            assert result["score"] == pytest.approx(float(np.mean(per_item)), abs=1e-12)
        # deterministic
        assert metric.compute(predictions, references, True) == result

    check()


@pytest.mark.parametrize("name", sorted(BEST_REFERENCE))
def test_several_references_give_the_best_single_one(name):
    metric = cgm_metrics.get_metric(name, lang="python")

    @SETTINGS
    @given(prediction=CODE, references=st.lists(CODE, min_size=2, max_size=3))
    def check(prediction, references):
        together = metric.compute([prediction], [references], True)["per_item"][0]
        alone = [metric.compute([prediction], [[r]], True)["per_item"][0] for r in references]
        assert together == pytest.approx(max(alone), abs=1e-12)

    check()


@pytest.mark.parametrize("name", REGISTRY)
def test_mismatched_lengths_are_an_error(name):
    metric = cgm_metrics.get_metric(name, lang="python")

    @settings(max_examples=5, deadline=None, derandomize=True, database=None)
    @given(st.lists(CODE, min_size=1, max_size=3), st.integers(1, 3))
    def check(predictions, extra):
        references = [[p] for p in predictions] + [["x"]] * extra
        with pytest.raises(ValueError, match="one reference"):
            metric.compute(predictions, references)
        with pytest.raises(ValueError, match="references"):
            metric.compute(predictions, references[: len(predictions) - 1])

    check()


# ------------------------------------------------------------------ evaluate modules

MODULE_KEYS = {"chrf_code": ("score", 100.0), "codebleu": ("codebleu", 1.0),
               "ruby": ("ruby", 1.0), "edit_sim": ("edit_sim", 1.0), "tsed": ("tsed", 1.0),
               "crystal_bleu": ("crystal_bleu", 1.0), "codexglue_edit_sim": ("edit_sim", 100.0)}
SCORES_KEY = {"tsed": "tsed_scores"}  # the tsed Space's name for the per-item scores


def _load(name):
    import evaluate

    return evaluate.load(str(METRICS_DIR / name))


def test_every_module_is_covered():
    modules = sorted(p.name for p in METRICS_DIR.iterdir() if (p / f"{p.name}.py").exists())
    assert modules == sorted([*MODULE_KEYS, "code_eval", "paired_significance"]), (
        "add its properties here")


@pytest.mark.parametrize("name", sorted(MODULE_KEYS))
def test_module_properties(name):
    module = _load(name)
    key, scale = MODULE_KEYS[name]
    metric = cgm_metrics.get_metric(name, lang="python")
    options = {"lang": "python"} if name == "codebleu" else {}  # CodeBLEU requires lang

    @SETTINGS
    @given(batch=batches(max_items=3))
    def check(batch):
        predictions, references = batch
        result = module.compute(predictions=predictions, references=references,
                                return_per_sample=True, **options)
        assert _in_range(result[key], scale), result
        scores = result[SCORES_KEY.get(name, "scores")]
        assert len(scores) == len(predictions)
        assert all(_in_range(v, scale) for v in scores), scores
        # the module gives the library's numbers (one path per number)
        library = metric.compute(predictions, references, True)
        assert result[key] == pytest.approx(library["score"], abs=1e-12)
        assert scores == pytest.approx(library["per_item"], abs=1e-12)
        with pytest.raises(ValueError, match="differ in length"):
            module.compute(predictions=predictions, references=references + [["x"]], **options)

    check()


def test_paired_significance_properties():
    module = _load("paired_significance")

    @settings(max_examples=12, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(batch=batches(max_items=4), other=st.lists(CODE, min_size=4, max_size=4),
           metric=st.sampled_from(["chrf_code", "edit_sim", "bleu"]))
    def check(batch, other, metric):
        predictions, references = batch
        if len(predictions) < 2:
            predictions, references = predictions * 2, references * 2
        result = module.compute(predictions_a=predictions, predictions_b=other[: len(predictions)],
                                references=references, metric=metric, n_resamples=50)
        assert 0.0 <= result["p_value"] <= 1.0
        for key in ("score_a", "score_b", "delta"):
            assert math.isfinite(result[key]), result
        assert result["delta"] == pytest.approx(result["score_b"] - result["score_a"], abs=1e-9)
        assert result["n_items"] == len(predictions)

    check()


@needs_sandbox
def test_code_eval_properties(monkeypatch):
    """code_eval on random candidates (unicode noise, code that does not parse, right and
    wrong solutions, early exits): no crash, one result per candidate in order, a candidate
    passes exactly when it is a right solution, and pass@k is the unbiased estimator of
    those outcomes."""
    monkeypatch.setenv("HF_ALLOW_CODE_EVAL", "1")
    module = _load("code_eval")
    right = "def f(x):\n    return x + 1\n"
    known = [right, "def f(x):\n    return x\n", "import sys\ndef f(x):\n    return x\nsys.exit(0)\n",
             "def f(x)\n    return x + 1\n"]
    candidate = st.one_of(st.sampled_from(known), st.text(max_size=40))

    @settings(SETTINGS, max_examples=6)
    @given(tasks=st.lists(st.lists(candidate, min_size=2, max_size=3), min_size=1, max_size=2))
    def check(tasks):
        pass_at_k, results = module.compute(predictions=tasks,
                                            references=["assert f(1) == 2"] * len(tasks),
                                            k=[1, 2], num_workers=2, timeout=5.0)
        for task_id, candidates in enumerate(tasks):
            outcomes = [record["passed"] for _, record in results[task_id]]
            assert [c for c, _ in results[task_id]] == list(range(len(candidates)))
            assert outcomes == [c == right for c in candidates]
        n = np.array([len(c) for c in tasks])
        c = np.array([sum(x == right for x in cands) for cands in tasks])
        for k in (1, 2):
            expected = np.mean([1.0 if n_i - c_i < k else
                                1.0 - math.comb(int(n_i - c_i), k) / math.comb(int(n_i), k)
                                for n_i, c_i in zip(n, c, strict=True)])
            assert pass_at_k[f"pass@{k}"] == pytest.approx(expected, abs=1e-12)

    check()
