"""SandboxFusion's ``/run_code`` request and answer, over the sandbox.

A request's fields are checked here, before anything runs: every mistake is a
:class:`RequestError` naming the field (the app answers it with a 400), never a run that
fails for a reason the program did not cause.

A SandboxFusion language name maps to one of the execution languages
(:mod:`cgm_metrics.execution.languages`); its program is the **whole source text** built and
run as the library runs a whole program that reads its stdin
(:func:`~cgm_metrics.execution.languages.stdio_program`: Python as a script, ``g++ -O2`` then
``./main``...), in the sandbox, under the request's limits. Unlike the test harnesses of the
languages' parts, nothing is added to the text and a run passes or fails on its exit status
alone, as SandboxFusion's: SandboxFusion's clients compare its output themselves.

The answer is SandboxFusion's: ``status`` ``Success`` (every step exited with 0),
``Failed`` (a step exited otherwise, was killed, or ran out of time) or ``SandboxError``
(the harness failed: never the program's failure, never a score); ``compile_result`` (for a
compiled language) and ``run_result`` (None when compiling failed), each with ``status``
``Finished`` or ``TimeLimitExceeded``, ``execution_time``, ``return_code``, ``stdout`` and
``stderr``. The sandbox's own words are added where a client may want them: ``limit`` (the
limit that ended a step) and ``result``.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from ...base.errors import ToolchainMissingError
from ...execution.languages import LanguageProgram, stdio_program
from ...execution.sandbox import ExecutionResult, Limits, StepResult


def _sandboxfusion_languages() -> dict[str, str]:
    """The language names a request may give -> the execution language: every name the
    language modules answer to (SandboxFusion's ``nodejs`` is JavaScript's alias) of a
    language whose programs run here."""
    from ...execution.languages import execution_languages
    from ...languages import aliases, find

    runnable = set(execution_languages())
    found = {name: name for name in runnable}
    for alias, name in aliases().items():
        if name in runnable:
            found.setdefault(alias, name)
    return {name: found[name] for name in sorted(found)
            if (language := find(name)) is not None and language.name in runnable}


#: the language names a request may give (SandboxFusion's among them) -> the execution
#: language
SANDBOXFUSION_LANGUAGES: dict[str, str] = _sandboxfusion_languages()

#: SandboxFusion's defaults (seconds)
DEFAULT_COMPILE_TIMEOUT = 10.0
DEFAULT_RUN_TIMEOUT = 10.0
#: the fields of a ``/run_code`` request (SandboxFusion's); others are refused by name
RUN_CODE_FIELDS = ("code", "language", "compile_timeout", "run_timeout", "memory_limit_MB",
                   "stdin", "files", "fetch_files")

class RequestError(ValueError):
    """A request the client can fix: ``field`` names what is wrong (``"body"`` for the whole
    body); ``status`` is the HTTP status to answer with (400, or 413 for a body too large)."""

    def __init__(self, field: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.field = field
        self.status = status

    def to_dict(self) -> dict[str, Any]:
        return {"status": "InvalidRequest", "field": self.field, "message": str(self)}


@dataclass(frozen=True)
class Settings:
    """What the server allows a request: the longest timeouts (seconds), the memory limit
    (MiB) when a request sets none (``memory_limit_MB`` -1) and the largest it may set, and
    the most a program may write to its stdout (kept whole up to that; beyond it the run is
    killed, its ``limit`` ``"output"``)."""

    max_timeout: float = 300.0
    memory_mb: int = 4096
    max_memory_mb: int = 16384
    max_output_bytes: int = 8 * 1024 * 1024

    def __post_init__(self) -> None:
        Limits(timeout=self.max_timeout, memory_mb=self.memory_mb)  # checks both
        Limits(memory_mb=self.max_memory_mb)


@dataclass(frozen=True)
class RunRequest:
    """A checked ``/run_code`` request: the program to run, its limits and how many of its
    steps compile."""

    language: str  # the execution language
    program: LanguageProgram
    limits: Limits
    compile_steps: int
    stdin: str | None = None
    fetch_files: tuple[str, ...] = ()
    name: str = field(default="", compare=False)  # the request's SandboxFusion language

    @property
    def seconds(self) -> float:
        """The longest its steps may take together (wall-clock)."""
        return sum(step.timeout or self.limits.wall_timeout for step in self.program.steps)


def known_languages() -> str:
    return ", ".join(sorted(SANDBOXFUSION_LANGUAGES))


def _number(data: Mapping[str, Any], name: str, default: float, settings: Settings) -> float:
    value = data.get(name)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(
            value) or value <= 0:
        raise RequestError(name, f"`{name}` must be a positive number of seconds, got "
                                 f"{value!r}.")
    if value > settings.max_timeout:
        raise RequestError(name, f"`{name}` is {value!r} s; this server allows at most "
                                 f"{settings.max_timeout:g} s (cgm serve --max-timeout).")
    return float(value)


def _text(value: Any, name: str) -> str:
    """``value`` as a string UTF-8 can store (JSON may carry lone surrogates)."""
    if not isinstance(value, str):
        raise RequestError(name, f"`{name}` must be a string, got {type(value).__name__}.")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        raise RequestError(name, f"`{name}` is not valid text: {error.reason} at character "
                                 f"{error.start} (a lone surrogate escape); send UTF-8 "
                                 "text.") from None
    return value


def check_relative_path(name: Any, field_name: str) -> str:
    """A file's path inside the run's folder: relative, no ``..``, no NUL; else a
    :class:`RequestError` naming ``field_name``."""
    if not isinstance(name, str) or not name or "\0" in name:
        raise RequestError(field_name, f"`{field_name}`: {name!r} must be a non-empty path.")
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts or name.startswith("~"):
        raise RequestError(field_name, f"`{field_name}`: {name!r} escapes the run's folder; "
                                       "give a path relative to it, without '..'.")
    return str(path)


def _files(value: Any) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise RequestError("files", "`files` must map paths to base64 contents, got "
                                    f"{type(value).__name__}.")
    files: dict[str, str] = {}
    for name, content in value.items():
        where = f"files[{name!r}]"
        path = check_relative_path(name, where)
        if content is None:  # SandboxFusion's client allows None: an empty file
            files[path] = ""
            continue
        if not isinstance(content, str):
            raise RequestError(where, f"`{where}` must be base64 text, got "
                                      f"{type(content).__name__}.")
        try:
            data = base64.b64decode(content, validate=True)
        except (binascii.Error, ValueError):
            raise RequestError(where, f"`{where}` is not valid base64.") from None
        try:
            files[path] = data.decode("utf-8")
        except UnicodeDecodeError:
            raise RequestError(where, f"`{where}` is not UTF-8 text once decoded: this server "
                                      "writes text files only.") from None
    return files


def whole_program(language: str, code: str, files: Mapping[str, str] | None = None,
                  stdin: str | None = None, compile_timeout: float = DEFAULT_COMPILE_TIMEOUT,
                  run_timeout: float = DEFAULT_RUN_TIMEOUT,
                  max_output_bytes: int | None = None) -> tuple[LanguageProgram, int]:
    """The program that builds (where needed) and runs the whole program ``code`` of the
    execution language ``language`` (the library's one build of a whole program,
    :func:`~cgm_metrics.execution.languages.stdio_program`), with ``files`` beside it,
    ``stdin`` as its standard input and its stdout kept whole up to ``max_output_bytes``;
    and how many of its steps build it. Where it runs, the toolchain's canary runs first in
    each worker and the JVM is sized to the limits. Raises
    :class:`~cgm_metrics.base.errors.ToolchainMissingError` when its tools are missing, a
    :class:`RequestError` when a file of ``files`` would replace one of the program's own."""
    built = stdio_program(language, code)
    for name in files or {}:
        if name in built.files:
            raise RequestError(f"files[{name!r}]", f"`files[{name!r}]` would replace the "
                               "program's own source file; name it otherwise.")
    last = len(built.steps) - 1
    steps = tuple(
        dataclasses.replace(step, timeout=compile_timeout) if index < last
        else dataclasses.replace(step, timeout=run_timeout, stdin=stdin,
                                 max_output_bytes=max_output_bytes)
        for index, step in enumerate(built.steps))
    program = LanguageProgram(steps, {**(files or {}), **built.files}, language=built.language)
    return program, last


def parse_run_code(data: Any, settings: Settings) -> RunRequest:
    """The checked request of a ``/run_code`` body (a JSON object), or a
    :class:`RequestError` naming the field."""
    if not isinstance(data, Mapping):
        raise RequestError("body", f"the body must be a JSON object, got {type(data).__name__}.")
    unknown = [name for name in data if name not in RUN_CODE_FIELDS]
    if unknown:
        raise RequestError(str(unknown[0]), f"unknown field {unknown[0]!r}; the fields are "
                                            f"{', '.join(RUN_CODE_FIELDS)}.")
    if "code" not in data:
        raise RequestError("code", "`code` is missing: the program's source text.")
    code = _text(data["code"], "code")
    name = data.get("language")
    if name is None:
        raise RequestError("language", f"`language` is missing; one of {known_languages()}.")
    if not isinstance(name, str) or name not in SANDBOXFUSION_LANGUAGES:
        raise RequestError("language", f"`language` {name!r} does not run here; the languages "
                                       f"are {known_languages()}.")
    language = SANDBOXFUSION_LANGUAGES[name]
    compile_timeout = _number(data, "compile_timeout", DEFAULT_COMPILE_TIMEOUT, settings)
    run_timeout = _number(data, "run_timeout", DEFAULT_RUN_TIMEOUT, settings)
    memory = data.get("memory_limit_MB")
    if memory is None or (not isinstance(memory, bool) and isinstance(memory, (int, float))
                          and memory in (-1, 0)):
        memory_mb = settings.memory_mb
    elif (isinstance(memory, bool) or not isinstance(memory, (int, float))
          or not float(memory).is_integer() or not 64 <= memory <= settings.max_memory_mb):
        raise RequestError("memory_limit_MB", f"`memory_limit_MB` must be -1 (the server's "
                           f"default, {settings.memory_mb} MiB) or a whole number of MiB from "
                           f"64 to {settings.max_memory_mb}, got {memory!r}.")
    else:
        memory_mb = int(memory)
    stdin = data.get("stdin")
    if stdin is not None:
        stdin = _text(stdin, "stdin")
    files = _files(data.get("files"))
    fetch = data.get("fetch_files") or []
    if not isinstance(fetch, list) or not all(isinstance(f, str) for f in fetch):
        raise RequestError("fetch_files", "`fetch_files` must be a list of paths.")
    if fetch:
        raise RequestError("fetch_files", "`fetch_files` is not supported: nothing a program "
                                          "writes leaves the sandbox; print it instead.")
    try:
        program, compile_steps = whole_program(language, code, files, stdin, compile_timeout,
                                               run_timeout, settings.max_output_bytes)
    except ToolchainMissingError as error:
        raise RequestError("language", f"`language` {name!r}: {error}", status=400) from None
    limits = Limits(timeout=run_timeout, memory_mb=memory_mb)
    return RunRequest(language, program, limits, compile_steps, stdin, (), name)


# ---------------------------------------------------------------- answers


def _command_result(step: StepResult) -> dict[str, Any]:
    return {
        "status": "TimeLimitExceeded" if step.status == "timeout" else "Finished",
        "execution_time": round(step.duration, 6),
        "cpu_time": round(step.cpu_time, 6),
        "return_code": step.returncode,
        "stdout": step.stdout,
        "stderr": step.stderr,
        "limit": step.limit,
        "result": step.result,
    }


def run_code_answer(result: ExecutionResult, compile_steps: int) -> dict[str, Any]:
    """SandboxFusion's answer for the sandbox's ``result`` of a program whose first
    ``compile_steps`` steps compile."""
    steps = result.steps
    compile_result = run_result = None
    if compile_steps and steps:
        compiled = steps[min(compile_steps, len(steps)) - 1]
        compile_result = _command_result(compiled)
    if len(steps) > compile_steps:
        run_result = _command_result(steps[compile_steps])
    success = bool(steps) and all(step.passed for step in steps) and run_result is not None
    if success:
        message = ""
    elif not steps:  # refused before it ran (a file larger than the limit)
        message = result.result
    else:
        last = steps[-1]
        stage = "compiling" if len(steps) <= compile_steps else "running"
        message = f"{stage}: {last.result}"
    return {
        "status": "Success" if success else "Failed",
        "message": message,
        "compile_result": compile_result,
        "run_result": run_result,
        "executor_pod_name": None,
        "files": {},
    }


def sandbox_error_answer(cause: str) -> dict[str, Any]:
    """The answer for a request the harness could not run (never the program's failure)."""
    return {"status": "SandboxError", "message": cause, "compile_result": None,
            "run_result": None, "executor_pod_name": None, "files": {}}
