"""Source transformations on a parse tree: comment stripping and identifier normalisation."""

from __future__ import annotations

from tree_sitter import Node

from ..languages import resolve_language
from ..languages.parts import LanguageSpec
from .parsing import ParsedCode, leaves, parse, walk


def _docstring_nodes(parsed: ParsedCode) -> list[Node]:
    """Python string statements that open a module, class or function body."""
    found = []
    body: Node | None
    for node in walk(parsed.root):
        if node.type == "module":
            body = node
        elif node.type in ("function_definition", "class_definition"):
            body = node.child_by_field_name("body")
        else:
            continue
        if body is None:
            continue
        first = next((c for c in body.named_children if c.type != "comment"), None)
        if (
            first is not None
            and first.type == "expression_statement"
            and first.named_child_count == 1
            and first.named_children[0].type in ("string", "concatenated_string")
        ):
            found.append(first)
    return found


def _remove_ranges(source: bytes, ranges: list[tuple[int, int]]) -> str:
    """Cut byte ranges out of ``source``; lines left blank by a cut disappear."""
    if not ranges:
        return source.decode("utf-8", errors="replace")
    pieces, position = [], 0
    for start, end in sorted(ranges):
        if end > start and source[end - 1] == 13:  # some grammars end a comment with its \r
            end -= 1
        if start < position:  # nested or overlapping (a docstring inside a removed range)
            start = position
        pieces.append(source[position:start])
        pieces.append(b"\x00")  # marks a cut, so only lines that held a cut may vanish
        position = max(position, end)
    pieces.append(source[position:])
    lines = b"".join(pieces).decode("utf-8", errors="replace").split("\n")
    kept = []
    for line in lines:
        if "\x00" in line:
            ending = "\r" if line.endswith("\r") else ""  # keep CRLF line endings
            line = line.replace("\x00", "").rstrip()
            if not line:
                continue
            line += ending
        kept.append(line)
    return "\n".join(kept)


def strip_comments(code: str | ParsedCode, lang: str | LanguageSpec | None = None) -> str:
    """Remove comments (and Python docstrings) using the language's parse tree.

    Operators that look like comment markers elsewhere stay intact (Python ``a // 2``), and
    every language of the registry is handled, Ruby included. A line that becomes empty is
    dropped; other lines keep their layout.
    """
    parsed = code if isinstance(code, ParsedCode) else parse(code, _required(lang))
    spec = parsed.language
    ranges = [
        (node.start_byte, node.end_byte)
        for node in walk(parsed.root)
        if node.type in spec.comment_types
    ]
    if spec.docstrings:
        ranges += [(node.start_byte, node.end_byte) for node in _docstring_nodes(parsed)]
    return _remove_ranges(parsed.source, ranges)


def normalize_identifiers(
    code: str | ParsedCode, lang: str | LanguageSpec | None = None, prefix: str = "v"
) -> str:
    """Rename identifiers to ``v0, v1, ...`` in order of first appearance.

    Two snippets that differ only in naming become identical. Every leaf of the language's
    identifier node types is renamed (including names of called builtins, such as ``len``),
    so the mapping depends only on the order in which names appear.
    """
    parsed = code if isinstance(code, ParsedCode) else parse(code, _required(lang))
    spec = parsed.language
    names: dict[bytes, str] = {}
    pieces, position = [], 0
    source = parsed.source
    for node in leaves(parsed.root, spec.string_types | spec.comment_types):
        if node.type not in spec.identifier_types:
            continue
        name = source[node.start_byte : node.end_byte]
        new = names.setdefault(name, f"{prefix}{len(names)}")
        pieces.append(source[position : node.start_byte])
        pieces.append(new.encode())
        position = node.end_byte
    pieces.append(source[position:])
    return b"".join(pieces).decode("utf-8", errors="replace")


def _required(lang: str | LanguageSpec | None) -> str | LanguageSpec:
    if lang is None:
        raise ValueError("`lang` is required for code-aware options; pass e.g. lang='python'.")
    return lang if isinstance(lang, LanguageSpec) else resolve_language(lang)
