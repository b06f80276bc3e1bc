"""BLEU, ROUGE-L and METEOR as Out of the BLEU computed them.

Expected values come from the study's published per-item scores (hs.graded.jsonl), its
Table 5, and the peers themselves (sacrebleu, rouge-score, nltk), never from our output.
"""

from __future__ import annotations

import gzip
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import sacrebleu
from _peers import skip_missing
from conftest import ROOT, shared_data, stdlib_pairs
from rouge_score import rouge_scorer

import cgm_metrics
from cgm_metrics.core.tokenizers import code_tokens, tranx_tokenize
from cgm_metrics.maths.classic import BleuMetric, RougeLMetric, lcs_length
from cgm_metrics.maths.classic import wordnet as wn


@pytest.fixture(scope="module")
def hs_rows():
    path = shared_data("hearthstone", "hs.graded.jsonl")
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


@pytest.fixture(scope="module")
def pairs():
    return stdlib_pairs(60, seed=3)


def _mismatches(values, rows, key, divide=1.0):
    return [
        (row["item"], row["system"], round(value / divide, 3), row["scores"][key])
        for value, row in zip(values, rows, strict=True)
        if round(value / divide, 3) != row["scores"][key]
    ]


# --- exact reproduction of the published values ------------------------------------------


@pytest.mark.parametrize(
    ("name", "key", "divide"),
    [("bleu", "bleu", 100.0), ("rouge_l", "rouge_l", 1.0), ("meteor", "meteor", 1.0)],
)
def test_published_per_item_values_of_hearthstone(hs_rows, name, key, divide):
    predictions = [row["prediction"] for row in hs_rows]
    references = [row["references"] for row in hs_rows]
    result = cgm_metrics.score(name, predictions, references, per_item=True)
    assert len(hs_rows) == 132
    assert _mismatches(result["per_item"], hs_rows, key, divide) == []


@pytest.mark.parametrize(("system", "published"), [("gcnn", 69.20), ("nl2code", 74.52)])
def test_corpus_bleu_reproduces_table_5(hs_rows, system, published):
    rows = [row for row in hs_rows if row["system"] == system]
    result = cgm_metrics.score(
        "bleu", [r["prediction"] for r in rows], [r["references"] for r in rows]
    )
    assert abs(result["score"] - published) <= 0.01 + 1e-9
    # the same number from the statistics, as the significance engine uses them
    metric = BleuMetric()
    stats = metric.statistics([r["prediction"] for r in rows], [r["references"] for r in rows])
    assert stats.shape == (66, 10)
    assert metric.corpus_score(stats) == pytest.approx(result["score"], abs=1e-12)


def test_hearthstone_per_item_values_equal_the_peers_calls(hs_rows):
    """The study's own calls (sacrebleu on TranX text, rouge-score's LCS) give our values."""
    predictions = [row["prediction"] for row in hs_rows]
    references = [row["references"] for row in hs_rows]
    ours_bleu = cgm_metrics.score("bleu", predictions, references, per_item=True)["per_item"]
    ours_rouge = cgm_metrics.score("rouge_l", predictions, references, per_item=True)
    for index, (prediction, refs) in enumerate(zip(predictions, references, strict=True)):
        peer = sacrebleu.sentence_bleu(
            tranx_tokenize(prediction), [tranx_tokenize(r) for r in refs], tokenize="none"
        ).score
        assert ours_bleu[index] == pytest.approx(peer, rel=1e-12, abs=1e-12)
        best = max(
            rouge_scorer._score_lcs(code_tokens(r), code_tokens(prediction)).fmeasure for r in refs
        )
        assert ours_rouge["per_item"][index] == best


# --- BLEU parity with sacrebleu -----------------------------------------------------------


def _vendored_code_bleu(**options):
    """sacrebleu with the study's vendored "code" tokenizer: TranX steps, then split/join."""
    bleu = sacrebleu.BLEU(tokenize="none", **options)
    bleu.tokenizer = lambda line: " ".join(tranx_tokenize(line).split())
    return bleu


@pytest.mark.parametrize("lowercase", [False, True])
def test_code_tokenizer_equals_sacrebleu_with_the_vendored_code_tokenizer(pairs, lowercase):
    predictions, references = pairs
    metric = BleuMetric(lowercase=lowercase)
    stats = metric.statistics(predictions, [[r] for r in references])
    peer = _vendored_code_bleu(lowercase=lowercase).corpus_score(predictions, [references])
    assert metric.corpus_score(stats) == pytest.approx(peer.score, rel=1e-12)
    sentence_peer = _vendored_code_bleu(lowercase=lowercase, effective_order=True)
    for value, prediction, reference in zip(
        metric.item_scores(stats), predictions, references, strict=True
    ):
        expected = sentence_peer.sentence_score(prediction, [reference]).score
        assert value == pytest.approx(expected, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("tokenize", ["13a", "intl", "char", "none"])
@pytest.mark.parametrize("smooth_method", ["exp", "floor", "add-k", "none"])
def test_sacrebleu_tokenizers_and_smoothing_match_sacrebleu(pairs, tokenize, smooth_method):
    predictions, references = pairs
    predictions, references = predictions[:25], references[:25]
    metric = BleuMetric(tokenize=tokenize, smooth_method=smooth_method)
    stats = metric.statistics(predictions, [[r] for r in references])
    corpus = sacrebleu.corpus_bleu(
        predictions, [references], tokenize=tokenize, smooth_method=smooth_method
    )
    assert metric.corpus_score(stats) == pytest.approx(corpus.score, rel=1e-12, abs=1e-12)
    for value, prediction, reference in zip(
        metric.item_scores(stats), predictions, references, strict=True
    ):
        expected = sacrebleu.sentence_bleu(
            prediction, [reference], tokenize=tokenize, smooth_method=smooth_method
        ).score
        assert value == pytest.approx(expected, rel=1e-12, abs=1e-12)


def test_multiple_references_of_varying_number_match_sacrebleu(pairs):
    predictions, references = pairs
    rng = random.Random(7)
    refs = []
    for index, reference in enumerate(references):
        extra = [references[(index + k + 1) % len(references)] for k in range(rng.randrange(3))]
        refs.append([reference, *extra])
    metric = BleuMetric(tokenize="13a")
    stats = metric.statistics(predictions, refs)
    width = max(len(r) for r in refs)
    streams = [[r[k] if k < len(r) else None for r in refs] for k in range(width)]
    peer = sacrebleu.corpus_bleu(predictions, streams, tokenize="13a")
    assert metric.corpus_score(stats) == pytest.approx(peer.score, rel=1e-12)
    for value, prediction, item_refs in zip(
        metric.item_scores(stats), predictions, refs, strict=True
    ):
        expected = sacrebleu.sentence_bleu(prediction, item_refs, tokenize="13a").score
        assert value == pytest.approx(expected, rel=1e-12, abs=1e-12)


def test_resampled_statistics_score_like_sacrebleu_on_the_resampled_corpus(pairs):
    predictions, references = pairs
    metric = BleuMetric()
    stats = metric.statistics(predictions, [[r] for r in references])
    rng = random.Random(42)
    draws = [rng.choices(range(len(predictions)), k=len(predictions)) for _ in range(5)]
    counts = np.zeros((len(draws), len(predictions)))
    for row, draw in enumerate(draws):
        np.add.at(counts[row], draw, 1)
    scores = metric.score_from_statistics(counts @ stats)
    bleu = _vendored_code_bleu()
    for score, draw in zip(scores, draws, strict=True):
        expected = bleu.corpus_score(
            [predictions[i] for i in draw], [[references[i] for i in draw]]
        )
        assert score == pytest.approx(expected.score, rel=1e-12)


def test_empty_and_short_predictions_match_sacrebleu():
    predictions = ["", "x", "a b", "return"]
    references = ["x = 1", "x", "a b c d e", "return None"]
    metric = BleuMetric()
    stats = metric.statistics(predictions, [[r] for r in references])
    for value, prediction, reference in zip(
        metric.item_scores(stats), predictions, references, strict=True
    ):
        expected = sacrebleu.sentence_bleu(
            tranx_tokenize(prediction), [tranx_tokenize(reference)], tokenize="none"
        ).score
        assert value == pytest.approx(expected, rel=1e-12, abs=1e-12)
    assert metric.item_scores(stats)[0] == 0.0


# --- ROUGE-L parity with rouge-score ------------------------------------------------------


def test_lcs_matches_rouge_score_on_random_token_lists():
    rng = random.Random(0)
    for _ in range(300):
        alphabet = [chr(97 + i) for i in range(rng.randint(1, 6))]
        first = [rng.choice(alphabet) for _ in range(rng.randint(0, 90))]
        second = [rng.choice(alphabet) for _ in range(rng.randint(0, 90))]
        table = rouge_scorer._lcs_table(first, second)
        assert lcs_length(first, second) == table[-1][-1]


def test_banded_lcs_of_long_token_lists_matches_rouge_score():
    # above 2048 tokens the LCS tries thin bands first: near copies (inside the first band),
    # a shorter copy with insertions (second band) and unrelated lists (full table)
    rng = random.Random(5)
    first = [rng.choice(["x", "y", "(", ")", "=", "def", "a1"]) for _ in range(2100)]
    near = [t if rng.random() > 0.005 else "z" for t in first]
    edited = [t for t in first if rng.random() > 0.04] + ["w"] * 30
    unrelated = [rng.choice(["x", "(", "q", "r"]) for _ in range(2200)]
    for second in (near, edited, unrelated):
        assert lcs_length(first, second) == rouge_scorer._lcs_table(first, second)[-1][-1]


def test_rouge_l_matches_rouge_score_on_code(pairs):
    predictions, references = pairs
    values = RougeLMetric().item_values(predictions, [[r] for r in references])
    for value, prediction, reference in zip(values, predictions, references, strict=True):
        expected = rouge_scorer._score_lcs(code_tokens(reference), code_tokens(prediction))
        assert value == expected.fmeasure


def test_rouge_l_through_rouge_scores_public_api_with_a_code_tokenizer(pairs):
    class CodeTokenizer:
        def tokenize(self, text):
            return code_tokens(text)

    scorer = rouge_scorer.RougeScorer(["rougeL"], tokenizer=CodeTokenizer())
    predictions, references = pairs
    refs = [[references[i], references[(i + 1) % len(references)]] for i in range(len(pairs[0]))]
    result = cgm_metrics.score("rouge_l", predictions, refs, per_item=True)
    expected = [
        scorer.score_multi(r, p)["rougeL"].fmeasure for p, r in zip(predictions, refs, strict=True)
    ]
    assert result["per_item"] == expected
    assert result["score"] == pytest.approx(np.mean(expected), rel=1e-12)


def test_whitespace_tokens_option():
    result = cgm_metrics.score("rouge_l", ["f(a, b)"], ["f(a,b)"], tokenize="whitespace")
    assert result["score"] == rouge_scorer._score_lcs(["f(a,b)"], ["f(a,", "b)"]).fmeasure
    assert cgm_metrics.score("rouge_l", ["f(a, b)"], ["f(a,b)"])["score"] == 1.0


# --- METEOR and WordNet -------------------------------------------------------------------


@pytest.fixture(scope="module")
def nltk_wordnet():
    """nltk's own WordNet reader on the same database: the peer of the faster one METEOR uses."""
    import warnings

    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return WordNetCorpusReader(wn._locate(), None)


def test_meteor_matches_nltk_with_best_reference(nltk_wordnet, pairs):
    from nltk.translate.meteor_score import single_meteor_score

    predictions = ["def run(self): return self.go()", "x = size + 1", "",
                   "geese ran better than the dogs runs"] + pairs[0]
    references = [
        ["def execute(self): return self.move()", "def run(): pass"],
        ["x = magnitude + 1"],
        ["a"],
        ["goose runs good than a dog running", "the hounds sprinted"],
    ] + [[r] for r in pairs[1]]
    result = cgm_metrics.score("meteor", predictions, references, per_item=True)
    expected = [
        max(single_meteor_score(code_tokens(r), code_tokens(p), wordnet=nltk_wordnet)
            for r in refs)
        for p, refs in zip(predictions, references, strict=True)
    ]
    assert result["per_item"] == expected
    assert expected[2] == 0.0
    assert "wordnet:3.0" in result["signature"]


def test_fast_wordnet_reader_reads_what_nltk_reads(nltk_wordnet):
    import random

    ours = wn.load_wordnet()
    assert type(ours) is not type(nltk_wordnet)  # the test compares two readers
    assert ours._lemma_pos_offset_map == nltk_wordnet._lemma_pos_offset_map
    assert ours._exception_map == nltk_wordnet._exception_map
    assert ours.satellite_offsets == nltk_wordnet.satellite_offsets
    lemmas = sorted(nltk_wordnet.all_lemma_names())
    sample = random.Random(0).sample(lemmas, 400) + ["geese", "ran", "better", "Dogs", "xyzzy"]

    def synsets(reader):
        return [[(s.name(), s.offset(), s.pos(), [lemma.name() for lemma in s.lemmas()])
                 for s in reader.synsets(word)] for word in sample]

    assert synsets(ours) == synsets(nltk_wordnet)


def test_meteor_without_wordnet_fails_with_the_fix(tmp_path, monkeypatch):
    import nltk.data

    monkeypatch.delenv("NLTK_DATA", raising=False)
    monkeypatch.setattr(nltk.data, "path", [str(tmp_path)])
    with pytest.raises(wn.WordNetNotFoundError) as error:
        cgm_metrics.score("meteor", ["x = 1"], ["x = 2"])
    message = str(error.value)
    assert "python -m cgm_metrics.maths.classic.wordnet install" in message
    assert "wordnet-base wordnet-sense-index" in message
    assert "no fallback" in message
    assert wn.main(["status"]) == 1


def _man_page_lexnames():
    man = Path("/usr/share/man/man5/lexnames.5WN.gz")
    if not man.exists():
        return None
    rows = []
    with gzip.open(man, "rt", encoding="utf-8") as handle:
        for line in handle:
            fields = line.split("\t")
            if len(fields) == 3 and fields[0].isdigit():
                rows.append((int(fields[0]), fields[1].strip()))
    return rows


def test_lexnames_table_agrees_with_the_database_and_its_documentation():
    source = wn.default_source()
    if not (source / "data.noun").exists():
        skip_missing(f"the WordNet database (none in {source})",
                     "scripts/test.sh installs Debian's wordnet-base and wordnet-sense-index")
    documented = _man_page_lexnames()
    if documented is not None:
        assert documented == [(i, name) for i, (name, _) in enumerate(wn.LEXNAMES)]
    categories = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}
    for pos, category in categories.items():
        with open(source / f"data.{pos}", encoding="utf-8") as handle:
            numbers = {line.split()[1] for line in handle if not line.startswith(" ")}
        for number in sorted(numbers):
            name, listed = wn.LEXNAMES[int(number)]
            assert listed == category and name.startswith(pos), (pos, number, name)


def test_install_builds_a_wordnet_nltk_reads(tmp_path, monkeypatch):
    source = wn.default_source()
    if not (source / "data.noun").exists():
        skip_missing(f"the WordNet database (none in {source})",
                     "scripts/test.sh installs Debian's wordnet-base and wordnet-sense-index")
    import nltk.data

    destination = wn.install(target=tmp_path)
    assert destination == tmp_path / "corpora" / "wordnet"
    for name in (*wn.DATABASE_FILES, "lexnames", "LICENSE"):
        assert (destination / name).is_file() and not (destination / name).is_symlink()
    monkeypatch.delenv("NLTK_DATA", raising=False)
    monkeypatch.setattr(nltk.data, "path", [str(tmp_path)])
    reader = wn.load_wordnet()
    assert reader.get_version() == "3.0"
    assert reader.synset("dog.n.01").lexname() == "noun.animal"
    assert reader.synset("run.v.01").lexname() == "verb.motion"
    assert wn.install(target=tmp_path) == destination  # kept, not rebuilt


def test_install_refuses_an_incomplete_or_other_wordnet(tmp_path, capsys):
    partial = tmp_path / "partial"
    partial.mkdir()
    (partial / "data.noun").write_text("")
    with pytest.raises(wn.WordNetNotFoundError, match="lacks data.adj"):
        wn.install(target=tmp_path / "out", source=partial)
    other = tmp_path / "other"
    other.mkdir()
    for name in wn.DATABASE_FILES:
        (other / name).write_text("")
    (other / "data.adj").write_text("  29 WordNet 3.1 Copyright 2011 by Princeton University.\n")
    with pytest.raises(wn.WordNetNotFoundError, match="WordNet 3.1"):
        wn.install(target=tmp_path / "out", source=other)
    assert not (tmp_path / "out" / "corpora" / "wordnet").exists()
    assert wn.main(["install", "--source", str(partial), "--target", str(tmp_path)]) == 1
    assert "wordnet-base" in capsys.readouterr().err


# --- interface, bad inputs, determinism ---------------------------------------------------


def test_registry_entries_and_scales():
    assert {"bleu", "rouge_l", "meteor"} <= set(cgm_metrics.metrics())
    bleu = cgm_metrics.get_metric("bleu", lang="python")
    assert bleu.scale == 100.0
    assert cgm_metrics.get_metric("rouge_l", lang="java").scale == 1.0
    assert cgm_metrics.get_metric("meteor", lang="python").scale == 1.0
    stats = bleu.statistics(["a b c"], [["a b c"]])
    assert stats.tolist() == [[3, 3, 3, 2, 1, 0, 3, 2, 1, 0]]
    assert "tokenize:code" in bleu.signature()


@pytest.mark.parametrize("name", ["bleu", "rouge_l", "meteor"])
def test_bad_inputs_are_clear_errors(name):
    with pytest.raises(ValueError, match="predictions"):
        cgm_metrics.score(name, ["a", "b"], ["a"])
    with pytest.raises(TypeError, match=r"predictions\[1\]"):
        cgm_metrics.score(name, ["a", 3], ["a", "b"])
    with pytest.raises(TypeError, match=r"references\[0\]\[0\]"):
        cgm_metrics.score(name, ["a"], [[None]])
    with pytest.raises(ValueError, match="empty"):
        cgm_metrics.score(name, [], [])
    with pytest.raises(ValueError, match="tokenize"):
        cgm_metrics.get_metric(name, tokenize="bpe")


def test_bad_options_are_clear_errors():
    with pytest.raises(ValueError, match="smooth_method"):
        BleuMetric(smooth_method="add-one")
    with pytest.raises(ValueError, match="max_ngram_order"):
        BleuMetric(max_ngram_order=0)
    with pytest.raises(ValueError, match="smooth_value"):
        BleuMetric(smooth_method="floor", smooth_value=-1)
    with pytest.raises(ValueError, match="alpha"):
        cgm_metrics.get_metric("meteor", alpha=2)
    with pytest.raises(ValueError, match="statistics rows"):
        BleuMetric().score_from_statistics(np.zeros((2, 7)))


def test_scores_do_not_depend_on_the_hash_seed(pairs):
    code = (
        "import json, sys\n"
        "sys.path.insert(0, sys.argv[1])\n"
        "from corpus import stdlib_pairs\n"
        "import cgm_metrics\n"
        "p, r = stdlib_pairs(30, seed=5)\n"
        "out = [cgm_metrics.score(n, p, r, per_item=True)['per_item'] for n in "
        "('bleu', 'rouge_l')]\n"
        "print(json.dumps(out))\n"
    )
    outputs = set()
    for seed in ("0", "123"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        run = subprocess.run(
            [sys.executable, "-c", code, str(ROOT / "benchmarks")],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        outputs.add(run.stdout)
    assert len(outputs) == 1


# --- Roy et al. 2021's metrics: nltk's sentence BLEU (method 5), the rouge package, ROUGE-W ---


def _word_texts(count: int, seed: int) -> list[str]:
    """Short texts of a small vocabulary (many shared n-grams), with periods, tabs and
    newlines: what the rouge package's sentence split and the whitespace tokens see."""
    rng = random.Random(seed)
    words = ["a", "b", "c", "d", "the", "cat", "sat", "on", "mat", "x", ".", ",", "..", "e.g."]
    glue = [" ", " ", " ", "  ", "", "\t", "\n", ". ", " ."]
    return ["".join(rng.choice(words) + rng.choice(glue) for _ in range(rng.randint(0, 16)))
            for _ in range(count)]


def test_nltk_method5_equals_nltk_sentence_bleu_per_item(hs_rows, pairs):
    from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

    method5 = SmoothingFunction().method5
    metric = cgm_metrics.get_metric("bleu", smooth_method="nltk-method5", tokenize="none")
    texts = _word_texts(900, seed=5)
    rng = random.Random(6)
    predictions = texts[:300] + pairs[0] + [r["prediction"] for r in hs_rows]
    references = ([[t] for t in texts[300:600]]
                  + [[r] for r in pairs[1]] + [r["references"] for r in hs_rows])
    # several references of varying number (clipping by the most frequent, closest length)
    predictions += texts[600:700]
    references += [rng.sample(texts[700:], rng.randint(2, 4)) for _ in range(100)]
    result = metric.compute(predictions, references, per_item=True)
    mismatches = []
    for prediction, refs, ours in zip(predictions, references, result["per_item"], strict=True):
        peer = sentence_bleu([r.split() for r in refs], prediction.split(),
                             smoothing_function=method5)
        if ours != 100 * peer:  # bit for bit: the same exact fractions, the same float steps
            mismatches.append((prediction, refs, ours, 100 * peer))
    assert mismatches == []
    assert "smooth_method:nltk-method5" in result["signature"]


def test_nltk_method5_rows_sum_to_nltks_corpus_counts(pairs):
    """The statistics are nltk's: summed rows are corpus_bleu's numerators and denominators
    (modified_precision per sentence), so the corpus score is method 5 on nltk's sums."""
    from nltk.translate.bleu_score import closest_ref_length, modified_precision

    metric = BleuMetric(smooth_method="nltk-method5", tokenize="none")
    predictions = pairs[0]
    references = [[r] for r in pairs[1]]
    summed = metric.statistics(predictions, references).sum(axis=0)
    expected = np.zeros(12)
    for prediction, (ref,) in zip(predictions, references, strict=True):
        hyp, refs = prediction.split(), [ref.split()]
        expected[0] += len(hyp)
        expected[1] += closest_ref_length(refs, len(hyp))
        for n in range(1, 6):
            fraction = modified_precision(refs, hyp, n)
            expected[1 + n] += fraction.numerator
            expected[6 + n] += fraction.denominator
    assert summed.tolist() == expected.tolist()
    one = metric.compute(predictions[:1], references[:1], per_item=True)
    assert one["score"] == one["per_item"][0]


def test_nltk_method5_options_are_checked():
    with pytest.raises(ValueError, match="nltk-method5.*max_ngram_order` must be 4"):
        cgm_metrics.get_metric("bleu", smooth_method="nltk-method5", max_ngram_order=3)
    with pytest.raises(ValueError, match="no `smooth_value` or `effective_order`"):
        cgm_metrics.get_metric("bleu", smooth_method="nltk-method5", smooth_value=0.1)
    with pytest.raises(ValueError, match="Unknown `smooth_method` 'method5'.*'nltk-method5'"):
        cgm_metrics.get_metric("bleu", smooth_method="method5")


@pytest.mark.parametrize("tokenize", ["whitespace", "code"])
def test_rouge_package_implementation_equals_the_rouge_package(hs_rows, tokenize):
    """``implementation="rouge"``: the rouge package 1.0.1's ROUGE-1..4 and summary-level
    ROUGE-L F; "whitespace" reads the raw text as the package does, "code" hands it the
    TranX tokens joined by spaces. Where the package raises (nothing but periods), 0."""
    from rouge import Rouge

    texts = _word_texts(1200, seed=8)
    predictions = texts[:600] + [r["prediction"] for r in hs_rows]
    references = texts[600:] + [r["references"][0] for r in hs_rows]
    names = ["rouge-1", "rouge-2", "rouge-3", "rouge-4", "rouge-l"]
    ours = {f"rouge-{n}": cgm_metrics.get_metric("rouge_n", n=n, tokenize=tokenize,
                                                 implementation="rouge") for n in range(1, 5)}
    ours["rouge-l"] = cgm_metrics.get_metric("rouge_l", tokenize=tokenize, implementation="rouge")
    values = {name: metric.compute(predictions, [[r] for r in references], per_item=True)
              for name, metric in ours.items()}

    def given(text: str) -> str:
        return text if tokenize == "whitespace" else " ".join(code_tokens(text))

    peer = Rouge(metrics=names)
    raised, mismatches = 0, []
    for index, (prediction, reference) in enumerate(zip(predictions, references, strict=True)):
        try:
            expected = peer.get_scores(given(prediction), given(reference))[0]
        except ValueError:
            raised += 1
            expected = {name: {"f": 0.0} for name in names}
        for name in names:
            if values[name]["per_item"][index] != expected[name]["f"]:
                mismatches.append((name, prediction, reference))
    assert mismatches == []
    assert 0 < raised < 100  # the edge case is exercised, and it is an edge case
    for name in names:
        per_item = values[name]["per_item"]
        assert values[name]["score"] == pytest.approx(sum(per_item) / len(per_item), abs=1e-15)


def test_rouge_n_default_equals_rouge_score(pairs):
    predictions = pairs[0]
    references = pairs[1]
    for n in (1, 2, 4):
        result = cgm_metrics.score("rouge_n", predictions, references, n=n, per_item=True)
        scorer = rouge_scorer.RougeScorer([f"rouge{n}"], tokenizer=_CodeTokenizer())
        expected = [scorer.score(r, p)[f"rouge{n}"].fmeasure
                    for p, r in zip(predictions, references, strict=True)]
        assert result["per_item"] == expected


class _CodeTokenizer:
    def tokenize(self, text):
        return code_tokens(text)


def test_rouge_l_default_is_unchanged_by_the_implementation_option(pairs):
    predictions = pairs[0]
    references = pairs[1]
    default = cgm_metrics.score("rouge_l", predictions, references, per_item=True)
    explicit = cgm_metrics.score("rouge_l", predictions, references, per_item=True,
                                 implementation="rouge-score")
    assert explicit == default
    assert "implementation" not in default["signature"]


def test_rouge_w_hand_computed_values():
    """ROUGE-W by hand (Lin 2004, section 3.3; f(k) = k ** weight, f^-1(x) = x ** (1/weight)).

    Reference X = "a b c d e f g" (m = 7); Lin's two candidates with 4 matched words:
    Y1 = "a b c d h i k" (one run of 4) and Y2 = "a h b k c i d" (four runs of 1).
    - Y1: WLCS = f(4) = 4 ** w, so R = (4 ** w / 7 ** w) ** (1 / w) = 4 / 7, P = 4 / 7 (n = 7),
      F = 4 / 7 = 0.571428..., whatever w.
    - Y2 with w = 2: WLCS = 4 * f(1) = 4, R = sqrt(4 / 49) = 2 / 7, P = 2 / 7, F = 2 / 7.
    - Y2 with w = 1.2: WLCS = 4, R = P = (4 / 7 ** 1.2) ** (1 / 1.2) = 4 ** (5 / 6) / 7
      = 2 ** (5 / 3) / 7 = 3.1748021 / 7 = 0.4535432, F = 0.4535432.
    - w = 1 is ROUGE-L: WLCS = LCS = 4 for both, F = 4 / 7.
    - Z = "a b x c d" against X: runs "a b" and "c d", WLCS with w = 2 is
      f(2) + f(2) = 8 (each run adds f(1) = 1 then f(2) - f(1) = 3), R = sqrt(8 / 49)
      = 2 sqrt(2) / 7 = 0.4040610, P = sqrt(8 / 25) = 2 sqrt(2) / 5 = 0.5656854 (n = 5);
      R P = 8 / 35 and R + P = 2 sqrt(2) * 12 / 35, so F = 2 R P / (R + P)
      = 16 / (24 sqrt(2)) = sqrt(2) / 3 = 0.4714045.
    """
    x = "a b c d e f g"
    cases = [("a b c d h i k", 2.0, 4 / 7), ("a h b k c i d", 2.0, 2 / 7),
             ("a b c d h i k", 1.2, 4 / 7), ("a h b k c i d", 1.2, 2 ** (5 / 3) / 7),
             ("a h b k c i d", 1.0, 4 / 7), ("a b x c d", 2.0, 2 ** 0.5 / 3)]
    for candidate, weight, expected in cases:
        metric = cgm_metrics.get_metric("rouge_w", tokenize="whitespace", weight=weight)
        assert metric.compute([candidate], [x])["score"] == pytest.approx(expected, rel=1e-12)
    assert 2 ** (5 / 3) / 7 == pytest.approx(0.4535432, abs=1e-7)
    assert 2 ** 0.5 / 3 == pytest.approx(0.4714045, abs=1e-7)
    # empty sides score 0; the best of several references counts
    metric = cgm_metrics.get_metric("rouge_w", tokenize="whitespace")
    assert metric.compute([""], [x])["score"] == 0.0
    assert metric.compute(["a b c d h i k"], [["z", x]])["score"] == pytest.approx(4 / 7)


def test_rouge_options_are_checked():
    with pytest.raises(ValueError, match="Unknown `implementation` 'pltrdy'.*'rouge'"):
        cgm_metrics.get_metric("rouge_l", implementation="pltrdy")
    with pytest.raises(ValueError, match="`n` must be an integer from 1 to 9"):
        cgm_metrics.get_metric("rouge_n", n=0)
    with pytest.raises(ValueError, match="`weight` must be a number >= 1"):
        cgm_metrics.get_metric("rouge_w", weight=0.5)
    with pytest.raises(ValueError, match="Unknown `tokenize` 'spaces' for rouge_n"):
        cgm_metrics.get_metric("rouge_n", tokenize="spaces")


def test_long_inputs_take_the_row_by_row_programs_with_the_same_values(monkeypatch):
    """ROUGE-W's weighted LCS and the rouge package's LCS traceback run in numpy from 4,096
    table cells; the cell-by-cell programs (checked above against the hand values and the
    package) give the same values on every input."""
    from cgm_metrics.maths.classic import rouge

    rng = random.Random(11)
    cases = []
    for _ in range(300):
        vocabulary = rng.randint(1, 6)
        cases.append(([str(rng.randrange(vocabulary)) for _ in range(rng.randint(1, 80))],
                      [str(rng.randrange(vocabulary)) for _ in range(rng.randint(1, 80))]))
    monkeypatch.setattr(rouge, "_NUMPY_FROM", 10**12)
    expected = [(rouge.weighted_lcs(a, b, w), rouge.lcs_words(a, b))
                for a, b in cases for w in (1.0, 1.2, 2.0)]
    monkeypatch.setattr(rouge, "_NUMPY_FROM", 0)
    rows = [(rouge.weighted_lcs(a, b, w), rouge.lcs_words(a, b))
            for a, b in cases for w in (1.0, 1.2, 2.0)]
    assert rows == expected
    # weight 1 is the LCS length
    assert [rouge.weighted_lcs(a, b, 1.0) for a, b in cases] == [
        float(lcs_length(a, b)) for a, b in cases]
