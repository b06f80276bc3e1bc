"""Packaging: the evaluate loading scripts ship in the wheel and load from there, the Space
requirements pin the released version, `cgm modules` lists the shipped modules."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from _peers import require
from conftest import METRICS_DIR, ROOT

import cgm_metrics
from cgm_metrics.frontends.cli import main as cgm

MODULES = sorted(p.name for p in METRICS_DIR.iterdir() if (p / f"{p.name}.py").is_file())
REQUIREMENTS = sorted(METRICS_DIR.glob("*/requirements.txt")) + [ROOT / "spaces" / "requirements.txt"]


@pytest.mark.parametrize("path", REQUIREMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_requirements_pin_the_released_version(path):
    lines = [line.split("#")[0].strip() for line in path.read_text().splitlines()]
    pins = [line for line in lines if line.lower().startswith(("cgm-metrics", "cgm_metrics"))]
    assert pins == [f"cgm-metrics=={cgm_metrics.__version__}"], (
        f"{path.relative_to(ROOT)} must pin cgm-metrics=={cgm_metrics.__version__}, the version "
        "a Space installs once it is published")


def test_module_path_in_a_checkout():
    assert sorted(cgm_metrics.module_paths()) == MODULES
    for name in MODULES:
        assert Path(cgm_metrics.module_path(name)) == METRICS_DIR / name
    with pytest.raises(ValueError, match="Available: chrf_code, code_eval, codebleu"):
        cgm_metrics.module_path("bleurt")


def test_cgm_modules(capsys):
    assert cgm(["modules"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == MODULES
    assert all(Path(line.split(None, 1)[1]).is_dir() for line in lines)
    assert cgm(["modules", "codebleu"]) == 0
    assert capsys.readouterr().out.strip() == str(METRICS_DIR / "codebleu")
    assert cgm(["modules", "bleurt"]) == 1
    assert "Available" in capsys.readouterr().err


def _source_copy(target: Path) -> Path:
    """The files a fresh clone has (no build leftovers), in ``target``."""
    ignore = shutil.ignore_patterns(".git", "build", "dist", "*.egg-info", "__pycache__",
                                    "test-artifacts", ".pytest_cache", ".ruff_cache", ".venv")
    shutil.copytree(ROOT, target, ignore=ignore, symlinks=True)
    return target


def test_built_wheel_ships_the_loading_scripts(tmp_path):
    require("build")
    require("wheel")
    source = _source_copy(tmp_path / "source")
    dist = tmp_path / "dist"
    # sdist first, then the wheel from the sdist, as a release does; offline (no isolation)
    done = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir",
                           str(dist), str(source)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (wheel,) = dist.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        archive.extractall(tmp_path / "site")
    for name in MODULES:
        for file in sorted((METRICS_DIR / name).iterdir()):
            if file.is_file():
                assert f"cgm_metrics/modules/{name}/{file.name}" in names, (name, file.name)
    # the unpacked wheel alone: module_path points inside it and evaluate loads from there
    site = tmp_path / "site"
    script = (
        "import cgm_metrics, evaluate, json\n"
        "path = cgm_metrics.module_path('codebleu')\n"
        "module = evaluate.load(path)\n"
        "result = module.compute(predictions=['x = 1'], references=['x = 1'], lang='python')\n"
        "print(json.dumps([cgm_metrics.__file__, path, sorted(cgm_metrics.module_paths()),"
        " result['codebleu']]))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(site), "HF_EVALUATE_OFFLINE": "1"}
    run = subprocess.run([sys.executable, "-c", script], env=env, cwd=tmp_path,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    package_file, path, names_found, value = json.loads(run.stdout.strip().splitlines()[-1])
    assert package_file.startswith(str(site)) and path == str(site / "cgm_metrics/modules/codebleu")
    assert names_found == MODULES
    # the codebleu package: `x = 1` against itself gives 0.7643161313935813
    assert value == pytest.approx(0.7643161313935813, abs=1e-12)
