"""Code extraction from chat answers: its cost per answer, and (``--parity``) how often the
program extracted from an answer gets the verdict of the original program.

Answers: the real programs of tests/data (MultiPL-E's HumanEval programs in C++, Java,
JavaScript and Python with their recorded verdicts; the programs in MultiPL-E's conventions
for TypeScript, Go, Rust, PHP, Ruby, Lua and Bash), each wrapped in the eleven answer styles of
tests/chat_answers.py (prose around a tagged fence, an untagged ~~~ fence, a broken draft in
<think>, a usage block after the solution, tests of the model's own, a block in another
language first, raw code ending in a chat token, a whole program with its own main, a first
attempt then the corrected version, a lone </think>, the body alone).

Speed: ``extract_code`` + the program's assembly per answer, per language (the best of
``--rounds`` passes over all answers); on the Python answers also EvalPlus's
``evalplus.sanitize.sanitize`` (the peer, when installed: ``pip install --no-deps evalplus
tempdir wget appdirs multipledispatch``), in the same run, interleaved.

Parity (``--parity``): every answer's program runs in the sandbox (each distinct program text
once); the share of answers whose verdict equals the original's, per language, and every miss
with its style and how its code was found. ``--per-language N`` takes N originals of the
large sets (evenly spaced; 0 = all of them).

    python benchmarks/extraction.py [--rounds 3] [--parity] [--per-language 60] [--workers 2]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import chat_answers  # noqa: E402
from benchtools import Record, interleaved, load  # noqa: E402

from cgm_metrics.execution.extract import assembled_parts, extract_code  # noqa: E402

LANGUAGES = ("python", "cpp", "java", "javascript", "typescript", "go", "rust", "php", "ruby",
             "lua", "bash")
LARGE = ("python", "cpp", "java", "javascript")


def originals(language: str, per_language: int) -> list[chat_answers.Original]:
    if language not in LARGE:
        return chat_answers.conventions(language)
    from test_execution_languages import KNOWN_DIFFERENCES

    rows = [o for o in chat_answers.multipl_e(language) if o.verdict != "Timeout"
            and (language, o.task, int(o.index)) not in KNOWN_DIFFERENCES]
    if not per_language or per_language >= len(rows):
        return rows
    return [rows[(i * len(rows)) // per_language] for i in range(per_language)]


def speed(rounds: int, per_language: int, record: Record) -> None:
    print(f"extraction + assembly per answer ({load()})\n")
    print("| language | answers | mean | p95 | max |")
    print("|---|---|---|---|---|")
    python_answers = []
    for language in LANGUAGES:
        items = [(o.problem, answer) for o in originals(language, per_language)
                 for _, answer in chat_answers.answers(o)]
        if language == "python":
            python_answers = items
        for problem, answer in items[:20]:  # grammars loaded before timing
            assembled_parts(problem, extract_code(answer, problem))
        best: list[float] = [float("inf")] * len(items)
        for _ in range(rounds):
            for index, (problem, answer) in enumerate(items):
                start = time.perf_counter()
                assembled_parts(problem, extract_code(answer, problem))
                best[index] = min(best[index], time.perf_counter() - start)
        ordered = sorted(best)
        record.value(f"{language} mean", 1e3 * statistics.fmean(best), "ms/answer",
                     f"extract_code + assembly of {len(items)} answers, best of {rounds} each")
        print(f"| {language} | {len(items)} | {1e3 * statistics.fmean(best):.3f} ms | "
              f"{1e3 * ordered[int(0.95 * (len(ordered) - 1))]:.3f} ms | "
              f"{1e3 * ordered[-1]:.3f} ms |")
    try:
        from evalplus.sanitize import sanitize
    except ImportError:
        print("\n(EvalPlus not installed: pip install --no-deps evalplus tempdir wget appdirs "
              "multipledispatch, for the peer's figure)")
        return
    timed = interleaved({
        "ours": lambda: [assembled_parts(problem, extract_code(answer, problem))
                         for problem, answer in python_answers],
        "evalplus": lambda: [sanitize(answer, problem.entry_point)
                             for problem, answer in python_answers]}, rounds)
    count = len(python_answers)
    ratio = record.ratio("python vs EvalPlus", timed["evalplus"], timed["ours"],
                         "EvalPlus's sanitize of every Python answer vs our extract_code and "
                         "the program's assembly", count, "answer")
    print(f"\nPython answers ({count}), same run: EvalPlus sanitize "
          f"{1e3 * timed['evalplus'].best / count:.3f} ms/answer, ours "
          f"{1e3 * timed['ours'].best / count:.3f} ms/answer ({ratio:.1f}x; medians "
          f"{timed['evalplus'].median / timed['ours'].median:.1f}x) ({load()})")


def parity(per_language: int, workers: int, languages: tuple[str, ...]) -> None:
    print(f"\nverdict of the extracted program = verdict of the original ({load()})\n")
    print("| language | originals | answers | programs run | same verdict |")
    print("|---|---|---|---|---|")
    misses: list[tuple] = []
    for language in languages:
        chosen = originals(language, per_language)
        result = chat_answers.parity(language, chosen, num_workers=workers)
        rows = result["rows"]
        same = sum(row["same"] for row in rows)
        print(f"| {language} | {len(chosen)} | {len(rows)} | {result['programs']} | "
              f"{same}/{len(rows)} ({100 * same / len(rows):.1f}%) |", flush=True)
        misses += [(language, row["original"].task, row["original"].index, row["style"],
                    row["original"].verdict, row["verdict"], row["extraction"].how)
                   for row in rows if not row["same"]]
    if "python" in languages:
        peer_parity(per_language, workers)
    print("\nmisses by language and style:", dict(Counter((m[0], m[3]) for m in misses)))
    for miss in misses:
        print("  ", " | ".join(str(part) for part in miss))


def peer_parity(per_language: int, workers: int) -> None:
    """The same Python answers through EvalPlus's sanitizer (its solution, then the test and
    check(entry_point), as EvalPlus runs a sanitized solution)."""
    try:
        from evalplus.sanitize import sanitize
    except ImportError:
        return
    from cgm_metrics.execution.languages import run_sources

    rows, texts = [], {}
    for original in originals("python", per_language):
        for style, answer in chat_answers.answers(original):
            code = sanitize(answer, original.entry_point)
            text = code + "\n" + original.tests + "\n" + f"check({original.entry_point})"
            texts.setdefault(text, len(texts))
            rows.append((style, original.verdict, text))
    outcomes = run_sources(list(texts), "python", num_workers=workers,
                           allow_code_execution=True)
    same = [outcomes[texts[text]].verdict == verdict for _, verdict, text in rows]
    by_style = Counter(style for (style, _, _), ok in zip(rows, same, strict=True) if not ok)
    print(f"| python, EvalPlus's sanitizer (peer) | | {len(rows)} | {len(texts)} | "
          f"{sum(same)}/{len(rows)} ({100 * sum(same) / len(rows):.1f}%) |")
    print(f"  EvalPlus misses by style: {dict(sorted(by_style.items()))}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="passes (>= 3)")
    parser.add_argument("--parity", action="store_true")
    parser.add_argument("--per-language", type=int, default=60,
                        help="originals of each large set (0: all)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--languages", default=",".join(LANGUAGES))
    args = parser.parse_args()
    record = Record("extraction", {"rounds": args.rounds, "per_language": args.per_language})
    speed(args.rounds, args.per_language, record)
    record.write()
    if args.parity:
        parity(args.per_language, args.workers, tuple(args.languages.split(",")))


if __name__ == "__main__":
    main()
