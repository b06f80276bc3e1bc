"""The ``cgm`` command: from output files to a trustworthy comparison in one command.

    cgm demo                                   # the example comparison, offline, in seconds
    cgm score --references refs.txt --predictions model.txt
    cgm compare --references refs.txt model_a.txt model_b.txt model_c.txt
    cgm agreement graded.jsonl

Each subcommand lives in ``cgm_metrics.commands.<name>`` and exposes ``add_parser(subparsers)``
and ``run(args) -> int``. Exit codes: 0 success, 1 usage or input error (the message says
what to fix), 2 internal error.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import traceback
from collections.abc import Sequence

from . import __version__
from .io import InputError

EXIT_OK = 0
EXIT_INPUT = 1
EXIT_INTERNAL = 2

COMMANDS = ("demo", "score", "compare", "agreement", "modules")


class _Parser(argparse.ArgumentParser):
    """argparse that exits with 1 (usage error), not 2, which ``cgm`` keeps for internal
    errors."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(EXIT_INPUT, f"{self.prog}: error: {message}\n")


def _missing_command(name: str, reason: str):
    def add_parser(subparsers) -> None:
        parser = subparsers.add_parser(
            name, help=f"(not available: {reason})", description=f"Not available: {reason}"
        )
        parser.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
        parser.set_defaults(run=run)

    def run(args: argparse.Namespace) -> int:
        print(f"cgm: `cgm {name}` is not available in this installation: {reason}.",
              file=sys.stderr)
        return EXIT_INTERNAL

    return add_parser


def _command_adders():
    """``add_parser`` of every subcommand; a missing module becomes a clear placeholder."""
    adders = []
    for name in COMMANDS:
        module_name = f"cgm_metrics.commands.{name}"
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as error:
            if error.name != module_name:
                raise
            adders.append(_missing_command(name, f"the module {module_name} is not installed"))
            continue
        except Exception as error:  # a broken command must not take the others down
            adders.append(_missing_command(name, f"{module_name} failed to import ({error})"))
            continue
        adders.append(module.add_parser)
    return adders


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="cgm",
        description="Score code-generation outputs with CodeBLEU, RUBY and chrF, with "
        "confidence intervals, and test whether differences between systems are real.",
        epilog="Start with `cgm demo`. Exit codes: 0 success, 1 usage or input error, "
        "2 internal error. Help on a command: cgm COMMAND --help.",
    )
    parser.add_argument("--version", action="version", version=f"cgm-metrics {__version__}")
    parser.add_argument(
        "--debug", action="store_true", help="show the full traceback of internal errors"
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for add_parser in _command_adders():
        add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``cgm`` with ``argv`` (default: the process arguments); returns the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    except SystemExit as exit_:
        return int(exit_.code or 0) if isinstance(exit_.code, int) else EXIT_INPUT
    if not getattr(args, "run", None):
        parser.print_help(sys.stderr)
        return EXIT_INPUT
    try:
        return int(args.run(args) or 0)
    except InputError as error:
        print(f"cgm {args.command}: error: {error}", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        print("cgm: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `cgm ... | head`
        return EXIT_OK
    except Exception as error:  # anything else is our bug, not the user's
        if args.debug:
            traceback.print_exc()
        print(
            f"cgm {args.command}: internal error: {type(error).__name__}: {error}\n"
            "This is a bug in cgm-metrics; rerun with `cgm --debug ...` for the traceback "
            "and report it.",
            file=sys.stderr,
        )
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
