"""A language lives in one module: no source file outside ``cgm_metrics/languages/`` names one.

The scan reads every Python source of the package, the evaluate modules and the Space, and
flags each string (not a docstring) that is a built-in language's name, display name, alias or
MultiPL-E key, as data (``lang="python"``, a table row) or a branch (``language == "java"``).
The defaults are ``languages.DEFAULT_LANGUAGE``; the rules the engines share are named after
what they do (``branch_style="elif_chain"``), and each language's module chooses them.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from cgm_metrics import languages

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "cgm_metrics"

#: (path relative to the repository, string): each a word that is no language's data there
ALLOWED = {
    # the RUBY metric's name (the metric of Tran et al.), which the language Ruby shares
    ("src/cgm_metrics/pipeline/registry.py", "ruby"),
    ("src/cgm_metrics/maths/ruby/__init__.py", "ruby"),
    ("metrics/paired_significance/app.py", "ruby"),
    # the host's own interpreter (its version in a run's record; the sandbox's step that runs
    # a program in it), not a language's data
    ("src/cgm_metrics/execution/environment.py", "python"),
    ("src/cgm_metrics/execution/calibration.py", "python"),
    ("src/cgm_metrics/execution/sandbox.py", "python"),
    ("src/cgm_metrics/execution/_sandbox_child.py", "python"),
    # CodeBLEU's engines: "compiled" and the pure-"python" one
    ("src/cgm_metrics/maths/codebleu/statistics.py", "python"),
}
#: open()'s binary read mode, which spells Ruby's file extension
EVERYWHERE = {"rb"}


def _names() -> dict[str, str]:
    found = {}
    for language in languages.builtin().values():
        for name in (language.display_name, *language.names):
            found[name.strip().lower()] = language.name
    return found


def _sources() -> list[Path]:
    files = [*PACKAGE.rglob("*.py"), *ROOT.glob("metrics/*/*.py"), *ROOT.glob("spaces/*.py")]
    return sorted(p for p in files if (PACKAGE / "languages") not in p.parents)


def _strings(tree: ast.AST) -> list[ast.Constant]:
    documentation = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                documentation.add(id(first.value))
    return [node for node in ast.walk(tree) if isinstance(node, ast.Constant)
            and isinstance(node.value, str) and id(node) not in documentation]


def test_the_scan_reads_every_source_and_knows_every_language():
    names = _names()
    assert {"python", "java", "c", "c++", "perl", "c_sharp", "typescript"} <= set(names)
    sources = _sources()
    relative = {str(p.relative_to(ROOT)) for p in sources}
    assert "src/cgm_metrics/execution/extract.py" in relative
    assert "src/cgm_metrics/maths/codebleu/tables.py" in relative
    assert "spaces/app.py" in relative and "metrics/codebleu/codebleu.py" in relative
    assert not any("/languages/" in path for path in relative)
    # the scan finds a name where there is one
    found = [c.value for c in _strings(ast.parse('"""Doc: python."""\nx = {"lang": "Java"}'))]
    assert found == ["lang", "Java"] and "java" in names


@pytest.mark.parametrize("path", _sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_source_outside_the_language_modules_names_a_language(path):
    names = _names()
    where = str(path.relative_to(ROOT))
    named = [
        f"{where}:{node.lineno}: {node.value!r} ({names[node.value.strip().lower()]})"
        for node in _strings(ast.parse(path.read_text(encoding="utf-8")))
        if node.value.strip().lower() in names
        and node.value.strip().lower() not in EVERYWHERE
        and (where, node.value.strip().lower()) not in ALLOWED
    ]
    assert not named, (
        "a language's data belongs in its module (cgm_metrics/languages/<name>.py); defaults "
        "are languages.DEFAULT_LANGUAGE:\n" + "\n".join(named)
    )


def test_the_allowed_words_are_still_there():
    """Each allowed word is used where it is allowed (an entry that no longer applies goes)."""
    for where, word in ALLOWED:
        tree = ast.parse((ROOT / where).read_text(encoding="utf-8"))
        assert any(node.value.strip().lower() == word for node in _strings(tree)), (where, word)
