"""Benchmark corpus: functions of the Python standard library against mutated copies.

Deterministic for a given ``seed``: files are read in sorted order and every random choice
comes from one seeded ``random.Random``. The mutations are the kind a code model makes:
renamed identifiers, a deleted, duplicated or swapped line, a changed operator or literal.
"""

from __future__ import annotations

import ast
import random
import re
import sysconfig
from pathlib import Path

_OPERATORS = [("+", "-"), ("<", "<="), ("==", "!="), ("and", "or"), ("*", "//")]


def stdlib_functions(
    limit: int, min_chars: int = 200, max_chars: int = 2000, seed: int = 0
) -> list[str]:
    """Up to ``limit`` function definitions (source text) from the standard library."""
    root = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(
        p
        for p in root.glob("*.py")
        if not p.name.startswith("test") and "__phello__" not in p.name
    )
    rng = random.Random(seed)
    rng.shuffle(files)
    functions: list[str] = []
    for path in files:
        try:
            source = path.read_text(encoding="utf-8")
            tree = ast.parse(source)
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        source_lines = source.splitlines()
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.decorator_list:
                # whole lines of the definition, dedented so every snippet parses on its own
                indent = node.col_offset
                lines = source_lines[node.lineno - 1 : node.end_lineno]
                text = "\n".join(line[indent:] if line[:indent].isspace() else line for line in lines)
                if min_chars <= len(text) <= max_chars:
                    functions.append(text)
                    if len(functions) >= limit:
                        return functions
    return functions


def mutate(code: str, rng: random.Random) -> str:
    """One to three mutations of ``code``."""
    for _ in range(rng.randint(1, 3)):
        choice = rng.randrange(5)
        lines = code.split("\n")
        if choice == 0:
            names = sorted(set(re.findall(r"\b[a-z_][a-z0-9_]{2,}\b", code)))
            if names:
                old = rng.choice(names)
                code = re.sub(rf"\b{old}\b", old + "_x", code)
        elif choice == 1 and len(lines) > 2:
            del lines[rng.randrange(1, len(lines))]
            code = "\n".join(lines)
        elif choice == 2 and len(lines) > 2:
            index = rng.randrange(1, len(lines))
            lines.insert(index, lines[index])
            code = "\n".join(lines)
        elif choice == 3 and len(lines) > 3:
            i = rng.randrange(1, len(lines) - 1)
            lines[i], lines[i + 1] = lines[i + 1], lines[i]
            code = "\n".join(lines)
        else:
            old, new = rng.choice(_OPERATORS)
            code = code.replace(f" {old} ", f" {new} ", 1)
            code = re.sub(r"\b(\d+)\b", lambda m: str(int(m.group(1)) + 1), code, count=1)
    return code


def stdlib_pairs(n: int, seed: int = 0) -> tuple[list[str], list[str]]:
    """``(predictions, references)``: ``n`` stdlib functions and a mutated copy of each."""
    references = stdlib_functions(n, seed=seed)
    rng = random.Random(seed)
    predictions = [mutate(ref, rng) for ref in references]
    return predictions, references


if __name__ == "__main__":
    preds, refs = stdlib_pairs(2000)
    print(len(refs), "pairs;", sum(map(len, refs)) / len(refs), "chars per reference")
