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


# ------------------------------------------------------------------ every input shape
# evaluate casts whatever follows a string-typed first item to its printed string (a number
# becomes "5", a list nested one level too deep "['x = a + b']") and picks the features from
# the first item only. Each shape it lets through is either scored as documented (the same
# number as plain lists of strings) or refused with an error naming the argument and the
# position.

SHAPE_MODULES = ["chrf_code", "codebleu", "ruby", "edit_sim", "paired_significance"]
_MODULES: dict = {}


def _module(name):
    if name not in _MODULES:
        _MODULES[name] = _load(name)
    return _MODULES[name]


def _compute(name, predictions, references, **options):
    """compute() of a module with its required options; paired_significance compares the
    predictions with themselves (its predictions_a and predictions_b take the same checks)."""
    module = _module(name)
    if name == "codebleu":
        options.setdefault("lang", "python")
    if name == "paired_significance":
        return module.compute(predictions_a=predictions, predictions_b=predictions,
                              references=references, metric="chrf", n_resamples=50, **options)
    return module.compute(predictions=predictions, references=references, **options)


REFUSED = [
    # (predictions, references, error, the argument and position the message names)
    (["x = a + b"], [[["x = a + b"]]], TypeError, r"`references\[0\]\[0\]` is a list, not a "
     r"string: nested one level too deep"),
    (["x = 5", "x = 5"], ["x = 5", 5], TypeError, r"`references\[1\]` is int, not a string"),
    (["x = 5", "x = 5"], [5, "x = 5"], TypeError, r"`references\[0\]` is int"),
    (["x", "y"], ["x", [["y"]]], TypeError, r"`references\[1\]\[0\]` is a list"),
    (["x", "y"], [["x"], ["y", ["z"]]], TypeError, r"`references\[1\]\[1\]` is a list"),
    (["x"], [["x", 5]], TypeError, r"`references\[0\]\[1\]` is int, not a string"),
    (["x"], [["x", None]], TypeError, r"`references\[0\]\[1\]` is None"),
    (["x"], [None], TypeError, r"`references\[0\]` is None"),
    (["x"], [{"code": "x"}], TypeError, r"`references\[0\]` is dict"),
    (["x"], [b"x"], TypeError, r"`references\[0\]` is bytes"),
    (["x"], [[]], ValueError, r"`references\[0\]` is an empty list"),
    (["x", "y"], [["x"], []], ValueError, r"`references\[1\]` is an empty list"),
    (["x = 1", 5], ["x = 1", "x = 1"], TypeError, r"`predictions\[1\]` is int, not a string"),
    ([5], ["5"], TypeError, r"`predictions\[0\]` is int"),
    ([None], ["x"], TypeError, r"`predictions\[0\]` is None"),
    ([1.5], ["1.5"], TypeError, r"`predictions\[0\]` is float"),
    ([float("nan")], ["x"], TypeError, r"`predictions\[0\]` is float"),
    ([True], ["True"], TypeError, r"`predictions\[0\]` is bool"),
    ([b"x"], ["x"], TypeError, r"`predictions\[0\]` is bytes"),
    ([{"code": "x"}], ["x"], TypeError, r"`predictions\[0\]` is dict"),
    ([["x"]], ["x"], TypeError, r"`predictions\[0\]` is a list, not a string"),
    (np.array([1, 2]), ["1", "2"], TypeError, r"`predictions\[0\]` is int"),
    (np.array([["x"]]), ["x"], TypeError, r"`predictions\[0\]` is a list"),
    (np.array("x = 1"), ["x = 1"], TypeError, r"`predictions` must be a list .* got ndarray"),
    ({"x"}, ["x"], TypeError, r"`predictions` must be a list .* got set"),
    ({"a": "x"}, ["x"], TypeError, r"`predictions` must be a list .* got dict"),
    (5, ["x"], TypeError, r"`predictions` must be a list .* got int"),
    (b"x = 1", ["x = 1"], TypeError, r"`predictions` must be a list .* got a single bytes"),
    ((s for s in ["x"]), ["x"], TypeError, r"`predictions` must be a list .* got generator"),
    (["x"], {"a": "x"}, TypeError, r"`references` must be a list .* got dict"),
    (["x"], None, TypeError, r"`references` is missing \(None\) while `predictions`"),
    (None, ["x"], TypeError, r"`predictions` is missing \(None\)"),
]


@pytest.mark.parametrize("name", SHAPE_MODULES)
@pytest.mark.parametrize(("predictions", "references", "error", "text"), REFUSED,
                         ids=[f"refused{i}" for i in range(len(REFUSED))])
def test_every_module_refuses_a_shape_it_cannot_score(name, predictions, references, error,
                                                      text):
    if name == "paired_significance":
        # both systems get the predictions: the message names the first one checked
        text = text.replace("`predictions", "`predictions_a")
        if predictions is None:
            text = r"`predictions_a`, `predictions_b` are missing \(None\)"
        elif references is None:
            text = r"`references` is missing \(None\) while `predictions_a`, `predictions_b`"
    with pytest.raises(error, match=text):
        _compute(name, predictions, references)


def test_the_checks_come_before_evaluate_in_add_batch_and_add():
    module = _module("chrf_code")
    with pytest.raises(TypeError, match=r"`references\[1\]` is int"):
        module.add_batch(predictions=["x = 5", "x = 5"], references=["x = 5", 5])
    with pytest.raises(TypeError, match=r"`reference` is int, not a string"):
        module.add(prediction="x = 5", reference=5)
    with pytest.raises(TypeError, match=r"`reference\[0\]` is a list, not a string: nested"):
        module.add(prediction="x = 5", reference=[["x = 5"]])
    with pytest.raises(TypeError, match=r"`prediction` is a list, not a string"):
        module.add(prediction=["x = 5"], reference="x = 5")
    with pytest.raises(TypeError, match=r"`reference` is missing"):
        module.add(prediction="x = 5")
    # nothing was written by the refused calls: the module still scores a clean batch
    module.add(prediction="x = 5", reference="x = 5")
    assert module.compute()["score"] == 100.0


def _chrf_peer(predictions, references):
    """sacrebleu's corpus chrF; ``references`` one list of references per item."""
    from sacrebleu.metrics import CHRF

    depth = max(len(refs) for refs in references)
    streams = [[refs[k] if k < len(refs) else None for refs in references] for k in range(depth)]
    return CHRF().corpus_score(list(predictions), streams).score


ACCEPTED = [
    # (label, predictions, references, the same input as plain lists)
    ("numpy arrays", np.array(["x = a + b", "y = 2"]), np.array(["x = a + b", "y = 3"]),
     (["x = a + b", "y = 2"], [["x = a + b"], ["y = 3"]])),
    ("2-d numpy references", np.array(["x = a + b", "y = 2"]),
     np.array([["x = a + b", "x = b + a"], ["y = 3", "y = 1"]]),
     (["x = a + b", "y = 2"], [["x = a + b", "x = b + a"], ["y = 3", "y = 1"]])),
    ("tuples", ("x = a + b", "y = 2"), (("x = a + b",), ("y = 3", "y = 2")),
     (["x = a + b", "y = 2"], [["x = a + b"], ["y = 3", "y = 2"]])),
    ("a list after a string", ["x = a + b", "y = 2"], ["x = a + b", ["y = 3", "y = 2"]],
     (["x = a + b", "y = 2"], [["x = a + b"], ["y = 3", "y = 2"]])),
    ("a string after a list", ["x = a + b", "y = 2"], [["x = a + b", "z"], "y = 3"],
     (["x = a + b", "y = 2"], [["x = a + b", "z"], ["y = 3"]])),
    ("numpy string scalars", [np.str_("x = a + b"), "y"], [np.str_("x = a + c"), "y"],
     (["x = a + b", "y"], [["x = a + c"], ["y"]])),
    ("empty strings", ["", "y = 2"], ["x = 1", ""], (["", "y = 2"], [["x = 1"], [""]])),
]


@pytest.mark.parametrize("name", SHAPE_MODULES)
@pytest.mark.parametrize(("label", "predictions", "references", "plain"), ACCEPTED,
                         ids=[case[0] for case in ACCEPTED])
def test_every_module_scores_an_accepted_shape_as_plain_lists(name, label, predictions,
                                                             references, plain):
    result = _compute(name, predictions, references)
    expected = _compute(name, *plain)
    assert result == expected
    if name == "chrf_code":
        assert result["score"] == pytest.approx(_chrf_peer(*plain), abs=1e-9)


@pytest.mark.parametrize("name", ["chrf_code", "codebleu"])
def test_shapes_agree_with_the_peer(name):
    """A pandas Series, a datasets Column and empty strings score the peer's number."""
    import datasets
    import pandas as pd

    predictions = ["def f(x):\n    return x + 1", "", "y = 2"]
    references = [["def f(y):\n    return y + 1", "def f(x): return x"], ["x = 1"], [""]]
    table = datasets.Dataset.from_dict({"p": predictions, "r": references})
    for preds, refs in ((pd.Series(predictions), pd.Series(references, dtype=object)),
                        (table["p"], table["r"])):
        result = _compute(name, preds, refs)
        if name == "chrf_code":
            assert result["score"] == pytest.approx(_chrf_peer(predictions, references), abs=1e-9)
        else:
            from codebleu import calc_codebleu

            peer = calc_codebleu(references, predictions, "python")
            assert result["codebleu"] == pytest.approx(peer["codebleu"], abs=1e-12)


def test_references_may_change_shape_between_batches():
    """The first batch's shape no longer fixes the features: one reference per item, then
    several, then one again, all scored (sacrebleu's number)."""
    module = _module("chrf_code")
    module.add_batch(predictions=["x = a + b"], references=["x = a + b"])
    module.add_batch(predictions=["y = 2"], references=[["y = 3", "y = 2"]])
    module.add(prediction="z = 1", reference="z = 0")
    expected = _chrf_peer(["x = a + b", "y = 2", "z = 1"],
                          [["x = a + b"], ["y = 3", "y = 2"], ["z = 0"]])
    assert module.compute()["score"] == pytest.approx(expected, abs=1e-9)


def test_paired_significance_names_the_system_argument():
    module = _module("paired_significance")
    refs = ["x = 1", "y = 2", "z = 3"]
    with pytest.raises(TypeError, match=r"`predictions_b\[0\]` is int, not a string"):
        module.compute(predictions_a=refs, predictions_b=[1, 2, 3], references=refs,
                       metric="chrf")
    with pytest.raises(TypeError, match=r"`predictions_b\[2\]` is int"):
        module.compute(predictions_a=refs, predictions_b=["x = 1", "y = 2", 3], references=refs,
                       metric="chrf")
    with pytest.raises(TypeError, match=r"`predictions_a` is missing \(None\)"):
        module.compute(predictions_a=None, predictions_b=refs, references=refs, metric="chrf")
    with pytest.raises(TypeError, match=r"`predictions` is not an input of this module; its "
                                        r"inputs are `predictions_a`, `predictions_b`"):
        module.compute(predictions=refs, references=refs, metric="chrf")
    with pytest.raises(ValueError, match=r"Nothing to compute: pass predictions_a=\[\.\.\.\]"):
        module.compute(metric="chrf")


def test_the_library_checks_name_the_argument_and_position():
    from cgm_metrics.core.inputs import check_inputs
    from cgm_metrics.significance import paired_test_texts

    refs = ["x = 1", "y = 2", "z = 3"]
    with pytest.raises(TypeError, match=r"`predictions_b\[1\]` is int"):
        paired_test_texts(refs, ["x = 1", 2, "z = 3"], refs, metric="chrf")
    with pytest.raises(TypeError, match=r"`predictions_a` must be a list .* got None"):
        paired_test_texts(None, refs, refs, metric="chrf")
    with pytest.raises(TypeError, match=r"`references\[0\]\[0\]` is a list, not a string"):
        check_inputs(["x"], [[["x"]]])
    with pytest.raises(TypeError, match=r"`predictions` must be a list .* got ndarray"):
        check_inputs(np.array("abc"), ["abc"])  # a 0-d array is one string, not 3 items
    with pytest.raises(TypeError, match=r"`predictions` must be a list .* got a single bytes"):
        check_inputs(b"ab", ["a", "b"])
    assert check_inputs(np.array(["a", "b"]), np.array([["a", "c"], ["b", "d"]])) == (
        ["a", "b"], [["a", "c"], ["b", "d"]])


def test_code_eval_refuses_a_test_program_that_is_not_a_string():
    """code_eval's tests are one string per task: a number after a string is refused before
    anything runs (evaluate would run the program "5" as the test and count a pass)."""
    module = _module("code_eval")
    for references, text in ((["assert f() == 1", 5], r"`references\[1\]` is int"),
                             ([["assert f() == 1"]], r"`references\[0\]` is a list"),
                             ([None], r"`references\[0\]` is None")):
        with pytest.raises(TypeError, match=text):
            module.compute(predictions=[["def f(): return 1"]] * len(references),
                           references=references, k=[1], allow_code_execution=True)
    with pytest.raises(TypeError, match=r"`reference` is int"):
        module.add(prediction=["def f(): return 1"], reference=5)
