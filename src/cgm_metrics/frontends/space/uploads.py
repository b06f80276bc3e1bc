"""Uploaded files: checked against the limits and read with the ``cgm`` readers; messages
name the file, never the server's upload folder."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ...base.errors import InputError
from ...base.io import (
    check_same_length,
    describe_escaped,
    detect_format,
    escaped_line_count,
    read_predictions,
    read_references,
    safe_name,
)
from . import limits as _limits
from .limits import SpaceInputError


def _display_name(path: str | Path) -> str:
    return Path(path).name


def upload_names(paths: list[Path]) -> list[str]:
    """System names for uploads: the file names without extension. Browsers keep uploads
    in separate folders, so two different files may share a name (``model.txt`` twice):
    the later ones become ``model (2)``, ``model (3)``. The same server file twice is a
    mistake."""
    seen: set[str] = set()
    for path in paths:
        key = str(Path(path).resolve())
        if key in seen:
            raise SpaceInputError(f"{Path(path).name} is uploaded twice; upload each system "
                                  "once.")
        seen.add(key)
    names: list[str] = []
    for path in paths:
        stem = safe_name(Path(path).stem) or "system"
        name, copy = stem, 1
        while name in names:
            copy += 1
            name = f"{stem} ({copy})"
        names.append(name)
    return names


def _friendly(error: Exception, paths: list[str | Path]) -> SpaceInputError:
    """The reader's message with upload folders removed (only file names remain)."""
    message = str(error)
    for path in sorted({str(p) for p in paths}, key=len, reverse=True):
        message = message.replace(path, _display_name(path))
    return SpaceInputError(message)


def check_upload(path: Any, what: str, suffixes: tuple[str, ...] | None = None) -> Path:
    """The path of an uploaded file, checked for presence and size."""
    if path is None or path == "":
        raise SpaceInputError(f"Upload {what}.")
    if not isinstance(path, (str, os.PathLike)):  # a file object of older gradio versions
        path = getattr(path, "path", None) or getattr(path, "name", "")
    path = Path(path)
    if not path.is_file():
        raise SpaceInputError(f"The upload of {what} did not arrive; upload it again.")
    size = path.stat().st_size
    if size > _limits.LIMITS.max_upload_bytes:
        raise SpaceInputError(
            f"{path.name} is {size / 1e6:.1f} MB; the limit here is "
            f"{_limits.LIMITS.max_upload_bytes / 1e6:.0f} MB per file. Use the `cgm` command for "
            "larger files."
        )
    if suffixes and path.suffix.lower() not in suffixes:
        raise SpaceInputError(f"{path.name}: expected a {' or '.join(suffixes)} file.")
    return path


def _check_items(name: str, texts: list[str]) -> None:
    if len(texts) > _limits.LIMITS.max_items:
        raise SpaceInputError(
            f"{name} has {len(texts):,} items; the limit here is {_limits.LIMITS.max_items:,}. Use "
            "the `cgm compare` command for larger test sets."
        )
    for index, text in enumerate(texts, start=1):
        if len(text) > _limits.LIMITS.max_item_chars:
            raise SpaceInputError(
                f"{name}, item {index} has {len(text):,} characters; the limit here is "
                f"{_limits.LIMITS.max_item_chars:,}."
            )


def read_uploads(
    references_path: Any, system_paths: Any, unescape: bool = False
) -> tuple[list[list[str]], dict[str, list[str]], list[str]]:
    """References, ``{system name: predictions}`` and the file names (references first), from
    uploads, with the ``cgm`` readers (plain text, one item per line read verbatim, or with
    ``\\n`` escapes decoded when ``unescape``; or JSONL with ``prediction``/``references``
    fields)."""
    unescape = unescape is True
    refs_file = check_upload(references_path, "a references file")
    if not system_paths:
        raise SpaceInputError("Upload two or more system files (one per system).")
    if not isinstance(system_paths, (list, tuple)):
        system_paths = [system_paths]
    if len(system_paths) < 2:
        raise SpaceInputError(f"Upload at least two system files to compare (got "
                              f"{len(system_paths)}).")
    if len(system_paths) > _limits.LIMITS.max_systems:
        raise SpaceInputError(f"At most {_limits.LIMITS.max_systems} systems at a time (got "
                              f"{len(system_paths)}).")
    files = [check_upload(p, "a system file") for p in system_paths]
    all_paths: list[str | Path] = [refs_file, *files]
    try:
        names = upload_names(files)
        references = read_references(refs_file, unescape=unescape)
        _check_items(refs_file.name, [r for refs in references for r in refs])
        systems = {}
        for name, path in zip(names, files, strict=True):
            systems[name] = read_predictions(path, unescape=unescape)
            _check_items(path.name, systems[name])
        check_same_length([(refs_file.name, len(references))]
                          + [(path.name, len(systems[name]))
                             for name, path in zip(names, files, strict=True)])
    except InputError as error:
        raise _friendly(error, all_paths) from None
    if len(references) < 2:
        raise SpaceInputError(f"{refs_file.name} has {len(references)} item(s); a significance "
                              "test needs at least 2 (ideally hundreds).")
    return references, systems, [_display_name(path) for path in all_paths]


#: what the Space adds to :func:`cgm_metrics.base.io.describe_escaped`: its fix
ESCAPED_FIX = (" Tick \u201cEscaped lines\u201d to read \\n as a line break (leave it unticked "
               "only if the \\n are meant as the two characters).")


def escaped_warning(references: list[list[str]], systems: dict[str, list[str]],
                    files: list[str]) -> str | None:
    """The warning for plain-text uploads read verbatim whose lines look like escaped
    multi-line code (:func:`cgm_metrics.base.io.escaped_line_count`), or None. ``files``: the
    display names, references first, then one per system in the order of ``systems``."""
    texts = [(files[0], [refs[0] for refs in references])]
    texts += [(name, items) for name, items in zip(files[1:], systems.values(), strict=True)]
    found = [(name, count, len(items)) for name, items in texts
             if detect_format(name) == "text" and (count := escaped_line_count(items))]
    return describe_escaped(found) + ESCAPED_FIX if found else None
