"""``cgm modules``: the evaluate modules shipped with the package and their folders; with
``--languages``, every language with its parts (parsing, CodeBLEU, TSED, RUBY's graphs,
execution) and whether code_eval and edit_sim can run its programs on this machine."""

from __future__ import annotations

import argparse

from ...base.errors import InputError
from ...base.loading import module_path, module_paths

DESCRIPTION = """\
List the HuggingFace evaluate modules shipped with cgm-metrics and the folder of each, a path
that evaluate.load accepts offline (the same modules as evaluate.load("cgm/<name>") on the Hub).

examples:
  cgm modules
  cgm modules codebleu        # only the path, e.g. for evaluate.load("$(cgm modules codebleu)")
  cgm modules --languages     # every language (lang=) with its parts; those code_eval can
                              # run here with each toolchain's version, or what is missing

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
        help="list the languages (lang=) with their parts, which can run programs here "
             "(code_eval, edit_sim), with their compilers' versions, and what to install for "
             "the others",
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
    """One line per language (:mod:`cgm_metrics.languages`, plugins included): whether its
    programs can run here (``yes``, ``no``, or ``-`` without an execution part), the parts
    it has, the tools found (with their versions) or what to install."""
    from ... import languages
    from ...execution.languages import describe_languages

    rows = {row["name"]: row for row in describe_languages(versions=True)}
    described = languages.describe()
    width = max(len(row["name"]) for row in described)
    for language in described:
        aliases = f" (also {', '.join(language['aliases'])})" if language["aliases"] else ""
        parts = "[" + " ".join(language["parts"]) + "]"
        row = rows.get(language["name"])
        if row is None:
            print(f"{language['name']:<{width}}  -    {parts} no execution part{aliases}")
        elif row["available"]:
            found = "; ".join(_tool_line(name, path, row["versions"].get(name, ""))
                              for name, path in row["tools"].items())
            print(f"{language['name']:<{width}}  yes  {parts} {found}{aliases}")
        else:
            print(f"{language['name']:<{width}}  no   {parts} {row['reason']}{aliases}")
    missing = sum(not row["available"] for row in rows.values())
    print(f"{len(described)} languages; {len(rows) - missing} of {len(rows)} execution "
          "languages can run here"
          + (f"; install the packages named above for the other {missing}." if missing else "."))
    return 0


def _tool_line(name: str, path: str, version: str) -> str:
    if not version:
        return f"{name} ({path})"
    return version if name.lower() in version.lower() else f"{name} {version}"
