"""The environment a verdict came from, as every result of programs run records it: this
library's version, Python, the platform, the CPUs, the toolchain (name and version) of every
language whose programs ran, and the limits they ran under. Two results that differ here may
differ in their verdicts for that reason alone."""

from __future__ import annotations

import os
import platform
import sys
from collections.abc import Iterable
from typing import Any

_VERSIONS: dict[str, str] = {}  # tool path -> version line, asked once per process


def _version(path: str) -> str:
    if path not in _VERSIONS:
        from .languages import tool_version

        _VERSIONS[path] = tool_version(path)
    return _VERSIONS[path]


def toolchains(languages: Iterable[str]) -> dict[str, dict[str, str]]:
    """``{language: {tool: version line}}`` of each language (Python: this interpreter)."""
    from .languages import ToolchainMissingError, find_toolchain

    out: dict[str, dict[str, str]] = {}
    for language in sorted(set(languages)):
        if language == "python":
            out[language] = {"python": f"Python {platform.python_version()} "
                                       f"({platform.python_implementation()})"}
            continue
        try:
            tools = find_toolchain(language).tools
        except (ToolchainMissingError, ValueError) as error:
            out[language] = {"missing": str(error)}
            continue
        out[language] = {name: _version(path) or os.path.basename(path)
                         for name, path in sorted(tools.items())}
    return out


def describe(languages: Iterable[str], limits: dict[str, Any] | None) -> dict[str, Any]:
    """The environment of a run of programs of ``languages`` under ``limits`` (what
    :meth:`~cgm_metrics.execution.metrics.ExecutionSettings.to_dict` gives; None when no
    program ran)."""
    from .. import __version__

    return {
        "cgm_metrics": __version__,
        "python": sys.version.split()[0],
        "python_implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpus": os.cpu_count() or 1,
        "toolchains": toolchains(languages),
        "limits": limits,
    }
