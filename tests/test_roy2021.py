"""Roy et al. 2021 end to end: the human data, DARR Kendall's tau, the study's chrF and the
corpus-level protocol on HearthStone.

Expected values come from the paper (Table 3), the replication package's own
``scripts/kendalls_tau.py`` and Popovic's ``chrF++.py`` run on generated and real cases
(``tests/data/roy2021/golden.json``, made by ``tests/data/roy2021/make_golden.py``), scipy
(Wilcoxon) and the definition of the synthetic systems; never from our own output.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from collections import Counter, defaultdict
from itertools import pairwise

import numpy as np
import pytest
from conftest import ROOT, shared_data

import cgm_metrics
from cgm_metrics.agreement import darr_kendall, graded_from_rows, roy2021, run_roy2021
from cgm_metrics.agreement.data import GradedInputError
from cgm_metrics.base.io import InputError

# The paper's Table 3: Overall DA, Conciseness, Content Adequacy, Fluency.
TABLE_3 = {
    "reference": (54.40, 3.27, 3.14, 3.46),
    "M1": (48.22, 3.37, 2.89, 3.49),
    "M2": (49.15, 3.32, 2.97, 3.38),
    "M3": (49.63, 3.38, 2.99, 3.47),
    "M4": (49.44, 3.39, 2.93, 3.46),
    "M5": (16.38, 2.31, 1.49, 2.92),
}
DIMENSIONS = (("conciseness", "Conciseness"), ("content_adequacy", "Content Adequacy"),
              ("fluency", "Fluency"))
# the Likert answers of responses.csv include 0 (and halves), so their range is 0-5 here
LIKERT = {name: (0, 5) for name, _ in DIMENSIONS}
SYSTEMS = {0: "reference", 1: "M1", 2: "M2", 3: "M3", 4: "M4", 5: "M5"}
ALL_SYSTEMS = tuple(SYSTEMS.values())


@pytest.fixture(scope="module")
def golden():
    return json.loads(shared_data("roy2021", "golden.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def responses():
    with open(shared_data("roy2021", "responses.csv"), encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def graded_rows(responses, systems=ALL_SYSTEMS):
    """responses.csv as graded rows: item = question_id, system = mid, grades per annotator."""
    cells: dict[tuple[int, str], dict] = {}
    for row in responses:
        system = SYSTEMS[int(float(row["mid"]))]
        if system not in systems:
            continue
        cell = cells.setdefault((int(row["question_id"]), system), {
            "item": int(row["question_id"]), "system": system, "grades": {},
            "dimensions": {name: {} for name, _ in DIMENSIONS}})
        cell["grades"][row["user_id"]] = float(row["Overall DA Score"])
        for name, column in DIMENSIONS:
            cell["dimensions"][name][row["user_id"]] = float(row[column])
    return [cells[key] for key in sorted(cells, key=lambda k: (k[0], systems.index(k[1])))]


@pytest.fixture(scope="module")
def hs_result():
    return run_roy2021(shared_data("hearthstone", "hs.graded.jsonl"), grade_range=(0, 4),
                       n_resamples=1000)


@pytest.fixture(scope="module")
def hs_rows():
    path = shared_data("hearthstone", "hs.graded.jsonl")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


# ------------------------------------------------------------------ the human data


def test_table_3_from_the_replication_data(responses):
    data = graded_from_rows(graded_rows(responses))
    table = roy2021.corpus_human_scores(data, dimension_ranges=LIKERT)
    assert data.n_items == 382 and len(responses) == 6253
    for system, published in TABLE_3.items():
        ours = [table[system][name] for name in ("overall", "conciseness", "content_adequacy",
                                                 "fluency")]
        # the package holds the uncleaned assessments: within 0.1 of the paper, not equal
        assert ours == pytest.approx(published, abs=0.1), system


def test_darr_pairs_of_the_replication_data(responses, golden):
    """DARR pairs: within one annotator's assessments of one snippet, every pair of the five
    models; 4,261 of them differ by 25 points or more (the oracle, with a constant metric,
    calls exactly those ties)."""
    data = graded_from_rows(graded_rows(responses, ("M1", "M2", "M3", "M4", "M5")))
    overall = roy2021.human_dimensions(data, dimension_ranges=LIKERT)[0]
    human, _, groups = roy2021.darr_rows(data, overall)
    first, second = roy2021.darr_pairs(groups)
    per_group = Counter((row["question_id"], row["user_id"]) for row in responses
                        if float(row["mid"]) > 0)
    assert first.size == sum(k * (k - 1) // 2 for k in per_group.values()) == 9759
    oracle = golden["kendall_responses"]
    assert oracle["constant_metric"] == {"tau": 0.0, "concordant": 0, "discordant": 0,
                                         "ties": 4261}
    assert darr_kendall(human, np.zeros(human.size), groups) == oracle["constant_metric"]
    # a metric equal to the human score is concordant on every pair (Table 1); the oracle
    # ranks the two sides in opposite orders and calls them discordant
    assert darr_kendall(human, human, groups) == {
        "tau": 1.0, "concordant": oracle["metric_equals_human"]["discordant"],
        "discordant": 0, "ties": 0}
    assert oracle["metric_equals_human"]["tau"] == -1.0


def test_synthetic_systems_of_the_replication_data(responses):
    """The paper's construction on its five models: 400 synthetic systems (40 settings, up
    and down, 5 bases), de-duplicated by corpus DA (the paper kept 267 of its cleaned data),
    100 sampled."""
    data = graded_from_rows(graded_rows(responses, ("M1", "M2", "M3", "M4", "M5")))
    overall = roy2021.human_dimensions(data, dimension_ranges=LIKERT)[0]
    sums, counts = overall.cell_sums(data.n_systems, data.n_items)
    models = roy2021.synthesize(sums / counts, data.systems)
    assert len(models) == 5 + 400
    kept, candidates = roy2021.select_models(models, 5, sums, counts, 100, seed=12345)
    assert 200 < candidates < 300
    assert len(kept) == 105 and [m.name for m in kept[:5]] == data.systems
    again, _ = roy2021.select_models(models, 5, sums, counts, 100, seed=12345)
    other, _ = roy2021.select_models(models, 5, sums, counts, 100, seed=7)
    assert [m.name for m in again] == [m.name for m in kept]
    assert [m.name for m in other] != [m.name for m in kept]
    scores = [float(sums[m.source, np.arange(data.n_items)].sum()
                    / counts[m.source, np.arange(data.n_items)].sum()) for m in kept]
    assert len({round(s, 9) for s in scores}) == len(scores)


# ------------------------------------------------------------------ darr_kendall


def test_darr_kendall_equals_the_replication_packages_script(golden):
    """36 generated cases (groups of 1-7 rows, differences of exactly the threshold, metric
    ties, thresholds 25, 10 and 0): ours equals kendalls_tau.py run on the negated metric,
    and is its raw output with concordant and discordant swapped."""
    cases = golden["kendall_cases"]
    assert len(cases) == 36
    for case in cases:
        ours = darr_kendall(case["human"], case["metric"], case["groups"], case["threshold"])
        assert ours == case["oracle_negated_metric"]
        raw = case["oracle"]
        assert (ours["concordant"], ours["discordant"], ours["ties"]) == (
            raw["discordant"], raw["concordant"], raw["ties"])
        assert ours["tau"] == -raw["tau"]
    assert any(case["oracle"]["ties"] for case in cases)
    assert {case["threshold"] for case in cases} == {25, 10, 0}


def test_darr_kendall_inputs():
    groups = [("q1", "u1")] * 3 + [("q2", "u1")] * 2
    human = [90, 40, 10, 50, 80]
    metric = [0.9, 0.5, 0.5, 0.3, 0.2]
    # q1: (90, 40) concordant, (90, 10) concordant, (40, 10) metric tie; q2: (50, 80) discordant
    expected = {"tau": 0.25, "concordant": 2, "discordant": 1, "ties": 1}
    assert darr_kendall(human, metric, groups) == expected
    assert darr_kendall(np.array(human), np.array(metric), np.array(groups)) == expected
    assert darr_kendall(human, metric, [0, 0, 0, 1, 1]) == expected
    # a difference of exactly the threshold counts; under it is a human tie
    assert darr_kendall([50, 75], [1, 0], ["g", "g"])["discordant"] == 1
    with pytest.raises(ValueError, match="no DARR pair has a human difference of at least 25"):
        darr_kendall([50, 74], [1, 0], ["g", "g"])
    with pytest.raises(ValueError, match="`metric` contains NaN"):
        darr_kendall(human, [0.9, float("nan"), 0, 0, 0], groups)
    with pytest.raises(ValueError, match="one value per row"):
        darr_kendall(human, metric[:4], groups)
    with pytest.raises(ValueError, match="`groups` must have one entry per row"):
        darr_kendall(human, metric, groups[:4])
    with pytest.raises(ValueError, match="`threshold` must be a number >= 0"):
        darr_kendall(human, metric, groups, threshold=-1)
    with pytest.raises(ValueError, match="hashable group"):
        darr_kendall(human, metric, [{"q": 1}] * 5)


# ------------------------------------------------------------------ the study's chrF


@pytest.mark.parametrize(("key", "options"), [("c6w2", {"word_order": 2}), ("c6w0", {})])
def test_chrf_equals_popovics_chrf_script(golden, hs_rows, key, options):
    """The study's chrF is chrF++.py's default setup (character 6-grams, word 2-grams, beta
    2, F averaged over the n-gram orders): the registry's chrf_code with word_order=2 and
    eps_smoothing=True, per sentence, per document and as the mean of sentence F."""
    expected = golden["chrf"][key]
    skipped = set(expected["skipped"])
    assert len(skipped) < 10
    kept = [i for i in range(len(golden["chrf"]["hypotheses"])) if i not in skipped]
    hyps = [golden["chrf"]["hypotheses"][i] for i in kept]
    refs = [golden["chrf"]["references"][i] for i in kept]
    metric = cgm_metrics.get_metric("chrf_code", eps_smoothing=True, **options)
    result = metric.compute(hyps, refs, per_item=True)
    assert result["per_item"] == pytest.approx([100 * v for v in expected["sentence"]],
                                               abs=1e-9)
    assert result["score"] == pytest.approx(100 * expected["document"], abs=1e-9)
    average = cgm_metrics.get_metric("chrf_code", eps_smoothing=True, average="sentence",
                                     **options).compute(hyps, refs)["score"]
    assert average == pytest.approx(100 * expected["average"], abs=1e-9)
    # chrF++.py reads one line per sentence; the multi-line Hearthstone code gives the same
    originals = [row["prediction"] for row in hs_rows]
    flat = metric.compute(golden["chrf"]["hypotheses"][:132],
                          [r[0] for r in golden["chrf"]["references"][:132]], per_item=True)
    multi = metric.compute(originals, [row["references"][0] for row in hs_rows], per_item=True)
    assert multi["per_item"] == pytest.approx(flat["per_item"], abs=1e-12)


# ------------------------------------------------------------------ the protocol on HearthStone


def test_protocol_kendall_on_hearthstone_equals_the_oracle(hs_result, golden):
    """Table 6 on HearthStone: groups (item, grader), grades 0-4 mapped to 0-100."""
    assert set(hs_result.kendall) == set(golden["hearthstone_darr"])
    for metric, runs in golden["hearthstone_darr"].items():
        assert hs_result.kendall[metric]["overall"] == runs["oracle_negated_metric"]
    assert hs_result.darr["overall"] == {"pairs": 66 * 4, "counted": 131}
    assert hs_result.human_scale["mapping"] == "DA = 100 * (grade - 0) / 4"


def test_protocol_synthetic_models_follow_the_definition(hs_result, hs_rows):
    """Every synthetic model of the HearthStone run, checked against the paper's definition:
    at most round(p * n / 100) items replaced, each by the other system, each changing the
    item's mean DA by at least t points in the model's direction, only among the base's
    worst (improve) or best (degrade) items."""
    n_items = 66
    grades = defaultdict(dict)
    for row in hs_rows:
        grades[row["system"]][row["item"]] = 25 * np.mean(list(row["grades"].values()))
    systems = ["gcnn", "nl2code"]
    assert hs_result.models[:2] == systems
    assert len(hs_result.models) == 2 + min(100, hs_result.candidates)
    scores = {m: hs_result.model_scores[m]["human"] for m in hs_result.models}
    assert len({round(s, 9) for s in scores.values()}) == len(scores)
    for name, spec in hs_result.synthetic.items():
        base, other = spec["base"], next(s for s in systems if s != spec["base"])
        quota = round(spec["percent"] * n_items / 100)
        ranked = sorted(range(n_items), key=lambda i: grades[base][i],
                        reverse=not spec["improve"])
        eligible = set(ranked[:quota])
        sign = 1 if spec["improve"] else -1
        replaced = [i for i in eligible
                    if sign * (grades[other][i] - grades[base][i]) >= spec["threshold"]]
        # the expected corpus DA (mean of all assessments: 4 per item here)
        expected = np.mean([grades[other][i] if i in replaced else grades[base][i]
                            for i in range(n_items)])
        assert scores[name] == pytest.approx(expected, abs=1e-9), name
        assert (scores[name] - scores[base]) * sign > 0, name


def test_protocol_human_verdicts_are_scipys_wilcoxon(hs_result, hs_rows):
    from scipy.stats import wilcoxon

    items = defaultdict(dict)
    for row in hs_rows:
        items[row["system"]][row["item"]] = 25 * np.mean(list(row["grades"].values()))
    pairs = [p for p in hs_result.pairs if p["metric"] == "chrf"
             and p["model_a"] in ("gcnn", "nl2code") and p["model_b"] in ("gcnn", "nl2code")]
    assert len(pairs) == 1
    a = [items["gcnn"][i] for i in range(66)]
    b = [items["nl2code"][i] for i in range(66)]
    assert pairs[0]["human_p_value"] == pytest.approx(wilcoxon(a, b).pvalue, rel=1e-9)
    assert pairs[0]["human_delta_points"] == pytest.approx(np.mean(b) - np.mean(a), abs=1e-9)


def test_protocol_metric_verdicts_are_the_librarys_approximate_randomization(hs_result, hs_rows):
    from cgm_metrics.significance.paired import run_paired

    pair = next(p for p in hs_result.pairs if p["metric"] == "bleu"
                and (p["model_a"], p["model_b"]) == ("gcnn", "nl2code"))
    values = {s: np.array([[r["scores"]["bleu"]] for r in hs_rows if r["system"] == s])
              for s in ("gcnn", "nl2code")}
    expected = run_paired(lambda stats: stats[..., 0] / 66, values["gcnn"], values["nl2code"],
                          "bleu", "approximate_randomization", 1000, 12345, 0.05, 0.95)
    assert pair["metric_p_value"] == expected.p_value
    assert pair["metric_delta_points"] == pytest.approx(100 * expected.delta, abs=1e-9)


def test_protocol_tables_are_consistent(hs_result):
    result = hs_result.to_dict()
    assert result["bins"] == ["[0, 2]", "(2, 5]", "(5, 10]", "(10, 15]", "(15, 20]",
                              "(20, 100]", "not significant"]
    n_pairs = len(result["models"]) * (len(result["models"]) - 1) // 2
    for metric in result["type_i"]:
        pairs = [p for p in result["pairs"] if p["metric"] == metric]
        assert len(pairs) == n_pairs
        bins = result["bins"][:-1]
        for label in bins:
            total = result["disagreement"][metric][label]["size"]
            assert total == result["type_i"][metric][label]["size"] + \
                result["type_ii"][metric][label]["size"]
            assert total == sum(p["bin"] == label for p in pairs)
            in_bin = [p for p in pairs if p["bin"] == label]
            assert result["type_i"][metric][label]["errors"] == sum(
                p["outcome"] == "type_i" for p in in_bin)
            low, high = (float(x) for x in label.strip("[(]").split(", "))
            assert all(low <= abs(p["metric_delta_points"]) <= high for p in in_bin)
        not_significant = [p for p in pairs if p["metric_p_value"] >= 0.05]
        assert result["type_ii"][metric]["not significant"]["size"] == len(not_significant)
        assert result["type_ii"][metric]["not significant"]["errors"] == sum(
            p["human_p_value"] < 0.05 for p in not_significant)
        for p in pairs:  # the outcome follows the two verdicts and the two signs
            metric_sig, human_sig = p["metric_p_value"] < 0.05, p["human_p_value"] < 0.05
            opposite = p["metric_delta_points"] * p["human_delta_points"] < 0
            expected = ("type_i" if metric_sig and not human_sig else "type_ii"
                        if human_sig and not metric_sig else "opposite" if opposite else "agree")
            assert p["outcome"] == expected
    assert list(pairwise(result["bin_edges"])) == list(pairwise([0, 2, 5, 10, 15, 20, 100]))


def test_study_metrics_on_text_and_levels(hs_rows, tmp_path):
    """The study's metrics computed from the rows' texts: corpus BLEU only at corpus level,
    sentBLEU only at summary level; a metric name nobody knows lists the choices."""
    path = tmp_path / "hs.jsonl"
    path.write_text("".join(json.dumps({k: v for k, v in row.items() if k != "scores"}) + "\n"
                            for row in hs_rows[:40] + hs_rows[66:106]), encoding="utf-8")
    result = run_roy2021(path, metrics=["BLEU", "sentBLEU", "ROUGE-W", "rouge_n"],
                         grade_range=(0, 4), n_resamples=200, synthetic=False)
    assert set(result.type_i) == {"BLEU", "ROUGE-W", "rouge_n"}
    assert set(result.kendall) == {"sentBLEU", "ROUGE-W", "rouge_n"}
    assert result.sources["sentBLEU"].startswith("study:registry:bleu|")
    assert "smooth_method:nltk-method5" in result.sources["sentBLEU"]
    assert result.models == ["gcnn", "nl2code"]
    with pytest.raises(GradedInputError, match="sentBLEU.*'study' for all"):
        run_roy2021(path, metrics=["sentbleu"], grade_range=(0, 4))


def test_grade_scale_checks_and_notes(hs_rows, tmp_path):
    path = tmp_path / "hs.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in hs_rows), encoding="utf-8")
    # grades 0-4 read as direct assessments: allowed, but the output says what happened
    result = run_roy2021(path, n_resamples=100, synthetic=False)
    assert result.notes and "--grade-range" in result.notes[0]
    assert result.darr["overall"]["counted"] == 0
    assert all(v["overall"]["tau"] is None for v in result.kendall.values())
    with pytest.raises(GradedInputError, match="outside \\[0, 3\\].*--grade-range"):
        run_roy2021(path, grade_range=(0, 3))
    with pytest.raises(InputError, match="dimension_ranges names 'fluency'"):
        run_roy2021(path, grade_range=(0, 4), dimension_ranges={"fluency": (1, 5)})
    with pytest.raises(InputError, match="n_resamples"):
        run_roy2021(path, grade_range=(0, 4), n_resamples=5)


def test_dimensions_through_the_protocol(responses, tmp_path):
    """Kendall per human dimension (Table 6's columns) on the replication data with a
    stand-in metric, each dimension's DARR pairs as the oracle would count them."""
    rows = graded_rows(responses, ("M1", "M2", "M3", "M4", "M5"))[:150]
    for row in rows:  # a stand-in metric: the mean DA of the cell, so humans mostly agree
        row["scores"] = {"mean_da": float(np.mean(list(row["grades"].values()))) / 100}
    data = graded_from_rows(rows)
    result = run_roy2021(data, dimension_ranges=LIKERT, n_resamples=100, synthetic=False)
    assert list(result.kendall["mean_da"]) == ["overall", "conciseness", "content_adequacy",
                                               "fluency"]
    for name, (low, high) in LIKERT.items():
        dimension = next(d for d in roy2021.human_dimensions(data, dimension_ranges=LIKERT)
                         if d.name == name)
        human, values, groups = roy2021.darr_rows(data, dimension,
                                                  data.scores["mean_da"])
        assert result.kendall["mean_da"][name] == darr_kendall(human, values, groups)
        assert dimension.mapped(high) == 100 and dimension.mapped(low) == 0
    assert result.kendall["mean_da"]["overall"]["tau"] > 0.5
    assert result.human_scale["dimensions"] == {k: list(v) for k, v in LIKERT.items()}


def test_cli_roy2021(tmp_path):
    path = shared_data("hearthstone", "hs.graded.jsonl")
    out = tmp_path / "roy.json"
    table = tmp_path / "roy.csv"
    result = subprocess.run(
        [sys.executable, "-m", "cgm_metrics", "agreement", str(path), "--protocol", "roy2021",
         "--grade-range", "0", "4", "--n-resamples", "200", "--json", str(out),
         "--csv", str(table)], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert result.returncode == 0, result.stderr
    assert "mapped linearly to 0-100" in result.stdout
    assert "Kendall's tau of DARR pairs" in result.stdout
    payload = json.loads(out.read_text(encoding="utf-8"))
    for key in ("bins", "type_i", "type_ii", "disagreement", "kendall", "human_scale",
                "human_scores", "darr", "pairs"):
        assert key in payload
    assert payload["protocol"] == "roy2021" and payload["n_resamples"] == 200
    assert table.read_text(encoding="utf-8").startswith("table,metric,bin,rate,errors,size")
    bad = subprocess.run(
        [sys.executable, "-m", "cgm_metrics", "agreement", str(path), "--protocol", "roy2021",
         "--grade-range", "0", "3"], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert bad.returncode == 1 and "--grade-range" in bad.stderr
    assert "Traceback" not in bad.stderr
