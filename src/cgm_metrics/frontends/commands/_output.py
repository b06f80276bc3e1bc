"""Where the results of ``cgm`` go: stdout or files (written atomically), with ``--json -``
sending that result alone to stdout and the tables to stderr; plain text tables; notes.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import json
import re
import sys
from collections.abc import Iterator, Sequence
from typing import Any, TextIO

from ...base.formatting import to_jsonable
from ...base.io import write_atomic


def table(
    headers: Sequence[str], rows: Sequence[Sequence[object]], align: str | None = None
) -> str:
    """A plain aligned text table; ``align`` has one letter per column, ``l`` or ``r``
    (default: first column left, the rest right)."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    align = align or "l" + "r" * (len(headers) - 1)

    def line(row: list[str]) -> str:
        parts = [
            row[i].ljust(widths[i]) if align[i] == "l" else row[i].rjust(widths[i])
            for i in range(len(row))
        ]
        return "  ".join(parts).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(cells[0]), rule] + [line(r) for r in cells[1:]])


def write_text(path: str, text: str) -> None:
    """``text`` to the file ``path`` (atomically: :func:`cgm_metrics.base.io.write_atomic`), or
    to stdout for ``-``."""
    if path == "-":
        result_stream().write(text)
        return
    write_atomic(path, text)


def writable_error(path: str) -> str | None:
    """Why a result cannot be written to ``path`` (None: it can), found by doing what the
    atomic write will do: creating a file beside it (in its nearest existing folder) and
    removing it. ``os.access`` is not enough: it says yes to root on a read-only mount or
    below ``/proc``. An existing target must be a regular file (the write renames a new
    file over it: a device or a pipe would be replaced, not written to)."""
    import errno
    import os
    import stat
    import tempfile
    from pathlib import Path

    target = Path(path)
    try:
        mode = target.stat().st_mode
    except OSError:
        mode = None
    if mode is not None and stat.S_ISDIR(mode):
        return f"{path} is a folder; give a file path"
    if mode is not None and not stat.S_ISREG(mode):
        return f"{path} is not a regular file (a device, a pipe or a socket); give a file path"
    folder = target.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        return f"{folder} is a file, not a folder"
    try:
        handle, probe = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".check",
                                         dir=folder)
    except OSError as error:
        return os.strerror(error.errno) if error.errno else str(error)
    os.close(handle)
    try:
        os.unlink(probe)
    except OSError as error:  # pragma: no cover - created here a moment ago
        return os.strerror(error.errno or errno.EIO)
    if mode is not None and not os.access(target, os.W_OK):
        return "permission denied"
    return None


def write_json(path: str, payload: Any) -> None:
    write_text(path, json.dumps(to_jsonable(payload), indent=2, ensure_ascii=False) + "\n")


def write_csv(path: str, headers: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(headers)
    for row in rows:
        writer.writerow(["" if v is None else v for v in to_jsonable(list(row))])
    write_text(path, buffer.getvalue())


def write_results(args: argparse.Namespace, payload: Any,
                  records: tuple[Sequence[str], Sequence[Sequence[object]]]) -> None:
    """``--json`` (the whole ``payload``) and ``--csv`` (``(headers, rows)``), when asked."""
    if getattr(args, "json", None):
        write_json(args.json, payload)
    if getattr(args, "csv", None):
        write_csv(args.csv, *records)


def note(message: str) -> None:
    """A remark for the user on stderr (stdout stays the result)."""
    print(message, file=sys.stderr)


_LANG_KEYWORD = re.compile(r"\blang=(['\"])([^'\"\s]+)\1")


def for_command_line(message: str) -> str:
    """A library message as ``cgm`` shows it: the keyword argument ``lang='python'`` becomes
    the option ``--lang python`` and `` `lang` `` becomes ``--lang``.

    >>> for_command_line("CodeBLEU needs `lang`: one of c, python; e.g. lang='python'.")
    'CodeBLEU needs --lang: one of c, python; e.g. --lang python.'
    """
    return _LANG_KEYWORD.sub(r"--lang \2", message).replace("`lang`", "--lang")


def report_skipped(skipped: dict[str, str]) -> None:
    for name, reason in skipped.items():
        note(f"note: metric {name} skipped: {for_command_line(reason)}")


def want_progress(args: argparse.Namespace) -> bool:
    """A progress bar only on a terminal, and never with ``--no-progress``."""
    return not getattr(args, "no_progress", False) and sys.stderr.isatty()


_RESULT_STREAM: list[TextIO] = []


def result_stream() -> TextIO:
    """Where ``--json -`` / ``--csv -`` write: the real stdout, even while the tables that
    normally go to stdout are sent to stderr."""
    return _RESULT_STREAM[-1] if _RESULT_STREAM else sys.stdout


def stdout_targets(args: argparse.Namespace) -> list[str]:
    """The output options of ``args`` that ask for stdout (``-``)."""
    return [f"--{name.replace('_', '-')}" for name in ("json", "csv", "per_item", "plot")
            if getattr(args, name, None) == "-"]


@contextlib.contextmanager
def results_only_on_stdout(enabled: bool) -> Iterator[None]:
    """While enabled, everything printed goes to stderr and only :func:`result_stream`
    writes reach stdout (so ``cgm score --json - | jq`` gets pure JSON)."""
    if not enabled:
        yield
        return
    _RESULT_STREAM.append(sys.stdout)
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        _RESULT_STREAM.pop()
