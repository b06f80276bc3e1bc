"""Every number of languages the documentation states is computed: from the registry of the
languages (``cgm_metrics.languages``: the languages that parse, run, have a CodeBLEU part...),
or, for a fact of another project or of a benchmark's data, from that data.

The scan reads the README, ARCHITECTURE.md, docs/, every metric card (``metrics/*/README.md``)
and module (its description strings), and the Space's pages; each "N languages" (digits or a
number word) must be one of :data:`CLAIMS`, whose number is checked against what it counts.
A new mention fails until it is added there with what it counts.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from cgm_metrics import languages

ROOT = Path(__file__).resolve().parents[1]

WORDS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
         "fifteen sixteen seventeen eighteen nineteen twenty twenty-one twenty-two").split()
NUMBER = r"(?P<n>\d+|" + "|".join(sorted(WORDS, key=len, reverse=True)) + r")"
#: "12 languages", "the twelve languages", "eleven other languages", "(19 languages)"
MENTION = re.compile(r"\b" + NUMBER + r"(?:[\s-]+[a-z-]+)?\s+languages\b", re.IGNORECASE)


def _value(text: str) -> int:
    return int(text) if text.isdigit() else WORDS.index(text.lower())


def _tuple_in(path: str, name: str) -> tuple[str, ...]:
    """A module-level tuple of strings of a script, read without running it."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(target, ast.Name) and target.id == name for target in node.targets):
            value = ast.literal_eval(node.value)
            assert isinstance(value, tuple)
            return value
    raise AssertionError(f"{path} defines no {name}")


def _count(source: str) -> int:
    """The number a claim states, computed."""
    if source.startswith("part:"):  # the built-in languages with a part
        return len(languages.builtin_names(source[len("part:"):]))
    if source == "runs, but Python":  # the languages that run, beyond the default one
        return len(languages.builtin_names("execution")) - 1
    if source == "cost rates":  # the languages whose measured rates the Space's budget reads
        return sum(1 for language in languages.builtin().values() if language.cost)
    if source == "codebleu package":  # the languages of the package's golden files
        return len(list((ROOT / "tests/data/codebleu").glob("codebleu_public_*.jsonl")))
    if source == "extraction benchmark":  # the languages of benchmarks/extraction.py
        return len(_tuple_in("benchmarks/extraction.py", "LANGUAGES"))
    if source == "extraction benchmark, unrecorded":  # beyond MultiPL-E's recorded four
        return len(set(_tuple_in("benchmarks/extraction.py", "LANGUAGES"))
                   - set(_tuple_in("benchmarks/extraction.py", "LARGE")))
    raise AssertionError(f"unknown source {source!r}")


#: (file, a regular expression around the mention (whitespace-normalised text), what it counts)
CLAIMS = [
    ("docs/index.md", r"runs in N languages in a sandbox", "part:execution"),
    ("docs/index.md", r"run generated code safely, in N languages", "part:execution"),
    ("docs/execution.md", r"the N languages that run have one", "part:extraction"),
    ("docs/execution.md", r"In the N other languages", "runs, but Python"),
    ("docs/execution.md", r"conventions for the other N languages",
     "extraction benchmark, unrecorded"),
    ("docs/execution.md", r"the N languages beyond MultiPL-E's recorded four",
     "extraction benchmark, unrecorded"),
    ("docs/benchmarks.md", r"real programs of N languages", "extraction benchmark"),
    ("docs/space.md", r"golden pairs of N languages", "cost rates"),
    ("spaces/README.md", r"golden pairs of N languages", "cost rates"),
    ("docs/metrics/codebleu.md", r"golden pairs in its N languages", "codebleu package"),
    ("docs/metrics/codebleu.md", r"the golden file of each of the N languages",
     "codebleu package"),
    ("metrics/codebleu/README.md", r"for its N languages", "codebleu package"),
    ("metrics/codebleu/README.md", r"Julia and Perl \(N languages\)", "part:codebleu"),
    ("metrics/codebleu/codebleu.py", r"for its N languages", "codebleu package"),
    ("metrics/code_eval/README.md", r"HumanEval's, in N languages: every language that runs but",
     "extraction benchmark"),
    ("metrics/tsed/README.md", r"many times faster, in N languages", "part:tsed"),
    ("metrics/tsed/README.md", r"tested on real code in all N languages", "part:tsed"),
]


def _files() -> list[Path]:
    found = [ROOT / "README.md", ROOT / "ARCHITECTURE.md", *(ROOT / "docs").rglob("*.md"),
             *(ROOT / "metrics").glob("*/README.md"), *(ROOT / "metrics").glob("*/*.py"),
             *(ROOT / "spaces").glob("*.md")]
    return sorted(path for path in found if path.is_file())


def _text(path: Path) -> str:
    return " ".join(path.read_text(encoding="utf-8").split())


def _claim_pattern(phrase: str) -> re.Pattern[str]:
    return re.compile(phrase.replace("N", NUMBER, 1))


def test_the_scan_finds_a_mention_in_every_form():
    found = [m.group("n") for m in MENTION.finditer(
        "in 12 languages; the twelve languages that run; in the eleven other languages; "
        "(19 languages); seven-language; languages")]
    assert found == ["12", "twelve", "eleven", "19"]
    assert _value("twelve") == 12 and _value("19") == 19


def test_every_mention_of_a_number_of_languages_is_a_known_claim():
    unknown = []
    for path in _files():
        relative = path.relative_to(ROOT).as_posix()
        text = _text(path)
        spans = [match.span("n") for file, phrase, _ in CLAIMS if file == relative
                 for match in _claim_pattern(phrase).finditer(text)]
        for mention in MENTION.finditer(text):
            if mention.span("n") not in spans:
                start = max(0, mention.start() - 60)
                unknown.append(f"{relative}: ...{text[start:mention.end()]}")
    assert not unknown, ("a number of languages that no claim of CLAIMS computes (add it there, "
                         "with what it counts):\n" + "\n".join(unknown))


@pytest.mark.parametrize(("file", "phrase", "source"), CLAIMS,
                         ids=[f"{file}:{phrase[:30]}" for file, phrase, _ in CLAIMS])
def test_each_claim_states_the_computed_number(file, phrase, source):
    matches = list(_claim_pattern(phrase).finditer(_text(ROOT / file)))
    assert matches, f"{file} no longer says {phrase!r}: update CLAIMS"
    expected = _count(source)
    for match in matches:
        assert _value(match.group("n")) == expected, (
            f"{file}: {match.group(0)!r} should say {expected} ({source})")


def test_the_lists_of_languages_that_run_name_every_one():
    """The code_eval module's description lists the languages besides Python by name."""
    text = _text(ROOT / "metrics/code_eval/code_eval.py")
    listed = re.search(r"With `lang`, programs in (.*?) run the same way", text)
    assert listed is not None
    names = set(re.split(r", | or ", listed.group(1)))
    running = {language.display_name for language in languages.builtin().values()
               if language.execution is not None}
    assert names == running - {languages.builtin()[languages.DEFAULT_LANGUAGE].display_name}
