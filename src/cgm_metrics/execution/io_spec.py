"""What an input/output problem is, independent of the file it came from.

LiveCodeBench, APPS/TACO, CodeContests and SandboxFusion rows all describe the same thing: a
statement, tests given as an **input and its expected output** (a program's stdin and stdout,
or the arguments of a call and its result), how an output is judged right (a comparator or a
checker), and sometimes the problem's own time and memory limits and reference solutions. The
readers of those formats (:mod:`cgm_metrics.execution.io_formats`) make an :class:`IOSpec`; the
judge's input/output kind of task (:mod:`cgm_metrics.execution.io_judge`) runs it. A
:class:`~cgm_metrics.execution.tasks.Problem` carries one in its ``io`` field, with ``kind``
``"io"``.

Large test data (CodeContests' generated tests run to MBs) need not be held in memory: a
test's input or output may be a :class:`DataRef`, a span of a file read when the test runs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..languages import DEFAULT_LANGUAGE

#: how a test feeds the program: its stdin, or the arguments of a call
TEST_TYPES = ("stdin", "functional")
#: a call-based problem's program: a LeetCode ``class Solution`` whose method is called, or a
#: plain function (APPS/TACO ``fn_name``)
CALL_STYLES = ("leetcode", "function")
#: where a test came from (CodeContests' three sets; the others have public and private, or
#: one unnamed set: "tests")
TEST_GROUPS = ("public", "private", "generated", "tests")


@dataclass(frozen=True)
class DataRef:
    """``length`` bytes of the file ``path`` from ``offset``: a test's input or expected
    output kept on disk (UTF-8 text)."""

    path: str
    offset: int = 0
    length: int = -1  # -1: to the end of the file

    def read(self) -> str:
        with open(self.path, "rb") as handle:
            handle.seek(self.offset)
            data = handle.read() if self.length < 0 else handle.read(self.length)
        return data.decode("utf-8")


def text_of(value: str | DataRef) -> str:
    """The text of a test's input or output, read from its file for a :class:`DataRef`."""
    return value.read() if isinstance(value, DataRef) else value


@dataclass(frozen=True)
class IOTest:
    """One test: ``input`` (a stdin text, or for a call one JSON value a line, the positional
    arguments) and the expected ``output`` (a stdout text, or the result as JSON), named
    ``"<group>/<position>"`` within its problem (e.g. ``"private/3"``)."""

    __test__ = False  # not a test case of pytest's

    input: str | DataRef
    output: str | DataRef
    name: str
    group: str = "tests"


@dataclass(frozen=True)
class OutputRule:
    """How an output is judged: a named ``comparator`` (with its options, e.g. ``abs_tol``
    and ``rel_tol`` for ``"floats"``), or a ``checker``: a program in testlib's protocol
    (``checker input output answer``; its source and language, by default the library's
    default language: Python) or a Python callable ``(input, output, answer) -> bool |
    float``. ``comparator`` ``"default"`` is LiveCodeBench's rule."""

    comparator: str = "default"
    options: tuple[tuple[str, Any], ...] = ()
    checker_source: str | None = None
    checker_language: str = DEFAULT_LANGUAGE
    checker_callable: Callable[[str, str, str], Any] | None = None

    @property
    def uses_checker(self) -> bool:
        return self.checker_source is not None or self.checker_callable is not None


@dataclass(frozen=True)
class IOSpec:
    """An input/output problem as the judge needs it.

    ``tests``: every test in judging order (public first). ``test_type``: ``"stdin"`` or
    ``"functional"`` (then ``fn_name`` names the function or method and ``call_style`` says
    which). ``starter_code``: what the statement gives to complete (LeetCode's class header).
    ``time_limit`` (seconds, per test) and ``memory_mb``: the problem's own limits, None where
    the format has none (the harness's defaults then apply). ``rule``: how outputs are judged.
    ``solutions``: reference programs as ``(language, code)`` for ``cgm check``; ``source``:
    the format it was read from (``"livecodebench"``, ``"apps"``, ``"code_contests"``,
    ``"sandboxfusion"``, ...); ``metadata``: what else the row said that a report may show
    (``platform``, ``contest_date``, ``difficulty``...)."""

    tests: tuple[IOTest, ...]
    test_type: str = "stdin"
    fn_name: str | None = None
    call_style: str = "function"
    starter_code: str = ""
    time_limit: float | None = None
    memory_mb: int | None = None
    rule: OutputRule = field(default_factory=OutputRule)
    solutions: tuple[tuple[str, str], ...] = ()
    source: str = ""
    metadata: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self) -> None:
        if self.test_type not in TEST_TYPES:
            raise ValueError(f"`test_type` must be one of {', '.join(TEST_TYPES)}, "
                             f"got {self.test_type!r}.")
        if self.call_style not in CALL_STYLES:
            raise ValueError(f"`call_style` must be one of {', '.join(CALL_STYLES)}, "
                             f"got {self.call_style!r}.")
        if self.test_type == "functional" and not self.fn_name:
            raise ValueError("a call-based problem (test_type 'functional') needs `fn_name`, "
                             "the function or method its tests call.")
