"""The arguments of the ``cgm`` subcommands: the argument groups they share, the value types
that need checking beyond argparse's (seeds, probabilities, plot formats, delta bins, Ray
addresses), metric options (``--option METRIC.KEY=VALUE`` and the flags the metrics declare), and reading
the input files the arguments name.

Every check raises :class:`argparse.ArgumentTypeError` (a usage error, exit 1) or
:class:`~cgm_metrics.base.errors.InputError` (exit 1) with a message naming what to fix.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ...base.errors import InputError
from ...core.inputs import did_you_mean
from ...pipeline.evaluation import DEFAULT_METRICS

# ---------------------------------------------------------------- simple value types




def seed(text: str) -> int:
    """A random seed: a whole number from 0 to 2**32 - 1 (what every resampler accepts)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if not 0 <= value < 2**32:
        raise argparse.ArgumentTypeError(f"must be between 0 and {2**32 - 1}, got {value}")
    return value


def bin_edge(text: str) -> float:
    """One edge of the metric-difference bins: a finite number of points, at least 0 (the
    bins are of the absolute difference)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0.0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(
            f"bin edges are absolute metric differences, so each must be a finite number "
            f"of at least 0; got {text}"
        )
    return value


class BinEdges(argparse.Action):
    """``--bins E0 E1 ...``: at least two non-negative, strictly increasing edges."""

    def __call__(self, parser, namespace, values, option_string=None):
        edges = list(values)
        if len(edges) < 2:
            parser.error(f"{option_string} needs at least two edges (e.g. 0 2 5 10 100)")
        if any(b <= a for a, b in zip(edges, edges[1:], strict=False)):
            parser.error(f"{option_string} edges must increase strictly, e.g. 0 2 5 10 100; "
                         f"got {' '.join(f'{e:g}' for e in edges)}")
        setattr(namespace, self.dest, edges)


def plot_formats() -> list[str]:
    """The file extensions matplotlib can write here (png, pdf, svg, ...)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    return sorted(FigureCanvasAgg(Figure()).get_supported_filetypes())


def plot_file(text: str) -> str:
    """A plot path whose extension names an image format matplotlib writes."""
    suffix = Path(text).suffix.lower().lstrip(".")
    formats = plot_formats()
    if suffix not in formats:
        shown = f"'.{suffix}'" if suffix else "no extension"
        raise argparse.ArgumentTypeError(
            f"{text!r} has {shown}; end the file name in one of "
            f"{', '.join('.' + f for f in formats)} (e.g. plot.png)"
        )
    return text


# ---------------------------------------------------------------- metric options

def _flag_dest(flag: str) -> str:
    return "metric_flag_" + flag.lstrip("-").replace("-", "_")


def add_metric_option_arguments(parser: argparse.ArgumentParser,
                                group: argparse._ArgumentGroup) -> None:
    """``--option [METRIC.]KEY=VALUE`` and the flags the metrics declare
    (:attr:`cgm_metrics.pipeline.metric.Metric.cli_flags`: ``--codebleu-weights``, ``--ruby-level``,
    a plugin's own).

    The flags join ``group`` only when ``parser`` needs them: for its help, or when its
    arguments hold an option it does not know yet (first the metrics whose names start as the
    option does, then the others), so ``cgm --help`` and a ``cgm score`` without metric flags
    read no metric (:func:`cgm_metrics.pipeline.registry.metric_flags` reads the built-in ones from
    their source, a plugin's from its class)."""
    group.add_argument(
        "--option", action="append", default=[], metavar="[METRIC.]KEY=VALUE",
        help="an option of the metrics, e.g. codebleu.weights=0.1,0.1,0.4,0.4 or "
        "chrf_code.word_order=2; without METRIC. it goes to every chosen metric that takes "
        "KEY. Values are numbers, true/false, comma lists or words. Repeat for several.",
    )
    flags: dict[str, tuple[str, Any]] = {}  # dest -> (metric, MetricFlag)
    parser.set_defaults(metric_flags=flags)
    loaded: set[str] = set()
    parse_known_args, format_help = parser.parse_known_args, parser.format_help

    def load(names: Sequence[str]) -> None:
        from ...pipeline.registry import metric_flags, metrics

        for name in names:
            if name in loaded or name not in metrics():
                continue
            loaded.add(name)
            try:
                declared = metric_flags(name)
            except (ImportError, AttributeError, ValueError):
                continue  # a plugin that cannot load: reported where it is used
            for spec in declared:
                flag = spec.flag_of(name)
                if flag in parser._option_string_actions:
                    warnings.warn(f"metric {name}: flag {flag} left out: it is already an "
                                  "option of the command.", RuntimeWarning, stacklevel=2)
                    continue
                dest = _flag_dest(flag)
                flags[dest] = (name, spec)
                if isinstance(spec.kind, tuple):
                    action = group.add_argument(flag, dest=dest, choices=spec.kind,
                                                help=spec.help)
                else:
                    many = spec.n_values
                    letters = ",".join("ABCDEFGH"[:many]) if 0 < many <= 8 else "X,Y,..."
                    metavar = {"int": "N", "number": "X", "numbers": letters}
                    action = group.add_argument(flag, dest=dest, help=spec.help,
                                                metavar=metavar.get(spec.kind, "VALUE"))
                # in the usage line with the other metric options, not after every argument
                parser._actions.remove(action)
                parser._actions.insert(parser._actions.index(group._group_actions[-2]) + 1,
                                       action)

    def unknown(args: Sequence[str]) -> list[str]:
        found = []
        for arg in args:
            if arg == "--":
                break
            option = arg.split("=", 1)[0]
            if option.startswith("--") and not any(
                    known.startswith(option) for known in parser._option_string_actions):
                found.append(option)
        return found

    def load_all() -> None:
        from ...pipeline.registry import metrics

        load([*DEFAULT_METRICS, *metrics()])

    def parse_known_args_with_flags(args=None, namespace=None):
        import sys

        options = unknown(list(sys.argv[1:] if args is None else args))
        if options:
            from ...pipeline.registry import metrics

            starts = {option[2:].split("-")[0] for option in options}
            load([name for name in metrics()
                  if any(name.replace("_", "-").startswith(start) for start in starts)])
            if unknown(options):
                load_all()
        return parse_known_args(args, namespace)

    def format_help_with_flags() -> str:
        load_all()
        return format_help()

    parser.parse_known_args = parse_known_args_with_flags  # type: ignore[method-assign]
    parser.format_help = format_help_with_flags  # type: ignore[method-assign]


def parse_value(text: str) -> Any:
    """``"2"`` -> 2, ``"0.1,0.2"`` -> (0.1, 0.2), ``"true"`` -> True, ``"zero"`` -> "zero"."""
    lowered = text.strip().lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered in ("none", "null"):
        return None
    try:
        value = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return text
    if isinstance(value, (int, float, bool, tuple, list)) and not isinstance(value, complex):
        return value
    return text


def accepted_options(metric_type: type) -> list[str] | None:
    """The keyword options a metric's constructor takes (``None``: it takes any)."""
    try:
        parameters = inspect.signature(metric_type).parameters
    except (TypeError, ValueError):
        return None
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        names = [n for n, p in parameters.items() if p.kind is not inspect.Parameter.VAR_KEYWORD]
        return names or None
    return [name for name, p in parameters.items()
            if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD,
                          inspect.Parameter.KEYWORD_ONLY)]


def metric_options(args: argparse.Namespace, names: Sequence[str]) -> dict[str, dict]:
    """``{metric: {option: value}}`` from ``--option`` and the named flags, checked against
    the chosen metrics and the options each metric's constructor takes."""
    from ...pipeline.registry import is_metric, metric_class, metrics

    chosen = list(dict.fromkeys(names))
    requests: list[tuple[str | None, str, Any, str]] = []  # (metric, key, value, as given)
    for dest, (flag_metric, spec) in (getattr(args, "metric_flags", None) or {}).items():
        raw = getattr(args, dest, None)
        if raw is None:
            continue
        flag = spec.flag_of(flag_metric)
        try:
            value = spec.value(raw)
        except ValueError as error:
            raise InputError(f"{flag}: {error}") from None
        requests.append((flag_metric, spec.option, value, f"{flag} {raw}"))
    for text in getattr(args, "option", None) or []:
        key, sep, raw = text.partition("=")
        key = key.strip()
        if not sep or not key:
            raise InputError(f"--option {text!r}: write KEY=VALUE or METRIC.KEY=VALUE, e.g. "
                             "--option codebleu.weights=0.1,0.1,0.4,0.4.")
        prefix, dot, key = key.rpartition(".")
        if dot and not is_metric(prefix):
            raise InputError(f"--option {text!r}: unknown metric {prefix!r}; the metrics are "
                             f"{', '.join(metrics())}.")
        requests.append((prefix or None, key, parse_value(raw), f"--option {text}"))

    options: dict[str, dict] = {}
    for metric, key, value, given in requests:
        if key == "lang":
            raise InputError(f"{given}: give the language with --lang.")
        if metric is not None and metric not in chosen:
            raise InputError(f"{given} is an option of {metric}, which is not among the "
                             f"metrics computed ({', '.join(chosen)}); add it to --metrics.")
        targets = [metric] if metric is not None else chosen
        taken = False
        for name in targets:
            try:
                accepted = accepted_options(metric_class(name))
            except (ImportError, AttributeError, ValueError):
                continue
            if accepted is None or key in accepted:
                options.setdefault(name, {})[key] = value
                taken = True
            elif metric is not None:
                keys = ", ".join(k for k in accepted if k != "lang") or "none"
                raise InputError(f"{given}: {name} has no option {key!r}."
                                 f"{did_you_mean(key, accepted)} Its options are: {keys}.")
        if not taken:
            raise InputError(f"{given}: none of the metrics computed ({', '.join(chosen)}) "
                             f"takes an option {key!r}.")
    return options


# ---------------------------------------------------------------- argument groups


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
    escapes = group.add_mutually_exclusive_group()
    escapes.add_argument(
        "--unescape",
        action="store_true",
        help="decode escapes in plain-text lines: \\n is a newline, \\t a tab, \\r a "
        "carriage return and \\\\ a backslash, so one line can hold multi-line code (the "
        "format of `cgm demo --export`). By default lines are read verbatim, as CodeXGLUE "
        "and sacrebleu read them, with a warning when most lines of a file look escaped",
    )
    escapes.add_argument(
        "--no-unescape", action="store_true",
        help="read plain-text lines verbatim without that warning (\\n in a line is the "
        "two characters \\ and n)",
    )
    escapes.add_argument("--raw-lines", action="store_true", dest="no_unescape",
                         help=argparse.SUPPRESS)  # the earlier name of --no-unescape


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
        "--lang", default=None,
        help="programming language of the code (default: the one the input files' extensions "
        "name, e.g. .py; required by the metrics that depend on it when they name none)")
    add_metric_option_arguments(parser, group)


def add_output_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("output")
    group.add_argument("--json", metavar="FILE", help="write the full result as JSON ('-' = stdout)")
    group.add_argument("--csv", metavar="FILE", help="write the result table as CSV ('-' = stdout)")
    group.add_argument(
        "--jobs", type=positive_int, default=1, metavar="N",
        help="processes for the per-item statistics, and with --problems the sandbox workers "
        "that run the programs (default: 1)",
    )
    group.add_argument(
        "--ray", nargs="?", const="local", type=ray_address, metavar="ADDRESS",
        help="compute the per-item statistics on Ray (pip install \"cgm-metrics[ray]\"), and "
        "with --problems run the programs there (a sandbox worker per CPU): without ADDRESS on "
        "a local Ray started for this run; 'auto' or HOST:PORT joins a running cluster (`ray "
        "start --head`)",
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
    group.add_argument("--seed", type=seed, default=12345,
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


# ---------------------------------------------------------------- reading the inputs


def read_inputs(
    args: argparse.Namespace, system_paths: Sequence[str]
) -> tuple[list[list[str]], dict[str, list[str]]]:
    """References (a list per item) and ``{system: predictions}``: from ``--graded`` (the
    canonical graded JSONL, optionally ``--system`` names), or from reference and system files
    (:func:`cgm_metrics.base.io.read_outputs`)."""
    from ...base.io import read_outputs

    if args.graded:
        if system_paths:
            raise InputError("Give either --graded or system files, not both.")
        from ...agreement.data import read_graded_jsonl

        data = read_graded_jsonl(args.graded, require_grades=False, require_text=True)
        try:
            return data.outputs(args.system)
        except InputError as error:
            raise InputError(f"{args.graded}: {error}") from None
    if args.system:
        raise InputError("--system selects systems of a --graded file; give --graded FILE.")
    if not system_paths:
        raise InputError("No systems: give --predictions FILE (or --graded FILE).")
    import warnings

    from ...base.io import EscapedLinesWarning, describe_escaped

    unescape = True if args.unescape else False if args.no_unescape else None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        read = read_outputs(system_paths, args.references, args.format, args.field,
                            args.reference_field, unescape, getattr(args, "names", None))
    for warning in caught:
        if isinstance(warning.message, EscapedLinesWarning):
            from ._output import note

            note(f"warning: {describe_escaped(warning.message.files)} Add --unescape to read "
                 "\\n as a line break (--no-unescape: read the lines verbatim without this "
                 "warning).")
        else:
            warnings.showwarning(warning.message, warning.category, warning.filename,
                                 warning.lineno)
    return read


def language(args: argparse.Namespace, paths: Sequence[str | None]) -> str | None:
    """``--lang``, or the language the input files' extensions all name (None otherwise: the
    metrics that depend on a language then ask for ``--lang``)."""
    if args.lang is not None:
        return args.lang
    from ...languages import language_from_paths

    inferred = language_from_paths(path for path in paths if path)
    if inferred is not None:
        from ._output import note

        note(f"note: language {inferred}, from the input files' extensions (--lang to change it)")
    return inferred
