"""Whether a program's output is a right answer: the comparators of input/output problems.

Every rule answers with a :class:`Check`, in testlib's codes: ``OK`` (0), ``WRONG_ANSWER``
(1), ``PRESENTATION_ERROR`` (2), ``FAIL`` (3: the checker itself or the answer is wrong, a
judge error, never the program's wrong answer) and ``POINTS`` (7, a share of the credit),
with a message.

The named comparators (:data:`COMPARATORS`, an :class:`~.io_spec.OutputRule`'s
``comparator``):

- ``"default"``: LiveCodeBench's rule (``grade_stdio``): both texts stripped at their ends and
  split into lines, each line stripped; as many lines on both sides, and each pair equal as
  text or, when every whitespace-separated token of both lines reads as a decimal number,
  equal as decimals (``1.0`` equals ``1``, ``1e3`` equals ``1000``; no tolerance).
- ``"exact"``: the same text, byte for byte.
- ``"tokens"``: testlib's ``wcmp``: the same whitespace-separated tokens (a UTF-8 byte order
  mark at the start ignored).
- ``"lines"``: testlib's ``fcmp``: the answer's lines, each equal to the output's line (a
  carriage return at a line's end ignored); output left over after the answer's lines is a
  presentation error unless it is only whitespace.
- ``"floats"``: tokens; two tokens that both read as numbers match when they differ by at
  most ``abs_tol`` or by at most ``rel_tol`` times the answer's (testlib's ``rcmp6``:
  ``1e-6`` each, the defaults), any other pair when equal as text.
- ``"yesno"``: tokens compared without case (``Yes`` equals ``YES``), as testlib's ``yesno``
  does for one token and Codeforces' checkers for several.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

OK, WRONG_ANSWER, PRESENTATION_ERROR, FAIL, POINTS = 0, 1, 2, 3, 7
#: what testlib's exit codes mean
CODES = {OK: "ok", WRONG_ANSWER: "wrong answer", PRESENTATION_ERROR: "presentation error",
         FAIL: "fail", POINTS: "points"}
_BOM = "\ufeff"


@dataclass(frozen=True)
class Check:
    """The outcome of comparing one output: ``code`` (testlib's: 0 OK, 1 wrong answer, 2
    presentation error, 3 fail, 7 points), ``message``, and for points the share
    ``points`` in [0, 1]."""

    code: int
    message: str = ""
    points: float | None = None

    @property
    def accepted(self) -> bool:
        return self.code == OK or (self.code == POINTS and self.points is not None
                                   and self.points >= 1.0)


def _cut(text: str, size: int = 40) -> str:
    return text if len(text) <= size else text[: size - 3] + "..."


# ---------------------------------------------------------------- LiveCodeBench's rule


def _decimals(line: str) -> list[Decimal] | None:
    try:
        return [Decimal(token) for token in line.split()]
    except (InvalidOperation, ValueError):
        return None


def _stripped_lines(text: str) -> list[str]:
    return [line.strip() for line in text.strip().split("\n")]


def compare_default(output: str, answer: str) -> Check:
    """LiveCodeBench's rule (see the module's text)."""
    got, want = _stripped_lines(output), _stripped_lines(answer)
    if len(got) != len(want):
        return Check(WRONG_ANSWER, f"{len(got)} lines, expected {len(want)}")
    for number, (mine, theirs) in enumerate(zip(got, want, strict=True), 1):
        if mine == theirs:
            continue
        left, right = _decimals(mine), _decimals(theirs)
        if left is None or right is None or left != right:
            return Check(WRONG_ANSWER, f"line {number} differs: expected {_cut(theirs)!r}, "
                                       f"found {_cut(mine)!r}")
    return Check(OK, f"{len(want)} lines")


# ---------------------------------------------------------------- testlib's comparators


def compare_exact(output: str, answer: str) -> Check:
    if output == answer:
        return Check(OK, "the same text")
    pairs = enumerate(zip(output, answer, strict=False))
    position = next((i for i, (a, b) in pairs if a != b), min(len(output), len(answer)))
    return Check(WRONG_ANSWER, f"the texts differ from character {position}")


def _tokens(text: str) -> list[str]:
    return text.removeprefix(_BOM).split()


def _compare_tokens(output: str, answer: str, same: Callable[[str, str], bool]) -> Check:
    got, want = _tokens(output), _tokens(answer)
    for number, expected in enumerate(want, 1):
        if number > len(got):
            return Check(WRONG_ANSWER, f"answer contains longer sequence [length = {len(want)}]"
                                       f", but output contains {len(got)} elements")
        if not same(got[number - 1], expected):
            return Check(WRONG_ANSWER, f"{number}th words differ - expected: "
                                       f"{_cut(expected)!r}, found: {_cut(got[number - 1])!r}")
    if len(got) > len(want):
        return Check(WRONG_ANSWER, "Participant output contains extra tokens")
    return Check(OK, f"{len(want)} tokens")


def compare_tokens(output: str, answer: str) -> Check:
    """testlib's ``wcmp``."""
    return _compare_tokens(output, answer, str.__eq__)


def _lines(text: str) -> list[str]:
    lines = text.removeprefix(_BOM).split("\n")
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def compare_lines(output: str, answer: str) -> Check:
    """testlib's ``fcmp``."""
    got, want = _lines(output), _lines(answer)
    if want and want[-1] == "":
        want = want[:-1]  # the answer's last line break ends its last line
    for number, expected in enumerate(want, 1):
        found = got[number - 1] if number <= len(got) else None
        if found != expected:
            return Check(WRONG_ANSWER, f"{number}th lines differ - expected: "
                                       f"{_cut(expected)!r}, found: {_cut(found or '')!r}")
    if any(line.strip() for line in got[len(want):]):
        return Check(PRESENTATION_ERROR, "Extra information in the output file")
    return Check(OK, f"{len(want)} lines")


def _number(token: str) -> float | None:
    try:
        value = float(token)
    except ValueError:
        return None
    return value


def compare_floats(output: str, answer: str, abs_tol: float = 1e-6,
                   rel_tol: float = 1e-6) -> Check:
    """Tokens, numbers within ``abs_tol`` or ``rel_tol`` of the answer's."""

    def same(found: str, expected: str) -> bool:
        a, b = _number(found), _number(expected)
        if a is None or b is None:
            return found == expected
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        if math.isinf(a) or math.isinf(b):
            return a == b
        return abs(a - b) <= abs_tol or abs(a - b) <= rel_tol * abs(b)

    return _compare_tokens(output, answer, same)


def compare_yesno(output: str, answer: str) -> Check:
    """Tokens compared without case."""
    return _compare_tokens(output, answer, lambda a, b: a.casefold() == b.casefold())


COMPARATORS: dict[str, Callable[..., Check]] = {
    "default": compare_default,
    "exact": compare_exact,
    "tokens": compare_tokens,
    "lines": compare_lines,
    "floats": compare_floats,
    "yesno": compare_yesno,
}
#: the options each comparator takes
OPTIONS = {"floats": ("abs_tol", "rel_tol")}


def comparator(name: str, options: Mapping[str, Any] | None = None) -> Callable[[str, str], Check]:
    """The comparator ``name`` with its ``options``; a ValueError naming the fix for an
    unknown name or option."""
    if name not in COMPARATORS:
        raise ValueError(f"unknown comparator {name!r}; the comparators are: "
                         f"{', '.join(COMPARATORS)} (or give a checker).")
    options = dict(options or {})
    allowed = OPTIONS.get(name, ())
    extra = [key for key in options if key not in allowed]
    if extra:
        takes = "the options " + ", ".join(allowed) if allowed else "no option"
        raise ValueError(f"comparator {name!r} takes {takes}, got "
                         f"{', '.join(map(repr, extra))}.")
    for key, value in options.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
                math.isfinite(value) and value >= 0):
            raise ValueError(f"comparator {name!r}: `{key}` must be a number >= 0, got "
                             f"{value!r}.")
    function = COMPARATORS[name]
    if not options:
        return function
    return lambda output, answer: function(output, answer, **options)


def from_callable(result: Any) -> Check:
    """A Python checker's answer as a :class:`Check`: a Check as it is; True/False; a number
    in [0, 1], the share of credit (1: accepted); a testlib exit code as ``(code, message)``."""
    if isinstance(result, Check):
        return result
    if isinstance(result, bool):
        return Check(OK if result else WRONG_ANSWER, "checker")
    if isinstance(result, (int, float)) and math.isfinite(result) and 0 <= result <= 1:
        if result >= 1:
            return Check(OK, "checker", 1.0)
        return Check(POINTS, f"checker: {result:g} of the credit", float(result))
    if (isinstance(result, tuple) and len(result) == 2 and isinstance(result[0], int)
            and result[0] in CODES):
        return Check(result[0], str(result[1]))
    return Check(FAIL, f"the checker returned {_cut(repr(result))}, not True/False, a share "
                       "in [0, 1] or (exit code, message)")


def from_exit_code(code: int, message: str) -> Check:
    """A testlib checker's exit status as a :class:`Check` (7: points, read from its
    message's first number, a share of 1 where it is one, else no credit); any status
    testlib does not define is a failure of the checker."""
    if code in (OK, WRONG_ANSWER, PRESENTATION_ERROR, FAIL):
        return Check(code, message)
    if code == POINTS:
        points = None
        for token in message.split():
            value = _number(token)
            if value is not None:
                points = value if 0 <= value <= 1 else None
                break
        return Check(POINTS, message, points)
    return Check(FAIL, f"the checker exited with status {code}: {message}")
