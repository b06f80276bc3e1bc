"""``cgm score/compare --problems``: systems' samples of the tasks of a problem file (human-eval's
formats), their programs run in the sandbox, scored with pass@k, COMBINED and any similarity
metric (against the canonical solutions), with intervals and paired tests over tasks."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

from .. import evaluation
from ..errors import InputError
from ..formatting import format_p
from . import _arguments, _output

#: pass@k asked for when no metric is named: human-eval's k, those every task has samples for
DEFAULT_KS = (1, 10, 100)
DEFAULT_TIMEOUT = 3.0  # seconds, human-eval's
#: the re-run limit of --retry-timeouts without --retry-limit: this many times --timeout
RETRY_FACTOR = 4


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "execution (--problems)",
        "With --problems, the system files are sample files in human-eval's format (one "
        "{\"task_id\", \"completion\"} per line, any number of samples per task) and every "
        "sample's program runs once in the sandbox.",
    )
    group.add_argument(
        "--problems", metavar="FILE",
        help="problem file in human-eval's format (JSONL or .jsonl.gz: task_id, prompt, test, "
        "entry_point, optionally canonical_solution and language); a sample's program is "
        "prompt + completion + test + check(entry_point), as human-eval runs it. Similarity "
        "metrics compare each completion with its task's canonical_solution",
    )
    group.add_argument(
        "--allow-code-execution", action="store_true",
        help="run the samples' code (untrusted): required for pass@k and combined, as is the "
        "environment variable HF_ALLOW_CODE_EVAL=1 (either one)",
    )
    group.add_argument("--timeout", type=seconds, default=None, metavar="SECONDS",
                       help="wall-clock seconds per program (default: 3, human-eval's)")
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
        "attempt, passed, status, result, limit, duration, timeout, completion (a re-run "
        "adds a line with attempt 2; the last attempt is the verdict)",
    )


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
                                      ("--memory-mb", args.memory_mb),
                                      ("--timeout", args.timeout)) if value]
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
        return list(args.metrics)
    fewest = min(sample_file.min_samples for sample_file in samples.values())
    names = [f"pass@{k}" for k in DEFAULT_KS if k <= fewest]
    left_out = [f"pass@{k}" for k in DEFAULT_KS if k > fewest]
    if left_out:
        _output.note(f"note: {' and '.join(left_out)} left out: some task has only {fewest} "
                     "sample(s) (name the metrics with --metrics to choose)")
    return names


def _options(args: argparse.Namespace, names: list[str]) -> dict[str, dict]:
    """The metric options: ``--option`` and the flags, and for every metric that runs code
    the limits of the run and the opt-in."""
    from ..registry import metric_class

    options = _arguments.metric_options(args, names)
    timeout = args.timeout if args.timeout is not None else DEFAULT_TIMEOUT
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
            options[name] = {**execution, **options.get(name, {})}
    return options


def prepare(args: argparse.Namespace, system_paths: list[str],
            command: str) -> evaluation.ProblemEvaluation:
    """Read the problem and sample files, bind the metrics and check everything the run
    needs, before any program runs."""
    from ..execution.problems import read_problems, scan_samples

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
    problems = read_problems(args.problems)
    names = system_names(list(system_paths), getattr(args, "names", None))
    samples = {name: scan_samples(path, problems)
               for name, path in zip(names, system_paths, strict=True)}
    metric_names = _metric_names(args, samples)
    if not metric_names:
        raise InputError("No metric to compute; name them with --metrics (e.g. pass@1).")
    options = _options(args, metric_names)
    # every program runs in its task's language; the metrics' own `lang` keeps the default
    # the execution metrics declare (python) unless --lang names one
    lang = args.lang if args.lang is not None else "python"
    metric_set = evaluation.load_metrics(metric_names, lang, options, explicit=True)
    return evaluation.ProblemEvaluation(
        metric_set, problems, samples, jobs=args.jobs, ray=args.ray,
        progress=_output.want_progress(args), results=args.results,
    )


def computed(action: Any) -> Any:
    """``action()``, with a harness failure of the sandbox as an error to report (exit 1):
    never a failed program."""
    from ..execution.sandbox import SandboxError

    try:
        return action()
    except SandboxError as error:
        raise InputError(f"the programs could not be run, and no verdict was counted: "
                         f"{error}") from None


def describe_run(scoring: evaluation.ProblemEvaluation) -> str:
    """One line: what is evaluated, and how the programs run."""
    problems = scoring.problems
    text = (f"{len(problems)} tasks ({Path(problems.path).name}), {len(scoring.systems)} "
            f"system{'s' if len(scoring.systems) != 1 else ''}")
    if scoring.settings is not None:
        limits, retry = scoring.settings
        text += f"; programs run in the sandbox, timeout {limits.timeout:g} s"
        if retry is not None:
            text += f", timed-out programs again with {retry:g} s"
        text += f", {'Ray' if scoring.ray is not None else f'{scoring.jobs} worker(s)'}"
    return text


def print_execution(scoring: evaluation.ProblemEvaluation) -> None:
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
    print("\nprograms (each sample's program run once; 'killed': a memory, process or file "
          "limit):")
    print(_output.table(headers, rows))
    timeouts = sum(entry["timeout"] for entry in summary["systems"].values())
    if timeouts and not retry:
        print(f"{timeouts} program(s) timed out; on a busy machine a timeout can be the "
              "machine's fault: --retry-timeouts runs them again with more time.")


def print_exact_tests(result: evaluation.CompareResult) -> None:
    """McNemar's exact test of each pair, where the metric has one (pass@1, one sample a
    task)."""
    correction = result.settings["correction"]
    for name, rows in result.rows().items():
        pairs = [pair for pair in rows["pairs"] if pair.get("exact_test")]
        if not pairs:
            continue
        print(f"\n{name}: McNemar's exact test (one sample a task; the tasks only one system "
              f"solves):")
        print(_output.table(
            ["A vs B", "only A passes", "only B passes", "p",
             f"p ({'Holm' if correction == 'holm' else correction.upper()})"],
            [[f"{p['a']} vs {p['b']}", p["exact_test"]["only_a_passes"],
              p["exact_test"]["only_b_passes"], format_p(p["exact_test"]["p_value"]),
              format_p(p["exact_test"]["p_adjusted"])] for p in pairs],
        ))
