"""Problem files of input/output problems, recognised by their content: LiveCodeBench,
APPS/TACO, CodeContests, SandboxFusion's stdio rows and the normalised rows of
``tests/data/competitive`` (``tests`` as ``[{input, output}]``). Each row becomes a
:class:`~cgm_metrics.execution.tasks.Problem` of kind ``"io"`` whose ``io`` is an
:class:`~cgm_metrics.execution.io_spec.IOSpec`.

A row is recognised by the fields it has (:func:`row_format`), the first that fits of:

- **LiveCodeBench** (``livecodebench/code_generation_lite``): ``question_id`` and
  ``public_test_cases`` (a JSON string of ``[{input, output, testtype}]``);
  ``private_test_cases`` is the same, or LiveCodeBench's compressed encoding, base64 of zlib
  of a pickle of that JSON string. That pickle is read by :func:`decode_compressed` with an
  unpickler that refuses every global (no class, no function: nothing of the data can run);
  ``metadata`` (a JSON string) names ``func_name`` for call-based ("functional") problems, a
  LeetCode ``class Solution`` whose method is called (call style ``"leetcode"``);
  ``platform``, ``contest_date``, ``difficulty`` are kept as metadata.
- **CodeContests** (DeepMind's): ``public_tests`` with ``private_tests`` or
  ``generated_tests`` (each ``{"input": [...], "output": [...]}``, run public, private,
  generated), ``time_limit`` (``{"seconds", "nanos"}``), ``memory_limit_bytes``, and
  ``solutions`` (``{"language": [ids], "solution": [texts]}``; ids 2 C++, 3 Python 3, 4 Java;
  Python 2's (1) are left out: it does not run here).
- **SandboxFusion** stdio rows: ``test``, a list of ``{"input": {"stdin": ...}, "output":
  {"stdout": ...}}`` (or, as its LiveCodeBench rows ship it, base64 of zlib of a pickled
  ``{"input_output": ...}``), with ``id``, ``content`` and ``labels``.
- **normalised rows**: ``tests`` (``[{input, output}]``) and ``test_type`` (``"stdin"`` or
  ``"functional"``, then ``fn_name``), optionally ``time_limit_s``, ``memory_limit_mb``,
  ``starter_code``, ``reference_solution``.
- **APPS / TACO**: ``input_output`` (a JSON string or object ``{"inputs", "outputs",
  "fn_name"?}``; a call-based test's input is the list of arguments, written one JSON value a
  line), ``solutions`` (a JSON list of Python programs), ``starter_code``. A call-based
  problem whose starter code holds ``class Solution`` is called LeetCode's way, else as a
  plain function. APPS wraps a call's expected result in a list (``[[false], ...]``); the
  rule's ``apps_unwrap`` option says so (an output equal to the list or to its one item
  passes, as APPS's harness does).

The task id is the row's ``task_id``, else ``question_id`` (LiveCodeBench), ``problem_id``
(APPS), ``name`` (CodeContests), ``id``; as a string. A test input or expected output longer
than :data:`SPILL_BYTES` is written once to a temporary file and kept as a
:class:`~cgm_metrics.execution.io_spec.DataRef` (CodeContests' generated tests run to MBs):
the problems then hold only its place.

Every error names the file, the line, the task and the field, and says what to fix.
"""

from __future__ import annotations

import atexit
import base64
import binascii
import io
import json
import os
import pickle
import tempfile
import threading
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ..base.errors import InputError
from ..languages import DEFAULT_LANGUAGE, find
from .io_spec import DataRef, IOSpec, IOTest, OutputRule

#: the formats, in the order a row is tried against them
FORMATS = ("livecodebench", "code_contests", "sandboxfusion", "normalised", "apps")
#: a test's input or expected output longer than this (in UTF-8 bytes) is kept on disk
SPILL_BYTES = 1 << 20


def code_contests_languages() -> dict[int, str]:
    """CodeContests' language ids (``Solution.Language`` of its protos) -> the languages that
    run here, from the language modules' ``code_contests`` (1, Python 2, is none of them)."""
    from ..languages import all_languages

    return {number: language.name for language in all_languages().values()
            if language.has("execution") for number in language.code_contests}


#: the fields that tell a format, for the error of a row that fits none
FORMAT_FIELDS = {
    "human-eval": "task_id, prompt, test, entry_point",
    "livecodebench": "question_id, public_test_cases (private_test_cases, metadata)",
    "code_contests": "public_tests with private_tests or generated_tests",
    "sandboxfusion": "test as [{input: {stdin}, output: {stdout}}], with id",
    "normalised": "tests as [{input, output}] and test_type",
    "apps": "input_output as {inputs, outputs, fn_name?}",
}
_DECODED_LIMIT = 1 << 31  # bytes a compressed test list may inflate to


def _is_text_list(value: Any) -> bool:
    return isinstance(value, list)


def row_format(row: dict) -> str | None:
    """The format of ``row`` (one of :data:`FORMATS`), or None when it fits none."""
    if "question_id" in row and "public_test_cases" in row:
        return "livecodebench"
    if "public_tests" in row and ("private_tests" in row or "generated_tests" in row):
        return "code_contests"
    test = row.get("test")
    if "id" in row and (isinstance(test, list) and test and isinstance(test[0], dict)
                        and isinstance(test[0].get("input"), dict)
                        or isinstance(test, str) and ("labels" in row or "content" in row)
                        and not test.lstrip().startswith(("def ", "assert", "import", "from"))):
        return "sandboxfusion"
    if "tests" in row and "test_type" in row:
        return "normalised"
    if "input_output" in row:
        return "apps"
    return None


# ---------------------------------------------------------------- safe decoding


class _NoGlobals(pickle.Unpickler):
    """An unpickler of plain data only: strings, numbers, lists, dicts, tuples. Every global
    (a class, a function: what a pickle needs to run code) is refused."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(
            f"the data names {module}.{name}; only plain data (text, numbers, lists, dicts) is "
            "read, so nothing in it can run")

    def persistent_load(self, pid: Any) -> Any:
        raise pickle.UnpicklingError("the data refers to a persistent object; only plain data "
                                     "is read")


def decode_compressed(text: str) -> Any:
    """LiveCodeBench's compressed test list (``base64(zlib(pickle(json string)))``; also
    SandboxFusion's ``base64(zlib(pickle({"input_output": ...})))``), decoded without running
    anything: the pickle may hold only plain data (:class:`_NoGlobals`). A ValueError saying
    which step failed otherwise."""
    try:
        raw = base64.b64decode(text.strip(), validate=False)
    except (binascii.Error, ValueError) as error:
        raise ValueError(f"not base64 ({error})") from None
    try:
        inflater = zlib.decompressobj()
        data = inflater.decompress(raw, _DECODED_LIMIT)
        if inflater.unconsumed_tail:
            raise ValueError(f"it inflates to more than {_DECODED_LIMIT >> 20} MB")
    except zlib.error as error:
        raise ValueError(f"not zlib data after base64 ({error})") from None
    try:
        value = _NoGlobals(io.BytesIO(data)).load()
    except pickle.UnpicklingError as error:
        raise ValueError(f"its pickle was refused: {error}") from None
    except Exception as error:  # a truncated or corrupt pickle
        raise ValueError(f"not a readable pickle ({type(error).__name__}: {error})") from None
    return value


# ---------------------------------------------------------------- large test data


class Spill:
    """One temporary file that large test inputs and outputs are written to once, read back
    as :class:`~cgm_metrics.execution.io_spec.DataRef` spans when their test runs. Removed
    when the process ends."""

    def __init__(self) -> None:
        self.path: str | None = None
        self._handle: Any = None
        self._lock = threading.Lock()

    def keep(self, text: str) -> str | DataRef:
        data = text.encode("utf-8", "surrogatepass")
        if len(data) <= SPILL_BYTES:
            return text
        with self._lock:
            if self._handle is None:
                handle, path = tempfile.mkstemp(prefix="cgm-io-tests-", suffix=".txt")
                os.chmod(path, 0o644)  # read by the sandbox's own uid
                self._handle = os.fdopen(handle, "wb")
                self.path = path
                atexit.register(_remove, path)
            offset = self._handle.tell()
            self._handle.write(data)
            self._handle.flush()
            return DataRef(self.path, offset, len(data))  # type: ignore[arg-type]

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


_SPILL = Spill()


# ---------------------------------------------------------------- reading rows


class _Row:
    """A row being read, for errors that name the file, the line, the task and the field."""

    def __init__(self, row: dict, path: str | Path, number: int, fmt: str) -> None:
        self.row = row
        self.path = path
        self.number = number
        self.format = fmt
        self.task = "?"

    def where(self, field: str | None = None) -> str:
        text = f"{self.path}, line {self.number} (task {self.task}, {self.format} format)"
        return text + (f", field {field!r}" if field else "")

    def fail(self, field: str | None, problem: str, fix: str) -> InputError:
        return InputError(f"{self.where(field)}: {problem}; {fix}")

    def json_field(self, name: str, default: Any = None, decode: bool = False) -> Any:
        """A field that is JSON, or a string of JSON (or, with ``decode``, LiveCodeBench's
        compressed encoding)."""
        value = self.row.get(name, default)
        if not isinstance(value, str):
            return value
        if not value.strip():
            return default
        try:
            return json.loads(value)
        except ValueError as error:
            if not decode:
                raise self.fail(name, f"not valid JSON ({error})",
                                "give the field as JSON, or as a string of JSON") from None
        try:
            decoded = decode_compressed(value)
        except ValueError as error:
            raise self.fail(name, f"neither JSON nor LiveCodeBench's compressed encoding "
                            f"(base64 of zlib of a pickled JSON string): {error}",
                            "give the tests as a JSON list, or as the dataset ships them"
                            ) from None
        if isinstance(decoded, bytes):
            decoded = decoded.decode("utf-8")
        if isinstance(decoded, str):
            try:
                return json.loads(decoded)
            except ValueError as error:
                raise self.fail(name, f"its compressed data holds text that is not JSON "
                                f"({error})", "give the tests as a JSON list") from None
        return decoded

    def text(self, value: Any, field: str) -> str:
        if isinstance(value, str):
            return value
        raise self.fail(field, f"expected text, got {type(value).__name__} "
                        f"{json.dumps(value, default=str)[:60]}",
                        "each test's input and output must be strings")


def _task_id(row: dict, names: Iterable[str], number: int) -> str:
    for name in names:
        value = row.get(name)
        if isinstance(value, bool) or value is None:
            continue
        if isinstance(value, (str, int)):
            return str(value)
    return f"line-{number}"


def _json_lines(values: Any) -> str:
    """A call's arguments as its test input: one JSON value a line."""
    if not isinstance(values, list):
        values = [values]
    return "\n".join(json.dumps(value) for value in values)


def _spec(reader: _Row, tests: list[tuple[str, str, str]], *, spill: Spill, **fields: Any
          ) -> IOSpec:
    """An IOSpec of ``(group, input, output)`` tests, named ``group/position`` (from 0 within
    each group), large texts spilled to disk."""
    if not tests:
        raise reader.fail(None, "no tests", "a problem needs at least one test (input and "
                          "expected output), or every program would pass it; leave the "
                          "problem out")
    seen: dict[str, int] = {}
    made = []
    for group, given, expected in tests:
        position = seen.get(group, 0)
        seen[group] = position + 1
        made.append(IOTest(spill.keep(given), spill.keep(expected), f"{group}/{position}",
                           group))
    try:
        return IOSpec(tuple(made), **fields)
    except ValueError as error:
        raise reader.fail(None, str(error), "fix the row") from None


def _call_style(starter: str, solution: str | None = None) -> str:
    text = (starter or "") + "\n" + (solution or "")
    return "leetcode" if "class Solution" in text else "function"


def _limits(reader: _Row, seconds: Any, memory: Any, what: str) -> tuple[float | None,
                                                                          int | None]:
    def number(value: Any, field: str) -> float | None:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise reader.fail(field, f"expected a number, got {json.dumps(value)[:40]}",
                              f"give {what} as a non-negative number, or leave it out")
        return float(value)

    time_limit = number(seconds, "time_limit")
    memory_mb = number(memory, "memory_limit")
    return ((time_limit if time_limit else None),
            (max(1, int(round(memory_mb))) if memory_mb else None))


def _livecodebench(reader: _Row, spill: Spill) -> tuple[IOSpec, str | None]:
    row = reader.row
    reader.task = _task_id(row, ("task_id", "question_id"), reader.number)
    public = reader.json_field("public_test_cases", [])
    private = reader.json_field("private_test_cases", [], decode=True)
    metadata = reader.json_field("metadata", {}) or {}
    if not isinstance(metadata, dict):
        raise reader.fail("metadata", "expected a JSON object", "give {\"func_name\": ...} "
                          "for call-based problems, {} otherwise")
    tests: list[tuple[str, str, str]] = []
    types = set()
    for field, group, cases in (("public_test_cases", "public", public),
                                ("private_test_cases", "private", private)):
        if not isinstance(cases, list):
            raise reader.fail(field, f"expected a list of tests, got {type(cases).__name__}",
                              "give [{\"input\", \"output\", \"testtype\"}, ...]")
        for position, case in enumerate(cases):
            if not isinstance(case, dict) or "input" not in case or "output" not in case:
                raise reader.fail(field, f"test {position} is not {{input, output, testtype}}",
                                  "give every test its input and expected output")
            types.add(case.get("testtype", "stdin"))
            tests.append((group, reader.text(case["input"], field),
                          reader.text(case["output"], field)))
    if len(types) > 1:
        raise reader.fail("public_test_cases", f"tests of several types ({sorted(types)})",
                          "a problem's tests are all stdin or all functional")
    test_type = types.pop() if types else "stdin"
    if test_type not in ("stdin", "functional"):
        raise reader.fail("public_test_cases", f"unknown testtype {test_type!r}",
                          "LiveCodeBench's are 'stdin' and 'functional'")
    fn_name = metadata.get("func_name")
    if test_type == "functional" and not fn_name:
        raise reader.fail("metadata", "a functional problem without func_name",
                          "give metadata {\"func_name\": <the method the tests call>}")
    kept = tuple((name, row[name]) for name in ("platform", "contest_id", "contest_date",
                                                "difficulty", "question_title")
                 if row.get(name) is not None)
    starter = row.get("starter_code") or ""
    return _spec(reader, tests, spill=spill, test_type=test_type,
                 fn_name=fn_name if test_type == "functional" else None,
                 call_style="leetcode", starter_code=starter, source="livecodebench",
                 metadata=kept), None


def _code_contests(reader: _Row, spill: Spill) -> tuple[IOSpec, str | None]:
    row = reader.row
    reader.task = _task_id(row, ("task_id", "name", "id"), reader.number)
    tests: list[tuple[str, str, str]] = []
    for field, group in (("public_tests", "public"), ("private_tests", "private"),
                         ("generated_tests", "generated")):
        value = reader.json_field(field, {}) or {}
        if not isinstance(value, dict):
            raise reader.fail(field, f"expected {{input: [...], output: [...]}}, got "
                              f"{type(value).__name__}", "give CodeContests' test sets")
        inputs, outputs = value.get("input") or [], value.get("output") or []
        if len(inputs) != len(outputs):
            raise reader.fail(field, f"{len(inputs)} inputs but {len(outputs)} outputs",
                              "give one expected output per input")
        for given, expected in zip(inputs, outputs, strict=True):
            tests.append((group, reader.text(given, field), reader.text(expected, field)))
    limit = reader.json_field("time_limit")
    seconds = None
    if isinstance(limit, dict):
        seconds = (limit.get("seconds") or 0) + (limit.get("nanos") or 0) / 1e9
    elif limit is not None:
        seconds = limit
    memory = row.get("memory_limit_bytes")
    time_limit, memory_mb = _limits(reader, seconds,
                                    None if memory is None else
                                    (memory / (1 << 20) if isinstance(memory, (int, float))
                                     and not isinstance(memory, bool) else memory),
                                    "time_limit {seconds, nanos} and memory_limit_bytes")
    solutions = _code_contests_solutions(reader, reader.json_field("solutions", {}) or {})
    kept = tuple((name, row[name]) for name in ("source", "difficulty", "cf_rating",
                                                "cf_contest_id", "cf_index")
                 if row.get(name) is not None)
    canonical = next((code for language, code in solutions if language == DEFAULT_LANGUAGE),
                     None)
    return _spec(reader, tests, spill=spill, time_limit=time_limit, memory_mb=memory_mb,
                 solutions=solutions, source="code_contests", metadata=kept), canonical


def _code_contests_solutions(reader: _Row, value: Any) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, dict):
        raise reader.fail("solutions", "expected {language: [ids], solution: [texts]}",
                          "give CodeContests' solutions, or leave the field out")
    languages, texts = value.get("language") or [], value.get("solution") or []
    if len(languages) != len(texts):
        raise reader.fail("solutions", f"{len(languages)} languages but {len(texts)} "
                          "solutions", "give one language id per solution")
    out: list[tuple[str, str]] = []
    by_id = code_contests_languages()
    for language, text in zip(languages, texts, strict=True):
        if isinstance(language, int):
            name = by_id.get(language)
        else:
            found = find(str(language)) if isinstance(language, str) else None
            name = found.name if found is not None and found.has("execution") else None
        if name is not None and isinstance(text, str):
            out.append((name, text))
    return tuple(out)


def _sandboxfusion(reader: _Row, spill: Spill) -> tuple[IOSpec, str | None]:
    row = reader.row
    labels = reader.json_field("labels", {}) or {}
    if not isinstance(labels, dict):
        labels = {}
    reader.task = str(labels.get("task_id") or _task_id(row, ("task_id", "id"),
                                                         reader.number))
    value = row.get("test")
    if isinstance(value, str):
        value = reader.json_field("test", decode=True)
    if isinstance(value, dict) and "input_output" in value:  # its LiveCodeBench rows
        return _apps_tests(reader, value["input_output"], spill, "tests", None,
                           "sandboxfusion", lcb_style=True)
    if not isinstance(value, list):
        raise reader.fail("test", f"expected a list of tests, got {type(value).__name__}",
                          "give [{\"input\": {\"stdin\": ...}, \"output\": {\"stdout\": ...}}]")
    tests = []
    for position, case in enumerate(value):
        given = case.get("input") if isinstance(case, dict) else None
        expected = case.get("output") if isinstance(case, dict) else None
        if not isinstance(given, dict) or not isinstance(expected, dict) \
                or "stdout" not in expected:
            raise reader.fail("test", f"test {position} is not {{input: {{stdin}}, output: "
                              "{stdout}}", "give each test its stdin and expected stdout")
        tests.append(("tests", reader.text(given.get("stdin", ""), "test"),
                      reader.text(expected["stdout"], "test")))
    kept = tuple((name, labels[name]) for name in ("difficulty", "source", "name", "category")
                 if labels.get(name) is not None)
    return _spec(reader, tests, spill=spill, source="sandboxfusion", metadata=kept), None


def _normalised(reader: _Row, spill: Spill) -> tuple[IOSpec, str | None]:
    row = reader.row
    reader.task = _task_id(row, ("task_id", "id", "problem_id"), reader.number)
    test_type = row.get("test_type")
    if test_type not in ("stdin", "functional"):
        raise reader.fail("test_type", f"got {json.dumps(test_type)[:40]}",
                          "write 'stdin' or 'functional'")
    if not isinstance(row["tests"], list):
        raise reader.fail("tests", f"expected a list of tests, got {json.dumps(row['tests'])[:40]}",
                          "give [{\"input\", \"output\"}, ...] (a problem whose tests its "
                          "source could not give has none to run: leave it out)")
    tests = []
    for position, case in enumerate(row["tests"]):
        if not isinstance(case, dict) or "input" not in case or "output" not in case:
            raise reader.fail("tests", f"test {position} is not {{input, output}}",
                              "give every test its input and expected output")
        tests.append(("tests", reader.text(case["input"], "tests"),
                      reader.text(case["output"], "tests")))
    fn_name = row.get("fn_name")
    if test_type == "functional" and not (isinstance(fn_name, str) and fn_name):
        raise reader.fail("fn_name", "a functional problem without fn_name",
                          "name the function or method its tests call")
    reference = row.get("reference_solution")
    starter = row.get("starter_code") or ""
    time_limit, memory_mb = _limits(reader, row.get("time_limit_s"),
                                    row.get("memory_limit_mb"),
                                    "time_limit_s and memory_limit_mb")
    solutions = ((DEFAULT_LANGUAGE, reference),) if isinstance(reference, str) else ()
    told = (str(row.get("format", "")) + " " + str(row.get("id", ""))).lower()
    lcb = "livecodebench" in told or "lcb" in told
    style = ("leetcode" if lcb or "leetcode" in told else _call_style(starter, reference))
    # APPS's call-based expected results are wrapped in a list (see the module's text)
    apps = "apps" in told and not lcb and test_type == "functional"
    rule = OutputRule(options=(("apps_unwrap", True),)) if apps else OutputRule()
    return _spec(reader, tests, spill=spill, test_type=test_type,
                 fn_name=fn_name if test_type == "functional" else None, call_style=style,
                 starter_code=starter, time_limit=time_limit, memory_mb=memory_mb,
                 solutions=solutions, source="normalised", rule=rule), reference


def _apps(reader: _Row, spill: Spill) -> tuple[IOSpec, str | None]:
    row = reader.row
    reader.task = _task_id(row, ("task_id", "problem_id", "id"), reader.number)
    solutions = reader.json_field("solutions", []) or []
    if not isinstance(solutions, list) or not all(isinstance(s, str) for s in solutions):
        raise reader.fail("solutions", "expected a list of programs",
                          "give a JSON list of strings, or leave the field out")
    return _apps_tests(reader, reader.json_field("input_output"), spill, "tests",
                       solutions[0] if solutions else None, "apps", solutions)


def _apps_tests(reader: _Row, value: Any, spill: Spill, group: str, canonical: str | None,
                source: str, solutions: list[str] | None = None, lcb_style: bool = False
                ) -> tuple[IOSpec, str | None]:
    """The tests of an APPS ``input_output``; ``lcb_style``: LiveCodeBench's (as
    SandboxFusion's LiveCodeBench rows hold them): a call's input and output already the
    text of its JSON lines, the program a LeetCode ``class Solution``."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError as error:
            raise reader.fail("input_output", f"not valid JSON ({error})",
                              "give {\"inputs\": [...], \"outputs\": [...]}") from None
    if not isinstance(value, dict) or not isinstance(value.get("inputs"), list) \
            or not isinstance(value.get("outputs"), list):
        raise reader.fail("input_output", "expected {inputs: [...], outputs: [...]}",
                          "give the tests' inputs and expected outputs as two lists")
    inputs, outputs = value["inputs"], value["outputs"]
    if len(inputs) != len(outputs):
        raise reader.fail("input_output", f"{len(inputs)} inputs but {len(outputs)} outputs",
                          "give one expected output per input")
    fn_name = value.get("fn_name")
    starter = reader.row.get("starter_code") or ""
    if fn_name and lcb_style:
        tests = [(group, reader.text(given, "input_output"),
                  reader.text(expected, "input_output"))
                 for given, expected in zip(inputs, outputs, strict=True)]
        return _spec(reader, tests, spill=spill, test_type="functional", fn_name=fn_name,
                     call_style="leetcode", starter_code=starter, source=source), canonical
    if fn_name:
        tests = [(group, _json_lines(given), json.dumps(expected))
                 for given, expected in zip(inputs, outputs, strict=True)]
        style = _call_style(starter, canonical)
        spec = _spec(reader, tests, spill=spill, test_type="functional", fn_name=fn_name,
                     call_style=style, starter_code=starter, source=source,
                     rule=OutputRule(options=(("apps_unwrap", True),)),
                     solutions=tuple((DEFAULT_LANGUAGE, s) for s in solutions or ()))
        return spec, canonical
    tests = [(group, _lines(given), _lines(expected))
             for given, expected in zip(inputs, outputs, strict=True)]
    kept = tuple((name, reader.row[name]) for name in ("difficulty", "url", "source")
                 if isinstance(reader.row.get(name), (str, int, float)))
    return _spec(reader, tests, spill=spill, starter_code=starter, source=source,
                 solutions=tuple((DEFAULT_LANGUAGE, s) for s in solutions or ()),
                 metadata=kept), canonical


def _lines(value: Any) -> str:
    """An APPS stdin test's text: a string, or (as some APPS/TACO rows give it) a list of
    lines."""
    if isinstance(value, list):
        return "\n".join(str(line) for line in value) + "\n"
    return value if isinstance(value, str) else json.dumps(value)


_READERS = {"livecodebench": _livecodebench, "code_contests": _code_contests,
            "sandboxfusion": _sandboxfusion, "normalised": _normalised, "apps": _apps}


def problem_from_row(row: dict, path: str | Path, number: int, fmt: str | None = None,
                     spill: Spill | None = None) -> Any:
    """The :class:`~cgm_metrics.execution.tasks.Problem` (kind ``"io"``) of one row of an
    input/output format (``fmt``, or the one :func:`row_format` recognises)."""
    from .tasks import Problem, task_language

    fmt = fmt or row_format(row)
    if fmt is None:
        raise unrecognised(row, path, number)
    reader = _Row(row, path, number, fmt)
    spec, canonical = _READERS[fmt](reader, spill or _SPILL)
    language = DEFAULT_LANGUAGE
    if row.get("language") is not None:
        language = task_language(row["language"], path, number, reader.task)
        if spec.test_type == "functional" and language != DEFAULT_LANGUAGE:
            raise reader.fail("language", f"a call-based problem (fn_name {spec.fn_name!r}) "
                              f"in {language}", f"its tests call a {DEFAULT_LANGUAGE} "
                              "function; drop the field, or give stdin tests")
    if canonical is not None and not isinstance(canonical, str):
        canonical = None
    return Problem(reader.task, "", "", spec.fn_name or "", canonical, language, number,
                   kind="io", io=spec)


def problem_from_reference(text: Any, index: int, language: str = DEFAULT_LANGUAGE) -> Any:
    """The input/output problem a reference of evaluate's ``code_eval`` call holds in place of
    a test program: a JSON object of one of the :data:`FORMATS` (a LiveCodeBench row, an APPS
    ``input_output``, ``{"tests": [...], "test_type": ...}``...), as a string; None for a test
    program. Errors name ``references[index]``."""
    if not isinstance(text, str) or not text.lstrip().startswith("{"):
        return None
    try:
        row = json.loads(text)
    except ValueError:
        return None  # a test program that starts with a brace (a block, a dict literal)
    if not isinstance(row, dict):
        return None
    if "inputs" in row and "outputs" in row and "input_output" not in row:
        row = {"input_output": row}  # APPS's input_output on its own
    fmt = row_format(row)
    if fmt is None:
        return None
    from dataclasses import replace

    problem = problem_from_row(row, f"`references[{index}]`", 1, fmt)
    return replace(problem, task_id=str(index), language=language)


def unrecognised(row: dict, path: str | Path, number: int) -> InputError:
    present = ", ".join(repr(key) for key in list(row)[:12]) or "none"
    formats = "; ".join(f"{name}: {fields}" for name, fields in FORMAT_FIELDS.items())
    return InputError(f"{path}, line {number}: not a problem of a known format (fields "
                      f"present: {present}). The formats and the fields that tell them: "
                      f"{formats}.")


# ---------------------------------------------------------------- datasets by name

#: LiveCodeBench's files of each release (its ``version_tag``s): ``release_vN`` holds every
#: problem up to release N, ``vN`` only those new in it, ``vN_vM`` those of N to M
LIVECODEBENCH_FILES = ("test.jsonl", "test2.jsonl", "test3.jsonl", "test4.jsonl",
                       "test5.jsonl", "test6.jsonl")


def livecodebench_files(release: str) -> list[str]:
    """The data files of a LiveCodeBench release tag (``release_v5``, ``v5``, ``v4_v6``,
    ``release_latest``), as its dataset script lists them."""
    import re

    tag = release.strip().lower()
    count = len(LIVECODEBENCH_FILES)
    if tag in ("release_latest", "latest"):
        return list(LIVECODEBENCH_FILES)
    match = re.fullmatch(r"release_v([1-9])", tag)
    if match and int(match.group(1)) <= count:
        return list(LIVECODEBENCH_FILES[:int(match.group(1))])
    match = re.fullmatch(r"v([1-9])(?:_v([1-9]))?", tag)
    if match:
        first = int(match.group(1))
        last = int(match.group(2) or first)
        if first <= last <= count:
            return list(LIVECODEBENCH_FILES[first - 1:last])
    raise InputError(f"--release {release!r} is not a LiveCodeBench release: write "
                     f"release_v1 .. release_v{count} (every problem up to that release), "
                     f"v1 .. v{count} (only those new in it), a range such as v4_v6, or "
                     "release_latest.")


def dataset_rows(name: str, *, split: str | None = None, release: str | None = None,
                 since: str | None = None, until: str | None = None) -> Iterator[dict]:
    """The rows of a dataset by name through the ``datasets`` library (a Hub id, or a local
    folder of data files), of ``split`` (default: ``test``, else its only split); for
    LiveCodeBench, the files of ``release``; with ``since``/``until`` (ISO dates), only rows
    whose ``contest_date`` (or ``date``) falls in that range."""
    try:
        import datasets
    except ImportError:
        raise InputError("--problems with a dataset name needs the `datasets` package: pip "
                         "install datasets (or give a problem file).") from None
    low = _date(since, "--since") if since else None
    high = _date(until, "--until") if until else None
    options: dict[str, Any] = {}
    if Path(name).name.startswith("code_generation"):  # LiveCodeBench's (or a copy)
        options["data_files"] = {"test": livecodebench_files(release or "release_latest")}
        split = split or "test"
    elif release is not None:
        options["name"] = release
    try:
        if split is None:
            found = datasets.load_dataset(name, **options)
            splits = list(found)
            split = "test" if "test" in splits else (splits[0] if len(splits) == 1 else None)
            if split is None:
                raise InputError(f"--problems {name}: the dataset has the splits "
                                 f"{', '.join(splits)}; name one with --split.")
            data = found[split]
        else:
            data = datasets.load_dataset(name, split=split, **options)
    except InputError:
        raise
    except Exception as error:  # the library's own errors: no such dataset, split, network
        raise InputError(f"--problems {name}: the dataset could not be loaded "
                         f"({type(error).__name__}: {str(error).splitlines()[0][:300]}). Check "
                         "its id and --split (or give a problem file).") from None
    for row in data:
        if low is not None or high is not None:
            when = row.get("contest_date") or row.get("date")
            if when is None:
                raise InputError(f"--problems {name}: --since/--until need a contest_date on "
                                 "every row, and this dataset's rows have none; leave them out.")
            day = str(when)[:10]
            if (low is not None and day < low) or (high is not None and day > high):
                continue
        yield dict(row)


def _date(text: str, flag: str) -> str:
    import datetime

    try:
        return datetime.date.fromisoformat(text[:10]).isoformat()
    except ValueError:
        raise InputError(f"{flag} {text!r} is not a date; write YYYY-MM-DD.") from None
