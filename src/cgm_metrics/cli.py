"""The ``cgm`` command: from output files to a trustworthy comparison in one command.

    cgm demo                                   # the example comparison, offline, in seconds
    cgm score --references refs.txt --predictions model.txt
    cgm compare --references refs.txt model_a.txt model_b.txt model_c.txt
    cgm agreement graded.jsonl

Each subcommand lives in ``cgm_metrics.commands.<name>`` and exposes ``add_parser(subparsers)``
and ``run(args) -> int``. Exit codes: 0 success, 1 usage or input error (one line that says
what to fix: a bad option, a file that cannot be read or written, malformed input), 2 only
for an internal error (a bug). ``--json -`` (or ``--csv -``, ``--per-item -``) writes that
result alone to stdout and everything else to stderr.
"""

from __future__ import annotations

import argparse
import errno
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
        # one line: what is wrong and where the usage is (not the whole usage block)
        self.exit(EXIT_INPUT, f"{self.prog}: error: {message} (usage: {self.prog} --help)\n")


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
    from .commands import _options

    targets = _options.stdout_targets(args)
    if len(targets) > 1:
        print(f"cgm {args.command}: error: only one output can go to stdout ('-'), got "
              f"{' and '.join(targets)}; write the others to files.", file=sys.stderr)
        return EXIT_INPUT
    try:
        with _options.results_only_on_stdout(bool(targets)):
            return int(args.run(args) or 0)
    except InputError as error:
        print(f"cgm {args.command}: error: {error}", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        print("cgm: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `cgm ... | head`
        return EXIT_OK
    except OSError as error:
        if error.errno in USER_PATH_ERRORS and error.filename is not None:
            # a path the user gave cannot be read or written (a missing or unwritable
            # folder, a file where a folder should be, a full disk)
            print(f"cgm {args.command}: error: cannot use {error.filename}: "
                  f"{error.strerror}; choose another path.", file=sys.stderr)
            return EXIT_INPUT
        return _internal_error(args, error)
    except Exception as error:  # anything else is our bug, not the user's
        return _internal_error(args, error)


USER_PATH_ERRORS = {errno.ENOENT, errno.ENOTDIR, errno.EISDIR, errno.EACCES, errno.EPERM,
                    errno.EROFS, errno.EEXIST, errno.ENOSPC, errno.EDQUOT, errno.ENAMETOOLONG,
                    errno.ELOOP, errno.EINVAL}


def _internal_error(args: argparse.Namespace, error: BaseException) -> int:
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
