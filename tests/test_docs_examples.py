"""Every Python and shell example of README.md and docs/ runs, so an example that breaks fails
the suite.

A page's fenced ```python and ```bash blocks run in page order, in one child process whose
working directory is a fresh temporary folder holding ``tests/data`` (a link to the
repository's): Python blocks share one namespace, shell blocks run with ``bash -e -o pipefail``
in the same folder, so one block can use the files another wrote. A block preceded by an HTML
comment ``<!-- example: skip, REASON -->`` is not run; the reason is required (a network, the
Hub, a long run, a command run elsewhere).

Output comments are checked: a top-level expression followed by a comment holding a Python
literal (``# {'score': 92.128...}``) must evaluate to it. ``...`` stands for any value, for
the remaining items of a list (at its end), for the other keys of a dict (``{'a': 1, ...}``)
or for any text inside a string; floats compare to a relative 1e-9. A comment that is not a
literal is read as prose; a set literal (``# {"score", "per_item"}``) names the keys of the
result (``...`` in it: at least those).
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

# one worker runs every page (scripts/test.sh distributes with --dist loadgroup): the examples
# share one child process, started once
pytestmark = pytest.mark.xdist_group("docs_examples")

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
RUN = ("python", "bash")
SKIP = re.compile(r"<!--\s*example:\s*skip\b(.*?)-->", re.S)


@dataclass
class Block:
    page: str
    line: int  # of the first line of code (1-based)
    lang: str
    code: str
    skip: str | None  # the reason, when marked


def blocks_of(path: Path) -> list[Block]:
    """The fenced blocks of a page, with their language and skip marker."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found, i = [], 0
    while i < len(lines):
        opening = re.match(r"^```(\S*)\s*$", lines[i])
        if not opening:
            i += 1
            continue
        start = i + 1
        end = start
        while end < len(lines) and lines[end].rstrip() != "```":
            end += 1
        if end == len(lines):
            raise AssertionError(f"{path.name}:{i + 1}: a fenced block that is never closed")
        before = i - 1
        while before >= 0 and not lines[before].strip():
            before -= 1
        marker = SKIP.search(lines[before]) if before >= 0 else None
        skip = None
        if marker:
            skip = marker.group(1).strip(" ,:")
            assert skip, f"{path.name}:{i + 1}: a skipped example must say why"
        found.append(Block(str(path.relative_to(ROOT)), start + 1, opening.group(1),
                           "\n".join(lines[start:end]) + "\n", skip))
        i = end + 1
    return found


# --- output comments --------------------------------------------------------------------------


def expected_literal(comment: str):
    """The Python literal a comment shows, or None when it is prose."""
    text = comment.strip()
    if not text or text[0] not in "{[('\"-0123456789":
        return None
    text = re.sub(r",\s*\.\.\.\s*}", ", '...': ...}", text)  # {'a': 1, ...}: other keys
    try:
        return ("value", ast.literal_eval(text))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def output_checks(code: str) -> dict[int, tuple[str, str]]:
    """Per top-level expression statement (by its first line in the block) the literal its
    output comment shows: {line: (expression source, literal source)}."""
    tree = ast.parse(code)
    lines = code.splitlines()
    checks = {}
    for statement in tree.body:
        if not isinstance(statement, ast.Expr) or isinstance(statement.value, ast.Call) and \
                isinstance(statement.value.func, ast.Name) and statement.value.func.id == "print":
            continue
        end = statement.end_lineno - 1
        trailing = lines[end][statement.end_col_offset:].strip()
        parts = []
        if trailing.startswith("#"):
            parts.append(trailing[1:])
        elif trailing:
            continue
        following = end + 1
        while following < len(lines) and lines[following].lstrip().startswith("#") and (
                parts or following == end + 1):
            # a comment block under the statement, as long as it is indented like a
            # continuation of the first comment line or starts one
            parts.append(lines[following].lstrip()[1:])
            following += 1
        comment = " ".join(part.strip() for part in parts)
        if expected_literal(comment) is not None:
            checks[statement.lineno] = (ast.get_source_segment(code, statement), comment)
    return checks


def _child_program() -> str:
    """The program the child process runs: the page's blocks in order, checking outputs."""
    return r'''
import ast, json, math, os, re, subprocess, sys, time, traceback

def literal(comment):
    text = re.sub(r",\s*\.\.\.\s*}", ", '...': ...}", comment.strip())
    return ast.literal_eval(text)

def same(actual, expected, where):
    if expected is Ellipsis:
        return
    if hasattr(actual, "tolist") and not isinstance(actual, (str, bytes)):
        actual = actual.tolist()
    if isinstance(expected, (set, frozenset)):  # the keys of a dict: {"score", "per_item"}
        keys = set(actual) if isinstance(actual, (dict, set, frozenset)) else None
        assert keys is not None, f"{where}: {actual!r} has no keys"
        named = expected - {Ellipsis}
        assert named <= keys if Ellipsis in expected else named == keys, (
            f"{where}: keys {sorted(map(str, keys))} != {sorted(map(str, named))}")
    elif isinstance(expected, dict):
        assert isinstance(actual, dict), f"{where}: {actual!r} is not a dict"
        keys = [key for key in expected if key != "..."]
        if "..." not in expected:
            assert sorted(map(str, actual)) == sorted(map(str, keys)), (
                f"{where}: keys {sorted(actual)} != {sorted(keys)}")
        for key in keys:
            assert key in actual, f"{where}: no key {key!r} in {sorted(actual)}"
            same(actual[key], expected[key], f"{where}[{key!r}]")
    elif isinstance(expected, (list, tuple)):
        assert isinstance(actual, (list, tuple)), f"{where}: {actual!r} is not a sequence"
        if expected and expected[-1] is Ellipsis:
            head = expected[:-1]
            assert len(actual) >= len(head), f"{where}: {actual!r} shorter than {expected!r}"
            actual = actual[:len(head)]
            expected = head
        assert len(actual) == len(expected), f"{where}: {actual!r} != {expected!r}"
        for i, (a, e) in enumerate(zip(actual, expected)):
            same(a, e, f"{where}[{i}]")
    elif isinstance(expected, str):
        assert isinstance(actual, str), f"{where}: {actual!r} is not a string"
        position = 0
        for fragment in expected.split("..."):
            found = actual.find(fragment, position)
            assert found >= 0, f"{where}: {actual!r} does not read {expected!r}"
            position = found + len(fragment)
        if "..." not in expected:
            assert actual == expected, f"{where}: {actual!r} != {expected!r}"
    elif isinstance(expected, bool) or expected is None:
        assert actual == expected, f"{where}: {actual!r} != {expected!r}"
    elif isinstance(expected, (int, float)):
        assert isinstance(actual, (int, float)) and math.isclose(
            actual, expected, rel_tol=1e-9, abs_tol=1e-12), f"{where}: {actual!r} != {expected!r}"
    else:
        assert actual == expected, f"{where}: {actual!r} != {expected!r}"

def run_page(page, blocks):
    namespace = {"__name__": "__main__"}
    checked = 0
    started = time.perf_counter()
    for block in blocks:
        where = f"{block['page']}:{block['line']}"
        print(f"--- {where} ({block['lang']}, {time.perf_counter() - started:.1f} s)", flush=True)
        if block["lang"] == "bash":
            done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", block["code"]],
                                  stdin=subprocess.DEVNULL)
            if done.returncode:
                raise AssertionError(f"{where}: the shell block exited with {done.returncode}")
            continue
        tree = ast.parse(block["code"])
        checks = {int(k): v for k, v in block["checks"].items()}
        for statement in tree.body:
            line = statement.lineno
            ast.increment_lineno(statement, block["line"] - 1)
            if line in checks:
                code = compile(ast.Expression(statement.value), block["page"], "eval")
                value = eval(code, namespace)
                same(value, literal(checks[line][1]), f"{block['page']}:{statement.lineno}")
                checked += 1
            else:
                exec(compile(ast.Module([statement], []), block["page"], "exec"), namespace)
        sys.stdout.flush()
    print(f"--- end ({time.perf_counter() - started:.1f} s)", flush=True)
    return checked

# every page in this one process (imports such as evaluate's are paid once), each in a
# namespace and a working folder of its own
pages = json.load(sys.stdin)
for page in pages:
    os.chdir(page["folder"])
    print(f"=== {page['page']}", flush=True)
    try:
        outcome = {"checked": run_page(page["page"], page["blocks"])}
    except BaseException:
        outcome = {"error": traceback.format_exc()}
    sys.stdout.flush()
    sys.stderr.flush()
    with open(os.path.join(page["folder"], ".outcome.json"), "w") as out:
        json.dump(outcome, out)
'''


def runnable(path: Path) -> list[Block]:
    return [block for block in blocks_of(path) if block.lang in RUN and block.skip is None]


@pytest.fixture(scope="module")
def page_runs(tmp_path_factory):
    """Runs the examples of every page (one child process) and gives, per page, its outcome
    ({"checked": n} or {"error": traceback}), the number of output checks it holds and the
    child's output."""
    payload, expected = [], {}
    for page in PAGES:
        name = str(page.relative_to(ROOT))
        blocks = runnable(page)
        if not blocks:
            continue
        folder = tmp_path_factory.mktemp("docs-example")
        (folder / "tests").mkdir()
        (folder / "tests" / "data").symlink_to(ROOT / "tests" / "data")
        entries = []
        expected[name] = 0
        for block in blocks:
            checks = output_checks(block.code) if block.lang == "python" else {}
            expected[name] += len(checks)
            entries.append({"page": block.page, "line": block.line, "lang": block.lang,
                            "code": block.code, "checks": checks})
        payload.append({"page": name, "folder": str(folder), "blocks": entries})
    env = dict(os.environ, HF_EVALUATE_OFFLINE="1", MPLBACKEND="Agg", PYTHONHASHSEED="0",
               CGM_CACHE_DIR=str(tmp_path_factory.mktemp("cgm-cache")))  # not the user's cache
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    done = subprocess.run([sys.executable, "-c", _child_program()], input=json.dumps(payload),
                          capture_output=True, text=True, env=env, timeout=600)
    print(done.stdout)  # each block with its start time (pytest -s shows them)
    outcomes = {}
    for entry in payload:
        path = Path(entry["folder"]) / ".outcome.json"
        outcomes[entry["page"]] = json.loads(path.read_text()) if path.exists() else {
            "error": f"the child process ended before this page (exit {done.returncode}):\n"
                     f"{done.stderr[-5000:]}"}
    return outcomes, expected, done


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_the_examples_of_a_page_run(page, page_runs):
    outcomes, expected, done = page_runs
    name = str(page.relative_to(ROOT))
    if name not in outcomes:
        return  # nothing to run on this page (its blocks are text, tables or marked skips)
    outcome = outcomes[name]
    assert "error" not in outcome, f"{name}:\n{outcome['error']}\n{done.stderr[-3000:]}"
    assert outcome["checked"] == expected[name]


def test_skipped_examples_say_why_and_the_rest_is_most():
    """A skip marker names its reason; most examples run."""
    every = [block for page in PAGES for block in blocks_of(page) if block.lang in RUN]
    skipped = [block for block in every if block.skip is not None]
    assert all(block.skip for block in skipped)
    assert len(every) - len(skipped) > 2 * len(skipped), [
        f"{b.page}:{b.line} {b.skip}" for b in skipped]


def test_output_comments_are_read_as_literals_or_prose():
    code = ("x = {'a': 1.0, 'b': [1, 2]}\n"
            "x  # {'a': 1.0, ...}\n"
            "x['b']\n# [1, ...]\n"
            "x  # {'a', 'b'} are its keys\n"
            "len(x)\n")
    assert sorted(output_checks(code)) == [2, 3]
    assert expected_literal("{'score': ..., 'per_item': [...]}") is not None
    assert expected_literal('{"score", "per_item"}') is not None  # a set of keys: checked
    assert expected_literal("the keys of the result") is None


def test_links_of_the_readme_and_the_cards_resolve():
    """README.md and the metric cards link into docs/ by relative paths (mkdocs build --strict
    checks the links inside docs/): each target exists, with its anchor where one is named."""
    pages = [ROOT / "README.md", *sorted((ROOT / "metrics").glob("*/README.md"))]
    checked = 0
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(((?![a-z]+:)[^)#\s]+)(?:#[^)\s]*)?\)", text):
            assert (page.parent / target).exists(), f"{page.relative_to(ROOT)} links to {target}"
            checked += 1
    assert checked > 20
    for card in sorted((ROOT / "metrics").glob("*/README.md")):
        assert "../../docs/" in card.read_text(encoding="utf-8"), card
