"""Packaging beyond setup.cfg: the evaluate loading scripts ship inside the wheel.

``metrics/<name>/`` (loading script, card, app.py, requirements.txt) stays the source of
truth; it is mapped to the package ``cgm_metrics.modules.<name>``, so a wheel or a plain
``pip install .`` holds ``cgm_metrics/modules/<name>/``, and ``cgm_metrics.module_path(name)``
finds it there (or in ``metrics/`` of a source checkout, for editable installs).
"""

from pathlib import Path

from setuptools import find_packages, setup

HERE = Path(__file__).resolve().parent
MODULES = sorted(
    path.name
    for path in (HERE / "metrics").iterdir()
    if path.is_dir() and (path / f"{path.name}.py").is_file()
)

setup(
    packages=find_packages("src") + [f"cgm_metrics.modules.{name}" for name in MODULES],
    package_dir={"": "src", "cgm_metrics.modules": "metrics"},
    package_data={
        "cgm_metrics": ["data/*", "data/**/*"],
        **{f"cgm_metrics.modules.{name}": ["*.md", "*.txt"] for name in MODULES},
    },
)
