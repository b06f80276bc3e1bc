"""Real virtual environments made under ``umask 077``, with cgm-metrics installed by pip from a
wheel of this checkout (not through system site-packages, not through sys.path), for the
sandbox tests: every folder of such a venv, and the ``mkdtemp`` folder it lives in, is private
(mode 0700) to the user who made it.

- :func:`full_venv`: ``pip install cgm-metrics`` with all its dependencies (from PyPI or pip's
  cache), below a ``mkdtemp`` folder under /tmp; made once per test process.
- :func:`light_venv`: below a ``mkdtemp`` folder in the home directory, with cgm-metrics
  installed without dependencies plus the four that ``cgm_metrics.maths.edit_sim`` imports (numpy,
  rapidfuzz, tree-sitter, tqdm); quicker to make.

Tests that use them share the xdist group ``umask077_venvs`` so that one test process builds
each once.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GROUP = pytest.mark.xdist_group("umask077_venvs")
_MADE: list[Path] = []


def _run(command: list[str], what: str, timeout: float = 900, **options) -> str:
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, **options)
    if done.returncode != 0:
        raise AssertionError(f"{what} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return done.stdout


def _private(function):
    """Run ``function`` under umask 077 (restored afterwards)."""

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        old = os.umask(0o077)
        try:
            return function(*args, **kwargs)
        finally:
            os.umask(old)

    return wrapper


@functools.cache
def wheel() -> Path:
    """A wheel of this checkout, built without network (the build tools of this venv)."""
    target = Path(tempfile.mkdtemp(prefix="cgm-wheel-"))
    _MADE.append(target)
    _run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(target), str(ROOT)],
        "building a wheel of this checkout",
        env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
    )
    (found,) = target.glob("cgm_metrics-*.whl")
    return found


def _base_python() -> str:
    """The interpreter this venv was made from (a venv made from a venv python is based on
    it anyway)."""
    return getattr(sys, "_base_executable", None) or sys.executable


@_private
def _make(parent: Path, packages: list[str], no_deps: bool) -> Path:
    venv = parent / "venv"
    _run([_base_python(), "-m", "venv", str(venv)], f"python -m venv {venv}", timeout=300)
    python = venv / "bin" / "python"
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    env.pop("PYTHONPATH", None)
    _run(
        [str(python), "-m", "pip", "install", "-q", *(["--no-deps"] if no_deps else []),
         str(wheel())],
        f"pip install cgm-metrics into {venv}",
        env=env,
    )
    if packages:
        _run([str(python), "-m", "pip", "install", "-q", *packages],
             f"pip install {' '.join(packages)} into {venv}", env=env)
    return python


@functools.cache
@_private
def full_venv() -> Path:
    """The python of a venv under ``/tmp/tmpXXXX`` (mode 0700), all folders private."""
    parent = Path(tempfile.mkdtemp(prefix="cgm-venv-", dir="/tmp"))
    _MADE.append(parent)
    return _make(parent, [], no_deps=False)


@functools.cache
@_private
def light_venv() -> Path:
    """The python of a venv under ``~/.cache/tmpXXXX`` (mode 0700), all folders private."""
    cache = Path.home() / ".cache"
    try:
        cache.mkdir(exist_ok=True)
        parent = Path(tempfile.mkdtemp(prefix="cgm-venv-", dir=cache))
    except OSError as error:  # a set-up failure: an error, never a skip
        raise RuntimeError(f"cannot create a folder in the home directory {cache}: {error}") from None
    _MADE.append(parent)
    return _make(parent, ["numpy", "rapidfuzz", "tree-sitter>=0.25,<0.27", "tqdm"], no_deps=True)


@functools.cache
def humaneval_variants():
    """benchmarks/humaneval_variants.py, loaded by path (benchmarks/ is not a package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "cgm_humaneval_variants", ROOT / "benchmarks" / "humaneval_variants.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def site_packages(python: Path) -> Path:
    return Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                     "finding site-packages").strip())


def run_in(python: Path, script: str, timeout: float = 600, **env: str) -> subprocess.CompletedProcess:
    """Run ``script`` with the venv's python in a clean environment (no PYTHONPATH)."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    environment.update(env)
    return subprocess.run([str(python), "-c", script], capture_output=True, text=True,
                          timeout=timeout, env=environment, cwd="/")


@atexit.register
def remove_all() -> None:
    for path in _MADE:
        shutil.rmtree(path, ignore_errors=True)
    _MADE.clear()
