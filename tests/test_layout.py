"""The package's layout: the metrics' maths live in ``cgm_metrics.maths``, the metrics that run
programs beside the execution engine."""

from __future__ import annotations


def test_every_built_in_metric_is_in_the_maths_package_unless_it_runs_programs():
    """pass@k and COMBINED run programs for their statistics: their classes sit with the
    execution engine, their maths (``maths.passk``, ``maths.edit_sim``) in the maths."""
    from cgm_metrics.pipeline.registry import BUILTIN_METRICS, METRIC_FAMILIES, metric_class

    targets = {**BUILTIN_METRICS, **METRIC_FAMILIES}
    outside = {name for name, target in targets.items()
               if not target.startswith("cgm_metrics.maths.")}
    assert outside
    for name in outside:
        assert targets[name].startswith("cgm_metrics.execution.metrics:"), name
    for name in BUILTIN_METRICS:
        assert metric_class(name).runs_code == (name in outside), name


def test_the_earlier_paths_of_the_maths_are_gone():
    """The package was never released with its earlier layout: ``cgm_metrics.codebleu`` and the
    other earlier paths are not importable (no alias finder is installed on import)."""
    import importlib
    import sys

    import pytest

    import cgm_metrics

    assert not any(type(finder).__module__.startswith("cgm_metrics") for finder in sys.meta_path)
    for old in ("cgm_metrics.codebleu", "cgm_metrics.tsed", "cgm_metrics.execution.passk"):
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module(old)
    assert not callable(cgm_metrics.languages)
