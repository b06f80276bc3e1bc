"""chrf_code against sacrebleu's CHRF itself, the published Out of the BLEU numbers and the
Hearthstone per-item scores; code options; bad inputs."""

from __future__ import annotations

import json
import math
import random
import sys

import numpy as np
import pytest
from conftest import shared_data, stdlib_pairs
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import CHRF

from cgm_metrics import get_metric, score
from cgm_metrics.maths.chrf import ChrfCodeMetric, _char_matches, _char_matches_counter

OPTIONS = [
    {},
    {"char_order": 1},
    {"char_order": 3},
    {"char_order": 9},
    {"word_order": 2},
    {"word_order": 1, "char_order": 4},
    {"char_order": 0, "word_order": 2},
    {"beta": 1},
    {"beta": 3},
    {"lowercase": True},
    {"whitespace": True},
    {"eps_smoothing": True},
    {"eps_smoothing": True, "word_order": 2, "whitespace": True, "lowercase": True},
]


def _hearthstone():
    path = shared_data("hearthstone", "hs.graded.jsonl")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _sacrebleu(predictions, references, **options):
    """(corpus score, sentence scores) of sacrebleu's CHRF, references padded with None."""
    chrf = CHRF(**options)
    width = max(len(refs) for refs in references)
    streams = [[refs[j] if j < len(refs) else None for refs in references] for j in range(width)]
    corpus = chrf.corpus_score(predictions, streams).score
    sentences = [
        chrf.sentence_score(p, refs).score for p, refs in zip(predictions, references, strict=True)
    ]
    return corpus, sentences


def _ours(predictions, references, **options):
    metric = ChrfCodeMetric(**options)
    stats = metric.statistics(predictions, references)
    return metric.corpus_score(stats), metric.item_scores(stats)


def _assert_parity(predictions, references, **options):
    expected_corpus, expected_sentences = _sacrebleu(predictions, references, **options)
    corpus, sentences = _ours(predictions, references, **options)
    assert corpus == pytest.approx(expected_corpus, abs=1e-9, rel=0)
    np.testing.assert_allclose(sentences, expected_sentences, atol=1e-9, rtol=0)


@pytest.mark.parametrize(
    "options", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default"
)
def test_hearthstone_equals_sacrebleu(options):
    rows = _hearthstone()
    predictions = [row["prediction"] for row in rows]
    references = [row["references"] for row in rows]
    _assert_parity(predictions, references, **options)


@pytest.mark.parametrize("options", OPTIONS[:6] + OPTIONS[9:], ids=str)
def test_hearthstone_multiple_references_equal_sacrebleu(options):
    """Each card against its reference and both systems' outputs (2-3 references, varying)."""
    rows = _hearthstone()
    by_item: dict[int, dict[str, str]] = {}
    for row in rows:
        by_item.setdefault(row["item"], {})[row["system"]] = row["prediction"]
    predictions, references = [], []
    for row in rows:
        others = [by_item[row["item"]][s] for s in ("gcnn", "nl2code") if s != row["system"]]
        refs = others + row["references"] if row["item"] % 2 else row["references"] + others
        if row["item"] % 3 == 0:
            refs = refs + [row["prediction"][::-1]]
        predictions.append(row["prediction"])
        references.append(refs)
    _assert_parity(predictions, references, **options)


@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_stdlib_corpus_equals_sacrebleu(options):
    predictions, references = stdlib_pairs(60, seed=3)
    rng = random.Random(7)
    multi = [
        [ref] + [predictions[rng.randrange(len(predictions))] for _ in range(i % 3)]
        for i, ref in enumerate(references)
    ]
    _assert_parity(predictions, [[r] for r in references], **options)
    _assert_parity(predictions, multi, **options)


_TEXT = st.text(
    alphabet=st.sampled_from(list("ab c\n\tXY.,(_)=") + ["é", "ß", "漢", "字", "\U0001f600"]),
    max_size=30,
)


@settings(max_examples=60, deadline=None)
@given(
    data=st.lists(
        st.tuples(_TEXT, st.lists(_TEXT, min_size=1, max_size=3)), min_size=1, max_size=6
    ),
    option=st.sampled_from(OPTIONS),
)
def test_random_strings_equal_sacrebleu(data, option):
    predictions = [p for p, _ in data]
    references = [refs for _, refs in data]
    _assert_parity(predictions, references, **option)


def test_large_alphabet_uses_counter_path_and_agrees():
    """More than 1023 distinct characters cannot be packed 6 to an int64: Counter path."""
    rng = random.Random(1)
    chars = [chr(0x4E00 + i) for i in range(3000)]
    predictions = ["".join(rng.choice(chars) for _ in range(200)) for _ in range(20)]
    references = [[p[:150] + "".join(rng.choice(chars) for _ in range(40))] for p in predictions]
    _assert_parity(predictions, references)
    hyps = predictions
    refs = [r[0] for r in references]
    owners = np.arange(len(refs))
    np.testing.assert_array_equal(
        _char_matches(hyps, refs, owners, 3), _char_matches_counter(hyps, refs, owners, 3)
    )


def test_vectorised_and_counter_counts_agree_on_code():
    predictions, references = stdlib_pairs(80, seed=5)
    owners = np.repeat(np.arange(40), 2)
    refs = references[:80]
    for order in (1, 4, 6, 8):
        np.testing.assert_array_equal(
            _char_matches(predictions[:40], refs, owners, order),
            _char_matches_counter(predictions[:40], refs, owners, order),
        )


def test_out_of_the_bleu_table5_and_per_item_scores():
    """Table 5 (Hearthstone): ChrF gcnn 80.76, nl2code 80.60; every per-item chrF of the study."""
    rows = _hearthstone()
    published = {"gcnn": 80.76, "nl2code": 80.60}
    for system, value in published.items():
        mine = [row for row in rows if row["system"] == system]
        result = score(
            "chrf_code",
            [row["prediction"] for row in mine],
            [row["references"] for row in mine],
            average="sentence",
            per_item=True,
        )
        assert abs(result["score"] - value) <= 0.01
        for row, item in zip(mine, result["per_item"], strict=True):
            assert round(item / 100, 3) == row["scores"]["chrf"], row["item"]
        # the paper averaged the per-item values after rounding them to 3 decimals
        rounded = [round(item / 100, 3) for item in result["per_item"]]
        assert round(100 * sum(rounded) / len(rounded), 2) == value


def test_sentence_rows_resample_to_mean_of_sentence_chrf():
    predictions, references = stdlib_pairs(60, seed=2)
    corpus = ChrfCodeMetric()
    sentence = ChrfCodeMetric(average="sentence")
    counts = corpus.statistics(predictions, [[r] for r in references])
    rows = sentence.statistics(predictions, [[r] for r in references])
    assert rows.shape == (60, 2)
    np.testing.assert_array_equal(rows[:, 0], corpus.item_scores(counts))
    np.testing.assert_array_equal(rows[:, 1], 1.0)
    indices = np.random.default_rng(0).integers(0, 60, size=(5, 60))
    resampled = rows[indices].sum(axis=1)
    np.testing.assert_allclose(
        sentence.score_from_statistics(resampled), rows[indices, 0].mean(axis=1), rtol=1e-12
    )
    expected = np.mean(_sacrebleu(predictions, [[r] for r in references])[1])
    assert sentence.corpus_score(rows) == pytest.approx(expected, abs=1e-9)


def test_counts_rows_have_sacrebleu_layout():
    metric = ChrfCodeMetric(char_order=2, word_order=1)
    stats = metric.statistics(["ab c"], [["abd"]])
    # hyp "abc": 1-grams 3, 2-grams 2; ref "abd": 3, 2; words hyp [ab, c], ref [abd]
    np.testing.assert_array_equal(stats, [[3, 3, 2, 2, 2, 1, 2, 1, 0]])


def test_statistics_do_not_depend_on_hash_seed():
    import subprocess

    code = (
        "from cgm_metrics.maths.chrf import ChrfCodeMetric;"
        "m=ChrfCodeMetric(word_order=2);"
        "print(repr(m.statistics(['a b c d','x y'],[['a b d','a c'],['y x']]).tolist()))"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={"PYTHONHASHSEED": seed, "PATH": ""},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("0", "1", "2")
    }
    assert len(outputs) == 1


# -- code options -------------------------------------------------------------------------

_COMMENTED = '''def area(radius):
    """Area of a circle."""
    # pi times r squared
    return 3.14159 * radius ** 2  # the formula
'''
_PLAIN = "def area(radius):\n    return 3.14159 * radius ** 2\n"


def test_strip_comments_makes_comments_irrelevant():
    plain = score("chrf_code", [_PLAIN], [_PLAIN], lang="python")["score"]
    assert plain == 100.0
    with_comments = score("chrf_code", [_COMMENTED], [_PLAIN], lang="python")["score"]
    assert with_comments < 90
    stripped = score("chrf_code", [_COMMENTED], [_PLAIN], lang="python", strip_comments=True)[
        "score"
    ]
    assert stripped == 100.0


def test_strip_comments_ruby_and_java():
    ruby = "def add(a, b)\n  # sum\n  a + b\nend\n"
    java = "int add(int a, int b) { /* sum */ return a + b; // done\n}"
    for lang, code, plain in [
        ("ruby", ruby, "def add(a, b)\n  a + b\nend\n"),
        ("java", java, "int add(int a, int b) { return a + b;\n}"),
    ]:
        result = score("chrf_code", [code], [plain], lang=lang, strip_comments=True)
        assert result["score"] == 100.0, lang


def test_normalize_identifiers_makes_renaming_irrelevant():
    renamed = "def surface(r):\n    return 3.14159 * r ** 2\n"
    assert score("chrf_code", [renamed], [_PLAIN])["score"] < 80
    result = score("chrf_code", [renamed], [_PLAIN], lang="python", normalize_identifiers=True)
    assert result["score"] == 100.0
    both = score(
        "chrf_code",
        [_COMMENTED.replace("radius", "r")],
        [_PLAIN],
        lang="py",
        strip_comments=True,
        normalize_identifiers=True,
    )
    assert both["score"] == 100.0


def test_code_options_equal_sacrebleu_on_transformed_text():
    from cgm_metrics.core.text import normalize_identifiers, strip_comments

    rows = _hearthstone()[:40]
    predictions = [row["prediction"] for row in rows]
    references = [row["references"] for row in rows]
    transformed_p = [
        normalize_identifiers(strip_comments(p, "python"), "python") for p in predictions
    ]
    transformed_r = [
        [normalize_identifiers(strip_comments(r, "python"), "python") for r in refs]
        for refs in references
    ]
    expected_corpus, expected_sentences = _sacrebleu(transformed_p, transformed_r)
    corpus, sentences = _ours(
        predictions, references, lang="python", strip_comments=True, normalize_identifiers=True
    )
    assert corpus == pytest.approx(expected_corpus, abs=1e-9)
    np.testing.assert_allclose(sentences, expected_sentences, atol=1e-9)


# -- inputs -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options, error, text",
    [
        ({"strip_comments": True}, ValueError, "lang"),
        ({"normalize_identifiers": True}, ValueError, "lang"),
        ({"lang": "klingon"}, ValueError, "Supported"),
        ({"average": "macro"}, ValueError, "average"),
        ({"char_order": -1}, ValueError, "char_order"),
        ({"char_order": 0, "word_order": 0}, ValueError, "char_order"),
        ({"beta": 0}, ValueError, "beta"),
        ({"lowercase": "yes"}, TypeError, "lowercase"),
    ],
)
def test_bad_options(options, error, text):
    with pytest.raises(error, match=text):
        ChrfCodeMetric(**options)


@pytest.mark.parametrize(
    "predictions, references, error, text",
    [
        (["a"], ["a", "b"], ValueError, "references"),
        ([], [], ValueError, "empty"),
        (["a", None], ["a", "b"], TypeError, "predictions"),
        ("abc", ["abc"], TypeError, "predictions"),
        (["a"], [[]], ValueError, "references"),
        (["a"], [["a", 3]], TypeError, "references"),
    ],
)
def test_bad_inputs(predictions, references, error, text):
    with pytest.raises(error, match=text):
        get_metric("chrf_code").compute(predictions, references)


def test_empty_strings_score_zero_like_sacrebleu():
    _assert_parity(["", "abc", ""], [[""], [""], ["abc"]])
    result = get_metric("chrf_code").compute(["", "x"], ["", "y"], per_item=True)
    assert result["per_item"] == [0.0, 0.0]
    assert not any(math.isnan(v) for v in result["per_item"])


def test_chunked_sorts_give_the_same_counts(monkeypatch):
    """Pairs are sorted in chunks (by characters, and by the bits left for the pair id)."""
    import cgm_metrics.maths.chrf as chrf

    predictions, references = stdlib_pairs(40, seed=9)
    owners = np.arange(40)
    whole = chrf._char_matches(predictions, references, owners, 6)
    monkeypatch.setattr(chrf, "_CHUNK_CHARS", 700)
    np.testing.assert_array_equal(chrf._char_matches(predictions, references, owners, 6), whole)
    np.testing.assert_array_equal(
        whole, chrf._char_matches_counter(predictions, references, owners, 6)
    )


def test_wide_alphabet_chunks_by_pair_bits():
    """300 distinct characters: 9 bits each, 8 bits left for the pair id: chunks of 256."""
    rng = random.Random(4)
    chars = [chr(0x0400 + i) for i in range(300)]
    predictions = ["".join(rng.choice(chars[:40]) for _ in range(30)) for _ in range(600)]
    references = [[p[5:] + "".join(rng.choice(chars) for _ in range(5))] for p in predictions]
    _assert_parity(predictions, references)


def test_resampled_count_rows_score_like_sacrebleu_on_resampled_corpora():
    """What the significance engine does: scores of summed resampled rows, vectorised."""
    predictions, references = stdlib_pairs(30, seed=11)
    metric = ChrfCodeMetric(word_order=2)
    stats = metric.statistics(predictions, [[r] for r in references])
    indices = np.random.default_rng(1).integers(0, 30, size=(4, 30))
    scores = metric.score_from_statistics(stats[indices].sum(axis=1))
    assert scores.shape == (4,)
    chrf = CHRF(word_order=2)
    for row, value in zip(indices, scores, strict=True):
        expected = chrf.corpus_score(
            [predictions[i] for i in row], [[references[i] for i in row]]
        ).score
        assert value == pytest.approx(expected, abs=1e-9)


def test_compiled_matcher_counts_what_the_numpy_and_counter_ones_count(monkeypatch):
    """csrc/chrf.c against both Python matchers: NUL and astral characters, empty texts,
    several references per hypothesis, orders 1 to 9."""
    from cgm_metrics.maths import chrf

    kernel = chrf._compiled_matches()
    assert kernel is not None, "the C library is required (pip install -e .)"
    rng = random.Random(0)
    alphabet = ["a", "b", "\0", "\U0001F600", "é", " ", "ab", "\0\0", "def f(x):"]
    hyps = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30))) for _ in range(200)]
    refs = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30))) for _ in range(350)]
    owners = np.sort(np.array([rng.randrange(200) for _ in range(350)], dtype=np.int64))
    for order in (1, 3, 6, 9):
        compiled = chrf._char_matches(hyps, refs, owners, order)
        assert np.array_equal(compiled, chrf._char_matches_counter(hyps, refs, owners, order))
        monkeypatch.setattr(chrf, "_compiled_matches", lambda: None)
        assert np.array_equal(compiled, chrf._char_matches(hyps, refs, owners, order))
        monkeypatch.undo()
