"""``cgm modules``: the evaluate modules shipped with the package and their folders."""

from __future__ import annotations

import argparse

from ..errors import InputError
from ..loading import module_path, module_paths

DESCRIPTION = """\
List the HuggingFace evaluate modules shipped with cgm-metrics and the folder of each, a path
that evaluate.load accepts offline (the same modules as evaluate.load("cgm/<name>") on the Hub).

examples:
  cgm modules
  cgm modules codebleu        # only the path, e.g. for evaluate.load("$(cgm modules codebleu)")

In Python: evaluate.load(cgm_metrics.module_path("codebleu")).
"""


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "modules",
        help="list the shipped evaluate modules and their paths",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("name", nargs="?", help="print only the path of this module")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.name:
        try:
            print(module_path(args.name))
        except ValueError as error:
            raise InputError(str(error)) from None
        return 0
    paths = module_paths()
    if not paths:
        raise InputError("no evaluate modules found in this installation (cgm_metrics/modules)")
    width = max(len(name) for name in paths)
    for name, path in paths.items():
        print(f"{name:<{width}}  {path}")
    return 0
