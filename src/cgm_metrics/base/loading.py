"""Where the evaluate loading scripts are, for ``evaluate.load(path)`` without the Hub.

The folders ``metrics/<name>/`` of the source tree (loading script, card, ``app.py``,
``requirements.txt``) ship inside the wheel as ``cgm_metrics/modules/<name>/``. An installed
package finds them there; an editable install or a source checkout finds ``metrics/`` beside
``src/``.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parents[1]
def _roots() -> list[Path]:
    roots = [_PACKAGE_DIR / "modules"]
    source = _PACKAGE_DIR.parent
    if source.name == "src" and (source.parent / "setup.cfg").is_file():
        roots.append(source.parent / "metrics")
    return roots


def _is_module(folder: Path) -> bool:
    return (folder / f"{folder.name}.py").is_file()


def module_paths() -> dict[str, str]:
    """``{name: absolute folder path}`` of every shipped evaluate module, sorted by name."""
    found: dict[str, str] = {}
    for root in _roots():
        if root.is_dir():
            for folder in sorted(root.iterdir()):
                if folder.is_dir() and _is_module(folder):
                    found.setdefault(folder.name, str(folder))
    return dict(sorted(found.items()))


def module_path(name: str) -> str:
    """The folder of the evaluate module ``name``, a path ``evaluate.load`` accepts:

    >>> import evaluate, cgm_metrics
    >>> codebleu = evaluate.load(cgm_metrics.module_path("codebleu"))  # doctest: +SKIP
    """
    paths = module_paths()
    if not isinstance(name, str) or name not in paths:
        available = ", ".join(paths) or "none (the installation lacks cgm_metrics/modules)"
        raise ValueError(f"No evaluate module named {name!r}. Available: {available}.")
    return paths[name]
