"""Input checks of core/inputs.py and of the evaluate modules: a bare string, an empty batch,
numeric options out of range and strings for booleans are clear errors naming the argument,
raised before evaluate's own machinery (which would split a string into characters or fail
with an IndexError on an empty batch)."""

import math

import numpy as np
import pytest
from conftest import METRICS_DIR

from cgm_metrics.core.inputs import check_batch, check_flag, check_int, check_number

LIST_MODULES = ["chrf_code", "codebleu", "ruby", "edit_sim"]
MAIN_SCORE = {"chrf_code": "score", "codebleu": "codebleu", "ruby": "ruby", "edit_sim": "edit_sim"}


def _load(name):
    import evaluate

    return evaluate.load(str(METRICS_DIR / name))


@pytest.fixture(scope="module")
def chrf_code():
    return _load("chrf_code")


@pytest.mark.parametrize("name", LIST_MODULES)
def test_string_and_empty_batches_are_refused_by_every_module(name):
    module = _load(name)
    with pytest.raises(TypeError, match=r"`predictions` must be a list .* predictions=\[\.\.\.\]"):
        module.compute(predictions="x = 1", references="x = 1")
    with pytest.raises(ValueError, match="`predictions`, `references` are empty"):
        module.compute(predictions=[], references=[])
    with pytest.raises(TypeError, match="`references` must be a list"):
        module.add_batch(predictions=["x = 1"], references="x = 1")
    with pytest.raises(TypeError, match="`return_per_sample` must be True or False, got 'yes'"):
        module.compute(predictions=["x = 1"], references=["x = 1"], return_per_sample="yes")
    # the checks let real input through: identical code scores the top of the range, on the
    # main score of each module (CodeBLEU's n-gram parts need 4 tokens to reach 1, as in the
    # codebleu package, so the snippet has 5)
    module.add_batch(predictions=["x = a + b"], references=[["x = a + b"]])
    result = module.compute(**({"lang": "python"} if name == "codebleu" else {}))
    assert result[MAIN_SCORE[name]] == (100.0 if name == "chrf_code" else 1.0), result


def test_paired_significance_refuses_a_string_for_a_system():
    module = _load("paired_significance")
    with pytest.raises(TypeError, match="`predictions_b` must be a list"):
        module.compute(predictions_a=["x = 1"], predictions_b="x = 1", references=["x = 1"],
                       metric="chrf")
    with pytest.raises(ValueError, match="empty"):
        module.compute(predictions_a=[], predictions_b=[], references=[], metric="chrf")


@pytest.mark.parametrize(
    ("options", "error", "text"),
    [
        ({"beta": math.inf}, ValueError, "`beta` must be a finite number in (0, 1000], got inf"),
        ({"beta": math.nan}, ValueError, "`beta` must be a finite number"),
        ({"beta": 0}, ValueError, "`beta`"),
        ({"beta": 1001}, ValueError, "`beta`"),
        ({"beta": "2"}, TypeError, "`beta` must be a number"),
        ({"char_order": 10**9}, ValueError, "`char_order` must be an integer from 0 to 20"),
        ({"char_order": 6.0}, TypeError, "`char_order`"),
        ({"word_order": -1}, ValueError, "`word_order` must be an integer from 0 to 10"),
        ({"word_order": True}, TypeError, "`word_order`"),
        ({"lowercase": "false"}, TypeError, "`lowercase`"),
    ],
)
def test_chrf_options_are_range_checked(chrf_code, options, error, text):
    with pytest.raises(error, match=__import__("re").escape(text)):
        chrf_code.compute(predictions=["x = 1"], references=["x = 1"], **options)


def test_chrf_options_at_their_bounds_score_like_sacrebleu(chrf_code):
    from sacrebleu.metrics import CHRF

    hyps = ["def f(x):\n    return x + 1", "print('hi')"]
    refs = ["def g(y):\n    return y - 1", "print('hello')"]
    for options in ({"char_order": 20, "word_order": 10, "beta": 1000},
                    {"char_order": 0, "word_order": 1, "beta": 0.001},
                    {"char_order": 1, "word_order": 0, "beta": np.float64(3.5)}):
        ours = chrf_code.compute(predictions=hyps, references=refs, **options)["score"]
        peer = CHRF(**{k: (float(v) if k == "beta" else v) for k, v in options.items()})
        assert ours == pytest.approx(peer.corpus_score(hyps, [refs]).score, abs=1e-9), options


def test_checks():
    assert check_flag(np.bool_(True), "x") is True
    with pytest.raises(TypeError, match="`x` must be True or False"):
        check_flag(1, "x")
    assert check_int(np.int64(3), "n", 0, 5) == 3
    with pytest.raises(ValueError, match="from 0 to 5"):
        check_int(6, "n", 0, 5)
    assert check_number(np.float32(0.5), "p", 0, 1, low_open=True) == 0.5
    with pytest.raises(ValueError, match=r"\(0, 1\]"):
        check_number(0, "p", 0, 1, low_open=True)
    with pytest.raises(ValueError, match="differ in length"):
        check_batch({"predictions": ["a"], "references": ["a", "b"]})
    check_batch({"predictions": None, "references": None})  # nothing given: evaluate's call
    check_batch({"predictions": [], "references": []}, empty_ok=True)
