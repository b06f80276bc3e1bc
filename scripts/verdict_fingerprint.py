"""A SHA-256 over the verdicts of a fixed set of real programs, to prove that a change to the
path from a completion to a verdict changed no verdict.

Run it before and after the change; the printed lines must be byte-identical. Each line is
``<part> <sha256> <records>`` and the last one ``total <sha256>``. The records hashed are what a
verdict says (passed, status, result text, limit, the language and MultiPL-E's verdict, the
time limit a program ran under, the extraction), never durations or CPU times. The parts:

- ``hostile_code_eval`` / ``hostile_problems``: every program of ``tests/hostile_programs.py``
  (Python's hostile candidates; per language the right and wrong ``add``, every early-ending
  trick, the memory bombs and output floods), through ``compute_code_eval`` and through
  ``cgm score --problems --results`` (the JSONL lines, durations left out);
- ``chat_code_eval`` / ``chat_problems``: a representative subset of the chat answers of
  ``tests/chat_answers.py``: the first two originals of every language (MultiPL-E's programs
  for Python, C++, Java and JavaScript without its Timeout rows; the convention programs for
  the others), in all eleven answer styles (242 answers), extracted and run through
  ``compute_code_eval(extract=True)`` and ``cgm score --problems --extract``;
- ``humaneval_problems`` / ``humaneval_check``: HumanEval's 164 canonical solutions through
  ``cgm score --problems`` and ``cgm check``;
- ``multipl_e``: MultiPL-E's recorded programs (``tests/data/multipl_e``, its Timeout rows
  left out): every Python one, an evenly spaced 40 of the others per language, through
  ``compute_code_eval(lang=...)`` under MultiPL-E's timeouts;
- ``retry_repeat``: ``--retry-timeouts`` and ``--repeat 2`` on passing, failing and looping
  programs (the --results lines and the execution summary);
- ``compare_exact``: ``cgm compare --problems`` of two systems under pass@1 (McNemar's exact
  test overriding the resampled one) and ``paired_test_texts`` with pass@1 on the same;
- ``edit_sim``: the ``edit_sim`` module running tests (Python's hostile candidates, a right and
  a wrong C++ and JavaScript program), its per-sample verdicts.

Usage: ``HF_ALLOW_CODE_EVAL=1 python scripts/verdict_fingerprint.py [--jobs N] [--dump DIR]``
(``--dump`` writes each part's records, one JSON line each, to compare where they differ).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import sys
import tempfile
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
DATA = TESTS / "data"
#: what a --results line holds that depends on the machine's speed
TIMED = ("duration", "cpu_time", "timeout_detail")
COMMENT = {"bash": "#", "ruby": "#", "perl": "#", "python": "#", "lua": "--"}
MULTIPL_E = {"cpp": "cpp", "java": "java", "javascript": "js", "python": "python"}
MULTIPL_E_TIMEOUT = {"cpp": 15.0, "java": 15.0, "javascript": 5.0, "python": 15.0}
OTHERS_PER_LANGUAGE = 40
NO_CHECK = "\n\ndef check(candidate):\n    pass\n"


def digest(records: list) -> str:
    text = "\n".join(json.dumps(r, sort_keys=True, ensure_ascii=True) for r in records)
    return hashlib.sha256(text.encode()).hexdigest()


def code_eval_records(predictions, references, **options) -> list:
    from cgm_metrics.execution.code_eval import compute_code_eval

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scores, results = compute_code_eval(predictions, references, k=[1],
                                            allow_code_execution=True, **options)
    out = [{key: float(value) for key, value in scores.items()}]
    for task in sorted(results):
        out += [record for _, record in results[task]]
    return out


def cli(arguments: list[str]) -> None:
    import contextlib

    from cgm_metrics.frontends.cli import main

    with contextlib.redirect_stdout(sys.stderr):  # the tables: not part of the fingerprint
        code = main(arguments)
    if code != 0:
        raise SystemExit(f"cgm {' '.join(arguments)} exited with {code}")


def results_lines(path: Path) -> list:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        for key in TIMED:
            record.pop(key, None)
        out.append(record)
    return out


def score_records(path: Path) -> list:
    data = json.loads(path.read_text(encoding="utf-8"))
    systems = data.get("systems", {})
    out = [{system: {metric: {k: v for k, v in entry.items() if k != "signature"}
                     for metric, entry in metrics.items()}
            for system, metrics in systems.items()}]
    execution = data.get("execution")
    if execution is not None:
        for entry in execution.get("systems", {}).values():
            entry.pop("file", None)
        execution.pop("problems", None)
        limits = execution.get("limits") or {}
        limits.pop("canonical_solutions", None)
        out.append(execution)
    return out


def write_jsonl(path: Path, rows: list) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row) + "\n")


def problems_run(work: Path, name: str, problems: list, samples: list, options: list[str],
                 command: str = "score") -> list:
    problem_file, sample_file = work / f"{name}.problems.jsonl", work / f"{name}.jsonl"
    write_jsonl(problem_file, problems)
    write_jsonl(sample_file, samples)
    results, scores = work / f"{name}.results.jsonl", work / f"{name}.scores.json"
    cli([command, "--problems", str(problem_file), "--predictions", str(sample_file),
         "--results", str(results), "--json", str(scores), *options])
    return results_lines(results) + score_records(scores)


# ------------------------------------------------------------------ the parts


def hostile(work: Path, jobs: int) -> dict[str, list]:
    sys.path.insert(0, str(TESTS))
    from hostile_programs import (
        FAILING_TEST,
        HOSTILE_CANDIDATES,
        LANGUAGE_TRICKS,
        MEMORY_BOMBS,
        OUTPUT_FLOODS,
        language_program,
    )

    from cgm_metrics.execution.languages import ToolchainMissingError, find_toolchain

    programs: list[tuple[str, str, str, str, dict]] = []  # (lang, name, candidate, test, limits)
    right = "def f(x):\n    return x + 1\n"
    for name, candidate in {"right": right, **HOSTILE_CANDIDATES}.items():
        programs.append(("python", name, candidate, FAILING_TEST, {}))
    for lang in LANGUAGE_TRICKS:
        try:
            find_toolchain(lang)
        except ToolchainMissingError:
            print(f"note: {lang} has no toolchain here; its programs are left out",
                  file=sys.stderr)
            continue
        test = COMMENT.get(lang, "//") + " fingerprint"
        programs.append((lang, "right", language_program(lang, True), test, {}))
        programs.append((lang, "wrong", language_program(lang, False), test, {}))
        for trick in LANGUAGE_TRICKS[lang]:
            programs.append((lang, trick, language_program(lang, False, trick), test, {}))
        memory = {"memory_mb": 2048 if lang == "typescript" else 1024, "max_file_mb": 32}
        if lang in MEMORY_BOMBS:
            programs.append((lang, "memory_bomb", MEMORY_BOMBS[lang], test, memory))
        if lang in OUTPUT_FLOODS:
            programs.append((lang, "output_flood", OUTPUT_FLOODS[lang], test, memory))
    groups: dict[tuple[str, str], list] = {}
    for lang, name, candidate, test, limits in programs:
        groups.setdefault((lang, json.dumps(limits, sort_keys=True)), []).append(
            (name, candidate, test))
    through_code_eval, through_problems = [], []
    for (lang, limits_text), members in groups.items():
        limits = json.loads(limits_text)
        timeout = 60.0 if limits else 20.0
        records = code_eval_records([[c] for _, c, _ in members], [t for _, _, t in members],
                                    lang=lang, timeout=timeout, num_workers=jobs, **limits)
        through_code_eval.append({"lang": lang, "names": [n for n, _, _ in members]})
        through_code_eval += records
        # a problem file names an entry point: Python's check(f) is a no-op check here
        problems = [{"task_id": f"{lang}/{name}", "prompt": "",
                     "test": test + NO_CHECK if lang == "python" else test,
                     "entry_point": "f" if lang == "python" else "add", "language": lang}
                    for name, _, test in members]
        samples = [{"task_id": f"{lang}/{name}", "completion": candidate}
                   for name, candidate, _ in members]
        options = ["--metrics", "pass@1", "--timeout", f"{timeout:g}", "--jobs", str(jobs),
                   "--allow-code-execution"]
        if limits:
            options += ["--memory-mb", str(limits["memory_mb"])]
        tag = f"hostile-{lang}-{'limits' if limits else 'plain'}"
        through_problems += problems_run(work, tag, problems, samples, options)
    return {"hostile_code_eval": through_code_eval, "hostile_problems": through_problems}


def chat(work: Path, jobs: int) -> dict[str, list]:
    sys.path.insert(0, str(TESTS))
    import chat_answers

    from cgm_metrics.execution.languages import ToolchainMissingError, find_toolchain

    through_code_eval, through_problems = [], []
    for language in chat_answers.TAGS:
        try:
            find_toolchain(language)
        except ToolchainMissingError:
            print(f"note: {language} has no toolchain here; its answers are left out",
                  file=sys.stderr)
            continue
        if language in MULTIPL_E:
            originals = [o for o in chat_answers.multipl_e(language) if o.verdict != "Timeout"]
        else:
            originals = chat_answers.conventions(language)
        originals = originals[:2]
        answers = [(original, style, text) for original in originals
                   for style, text in chat_answers.answers(original)]
        tests = []
        for original in originals:
            test = original.tests
            if language == "python":
                test += f"\ncheck({original.entry_point})\n"
            tests.append(test)
        predictions = [[text for o, _, text in answers if o is original] for original in originals]
        through_code_eval.append({"language": language})
        through_code_eval += code_eval_records(predictions, tests, lang=language, timeout=15.0,
                                               num_workers=jobs, extract=True)
        problems = [{"task_id": f"{language}/{o.task}/{o.index}", "prompt": o.prompt,
                     "test": o.tests, "entry_point": o.entry_point, "language": language}
                    for o in originals]
        samples = [{"task_id": f"{language}/{o.task}/{o.index}", "completion": text}
                   for o, _, text in answers]
        through_problems += problems_run(
            work, f"chat-{language}", problems, samples,
            ["--metrics", "pass@1", "--timeout", "15", "--jobs", str(jobs), "--extract",
             "--allow-code-execution"])
    return {"chat_code_eval": through_code_eval, "chat_problems": through_problems}


def humaneval(work: Path, jobs: int) -> dict[str, list]:
    with gzip.open(DATA / "humaneval" / "HumanEval.jsonl.gz", "rt", encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle]
    problem_file = work / "humaneval.problems.jsonl"
    write_jsonl(problem_file, rows)
    samples = [{"task_id": row["task_id"], "completion": row["canonical_solution"]}
               for row in rows]
    through_problems = problems_run(work, "humaneval", rows, samples,
                                    ["--metrics", "pass@1", "--timeout", "10", "--jobs",
                                     str(jobs), "--allow-code-execution"])
    checked = work / "humaneval.check.json"
    cli(["check", "--problems", str(problem_file), "--jobs", str(jobs), "--json", str(checked)])
    data = json.loads(checked.read_text(encoding="utf-8"))
    through_check = [{"failing": data["failing"], "n_tasks": data["n_tasks"],
                      "without_solution": data["without_solution"]}]
    through_check += [{k: v for k, v in task.items() if k not in ("cpu_time", "duration")}
                      for task in data["tasks"]]
    return {"humaneval_problems": through_problems, "humaneval_check": through_check}


def multipl_e(jobs: int) -> dict[str, list]:
    out = []
    for lang, key in MULTIPL_E.items():
        with gzip.open(DATA / "multipl_e" / f"{key}.jsonl.gz", "rt", encoding="utf-8") as handle:
            rows = [json.loads(line) for line in handle]
        rows = [row for row in rows if row["status"] != "Timeout"]
        if lang != "python" and len(rows) > OTHERS_PER_LANGUAGE:
            rows = [rows[(i * len(rows)) // OTHERS_PER_LANGUAGE]
                    for i in range(OTHERS_PER_LANGUAGE)]
        out.append({"lang": lang, "programs": [(r["task"], r["completion_index"], r["status"])
                                               for r in rows]})
        out += code_eval_records([[r["prompt"] + r["completion"]] for r in rows],
                                 [r["tests"] for r in rows], lang=lang,
                                 timeout=MULTIPL_E_TIMEOUT[lang], num_workers=jobs)
    return {"multipl_e": out}


def retry_repeat(work: Path, jobs: int) -> dict[str, list]:
    problems = [{"task_id": f"t/{n}", "prompt": "", "test": "assert f(1) == 2\n" + NO_CHECK,
                 "entry_point": "f"} for n in range(3)]
    samples = [{"task_id": "t/0", "completion": "def f(x):\n    return x + 1\n"},
               {"task_id": "t/0", "completion": "def f(x):\n    return x\n"},
               {"task_id": "t/1", "completion": "def f(x):\n    while True:\n        pass\n"},
               {"task_id": "t/1", "completion": "def f(x):\n    return 2\n"},
               {"task_id": "t/2", "completion": "import time\ntime.sleep(1.5)\n"
                                               "def f(x):\n    return 2\n"},
               {"task_id": "t/2", "completion": "def f(x):\n    raise ValueError(x)\n"}]
    # canonical solutions for COMBINED's EDIT-SIM (the fixed --timeout keeps every limit fixed)
    problems_with = [{**p, "canonical_solution": "def f(x):\n    return 2\n"} for p in problems]
    out = problems_run(work, "retry", problems_with, samples,
                        ["--metrics", "pass@1", "pass@2", "combined", "--timeout", "1",
                         "--retry-timeouts", "--retry-limit", "3", "--repeat", "2", "--jobs",
                         str(jobs), "--allow-code-execution"])
    return {"retry_repeat": out}


def compare_exact(work: Path, jobs: int) -> dict[str, list]:
    with gzip.open(DATA / "humaneval" / "HumanEval.jsonl.gz", "rt", encoding="utf-8") as handle:
        rows = [json.loads(line) for _, line in zip(range(24), handle, strict=False)]
    problem_file = work / "compare.problems.jsonl"
    write_jsonl(problem_file, rows)
    a = [{"task_id": r["task_id"], "completion": r["canonical_solution"]} for r in rows]
    b = [{"task_id": r["task_id"], "completion": "    return None\n" if n % 3 == 0
          else r["canonical_solution"]} for n, r in enumerate(rows)]
    write_jsonl(work / "a.jsonl", a)
    write_jsonl(work / "b.jsonl", b)
    result = work / "compare.json"
    cli(["compare", "--problems", str(problem_file), str(work / "a.jsonl"), str(work / "b.jsonl"), "--metrics", "pass@1", "--timeout", "10", "--jobs", str(jobs),
         "--allow-code-execution", "--json", str(result)])
    data = json.loads(result.read_text(encoding="utf-8"))
    out = [{name: {k: v for k, v in entry.items() if k != "signature"}
            for name, entry in data["metrics"].items()}]
    from cgm_metrics.significance import paired_test_texts

    tests = [r["test"] + f"\ncheck({r['entry_point']})\n" for r in rows]
    paired = paired_test_texts([[r["prompt"] + x["completion"]] for r, x in zip(rows, a, strict=True)],
                               [[r["prompt"] + x["completion"]] for r, x in zip(rows, b, strict=True)],
                               tests, metric="pass@1",
                               metric_kwargs={"allow_code_execution": True})
    text = paired.to_dict() if hasattr(paired, "to_dict") else dict(vars(paired))
    text.pop("signature", None)
    out.append(json.loads(json.dumps(text, default=str)))
    return {"compare_exact": out}


def edit_sim(jobs: int) -> dict[str, list]:
    sys.path.insert(0, str(TESTS))
    from hostile_programs import FAILING_TEST, HOSTILE_CANDIDATES, language_program

    from cgm_metrics.execution.edit_sim_module import compute_edit_sim

    out = []
    candidates = ["def f(x):\n    return x + 1\n", *HOSTILE_CANDIDATES.values()]
    out.append(compute_edit_sim(candidates, ["def f(x):\n    return x + 1\n"] * len(candidates),
                                tests=[FAILING_TEST] * len(candidates), return_per_sample=True,
                                allow_code_execution=True, num_workers=jobs))
    for lang in ("cpp", "javascript"):
        programs = [language_program(lang, True), language_program(lang, False)]
        out.append(compute_edit_sim(programs, [programs[0]] * 2, tests=["// fingerprint"] * 2,
                                    lang=lang, timeout=20.0, return_per_sample=True,
                                    allow_code_execution=True, num_workers=jobs))
    return {"edit_sim": out}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--dump", metavar="DIR", help="write each part's records here")
    parser.add_argument("--only", nargs="*", help="the parts to run (default: all)")
    args = parser.parse_args()
    os.environ["HF_ALLOW_CODE_EVAL"] = "1"
    parts = {"hostile": hostile, "chat": chat, "humaneval": humaneval,
             "multipl_e": lambda work, jobs: multipl_e(jobs), "retry_repeat": retry_repeat,
             "compare_exact": compare_exact, "edit_sim": lambda work, jobs: edit_sim(jobs)}
    found: dict[str, list] = {}
    with tempfile.TemporaryDirectory() as directory:
        os.environ["CGM_CACHE_DIR"] = str(Path(directory) / "cache")
        for name, part in parts.items():
            if args.only and name not in args.only:
                continue
            work = Path(directory) / name
            work.mkdir()
            for key, records in part(work, args.jobs).items():
                found[key] = records
                print(f"{key} {digest(records)} {len(records)}", flush=True)
                if args.dump:
                    Path(args.dump).mkdir(parents=True, exist_ok=True)
                    write_jsonl(Path(args.dump) / f"{key}.jsonl", records)
    print(f"total {digest([digest(found[key]) for key in found])}")


if __name__ == "__main__":
    main()
