"""The package's comment removal, reproduced because its output is what gets parsed.

CodeBLEU (CodeXGLUE and the `codebleu` package) removes comments *textually* before the
syntax and dataflow components: Python through the ``tokenize`` module (comments, and every
string that starts a logical line, docstrings included), Ruby not at all, every other language
with a regular expression for ``//`` and ``/* */`` comments that keeps string literals. Lines
left blank are dropped. When removal fails (e.g. ``tokenize`` rejects the code), the text is
kept as it is. These rules decide which tree is compared, so parity needs them exactly.

The regular expression is one :class:`~.tables.CommentStyle` of a scanner that reads its
markers as data; the languages the package does not have (Lua, Bash, Haskell, Julia) are
other languages' styles (``tables.scanned_style``).
"""

from __future__ import annotations

import re
from functools import cache

from .tables import CommentStyle, scanned_style


def _non_blank_lines(text: str) -> str:
    return "\n".join(line for line in text.split("\n") if line.strip() != "")


def _strip_tokenize(source: str) -> str:
    import io
    import tokenize

    pieces: list[str] = []
    previous_type = tokenize.INDENT
    last_line, last_col = -1, 0
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        kind, text, (start_line, start_col), (end_line, end_col) = token[:4]
        if start_line > last_line:
            last_col = 0
        if start_col > last_col:
            pieces.append(" " * (start_col - last_col))
        if kind == tokenize.COMMENT:
            pass
        elif kind == tokenize.STRING:
            # a string opening a logical line is treated as a docstring and dropped
            if previous_type not in (tokenize.INDENT, tokenize.NEWLINE) and start_col > 0:
                pieces.append(text)
        else:
            pieces.append(text)
        previous_type = kind
        last_col, last_line = end_col, end_line
    return _non_blank_lines("".join(pieces))


_PREFIX = r"(?:[rR][bBfF]|[bBfF][rR]|[rRbBfFuU])?"
_PY_SCAN = re.compile(
    rf"""
    (?P<string>{_PREFIX}
        (?:'\'\'(?:[^'\\]|\\.|'(?!''))*'\'\'
          |\"\"\"(?:[^"\\]|\\.|"(?!""))*\"\"\"))
    |(?P<unclosed>{_PREFIX}(?:'\'\'|\"\"\"))
    |(?P<short>{_PREFIX}(?:'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"))
    |(?P<comment>\#[^\n]*)
    |(?P<newline>\n)
    |(?P<space>[ ]+)
    |(?P<open>[(\[{{])
    |(?P<close>[)\]}}])
    |(?P<word>[A-Za-z0-9_]+)
    |(?P<other>[^\s'"\#\\()\[\]{{}}A-Za-z0-9_])
    """,
    re.VERBOSE | re.DOTALL,
)
_ODD_SPACE = re.compile(r"[^\S \n]")


def _strip_tokenize_fast(source: str) -> str | None:
    """``_strip_tokenize`` for ordinary code without running ``tokenize``; None when unsure.

    Follows tokenize's rules for what matters here: comments, strings, and whether a string
    opens a logical line (after NEWLINE or INDENT) or sits in column 0. Code with tabs, odd
    whitespace, backslash continuations or unterminated strings goes to the real tokenizer, and
    so does code whose bracket depth goes below zero and comes back to it (a depth still below
    zero at the end makes tokenize raise: the text is kept).
    """
    if _ODD_SPACE.search(source):
        return None
    removals: list[tuple[int, int]] = []
    indents = [0]
    depth = 0
    went_negative = False  # tokenize lets the depth go below 0: continuation lines from there
    previous = "INDENT"
    logical_start = True
    line_start = 0
    position = 0
    length = len(source)
    match = _PY_SCAN.match
    while position < length:
        found = match(source, position)
        if found is None:
            return None
        kind = found.lastgroup
        if kind == "unclosed":
            return None
        if kind == "short":
            kind = "string"
        end = found.end()
        if kind == "space":
            position = end
            continue
        if kind == "newline":
            if depth == 0 and not logical_start:
                previous = "NEWLINE"
                logical_start = True
            else:
                previous = "NL"
            line_start = end
            position = end
            continue
        column = position - line_start
        if logical_start and depth == 0:
            if kind == "comment":
                removals.append((position, end))
                previous = "COMMENT"
                position = end
                continue
            if column > indents[-1]:
                indents.append(column)
                previous = "INDENT"
            elif column < indents[-1]:
                while column < indents[-1]:
                    indents.pop()
                if column != indents[-1]:
                    # tokenize raises IndentationError: text kept
                    return None if went_negative else source
                previous = "DEDENT"
            logical_start = False
        if kind == "comment":
            removals.append((position, end))
        elif kind == "string":
            if previous in ("INDENT", "NEWLINE") or column == 0:
                removals.append((position, end))
        elif kind == "open":
            depth += 1
        elif kind == "close":
            depth -= 1
            went_negative = went_negative or depth < 0
        previous = kind
        if kind == "string" and "\n" in found.group():
            line_start = source.rfind("\n", position, end) + 1
        position = end
    if depth != 0:
        return source  # tokenize raises "EOF in multi-line statement": text kept
    if went_negative:  # back at depth 0 after a closer without opener: tokenize decides
        return None
    if not removals:
        return _non_blank_lines(source)
    pieces, last = [], 0
    for start, stop in removals:
        pieces.append(source[last:start])
        last = stop
    pieces.append(source[last:])
    return _non_blank_lines("".join(pieces))


_WORD_BREAKS = frozenset(" \t\n\r\f\v;|&()<>")  # Bash: a word starts after one of these
_LONG_OPEN = re.compile(r"\[(=*)\[")


@cache
def _openers(style: CommentStyle) -> re.Pattern:
    """The characters where a comment, string or escape of ``style`` can start."""
    firsts = {opener[0] for opener, _ in style.block} | {opener[0] for opener in style.line}
    firsts |= {quote.delimiter[0] for quote in style.quotes}
    if style.long_brackets:
        firsts.add("[")
    if style.escapes_outside:
        firsts.add("\\")
    return re.compile("[" + "".join(re.escape(c) for c in sorted(firsts)) + "]")


def _long_end(source: str, position: int) -> int:
    """End of the Lua long bracket ``[==[ ... ]==]`` opening at ``position``; -1 if none
    opens there or it is not closed."""
    found = _LONG_OPEN.match(source, position)
    if found is None:
        return -1
    close = "]" + found.group(1) + "]"
    end = source.find(close, found.end())
    return -1 if end < 0 else end + len(close)


def _block_end(source: str, position: int, opener: str, closer: str, nested: bool) -> int:
    """End of the block comment opening at ``position``; -1 if it is not closed."""
    if not nested:
        end = source.find(closer, position + len(opener))
        return -1 if end < 0 else end + len(closer)
    depth, at, length = 1, position + len(opener), len(source)
    while at < length:
        if source.startswith(closer, at):
            depth -= 1
            at += len(closer)
            if depth == 0:
                return at
        elif source.startswith(opener, at):
            depth += 1
            at += len(opener)
        else:
            at += 1
    return -1


def _is_line_comment(source: str, position: int, opener: str, style: CommentStyle) -> bool:
    if style.line_at_word_start and position > 0 and source[position - 1] not in _WORD_BREAKS:
        return False
    if style.line_symbols:
        if position > 0 and source[position - 1] in style.line_symbols:
            return False
        after, repeated = position + len(opener), opener[-1]
        while after < len(source) and source[after] == repeated:
            after += 1
        if after < len(source) and source[after] in style.line_symbols:
            return False
    return True


def _quote_end(source: str, position: int, quote) -> int:
    """End of the literal opening at ``position``; -1 if it is not closed."""
    delimiter, length = quote.delimiter, len(source)
    if quote.not_after and position > 0:
        before = source[position - 1]
        if before in quote.not_after or ord(before) > 127:
            return -1
    at = position + len(delimiter)
    while at < length:
        character = source[at]
        if character == "\\" and quote.escape:
            if at + 1 >= length:
                return -1
            at += 2
        elif source.startswith(delimiter, at):
            return at + len(delimiter)
        elif character == "\n" and not quote.multiline:
            return -1
        else:
            at += 1
    return -1


def _comment_or_literal(source: str, position: int, style: CommentStyle) -> tuple[bool, int]:
    """What starts at ``position``: (True, end) a comment, (False, end) a string or escape
    kept as it is, (False, -1) nothing."""
    if style.long_brackets:
        for opener in style.line:
            if source.startswith(opener, position):
                end = _long_end(source, position + len(opener))
                if end >= 0:
                    return True, end
    for opener, closer in style.block:
        if source.startswith(opener, position):
            end = _block_end(source, position, opener, closer, style.nested)
            if end >= 0:
                return True, end
    for opener in style.line:
        if source.startswith(opener, position) and _is_line_comment(source, position, opener,
                                                                     style):
            end = source.find("\n", position)
            return True, len(source) if end < 0 else end
    if style.long_brackets and source[position] == "[":
        end = _long_end(source, position)
        if end >= 0:
            return False, end
    for quote in style.quotes:
        if source.startswith(quote.delimiter, position):
            end = _quote_end(source, position, quote)
            if end >= 0:
                return False, end
    if style.escapes_outside and source[position] == "\\" and position + 1 < len(source):
        return False, position + 2
    return False, -1


def _strip_scanned(source: str, style: CommentStyle) -> str:
    """Each comment of ``style`` replaced by a space, strings kept, blank lines dropped (for
    the package's C-family style: its ``re.sub`` of the regular expression above)."""
    search = _openers(style).search
    pieces: list[str] = []
    kept_from = position = 0
    while True:
        found = search(source, position)
        if found is None:
            break
        start = found.start()
        comment, end = _comment_or_literal(source, start, style)
        if end < 0:
            position = start + 1
            continue
        if comment:
            pieces.append(source[kept_from:start])
            pieces.append(" ")
            kept_from = end
        position = end
    pieces.append(source[kept_from:])
    return _non_blank_lines("".join(pieces))


def remove_comments(source: str, style: str) -> str:
    """Comments removed as the package does; ``style`` is "tokenize", "none" or a style of
    ``tables.comment_style_name`` ("c_comments" for the package's C family)."""
    try:
        if style == "tokenize":
            fast = _strip_tokenize_fast(source)
            return _strip_tokenize(source) if fast is None else fast
        if style == "none":
            return source
        return _strip_scanned(source, scanned_style(style))
    except Exception:  # the package swallows every failure and keeps the text
        return source
