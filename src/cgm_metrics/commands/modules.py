"""``cgm modules``: the evaluate modules shipped with the package and their folders; with
``--languages``, the languages code_eval and edit_sim can run programs in on this machine."""

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
  cgm modules --languages     # the languages code_eval can run here (lang=), with each
                              # toolchain's version, or the package that is missing

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
    parser.add_argument(
        "--languages", action="store_true",
        help="list the execution languages of code_eval and edit_sim (lang=): which can run "
             "here, with their compilers' versions, and what to install for the others",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.languages:
        if args.name:
            raise InputError("give either a module name or --languages, not both")
        return list_languages()
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


def list_languages() -> int:
    """One line per execution language: whether programs can run here, the tools found (with
    their versions) or what to install."""
    from ..execution.languages import describe_languages

    rows = describe_languages(versions=True)
    width = max(len(row["name"]) for row in rows)
    for row in rows:
        aliases = f" (also {', '.join(row['aliases'])})" if row["aliases"] else ""
        if row["available"]:
            found = "; ".join(_tool_line(name, path, row["versions"].get(name, ""))
                              for name, path in row["tools"].items())
            print(f"{row['name']:<{width}}  yes  {found}{aliases}")
        else:
            print(f"{row['name']:<{width}}  no   {row['reason']}{aliases}")
    missing = sum(not row["available"] for row in rows)
    print(f"{len(rows) - missing} of {len(rows)} languages can run here"
          + (f"; install the packages named above for the other {missing}." if missing else "."))
    return 0


def _tool_line(name: str, path: str, version: str) -> str:
    if not version:
        return f"{name} ({path})"
    return version if name.lower() in version.lower() else f"{name} {version}"
