"""The package's comment removal, reproduced because its output is what gets parsed.

CodeBLEU (CodeXGLUE and the `codebleu` package) removes comments *textually* before the
syntax and dataflow components: Python through the ``tokenize`` module (comments, and every
string that starts a logical line, docstrings included), Ruby not at all, every other language
with a regular expression for ``//`` and ``/* */`` comments that keeps string literals. Lines
left blank are dropped. When removal fails (e.g. ``tokenize`` rejects the code), the text is
kept as it is. These rules decide which tree is compared, so parity needs them exactly.
"""

from __future__ import annotations

import re

_C_STYLE = re.compile(
    r"//.*?$|/\*.*?\*/|'(?:\\.|[^\\'])*'|\"(?:\\.|[^\\\"])*\"", re.DOTALL | re.MULTILINE
)


def _non_blank_lines(text: str) -> str:
    return "\n".join(line for line in text.split("\n") if line.strip() != "")


def _strip_python(source: str) -> str:
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


def _strip_python_fast(source: str) -> str | None:
    """``_strip_python`` for ordinary code without running ``tokenize``; None when unsure.

    Follows tokenize's rules for what matters here: comments, strings, and whether a string
    opens a logical line (after NEWLINE or INDENT) or sits in column 0. Code with tabs, odd
    whitespace, backslash continuations, unterminated strings or a closing bracket without an
    opening one goes to the real tokenizer.
    """
    if _ODD_SPACE.search(source):
        return None
    removals: list[tuple[int, int]] = []
    indents = [0]
    depth = 0
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
                    return source  # tokenize raises IndentationError: text kept
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
            if depth < 0:
                return None
        previous = kind
        if kind == "string" and "\n" in found.group():
            line_start = source.rfind("\n", position, end) + 1
        position = end
    if depth != 0:
        return source  # tokenize raises "EOF in multi-line statement": text kept
    if not removals:
        return _non_blank_lines(source)
    pieces, last = [], 0
    for start, stop in removals:
        pieces.append(source[last:start])
        last = stop
    pieces.append(source[last:])
    return _non_blank_lines("".join(pieces))


def _keep_strings(match: re.Match) -> str:
    text = match.group(0)
    return " " if text.startswith("/") else text


def _strip_c_style(source: str) -> str:
    return _non_blank_lines(_C_STYLE.sub(_keep_strings, source))


def remove_comments(source: str, style: str) -> str:
    """Comments removed as the package does; ``style`` is "python", "none" or "c"."""
    try:
        if style == "python":
            fast = _strip_python_fast(source)
            return _strip_python(source) if fast is None else fast
        if style == "none":
            return source
        return _strip_c_style(source)
    except Exception:  # the package swallows every failure and keeps the text
        return source
