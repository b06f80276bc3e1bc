"""Figures published in the documentation that are checked here: what the golden CodeBLEU
files hold (tests/data/codebleu/README.md), how the two set orders of CodeBLEU's dataflow part
compare with the package's range (docs, card), and the docs' table of every metric's
agreement with the HearthStone grades (printed by benchmarks/metric_agreement.py)."""

import importlib.util
import re

from conftest import DATA, ROOT


def _golden_script():
    spec = importlib.util.spec_from_file_location("codebleu_golden",
                                                  ROOT / "scripts" / "codebleu_golden.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_golden_data_readme_counts_what_is_there(capsys):
    """The table and counts of tests/data/codebleu/README.md are what the files hold."""
    _golden_script().main(["count"])
    printed = capsys.readouterr().out
    readme = (DATA / "codebleu" / "README.md").read_text(encoding="utf-8")
    table = [line for line in printed.splitlines() if line.startswith("|")]
    assert len(table) == 13 and "\n".join(table) in readme
    flat = " ".join(readme.split())
    varying, files = re.search(r"varies over seeds 0-24: (\d+) of (\d+)", printed).groups()
    assert f"vary in {varying} of the {files} files" in flat
    total = [cell.strip() for cell in table[-1].split("|")]
    pairs, vary5, vary25 = int(total[2]), int(total[-3]), int(total[-2])
    assert f"{vary25} of the {pairs:,} pairs vary over 25 seeds ({vary5} already" in flat


def test_set_order_claims_of_the_readme_and_the_card(capsys):
    """The CodeBLEU page (docs/metrics/codebleu.md) and card: with set_order="source", 3 named golden pairs and 6 of the 10
    corpora fall outside the package's range; with "package", none."""
    _golden_script().main(["check"])
    printed = capsys.readouterr().out
    assert "set_order='package': 0 of 1300 pairs outside" in printed
    assert "0 of 10 corpora outside" in printed
    assert ("set_order='source': 3 of 1300 pairs outside the package's range: c-0103 "
            "(codebleu, dataflow_match_score); javascript-0068 (codebleu, dataflow_match_score); "
            "go-0060 (codebleu, dataflow_match_score)") in printed
    assert "6 of 10 corpora outside" in printed
    page = " ".join((ROOT / "docs" / "metrics" / "codebleu.md").read_text(encoding="utf-8").split())
    card = " ".join((ROOT / "metrics" / "codebleu" / "README.md").read_text(encoding="utf-8").split())
    assert "3 of the 1,300 pairs (c-0103, javascript-0068, go-0060) and 6 of the 10" in page
    assert "3 of the 1,300 golden pairs and 6 of the 10 golden corpora" in card


def test_metric_agreement_table_of_the_docs(capsys):
    """docs/agreement.md, "Which metric to trust": the table is what benchmarks/metric_agreement.py prints
    (every registry metric on the HearthStone grades; fixed seeds, so the same digits)."""
    import warnings

    spec = importlib.util.spec_from_file_location("metric_agreement",
                                                  ROOT / "benchmarks" / "metric_agreement.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        assert module.main([]) == 0
    printed = capsys.readouterr().out
    table = [line for line in printed.splitlines() if line.startswith("|")]
    assert len(table) == 2 + len(module.similarity_metrics()) + 1  # CrystalBLEU twice
    assert {"bleu", "chrf_code", "codebleu", "crystal_bleu", "ruby", "tsed"} <= set(
        module.similarity_metrics())
    page = (ROOT / "docs" / "agreement.md").read_text(encoding="utf-8")
    assert "\n".join(table) in page
