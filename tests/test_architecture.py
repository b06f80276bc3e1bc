"""The layers of ARCHITECTURE.md hold: its layer map (the fenced ``layers`` block, top to
bottom) names every module of the package, and no module imports from a layer above its own.

Imports are read from the sources (every ``import`` and ``from ... import``, at module level or
inside a function; those under ``if TYPE_CHECKING:`` are annotations only and are skipped). The
package's ``__init__`` is the documented exception: its lazy one-call API reaches up.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "cgm_metrics"
TOP = "cgm_metrics"


def layer_map(text: str) -> list[tuple[str, list[str]]]:
    """The ``layers`` block of ARCHITECTURE.md: (layer, its modules), top to bottom."""
    block = re.search(r"^```layers\n(.*?)^```", text, re.MULTILINE | re.DOTALL)
    assert block is not None, "ARCHITECTURE.md has no ```layers block"
    layers = []
    for line in block.group(1).splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        name, _, modules = line.partition(":")
        assert modules.split(), f"layer {name!r} lists no module"
        layers.append((name.strip(), modules.split()))
    return layers


LAYERS = layer_map((ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8"))
#: module or package -> its layer's rank (0 at the bottom)
RANK = {module: len(LAYERS) - 1 - index
        for index, (_, modules) in enumerate(LAYERS) for module in modules}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def owner(module: str) -> str | None:
    """The entry of the map that holds ``module`` (the longest that is it or a parent)."""
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in RANK:
            return candidate
    return None


def _annotation_only(tree: ast.AST) -> set[int]:
    skipped = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(inner) for inner in ast.walk(node))
    return skipped


def imports(module: str, path: Path, known: set[str]) -> list[tuple[int, str]]:
    """(line, imported module of the package) of every import in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = _annotation_only(tree)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            for alias in node.names:  # a submodule imported by name is the module imported
                name = f"{source}.{alias.name}"
                found.append((node.lineno, name if name in known else source))
    return [(line, name) for line, name in found if name == TOP or name.startswith(TOP + ".")]


def _eager_names() -> set[str]:
    """The names the package's ``__init__`` defines when imported (not its lazy API)."""
    tree = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(target.id for target in node.targets if isinstance(target, ast.Name))
    return names


def test_the_map_is_read_top_to_bottom_and_names_real_modules():
    assert len(LAYERS) >= 3
    known = modules()
    listed = [module for _, entries in LAYERS for module in entries]
    assert len(listed) == len(set(listed)), "a module is in two layers"
    for module in listed:
        assert module in known, f"the layer map names {module}, which is no module of the package"
    # the ground is at the bottom: what it imports from the package is in the ground too
    assert RANK[LAYERS[-1][1][0]] == 0


def _container(module: str, path: Path) -> bool:
    """A package that only holds modules (its ``__init__`` imports nothing): a folder of the
    map's entries, in no layer of its own."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return path.name == "__init__.py" and not any(
        isinstance(node, (ast.Import, ast.ImportFrom)) for node in ast.walk(tree))


def test_every_module_of_the_package_is_in_the_map():
    known = modules()
    missing = [module for module, path in known.items()
               if module != TOP and owner(module) is None and not _container(module, path)]
    assert not missing, f"modules in no layer of ARCHITECTURE.md's map: {missing}"


def test_no_module_imports_from_a_layer_above_its_own():
    known = modules()
    eager = _eager_names()
    wrong = []
    for module, path in known.items():
        if module == TOP:  # the lazy one-call API: the documented exception
            continue
        if owner(module) is None and _container(module, path):
            continue
        rank = RANK[owner(module)]  # type: ignore[index]
        tree_imports = imports(module, path, set(known))
        for line, name in tree_imports:
            if name == TOP:
                continue  # the package's eager names (its version); its lazy API is checked below
            target = owner(name)
            assert target is not None, f"{module} imports {name}, which is in no layer"
            if RANK[target] > rank:
                wrong.append(f"{path.relative_to(ROOT)}:{line}: {module} ({LAYERS[-1 - rank][0]})"
                             f" imports {name} ({LAYERS[-1 - RANK[target]][0]})")
        source = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ImportFrom) and (
                    (node.level == 0 and node.module == TOP)
                    or (node.level and not node.module
                        and len(module.split(".")) - (path.name != "__init__.py") == node.level)):
                for alias in node.names:
                    if f"{TOP}.{alias.name}" not in known and alias.name not in eager:
                        wrong.append(f"{path.relative_to(ROOT)}:{node.lineno}: {module} imports "
                                     f"{alias.name}, the package's lazy API, from the top")
    assert not wrong, "imports against the layers of ARCHITECTURE.md:\n" + "\n".join(wrong)


@pytest.mark.parametrize(("source", "expected"), [
    ("from ..languages import resolve\n", ["cgm_metrics.languages"]),
    ("from .. import maths, __version__\n", ["cgm_metrics.maths", "cgm_metrics"]),
    ("from . import resampling\n", ["cgm_metrics.significance.resampling"]),
    ("import numpy\nfrom typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
     "    from ..maths import tsed\n", []),
])
def test_the_import_reader_resolves_relative_imports(tmp_path, source, expected):
    path = tmp_path / "paired.py"
    path.write_text(source, encoding="utf-8")
    found = imports("cgm_metrics.significance.paired", path, set(modules()))
    assert [name for _, name in found] == expected


def test_a_module_reaching_up_is_found():
    """The check fails where it should: an engine importing the front end."""
    front, engine = owner("cgm_metrics.frontends.commands.score"), owner("cgm_metrics.execution.runs")
    assert front is not None and engine is not None
    assert "cgm_metrics.frontends.commands.score".startswith(front + ".")
    assert RANK[front] > RANK[engine]
