"""Worst-case timings: every registry metric on the hardest inputs within the documented limits,
each beside its peer.

    python benchmarks/worst_case.py [--chars 5000] [--references 8] [--large 0] [--cap 60]

The limits are the Space's (5,000 characters a snippet, what ``cgm`` users meet on generated
code too): one pair per case, scored by ``cgm_metrics.score`` in this process, wall time in
seconds, one run each (the cases are deterministic; a busy machine makes them slower, never
faster). Cases: flat Python statements, deep parentheses, deep block nesting, one long
token, random unicode, an unrelated pair, several references, Java blocks and JavaScript
statements (lang set accordingly). ``--large N`` adds a near copy of N characters (e.g.
1000000), beyond the Space's limits, where the library has none.

Each cell reads ``ours / peer``: the peer computes the same number with the library people use
for it, in a child process of its own (``PYTHONHASHSEED=0``) that loads the library and warms
it up on a small pair first, as this process has: bleu and chrf_code by sacrebleu (BLEU on the
study's code tokens, ``tokenize="none"``), codebleu by the ``codebleu`` package, edit_sim by
rapidfuzz's Levenshtein, rouge_l by rouge-score's LCS, meteor by nltk's
``single_meteor_score`` with nltk's own WordNet reader; tokenizing is inside both timings. ruby
has no peer (no package computes its graph level). A peer stopped after ``--cap`` seconds
shows ``>cap``; one that fails shows ``error``; a value that differs from ours by more than
1e-9 is marked ``(differs)``. Loading WordNet (the first METEOR call of a process) is timed on
its own line. Prints a markdown table and the load average, and appends every cell (ours
and the peer's seconds), with the machine, the load and the date, to
benchmarks/results/worst_case.json.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import cgm_metrics
from cgm_metrics.maths.classic.wordnet import load_wordnet

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchtools import Record, tranx_tokens  # noqa: E402

METRICS = ("bleu", "chrf_code", "codebleu", "edit_sim", "meteor", "rouge_l", "ruby")
PEERS = ("bleu", "chrf_code", "codebleu", "edit_sim", "meteor", "rouge_l")

_PEER = r"""
import json, re, signal, sys, time
name, cap = sys.argv[1], float(sys.argv[2])
cases = json.loads(sys.stdin.read())

{tokenizer}
tranx = tranx_tokens

if name == "bleu":
    from sacrebleu.metrics import BLEU
    def score(p, refs, lang):
        return BLEU(tokenize="none").corpus_score(
            [" ".join(tranx(p))], [[" ".join(tranx(r))] for r in refs]).score
elif name == "chrf_code":
    from sacrebleu.metrics import CHRF
    def score(p, refs, lang):
        return CHRF().corpus_score([p], [[r] for r in refs]).score
elif name == "codebleu":
    from codebleu import calc_codebleu
    def score(p, refs, lang):
        return calc_codebleu([refs], [p], lang)["codebleu"]
elif name == "edit_sim":
    from rapidfuzz.distance import Levenshtein
    def score(p, refs, lang):
        return max(Levenshtein.normalized_similarity(p, r) for r in refs)
elif name == "rouge_l":
    from rouge_score import rouge_scorer
    def score(p, refs, lang):
        return max(rouge_scorer._score_lcs(tranx(r), tranx(p)).fmeasure for r in refs)
elif name == "meteor":
    import nltk.data
    from nltk.corpus.reader.wordnet import WordNetCorpusReader
    from nltk.translate.meteor_score import single_meteor_score
    reader = WordNetCorpusReader(nltk.data.find("corpora/wordnet"), None)
    def score(p, refs, lang):
        return max(single_meteor_score(tranx(r), tranx(p), wordnet=reader) for r in refs)
for lang in sorted({case[2] for case in cases}):
    score("x = a + b", ["x = a - b"], lang)  # warm-up: parsers, databases

def stop(*_):
    raise TimeoutError
signal.signal(signal.SIGALRM, stop)
out = []
for prediction, references, lang in cases:
    signal.setitimer(signal.ITIMER_REAL, cap)
    start = time.perf_counter()
    try:
        value = score(prediction, references, lang)
        out.append([time.perf_counter() - start, value])
    except TimeoutError:
        out.append([None, "cap"])
    except Exception as error:
        out.append([None, "error: " + type(error).__name__])
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
print(json.dumps(out))
"""


def run_peer(name: str, rows: list, cap: float) -> list:
    """``[[seconds or None, value or reason], ...]`` of the peer of ``name`` on every case."""
    cases = [[prediction, references, lang] for _, lang, prediction, references in rows]
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    script = _PEER.replace("{tokenizer}", inspect.getsource(tranx_tokens))
    done = subprocess.run([sys.executable, "-c", script, name, str(cap)], input=json.dumps(cases),
                          capture_output=True, text=True, env=env)
    if done.returncode != 0:
        reason = (done.stderr.strip().splitlines() or ["no output"])[-1][:60]
        return [[None, f"error: {reason}"]] * len(cases)
    return json.loads(done.stdout)


def cell(ours: tuple[float, float], peer: list | None, cap: float) -> str:
    seconds, value = ours
    text = f"{seconds:.2f}"
    if peer is None:
        return text
    peer_seconds, peer_value = peer
    if peer_seconds is None:
        return text + (f" / >{cap:g}" if peer_value == "cap" else " / error")
    differs = " (differs)" if abs(peer_value - value) > 1e-9 else ""
    return f"{text} / {peer_seconds:.2f}{differs}"


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
    parser.add_argument("--cap", type=float, default=60.0,
                        help="seconds after which a peer's case is stopped (default 60)")
    args = parser.parse_args()
    record = Record("worst_case", {"chars": args.chars, "references": args.references,
                                   "large": args.large, "cap": args.cap})

    start = time.perf_counter()
    load_wordnet()
    wordnet_load = time.perf_counter() - start
    load_before = os.getloadavg()[0]
    print(f"WordNet load (first METEOR call of a process): {wordnet_load:.2f} s")
    rows = cases(args.chars, args.references, args.large)
    for name in METRICS:  # parsers loaded, as a running process has them (the peers warm up too)
        cgm_metrics.score(name, ["x = a + b"], [["x = a - b"]], lang="python")
    ours: dict[str, list[tuple[float, float]]] = {name: [] for name in METRICS}
    for _label, lang, prediction, references in rows:
        for name in METRICS:
            start = time.perf_counter()
            value = cgm_metrics.score(name, [prediction], [references], lang=lang)["score"]
            ours[name].append((time.perf_counter() - start, value))
    peers = {name: run_peer(name, rows, args.cap) for name in PEERS}
    print("\nseconds, ours / peer (one run each)\n")
    print("| case | " + " | ".join(METRICS) + " |")
    print("|---|" + "---:|" * len(METRICS))
    for index, (label, _, _, _) in enumerate(rows):
        cells = [cell(ours[name][index], peers[name][index] if name in peers else None, args.cap)
                 for name in METRICS]
        print(f"| {label} | " + " | ".join(cells) + " |", flush=True)
        for name, text in zip(METRICS, cells, strict=True):
            record.value(f"{label}: {name}", ours[name][index][0], "s",
                         f"ours, one run (the printed cell, ours / peer: {text})")
    print()
    for name in METRICS:
        seconds, index = max((value[0], k) for k, value in enumerate(ours[name]))
        print(f"- {name}: worst {seconds:.2f} s ({rows[index][0]})")
    record.value("WordNet load", wordnet_load, "s", "the first METEOR call of a process")
    print(f"\n{os.cpu_count()} CPUs; 1-minute load average {load_before:.1f} before, "
          f"{os.getloadavg()[0]:.1f} after")
    record.write()


if __name__ == "__main__":
    main()
