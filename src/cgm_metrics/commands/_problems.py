"""``cgm score/compare --problems``: systems' samples of the tasks of a problem file (human-eval's
formats), their programs run in the sandbox, scored with pass@k, COMBINED and any similarity
metric (against the canonical solutions), with intervals and paired tests over tasks."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import evaluation
from ..errors import InputError
from ..formatting import format_p
from ..languages import DEFAULT_LANGUAGE
from . import _arguments, _output

if TYPE_CHECKING:
    from ..execution import problem_runs

#: pass@k asked for when no metric is named: human-eval's k, those every task has samples for
DEFAULT_KS = (1, 10, 100)
DEFAULT_TIMEOUT = 3.0  # seconds, human-eval's
#: the re-run limit of --retry-timeouts without --retry-limit: this many times --timeout
RETRY_FACTOR = 4
DEFAULT_MIN_TIME_LIMIT = 4.0  # EvalPlus's (execution.calibration)
DEFAULT_TIME_LIMIT_FACTOR = 4.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "execution (--problems)",
        "With --problems, the system files are sample files in human-eval's format (one "
        "{\"task_id\", \"completion\"} per line, any number of samples per task) and every "
        "sample's program runs once in the sandbox.",
    )
    group.add_argument(
        "--problems", metavar="FILE",
        help="problem file (JSONL or .jsonl.gz), its format recognised by its fields: "
        "human-eval's (task_id, prompt, test, entry_point, optionally canonical_solution and "
        "language; a sample's program is prompt + completion + test + check(entry_point), as "
        "human-eval runs it), or input/output problems: LiveCodeBench, APPS/TACO, "
        "CodeContests, SandboxFusion rows (a sample is the whole program; its tests run one "
        "by one). Also a dataset by name through `datasets` (livecodebench/"
        "code_generation_lite, with --release, --since) or a local folder of data files. "
        "Similarity metrics compare each completion with its task's canonical_solution",
    )
    add_dataset_arguments(group)
    group.add_argument(
        "--all-tests", action="store_true",
        help="input/output problems: run every test of a sample, not only up to its first "
        "failing one (as judges do), and add tests_passed: the share of a task's tests a "
        "sample passes (partial credit), with the same intervals and paired tests as pass@k",
    )
    group.add_argument(
        "--allow-code-execution", action="store_true",
        help="run the samples' code (untrusted): required for pass@k and combined, as is the "
        "environment variable HF_ALLOW_CODE_EVAL=1 (either one)",
    )
    group.add_argument(
        "--timeout", type=seconds, default=None, metavar="SECONDS",
        help="a fixed limit of wall-clock seconds per program, for every task (CPU seconds per "
        "test for input/output problems). Default: where the problem file has canonical "
        "solutions, each task's limit follows this machine (--min-time-limit, "
        "--time-limit-factor); for tasks without one, 3 s (human-eval's), or 6 s per test "
        "(LiveCodeBench's) in a file of input/output problems; a problem's own limit "
        "(CodeContests') wins",
    )
    group.add_argument(
        "--min-time-limit", type=seconds, default=None, metavar="SECONDS",
        help="the floor of the machine-relative limit: a task's limit is max(this, "
        "--time-limit-factor x its canonical solution's CPU time on this machine), counted "
        f"in CPU time (EvalPlus's rule and defaults; default: {DEFAULT_MIN_TIME_LIMIT:g})",
    )
    group.add_argument(
        "--time-limit-factor", type=seconds, default=None, metavar="K",
        help="the factor of the machine-relative limit (default: "
        f"{DEFAULT_TIME_LIMIT_FACTOR:g}). The solutions are measured once per file content "
        "and machine; the times are kept in ~/.cache/cgm-metrics/solutions "
        "($CGM_CACHE_DIR or $XDG_CACHE_HOME to move it)",
    )
    group.add_argument(
        "--remeasure", action="store_true",
        help="measure the canonical solutions again, even if this machine has their times",
    )
    group.add_argument(
        "--repeat", type=_arguments.positive_int, default=1, metavar="N",
        help="run every program N times: a sample counts by the verdict of most of its runs "
        "(a tie fails), and the tasks whose verdicts changed are listed as flaky (default: 1)",
    )
    group.add_argument("--memory-mb", type=_arguments.positive_int, default=None, metavar="MB",
                       help="address space per process of a program (default: 8192, or half "
                       "the memory if less)")
    group.add_argument(
        "--retry-timeouts", action="store_true",
        help="run every program that timed out once more, with --retry-limit, and report how "
        "many verdicts changed (a timeout on a busy machine is not the program's fault)",
    )
    group.add_argument("--retry-limit", type=seconds, default=None, metavar="SECONDS",
                       help=f"the limit of those re-runs (default: {RETRY_FACTOR} x --timeout)")
    group.add_argument(
        "--results", metavar="FILE",
        help="write every run of a program as one JSONL line: system, task_id, sample, "
        "attempt, run, passed, status, result, limit, duration, cpu_time, timeout (the limit "
        "it ran under, in seconds of clock: wall or cpu), completion (a re-run adds a line "
        "with attempt 2; the last attempt is the verdict; --repeat adds runs 2..N); with "
        "--extract also extraction: the code found and how. Kept with every finished run "
        "when the run is interrupted (Ctrl-C)",
    )
    group.add_argument(
        "--resume", action="store_true",
        help="with --results FILE, the results file of an interrupted run: run only the "
        "samples it has no run of, and report as an uninterrupted run would",
    )
    group.add_argument(
        "--extract", action="store_true",
        help="every completion is a chat model's answer: the code of its solution is taken "
        "from it (fenced blocks, reasoning, prose; the block that defines the entry point) "
        "and made into the task's program; answers without code and ambiguous extractions "
        "are counted per system",
    )


def add_dataset_arguments(group: Any) -> None:
    """--split, --release, --since, --until: the rows of a dataset read by name."""
    group.add_argument("--split", metavar="NAME", default=None,
                       help="with --problems DATASET: the split (default: test, or the only one)")
    group.add_argument("--release", metavar="TAG", default=None,
                       help="with --problems DATASET: LiveCodeBench's release tag (release_v5: "
                       "every problem up to release 5; v5: only those new in it; v4_v6; "
                       "release_latest, the default), or another dataset's configuration")
    group.add_argument("--since", metavar="YYYY-MM-DD", default=None,
                       help="with --problems DATASET: only problems whose contest_date is on "
                       "or after this day (LiveCodeBench's contamination cut-off)")
    group.add_argument("--until", metavar="YYYY-MM-DD", default=None,
                       help="with --problems DATASET: only problems whose contest_date is on "
                       "or before this day")


def problems_of(args: argparse.Namespace) -> Any:
    """The problems --problems names (a file, a dataset id or a folder), with its options."""
    from ..execution.problems import read_problems

    return read_problems(args.problems, split=args.split, release=args.release,
                         since=args.since, until=args.until)


def seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not 0 < value <= 86_400:
        raise argparse.ArgumentTypeError(f"must be more than 0 and at most 86400 (a day), got "
                                         f"{text}")
    return value


def check_not_problems(args: argparse.Namespace) -> None:
    """The options that need --problems, refused without it (never silently ignored)."""
    given = [flag for flag, value in (("--allow-code-execution", args.allow_code_execution),
                                      ("--retry-timeouts", args.retry_timeouts),
                                      ("--retry-limit", args.retry_limit),
                                      ("--results", args.results),
                                      ("--resume", getattr(args, "resume", False)),
                                      ("--extract", getattr(args, "extract", False)),
                                      ("--all-tests", getattr(args, "all_tests", False)),
                                      ("--split", getattr(args, "split", None)),
                                      ("--release", getattr(args, "release", None)),
                                      ("--since", getattr(args, "since", None)),
                                      ("--until", getattr(args, "until", None)),
                                      ("--memory-mb", args.memory_mb),
                                      ("--timeout", args.timeout),
                                      ("--min-time-limit", args.min_time_limit),
                                      ("--time-limit-factor", args.time_limit_factor),
                                      ("--remeasure", args.remeasure),
                                      ("--repeat", args.repeat != 1)) if value]
    if given:
        raise InputError(f"{', '.join(given)} apply to programs run from a problem file; give "
                         "--problems FILE with sample files.")


def system_names(paths: list[str], names: list[str] | None) -> list[str]:
    """``--names``, or the file names without .gz and .jsonl (``a.jsonl.gz`` -> ``a``)."""
    from ..io import safe_name
    from ..io import system_names as plain_names

    if names:
        return plain_names(paths, names)
    stems = [safe_name(re.sub(r"(\.(jsonl|ndjson|json))?(\.gz)?$", "", Path(p).name) or p)
             for p in paths]
    if len(set(stems)) == len(stems):
        return stems
    return plain_names(paths, None)


def _metric_names(args: argparse.Namespace, samples: dict) -> list[str]:
    if args.metrics:
        names = list(args.metrics)
        if getattr(args, "all_tests", False) and "tests_passed" not in names:
            names.append("tests_passed")
        return names
    fewest = min(sample_file.min_samples for sample_file in samples.values())
    names = [f"pass@{k}" for k in DEFAULT_KS if k <= fewest]
    left_out = [f"pass@{k}" for k in DEFAULT_KS if k > fewest]
    if left_out:
        _output.note(f"note: {' and '.join(left_out)} left out: some task has only {fewest} "
                     "sample(s) (name the metrics with --metrics to choose)")
    if getattr(args, "all_tests", False):
        names.append("tests_passed")
    return names


def default_timeout(problems: Any) -> float:
    """The time limit without --timeout: LiveCodeBench's 6 s per test (CPU time) for a file of
    input/output problems only, else human-eval's 3 s per program."""
    if problems.problems and all(p.io is not None for p in problems.problems):
        from ..execution.io_judge import DEFAULT_TIME_LIMIT

        return DEFAULT_TIME_LIMIT
    return DEFAULT_TIMEOUT


def _options(args: argparse.Namespace, names: list[str], problems: Any) -> dict[str, dict]:
    """The metric options: ``--option`` and the flags, and for every metric that runs code
    the limits of the run (machine-relative where the problems have canonical solutions and
    no --timeout is given) and the opt-in."""
    from ..registry import metric_class

    options = _arguments.metric_options(args, names)
    timeout = args.timeout if args.timeout is not None else default_timeout(problems)
    relative = None
    if args.timeout is not None:
        if args.min_time_limit is not None or args.time_limit_factor is not None:
            raise InputError("--timeout is a fixed limit for every task; --min-time-limit and "
                             "--time-limit-factor make each task's limit follow its canonical "
                             "solution's time. Give one or the other.")
    elif any(problem.canonical_solution is not None for problem in problems.problems):
        relative = {"min_time_limit": args.min_time_limit if args.min_time_limit is not None
                    else DEFAULT_MIN_TIME_LIMIT,
                    "time_limit_factor": args.time_limit_factor
                    if args.time_limit_factor is not None else DEFAULT_TIME_LIMIT_FACTOR}
    elif args.min_time_limit is not None or args.time_limit_factor is not None:
        raise InputError(f"{problems.path} has no canonical solutions, so the time limits "
                         "cannot follow their times (--min-time-limit, --time-limit-factor); "
                         "give --timeout, or add canonical_solution to the tasks.")
    retry = None
    if args.retry_timeouts:
        retry = args.retry_limit if args.retry_limit is not None else RETRY_FACTOR * timeout
        if retry <= timeout:
            raise InputError(f"--retry-limit {retry:g} must be longer than --timeout "
                             f"{timeout:g}: timed-out programs run again with more time.")
    elif args.retry_limit is not None:
        raise InputError("--retry-limit is the limit of --retry-timeouts; add --retry-timeouts.")
    for name in names:
        try:
            runs_code = metric_class(name).runs_code
        except (ImportError, ValueError):
            continue
        if runs_code:
            execution = {"timeout": timeout, "allow_code_execution":
                         bool(args.allow_code_execution)}
            if args.memory_mb is not None:
                execution["memory_mb"] = args.memory_mb
            if retry is not None:
                execution["retry_timeout"] = retry
            if relative is not None:
                execution.update(relative)
            if args.repeat != 1:
                execution["repeat"] = args.repeat
            options[name] = {**execution, **options.get(name, {})}
    return options


def prepare(args: argparse.Namespace, system_paths: list[str],
            command: str) -> problem_runs.ProblemEvaluation:
    """Read the problem and sample files, bind the metrics and check everything the run
    needs, before any program runs."""
    from ..execution.problems import scan_samples

    if args.references or args.graded:
        raise InputError("With --problems the references are the problem file's canonical "
                         "solutions; leave out " + ("--references" if args.references
                                                    else "--graded") + ".")
    if not system_paths:
        where = "SYSTEM_FILE" if command == "compare" else "--predictions FILE"
        raise InputError(f"No sample files: give one {where} per system (human-eval's samples "
                         "format).")
    if command == "compare" and len(system_paths) < 2:
        raise InputError(f"compare needs at least two systems, got {len(system_paths)}; give "
                         "two or more sample files.")
    if getattr(args, "resume", False) and not args.results:
        raise InputError("--resume needs the results file of the interrupted run: give "
                         "--results FILE.")
    check_output_paths(args)
    problems = problems_of(args)
    names = system_names(list(system_paths), getattr(args, "names", None))
    samples = {name: scan_samples(path, problems)
               for name, path in zip(names, system_paths, strict=True)}
    if not getattr(args, "extract", False):
        warn_chat_answers(samples)
    metric_names = _metric_names(args, samples)
    if not metric_names:
        raise InputError("No metric to compute; name them with --metrics (e.g. pass@1).")
    options = _options(args, metric_names, problems)
    running = [name for name in metric_names if name in options
               and "allow_code_execution" in options[name]]
    if args.lang is not None and running:
        raise InputError(f"--lang does not apply to {', '.join(running)} with --problems: each "
                         "task's programs run in its own language (the problem file's "
                         "'language' field, Python without one); leave out --lang.")
    # every program runs in its task's language; the metrics' own `lang` keeps the default
    # the execution metrics declare (languages.DEFAULT_LANGUAGE) unless --lang names one
    lang = args.lang if args.lang is not None else DEFAULT_LANGUAGE
    metric_set = evaluation.load_metrics(metric_names, lang, options, explicit=True)
    from ..execution import problem_runs

    return problem_runs.ProblemEvaluation(
        metric_set, problems, samples, jobs=args.jobs, ray=args.ray,
        progress=_output.want_progress(args), results=args.results,
        resume=bool(getattr(args, "resume", False)),
        use_cache=not args.remeasure,
        extract=getattr(args, "extract", False),
        all_tests=getattr(args, "all_tests", False),
    )


def warn_chat_answers(samples: dict) -> None:
    """A warning for every system whose samples look like chat answers (fenced code, prose
    around it: :func:`cgm_metrics.execution.extract.looks_like_chat_answer`), counted when the
    sample file was read, run without --extract."""
    for name, sample_file in samples.items():
        if sample_file.chat_answers:
            _output.note(
                f"warning: {sample_file.chat_answers} of {sample_file.n_samples} samples of "
                f"{name} look like chat answers (a fenced code block, a reasoning section or "
                "a chat token in the completion); run as they are, their programs fail on the "
                "prose and fences. Add --extract to take the solution's code out of each "
                "answer.")


def check_output_paths(args: argparse.Namespace) -> None:
    """Every output file (--json, --csv, --per-item, --results) can be written, checked
    before the first program runs (not after hours of runs)."""
    for flag in ("json", "csv", "per_item", "results"):
        value = getattr(args, flag, None)
        if not value or value == "-":
            continue
        why = _output.writable_error(str(value))
        if why is not None:
            option = "--" + flag.replace("_", "-")
            raise InputError(f"Cannot write {option} {value}: {why}; choose another path.")


def computed(action: Any) -> Any:
    """``action()``, with a harness failure of the sandbox as an error to report (exit 1):
    never a failed program."""
    from ..execution.sandbox import SandboxError

    try:
        return action()
    except SandboxError as error:
        raise InputError(f"the programs could not be run, and no verdict was counted: "
                         f"{error}") from None


def describe_run(scoring: problem_runs.ProblemEvaluation) -> str:
    """One line: what is evaluated, and how the programs run."""
    problems = scoring.problems
    text = (f"{len(problems)} tasks ({Path(problems.path).name}), {len(scoring.systems)} "
            f"system{'s' if len(scoring.systems) != 1 else ''}")
    settings = scoring.settings
    if settings is not None:
        without = any(p.canonical_solution is None for p in problems.problems)
        text += f"; programs run in the sandbox, time limit {settings.rule(without)}"
        if settings.retry_timeout is not None:
            scale = settings.retry_timeout / settings.limits.timeout
            text += (f", timed-out programs again with {scale:g} x their limit"
                     if settings.relative else
                     f", timed-out programs again with {settings.retry_timeout:g} s")
        if settings.repeat > 1:
            text += f", every program {settings.repeat} times"
        text += f", {'Ray' if scoring.ray is not None else f'{scoring.jobs} worker(s)'}"
        io = [p for p in problems.problems if p.io is not None]
        if io:
            own = sum(p.io.time_limit is not None for p in io)
            text += ("; input/output tasks: the limit is per test, "
                     + (f"{own} task(s) under their own time limit (CPU time), "
                        if own else "")
                     + ("the others " if own else "")
                     + "under the rule above"
                     + ("; every test run (--all-tests)" if scoring.all_tests
                        else "; a sample stops at its first failing test"))
    return text


def measure_solutions(scoring: problem_runs.ProblemEvaluation) -> None:
    """With machine-relative limits: the canonical solutions measured (or read from this
    machine's cache), one line on what they gave, and a one-line warning naming the tasks
    whose own solution fails."""
    solutions = computed(lambda: scoring.solutions)
    if solutions is None:
        return
    seconds = [limit.timeout for limit, problem in zip(scoring.task_limits,
                                                       scoring.problems.problems, strict=True)
               if problem.canonical_solution is not None
               and (problem.io is None or problem.io.time_limit is None)]
    if not seconds:  # every measured task has a limit of its own
        return
    span = (f"{min(seconds):g}" if min(seconds) == max(seconds)
            else f"{min(seconds):g}-{max(seconds):g}")
    print(f"time limits: {span} s of CPU time per task, from the canonical solutions' times "
          "on this machine")
    how = "were read from" if solutions.cached else "were measured now and kept in"
    _output.note(f"note: the canonical solutions' times {how} {solutions.cache_file}")
    failing = solutions.failing()
    if failing:
        _output.note(f"warning: the canonical solution of {len(failing)} task(s) fails its own "
                     f"tests ({_listed([run.task_id for run in failing])}): those tasks fail "
                     "any sample; `cgm check --problems` says why")


def _listed(names: list[str], shown: int = 8) -> str:
    text = ", ".join(names[:shown])
    return text + (f" and {len(names) - shown} more" if len(names) > shown else "")


def print_execution(scoring: problem_runs.ProblemEvaluation) -> None:
    """Per system: samples, verdicts, timeouts (and what a second run changed)."""
    summary = scoring.execution_summary()
    if scoring.settings is None:
        return
    retry = summary["retry_timeout"] is not None
    headers = ["system", "samples", "per task", "passed", "failed", "timeout", "killed"]
    if retry:
        headers += ["timeouts, 1st run", "re-run", "changed"]
    rows = []
    for name, entry in summary["systems"].items():
        per_task = entry["samples_per_task"]
        spread = (str(per_task["min"]) if per_task["min"] == per_task["max"]
                  else f"{per_task['min']}-{per_task['max']}")
        row = [name, entry["samples"], spread, entry["passed"], entry["failed"],
               entry["timeout"], entry["killed"]]
        if retry:
            row += [entry["timeouts_first_run"], entry["retried"], entry["changed_by_retry"]]
        rows.append(row)
    runs = ("once" if scoring.settings.repeat == 1
            else f"{scoring.settings.repeat} times, its verdict the majority")
    print(f"\nprograms (each sample's program run {runs}; 'killed': a memory, process or file "
          "limit):")
    print(_output.table(headers, rows))
    if summary.get("extract"):
        print("\ncode extracted from the answers (--extract):")
        print(_output.table(["system", "answers", "no code", "ambiguous"], [
            [name, entry["samples"], entry["extraction"]["no_code"],
             entry["extraction"]["ambiguous"]]
            for name, entry in summary["systems"].items() if "extraction" in entry]))
    flaky = summary.get("flaky_tasks")
    if flaky is not None:
        print(f"flaky tasks (a sample's {scoring.settings.repeat} runs disagreed; it counts by "
              f"most of its runs, a tie failing): {_listed(flaky) if flaky else 'none'}")
    timeouts = sum(entry["timeout"] for entry in summary["systems"].values())
    if timeouts and not retry:
        print(f"{timeouts} program(s) timed out; on a busy machine a timeout can be the "
              "machine's fault: --retry-timeouts runs them again with more time.")
    if timeouts:  # the time each used and its limit (stderr: the numbers vary between runs)
        shown = [f"{name} {task} sample {number}: {detail}" for name in scoring.systems
                 for task, number, detail in scoring.timeouts(name)]
        _output.note("timeouts: " + "; ".join(shown[:5])
                     + (f"; and {len(shown) - 5} more (--results has every one)"
                        if len(shown) > 5 else ""))


def print_exact_tests(result: evaluation.CompareResult) -> None:
    """McNemar's exact test of each pair, where the metric has one (pass@1, one sample a
    task)."""
    correction = result.settings["correction"]
    for name, rows in result.rows().items():
        pairs = [pair for pair in rows["pairs"] if pair.get("exact_test")]
        if not pairs:
            continue
        short = 'Holm' if correction == 'holm' else correction.upper()
        print(f"\n{name}: McNemar's exact test, the test of these pairs (one sample a task: "
              f"paired pass/fail outcomes; it gives their verdicts), on the tasks only one "
              f"system solves; the {result.settings['method']} test beside it:")
        print(_output.table(
            ["A vs B", "only A passes", "only B passes", "p", f"p ({short})",
             f"{result.settings['method']} p ({short})"],
            [[f"{p['a']} vs {p['b']}", p["exact_test"]["only_a_passes"],
              p["exact_test"]["only_b_passes"], format_p(p["exact_test"]["p_value"]),
              format_p(p["exact_test"]["p_adjusted"]),
              format_p(p["resampled"]["p_adjusted"])] for p in pairs],
        ))
