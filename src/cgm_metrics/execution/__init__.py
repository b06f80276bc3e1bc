"""Running generated code: the sandbox (every program in its own process, user, file system
view and limits), evaluate's ``code_eval`` on it, and the unbiased pass@k estimator."""

from typing import Any

from ..maths.passk import pass_at_k, pass_at_k_per_task

__all__ = ["extract_code", "extract_solution", "pass_at_k", "pass_at_k_per_task"]


def __getattr__(name: str) -> Any:
    # the extraction loads tree-sitter: imported on first use, not with the package
    if name in ("extract_code", "extract_solution"):
        from . import extract

        return getattr(extract, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
