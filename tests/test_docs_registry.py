"""The list of metrics and languages in README.md and docs/index.md is the registry's: the
marked block is what scripts/docs_registry.py generates now, so a metric or a language added
without regenerating it fails here."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _script():
    spec = importlib.util.spec_from_file_location("docs_registry", ROOT / "scripts" / "docs_registry.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_registry_blocks_are_fresh(capsys):
    script = _script()
    assert script.main(["--check"]) == 0, capsys.readouterr().err


def test_the_block_lists_every_builtin_metric_language_and_module():
    import cgm_metrics
    from cgm_metrics.execution.languages import execution_languages
    from cgm_metrics.languages import builtin_names
    from cgm_metrics.pipeline.registry import BUILTIN_METRICS

    text = _script().block("")
    for name in BUILTIN_METRICS:
        shown = "pass@k" if name.startswith("pass@") else name
        assert f"[`{shown}`]" in text, name
    for name in builtin_names("parsing"):
        assert f"`{name}`" in text, name
    for name in execution_languages():
        assert f"(`{name}`)" in text, name
    for name in cgm_metrics.module_paths():
        assert f"`cgm/{name}`" in text, name


def test_a_stale_block_is_found_and_rewritten():
    script = _script()
    text = f"# title\n\n{script.START}\n| old |\n{script.END}\n\nafter\n"
    fresh = script.rewrite(text, "docs/")
    assert fresh.startswith("# title\n\n") and fresh.endswith("\n\nafter\n")
    assert "| old |" not in fresh and "(docs/metrics/codebleu.md)" in fresh
    assert script.rewrite(fresh, "docs/") == fresh
