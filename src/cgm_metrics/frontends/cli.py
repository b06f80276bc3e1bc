"""The ``cgm`` command: from output files to a trustworthy comparison in one command.

    cgm demo                                   # the example comparison, offline, in seconds
    cgm score --references refs.txt --predictions model.txt
    cgm compare --references refs.txt model_a.txt model_b.txt model_c.txt
    cgm agreement graded.jsonl

Each subcommand lives in ``cgm_metrics.frontends.commands.<name>`` and exposes ``add_parser(subparsers)``
and ``run(args) -> int``. Exit codes: 0 success, 1 usage or input error (one line that says
what to fix: a bad option, a file that cannot be read or written, malformed input), 2 only
for an internal error (a bug), 130 when interrupted (Ctrl-C, at any moment: while heavy
modules load too), 143 and 129 when ended by SIGTERM and SIGHUP (which end a run as Ctrl-C
does: the finished runs of ``--results`` kept for ``--resume``). ``--json -`` (or ``--csv -``, ``--per-item -``) writes that result alone
to stdout and everything else to stderr.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import re
import signal
import sys
import traceback
from collections.abc import Sequence
from typing import Any

from .. import __version__, _startup_interrupt
from ..base.errors import InputError, MetricUnavailableError
from ..core.inputs import did_you_mean

EXIT_OK = 0
EXIT_INPUT = 1
EXIT_INTERNAL = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, what shells report for Ctrl-C

COMMANDS = ("demo", "score", "compare", "check", "agreement", "modules", "serve")
#: the signals that end a run as Ctrl-C does (exit 128 + the signal's number)
ENDING_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP")
                       if hasattr(signal, name))


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP (``signum``), raised where Ctrl-C's KeyboardInterrupt would be, so
    that every part that keeps its work on Ctrl-C (the finished runs of ``--results``) keeps
    it on these too."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"signal {signum}")
        self.signum = signum


def _terminate(signum: int, frame: object) -> None:
    # once: a second signal while the finished work is being saved does not cut the save
    for number in ENDING_SIGNALS:
        signal.signal(number, signal.SIG_IGN)
    raise Terminated(signum)


class _Parser(argparse.ArgumentParser):
    """argparse that exits with 1 (usage error), not 2, which ``cgm`` keeps for internal
    errors."""

    def error(self, message: str) -> None:  # type: ignore[override]
        # one line: what is wrong, the closest valid name, and where the usage is
        suggestion = self._suggestion(message)
        if suggestion and not message.endswith((".", ")")):
            message += "."
        self.exit(EXIT_INPUT, f"{self.prog}: error: {message}{suggestion} "
                              f"(usage: {self.prog} --help)\n")

    def _option_strings(self) -> list[str]:
        """This parser's options and those of its commands (an unknown option of a command is
        reported by the top-level parser)."""
        found: list[str] = []
        for action in self._actions:
            found.extend(option for option in action.option_strings if option.startswith("--"))
            choices = getattr(action, "choices", None)
            for sub in choices.values() if isinstance(choices, dict) else ():
                if isinstance(sub, _Parser):
                    found.extend(sub._option_strings())
        return found

    def _suggestion(self, message: str) -> str:
        unknown = re.match(r"unrecognized arguments: (\S+)", message)
        if unknown and unknown.group(1).startswith("--"):
            return did_you_mean(unknown.group(1).split("=")[0], self._option_strings())
        invalid = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)$", message)
        if invalid:
            choices = re.findall(r"'([^']*)'", invalid.group(2)) or invalid.group(2).split(", ")
            return did_you_mean(invalid.group(1), choices)
        return ""


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
    for name in COMMANDS:
        importlib.import_module(f"cgm_metrics.frontends.commands.{name}").add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``cgm`` with ``argv`` (default: the process arguments); returns the exit code."""
    if signal.getsignal(signal.SIGINT) is _startup_interrupt:
        # from here a Ctrl-C is a KeyboardInterrupt, which the code below turns into exit 130
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if hasattr(signal, "SIGXFSZ"):  # a file size limit: an error to report, not a kill
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    previous = _handle_ending_signals()
    try:
        return _run(argv)
    except BaseException as error:  # noqa: BLE001 - Ctrl-C at any moment, even mid-import
        if _interrupted(error):
            signum = _ending_signal(error)
            if signum is not None:
                print(f"cgm: terminated ({_signal_name(signum)})", file=sys.stderr)
                return 128 + signum
            print("cgm: interrupted", file=sys.stderr)
            return EXIT_INTERRUPTED
        if isinstance(error, SystemExit):
            raise
        return _internal_error(None, error)
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def _handle_ending_signals() -> dict[int, Any]:
    """SIGTERM and SIGHUP raise :class:`Terminated` from here on (the main thread only);
    the handlers they had before, to put back."""
    previous: dict[int, Any] = {}
    for number in ENDING_SIGNALS:
        try:
            before = signal.getsignal(number)
            if before is signal.SIG_IGN:  # e.g. started with nohup: keep ignoring it
                continue
            signal.signal(number, _terminate)
            previous[number] = signal.SIG_DFL if before is None else before
        except ValueError:  # not the main thread: signals are the caller's
            break
    return previous


def _ending_signal(error: BaseException | None) -> int | None:
    """The signal of the :class:`Terminated` that ``error`` is or was caused by, or None."""
    seen = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, Terminated):
            return error.signum
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return None


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _interrupted(error: BaseException | None) -> bool:
    """True when ``error`` is, or was caused by, a Ctrl-C (compiled code loading when it
    came may wrap it in a ``SystemError``)."""
    seen = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, KeyboardInterrupt):
            return True
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return False


def _run(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    except SystemExit as exit_:
        return int(exit_.code or 0) if isinstance(exit_.code, int) else EXIT_INPUT
    if not getattr(args, "run", None):
        parser.print_help(sys.stderr)
        return EXIT_INPUT
    from .commands import _output

    targets = _output.stdout_targets(args)
    if len(targets) > 1:
        print(f"cgm {args.command}: error: only one output can go to stdout ('-'), got "
              f"{' and '.join(targets)}; write the others to files.", file=sys.stderr)
        return EXIT_INPUT
    try:
        with _output.results_only_on_stdout(bool(targets)):
            return int(args.run(args) or 0)
    except (InputError, MetricUnavailableError) as error:  # the user's, or this machine lacks
        print(f"cgm {args.command}: error: {_output.for_command_line(str(error))}",
              file=sys.stderr)  # a part (WordNet, ...)
        return EXIT_INPUT
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
        if _interrupted(error):
            raise
        return _internal_error(args, error)


USER_PATH_ERRORS = {errno.ENOENT, errno.ENOTDIR, errno.EISDIR, errno.EACCES, errno.EPERM,
                    errno.EROFS, errno.EEXIST, errno.ENOSPC, errno.EDQUOT, errno.ENAMETOOLONG,
                    errno.ELOOP, errno.EINVAL}


def _internal_error(args: argparse.Namespace | None, error: BaseException) -> int:
    if args is not None and args.debug:
        traceback.print_exception(error)
    command = f"cgm {args.command}" if args is not None else "cgm"
    print(
        f"{command}: internal error: {type(error).__name__}: {error}\n"
        "This is a bug in cgm-metrics; rerun with `cgm --debug ...` for the traceback "
        "and report it.",
        file=sys.stderr,
    )
    return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
