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

_VERSIONS: dict[tuple[str, tuple[str, ...]], str] = {}  # tool -> version line, asked once


def _version(path: str, arguments: tuple[str, ...]) -> str:
    if (path, arguments) not in _VERSIONS:
        from .languages import tool_version

        _VERSIONS[(path, arguments)] = tool_version(path, arguments)
    return _VERSIONS[(path, arguments)]


def toolchains(languages: Iterable[str]) -> dict[str, dict[str, str]]:
    """``{language: {tool: version line}}`` of each language (a language run by the
    sandbox's own interpreter: this Python)."""
    from .languages import ToolchainMissingError, find_toolchain, get_language

    out: dict[str, dict[str, str]] = {}
    for language in sorted(set(languages)):
        try:
            spec = get_language(language)
            if spec.in_interpreter:
                out[language] = {"python": f"Python {platform.python_version()} "
                                           f"({platform.python_implementation()})"}
                continue
            tools = find_toolchain(language).tools
        except (ToolchainMissingError, ValueError) as error:
            out[language] = {"missing": str(error)}
            continue
        shown = {tool.name: tool.version for tool in spec.tools
                 if tool.kind == "executable" and not tool.check}  # not a file or a library
        out[language] = {name: (_version(path, shown[name]) if name in shown else "")
                         or os.path.basename(path) for name, path in sorted(tools.items())}
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
