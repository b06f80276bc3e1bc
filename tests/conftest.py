"""Test setup: offline evaluate, caches in temporary folders, paths to the test data in tests/data."""

import os
import tempfile
from pathlib import Path

# Before evaluate is imported anywhere: no network, no download counts.
os.environ["HF_EVALUATE_OFFLINE"] = "1"
os.environ["HF_UPDATE_DOWNLOAD_COUNTS"] = "false"
os.environ.setdefault("HF_HUB_OFFLINE", "1")
_CACHE = tempfile.mkdtemp(prefix="cgm-hf-cache-")
os.environ["HF_HOME"] = _CACHE
os.environ["HF_MODULES_CACHE"] = os.path.join(_CACHE, "modules")
os.environ["HF_METRICS_CACHE"] = os.path.join(_CACHE, "metrics")
# the canonical solutions' times measured by `cgm score/compare --problems` and `cgm check`
os.environ["CGM_CACHE_DIR"] = os.path.join(_CACHE, "cgm-metrics")

import pytest  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
METRICS_DIR = ROOT / "metrics"
DATA = ROOT / "tests" / "data"


def pytest_addoption(parser):
    parser.addoption("--slow", action="store_true",
                     help="also run the tests marked slow (long soaks, whole matrices of "
                          "languages and programs; CGM_SLOW=1 does the same)")


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "slow: a long check (a soak, a whole language x program matrix, a browser "
        "burst) whose representative part runs by default; skipped unless --slow or CGM_SLOW=1")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--slow") or os.environ.get("CGM_SLOW") == "1":
        return
    skip = pytest.mark.skip(reason="slow: run with --slow or CGM_SLOW=1 (docs/development.md)")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _evaluate_caches(tmp_path, monkeypatch):
    """Each test gets its own metric data cache, as evaluate's own test suite does.

    The modules cache (where evaluate copies loading scripts and imports them from, as the
    package ``evaluate_modules``) is one temporary folder for the session: Python imports
    that package once per process, so a second folder would leave every module loaded by a
    later test unimportable (ModuleNotFoundError: evaluate_modules.metrics.<name>).
    """
    import evaluate

    monkeypatch.setattr(evaluate.config, "HF_METRICS_CACHE", str(tmp_path / "metrics_cache"))
    monkeypatch.setattr(evaluate.config, "HF_MODULES_CACHE", os.environ["HF_MODULES_CACHE"])
    monkeypatch.setattr(evaluate.config, "HF_EVALUATE_OFFLINE", True)


def shared_data(*parts: str) -> Path:
    """A data file of the test suite, under tests/data (each folder with the NOTICE of its
    source). The files are part of the repository: a missing one fails the test, never skips it."""
    path = DATA.joinpath(*parts)
    if not path.is_file():
        pytest.fail(f"test data file missing from the repository: tests/data/{'/'.join(parts)}")
    return path


def _load_benchmark_corpus():
    """benchmarks/corpus.py, loaded by path: putting benchmarks/ on sys.path would let its
    scripts (codebleu.py, ruby.py, ...) shadow the real packages of the same names."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("cgm_benchmark_corpus", ROOT / "benchmarks" / "corpus.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


stdlib_pairs = _load_benchmark_corpus().stdlib_pairs
