#!/usr/bin/env python3
"""Move the flat top-level modules of cgm_metrics into layer subpackages, re-runnably.

Not run yet: prepared for the step that gives the top level one folder per layer (base/,
pipeline/, frontends/); the checks it must pass are tests/test_architecture.py and the suite.

    python scripts/move_layers.py [REPO] [--dry-run] [--no-ruff]

REPO defaults to the current directory (a git work tree of cgm-metrics, clean or not).

What it does (each step is idempotent: a second run finds nothing to do):

1. Discovers the top-level modules and packages of ``src/cgm_metrics`` and plans a move for
   those named in ``TARGETS`` (``errors.py`` -> ``base/errors.py``, ``commands/`` ->
   ``frontends/commands/``...). A top-level module named nowhere is reported, not moved.
2. Rewrites every Python file of the work tree (tracked and untracked, not ignored):
   every ``from ... import`` naming a moved module, absolute or relative. A relative import
   is resolved against the file's location *before* the move, mapped to the new module and
   re-related to the file's location *after* the move (an import whose names now live in two
   packages is split in two).
3. ``git mv`` of each planned module, and ``__init__.py`` for each new subpackage.
4. Rewrites every dotted or path mention in text files (``cgm_metrics.frontends.cli`` ->
   ``cgm_metrics.frontends.cli``, ``src/cgm_metrics/frontends/cli.py`` -> ``src/cgm_metrics/frontends/
   cli.py``): docs, mock strings, ``-m`` commands, setup.cfg's entry points, mkdocs.yml,
   ARCHITECTURE.md's layer map, MANIFEST.in...
5. Fixes the package-root paths of moved modules that compute it from ``__file__`` (a
   variable named ``*PACKAGE*``: native.py's ``PACKAGE``, loading.py's ``_PACKAGE_DIR``), now
   one directory deeper.
6. Adds the table of moves to CHANGELOG.md (once).
7. Sorts the imports it touched (``ruff check --select I --fix``) unless --no-ruff.

At the end it prints what it could not rewrite: relative imports in strings
(``importlib.import_module(".x", __name__)``), ``__file__`` uses it did not recognise, string
literals naming a moved file or folder alone ("cli.py", "commands"), parse errors.
"""

from __future__ import annotations

import argparse
import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

PACKAGE = "cgm_metrics"
#: top-level module or package of cgm_metrics -> the subpackage it moves into
TARGETS = {
    # the ground: imported by every layer, importing nothing of the package above it
    "errors": "base", "plugins": "base", "native": "base", "loading": "base",
    "formatting": "base", "io": "base",
    # the machinery that runs metrics on corpora
    "metric": "pipeline", "registry": "pipeline", "runner": "pipeline",
    "distributed": "pipeline", "evaluation": "pipeline",
    # the front ends
    "cli": "frontends", "commands": "frontends", "space": "frontends", "hub": "frontends",
    "service": "frontends",
    # (``rewards`` stays at the top: ``cgm_metrics.rewards`` is the path training loops import)
}
DOCSTRINGS = {
    "base": "The ground of the package: errors, plugins (entry points), the compiled library, "
            "loading, formatting and file input/output. It imports nothing of the layers above.",
    "pipeline": "The machinery that runs metrics on corpora: the Metric contract, the "
                "registry, the per-item runner, Ray, and the one pipeline (evaluation).",
    "frontends": "The front ends, display only: the cgm command (cli, commands/), the Space "
                 "(space/) and the evaluate modules' glue (hub).",
}
#: top-level entries that stay where they are (not reported as unplanned)
STAYS = {"__init__", "__main__", "languages", "core", "maths", "significance", "agreement",
         "execution", "data", "_native", *DOCSTRINGS}
TEXT_SUFFIXES = {".py", ".md", ".cfg", ".toml", ".yml", ".yaml", ".txt", ".in", ".sh", ".ini",
                 ".rst", ".c", ".h", ".pyi"}
LINE_LENGTH = 100


class Report:
    def __init__(self) -> None:
        self.done: list[str] = []
        self.unresolved: list[str] = []

    def did(self, text: str) -> None:
        self.done.append(text)

    def cannot(self, text: str) -> None:
        self.unresolved.append(text)


def run(cmd: list[str], cwd: Path, dry: bool) -> None:
    if dry:
        print("would run:", " ".join(cmd))
        return
    subprocess.run(cmd, cwd=cwd, check=True)


def work_tree_files(repo: Path) -> list[Path]:
    out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=repo,
                         check=True, capture_output=True).stdout.decode()
    return [repo / name for name in out.split("\0") if name and (repo / name).is_file()]


# ------------------------------------------------------------------------------ the plan


def plan(src: Path, report: Report) -> dict[str, str]:
    """old top-level name -> new subpackage, for the entries still at the top level."""
    moves = {}
    for entry in sorted(src.iterdir()):
        name = entry.stem if entry.suffix == ".py" else entry.name
        if entry.name.startswith(".") or entry.name == "__pycache__":
            continue
        if entry.is_file() and entry.suffix != ".py":
            continue
        if entry.is_dir() and not (entry / "__init__.py").exists() and name not in STAYS:
            continue
        if name in TARGETS:
            moves[name] = TARGETS[name]
        elif name not in STAYS:
            report.cannot(f"src/{PACKAGE}/{entry.name}: a top-level module in no layer package "
                          "(add it to TARGETS or STAYS and re-run)")
    for name, package in TARGETS.items():
        there = (src / package / f"{name}.py").exists() or (src / package / name).is_dir()
        if name not in moves and there:
            report.did(f"{name}: already in {package}/")
        elif name not in moves:
            report.cannot(f"{name}: planned for {package}/ but found nowhere")
    return moves


def new_module(module: str, moved: dict[str, str]) -> str:
    """The name after the move of a module named before it (or already after it)."""
    parts = module.split(".")
    if len(parts) >= 2 and parts[0] == PACKAGE and parts[1] in moved:
        return ".".join([PACKAGE, moved[parts[1]], *parts[1:]])
    return module


def module_of(path: Path, src_root: Path) -> tuple[str, bool] | None:
    """(module name, is a package's __init__) of a file under src/, else None."""
    try:
        relative = path.relative_to(src_root)
    except ValueError:
        return None
    parts = list(relative.with_suffix("").parts)
    if not parts or parts[0] != PACKAGE:
        return None
    if parts[-1] == "__init__":
        return ".".join(parts[:-1]), True
    return ".".join(parts), False


# ------------------------------------------------------------------------- Python imports


def known_modules(src_root: Path) -> set[str]:
    found = set()
    for path in (src_root / PACKAGE).rglob("*.py"):
        name, _ = module_of(path, src_root)  # type: ignore[misc]
        found.add(name)
    return found


def relate(target: str, package: str) -> str:
    """``target`` (absolute) as a relative module seen from ``package``."""
    here = package.split(".")
    there = target.split(".")
    common = 0
    while common < min(len(here), len(there)) and here[common] == there[common]:
        common += 1
    dots = "." * (len(here) - common + 1)
    return dots + ".".join(there[common:])


def format_import(source: str, names: list[str], indent: str, tail: str) -> str:
    line = f"{indent}from {source} import {', '.join(names)}{tail}"
    if len(line) <= LINE_LENGTH:
        return line
    inner = "".join(f"{indent}    {name},\n" for name in names)
    return f"{indent}from {source} import ({tail}\n{inner}{indent})"


def rewrite_imports(path: Path, src_root: Path, moved: dict[str, str], modules: set[str],
                    report: Report) -> str | None:
    """The new text of ``path`` with its imports of moved modules rewritten, or None."""
    text = path.read_text(encoding="utf-8")
    try:
        tree = ast.parse(text)
    except SyntaxError as error:
        report.cannot(f"{path}: not parsed ({error.msg}, line {error.lineno}); imports unchanged")
        return None
    located = module_of(path, src_root)
    if located is not None:
        old_name, is_package = located
        old_package = old_name if is_package else old_name.rpartition(".")[0]
        new_name = new_module(old_name, moved)
        new_package = new_name if is_package else new_name.rpartition(".")[0]
    lines = text.splitlines(keepends=True)
    edits = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            if located is None:
                report.cannot(f"{path}:{node.lineno}: a relative import outside src/")
                continue
            base = old_package.split(".")
            if node.level - 1 > len(base):
                report.cannot(f"{path}:{node.lineno}: a relative import beyond the package")
                continue
            base = base[:len(base) - node.level + 1]
            source = ".".join([*base, *([node.module] if node.module else [])])
        else:
            source = node.module or ""
        if source != PACKAGE and not source.startswith(PACKAGE + "."):
            continue
        groups: dict[str, list[str]] = {}
        for alias in node.names:
            full = f"{source}.{alias.name}"
            spelled = alias.name + (f" as {alias.asname}" if alias.asname else "")
            if full in modules:  # a module imported by name: its own new parent
                parent = new_module(full, moved).rpartition(".")[0]
            else:
                parent = new_module(source, moved)
            groups.setdefault(parent, []).append(spelled)
        if node.level:
            same_place = (new_package == old_package and list(groups) == [source])
            if same_place:
                continue
            rendered = [(relate(parent, new_package), names) for parent, names in groups.items()]
            original = "." * node.level + (node.module or "")
            if len(rendered) == 1 and rendered[0][0] == original:
                continue
        else:
            if list(groups) == [source]:
                continue
            rendered = list(groups.items())
        first, last = node.lineno - 1, (node.end_lineno or node.lineno) - 1
        indent = lines[first][:node.col_offset]
        tail_text = lines[last][node.end_col_offset:].rstrip("\n")
        tail = tail_text if tail_text.strip().startswith("#") else ""
        if tail_text.strip() and not tail:
            report.cannot(f"{path}:{node.lineno}: code after the import on its line; left as is")
            continue
        between = "".join(lines[first:last + 1])
        if "#" in between[node.col_offset:len(between) - len(lines[last]) + node.end_col_offset]:
            report.cannot(f"{path}:{node.lineno}: a comment inside the import was dropped")
        new = "\n".join(format_import(source_text, names, indent, tail if k == 0 else "")
                        for k, (source_text, names) in enumerate(rendered)) + "\n"
        edits.append((first, last, new))
    if not edits:
        return None
    for first, last, new in sorted(edits, reverse=True):
        lines[first:last + 1] = [new]
    return "".join(lines)


# ------------------------------------------------------------------------ text mentions


def mention_patterns(moved: dict[str, str]) -> list[tuple[re.Pattern[str], str]]:
    names = "|".join(sorted(moved, key=len, reverse=True))
    return [
        # cgm_metrics.frontends.cli, cgm_metrics.frontends.commands.score, "cgm_metrics.frontends.cli:main"
        (re.compile(rf"(?<![\w.]){PACKAGE}\.({names})\b(?!\.py\b)"), "dotted"),
        # src/cgm_metrics/frontends/cli.py, cgm_metrics/frontends/commands/ (paths in docs, setup.py, tests)
        (re.compile(rf"(?<![\w.]){PACKAGE}/({names})(?=\.py\b|/|\b)"), "path"),
    ]


FROM_TOP = re.compile(rf"\bfrom {PACKAGE} import ([\w ,]+?)(?=\s*(?:#|$|\\n|[\"']))", re.M)


def rewrite_mentions(text: str, moved: dict[str, str], report: Report | None = None,
                     where: str = "") -> str:
    def from_top(match: re.Match[str]) -> str:
        names = [name.strip() for name in match.group(1).split(",") if name.strip()]
        homes = {moved.get(name.split()[0]) for name in names}
        if homes == {None}:
            return match.group(0)
        if len(homes) == 1:
            return f"from {PACKAGE}.{homes.pop()} import {match.group(1)}"
        if report is not None:
            report.cannot(f"{where}: {match.group(0)!r} (in a string or a document) names "
                          "modules of different packages: split it by hand")
        return match.group(0)

    text = FROM_TOP.sub(from_top, text)
    for pattern, kind in mention_patterns(moved):
        sep = "." if kind == "dotted" else "/"
        text = pattern.sub(lambda m, s=sep: f"{PACKAGE}{s}{moved[m.group(1)]}{s}{m.group(1)}",
                           text)
    return text


def changelog_entry(moved: dict[str, str]) -> str:
    rows = "\n".join(
        f"| `{PACKAGE}.{name}` | `{PACKAGE}.{package}.{name}` |" for name, package in moved.items())
    return (
        "### Moved: the top level shows the layers\n\n"
        "The flat modules of the top level moved into subpackages: `base/` (the ground),\n"
        "`pipeline/` (the machinery that runs metrics on corpora), `frontends/` (the cgm\n"
        "command, the Space, the evaluate glue). `python -m cgm_metrics` and the `cgm` command\n"
        "are unchanged.\n\n"
        "| Before | Now |\n|---|---|\n" + rows + "\n\n")


# ------------------------------------------------------------------ ARCHITECTURE.md


TOP_LEVEL_PROSE = re.compile(
    r"The package's top level \(`src/cgm_metrics/`\) shows the layers:.*?\n\n", re.S)
NEW_PROSE = """\
The package's top level (`src/cgm_metrics/`) shows the layers, one folder each: `base/` (the
ground: `errors`, `plugins`, `native`, `loading`, `formatting`, `io`), `languages/`, `core/`
(parsing), `maths/` (every metric's mathematics), `pipeline/` (the machinery that runs metrics
on corpora: the contract `metric`, `registry`, `runner`, `distributed`, `evaluation`), the
engines (`significance/`, `agreement/`, `execution/`), and `frontends/` (`cli` + `commands/`,
`space/`, and the evaluate glue `hub`; the modules themselves are the `metrics/` folders of the
repository). `pipeline/` holds more than one layer (the map below): the contract sits under
the maths, the runner under the engines, the evaluation over them.

"""


def update_architecture(repo: Path, moves_all: dict[str, str], report: Report, dry: bool) -> None:
    """The prose of the top level, and the layer map: a layer holding every module of a new
    subpackage names the subpackage."""
    path = repo / "ARCHITECTURE.md"
    if not path.exists():
        report.cannot("ARCHITECTURE.md: none")
        return
    text = path.read_text(encoding="utf-8")
    new = text
    if NEW_PROSE not in new:
        if TOP_LEVEL_PROSE.search(new):
            new = TOP_LEVEL_PROSE.sub(lambda m: NEW_PROSE, new, count=1)
        else:
            report.cannot("ARCHITECTURE.md: the paragraph on the top level was not found; "
                          "describe base/, pipeline/ and frontends/ there by hand")
    block = re.search(r"^```layers\n(.*?)^```", new, re.M | re.S)
    if block is None:
        report.cannot("ARCHITECTURE.md: no ```layers block (the layer map)")
    else:
        lines = block.group(1).splitlines()
        for package in sorted(set(moves_all.values())):
            members = {f"{PACKAGE}.{package}.{name}" for name, home in moves_all.items()
                       if home == package}
            for index, line in enumerate(lines):
                layer, _, entries = line.partition(":")
                listed = entries.split()
                if members and members <= set(listed):
                    kept = [e for e in listed if e not in members]
                    first = min(listed.index(m) for m in members)
                    kept.insert(first, f"{PACKAGE}.{package}")
                    lines[index] = f"{layer}: {' '.join(kept)}"
        rebuilt = "\n".join(lines) + "\n"
        new = new[:block.start(1)] + rebuilt + new[block.end(1):]
    if new != text:
        report.did("ARCHITECTURE.md: the top level and the layer map")
        if not dry:
            path.write_text(new, encoding="utf-8")


# ---------------------------------------------------------------------------- checks


def leftovers(repo: Path, src: Path, files: list[Path], moved_all: set[str],
              report: Report) -> None:
    """What the rewrites cannot see: reported for a person to check."""
    names = sorted(moved_all)
    # "cli.py", "commands/": a file or folder of the package named alone (a path built in parts)
    bare = re.compile(r"""["']({})(\.py|/)["']""".format("|".join(names)))
    relative_string = re.compile(r"""import_module\(\s*f?["']\.+({})\b""".format("|".join(names)))
    for path in files:
        if path.suffix != ".py":
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            where = f"{path.relative_to(repo)}:{number}"
            if relative_string.search(line):
                report.cannot(f"{where}: a relative import in a string: {line.strip()}")
            if bare.search(line):
                report.cannot(f"{where}: a string naming a moved module alone: {line.strip()}")
        if src in path.parents and "__file__" in text and module_of(path, src.parent):
            name, _ = module_of(path, src.parent)  # type: ignore[misc]
            if name.split(".")[1:2] and name.split(".")[1] in set(TARGETS.values()):
                for number, line in enumerate(text.splitlines(), 1):
                    if "__file__" in line and "PACKAGE" not in line:
                        report.cannot(f"{path.relative_to(repo)}:{number}: a path from "
                                      f"__file__ in a moved module (one level deeper now): "
                                      f"{line.strip()}")


def fix_package_paths(src: Path, moves: dict[str, str], report: Report, dry: bool) -> None:
    """``X_PACKAGE... = <dir of __file__>`` in a moved module: one directory up now."""
    forms = [
        (re.compile(r"^(\w*PACKAGE\w*\s*(?::[^=]+)?=\s*)os\.path\.dirname\(os\.path\.abspath\("
                    r"__file__\)\)\s*$", re.M),
         r"\1os.path.dirname(os.path.dirname(os.path.abspath(__file__)))"),
        (re.compile(r"^(\w*PACKAGE\w*\s*(?::[^=]+)?=\s*)Path\(__file__\)\.resolve\(\)\.parent\s*$",
                    re.M),
         r"\1Path(__file__).resolve().parents[1]"),
    ]
    for name, package in moves.items():
        for path in [src / package / f"{name}.py"]:
            if not path.exists():
                continue
            text = path.read_text(encoding="utf-8")
            new = text
            for pattern, replacement in forms:
                new = pattern.sub(replacement, new)
            if new != text:
                report.did(f"{path.relative_to(src.parent.parent)}: the package root is one "
                           "directory up")
                if not dry:
                    path.write_text(new, encoding="utf-8")


# ------------------------------------------------------------------------------ main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repo", nargs="?", default=".")
    parser.add_argument("--dry-run", action="store_true")
    parser.add_argument("--no-ruff", action="store_true")
    args = parser.parse_args(argv)
    repo = Path(args.repo).resolve()
    src_root = repo / "src"
    src = src_root / PACKAGE
    if not (src / "__init__.py").exists():
        print(f"{repo}: no src/{PACKAGE}/__init__.py: not a cgm-metrics work tree", file=sys.stderr)
        return 2
    report = Report()
    moves = plan(src, report)
    moved_all = {**TARGETS}  # mentions of every planned name, moved now or on an earlier run
    modules = known_modules(src_root)
    files = work_tree_files(repo)
    touched: list[Path] = []

    # 2. imports, against the locations before the move
    for path in files:
        if path.suffix != ".py":
            continue
        new = rewrite_imports(path, src_root, moves, modules, report)
        if new is not None:
            touched.append(path)
            report.did(f"{path.relative_to(repo)}: imports")
            if not args.dry_run:
                path.write_text(new, encoding="utf-8")

    # 3. the moves
    for package in sorted(set(moves.values())):
        init = src / package / "__init__.py"
        if not init.exists():
            report.did(f"src/{PACKAGE}/{package}/__init__.py: created")
            if not args.dry_run:
                init.parent.mkdir(exist_ok=True)
                init.write_text(f'"""{DOCSTRINGS[package]}"""\n', encoding="utf-8")
                run(["git", "add", str(init.relative_to(repo))], repo, args.dry_run)
    for name, package in moves.items():
        old = src / (name if (src / name).is_dir() else f"{name}.py")
        new = src / package / old.name
        run(["git", "mv", str(old.relative_to(repo)), str(new.relative_to(repo))], repo,
            args.dry_run)
        report.did(f"git mv {old.relative_to(repo)} {new.relative_to(repo)}")
        cache = src / "__pycache__"
        if cache.is_dir() and not args.dry_run:
            shutil.rmtree(cache, ignore_errors=True)
    files = work_tree_files(repo) if not args.dry_run else files

    # 4. dotted and path mentions everywhere
    for path in files:
        if path.suffix not in TEXT_SUFFIXES and path.name not in ("MANIFEST.in",):
            continue
        if path.name == "CHANGELOG.md":  # history: what a name was keeps its old spelling
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        new = rewrite_mentions(text, moved_all, report, str(path.relative_to(repo)))
        if new != text:
            touched.append(path)
            report.did(f"{path.relative_to(repo)}: dotted and path mentions")
            if not args.dry_run:
                path.write_text(new, encoding="utf-8")

    update_architecture(repo, moved_all, report, args.dry_run)

    # 5. package-root paths of the moved modules
    fix_package_paths(src, moves, report, args.dry_run)

    # 6. the changelog
    changelog = repo / "CHANGELOG.md"
    marker = "### Moved: the top level shows the layers"
    if moves and changelog.exists() and marker not in changelog.read_text(encoding="utf-8"):
        text = changelog.read_text(encoding="utf-8")
        anchor = re.search(r"^### ", text, re.M)
        entry = changelog_entry(moves)
        text = text[:anchor.start()] + entry + text[anchor.start():] if anchor else text + entry
        report.did("CHANGELOG.md: the table of moves")
        if not args.dry_run:
            changelog.write_text(text, encoding="utf-8")
    elif moves and not changelog.exists():
        report.cannot("CHANGELOG.md: none; the moves are not recorded there")

    # 7. import order of the files touched
    def after_move(path: Path) -> Path:
        try:
            parts = path.relative_to(src).parts
        except ValueError:
            return path
        stem = parts[0][:-3] if parts[0].endswith(".py") else parts[0]
        return src / moves[stem] / Path(*parts) if stem in moves else path

    python_touched = sorted({str(after_move(p).relative_to(repo)) for p in touched
                             if p.suffix == ".py" and after_move(p).exists()})
    if python_touched and not args.no_ruff and not args.dry_run:
        ruff = subprocess.run([sys.executable, "-m", "ruff", "check", "--select", "I", "--fix",
                               "--quiet", *python_touched], cwd=repo, capture_output=True,
                              text=True)
        if ruff.returncode != 0 or ruff.stderr.strip():
            report.cannot("ruff did not sort the imports: " + ruff.stderr.strip()[:200])

    leftovers(repo, src, [p for p in work_tree_files(repo) if p.exists()] if not args.dry_run
              else files, set(moved_all), report)
    print(f"{len(moves)} module(s) moved, {len(set(touched))} file(s) rewritten"
          + (" (dry run)" if args.dry_run else ""))
    for line in report.done:
        print("  done:", line)
    if report.unresolved:
        print(f"\nNOT rewritten ({len(report.unresolved)}), to check by hand:")
        for line in report.unresolved:
            print("  -", line)
    else:
        print("\nnothing left to check by hand")
    return 0


if __name__ == "__main__":
    sys.exit(main())
