"""Command-line options of ``cgm`` that need checking beyond argparse's types: metric options,
seeds, plot formats, delta bins, and where results go when ``--json -`` asks for stdout.

Every check raises :class:`argparse.ArgumentTypeError` (a usage error, exit 1) or
:class:`~cgm_metrics.io.InputError` (exit 1) with a message naming what to fix.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import inspect
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

from ..io import InputError

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

METRIC_FLAGS = (
    # (flag, metric, option, type, help)
    ("--codebleu-weights", "codebleu", "weights", "weights",
     "CodeBLEU weights of n-gram, weighted n-gram, syntax and dataflow match, four numbers "
     "joined by commas (default: 0.25,0.25,0.25,0.25; Out of the BLEU: 0.1,0.1,0.4,0.4)"),
    ("--codebleu-dataflow", "codebleu", "dataflow", ("package", "zero", "renormalize"),
     "CodeBLEU when the references have no dataflow: package (as the codebleu package), zero "
     "or renormalize (drop the dataflow part and reweight the others) (default: package)"),
    ("--chrf-char-order", "chrf_code", "char_order", "int",
     "chrF character n-gram order (default: 6)"),
    ("--chrf-word-order", "chrf_code", "word_order", "int",
     "chrF word n-gram order (default: 0; 2 gives chrF++)"),
    ("--chrf-beta", "chrf_code", "beta", "number",
     "chrF beta: recall is beta times as important as precision (default: 2)"),
    ("--ruby-level", "ruby", "level", ("graph", "tree", "string"),
     "RUBY representation: graph, tree or string (default: the richest one that both "
     "sides support)"),
)


def _flag_dest(flag: str) -> str:
    return "metric_flag_" + flag.lstrip("-").replace("-", "_")


def add_metric_option_arguments(group: argparse._ArgumentGroup) -> None:
    """``--option [METRIC.]KEY=VALUE`` and the named shortcuts of :data:`METRIC_FLAGS`."""
    group.add_argument(
        "--option", action="append", default=[], metavar="[METRIC.]KEY=VALUE",
        help="an option of the metrics, e.g. codebleu.weights=0.1,0.1,0.4,0.4 or "
        "chrf_code.word_order=2; without METRIC. it goes to every chosen metric that takes "
        "KEY. Values are numbers, true/false, comma lists or words. Repeat for several.",
    )
    for flag, _metric, _option, kind, text in METRIC_FLAGS:
        if isinstance(kind, tuple):
            group.add_argument(flag, dest=_flag_dest(flag), choices=kind, help=text)
        else:
            metavar = {"weights": "A,B,C,D", "int": "N", "number": "X"}[kind]
            group.add_argument(flag, dest=_flag_dest(flag), metavar=metavar, help=text)


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
    from ..registry import metric_class, metrics

    chosen = list(dict.fromkeys(names))
    requests: list[tuple[str | None, str, Any, str]] = []  # (metric, key, value, as given)
    for flag, flag_metric, option, kind, _text in METRIC_FLAGS:
        raw = getattr(args, _flag_dest(flag), None)
        if raw is None:
            continue
        requests.append((flag_metric, option, _flag_value(flag, raw, kind), f"{flag} {raw}"))
    for text in getattr(args, "option", None) or []:
        key, sep, raw = text.partition("=")
        key = key.strip()
        if not sep or not key:
            raise InputError(f"--option {text!r}: write KEY=VALUE or METRIC.KEY=VALUE, e.g. "
                             "--option codebleu.weights=0.1,0.1,0.4,0.4.")
        prefix, dot, key = key.rpartition(".")
        if dot and prefix not in metrics():
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
                raise InputError(f"{given}: {name} has no option {key!r}; its options are: "
                                 f"{keys}.")
        if not taken:
            raise InputError(f"{given}: none of the metrics computed ({', '.join(chosen)}) "
                             f"takes an option {key!r}.")
    return options


def _flag_value(flag: str, raw: str, kind: Any) -> Any:
    if isinstance(kind, tuple):
        return raw
    if kind == "weights":
        parts = [p for p in raw.replace(" ", ",").split(",") if p]
        try:
            weights = tuple(float(p) for p in parts)
        except ValueError:
            raise InputError(f"{flag} {raw!r}: give four numbers joined by commas, e.g. "
                             "0.1,0.1,0.4,0.4.") from None
        if len(weights) != 4:
            raise InputError(f"{flag} {raw!r}: give four numbers (n-gram, weighted n-gram, "
                             f"syntax, dataflow), got {len(weights)}.")
        return weights
    try:
        return int(raw) if kind == "int" or raw.strip().lstrip("+-").isdigit() else float(raw)
    except ValueError:
        what = "a whole number" if kind == "int" else "a number"
        raise InputError(f"{flag}: expected {what}, got {raw!r}.") from None


# ---------------------------------------------------------------- where results go

_RESULT_STREAM: list[TextIO] = []


def result_stream() -> TextIO:
    """Where ``--json -`` / ``--csv -`` write: the real stdout, even while the tables that
    normally go to stdout are sent to stderr."""
    return _RESULT_STREAM[-1] if _RESULT_STREAM else sys.stdout


def stdout_targets(args: argparse.Namespace) -> list[str]:
    """The output options of ``args`` that ask for stdout (``-``)."""
    return [f"--{name.replace('_', '-')}" for name in ("json", "csv", "per_item", "plot")
            if getattr(args, name, None) == "-"]


@contextlib.contextmanager
def results_only_on_stdout(enabled: bool) -> Iterator[None]:
    """While enabled, everything printed goes to stderr and only :func:`result_stream`
    writes reach stdout (so ``cgm score --json - | jq`` gets pure JSON)."""
    if not enabled:
        yield
        return
    _RESULT_STREAM.append(sys.stdout)
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        _RESULT_STREAM.pop()
