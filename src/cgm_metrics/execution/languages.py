"""The execution engine's view of the languages: how a program text of a language is
compiled and run in the sandbox, and how its outcome reads in MultiPL-E's vocabulary.

A language runs here when its module (:mod:`cgm_metrics.languages`) has an ``execution``
part (:class:`~cgm_metrics.languages.parts.ExecutionPart`): the tools it needs (found on the
host, each with the Debian or npm package that provides it), the file the text is written to
in the run's private directory, the commands that compile and run it (each a
:class:`~.sandbox.Step` under the sandbox's limits), its default timeout, a tiny program that
must pass before any other runs (the toolchain's canary), and the rule that turns the steps'
outcomes into MultiPL-E's verdict. A program is one text, ``candidate + "\\n" + test``
(MultiPL-E's layout: the prompt and its completion, then the tests). A part without commands
runs in the sandbox's own interpreter (evaluate's code_eval).

Timeouts. ``timeout`` (of code_eval, edit_sim and :func:`run_sources`) is the wall-clock limit
of the step that runs the program; None means the language's ``default_timeout`` (evaluate's
code_eval's for the interpreter, MultiPL-E's run timeouts for the others). A compile step has
a budget of its own, ``compile_timeout`` (30 s, twice MultiPL-E's 15 s: a loaded machine must
not turn a slow compile into a verdict), so a program takes at most
``compile_timeout + timeout``.

Verdicts (MultiPL-E's ``evaluation/src/eval_*.py`` rules, per language): ``OK``,
``Exception``, ``SyntaxError`` (a compile or parse error), ``Timeout``, and for some
languages ``AssertionError`` and ``ReferenceError``. ``passed`` is True exactly when the
verdict is ``OK`` (MultiPL-E's pass@k counts status OK with exit code 0). Where our verdict
deliberately differs from what MultiPL-E's harness would record, the part's ``notes`` say so.

Names come from the one resolver: MultiPL-E's keys are aliases, so a problem file's
``language`` field can be passed as it is.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..base.errors import ToolchainMissingError
from ..languages import DEFAULT_LANGUAGE, Language, names, resolve
from ..languages.parts import COMPILE_TIMEOUT, ExecutionPart, Tool, syntax_error
from .sandbox import (
    ExecutionResult,
    Limits,
    Program,
    Sandbox,
    SandboxError,
    Step,
    StepResult,
    hidden_dirs,
    require_opt_in,
    run_programs,
)

VERDICTS = ("OK", "Exception", "SyntaxError", "Timeout", "AssertionError", "ReferenceError")


@dataclass(frozen=True)
class Toolchain:
    """A language's tools as found on this host: name -> absolute path, and the folders the
    sandbox must show (read-only) for tools that live where it hides them (a home folder)."""

    language: str
    tools: dict[str, str]
    paths: tuple[str, ...] = ()

    def __getitem__(self, name: str) -> str:
        return self.tools[name]


def _exposed_root(path: str) -> str | None:
    """The installation folder of a tool found where the sandbox hides the host (a home
    folder, /opt, a project's folder: anything but the system's folders), which the sandbox
    then shows, exactly that folder: the parent of its ``bin``, or its own folder; None for a
    tool in a system folder."""
    hidden = hidden_dirs()
    if not any(path.startswith(folder.rstrip("/") + "/") for folder in hidden):
        return None
    folder = os.path.dirname(path)
    if os.path.basename(folder) == "bin":
        folder = os.path.dirname(folder)
    return None if folder in hidden or folder == "/" else folder


# --- the table ----------------------------------------------------------------------------------

_PLACEHOLDER = re.compile(r"\{([^{}]+)\}")


@dataclass(frozen=True)
class ExecutionLanguage:
    """One execution language: a language module's ``execution`` part with its names.
    :meth:`build` gives the :class:`~.sandbox.Program` of a text; ``compile_steps`` is how
    many of its steps compile (a failure there is the compile verdict);
    ``classify_compile(step)`` and ``classify_run(step)`` give the verdict of the step that
    ended the program."""

    name: str
    display_name: str
    aliases: tuple[str, ...]
    part: ExecutionPart

    @property
    def tools(self) -> tuple[Tool, ...]:
        return self.part.tools

    @property
    def default_timeout(self) -> float:
        return float(self.part.default_timeout)

    @property
    def canary(self) -> str:
        return self.part.canary

    @property
    def compile_steps(self) -> int:
        return self.part.compile_steps

    @property
    def compile_timeout(self) -> float | None:
        if self.part.compile_timeout is not None:
            return float(self.part.compile_timeout)
        return COMPILE_TIMEOUT if self.compile_steps else None

    @property
    def in_interpreter(self) -> bool:
        """Whether programs run in the sandbox's own Python interpreter (no commands)."""
        return not self.part.commands

    @property
    def multipl_e(self) -> str:
        return self.part.multipl_e

    @property
    def notes(self) -> str:
        return self.part.notes

    @property
    def proof(self) -> str:
        """How a pass proves the tests ran to their end (the completion proof)."""
        return self.part.proof

    @property
    def memory_errors(self) -> tuple[str, ...]:
        """What its tools print when an allocation fails under the memory limit."""
        return tuple(self.part.memory_errors)

    @property
    def fit(self) -> Callable[[Program, int], Program] | None:
        """``fit(program, memory_mb)``: the program sized to the memory limit (the JVM)."""
        return self.part.fit

    def classify_run(self, step: StepResult) -> str:
        return self.part.classify_run(step)

    def classify_compile(self, step: StepResult) -> str:
        rule = self.part.classify_compile or syntax_error
        return rule(step)

    def build(self, toolchain: Toolchain, text: str, compile_timeout: float,
              timeout: float | None) -> Program:
        """The program that compiles and runs ``text``: its files (the text as the part's
        ``finish`` completes it, the harness's own ``files``) and its steps."""
        if self.in_interpreter:
            return Program((Step(python=text, timeout=timeout),))
        values = {**toolchain.tools, "source": self.part.source}

        def filled(argument: str) -> str:
            return _PLACEHOLDER.sub(lambda match: values[match.group(1)], argument)

        steps = tuple(
            Step(argv=tuple(map(filled, command.argv)),
                 timeout=compile_timeout if command.compile else timeout,
                 env=dict(command.env) if command.env else None, vouch=command.vouch)
            for command in self.part.commands
        )
        finish, extra = self.part.finish, self.part.files
        files = {self.part.source: finish(text) if finish is not None else text}
        if extra is not None:
            files.update(extra(text))
        return Program(steps, files)


    def build_stdio(self, toolchain: Toolchain, text: str, compile_timeout: float) -> Program:
        """The program of a whole program ``text`` that reads its stdin (an input/output
        problem's solution): its build steps (each under ``compile_timeout``), then the step
        that runs it (no timeout of its own, no completion proof: the caller gives it its
        stdin and limits). The part's ``stdio`` where it has one, else its file and commands
        without the proof."""
        if self.in_interpreter:
            return Program((Step(python=text, as_main=True),))
        values = {**toolchain.tools, "source": self.part.source}
        if self.part.stdio is not None:
            source, commands = self.part.stdio(text)
            values["source"] = source
        else:
            source, commands = self.part.source, self.part.commands

        def filled(argument: str) -> str:
            return _PLACEHOLDER.sub(lambda match: values[match.group(1)], argument)

        steps = tuple(
            Step(argv=tuple(map(filled, command.argv)),
                 timeout=compile_timeout if command.compile else None,
                 env=dict(command.env) if command.env else None)
            for command in commands
        )
        return Program(steps, {source: text})


def _row(language: Language) -> ExecutionLanguage:
    assert language.execution is not None
    return ExecutionLanguage(language.name, language.display_name, language.names[1:],
                             language.execution)


_ROWS: dict[str, ExecutionLanguage] = {}


def _execution_row(language: Language) -> ExecutionLanguage:
    row = _ROWS.get(language.name)
    if row is None or row.part is not language.execution:
        row = _ROWS[language.name] = _row(language)
    return row


def execution_languages() -> list[str]:
    """The names of the execution languages, sorted."""
    return names("execution")


def get_language(lang: Any, argument: str = "lang") -> ExecutionLanguage:
    """The row of ``lang`` (a name or alias, any case; MultiPL-E's keys included), from the
    one resolver; an :class:`UnsupportedLanguageError` listing the execution languages
    otherwise (a language that can be parsed but not run says what its module lacks)."""
    return _execution_row(resolve(lang, argument, part="execution", user="execution"))


def find_toolchain(lang: Any) -> Toolchain:
    """The tools of ``lang`` on this host, or a :class:`ToolchainMissingError` naming what to
    install."""
    spec = get_language(lang)
    found: dict[str, str] = {}
    missing: list[Tool] = []
    for tool in spec.tools:
        path = tool.find()
        if path is None:
            missing.append(tool)
        else:
            found[tool.name] = path
    if missing:
        names = ", ".join(tool.name for tool in missing)
        fixes = "; ".join(dict.fromkeys(tool.install for tool in missing))
        raise ToolchainMissingError(
            f"{spec.display_name} programs cannot run here: {names} "
            f"{'is' if len(missing) == 1 else 'are'} not installed. Install it: {fixes} "
            f"(with sudo unless root); `cgm modules --languages` lists what can run here."
        )
    roots = [_exposed_root(path) for path in found.values()]
    return Toolchain(spec.name, found, tuple(sorted({r for r in roots if r is not None})))


def missing_packages(languages: Iterable[Any] | None = None) -> list[str]:
    """The Debian packages that would provide the missing tools of ``languages`` (all of
    them by default), in the table's order, each once (scripts/test.sh installs these)."""
    specs = ([get_language(name) for name in execution_languages()] if languages is None
             else [get_language(x) for x in languages])
    packages = [tool.package for spec in specs for tool in spec.tools if tool.find() is None]
    return list(dict.fromkeys(packages))


# --- programs and verdicts ---------------------------------------------------------------------


def default_timeout(lang: Any) -> float:
    """The run timeout ``timeout=None`` means for ``lang``."""
    return get_language(lang).default_timeout


@dataclass(frozen=True)
class LanguageProgram(Program):
    """A :class:`~.sandbox.Program` built for an execution language (``language``, its
    canonical name): its verdict follows the language's rules (:func:`outcome_of`)."""

    language: str = DEFAULT_LANGUAGE


def _built(spec: ExecutionLanguage, toolchain: Toolchain | None, text: Any,
           timeout: float | None) -> LanguageProgram:
    if not isinstance(text, str):
        raise TypeError(f"a program must be a string of code, got {type(text).__name__}.")
    toolchain = toolchain if toolchain is not None else find_toolchain(spec.name)
    program = spec.build(toolchain, text, spec.compile_timeout or 0.0, timeout)
    return LanguageProgram(program.steps, program.files, language=spec.name)


def stdio_program(lang: Any, program_text: str,
                  toolchain: Toolchain | None = None) -> LanguageProgram:
    """The :class:`LanguageProgram` of a whole program of ``lang`` that reads its stdin: its
    build steps, then its run step (see :meth:`ExecutionLanguage.build_stdio`). Raises
    :class:`ToolchainMissingError` when the tools are missing."""
    spec = get_language(lang)
    if not isinstance(program_text, str):
        raise TypeError(f"a program must be a string of code, got {type(program_text).__name__}.")
    toolchain = toolchain if toolchain is not None else find_toolchain(spec.name)
    program = spec.build_stdio(toolchain, program_text, spec.compile_timeout or 0.0)
    return LanguageProgram(program.steps, program.files, language=spec.name)


def steps_for(lang: Any, program_text: str, timeout: float | None = None,
              toolchain: Toolchain | None = None) -> LanguageProgram:
    """The :class:`~.sandbox.Program` (its files and steps) that compiles and runs
    ``program_text`` in ``lang``, its run step limited to ``timeout`` seconds (None: the
    language's default). Raises :class:`ToolchainMissingError` when the tools are missing."""
    spec = get_language(lang)
    run_timeout = spec.default_timeout if timeout is None else float(timeout)
    return _built(spec, toolchain, program_text, run_timeout)


def program_of(lang: Any, program_text: str,
               toolchain: Toolchain | None = None) -> LanguageProgram:
    """As :func:`steps_for`, but the run step takes the timeout of the limits it runs under
    (``Sandbox.run(program, limits=...)``); the compile step keeps its own budget. What a
    problem file's task in another language runs (``tasks.program_for``)."""
    return _built(get_language(lang), toolchain, program_text, None)


def verdict(result: ExecutionResult, lang: Any) -> str:
    """MultiPL-E's verdict of a sandboxed run of a program built by :func:`steps_for`."""
    spec = get_language(lang)
    steps = result.steps
    if not steps:
        if result.status in ("failed", "killed") and not result.passed:
            return "Exception"  # refused before it ran (a text too large or not encodable)
        raise ValueError("the result has no step: it is not a run of a program.")
    last = len(steps) - 1
    if last < spec.compile_steps and not steps[last].passed:
        return spec.classify_compile(steps[last])
    if steps[last].status == "failed" and steps[last].returncode == 0:
        return "Exception"  # it ended with status 0 before its tests finished (no token)
    outcome = spec.classify_run(steps[last])
    if outcome == "OK" and not result.passed:  # OK needs exit status 0 (MultiPL-E's pass@k)
        return "Exception"
    return outcome


@dataclass(frozen=True)
class Outcome:
    """One program's outcome: ``passed`` (the verdict is OK), MultiPL-E's ``verdict``, the
    sandbox's :class:`~.sandbox.ExecutionResult` and ``message``, code_eval's result string
    (``"passed"``, ``"timed out"`` or ``"failed: <error>"``)."""

    passed: bool
    verdict: str
    result: ExecutionResult
    message: str


def allocation_failed(spec: ExecutionLanguage, step: StepResult) -> bool:
    """Whether the output of ``step`` holds what the language's tools print when an
    allocation fails (its part's ``memory_errors``). Text a program can print itself: it
    names no limit in a verdict (see :func:`outcome_of`), only in words."""
    return any(error in step.stderr or error in step.stdout for error in spec.memory_errors)


def _message(spec: ExecutionLanguage, result: ExecutionResult, outcome: str) -> str:
    """code_eval's result string; for a command, which step failed and how."""
    if outcome == "OK":
        return "passed"
    if outcome == "Timeout" or spec.in_interpreter or not result.steps:
        return "timed out" if outcome == "Timeout" else result.result
    compiling = len(result.steps) <= spec.compile_steps
    how = result.steps[-1].result.removeprefix("failed: ")
    if result.passed:  # every step exited with 0, yet the output says it failed (Go)
        how = "the test output reports FAIL"
    if result.limit is None and allocation_failed(spec, result.steps[-1]):
        how += "; its output reports a failed allocation (memory_mb may be too low)"
    return f"failed: {outcome} ({'compiling' if compiling else 'running'}: {how})"


def outcome_of(result: ExecutionResult, lang: Any) -> Outcome:
    """The :class:`Outcome` (verdict, pass, code_eval's result string) of a sandboxed run of a
    program of ``lang`` built by :func:`steps_for` or :func:`program_of`.

    Its status and limit are the sandbox's (what it observed: the exit, the signal, its
    timer, the size of the output). A failed allocation that only the output reports (a
    runtime's "out of memory" message, which the program could print itself) is said in the
    message, never as the limit ``memory_mb``: the run is a plain failure."""
    spec = get_language(lang)
    outcome = verdict(result, spec.name)
    return Outcome(outcome == "OK", outcome, result, _message(spec, result, outcome))


def fitted(program: Any, limits: Limits) -> Any:
    """``program`` with its commands sized to ``limits.memory_mb`` where its language needs
    it (the JVM); any other program as it is."""
    if not isinstance(program, LanguageProgram):
        return program
    spec = get_language(program.language)
    return program if spec.fit is None else spec.fit(program, limits.memory_mb)


def run_checked(sandbox: Sandbox, program: Any, limits: Limits | None,
                checked: set[str]) -> ExecutionResult:
    """``sandbox.run(program, limits=limits)``, first running the toolchain's canary in this
    worker (once per language, remembered in ``checked``) when ``program`` is a
    :class:`LanguageProgram` of a language other than Python."""
    language = getattr(program, "language", None)
    if isinstance(program, LanguageProgram) and language not in checked and not get_language(
            language).in_interpreter:
        spec = get_language(language)
        timeout = limits.timeout if limits is not None else sandbox.limits.timeout
        check_toolchain_in(sandbox, spec, find_toolchain(spec.name), timeout)
        checked.add(spec.name)
    return sandbox.run(fitted(program, limits or sandbox.limits), limits=limits)


def check_toolchain_in(sandbox: Sandbox, spec: ExecutionLanguage, toolchain: Toolchain,
                       timeout: float) -> None:
    """The toolchain's canary in one worker: its tiny right program must pass there, or a
    :class:`~.sandbox.SandboxError` says why (a harness failure, never a verdict)."""
    if spec.in_interpreter:
        return  # the sandbox's own canary covered the interpreter
    program = spec.build(toolchain, spec.canary, max(spec.compile_timeout or 0.0, 60.0),
                         max(timeout, 30.0))
    if spec.fit is not None:
        program = spec.fit(program, sandbox.limits.memory_mb)
    result = sandbox.run(program)
    outcome = verdict(result, spec.name)
    if outcome == "OK":
        return
    step = result.steps[-1]
    detail = (step.stderr.strip() or step.stdout.strip())[-1500:]
    # (the canary is our own program: what its output reports can be believed)
    limit = "memory_mb" if step.limit is None and allocation_failed(spec, step) else step.limit
    hint = (
        f" The limit {limit} ended it: raise it for {spec.display_name} (memory_mb "
        f"{sandbox.limits.memory_mb}, max_file_mb {sandbox.limits.max_file_mb})."
        if limit not in (None, "timeout") else ""
    )
    raise SandboxError(
        f"the {spec.display_name} toolchain ({', '.join(toolchain.tools.values())}) does not "
        f"work inside the sandbox: its canary program, which must pass, ended with "
        f"{outcome} ({step.result}; status {step.status}).{hint} Its output: {detail!r}. This "
        "is a harness failure, not a program's; no program was counted."
    )


def run_sources(
    programs: Iterable[str],
    lang: Any = DEFAULT_LANGUAGE,
    *,
    limits: Limits | None = None,
    num_workers: int = 4,
    require_isolation: bool = True,
    allow_code_execution: bool = False,
    progress: Callable[[int], None] | None = None,
) -> list[Outcome]:
    """Run every program text of ``lang`` in the sandbox (compiled where the language needs
    it), each worker first checking the toolchain with its canary; outcomes in order.
    ``limits.timeout`` is the run step's limit (build the limits with
    ``timeout=default_timeout(lang)`` for the language's default).

    Raises :class:`ToolchainMissingError` before anything runs when the language's tools are
    missing, :class:`~.sandbox.SandboxError` on a harness failure."""
    require_opt_in(allow_code_execution)
    spec = get_language(lang)
    texts = list(programs)
    for index, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"program {index} is {type(text).__name__}, not a string of code.")
    limits = limits if limits is not None else Limits(timeout=spec.default_timeout)
    toolchain = find_toolchain(spec.name)
    built: Sequence[Any]
    if spec.in_interpreter:
        built = texts  # the sandbox's own interpreter
    else:
        built = [fitted(steps_for(spec.name, text, limits.timeout, toolchain), limits)
                 for text in texts]

    def prepare(sandbox: Sandbox) -> None:
        check_toolchain_in(sandbox, spec, toolchain, limits.timeout)

    results = run_programs(
        built,
        limits=limits,
        num_workers=num_workers,
        require_isolation=require_isolation,
        allow_code_execution=True,
        progress=progress,
        paths=toolchain.paths,
        prepare=None if spec.in_interpreter else prepare,
    )
    return [outcome_of(result, spec.name) for result in results]


def tool_version(path: str, arguments: Sequence[str] = ("--version",)) -> str:
    """The first line a tool prints about its version when run with ``arguments`` (its
    ``Tool.version``; for listings), or ''."""
    try:
        done = subprocess.run([path, *arguments], capture_output=True, text=True, timeout=60,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    text = (done.stdout.strip() or done.stderr.strip()).splitlines()
    return text[0].strip() if text else ""


def describe_languages(versions: bool = False) -> list[dict[str, Any]]:
    """Per execution language: name, display name, aliases, whether it can run here, its
    tools (paths, and with ``versions`` their version lines) or the reason and the fix."""
    rows = []
    for spec in map(get_language, execution_languages()):
        row: dict[str, Any] = {"name": spec.name, "display_name": spec.display_name,
                               "aliases": list(spec.aliases), "default_timeout":
                               spec.default_timeout, "compile_timeout": spec.compile_timeout}
        try:
            toolchain = find_toolchain(spec.name)
        except ToolchainMissingError as error:
            row.update(available=False, reason=str(error), tools={})
        else:
            tools = dict(toolchain.tools)
            if spec.in_interpreter:
                import sys

                tools = {"interpreter": sys.executable}
            row.update(available=True, reason="", tools=tools)
            if versions:
                shown = {tool.name: tool.version for tool in spec.tools
                         if tool.kind == "executable" and not tool.check}  # not a library
                if spec.in_interpreter:
                    shown["interpreter"] = ("--version",)
                row["versions"] = {name: tool_version(path, shown[name]) if name in shown
                                   else "" for name, path in tools.items()}
        rows.append(row)
    return rows


__all__ = [
    "COMPILE_TIMEOUT",
    "VERDICTS",
    "ExecutionLanguage",
    "LanguageProgram",
    "Outcome",
    "Tool",
    "Toolchain",
    "ToolchainMissingError",
    "default_timeout",
    "describe_languages",
    "execution_languages",
    "find_toolchain",
    "get_language",
    "missing_packages",
    "outcome_of",
    "program_of",
    "run_checked",
    "run_sources",
    "stdio_program",
    "steps_for",
    "tool_version",
    "verdict",
]
