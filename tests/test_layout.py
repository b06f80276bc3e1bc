"""The package's layout: the metrics' maths live in ``cgm_metrics.maths``; code written for the
earlier layout (``from cgm_metrics.codebleu import calc_codebleu``) still imports the same
objects, with a DeprecationWarning that names the new path."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from cgm_metrics import _moved


@pytest.mark.parametrize("old", sorted(_moved.MOVED))
def test_an_old_path_is_the_moved_module_and_says_where_it_went(old):
    new = _moved.MOVED[old]
    code = (
        "import importlib, warnings\n"
        "warnings.simplefilter('error', DeprecationWarning)\n"
        f"try:\n    importlib.import_module({old!r})\n"
        "except DeprecationWarning as warning:\n    print(warning)\n"
        "warnings.simplefilter('ignore', DeprecationWarning)\n"
        f"old = importlib.import_module({old!r})\n"
        f"new = importlib.import_module({new!r})\n"
        "print(old is new, old.__spec__.name, old.__name__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert out == [f"{old} moved to {new}; import it from there", f"True {new} {new}"]


def test_the_codebleu_drop_in_import_of_the_earlier_layout_still_scores():
    with pytest.warns(DeprecationWarning, match="cgm_metrics.maths.codebleu"):
        sys.modules.pop("cgm_metrics.codebleu", None)
        old = importlib.import_module("cgm_metrics.codebleu")
    from cgm_metrics.maths.codebleu import calc_codebleu

    assert old.calc_codebleu is calc_codebleu
    sys.modules.pop("cgm_metrics.codebleu.functions", None)
    functions = importlib.import_module("cgm_metrics.codebleu.functions")
    assert functions is importlib.import_module("cgm_metrics.maths.codebleu.functions")


def test_the_earlier_command_python_m_cgm_metrics_codebleu_still_runs(tmp_path):
    """``python -m cgm_metrics.codebleu`` (the earlier layout's command) runs the moved one."""
    (tmp_path / "ref.txt").write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "hyp.txt").write_text("x = 1\n", encoding="utf-8")
    runs = [subprocess.run([sys.executable, "-m", module, "--refs", "ref.txt", "--hyp", "hyp.txt",
                            "--lang", "python"], capture_output=True, text=True, cwd=tmp_path)
            for module in ("cgm_metrics.codebleu", "cgm_metrics.maths.codebleu")]
    assert [run.returncode for run in runs] == [0, 0], [run.stderr for run in runs]
    assert runs[0].stdout == runs[1].stdout and "CodeBLEU" in runs[0].stdout


def test_every_built_in_metric_is_in_the_maths_package_unless_it_runs_programs():
    """pass@k and COMBINED run programs for their statistics: their classes sit with the
    execution engine, their maths (``maths.passk``, ``maths.edit_sim``) in the maths."""
    from cgm_metrics.registry import BUILTIN_METRICS, METRIC_FAMILIES, metric_class

    targets = {**BUILTIN_METRICS, **METRIC_FAMILIES}
    outside = {name for name, target in targets.items()
               if not target.startswith("cgm_metrics.maths.")}
    assert outside
    for name in outside:
        assert targets[name].startswith("cgm_metrics.execution.metrics:"), name
    for name in BUILTIN_METRICS:
        assert metric_class(name).runs_code == (name in outside), name


def test_a_name_that_did_not_move_is_not_found_by_the_alias():
    assert _moved.new_name("cgm_metrics.core.parsing") is None
    assert _moved.new_name("cgm_metrics.codebleu.engine") == "cgm_metrics.maths.codebleu.engine"
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("cgm_metrics.codebleu_missing")
