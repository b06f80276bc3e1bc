"""Files: reading predictions and references (for ``cgm`` and the Space), and writing
results atomically.

Two formats:

* **Plain text**: one item per line, read verbatim (as CodeXGLUE's evaluator and sacrebleu
  read them): a line ends at ``\\n`` or ``\\r\\n``, and nothing inside a line is decoded, so
  backslashes in string literals stay as they are. A bare ``\\r`` (old Mac line ends, or a
  carriage return inside an item) is an error naming the line, never a silent split.
  Multi-line code can be written on one line with escapes and read with ``unescape=True``
  (``cgm --unescape``): ``\\n`` is a newline, ``\\t`` a tab, ``\\r`` a carriage return and
  ``\\\\`` a backslash; a backslash before any other character is kept as it is. So
  ``print("a\\\\nb")`` on a line is the code ``print("a\\nb")``. :func:`escape_code` writes
  code in that convention. Lines read verbatim that look like code written that way (most of
  a file's lines holding ``\\n`` before indentation or at their end:
  :func:`escaped_line_count`) are reported (:class:`EscapedLinesWarning`), so that forgetting
  ``--unescape`` never silently scores the two characters ``\\`` and ``n``.
* **JSONL**: one JSON object per line with named fields (default ``"prediction"`` and
  ``"references"``); a reference field may hold a string or a list of strings (several
  references for one item). Blank lines are skipped; errors name the line number.

The canonical graded-outputs JSONL (one row per item and system, see ARCHITECTURE.md) is read by
:func:`cgm_metrics.agreement.data.read_graded_jsonl`, the one reader of that format.

The path ``-`` is standard input. A pipe (FIFO), a terminal or standard input is read until
its writer closes it; a notice on stderr says so before reading starts, so a command waiting
on one is never silent.

Every problem a user can fix raises :class:`~cgm_metrics.base.errors.InputError` (a
``ValueError``) naming the file, the line and the fix.

Results are written with :func:`write_atomic` (or :func:`atomic_path` for writers that want a
path, such as matplotlib): into a temporary file beside the target, renamed over it only when
complete, so a write that fails part-way (a full disk, a file size limit, Ctrl-C) leaves the
previous file as it was.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import stat
import sys
import tempfile
import warnings
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from .errors import InputError

JSONL_SUFFIXES = (".jsonl", ".ndjson")
FORMATS = ("auto", "text", "jsonl")


_UNESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\"}


def unescape_code(line: str) -> str:
    """Turn one line of the plain-text format into code (``\\n`` -> newline, ``\\\\`` -> ``\\``).

    >>> print(unescape_code("def f():\\\\n    return 1"))
    def f():
        return 1
    """
    if "\\" not in line:
        return line
    out: list[str] = []
    index = 0
    while index < len(line):
        char = line[index]
        if char == "\\" and index + 1 < len(line) and line[index + 1] in _UNESCAPES:
            out.append(_UNESCAPES[line[index + 1]])
            index += 2
        else:
            out.append(char)
            index += 1
    return "".join(out)


def escape_code(code: str) -> str:
    """Write code as one line of the plain-text format; ``unescape_code`` inverts it.

    >>> escape_code('print("a\\\\nb")\\nx = 1')
    'print("a\\\\\\\\nb")\\\\nx = 1'
    """
    return (
        code.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    )


_ESCAPE = re.compile(r"\\(.)", re.S)


def _escaped_line(line: str) -> bool:
    """``line`` holds a newline escape (``\\n`` whose backslash is not itself escaped) where
    a line break of code goes: at the end, or before indentation (a space or ``\\t``), another
    line break (``\\n``, ``\\r``) or a closing brace."""
    for match in _ESCAPE.finditer(line):
        if match.group(1) != "n":
            continue
        after = line[match.end():match.end() + 2]
        if not after.strip() or after[0] in " }" or after in ("\\t", "\\n", "\\r"):
            return True
    return False


def escaped_line_count(items: Sequence[str]) -> int:
    """How many of ``items`` (the lines of a plain-text file read verbatim) hold multi-line
    code written on one line with the escapes of :func:`escape_code`; 0 unless the items look
    written that way as a whole: none holds a real line break, and at least half of the
    non-empty ones have a ``\\n`` at their end or before indentation, another ``\\n`` or a
    closing brace. Verbatim one-line code keeps ``\\n`` inside string literals, before a quote
    or a letter (``'\\n'.join(lines)``, ``"a\\nb"``), so it does not look escaped.

    >>> escaped_line_count([escape_code("def f():\\n    return 1\\n"), escape_code("x = 1\\n")])
    2
    >>> escaped_line_count(["print('\\\\n'.join(lines))", 'String s = "a\\\\nb";'])
    0
    """
    if any("\n" in item or "\r" in item for item in items):
        return 0
    filled = [item for item in items if item.strip()]
    found = sum(_escaped_line(item) for item in filled)
    return found if found and 2 * found >= len(filled) else 0


class EscapedLinesWarning(UserWarning):
    """Plain-text files read verbatim whose lines look like multi-line code written on one
    line with escapes (:func:`escaped_line_count`): ``files`` holds ``(file, lines that look
    so, lines)`` of each; :func:`describe_escaped` says it in words."""

    def __init__(self, files: Iterable[tuple[str, int, int]]) -> None:
        self.files = tuple(files)
        super().__init__(describe_escaped(self.files) + " Read them with unescape=True.")


def describe_escaped(files: Sequence[tuple[str, int, int]]) -> str:
    """What an :class:`EscapedLinesWarning` found, in words (the front ends add their fix)."""
    listed = ", ".join(f"{name} ({found} of {total} lines)" for name, found, total in files)
    return (f"{listed} look{'s' if len(files) == 1 else ''} like multi-line code written on "
            "one line with \\n escapes (as `cgm demo --export` writes it), but "
            f"{'it was' if len(files) == 1 else 'they were'} read verbatim: the scores compare "
            "the two characters \\ and n, not line breaks.")


def detect_format(path: str | Path, fmt: str = "auto") -> str:
    """``"jsonl"`` for ``.jsonl``/``.ndjson`` files (or when asked), else ``"text"``."""
    if fmt not in FORMATS:
        raise InputError(f"Unknown input format {fmt!r}; choose one of {', '.join(FORMATS)}.")
    if fmt != "auto":
        return fmt
    return "jsonl" if Path(path).suffix.lower() in JSONL_SUFFIXES else "text"


STDIN = "-"


def safe_name(name: str) -> str:
    """A name that any UTF-8 output can hold: bytes of a file name that are not UTF-8 (which
    Python keeps as lone surrogates) become ``\\xNN`` escapes, so ``sys_\\xff`` stays
    readable and distinct."""
    try:
        name.encode("utf-8")
        return name
    except UnicodeEncodeError:
        raw = name.encode("utf-8", "surrogateescape") if _only_escapes(name) else None
        if raw is not None:
            return raw.decode("utf-8", "backslashreplace")
        return name.encode("utf-8", "backslashreplace").decode("utf-8")


def _only_escapes(name: str) -> bool:
    """Every surrogate in ``name`` is one of surrogateescape's (U+DC80-U+DCFF)."""
    return all(not 0xD800 <= ord(c) <= 0xDFFF or 0xDC80 <= ord(c) <= 0xDCFF for c in name)


def _notice(message: str) -> None:
    print(f"cgm: {message}", file=sys.stderr, flush=True)


def _read_bytes(path: str | Path) -> bytes:
    """The bytes of a file, standard input (``-``) or a pipe, with a notice for inputs that
    end only when their writer closes them."""
    if str(path) == STDIN:
        where = "the terminal (end with Ctrl-D)" if sys.stdin.isatty() else "standard input"
        _notice(f"reading '-' from {where} until it is closed")
        return sys.stdin.buffer.read()
    path = Path(path)
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise InputError(f"File not found: {path}. Check the path (it is read relative to "
                         f"the current directory {Path.cwd()}).") from None
    except OSError as error:
        raise InputError(f"Cannot read {path}: {error.strerror}.") from None
    if stat.S_ISDIR(mode):
        raise InputError(f"{path} is a directory; give a file with one item per line.")
    if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode) or stat.S_ISSOCK(mode):
        _notice(f"{path} is a pipe or device; reading it until its writer closes it "
                "(Ctrl-C to stop)")
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as error:
        raise InputError(f"Cannot read {path}: {error.strerror}.") from None


def _open_text(path: str | Path) -> str:
    data = _read_bytes(path)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError(
            f"{path} is not UTF-8 text (byte {error.start}); save it as UTF-8."
        ) from None


_BARE_CR = re.compile(r"\r(?!\n)")


def _check_carriage_returns(path: str | Path, text: str) -> None:
    bare = _BARE_CR.search(text)
    if bare is None:
        return
    line = text.count("\n", 0, bare.start()) + 1
    raise InputError(
        f"{path}, line {line}: a carriage return (\\r) that does not end a line with \\r\\n. "
        "Items are lines ending in \\n (or \\r\\n), so old-Mac line ends would merge or "
        "split items. Convert the line ends (e.g. `tr '\\r' '\\n'`), or write a carriage "
        "return inside an item as the two characters \\r and read with --unescape."
    )


def read_text_lines(path: str | Path, unescape: bool = False) -> list[str]:
    """One item per line, verbatim (``unescape=True``: with the escapes of
    :func:`unescape_code`). A line ends at ``\\n`` or ``\\r\\n``; a final line end does not
    make an extra item; empty lines are empty items; a bare ``\\r`` is an error."""
    text = _open_text(path)
    _check_carriage_returns(path, text)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = [line[:-1] if line.endswith("\r") else line for line in lines]
    return [unescape_code(line) for line in lines] if unescape else lines


def read_jsonl_rows(path: str | Path) -> list[tuple[int, dict]]:
    """``(line number, object)`` for every non-blank line of a JSONL file."""
    rows: list[tuple[int, dict]] = []
    for number, line in enumerate(_open_text(path).split("\n"), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except RecursionError:
            raise InputError(
                f"{path}, line {number}: the JSON is nested too deeply to read (more than "
                "about a thousand levels of [ or {). Each line must be one JSON object "
                "whose fields hold strings."
            ) from None
        except json.JSONDecodeError as error:
            raise InputError(
                f"{path}, line {number}: malformed JSON ({error.msg.removesuffix(' at')} at column {error.colno}). "
                "Each line of a JSONL file must be one complete JSON object."
            ) from None
        if not isinstance(value, dict):
            raise InputError(
                f"{path}, line {number}: expected a JSON object ({{...}}), got "
                f"{type(value).__name__}."
            )
        rows.append((number, value))
    return rows


def _field(path: str | Path, number: int, row: dict, field: str) -> object:
    if field not in row:
        keys = ", ".join(repr(key) for key in row) or "none"
        raise InputError(
            f"{path}, line {number}: no field {field!r} (fields present: {keys}). "
            "Name the field with --field / --reference-field."
        )
    return row[field]


def _as_prediction(path: str | Path, number: int, value: object, field: str) -> str:
    if not isinstance(value, str):
        raise InputError(
            f"{path}, line {number}: field {field!r} must be a string, got "
            f"{type(value).__name__}."
        )
    return value


def _as_references(path: str | Path, number: int, value: object, field: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and value and all(isinstance(item, str) for item in value):
        return list(value)
    raise InputError(
        f"{path}, line {number}: field {field!r} must be a string or a non-empty list of "
        f"strings, got {json.dumps(value)[:60]}."
    )


def read_predictions(
    path: str | Path, fmt: str = "auto", field: str = "prediction", unescape: bool = False
) -> list[str]:
    """The predictions of one system: lines of a text file or one field of a JSONL file."""
    if detect_format(path, fmt) == "text":
        return read_text_lines(path, unescape)
    return [
        _as_prediction(path, number, _field(path, number, row, field), field)
        for number, row in read_jsonl_rows(path)
    ]


def read_references(
    path: str | Path, fmt: str = "auto", field: str = "references", unescape: bool = False
) -> list[list[str]]:
    """The references of every item (a list per item) from a text or JSONL file."""
    if detect_format(path, fmt) == "text":
        return [[line] for line in read_text_lines(path, unescape)]
    return [
        _as_references(path, number, _field(path, number, row, field), field)
        for number, row in read_jsonl_rows(path)
    ]


def merge_references(
    sources: list[tuple[str, list[list[str]]]],
) -> list[list[str]]:
    """Join references from several files item by item (several references per item).

    ``sources`` is ``[(file name, references per item)]``; all must have the same length.
    """
    check_same_length([(name, len(refs)) for name, refs in sources])
    merged: list[list[str]] = [[] for _ in range(len(sources[0][1]))] if sources else []
    for _, refs in sources:
        for index, item in enumerate(refs):
            merged[index].extend(item)
    return merged


def check_same_length(counts: list[tuple[str, int]]) -> None:
    """Raise :class:`InputError` naming every file and its item count if they differ."""
    if len({count for _, count in counts}) > 1:
        listing = "; ".join(f"{name}: {count} items" for name, count in counts)
        raise InputError(
            f"The input files have different numbers of items ({listing}). Every file needs "
            "exactly one line (or JSONL row) per item, in the same order."
        )


def system_names(paths: Sequence[str | Path], names: Sequence[str] | None) -> list[str]:
    """Names for system files: ``names`` if given, else the file stems (paths if stems
    repeat); every name made printable (:func:`safe_name`)."""
    if names:
        if len(names) != len(paths):
            raise InputError(
                f"--names gives {len(names)} names for {len(paths)} system files; give one "
                "name per file."
            )
        names = [safe_name(name) for name in names]
        if len(set(names)) != len(names):
            raise InputError("--names has repeated names; every system needs its own name.")
        return list(names)
    stems = [safe_name("stdin" if str(p) == STDIN else Path(p).stem) for p in paths]
    if len(set(stems)) == len(stems):
        return stems
    if len(set(paths)) != len(paths):
        raise InputError("The same system file is given twice; give each system once.")
    return [safe_name(str(p)) for p in paths]


def read_outputs(
    system_paths: Sequence[str | Path],
    reference_paths: Sequence[str | Path] | None = None,
    fmt: str = "auto",
    field: str = "prediction",
    reference_field: str = "references",
    unescape: bool | None = None,
    names: Sequence[str] | None = None,
) -> tuple[list[list[str]], dict[str, list[str]]]:
    """References (a list per item) and ``{system: predictions}`` from files.

    References come from ``reference_paths`` (several files give several references per
    item) or, when there are none, from the reference field of the first JSONL system file.
    Plain-text lines are decoded with ``unescape=True`` and read verbatim otherwise; with
    ``unescape=None`` (the default) an :class:`EscapedLinesWarning` names the plain-text files
    whose lines look escaped (:func:`escaped_line_count`), ``False`` reads verbatim without
    looking.
    """
    every_path = [*system_paths, *(reference_paths or [])]
    if sum(str(p) == STDIN for p in every_path) > 1:
        raise InputError("Only one input can be read from standard input ('-'); give the "
                         "others as files.")
    system_list = list(system_paths)
    labels = system_names(system_list, names)
    decode = unescape is True
    systems = {label: read_predictions(path, fmt, field, decode)
               for label, path in zip(labels, system_list, strict=True)}
    if reference_paths:
        sources = [(str(path), read_references(path, fmt, reference_field, decode))
                   for path in reference_paths]
    else:
        jsonl = [p for p in system_list if detect_format(p, fmt) == "jsonl"]
        if not jsonl:
            raise InputError(
                "No references: give --references FILE (or system files in JSONL with a "
                f"{reference_field!r} field)."
            )
        sources = [(str(jsonl[0]), read_references(jsonl[0], fmt, reference_field, decode))]
    if unescape is None:
        texts = [(str(path), [refs[0] for refs in items]) for path, items in sources
                 if detect_format(path, fmt) == "text"]
        texts += [(str(path), systems[label]) for label, path in zip(labels, system_list,
                                                                       strict=True)
                  if detect_format(path, fmt) == "text"]
        found = [(name, count, len(items)) for name, items in texts
                 if (count := escaped_line_count(items))]
        if found:
            warnings.warn(EscapedLinesWarning(found), stacklevel=2)
    check_same_length(
        [(path, len(refs)) for path, refs in sources]
        + [(str(path), len(systems[label])) for label, path in zip(labels, system_list,
                                                                    strict=True)]
    )
    references = merge_references(sources)
    if not references:
        raise InputError("The input files are empty; give at least one item to score.")
    return references, systems


# ---------------------------------------------------------------- writing results


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """A temporary path beside ``path`` to write to; renamed to ``path`` when the block ends
    without an error, removed otherwise (the previous ``path`` stays as it was). Missing
    folders are created; a place that cannot be written is an :class:`InputError`."""
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part",
                                             dir=target.parent)
        os.close(handle)
    except OSError as error:
        blocker = next((p for p in target.parents if p.exists() and not p.is_dir()), None)
        reason = (f"{os.strerror(errno.ENOTDIR)} ({blocker} is a file, not a folder)"
                  if blocker is not None else error.strerror)
        raise InputError(f"Cannot write {path}: {reason}; choose another path.") from None
    part = Path(temporary)
    try:
        try:
            yield part
            mode = target.stat().st_mode & 0o7777 if target.exists() else _default_mode()
            os.chmod(part, mode)
            os.replace(part, target)
        except OSError as error:
            raise InputError(f"Cannot write {path}: {error.strerror or error}; choose another "
                             "path (the previous file, if any, is unchanged).") from None
    except BaseException:
        part.unlink(missing_ok=True)
        raise


def _default_mode() -> int:
    """The mode a new file gets from ``open`` under the current umask."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def write_atomic(path: str | Path, data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8; characters UTF-8 cannot encode, such as lone
    surrogates from file names, as backslash escapes) to ``path`` atomically."""
    raw = data if isinstance(data, bytes) else data.encode("utf-8", "backslashreplace")
    with atomic_path(path) as part, open(part, "wb") as handle:
        handle.write(raw)
        handle.flush()
        os.fsync(handle.fileno())
