"""Machinery the ``cgm`` subcommands share: metrics, statistics, inputs, tables and files."""

from __future__ import annotations

import argparse
import csv
import importlib
import io
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..formatting import format_p, format_value
from ..io import (
    STDIN,
    InputError,
    check_same_length,
    detect_format,
    merge_references,
    read_graded,
    read_predictions,
    read_references,
    system_names,
)
from . import _options

if TYPE_CHECKING:
    import numpy as np

__all__ = ["format_p", "format_value", "system_names"]  # shared with the Space via the library

DEFAULT_METRICS = ("chrf_code", "codebleu", "ruby")


# ---------------------------------------------------------------- metrics and languages


@dataclass
class MetricSet:
    """The metrics a command runs, bound to their options, and the ones it had to skip."""

    names: list[str] = field(default_factory=list)
    metrics: dict[str, Any] = field(default_factory=dict)  # name -> Metric
    options: dict[str, dict] = field(default_factory=dict)  # name -> constructor options
    skipped: dict[str, str] = field(default_factory=dict)  # name -> reason


def check_language(lang: str) -> str:
    """The canonical language name, or an :class:`InputError` listing the supported ones."""
    from ..core.languages import resolve_language

    try:
        return resolve_language(lang, argument="--lang").name
    except (ValueError, TypeError) as error:
        raise InputError(str(error)) from None


def load_metrics(
    names: Sequence[str], lang: str, explicit: bool, options: dict[str, dict] | None = None
) -> MetricSet:
    """Bind each metric name to ``lang`` (and to its ``options[name]``, from the command
    line).

    Unknown names are an input error listing the registered metrics. A registered metric
    whose implementation is not importable is skipped (with the reason) when the names are
    the defaults, and an error when the user asked for it by name.
    """
    from ..registry import get_metric, metric_class, metrics

    known = metrics()
    unknown = [name for name in names if name not in known]
    if unknown:
        raise InputError(
            f"Unknown metric {', '.join(repr(n) for n in unknown)}. Available metrics: "
            f"{', '.join(known)}."
        )
    result = MetricSet()
    for name in dict.fromkeys(names):  # keep the user's order, drop repeats
        metric_options = {"lang": lang, **((options or {}).get(name) or {})}
        try:
            metric_class(name)  # importable here?
        except (ImportError, AttributeError) as error:
            reason = f"its implementation is not available in this installation ({error})"
            if explicit:
                raise InputError(f"Metric {name!r} cannot run: {reason}.") from None
            result.skipped[name] = reason
            continue
        try:
            metric = get_metric(name, **metric_options)
        except (ValueError, TypeError) as error:
            raise InputError(f"Metric {name!r}: {error}") from None
        result.names.append(name)
        result.metrics[name] = metric
        result.options[name] = metric_options
    if not result.names:
        skipped = "; ".join(f"{name}: {reason}" for name, reason in result.skipped.items())
        raise InputError(f"None of the metrics can run ({skipped}).")
    return result


SIGNIFICANCE_API = ("bootstrap_ci", "compare_systems")


def significance_library():
    """``cgm_metrics.significance`` when it provides the functions the CLI presents
    (bootstrap_ci, compare_systems; minimum_detectable_difference is used when present),
    else ``None``."""
    try:
        module = importlib.import_module("cgm_metrics.significance")
    except ModuleNotFoundError as error:
        if error.name and error.name.startswith("cgm_metrics.significance"):
            return None
        raise
    if not all(hasattr(module, name) for name in SIGNIFICANCE_API):
        return None
    return module


def require_significance():
    library = significance_library()
    if library is None:
        raise RuntimeError(
            "the significance library (cgm_metrics.significance with "
            f"{', '.join(SIGNIFICANCE_API)}) is not available in this installation"
        )
    return library


# ---------------------------------------------------------------- statistics


class StatisticsRunner:
    """The per-item statistics of many (metric, system) tasks behind one progress bar:
    :func:`cgm_metrics.runner.compute_many`, with input errors as :class:`InputError`."""

    def __init__(self, jobs: int = 1, progress: bool = False, ray: str | None = None) -> None:
        self.jobs = max(1, int(jobs))
        self.progress = progress
        self.ray = ray  # a Ray address ("local", "auto", "host:port"): compute on Ray instead

    def run(
        self,
        metric_set: MetricSet,
        systems: dict[str, list[str]],
        references: list[list[str]],
    ) -> dict[str, dict[str, np.ndarray]]:
        """``{metric: {system: stats[n_items, k]}}``."""
        from ..core.inputs import check_inputs
        from ..runner import Task, compute_many

        checked = {}
        for system, predictions in systems.items():
            try:
                checked[system], refs = check_inputs(predictions, references)
            except (ValueError, TypeError) as error:
                raise InputError(f"System {system!r}: {error}") from None
        if self.ray is not None:
            return _ray_statistics(metric_set, systems, references, self.ray, self.progress)
        keys = [(name, system) for name in metric_set.names for system in systems]
        tasks = [Task(metric_set.metrics[name], checked[system], refs) for name, system in keys]
        bar = _progress_bar(len(tasks) * len(references), self.progress, "statistics")
        try:
            results = compute_many(tasks, self.jobs, bar.update)
        finally:
            bar.close()
        out: dict[str, dict[str, np.ndarray]] = {name: {} for name in metric_set.names}
        for (name, system), stats in zip(keys, results, strict=True):
            out[name][system] = stats
        return out


def _ray_statistics(metric_set: MetricSet, systems: dict[str, list[str]],
                    references: list[list[str]], address: str, progress: bool):
    """``--ray``: the same statistics computed on a Ray cluster (cgm_metrics.distributed)."""
    from .. import distributed

    try:
        distributed.require_ray()
    except ImportError as error:
        raise InputError(str(error)) from None
    try:
        started = distributed.connect(address, log_to_driver=False)  # no worker logs on stderr
    except ConnectionError as error:
        raise InputError(f"Cannot join the Ray cluster at {address!r}: {error}") from None
    try:
        return distributed.ray_statistics_table(
            {name: metric_set.metrics[name] for name in metric_set.names}, systems, references,
            progress=progress,
        )
    finally:
        if started:
            distributed.disconnect()


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


def _progress_bar(total: int, enabled: bool, description: str):
    if not enabled or total <= 1:
        return _NoBar()
    try:
        from tqdm import tqdm
    except ImportError:  # the bar is a convenience; never fail without it
        return _NoBar()
    return tqdm(total=total, desc=description, unit="item", file=sys.stderr, leave=False)


def want_progress(args: argparse.Namespace) -> bool:
    """A progress bar only on a terminal, and never with ``--no-progress``."""
    return not getattr(args, "no_progress", False) and sys.stderr.isatty()


# ---------------------------------------------------------------- input arguments


def add_data_arguments(parser: argparse.ArgumentParser, predictions: bool = False) -> None:
    """The "data" group shared by score and compare: references, systems, graded JSONL."""
    group = parser.add_argument_group("data")
    group.add_argument(
        "--references", action="append", metavar="FILE",
        help="reference file; repeat for several references per item",
    )
    if predictions:
        group.add_argument(
            "--predictions", nargs="+", metavar="FILE", help="one file of outputs per system"
        )
    group.add_argument("--names", nargs="+", metavar="NAME",
                       help="system names (default: file names without extension)")
    group.add_argument("--graded", metavar="FILE",
                       help="canonical graded JSONL with every system's outputs")
    group.add_argument("--system", nargs="+", metavar="NAME",
                       help="with --graded: only these systems")


def add_input_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("input format")
    group.add_argument(
        "--format",
        choices=("auto", "text", "jsonl"),
        default="auto",
        help="input format of every file (default: auto: .jsonl/.ndjson files are JSONL, "
        "anything else is plain text with one item per line)",
    )
    group.add_argument(
        "--field",
        default="prediction",
        help="JSONL field holding a system's output (default: prediction)",
    )
    group.add_argument(
        "--reference-field",
        default="references",
        help="JSONL field holding the reference(s), a string or a list of strings "
        "(default: references)",
    )
    group.add_argument(
        "--unescape",
        action="store_true",
        help="decode escapes in plain-text lines: \\n is a newline, \\t a tab, \\r a "
        "carriage return and \\\\ a backslash, so one line can hold multi-line code (the "
        "format of `cgm demo --export`). By default lines are read verbatim, as CodeXGLUE "
        "and sacrebleu read them.",
    )
    group.add_argument("--raw-lines", action="store_true", help=argparse.SUPPRESS)  # the default


def add_metric_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("metrics")
    group.add_argument(
        "--metrics",
        nargs="+",
        metavar="NAME",
        help=f"metrics to compute (default: {' '.join(DEFAULT_METRICS)}; see `cgm score "
        "--list-metrics`)",
    )
    group.add_argument(
        "--lang", default="python", help="programming language of the code (default: python)"
    )
    _options.add_metric_option_arguments(group)


def add_output_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("output")
    group.add_argument("--json", metavar="FILE", help="write the full result as JSON ('-' = stdout)")
    group.add_argument("--csv", metavar="FILE", help="write the result table as CSV ('-' = stdout)")
    group.add_argument(
        "--jobs", type=positive_int, default=1, metavar="N",
        help="processes for the per-item statistics (default: 1)",
    )
    group.add_argument(
        "--ray", nargs="?", const="local", type=ray_address, metavar="ADDRESS",
        help="compute the per-item statistics on Ray (pip install \"cgm-metrics[ray]\"): "
        "without ADDRESS on a local Ray started for this run; 'auto' or HOST:PORT joins a "
        "running cluster (`ray start --head`)",
    )
    group.add_argument(
        "--no-progress", action="store_true",
        help="never show a progress bar (it is shown only when stderr is a terminal)",
    )


def add_resampling_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("confidence intervals")
    group.add_argument(
        "--n-resamples", type=positive_int, default=1000, metavar="R",
        help="bootstrap resamples for confidence intervals (default: 1000)",
    )
    group.add_argument("--seed", type=_options.seed, default=12345,
                       help="random seed, 0 to 2**32-1 (default: 12345)")
    group.add_argument(
        "--confidence", type=probability, default=0.95,
        help="confidence level of the intervals (default: 0.95)",
    )


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def ray_address(text: str) -> str:
    """A Ray address for ``--ray``; a file name there means argparse took a system file."""
    if Path(text).exists():
        raise argparse.ArgumentTypeError(
            f"{text!r} is a file, not a Ray address; put --ray after the files, or write "
            "--ray local"
        )
    return text


def probability(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"must be strictly between 0 and 1, got {value}")
    return value


def load_inputs(
    args: argparse.Namespace, system_paths: Sequence[str]
) -> tuple[list[list[str]], dict[str, list[str]]]:
    """References (a list per item) and ``{system: predictions}`` from the arguments.

    References come from ``--references`` (several files give several references per item)
    or, when it is omitted, from the reference field of the first JSONL system file.
    """
    unescape = args.unescape
    every_path = [*system_paths, *(args.references or [])]
    if sum(str(p) == STDIN for p in every_path) > 1:
        raise InputError("Only one input can be read from standard input ('-'); give the "
                         "others as files.")
    names = system_names(system_paths, getattr(args, "names", None))
    systems: dict[str, list[str]] = {}
    for name, path in zip(names, system_paths, strict=True):
        systems[name] = read_predictions(path, args.format, args.field, unescape)
    if args.references:
        sources = [
            (path, read_references(path, args.format, args.reference_field, unescape))
            for path in args.references
        ]
    else:
        jsonl = [p for p in system_paths if detect_format(p, args.format) == "jsonl"]
        if not jsonl:
            raise InputError(
                "No references: give --references FILE (or system files in JSONL with a "
                f"{args.reference_field!r} field)."
            )
        sources = [(jsonl[0], read_references(jsonl[0], args.format, args.reference_field,
                                              unescape))]
    check_same_length(
        [(path, len(refs)) for path, refs in sources]
        + [(path, len(systems[name])) for name, path in zip(names, system_paths, strict=True)]
    )
    references = merge_references(sources)
    if not references:
        raise InputError("The input files are empty; give at least one item to score.")
    return references, systems


def load_graded(path: str, wanted: Sequence[str] | None):
    """References and systems from a canonical graded JSONL file (optionally some systems)."""
    data = read_graded(path)
    names = data.systems
    if wanted:
        missing = [name for name in wanted if name not in data.systems]
        if missing:
            raise InputError(
                f"{path} has no system {', '.join(repr(m) for m in missing)}; its systems "
                f"are: {', '.join(data.systems)}."
            )
        names = list(dict.fromkeys(wanted))
    return data.references, {name: data.predictions[name] for name in names}


# ---------------------------------------------------------------- formatting and files


def table(
    headers: Sequence[str], rows: Sequence[Sequence[object]], align: str | None = None
) -> str:
    """A plain aligned text table; ``align`` has one letter per column, ``l`` or ``r``
    (default: first column left, the rest right)."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    align = align or "l" + "r" * (len(headers) - 1)

    def line(row: list[str]) -> str:
        parts = [
            row[i].ljust(widths[i]) if align[i] == "l" else row[i].rjust(widths[i])
            for i in range(len(row))
        ]
        return "  ".join(parts).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(cells[0]), rule] + [line(r) for r in cells[1:]])


def to_jsonable(value: Any) -> Any:
    import numpy as np

    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return to_jsonable(value.tolist())
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return None if np.isnan(value) else value
    if hasattr(value, "to_dict"):
        return to_jsonable(value.to_dict())
    return value


def write_text(path: str, text: str) -> None:
    if path == "-":
        _options.result_stream().write(text)
        return
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        # names from outside (file names, JSON) may hold text UTF-8 cannot encode
        target.write_text(text, encoding="utf-8", errors="backslashreplace")
    except OSError as error:
        blocker = next((p for p in target.parents if p.exists() and not p.is_dir()), None)
        reason = (f"{blocker} is a file, not a folder" if blocker is not None
                  else error.strerror)
        raise InputError(f"Cannot write {path}: {reason}; choose another path.") from None


def write_json(path: str, payload: Any) -> None:
    write_text(path, json.dumps(to_jsonable(payload), indent=2, ensure_ascii=False) + "\n")


def write_csv(path: str, headers: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(headers)
    for row in rows:
        writer.writerow(["" if v is None else v for v in to_jsonable(list(row))])
    write_text(path, buffer.getvalue())


def note(message: str) -> None:
    """A remark for the user on stderr (stdout stays the result)."""
    print(message, file=sys.stderr)
