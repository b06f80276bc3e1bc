"""Metric-human agreement: exact reproduction of Out of the BLEU on HearthStone, M-MSR against
crowd-kit, the default protocol, bad inputs and the ``cgm agreement`` command."""

import json
import subprocess
import sys

import numpy as np
import pytest
from conftest import shared_data

from cgm_metrics.agreement import (
    GradedInputError,
    format_table,
    graded_from_rows,
    majority_vote,
    mean_grade,
    mmsr,
    read_graded_jsonl,
    run_agreement,
    to_csv,
    to_json,
)
from cgm_metrics.agreement import plot as draw_plot


def _hs(*name):
    return shared_data("hearthstone", *name)


@pytest.fixture(scope="module")
def hs_protocol():
    return run_agreement(_hs("hs.graded.jsonl"), protocol="evtikhiev2023")


def _key(metric):
    return "rouge_l" if metric == "rougel" else metric


# ----------------------------------------------------------------- exact reproduction


def test_hs_pair_probabilities_equal_published(hs_protocol):
    published = json.loads(_hs("hs-model-pairs.json").read_text())
    assert hs_protocol.models == list(published)  # 30 models, same order, same de-duplication
    compared = 0
    for m1, row in published.items():
        for m2, values in row.items():
            for metric, value in values.items():
                assert hs_protocol.pair_probabilities[m1][m2][_key(metric)] == value, (
                    m1, m2, metric)
                compared += 1
    assert compared == 6090


def test_hs_model_scores_equal_published(hs_protocol):
    published = json.loads(_hs("hs-model-scores.json").read_text())
    exact = 0
    for model, values in published.items():
        for key, value in values.items():
            metric, _, part = key.partition("-")
            ours = hs_protocol.model_scores[model][_key(metric)][part or "score"]
            # 629 of 630 are bit-identical; one corpus-BLEU median differs in the last bit
            # (the study's platform); everything else is exact. BLEU takes exp/log from the C
            # library as sacrebleu does: numpy's SIMD exp/log (AVX-512 CPUs) differ from it in
            # the last bit and made 4 BLEU values differ on such machines.
            assert ours == pytest.approx(value, rel=1e-15, abs=0), (model, key)
            exact += ours == value
    assert exact >= 629


def test_hs_total_mismatch_rates_equal_published(hs_protocol):
    # Out of the BLEU, HearthStone metric-human disagreement rates (share of 435 pairs)
    published = {"rouge_l": 0.2230, "chrf": 0.2690, "ruby": 0.3793, "meteor": 0.4069,
                 "bleu": 0.4437, "codebleu": 0.6207}
    for metric, rate in published.items():
        total = hs_protocol.table[metric][-1]
        assert total["bin"] == "all" and total["pairs"] == 435
        assert round(total["mismatch_rate"], 4) == rate, metric


def test_hs_significance_counts_from_published_pairs(hs_protocol):
    published = json.loads(_hs("hs-model-pairs.json").read_text())
    names = list(published)
    for metric in ("chrf", "rougel", "bleu"):
        significant = sum(
            1 for i, a in enumerate(names) for b in names[:i]
            if not 0.05 < published[a][b][metric] < 0.95
        )
        assert hs_protocol.table[_key(metric)][-1]["significant"] == significant


def test_hs_mmsr_reproduces_published_grades():
    data = read_graded_jsonl(_hs("hs.graded.jsonl"))
    ours = mmsr(data.raw_grades).reshape(data.n_systems, data.n_items)
    assert int((ours == data.grade).sum()) == 132
    aggregated = json.loads(_hs("hs-aggregated-grades.json").read_text())
    for s, system in enumerate(data.systems):
        assert [row[f"grade-{system}"] for row in aggregated] == ours[s].tolist()


def test_mmsr_matches_crowdkit_on_hs_and_random_data():
    import crowdkit.aggregation as crowdkit  # the peer (test extra)
    import pandas as pd
    data = read_graded_jsonl(_hs("hs.graded.jsonl"))
    datasets = [data.raw_grades]
    rng = np.random.default_rng(0)
    for n_workers, n_tasks, n_labels in ((5, 40, 3), (6, 60, 5), (4, 30, 2)):
        truth = rng.integers(0, n_labels, n_tasks)
        tasks = []
        for t in range(n_tasks):
            grades = {}
            for w in range(n_workers):
                good = rng.random() < (0.9 if w < n_workers - 1 else 0.3)
                grades[f"w{w}"] = int(truth[t] if good else rng.integers(0, n_labels))
            tasks.append(grades)
        datasets.append(tasks)
    for tasks in datasets:
        frame = pd.DataFrame(
            [(w, t, label) for t, grades in enumerate(tasks) for w, label in grades.items()],
            columns=["worker", "task", "label"],
        )
        model = crowdkit.MMSR()
        theirs = model.fit_predict(frame).sort_index().to_numpy(dtype=float)
        assert mmsr(tasks).tolist() == theirs.tolist()


def test_mean_and_majority():
    tasks = [{"a": 1, "b": 3}, {"a": 2, "b": 2, "c": 4}, {"a": 0, "b": 4, "c": 4}]
    assert mean_grade(tasks).tolist() == [2.0, 8 / 3, 8 / 3]
    assert majority_vote(tasks).tolist() == [1.0, 2.0, 4.0]  # ties -> smallest grade


# ----------------------------------------------------------------- default protocol


def _toy_rows(n_items=40, systems=("good", "mid", "bad"), noise=0.0, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_items):
        for level, system in zip((4, 2, 0), systems, strict=False):
            grade = int(np.clip(level + rng.integers(-1, 2), 0, 4))
            rows.append({"item": i, "system": system, "prediction": f"x = {grade}",
                         "references": ["x = 4"], "grades": {"g1": grade, "g2": grade},
                         "scores": {"tracks": grade / 4, "inverse": 1 - grade / 4,
                                    "noise": float(rng.random())}})
    return rows


def test_default_protocol_verdicts_follow_the_data():
    result = run_agreement(graded_from_rows(_toy_rows()), synthetic=False, n_resamples=500)
    assert result.protocol == "default" and result.correction == "holm"
    assert result.models == ["good", "mid", "bad"]
    rows = {m: result.table[m][-1] for m in ("tracks", "inverse", "noise")}
    # a metric equal to the human grade agrees on every pair, its mirror image is always
    # significant in the wrong direction, noise misses the human differences
    assert rows["tracks"]["mismatches"] == 0 and rows["tracks"]["significant"] == 3
    assert rows["inverse"]["opposite"] == 3 and rows["inverse"]["mismatch_rate"] == 1.0
    assert rows["noise"]["type_ii"] >= 2
    scores = result.model_scores["good"]["tracks"]
    assert scores["low"] <= scores["score"] <= scores["high"]
    per_item = result.correlations["per_item"]["tracks"]["kendall"]
    assert per_item["value"] == pytest.approx(1.0)
    assert result.correlations["per_item"]["inverse"]["pearson"]["value"] == pytest.approx(-1.0)


def test_default_protocol_is_deterministic_and_seeded():
    data = graded_from_rows(_toy_rows(noise=1))
    a = run_agreement(data, n_resamples=200, correlations=False)
    b = run_agreement(data, n_resamples=200, correlations=False)
    c = run_agreement(data, n_resamples=200, correlations=False, seed=7)
    assert to_json(a) == to_json(b)
    assert a.model_scores == b.model_scores and a.seed == 12345 and c.seed == 7
    assert a.pair_probabilities != c.pair_probabilities


def test_default_protocol_on_hs_holm_is_conservative():
    holm = run_agreement(_hs("hs.graded.jsonl"), n_resamples=300, correlations=False)
    plain = run_agreement(_hs("hs.graded.jsonl"), n_resamples=300, correlations=False,
                          correction="none")
    for metric in ("chrf", "bleu"):
        assert holm.table[metric][-1]["significant"] <= plain.table[metric][-1]["significant"]
    assert plain.table["chrf"][-1]["significant"] > 0


def test_outputs_json_csv_plot(tmp_path, hs_protocol):
    out = json.loads(to_json(hs_protocol, tmp_path / "out.json"))
    for key in ("models", "pair_probabilities", "model_scores", "table"):
        assert key in out
    assert out["model_scores"]["gcnn"]["grade"].keys() == {"score", "low", "high"}
    csv_text = to_csv(hs_protocol, tmp_path / "out.csv")
    assert csv_text.splitlines()[0].startswith("metric,bin,pairs,significant")
    assert len(csv_text.splitlines()) == 1 + 6 * 5
    png = draw_plot(hs_protocol, tmp_path / "pairs.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_computed_registry_metric():
    import sacrebleu

    rows = _toy_rows(n_items=12)
    result = run_agreement(graded_from_rows(rows), metrics=["chrf_code"], synthetic=False,
                           n_resamples=100)
    assert result.sources["chrf_code"].startswith("registry:")
    preds = [r["prediction"] for r in rows if r["system"] == "mid"]
    refs = [r["references"][0] for r in rows if r["system"] == "mid"]
    expected = sacrebleu.corpus_chrf(preds, [refs]).score / 100
    assert result.model_scores["mid"]["chrf_code"]["score"] == pytest.approx(expected)


def test_every_registry_metric_through_the_command(tmp_path, capsys):
    """`cgm agreement` runs with every registry metric that does not run code on the HearthStone
    rows (pass@k and COMBINED need unit tests); registry:NAME computes NAME although the rows'
    'scores' hold the paper's per-item values of that name."""
    from cgm_metrics.frontends.cli import main
    from cgm_metrics.pipeline.evaluation import describe_metrics

    names = [entry["name"] for entry in describe_metrics() if not entry["runs_code"]]
    assert len(names) >= 12
    out = tmp_path / "out.json"
    from cgm_metrics.maths import crystal_bleu

    crystal_bleu._WARNED.clear()  # shown once per process: this worker may have shown it
    with pytest.warns(UserWarning, match="trivially_shared"):  # crystal_bleu without a list
        code = main(["agreement", str(_hs("hs.graded.jsonl")), "--n-resamples", "100",
                     "--metrics", "codebleu", *(f"registry:{name}" for name in names),
                     "--lang", "python", "--json", str(out)])
    assert code == 0
    printed = capsys.readouterr().out
    result = json.loads(out.read_text())
    assert result["metric_sources"]["codebleu"] == "file"
    for name in names:
        key = f"registry:{name}"
        assert result["metric_sources"][key].startswith(f"registry:{name}|"), key
        assert sum(row["pairs"] for row in result["table"][key] if row["bin"] != "all") == 435
        assert result["correlations"]["per_item"][key]["kendall"]["value"] is not None
        assert key in printed
    # the file's per-item scores and ours are different series: the paper's CodeBLEU read code
    # tokens, the codebleu package's definition whitespace-separated words
    item = result["correlations"]["per_item"]
    assert item["codebleu"]["pearson"]["value"] != item["registry:codebleu"]["pearson"]["value"]


def test_registry_prefix_names_an_unknown_metric():
    rows = _toy_rows(n_items=12)
    with pytest.raises(GradedInputError, match=r"'registry:nope' is not a registered metric "
                       r"\(bleu, chrf_code"):
        run_agreement(graded_from_rows(rows), metrics=["registry:nope"], synthetic=False,
                      n_resamples=100)


def test_metric_options_reach_the_computed_metric(monkeypatch):
    """CrystalBLEU with a list of trivially shared n-grams through metric_options gives the
    corpus score of the registry metric called with that list."""
    import cgm_metrics
    from cgm_metrics.maths import crystal_bleu

    monkeypatch.setattr(crystal_bleu, "_WARNED", set())  # its warning shows once a process
    from cgm_metrics.maths.crystal_bleu import trivially_shared_ngrams

    rows = [json.loads(line) for line in _hs("hs.graded.jsonl").read_text().splitlines()]
    preds = [r["prediction"] for r in rows if r["system"] == "nl2code"]
    refs = [r["references"] for r in rows if r["system"] == "nl2code"]
    shared = trivially_shared_ngrams([r[0] for r in refs], k=50)
    result = run_agreement(graded_from_rows(rows), metrics=["crystal_bleu"], synthetic=False,
                           n_resamples=100, correlations=False,
                           metric_options={"crystal_bleu": {"trivially_shared": shared}})
    expected = cgm_metrics.score("crystal_bleu", preds, refs, trivially_shared=shared)["score"]
    from cgm_metrics.maths import crystal_bleu

    crystal_bleu._WARNED.clear()  # shown once per process: this worker may have shown it
    with pytest.warns(UserWarning, match="trivially_shared"):
        plain = cgm_metrics.score("crystal_bleu", preds, refs)["score"]
    assert abs(expected - plain) > 0.05  # the list matters on these programs (0-1 scores)
    assert result.model_scores["nl2code"]["crystal_bleu"]["score"] == pytest.approx(
        expected, rel=1e-12)
    assert "trivially_shared:none" not in result.sources["crystal_bleu"]
    with pytest.raises(GradedInputError, match="metric_options names 'tsed', which is not a "
                       "computed metric"):
        run_agreement(graded_from_rows(rows), metrics=["crystal_bleu"], synthetic=False,
                      n_resamples=100, metric_options={"tsed": {}})


# ----------------------------------------------------------------- bad input


def test_malformed_jsonl_reports_line(tmp_path):
    path = tmp_path / "g.jsonl"
    path.write_text('{"item": 0, "system": "a", "grade": 1}\n\n{"item": 1, "system": \n')
    with pytest.raises(GradedInputError, match="line 3"):
        read_graded_jsonl(path)


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([{"item": 0, "system": "a", "grade": 1}, {"item": 1, "system": "a", "grade": 2},
          {"item": 0, "system": "b", "grade": 1}], "no row for 1 item"),
        ([{"item": 0, "system": "a", "grade": 1}, {"item": 1, "system": "a", "grade": 2}],
         "only one system"),
        ([{"item": 0, "system": "a", "grade": 1}, {"item": 0, "system": "a", "grade": 2}],
         "appears twice"),
        ([{"item": 0, "system": "a"}, {"item": 0, "system": "b"}], "no human grades"),
        ([{"item": 0, "system": "a", "grade": 1, "scores": {"m": 0.1}},
          {"item": 0, "system": "b", "grade": 1, "scores": {}}], "score 'm' is missing"),
    ],
)
def test_bad_rows(rows, message):
    with pytest.raises(GradedInputError, match=message):
        graded_from_rows(rows)


def test_grades_out_of_range():
    rows = _toy_rows(n_items=5)
    rows[3]["grades"]["g1"] = 7
    with pytest.raises(GradedInputError, match="outside the grade range"):
        run_agreement(graded_from_rows(rows))
    rows[3]["grades"]["g1"] = -1
    with pytest.raises(GradedInputError, match="-1"):
        run_agreement(graded_from_rows(rows))


def test_bad_options():
    data = graded_from_rows(_toy_rows(n_items=5))
    with pytest.raises(ValueError, match="protocol"):
        run_agreement(data, protocol="bogus")
    with pytest.raises(ValueError, match="aggregate"):
        run_agreement(data, aggregate_method="median")
    with pytest.raises(ValueError, match="bins"):
        run_agreement(data, bins=(5, 2))
    with pytest.raises(GradedInputError, match="neither in the rows"):
        run_agreement(data, metrics=["no_such_metric"])


# ----------------------------------------------------------------- the command


def _command(*args):
    code = "import sys; from cgm_metrics.frontends.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          timeout=300)


def test_command_reproduces_published_pairs(tmp_path):
    out = tmp_path / "out.json"
    done = _command("agreement", str(_hs("hs.graded.jsonl")), "--protocol", "evtikhiev2023",
                    "--no-correlations", "--json", str(out), "--csv", str(tmp_path / "t.csv"))
    assert done.returncode == 0, done.stderr
    assert "rouge_l" in done.stdout and "0.2230" in done.stdout
    published = json.loads(_hs("hs-model-pairs.json").read_text())
    ours = json.loads(out.read_text())["pair_probabilities"]
    assert ours["nl2code"]["gcnn"]["chrf"] == published["nl2code"]["gcnn"]["chrf"]


def test_command_bad_input_exit_code(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text("{not json}\n")
    done = _command("agreement", str(path))
    assert done.returncode == 1
    assert "line 1" in done.stderr and "Traceback" not in done.stderr


# ----------------------------------------------------------------- correlations


def test_row_correlations_equal_scipy():
    import scipy.stats

    from cgm_metrics.agreement.correlation import (
        average_ranks,
        dense_codes,
        kendall_rows,
        pearson_rows,
        spearman_rows,
    )

    rng = np.random.default_rng(4)
    for n, levels in ((30, 5), (400, 5), (60, 1000)):
        x = rng.integers(0, levels, size=(12, n)).astype(float)  # ties, as human grades
        y = np.round(rng.random((12, n)) + 0.1 * x, 2)  # ties in the metric, too
        expected = [scipy.stats.kendalltau(a, b)[0] for a, b in zip(x, y, strict=True)]
        assert kendall_rows(x, y).tolist() == expected  # same counts, same arithmetic
        assert kendall_rows(dense_codes(x), dense_codes(y)).tolist() == expected
        assert np.array_equal(average_ranks(y), scipy.stats.rankdata(y, axis=1))
        spearman = [scipy.stats.spearmanr(a, b)[0] for a, b in zip(x, y, strict=True)]
        assert spearman_rows(x, y) == pytest.approx(spearman, rel=1e-12)
        pearson = [scipy.stats.pearsonr(a, b)[0] for a, b in zip(x, y, strict=True)]
        assert pearson_rows(x, y) == pytest.approx(pearson, rel=1e-12)
    assert np.isnan(kendall_rows(np.ones((1, 5)), rng.random((1, 5)))[0])


def test_command_options_and_user_errors():
    path = str(_hs("hs.graded.jsonl"))
    too_few = _command("agreement", path, "--n-resamples", "5")
    assert too_few.returncode == 1 and "n_resamples=5" in too_few.stderr
    assert "Traceback" not in too_few.stderr
    alias = _command("agreement", path, "--resamples", "30", "--no-correlations",
                     "--no-synthetic")
    assert alias.returncode == 0, alias.stderr
    language = _command("agreement", path, "--lang", "cobolx")
    assert language.returncode == 1 and "Unknown language 'cobolx'" in language.stderr


# ----------------------------------------------------------------- bounded at the Space's limits


def _published_synthesis(grades, percentages=(1, 3, 5, 10, 15, 20, 25, 30)):
    """Out of the BLEU 4.3.1 / Roy et al., written out loop by loop: the sources of every
    synthetic model, in the order of the study's code (base, improve then worsen, percent)."""
    n_systems, n_items = grades.shape
    out = []
    for base in range(n_systems):
        for improve in (True, False):
            candidates = []
            for item in range(n_items):
                best, donor = 0.0, -1
                for other in range(n_systems):
                    diff = grades[other, item] - grades[base, item]
                    if other != base and ((diff > 0) if improve else (diff < 0)) and best < abs(diff):
                        best, donor = abs(diff), other
                if donor >= 0:
                    candidates.append((best, item, donor))
            candidates.sort(key=lambda change: change[0], reverse=True)
            for percent in percentages:
                source = [base] * n_items
                for _, item, donor in candidates[: round(percent * n_items / 100)]:
                    source[item] = donor
                out.append(source)
    return out


def test_synthesis_and_deduplication_follow_the_published_recipe():
    from cgm_metrics.agreement import engine

    rng = np.random.default_rng(3)
    for n_systems, n_items in ((2, 66), (5, 40), (9, 7)):
        grades = rng.integers(0, 5, size=(n_systems, n_items)).astype(float)  # many ties
        names = [f"s{k}" for k in range(n_systems)]
        models = engine.synthesize(grades, names)
        assert [m.source.tolist() for m in models[n_systems:]] == _published_synthesis(grades)
        outputs = [[f"out{s}-{i % 3}" for i in range(n_items)] for s in range(n_systems)]
        signature = [tuple(outputs[s][i] for i, s in enumerate(m.source)) for m in models]
        # the study's rule: a model identical to a later one is dropped; default: the first stays
        published = [m.name for k, m in enumerate(models) if signature[k] not in signature[k + 1:]]
        first = [m.name for k, m in enumerate(models) if signature[k] not in signature[:k]]
        fallback = np.zeros((n_systems, n_items, 1))
        assert [m.name for m in engine.deduplicate(models, outputs, fallback,
                                                   "evtikhiev2023")] == published
        assert [m.name for m in engine.deduplicate(models, outputs, fallback,
                                                   "default")] == first


def _scored_rows(n_systems, n_items, seed=0):
    rng = np.random.default_rng(seed)
    return [{"item": i, "system": f"s{s:04d}",
             "grades": {f"g{k}": int(rng.integers(0, 5)) for k in range(3)},
             "scores": {"chrf": float(rng.random()), "ruby": float(rng.random())}}
            for s in range(n_systems) for i in range(n_items)]


def test_an_upload_of_100_systems_by_20_items_is_bounded():
    """2,000 rows, within the Space's limits: 100 real systems and their 1,600 synthetic
    models would be 844,350 pairs; the real systems are compared alone, and the result says
    so (it took 86 s and 3.8 GB with every synthetic model)."""
    import tracemalloc

    data = graded_from_rows(_scored_rows(100, 20))
    tracemalloc.start()
    try:
        result = run_agreement(data, correlations=True)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 400 * 2**20, f"peak {peak / 2**20:.0f} MB"
    assert len(result.models) == 100 and not result.synthetic
    assert result.table["chrf"][-1]["pairs"] == 100 * 99 // 2
    assert "synthetic models left out" in result.notes[0] and "max_models=200" in result.notes[0]
    assert result.models_summary() == "100 models (100 real systems; 0 synthetic)"
    assert "note: synthetic models left out" in format_table(result)


def test_the_table_explains_its_abbreviated_headers(hs_protocol):
    text = " ".join(format_table(hs_protocol).split())
    for legend in ("bin:", "pairs:", "sig / n.s.:", "mism.:", "I: Type-I", "II: Type-II",
                   "opp.:", "rate:"):
        assert legend in text, legend
    small = run_agreement(graded_from_rows(_scored_rows(5, 20)), correlations=False)
    assert not small.notes and len(small.synthetic) == len(small.models) - 5


def test_more_distinct_systems_than_models_is_an_error_before_scoring():
    rows = [{"item": i, "system": f"m{s:04d}", "prediction": f"x = {s} + {i}",
             "references": ["x = 1"], "grade": s % 5} for s in range(2500) for i in range(2)]
    # the unknown metric would fail the scoring: the count is checked first
    with pytest.raises(GradedInputError, match=r"2,500 systems with distinct outputs are more "
                                               r"than the 200 models .* at most 200 systems"):
        run_agreement(graded_from_rows(rows), metrics=["no_such_metric"])


def test_systems_with_identical_outputs_are_counted_in_the_header():
    """2,500 systems x 2 items with 5 distinct outputs per item: 25 distinct models; the
    header no longer reads "25 models (2500 real, the rest synthetic)"."""
    rng = np.random.default_rng(1)
    variants = ["x = sorted(v)", "x = list(v)", "x = v", "pass", "x = sorted(v, reverse=True)"]
    rows = []
    for s in range(2500):
        for i in range(2):
            k = int(rng.integers(0, 5))
            rows.append({"item": i, "system": f"m{s:04d}", "prediction": variants[k],
                         "references": ["x = sorted(v)"], "grade": 4 - k})
    result = run_agreement(graded_from_rows(rows), metrics=["chrf_code"], correlations=False)
    assert len(result.models) == 25 and len(result.systems) == 2500
    assert result.models_summary() == ("25 models (25 of the 2,500 real systems; the other "
                                       "2,475 have outputs identical to a compared model; "
                                       "0 synthetic)")
    import sacrebleu

    for name in result.models[:3]:  # equal cells scored once give each system its own score
        mine = [r for r in rows if r["system"] == name]
        expected = sacrebleu.corpus_chrf([r["prediction"] for r in mine],
                                         [[r["references"][0] for r in mine]]).score / 100
        assert result.model_scores[name]["chrf_code"]["score"] == pytest.approx(expected)


def test_resamples_that_cannot_be_computed_are_refused_first():
    from cgm_metrics.base.io import InputError

    with pytest.raises(InputError, match=r"n_resamples <= 25,000,000"):
        run_agreement(_hs("hs.graded.jsonl"), n_resamples=10**9, metrics=["no_such_metric"])
    with pytest.raises(InputError, match=r"published protocol holds every draw .*"
                                         r"n_resamples <= 757,575 here"):
        run_agreement(_hs("hs.graded.jsonl"), protocol="evtikhiev2023", n_resamples=10**6,
                      metrics=["no_such_metric"])
