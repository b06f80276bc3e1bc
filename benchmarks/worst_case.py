"""Worst-case timings: every registry metric on the hardest inputs within the documented limits.

    python benchmarks/worst_case.py [--chars 5000] [--references 8] [--large 0]

The limits are the Space's (5,000 characters a snippet, what ``cgm`` users meet on generated
code too): one pair per case, scored by ``cgm_metrics.score`` in this process, wall time in
seconds, one run each (the cases are deterministic; a busy machine makes them slower, never
faster). Cases: flat Python statements, deep parentheses, deep block nesting, one long
token, random unicode, an unrelated pair, several references, Java blocks and JavaScript
statements (lang set accordingly). ``--large N`` adds a near copy of N characters (e.g.
1000000), beyond the Space's limits, where the library has none. The first METEOR call loads
WordNet; that load is timed on its own line. Prints a markdown table and the load average.
"""

from __future__ import annotations

import argparse
import os
import random
import time

import cgm_metrics
from cgm_metrics.classic.wordnet import load_wordnet

METRICS = ("bleu", "chrf_code", "codebleu", "edit_sim", "meteor", "rouge_l", "ruby")


def _fill(line, n_chars: int) -> str:
    parts, size, i = [], 0, 0
    while size < n_chars:
        text = line(i)
        if size + len(text) > n_chars:
            break
        parts.append(text)
        size += len(text)
        i += 1
    return "".join(parts)


def flat_python(n: int, seed: int = 0) -> str:
    rng = random.Random(seed)
    return _fill(lambda i: f"v{i} = v{max(i - 1, 0)} * {rng.randint(1, 9)} + f(v{i // 2})\n", n)


def deep_parens(n: int) -> str:
    depth = (n - 5) // 2
    return "x = " + "(" * depth + "1" + ")" * depth


def deep_blocks(n: int) -> str:
    lines, size, depth = [], 0, 0
    while True:
        line = " " * depth + f"if x{depth} > {depth}:\n"
        if size + len(line) + depth + 12 > n:
            break
        lines.append(line)
        size += len(line)
        depth += 1
    lines.append(" " * depth + "y = 1\n")
    return "".join(lines)


def long_token(n: int) -> str:
    return "x = '" + "a" * (n - 6) + "'"


def random_unicode(n: int, seed: int = 0) -> str:
    rng = random.Random(seed)
    return "".join(chr(rng.choice([rng.randint(32, 126), rng.randint(0xA0, 0x2FFF),
                                   rng.randint(0x1F300, 0x1F64F)])) for _ in range(n))


def java_blocks(n: int) -> str:
    return _fill(lambda i: f"if (x > {i}) {{ y = y + {i}; }}\n", n)


def js_statements(n: int) -> str:
    return _fill(lambda i: f"let v{i} = v{max(i - 1, 0)} + {i};\n", n)


def mutate(code: str, seed: int = 1, rate: int = 40) -> str:
    """A near copy: about one character in ``rate`` replaced, deleted or duplicated."""
    rng = random.Random(seed)
    out = []
    for char in code:
        roll = rng.randrange(rate)
        if roll == 0:
            out.append(rng.choice("abxyz019+-"))
        elif roll == 1:
            continue
        elif roll == 2:
            out.append(char * 2)
        else:
            out.append(char)
    return "".join(out)[: len(code)]


def cases(n: int, n_refs: int, large: int) -> list[tuple[str, str, str, list[str]]]:
    """(label, lang, prediction, references)."""
    flat = flat_python(n)
    rows = [
        (f"flat Python statements, {n:,} chars", "python", mutate(flat), [flat]),
        (f"deep parentheses ({(n - 5) // 2:,} levels)", "python", deep_parens(n - 2),
         [deep_parens(n)]),
        (f"deep block nesting ({deep_blocks(n).count(chr(10)) - 1} levels)", "python",
         mutate(deep_blocks(n)), [deep_blocks(n)]),
        (f"one {n:,}-char token", "python", long_token(n), [long_token(n - 100)]),
        (f"random unicode, {n:,} chars", "python", random_unicode(n, 1), [random_unicode(n, 2)]),
        ("unrelated pair (flat vs nested)", "python", deep_blocks(n), [flat]),
        (f"{n_refs} references of {n:,} chars", "python", mutate(flat),
         [mutate(flat_python(n, seed), seed) for seed in range(n_refs)]),
        (f"Java blocks, {n:,} chars", "java", mutate(java_blocks(n)), [java_blocks(n)]),
        (f"JavaScript statements, {n:,} chars", "javascript", mutate(js_statements(n)),
         [js_statements(n)]),
    ]
    if large:
        big = flat_python(large)
        rows.append((f"near copy, {large:,} chars (no limit)", "python", mutate(big, rate=1000),
                     [big]))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chars", type=int, default=5000, help="snippet size (default 5000)")
    parser.add_argument("--references", type=int, default=8)
    parser.add_argument("--large", type=int, default=0, help="add a near copy of this size")
    args = parser.parse_args()

    start = time.perf_counter()
    load_wordnet()
    wordnet_load = time.perf_counter() - start
    load_before = os.getloadavg()[0]
    print(f"WordNet load (first METEOR call of a process): {wordnet_load:.2f} s\n")
    print("| case | " + " | ".join(METRICS) + " |")
    print("|---|" + "---:|" * len(METRICS))
    worst = {name: (0.0, "") for name in METRICS}
    for label, lang, prediction, references in cases(args.chars, args.references, args.large):
        cells = []
        for name in METRICS:
            start = time.perf_counter()
            cgm_metrics.score(name, [prediction], [references], lang=lang)
            seconds = time.perf_counter() - start
            cells.append(f"{seconds:.2f}")
            if seconds > worst[name][0]:
                worst[name] = (seconds, label)
        print(f"| {label} | " + " | ".join(cells) + " |", flush=True)
    print()
    for name, (seconds, label) in worst.items():
        print(f"- {name}: worst {seconds:.2f} s ({label})")
    print(f"\n{os.cpu_count()} CPUs; 1-minute load average {load_before:.1f} before, "
          f"{os.getloadavg()[0]:.1f} after")


if __name__ == "__main__":
    main()
