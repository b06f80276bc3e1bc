"""The package's comment removal, reproduced because its output is what gets parsed.

CodeBLEU (CodeXGLUE and the `codebleu` package) removes comments *textually* before the
syntax and dataflow components: Python through the ``tokenize`` module (comments, and every
string that starts a logical line, docstrings included), Ruby not at all, every other language
with a regular expression for ``//`` and ``/* */`` comments that keeps string literals. Lines
left blank are dropped. When removal fails (e.g. ``tokenize`` rejects the code), the text is
kept as it is. These rules decide which tree is compared, so parity needs them exactly.
"""

from __future__ import annotations

import io
import re
import tokenize

_C_STYLE = re.compile(
    r"//.*?$|/\*.*?\*/|'(?:\\.|[^\\'])*'|\"(?:\\.|[^\\\"])*\"", re.DOTALL | re.MULTILINE
)


def _non_blank_lines(text: str) -> str:
    return "\n".join(line for line in text.split("\n") if line.strip() != "")


def _strip_python(source: str) -> str:
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


def _keep_strings(match: re.Match) -> str:
    text = match.group(0)
    return " " if text.startswith("/") else text


def _strip_c_style(source: str) -> str:
    return _non_blank_lines(_C_STYLE.sub(_keep_strings, source))


def remove_comments(source: str, style: str) -> str:
    """Comments removed as the package does; ``style`` is "python", "none" or "c"."""
    try:
        if style == "python":
            return _strip_python(source)
        if style == "none":
            return source
        return _strip_c_style(source)
    except Exception:  # the package swallows every failure and keeps the text
        return source
