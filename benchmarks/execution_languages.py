"""Execution beyond Python: MultiPL-E parity, throughput per language, and what the sandbox adds
to a compiler.

Parity (``--parity``): every program of tests/data/multipl_e (MultiPL-E's HumanEval in C++,
Java, JavaScript and Python, with the verdict MultiPL-E's own harness recorded; its Timeout
rows left out) run by ``cgm_metrics.execution.languages.run_sources`` with MultiPL-E's run
timeouts; our verdict against MultiPL-E's, per language, and every program that differs with
the tails of its output. tests/test_execution_languages.py runs a stratified subset of the
same programs; this runs them all.

Throughput (default): programs per second with ``--workers`` workers (2), per language, on
``--programs`` programs (the MultiPL-E programs for C++, Java, JavaScript and Python; for the
other languages the right and wrong programs of tests/data/multipl_e_conventions but the
endless ones, cycled), worker set-up and toolchain canaries included.

Overhead (``--overhead``): one worker, serially, the same compile and run commands timed
outside the sandbox (a plain subprocess in a temporary directory) and inside it (one
``Sandbox.run`` per program), per language; the difference is what the sandbox adds.

Every run appends its figures, with the machine, the load and the date, to
benchmarks/results/execution_languages.json.

    python benchmarks/execution_languages.py --parity [--languages cpp java]
    python benchmarks/execution_languages.py [--workers 2] [--programs 40] [--overhead]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cgm_metrics.execution.languages import (
    execution_languages,
    find_toolchain,
    get_language,
    run_sources,
    steps_for,
)
from cgm_metrics.execution.sandbox import Limits, Sandbox

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchtools import Record  # noqa: E402

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
PARITY_FILES = {"cpp": "cpp", "java": "java", "javascript": "js", "python": "python"}
# MultiPL-E's run timeouts (its safe_subprocess default; node's subprocess.run)
MULTIPL_E_TIMEOUT = {"cpp": 15.0, "java": 15.0, "javascript": 5.0, "python": 15.0}


def load_parity(lang: str) -> list[dict]:
    """The MultiPL-E rows of ``lang`` (its Timeout rows left out)."""
    path = DATA / "multipl_e" / f"{PARITY_FILES[lang]}.jsonl.gz"
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle]
    return [row for row in rows if row["status"] != "Timeout"]


def load_conventions(lang: str) -> list[dict]:
    path = DATA / "multipl_e_conventions" / "programs.json"
    return [row for row in json.loads(path.read_text())["programs"] if row["language"] == lang]


def program_text(row: dict) -> str:
    """MultiPL-E's layout: candidate (prompt + completion), "\\n", tests."""
    return row["prompt"] + row["completion"] + "\n" + row["tests"]


def parity(languages: list[str], workers: int, record: Record) -> None:
    for lang in languages:
        rows = load_parity(lang)
        start = time.perf_counter()
        outcomes = run_sources([program_text(r) for r in rows], lang, num_workers=workers,
                               limits=Limits(timeout=MULTIPL_E_TIMEOUT[lang]),
                               allow_code_execution=True)
        elapsed = time.perf_counter() - start
        differ = [(r, o) for r, o in zip(rows, outcomes, strict=True) if r["status"] != o.verdict]
        agree = len(rows) - len(differ)
        record.value(f"parity {lang}", agree / len(rows), "share",
                     f"{agree} of {len(rows)} verdicts equal to MultiPL-E's")
        record.value(f"parity {lang} programs/s", len(rows) / elapsed, "programs/s",
                     f"{workers} workers")
        print(f"{lang}: {agree}/{len(rows)} agree ({agree / len(rows):.2%}), "
              f"{len(rows) / elapsed:.1f} programs/s over {elapsed:.0f} s")
        for row, outcome in differ:
            step = outcome.result.steps[-1]
            print(f"  {row['task']} #{row['completion_index']}: MultiPL-E {row['status']} "
                  f"(exit {row['exit_code']}), ours {outcome.verdict} (step "
                  f"{len(outcome.result.steps)}, {step.status}, exit {step.returncode})")
            tail = (step.stderr.strip() or step.stdout.strip())[-400:]
            if tail:
                print("    " + tail.replace("\n", "\n    "))


def texts_for(lang: str, count: int) -> list[str]:
    """``count`` programs that end by themselves (a program that runs into its timeout
    measures the timeout, not the harness): MultiPL-E's (its Timeout rows are left out
    already) or the convention programs but the endless ones, cycled."""
    if lang in PARITY_FILES:
        texts = [program_text(r) for r in load_parity(lang)]
    else:
        texts = [row["program"] for row in load_conventions(lang)
                 if row["expected"] != "Timeout"]
    return [texts[i % len(texts)] for i in range(count)] if texts else []


def throughput(languages: list[str], workers: int, count: int, record: Record) -> None:
    print(f"{count} programs a language, {workers} workers, {os.cpu_count()} CPUs, load "
          f"average {os.getloadavg()[0]:.1f} (worker set-up and toolchain canaries included)")
    for lang in languages:
        texts = texts_for(lang, count)
        if not texts:
            print(f"  {lang:11s} no programs in tests/data for this language: skipped")
            continue
        start = time.perf_counter()
        outcomes = run_sources(texts, lang, num_workers=workers, allow_code_execution=True,
                               limits=Limits(timeout=get_language(lang).default_timeout))
        elapsed = time.perf_counter() - start
        passed = sum(o.passed for o in outcomes)
        record.value(f"{lang} programs/s", count / elapsed, "programs/s",
                     f"{count} programs, {workers} workers, set-up and canaries included; "
                     f"{passed} pass")
        print(f"  {lang:11s} {count / elapsed:6.2f} programs/s  ({elapsed:5.1f} s, {passed} "
              f"pass; load {os.getloadavg()[0]:.1f})")


def _outside(argv_steps: list[list[str]], files: dict[str, str]) -> float:
    """The same commands in a plain temporary directory, no sandbox: seconds."""
    with tempfile.TemporaryDirectory() as folder:
        for name, text in files.items():
            Path(folder, name).write_text(text, encoding="utf-8")
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": folder, "TMPDIR": folder,
               "LANG": "C.UTF-8"}
        start = time.perf_counter()
        for argv in argv_steps:
            command = [os.path.join(folder, argv[0][2:]) if argv[0].startswith("./") else
                       argv[0], *argv[1:]]
            done = subprocess.run(command, cwd=folder, env=env, capture_output=True,
                                  stdin=subprocess.DEVNULL, timeout=120)
            if done.returncode != 0:
                break
        return time.perf_counter() - start


def overhead(languages: list[str], count: int, record: Record) -> None:
    print(f"\ncompile + run of one program, {count} programs, one worker, serially (median "
          "seconds a program); inside = Sandbox.run, outside = plain subprocesses")
    for lang in languages:
        if lang == "python":
            continue
        texts = texts_for(lang, count)
        if not texts:
            continue
        toolchain = find_toolchain(lang)
        programs = [steps_for(lang, text, None, toolchain) for text in texts]
        outside, inside = [], []
        with Sandbox(Limits(timeout=get_language(lang).default_timeout),
                     allow_code_execution=True, paths=toolchain.paths) as box:
            for program in programs:  # alternate, so that load changes hit both alike
                argv = [list(step.argv or ()) for step in program.steps]
                outside.append(_outside(argv, dict(program.files)))
                start = time.perf_counter()
                box.run(program)
                inside.append(time.perf_counter() - start)
        out_s, in_s = statistics.median(outside), statistics.median(inside)
        record.value(f"{lang} outside", out_s, "s", f"median of {count}: compile + run, plain "
                     "subprocesses")
        record.value(f"{lang} inside", in_s, "s", f"median of {count}: the same, Sandbox.run")
        print(f"  {lang:11s} outside {out_s:6.3f}  inside {in_s:6.3f}  added "
              f"{in_s - out_s:+.3f} s ({(in_s - out_s) / out_s:+.0%})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--parity", action="store_true", help="MultiPL-E parity, all programs")
    parser.add_argument("--overhead", action="store_true",
                        help="also time compile + run inside vs outside the sandbox")
    parser.add_argument("--languages", nargs="+", default=None)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--programs", type=int, default=40)
    args = parser.parse_args()
    record = Record("execution_languages", {"parity": args.parity, "overhead": args.overhead,
                                            "languages": args.languages,
                                            "workers": args.workers, "programs": args.programs})
    if args.parity:
        parity(args.languages or list(PARITY_FILES), args.workers, record)
        record.write()
        return
    languages = args.languages or execution_languages()
    throughput(languages, args.workers, args.programs, record)
    if args.overhead:
        overhead(languages, max(5, args.programs // 4), record)
    record.write()


if __name__ == "__main__":
    sys.exit(main())
