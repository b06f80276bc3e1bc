"""Significance engine: parity with sacrebleu's PairedTest, scipy, and worked examples."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
import scipy.stats
from conftest import shared_data
from sacrebleu.metrics import BLEU, CHRF
from sacrebleu.significance import PairedTest

from cgm_metrics import get_metric
from cgm_metrics.pipeline.metric import MeanOfItems
from cgm_metrics.significance import (
    benjamini_hochberg,
    bootstrap_ci,
    compare,
    holm,
    mcnemar_exact,
    minimum_detectable_difference,
    paired_effect_size,
    paired_test,
    paired_test_texts,
    wilcoxon_test,
)


def SacrebleuBleu():  # noqa: N802 - sacrebleu's BLEU is the registry's bleu with 13a tokens
    return get_metric("bleu", tokenize="13a")


def SacrebleuChrf():  # noqa: N802 - sacrebleu's chrF is the registry's chrf_code
    return get_metric("chrf_code")


def _statistics_of(metric, systems, references):
    return [metric.statistics(hyps, references) for hyps in systems]


class Mean(MeanOfItems):
    name = "mean"

    def item_values(self, predictions, references):
        return [float(p == r[0]) for p, r in zip(predictions, references, strict=True)]


def _rows(values):
    values = np.asarray(values, dtype=np.float64)
    return np.column_stack([values, np.ones_like(values)])


def _hearthstone():
    rows = [json.loads(line) for line in shared_data("hearthstone", "hs.graded.jsonl").open()]
    by_system: dict[str, dict[int, dict]] = {}
    for row in rows:
        by_system.setdefault(row["system"], {})[row["item"]] = row
    items = sorted(by_system["gcnn"])
    refs = [by_system["gcnn"][i]["references"][0] for i in items]
    a = [by_system["gcnn"][i]["prediction"] for i in items]
    b = [by_system["nl2code"][i]["prediction"] for i in items]
    grades = ([by_system["gcnn"][i]["grade"] for i in items], [by_system["nl2code"][i]["grade"] for i in items])
    return a, b, refs, grades


def _synthetic(n=400, seed=3):
    rng = random.Random(seed)
    vocab = ["".join(rng.choice("abcdefghij_()=+") for _ in range(rng.randint(1, 6))) for _ in range(300)]
    refs = [" ".join(rng.choice(vocab) for _ in range(rng.randint(4, 30))) for _ in range(n)]

    def noisy(text, p):
        return " ".join(w if rng.random() > p else rng.choice(vocab) for w in text.split())

    return [noisy(r, 0.3) for r in refs], [noisy(r, 0.34) for r in refs], refs


def _corpora():
    return {"hearthstone": _hearthstone()[:3], "synthetic": _synthetic()}


@pytest.mark.parametrize("corpus", ["hearthstone", "synthetic"])
@pytest.mark.parametrize("ours,theirs", [(SacrebleuBleu, BLEU), (SacrebleuChrf, CHRF)])
def test_statistics_equal_sacrebleu(corpus, ours, theirs):
    a, b, refs = _corpora()[corpus]
    stats = _statistics_of(ours(), [a, b], [[r] for r in refs])
    for hyps, got in zip([a, b], stats, strict=True):
        expected = np.asarray(theirs()._extract_corpus_statistics(hyps, [refs]), dtype=np.float64)
        assert np.array_equal(got, expected)
        assert ours().corpus_score(got) == pytest.approx(theirs().corpus_score(hyps, [refs]).score, abs=1e-9)


@pytest.mark.parametrize("corpus", ["hearthstone", "synthetic"])
@pytest.mark.parametrize("ours,theirs", [(SacrebleuBleu, BLEU), (SacrebleuChrf, CHRF)])
@pytest.mark.parametrize("test_type,method", [("bs", "paired_bootstrap"), ("ar", "approximate_randomization")])
def test_parity_with_sacrebleu_paired_test(corpus, ours, theirs, test_type, method):
    a, b, refs = _corpora()[corpus]
    signatures, scores = PairedTest(
        [("a", a), ("b", b)], {"m": theirs()}, references=[refs], test_type=test_type,
        n_ar_confidence=1000 if test_type == "ar" else -1,
    )()
    key = next(k for k in scores if k != "System")
    baseline, system = scores[key]
    result = paired_test_texts(a, b, refs, metric=ours(), method=method)
    assert result.method == method
    assert result.n_resamples == (1000 if test_type == "bs" else 10000)
    assert result.p_value == system.p_value
    assert result.score_a == pytest.approx(baseline.score, abs=1e-9)
    assert result.score_b == pytest.approx(system.score, abs=1e-9)
    # sacrebleu scores bootstrap resamples from float32 statistics: agreement to float32 precision
    assert result.mean_a == pytest.approx(float(baseline.mean), abs=1e-4)
    assert result.half_width_a == pytest.approx(float(baseline.ci), abs=1e-4)
    if test_type == "bs":
        assert result.mean_b == pytest.approx(float(system.mean), abs=1e-4)
        assert result.half_width_b == pytest.approx(float(system.ci), abs=1e-4)
    assert "seed:12345" in result.signature and "version" in result.signature


def test_module_names_bleu_and_chrf_are_sacrebleu():
    a, b, refs = _hearthstone()[:3]
    assert paired_test_texts(a, b, refs, metric="bleu").score_a == pytest.approx(
        BLEU().corpus_score(a, [refs]).score, abs=1e-9
    )
    assert paired_test_texts(a, b, refs, metric="chrf").score_b == pytest.approx(
        CHRF().corpus_score(b, [refs]).score, abs=1e-9
    )


def test_multiple_references_use_sacrebleu_extraction():
    a, b, refs = _synthetic(50)
    refs2 = [[r, r.upper()] for r in refs]
    stats = SacrebleuChrf().statistics(a, refs2)
    expected = CHRF()._extract_corpus_statistics(a, [[r[0] for r in refs2], [r[1] for r in refs2]])
    assert np.array_equal(stats, np.asarray(expected, dtype=np.float64))


def test_bootstrap_ci_matches_sacrebleu_corpus_score():
    a, _, refs = _hearthstone()[:3]
    metric = SacrebleuChrf()
    score, low, high = bootstrap_ci(metric.statistics(a, [[r] for r in refs]), metric)
    expected = CHRF().corpus_score(a, [refs], n_bootstrap=1000)
    assert score == pytest.approx(expected.score, abs=1e-9)
    assert 0.5 * (high - low) == pytest.approx(float(expected._ci), abs=1e-4)


def test_identical_systems_have_p_value_one():
    a, _, refs = _hearthstone()[:3]
    for method in ("paired_bootstrap", "approximate_randomization"):
        result = paired_test_texts(a, a, refs, metric="chrf", method=method, n_resamples=200)
        assert result.p_value == 1.0 and not result.significant
        assert result.verdict == "no detectable difference"


def test_human_agreement_vocabulary():
    a, b, refs, (grades_a, grades_b) = _hearthstone()
    result = paired_test_texts(a, b, refs, metric="chrf", human_a=grades_a, human_b=grades_b)
    human = result.to_dict()["human"]
    assert human["delta"] == pytest.approx(np.mean(grades_b) - np.mean(grades_a))
    expected = "agree" if result.significant == human["significant"] else (
        "type_i" if result.significant else "type_ii")
    assert human["agreement"] == expected
    # a metric that sees a clear difference where the grades are equal: a Type-I error
    clear = paired_test(_rows([0] * 30 + [1] * 10), _rows([1] * 40), Mean(),
                        human_a=[3] * 40, human_b=[3] * 40)
    assert clear.significant and clear.human["agreement"] == "type_i"


def test_holm_and_bh_worked_example():
    p = [0.01, 0.04, 0.03, 0.005]
    assert holm(p) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert benjamini_hochberg(p) == pytest.approx([0.02, 0.04, 0.04, 0.02])
    assert benjamini_hochberg(p) == pytest.approx(scipy.stats.false_discovery_control(p))


def test_compare_systems_pairs_equal_paired_tests():
    a, b, refs = _synthetic(200)
    c = list(refs)
    metric = SacrebleuChrf()
    stats = dict(zip(["a", "b", "c"], _statistics_of(metric, [a, b, c], [[r] for r in refs]), strict=True))
    result = compare(stats, metric, correction="holm")
    assert [(p.system_a, p.system_b) for p in result.pairs] == [("a", "b"), ("a", "c"), ("b", "c")]
    raw = []
    for pair in result.pairs:
        single = paired_test(stats[pair.system_a], stats[pair.system_b], metric)
        assert pair.p_value == single.p_value and pair.delta == single.delta
        raw.append(single.p_value)
    assert [p.adjusted_p_value for p in result.pairs] == pytest.approx(holm(raw))
    assert result.pairs[1].verdict == "c > a, significant"
    assert result.to_dict()["scores"]["c"]["score"] == pytest.approx(100.0)
    bh = compare(stats, metric, correction="bh", method="approximate_randomization", n_resamples=500)
    assert [p.adjusted_p_value for p in bh.pairs] == pytest.approx(benjamini_hochberg([p.p_value for p in bh.pairs]))


@pytest.mark.parametrize("n,method", [(20, "exact"), (300, "approx")])
def test_wilcoxon_against_scipy(n, method):
    rng = np.random.default_rng(1)
    a = rng.normal(size=n)
    b = a + rng.normal(0.2, 1.0, size=n)
    if method == "approx":
        a, b = np.round(a, 1), np.round(b, 1)  # ties and zeros
    ours = wilcoxon_test(a, b)
    theirs = scipy.stats.wilcoxon(a, b, method=method, zero_method="wilcox")
    assert ours.statistic == pytest.approx(theirs.statistic)
    assert ours.p_value == pytest.approx(theirs.pvalue, rel=1e-9)


def test_effect_size_worked_example():
    effect = paired_effect_size([1, 2, 3, 4], [2, 2, 5, 3])  # differences 1, 0, 2, -1
    assert effect["mean_difference"] == pytest.approx(0.5)
    assert effect["cohens_dz"] == pytest.approx(0.5 / np.std([1, 0, 2, -1], ddof=1))
    assert effect["rank_biserial"] == pytest.approx((1.5 + 3 - 1.5) / 6)


@pytest.mark.parametrize("a_only,b_only", [(3, 11), (0, 5), (7, 7), (40, 25)])
def test_mcnemar_against_scipy_binomtest(a_only, b_only):
    passed_a = [True] * a_only + [False] * b_only + [True] * 10 + [False] * 4
    passed_b = [False] * a_only + [True] * b_only + [True] * 10 + [False] * 4
    result = mcnemar_exact(passed_a, passed_b)
    expected = scipy.stats.binomtest(a_only, a_only + b_only, 0.5).pvalue
    assert (result.only_a_passes, result.only_b_passes, result.both_pass) == (a_only, b_only, 10)
    assert result.p_value == pytest.approx(expected, rel=1e-12)


def test_minimum_detectable_difference_worked_example():
    a = _rows([0.0] * 100)
    b = _rows([0.0, 1.0] * 50)
    # sd of the differences (ddof=1) = sqrt(0.25 * 100 / 99); z(0.975) + z(0.8) = 2.8015852
    expected = 2.8015852 * np.sqrt(0.25 * 100 / 99) / np.sqrt(100)
    result = minimum_detectable_difference(a, b, Mean(), method="normal")
    assert result.minimum_difference == pytest.approx(expected, rel=1e-6)
    assert "with 100 items" in result.message
    projected = minimum_detectable_difference(a, b, Mean(), method="normal", n_items=400)
    assert projected.minimum_difference == pytest.approx(expected / 2, rel=1e-6)
    boot = minimum_detectable_difference(a, b, Mean())
    assert boot.minimum_difference == pytest.approx(expected, rel=0.15)


def test_bad_inputs():
    a, b = _rows([0, 1, 1]), _rows([1, 1, 0])
    with pytest.raises(ValueError, match="same items"):
        paired_test(a, _rows([1, 1]), Mean())
    with pytest.raises(ValueError, match="at least 2"):
        paired_test(a[:1], b[:1], Mean())
    with pytest.raises(ValueError, match="n_resamples"):
        paired_test(a, b, Mean(), n_resamples=0)
    for alpha in (0, 1, 1.5):
        with pytest.raises(ValueError, match="alpha"):
            paired_test(a, b, Mean(), alpha=alpha)
    with pytest.raises(ValueError, match="method"):
        paired_test(a, b, Mean(), method="t-test")
    with pytest.raises(TypeError, match="metric"):
        paired_test(a, b, "chrf")
    with pytest.raises(ValueError, match="Unknown metric"):
        paired_test_texts(["a", "b"], ["a", "c"], ["a", "b"], metric="nope")
    with pytest.raises(ValueError, match="references"):
        paired_test_texts(["a", "b"], ["a", "c"], ["a"], metric="chrf")
    with pytest.raises(ValueError, match="correction"):
        compare({"a": a, "b": b}, Mean(), correction="bonferroni")


def test_generic_evaluate_module_path_matches_statistics_path():
    import evaluate
    from conftest import METRICS_DIR

    module = evaluate.load(str(METRICS_DIR / "paired_significance"))
    assert module.name == "paired_significance"
    chrf_module = _EvaluateLikeChrf()
    a, b, refs = _synthetic(30)
    slow = paired_test_texts(a, b, refs, metric=chrf_module, n_resamples=50)
    fast = paired_test_texts(a, b, refs, metric="chrf", n_resamples=50)
    assert slow.p_value == fast.p_value
    assert slow.ci_delta == pytest.approx(fast.ci_delta, abs=1e-9)


class _EvaluateLikeChrf:
    """Stands in for a loaded evaluate module (compute + features), backed by sacrebleu."""

    name = "chrf"
    features = None

    def compute(self, predictions, references):
        return {"score": CHRF().corpus_score(predictions, [references]).score}


# ---------------------------------------------------------------- bounded resampling


@pytest.mark.parametrize("n_items", [1, 2, 7, 32, 33, 1000, 4099])
def test_draws_in_blocks_are_numpys_whole_draws(n_items):
    """Blocks of any size continue one random stream: together they are the very arrays
    sacrebleu draws at once (``choice(n, (R, n))``, ``integers(2, (R, n), dtype=bool)``)."""
    from cgm_metrics.significance import resampling

    for n_rows in (1, 5, 97, 1000):
        whole_indices = np.random.default_rng(12345).choice(n_items, size=(n_rows, n_items))
        whole_flags = np.random.default_rng(12345).integers(2, size=(n_rows, n_items),
                                                            dtype=bool)
        for draws, whole in ((resampling.bootstrap_draws(n_items, n_rows, 12345), whole_indices),
                             (resampling.randomization_draws(n_items, n_rows, 12345), whole_flags)):
            for rows in (None, 1, 3, 64):
                blocks = list(draws.chunks(rows))
                assert [b[0] for b in blocks] == sorted(b[0] for b in blocks)
                assert np.array_equal(np.concatenate([b[2] for b in blocks]), whole)
            assert np.array_equal(draws.array(), whole)
    unseeded = resampling.bootstrap_draws(n_items, 20, None)
    assert np.array_equal(unseeded.array(), unseeded.array())  # one set of draws per object


def test_resampling_memory_stays_bounded():
    """20,000 items x 2,000 resamples: the whole index array alone would take 320 MB."""
    import tracemalloc

    rng = np.random.default_rng(0)
    a, b = _rows(rng.random(20_000)), _rows(rng.random(20_000))
    tracemalloc.start()
    try:
        paired_test(a, b, Mean(), n_resamples=2000)
        paired_test(a, b, Mean(), n_resamples=2000, method="approximate_randomization")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 100 * 2**20, f"peak {peak / 2**20:.0f} MB"


def test_a_request_that_cannot_fit_is_a_user_error_that_says_what_fits():
    from cgm_metrics.base.io import InputError
    from cgm_metrics.significance.resampling import ResamplingBudgetError, check_budget

    a, b = _rows([0, 1, 1, 0]), _rows([1, 1, 0, 0])
    with pytest.raises(ResamplingBudgetError, match=r"n_resamples <= 12,500,000 here"):
        paired_test(a, b, Mean(), n_resamples=10**9)
    with pytest.raises(ValueError, match=r"too large for 4 items"):
        compare({"a": a, "b": b, "c": a}, Mean(), n_resamples=10**9)
    # the input: 2.17 M items; the draws (time) bound it
    with pytest.raises(InputError, match=r"2\.17e\+15 item draws .* n_resamples <= 46,082"):
        check_budget(2_170_000, 10**9)
    check_budget(1_000_000, 1000)  # the benchmark's request fits
    # the library refuses before scoring the texts
    with pytest.raises(ResamplingBudgetError):
        paired_test_texts(["a", "b"], ["a", "c"], ["a", "b"], metric="chrf", n_resamples=10**9)


def test_cli_refuses_too_many_resamples_before_scoring(tmp_path):
    import subprocess
    import sys

    refs = tmp_path / "refs.txt"
    refs.write_text("x = 1\ny = 2\nz = 3\n")
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("x = 1\ny = 3\nz = 3\n")
    b.write_text("x = 2\ny = 2\nz = 4\n")
    for args in (["compare", "--references", refs, a, b], ["score", "--references", refs,
                                                              "--predictions", a]):
        result = subprocess.run(
            [sys.executable, "-m", "cgm_metrics", *map(str, args), "--metrics", "chrf_code",
             "--n-resamples", "1000000000"], capture_output=True, text=True, timeout=300)
        assert result.returncode == 1, result.stderr
        assert "n_resamples <= " in result.stderr and "internal error" not in result.stderr
