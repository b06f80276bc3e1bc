"""Old import paths of the modules that moved, kept working.

The metrics' mathematics moved into :mod:`cgm_metrics.maths` (``cgm_metrics.codebleu`` is now
``cgm_metrics.maths.codebleu``, and so on). Code written for the earlier layout, such as
``from cgm_metrics.codebleu import calc_codebleu``, still imports: the old name is the same
module object as the new one, and a ``DeprecationWarning`` names the new path.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
import warnings
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from importlib.abc import Loader

MOVED = {
    "cgm_metrics.chrf": "cgm_metrics.maths.chrf",
    "cgm_metrics.classic": "cgm_metrics.maths.classic",
    "cgm_metrics.codebleu": "cgm_metrics.maths.codebleu",
    "cgm_metrics.codexglue": "cgm_metrics.maths.codexglue",
    "cgm_metrics.crystal_bleu": "cgm_metrics.maths.crystal_bleu",
    "cgm_metrics.edit_sim": "cgm_metrics.maths.edit_sim",
    "cgm_metrics.ruby": "cgm_metrics.maths.ruby",
    "cgm_metrics.tsed": "cgm_metrics.maths.tsed",
    "cgm_metrics.execution.passk": "cgm_metrics.maths.passk",
}


def new_name(fullname: str) -> str | None:
    """The current name of a module imported by its old name, or None if it did not move."""
    for old, new in MOVED.items():
        if fullname == old or fullname.startswith(old + "."):
            return new + fullname[len(old):]
    return None


class _Alias:
    """The loader of an old name (the loader protocol, without importlib.abc: that module
    loads importlib.resources and pathlib, which ``import cgm_metrics`` need not pay for)."""

    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        module = importlib.import_module(self.target)
        self.spec = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        """The module was executed under its new name; the import system has just set its
        ``__spec__`` to the old name's: give it back its own."""
        module.__spec__ = self.spec

    def get_code(self, fullname: str) -> Any:
        """The moved module's code (what ``python -m <old name>`` runs, through runpy)."""
        import importlib.util

        spec = importlib.util.find_spec(self.target)
        get_code = getattr(spec.loader, "get_code", None) if spec is not None else None
        if get_code is None:
            raise ImportError(f"no code for {self.target}", name=fullname)
        return get_code(self.target)

    def get_source(self, fullname: str) -> str | None:
        return None

    def is_package(self, fullname: str) -> bool:
        import importlib.util

        spec = importlib.util.find_spec(self.target)
        return spec is not None and spec.submodule_search_locations is not None


class MovedFinder:
    """Finds an old module name and hands out the module under its new name."""

    def find_spec(self, fullname: str, path: object = None, target: object = None
                  ) -> importlib.machinery.ModuleSpec | None:
        target_name = new_name(fullname)
        if target_name is None:
            return None
        if fullname in MOVED:  # (a submodule's import imports its package first: one warning)
            warnings.warn(f"{fullname} moved to {target_name}; import it from there",
                          DeprecationWarning, stacklevel=2)
        loader = _Alias(target_name)
        return importlib.machinery.ModuleSpec(fullname, cast("Loader", loader),
                                              is_package=loader.is_package(fullname))


def install() -> None:
    if not any(isinstance(finder, MovedFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, MovedFinder())  # before the path finder, which would
        # load the file a second time under the old name through the package's __path__
