"""Pylite, a toy language of this outside package: the subset of Python that needs no import,
known to every part of cgm-metrics through one module (entry point ``cgm_metrics.languages``).

It parses with the Python grammar wheel, scores with CodeBLEU's Python keywords and dataflow
rules, reads TSED's trees with the grammar pack's Python, and runs with the host's python3
(compiled first with ``py_compile``, so a program that does not parse is a SyntaxError of the
compile step, as a compiled language's is). Chat answers' code is found in ```pylite or ```pyl
fences (Python's definitions and assembly rules); a ```python block is another language.
"""

from cgm_metrics.languages import Language
from cgm_metrics.languages import python as _python
from cgm_metrics.languages.parts import (
    CodeBleuPart,
    Command,
    ExecutionPart,
    ExtractionPart,
    LanguageSpec,
    Tool,
    TsedPart,
    exit_status,
)

LANGUAGE = Language(
    name="pylite",
    display_name="Pylite",
    aliases=("pyl",),
    extensions=(".pyl",),
    parsing=LanguageSpec(
        "pylite", "tree_sitter_python", "language",
        comment_types={"comment"}, string_types={"string", "concatenated_string"},
        identifier_types={"identifier"}, docstrings=True,
    ),
    codebleu=CodeBleuPart(_python.KEYWORDS, _python.RULES, "tokenize"),
    tsed=TsedPart(pack="python"),
    execution=ExecutionPart(
        tools=(Tool("python3", ("/usr/bin/python3", "python3"), "python3"),),
        source="main.pyl",
        commands=(
            Command(("{python3}", "-m", "py_compile", "{source}"), compile=True),
            Command(("{python3}", "{source}")),
        ),
        classify_run=exit_status,
        default_timeout=5.0,
        canary="def add(a, b):\n    return a + b\n\nassert add(2, 3) == 5\n",
    ),
    extraction=ExtractionPart(
        tags=("pylite", "pyl"),
        definition=r"^[ \t]*def[ \t]+(?P<name>\w+)",
        code_start=r"(?:def |class )",
        no_code='raise SystemExit("no code in the answer")\n',
        statements=frozenset({"expression_statement"}),
        statement_kept=frozenset({"assignment", "augmented_assignment"}),
    ),
)
