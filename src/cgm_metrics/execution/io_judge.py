"""The judge's input/output kind of task (``"io"``): tests given as an input and its expected
output (:mod:`~cgm_metrics.execution.io_spec`), as LiveCodeBench, APPS/TACO, CodeContests
and Codeforces give them.

A sample is judged in one sandbox worker, in one run that stays open
(:meth:`~cgm_metrics.execution.sandbox.Sandbox.session`): the program is built once (a
compiled language's compile steps, from its module's ``stdio`` rule), then run once per test
in the same private directory, each run a fresh process with the test's input on its stdin
(streamed from the host: a test kept on disk is read from its file in chunks) and its whole
stdout captured, up to ``max_output_bytes``. The expected output never enters the sandbox:
the comparison is made here, on the host (:mod:`~cgm_metrics.execution.outputs`), or by a
checker program run in a run of its own, after the program's.

Call-based tests (LeetCode's ``class Solution`` method, or a plain function named by
``fn_name``: APPS/TACO) are run in Python by a driver of ours around the program: it reads the
arguments (one JSON value a line) from its stdin, calls the function with the program's own
prints sent to stderr, and writes the result as JSON (a tuple as a list); the result is
compared with the expected JSON value as values (``2.0`` equals ``2``). The driver starts
with the imports LeetCode's environment (and LiveCodeBench's grader) give every solution
(``typing``, ``collections``, ``heapq``, ``bisect``, ``itertools``, ``functools``,
``math``...). A stdin program runs as ``python program.py`` runs it, with nothing added.

Verdicts per test (:data:`VERDICTS`): ``accepted``, ``wrong_answer``, ``time_limit``,
``memory_limit``, ``runtime_error``, ``compile_error`` (of the sample: its build failed),
``output_limit``, and ``judge_error`` (a checker that failed, exit 3, or an answer that
cannot be read: never the program's wrong answer). Each maps to one of the judge's statuses
(:data:`STATUS_OF`), so pass@k reads them as any verdict. By default a sample stops at its
first test that is not accepted, as judges do; ``all_tests`` runs every test (the share of
tests passed, partial credit). The sample's verdict is its first non-accepted test's, with
that test's input, expected and actual output cut to :data:`DETAIL_CHARS` characters.

Limits: each test runs under the problem's own time limit (``IOSpec.time_limit``) and memory
(``IOSpec.memory_mb``) where it gives them, else the judge's limits (its ``timeout``,
:data:`DEFAULT_TIME_LIMIT` suggested: LiveCodeBench's 6 s, and its ``memory_mb``); the time
limit counts the CPU time of the test's processes, with a wall-clock guard of
``sandbox.WALL_BACKSTOP_FACTOR`` times it. The build runs under the language's compile
budget and the judge's memory limit.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..languages import DEFAULT_LANGUAGE
from . import outputs
from .io_spec import DataRef, IOSpec, IOTest, text_of
from .languages import (
    allocation_failed,
    check_toolchain_in,
    find_toolchain,
    fitted,
    get_language,
    stdio_program,
)
from .runs import Verdict
from .sandbox import ExecutionResult, Limits, Sandbox, Step

#: LiveCodeBench's time limit per test (seconds): the suggested default when a problem has none
DEFAULT_TIME_LIMIT = 6.0
#: the most a test's stdout may hold (bytes) before the run is stopped (output limit)
DEFAULT_MAX_OUTPUT_BYTES = 32 * 1024 * 1024
#: how much of a test's input, expected and actual output a verdict keeps (characters: the
#: first and last half, with "..." between)
DETAIL_CHARS = 1000
#: the most tests sent to the sandbox worker at once (a batch stops at its first run that
#: fails without ``all_tests``; the tests after a wrong answer in a batch run, unjudged)
BATCH = 16
#: a checker program's time limit per test (wall-clock seconds)
CHECKER_TIME_LIMIT = 10.0

VERDICTS = ("accepted", "wrong_answer", "time_limit", "memory_limit", "runtime_error",
            "compile_error", "output_limit", "judge_error")
#: the judge's status (``judge.STATUSES``) of each verdict
STATUS_OF = {"accepted": "passed", "wrong_answer": "failed", "time_limit": "timeout",
             "memory_limit": "killed", "runtime_error": "failed", "compile_error": "failed",
             "output_limit": "killed", "judge_error": "failed"}
#: the limit a verdict names (the sandbox's ``limit``)
_LIMIT_OF = {"time_limit": "timeout", "memory_limit": "memory_mb", "output_limit": "output"}

# the imports LeetCode's environment gives a solution (our own list)
_CALL_PRELUDE = """\
from typing import *
from collections import *
from heapq import *
from bisect import *
from itertools import *
from functools import *
from math import *
from string import *
from operator import *
from builtins import *
import bisect, collections, datetime, functools, heapq, itertools, math, operator, re, string
import sys
"""

_CALL_DRIVER = """

def _cgm_call_():
    import json as json_, sys as sys_
    arguments = [json_.loads(line) for line in sys_.stdin.read().split("\\n") if line.strip()]
    name = {name!r}
    owner = globals().get("Solution")
    if {leetcode!r} and owner is not None and hasattr(owner, name):
        target = getattr(owner(), name)
    elif name in globals():
        target = globals()[name]
    elif owner is not None and hasattr(owner, name):
        target = getattr(owner(), name)
    else:
        raise NameError(f"the program defines no function or Solution method {{name}}")
    out = sys_.stdout
    sys_.stdout = sys_.stderr  # the program's own prints do not mix with its result
    try:
        result = target(*arguments)
    finally:
        sys_.stdout = out
    if isinstance(result, tuple):
        result = list(result)
    try:
        text = json_.dumps(result)
    except (TypeError, ValueError):  # not JSON: its text, which equals no expected value
        text = json_.dumps("<not JSON> " + repr(result))
    out.write(text + "\\n")
    out.flush()


_cgm_call_()
"""

# a checker's run: the three files from its stdin (lengths first), then the checker
_CHECKER_FILES = """\
import os, sys
data = sys.stdin.buffer.read()
head, _, rest = data.partition(b"\\n")
sizes = [int(size) for size in head.split()]
names = ("input.txt", "output.txt", "answer.txt")
for name, size in zip(names, sizes):
    with open(name, "wb") as handle:
        handle.write(rest[:size])
    rest = rest[size:]
"""


def cut(text: str, size: int = DETAIL_CHARS) -> str:
    """``text`` cut to ``size`` characters: its first and last half, "..." between."""
    if len(text) <= size:
        return text
    half = size // 2
    return text[:half] + "..." + text[-half:]


def call_program(code: str, fn_name: str, call_style: str = "leetcode") -> str:
    """The Python program of a call-based test: our prelude, ``code``, our driver (see the
    module's text)."""
    return (_CALL_PRELUDE + code + _CALL_DRIVER.format(name=fn_name,
                                                       leetcode=call_style == "leetcode"))


def _same_json(output: str, expected: str, unwrap: bool = False) -> outputs.Check:
    """Whether the program's last line of output, as JSON, is the ``expected`` JSON value;
    with ``unwrap`` (APPS's call-based tests, whose expected results are stored in a list of
    one item) the value or its one item is accepted, as APPS's harness accepts."""
    try:
        want = json.loads(expected)
    except ValueError:
        return outputs.Check(outputs.FAIL, f"the expected value is not JSON: {cut(expected, 80)!r}")
    lines = output.strip().splitlines()
    try:
        got = json.loads(lines[-1]) if lines else None
    except ValueError:
        return outputs.Check(outputs.WRONG_ANSWER, "the result is not JSON")
    if not lines:
        return outputs.Check(outputs.WRONG_ANSWER, "no result")
    if got == want:  # as values (LiveCodeBench compares with ==: 2.0 equals 2)
        return outputs.Check(outputs.OK, "the same value")
    if unwrap and isinstance(want, list) and len(want) == 1 and got == want[0]:
        return outputs.Check(outputs.OK, "the same value as the expected list's one item")
    return outputs.Check(outputs.WRONG_ANSWER, f"expected {cut(expected.strip(), 80)}, found "
                                               f"{cut(lines[-1], 80)}")


def _stopped(result: ExecutionResult, language: str) -> str | None:
    """The verdict of a test's run that did not end normally, else None (its output
    decides)."""
    if result.limit == "output":
        return "output_limit"
    if result.status == "timeout":
        return "time_limit"
    if result.limit == "memory_mb":
        return "memory_limit"
    if result.returncode != 0 or result.status == "killed":
        steps = result.steps
        if steps and result.limit is None and allocation_failed(get_language(language),
                                                                 steps[-1]):
            return "memory_limit"
        return "runtime_error"
    return None


@dataclass(frozen=True)
class IOProgram:
    """What the judge runs for one sample of an input/output problem: ``code`` in
    ``language`` on the tests of ``spec``; ``all_tests``: every test, not only up to the
    first that fails. The judge's workers call :meth:`judge_in`."""

    spec: IOSpec
    code: str
    language: str = DEFAULT_LANGUAGE
    all_tests: bool = False
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES

    def test_limits(self, limits: Limits) -> Limits:
        """The limits of each test: the problem's own time and memory where it has them,
        else ``limits``'; CPU time, with the wall-clock guard."""
        spec = self.spec
        return replace(limits, timeout=spec.time_limit if spec.time_limit else limits.timeout,
                       memory_mb=spec.memory_mb if spec.memory_mb else limits.memory_mb,
                       clock="cpu")

    def _program(self, limits: Limits) -> tuple[list[Step], dict[str, str], Step]:
        """The build steps (none for Python), the files and the run step of every test."""
        spec = self.spec
        language = get_language(self.language).name
        if spec.test_type == "functional":
            if not get_language(language).in_interpreter:
                raise ValueError(f"call-based tests (fn_name {spec.fn_name!r}) run Python "
                                 f"programs only, not {self.language}.")
            return [], {}, Step(python=call_program(self.code, spec.fn_name or "",
                                                    spec.call_style), as_main=True)
        if get_language(language).in_interpreter:
            return [], {}, Step(python=self.code, as_main=True)
        program = fitted(stdio_program(language, self.code), limits)
        return list(program.steps[:-1]), dict(program.files), program.steps[-1]

    def judge_in(self, sandbox: Sandbox, limits: Limits, checked: set[str]) -> Verdict:
        """Build once, run every test (up to the first not accepted, without
        ``all_tests``), judge each; the sample's :class:`~.runs.Verdict`."""
        spec = self.spec
        language = get_language(self.language).name
        own = self.test_limits(limits)
        if not spec.tests:
            return self._sample([], own, language, "build", "the problem has no test",
                                "judge_error")
        spec_language = get_language(language)
        if language not in checked and not spec_language.in_interpreter:
            check_toolchain_in(sandbox, spec_language, find_toolchain(language), limits.timeout)
            checked.add(language)
        build, files, run = self._program(own)
        tests: list[Verdict] = []
        pending: list[tuple[IOTest, ExecutionResult]] = []  # outputs a checker program judges
        checker_program = spec.rule.checker_source is not None
        with sandbox.session(build, files=files, limits=limits) as session:
            if session.result is not None and not session.result.passed:
                failed = session.result
                why = failed.steps[-1].stderr.strip() or failed.result
                return self._sample([self._verdict("build", "compile_error", failed, own,
                                                   language, message=cut(why, 2000))],
                                    own, language)
            position, size, done = 0, 1, False
            while position < len(spec.tests) and not done:
                # a batch of tests at a time (one exchange with the worker): 1, 2, 4, ... up
                # to BATCH, so that a sample failing early runs few tests past its failure
                batch = spec.tests[position:position + (BATCH if self.all_tests else size)]
                position += len(batch)
                size = min(2 * size, BATCH)
                results = session.steps(
                    [replace(run, stdin=test.input, max_output_bytes=self.max_output_bytes)
                     for test in batch], own, stop=not self.all_tests)
                for test, result in zip(batch, results, strict=False):
                    stopped = _stopped(result, language)
                    if stopped is not None:
                        verdict = self._verdict(test.name, stopped, result, own, language, test)
                    elif checker_program:
                        pending.append((test, result))
                        continue
                    else:
                        verdict = self._judged(test, result, own, language)
                    tests.append(verdict)
                    if not verdict.passed and not self.all_tests:
                        done = True
                        break
        if pending:
            tests = self._check_all(sandbox, pending, tests, own, language)
        return self._sample(tests, own, language)

    # -- judging outputs
    def _judged(self, test: IOTest, result: ExecutionResult, limits: Limits,
                language: str) -> Verdict:
        rule = self.spec.rule
        try:
            expected = text_of(test.output)
        except (OSError, UnicodeDecodeError) as error:
            return self._verdict(test.name, "judge_error", result, limits, language, test,
                                 message=f"the expected output cannot be read: {error}")
        if self.spec.test_type == "functional":
            check = _same_json(result.stdout, expected,
                               unwrap=bool(dict(rule.options).get("apps_unwrap")))
        elif rule.checker_callable is not None:
            try:
                check = outputs.from_callable(rule.checker_callable(
                    text_of(test.input), result.stdout, expected))
            except Exception as error:  # noqa: BLE001 - the checker's failure, not the program's
                check = outputs.Check(outputs.FAIL, f"the checker raised {type(error).__name__}:"
                                                    f" {error}")
        else:
            check = outputs.comparator(rule.comparator, dict(rule.options))(result.stdout,
                                                                           expected)
        return self._from_check(test, check, result, limits, language, expected)

    def _from_check(self, test: IOTest, check: outputs.Check, result: ExecutionResult,
                    limits: Limits, language: str, expected: str) -> Verdict:
        name = ("accepted" if check.accepted else "judge_error" if check.code == outputs.FAIL
                else "wrong_answer")
        return self._verdict(test.name, name, result, limits, language, test,
                             message=check.message, expected=expected)

    def _check_all(self, sandbox: Sandbox, pending: Sequence[tuple[IOTest, ExecutionResult]],
                   stopped: list[Verdict], limits: Limits, language: str) -> list[Verdict]:
        """The outputs of ``pending`` judged by the problem's checker program, in a run of
        its own (built once); in test order with the runs that ``stopped`` (a runtime error
        or a limit), up to the first test not accepted (without ``all_tests``)."""
        rule = self.spec.rule
        checker = rule.checker_source or ""
        checker_language = get_language(rule.checker_language).name
        by_name = {verdict.test: verdict for verdict in stopped}
        files: dict[str, str] = {}
        if get_language(checker_language).in_interpreter:
            build: list[Step] = []
            prefix = _CHECKER_FILES + (
                "sys.argv[:] = ['checker', 'input.txt', 'output.txt', 'answer.txt']\n"
                "del os, sys, data, head, rest, sizes, names\n")
            run = Step(python=prefix + checker, as_main=True, max_output_bytes=1 << 16)
        else:
            program = stdio_program(checker_language, checker)
            build, files = list(program.steps[:-1]), dict(program.files)
            argv = program.steps[-1].argv or ()
            run = Step(python=_CHECKER_FILES + f"os.execv({argv[0]!r}, {list(argv)!r} + "
                              "['input.txt', 'output.txt', 'answer.txt'])\n",
                       as_main=True, max_output_bytes=1 << 16)
        checker_limits = replace(limits, timeout=CHECKER_TIME_LIMIT, clock="wall",
                                 memory_mb=max(limits.memory_mb, 1024))
        done: list[Verdict] = []
        order = [test.name for test in self.spec.tests]
        results = dict((test.name, (test, result)) for test, result in pending)
        with sandbox.session(build, files=files, limits=checker_limits) as session:
            if session.result is not None and not session.result.passed:
                message = "the checker does not build: " + cut(
                    session.result.steps[-1].stderr.strip() or session.result.result, 500)
                first = pending[0]
                return self._ordered(stopped + [self._verdict(
                    first[0].name, "judge_error", first[1], limits, language, first[0],
                    message=message)], order)
            for name in order:
                if name in by_name:
                    done.append(by_name[name])
                    if not by_name[name].passed and not self.all_tests:
                        break
                    continue
                if name not in results:
                    continue
                test, result = results[name]
                expected = text_of(test.output)
                parts = [text_of(test.input).encode(), result.stdout.encode(),
                         expected.encode()]
                data = " ".join(str(len(part)) for part in parts).encode() + b"\n" + b"".join(
                    parts)
                ran = session.step(replace(run, stdin=data.decode("utf-8", "surrogateescape")),
                                   checker_limits)
                message = (ran.stderr.strip() or ran.stdout.strip())[-500:]
                if ran.status == "timeout" or ran.limit is not None:
                    check = outputs.Check(outputs.FAIL, f"the checker stopped: {ran.result}")
                else:
                    check = outputs.from_exit_code(ran.returncode, message)
                verdict = self._from_check(test, check, result, limits, language, expected)
                done.append(verdict)
                if not verdict.passed and not self.all_tests:
                    break
        return done

    @staticmethod
    def _ordered(verdicts: list[Verdict], order: list[str]) -> list[Verdict]:
        return sorted(verdicts, key=lambda verdict: order.index(verdict.test)
                      if verdict.test in order else -1)

    # -- verdicts
    def _verdict(self, name: str, judge: str, result: ExecutionResult, limits: Limits,
                 language: str, test: IOTest | None = None, message: str = "",
                 expected: str | None = None) -> Verdict:
        status = STATUS_OF[judge]
        words = judge.replace("_", " ")
        text = "passed" if judge == "accepted" else (
            f"failed: {words} on test {name}" + (f": {message}" if message else ""))
        if judge == "time_limit":
            text = "timed out"
        io = None
        if test is not None and judge != "accepted":
            try:
                shown_expected = expected if expected is not None else text_of(test.output)
            except (OSError, UnicodeDecodeError):
                shown_expected = ""
            io = {"test": name, "input": cut(_shown(test.input)), "expected":
                  cut(shown_expected), "output": cut(result.stdout),
                  "stderr": cut(result.stderr)}
        limit = _LIMIT_OF.get(judge)
        if judge == "runtime_error" and result.limit is not None:
            limit = result.limit
        return Verdict(judge == "accepted", status, text, limit, round(result.duration, 4),
                       language=language, cpu_time=round(result.cpu_time, 4),
                       time_limit=limits.timeout, clock=limits.clock, judge=judge, test=name,
                       io=io)

    def _sample(self, tests: list[Verdict], limits: Limits, language: str,
                name: str = "", message: str = "", judge: str | None = None) -> Verdict:
        total = len(self.spec.tests)
        if judge is not None:  # no test ran: the sample's own verdict
            words = judge.replace("_", " ")
            tests = [Verdict(False, STATUS_OF[judge], f"failed: {words}: {message}", None, 0.0,
                             language=language, time_limit=limits.timeout, clock=limits.clock,
                             judge=judge, test=name)]
        deciding = next((test for test in tests if not test.passed), tests[-1] if tests
                        else None)
        assert deciding is not None
        return replace(deciding, tests=tuple(tests), tests_total=total,
                       duration=round(sum(t.duration for t in tests), 4),
                       cpu_time=round(sum(t.cpu_time for t in tests), 4))


def _shown(value: str | DataRef) -> str:
    """A test's input as a verdict shows it (a DataRef: its first DETAIL_CHARS only)."""
    if isinstance(value, DataRef):
        length = DETAIL_CHARS if value.length < 0 else min(value.length, DETAIL_CHARS)
        head = DataRef(value.path, value.offset, length).read() if length else ""
        return head + ("..." if value.length < 0 or value.length > DETAIL_CHARS else "")
    return value


# ---------------------------------------------------------------- the task kind


class IOTask:
    """The judge's ``"io"`` kind: a problem whose ``io`` (:class:`~.io_spec.IOSpec`) gives
    its tests as input and expected output. One judge test per sample (an
    :class:`IOProgram`), which runs the problem's tests itself; the judge spreads its verdict
    into one test verdict per test run."""

    name = "io"

    def tests(self, problem: Any, completion: str, extract: bool = False,
              all_tests: bool = False) -> tuple[list[Any], Any]:
        from .tasks import Test

        spec = getattr(problem, "io", None)
        if not isinstance(spec, IOSpec):
            raise ValueError(f"task {problem.task_id}: an input/output task needs `io` (an "
                             "IOSpec) with its tests.")
        if spec.test_type == "functional" and not get_language(problem.language).in_interpreter:
            raise ValueError(f"task {problem.task_id}: call-based tests (fn_name "
                             f"{spec.fn_name!r}) run Python programs only, not "
                             f"{problem.language}.")
        extraction = None
        code = completion
        if extract:
            from .extract import extract_solution

            extraction = extract_solution(completion, problem.language, spec.fn_name or "")
            code = extraction.code or ""
        program = IOProgram(spec, code, problem.language, all_tests=all_tests)
        return [Test("tests", program)], extraction


def io_verdicts(verdict: Verdict) -> Mapping[str, Any]:
    """What a sample's verdict says of its tests: its ``judge`` verdict, how many tests
    ``passed`` of ``total``, and each test's verdict name."""
    return {"judge": verdict.judge, "passed": sum(t.passed for t in verdict.tests),
            "total": verdict.tests_total, "tests": {t.test: t.judge for t in verdict.tests}}


__all__ = ["CHECKER_TIME_LIMIT", "DEFAULT_MAX_OUTPUT_BYTES", "DEFAULT_TIME_LIMIT",
           "DETAIL_CHARS", "STATUS_OF", "VERDICTS", "IOProgram", "IOTask", "call_program",
           "cut", "io_verdicts"]
