"""Go: everything the library knows of it."""

import re
from typing import Any

from . import Language
from .parts import (
    C_STYLE,
    CodeBleuPart,
    Command,
    DataflowRules,
    ExecutionPart,
    ExtractionPart,
    LanguageSpec,
    Tool,
    TsedPart,
    node_set,
    words,
)

KEYWORDS = words(
    "break default func interface select case defer go map struct chan else goto package "
    "switch const fallthrough if range type continue for import return var false true"
)

RULES = DataflowRules(
    definition=("var_spec",),
    assignment=("assignment_statement",),
    increment=("inc_statement",),
    branch=("if_statement", "else"),
    branch_keeps_input="always",
    c_for=("for_statement",),
    c_for_update_of="for_clause",
)

COMMENT_STYLE = C_STYLE

PROBE = (
    "package main\n"
    "func f(a int, b []int) int { for i := 0; i < a; i++ { a += b[i] } // c\n"
    "for _, v := range b { a += v }; if a > 0 { return a } else { return -a } }\n"
    "var x = "
)


_GO_ENV = {"GOPROXY": "off", "GOTOOLCHAIN": "local", "GOTELEMETRY": "off", "GOFLAGS": ""}


def _classify_run(step: Any) -> str:
    # MultiPL-E: "FAIL" on stdout is an Exception (a build that fails is the compile step's)
    if step.status == "timeout":
        return "Timeout"
    return "Exception" if "FAIL" in step.stdout or not step.passed else "OK"

# the completion proof: our TestMain runs the tests (a program's own TestMain is a duplicate:
# it does not build)
_PACKAGE = re.compile(r"^\s*package\s+([A-Za-z_][A-Za-z0-9_]*)", re.MULTILINE)
_WRAPPER = """package {package}

import (
\tcgm_os "os"
\tcgm_testing "testing"
)

func TestMain(m *cgm_testing.M) {{
\tcode := m.Run()
\tif code == 0 {{
\t\ttoken := make([]byte, 256)
\t\tsize, _ := cgm_os.NewFile(3, "token").ReadAt(token, 0)
\t\tline := append(append([]byte("passed "), token[:size]...), '\\n')
\t\tif _, err := cgm_os.NewFile(4, "verdict").Write(line); err != nil {{
\t\t\tcgm_os.Exit(1)
\t\t}}
\t}}
\tcgm_os.Exit(code)
}}
"""


def _files(text: str) -> dict[str, str]:
    """Our TestMain, in the test's package (a text without a package clause does not build
    either way)."""
    package = _PACKAGE.search(text)
    return {"cgm_main_test.go": _WRAPPER.format(package=package[1] if package else "main")}


EXECUTION = ExecutionPart(
    tools=(
        Tool("go", ("go", "/usr/lib/go/bin/go", "/usr/local/go/bin/go"), "golang-go",
             version=("version",)),
    ),
    source="main_test.go",
    files=_files,
    proof=(
        "our TestMain (in the test's package) runs the tests and writes the token when they "
        "passed; a program's own TestMain does not build"
    ),
    memory_errors=("runtime: out of memory", "cannot allocate memory"),
    commands=(
        Command(("{go}", "test", "-c", "-o", "main.test", "{source}", "cgm_main_test.go"),
                compile=True, env=_GO_ENV),
        Command(("./main.test", "-test.paniconexit0"), vouch=True),
    ),
    classify_run=_classify_run,
    default_timeout=15.0,
    canary=(
        "package add_test\n"
        "\n"
        "import (\n"
        '    "testing"\n'
        '    "fmt"\n'
        ")\n"
        "\n"
        "func add(a int, b int) int {\n"
        "    return a + b\n"
        "}\n"
        "\n"
        "func TestAdd(t *testing.T) {\n"
        "  candidate := add\n"
        '  if fmt.Sprintf("%v", candidate(2, 3)) != fmt.Sprintf("%v", 5) {\n'
        '    t.Errorf("expected 5")\n'
        "  }\n"
        "}\n"
    ),
    multipl_e=(
        "go test F_test.go (30 s for building and running; a failed build or setup is a "
        "SyntaxError); here go test -c, then the test binary"
    ),
    notes=(
        "a run that fails without printing FAIL is an Exception here (MultiPL-E would "
        "record OK with a nonzero exit code, which its pass@k does not count)"
    ),
)

EXTRACTION = ExtractionPart(
    tags=("go", "golang"),
    definition=r"^func[ \t]+(?P<name>\w+)",
    code_start=r"(?:package |import |func |type |var |const )",
    no_code="package main\n\nno code in the answer\n",
    keep=node_set(
        "function_declaration method_declaration type_declaration const_declaration "
        "var_declaration"
    ),
    main="main",
    tests_define=True,
    assembly="merged_imports",
)

LANGUAGE = Language(
    name="go",
    display_name="Go",
    aliases=("golang",),
    multipl_e=("go_test.go",),
    extensions=(".go",),
    parsing=LanguageSpec(
        "go",
        "tree_sitter_go",
        "language",
        comment_types=frozenset({"comment"}),
        string_types=frozenset(
            {"interpreted_string_literal", "raw_string_literal", "rune_literal"}
        ),
        identifier_types=frozenset(
            {"field_identifier", "identifier", "package_identifier", "type_identifier"}
        ),
    ),
    codebleu=CodeBleuPart(KEYWORDS, RULES, COMMENT_STYLE, PROBE),
    tsed=TsedPart(pack="go"),
    execution=EXECUTION,
    extraction=EXTRACTION,
    cost={
        "chrf_code": 0.00012,
        "codebleu": 0.00061,
        "ruby": 0.0018,
        "bleu": 0.00085,
        "edit_sim": 1e-05,
        "meteor": 0.00032,
        "rouge_l": 0.0001,
        "rouge_w": 0.0027,
        "tsed": 0.0014,
        "crystal_bleu": 0.00035,
        "codexglue_edit_sim": 9e-06,
    },
)
