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
# it does not build), and a pass proves that every test ran. Each top-level test function of
# the text is renamed (same line) and called from a wrapper of ours under its own name, which
# marks it as run and passed; the token follows only when every one is marked. The runner's
# inputs are ours: the arguments and the flag set are captured before any init function of
# the program runs (this file's variables are initialized first), and TestMain puts them back
# (every flag to its default, then our arguments) before the tests run, so an init function
# that filters the tests (-test.run, -test.skip, -test.list in os.Args, flag.Set, a new
# flag.CommandLine) changes nothing; the filters are checked again after the run.
_PACKAGE = re.compile(r"^\s*package\s+([A-Za-z_][A-Za-z0-9_]*)", re.MULTILINE)
# a test function (go test's rule: Test, then no lower-case letter) taking a *testing.T
_TEST = re.compile(r"^func([ \t]+)(Test(?![a-z])\w*)([ \t]*\([ \t]*\w+[ \t]+\*[ \t]*testing\.T[ \t]*\))",
                   re.MULTILINE)
_RENAMED = "cgm_test_{index}_"
_WRAPPER = """package {package}

import (
\tcgm_flag "flag"
\tcgm_os "os"
\tcgm_testing "testing"
)

// initialized before any variable or init function of the program's own file
var cgm_args_ = append([]string(nil), cgm_os.Args...)
var cgm_flags_ = func() *cgm_flag.FlagSet {{
\tcgm_testing.Init()
\treturn cgm_flag.CommandLine
}}()
var cgm_ran_ [{count}]bool
{wrappers}
func cgm_filtered_() bool {{
\tfor _, name := range []string{{"test.run", "test.skip", "test.list", "test.count", "test.shuffle"}} {{
\t\tfound := cgm_flags_.Lookup(name)
\t\tif found != nil && found.Value.String() != found.DefValue {{
\t\t\treturn true
\t\t}}
\t}}
\treturn false
}}

func TestMain(m *cgm_testing.M) {{
\tcgm_os.Args = append([]string(nil), cgm_args_...)
\tcgm_flag.CommandLine = cgm_flags_
\tcgm_flags_.VisitAll(func(f *cgm_flag.Flag) {{ _ = f.Value.Set(f.DefValue) }})
\tif err := cgm_flags_.Parse(cgm_args_[1:]); err != nil {{
\t\tcgm_os.Exit(2)
\t}}
\tcode := m.Run()
\tif code != 0 {{
\t\tcgm_os.Exit(code)
\t}}
\tall := {count} > 0 && !cgm_filtered_()
\tfor _, ran := range cgm_ran_ {{
\t\tall = all && ran
\t}}
\tif !all {{
\t\tcgm_os.Stderr.WriteString("FAIL: not every test of the program ran and passed ({names})\\n")
\t\tcgm_os.Exit(1)
\t}}
\ttoken := make([]byte, 256)
\tsize, _ := cgm_os.NewFile(3, "token").ReadAt(token, 0)
\tline := append(append([]byte("passed "), token[:size]...), '\\n')
\tif _, err := cgm_os.NewFile(4, "verdict").Write(line); err != nil {{
\t\tcgm_os.Exit(1)
\t}}
\tcgm_os.Exit(0)
}}
"""
_TEST_WRAPPER = """
func {name}(t *cgm_testing.T) {{
\t{renamed}(t)
\tif !t.Failed() && !t.Skipped() {{
\t\tcgm_ran_[{index}] = true
\t}}
}}
"""


def _tests(text: str) -> list[str]:
    return [match[2] for match in _TEST.finditer(text)]


def _finish(text: str) -> str:
    """The text with each test function renamed (on its line), for our wrapper to call."""
    counter = iter(range(len(_tests(text))))
    return _TEST.sub(lambda match: f"func{match[1]}{_RENAMED.format(index=next(counter))}"
                     f"{match[3]}", text)


def _files(text: str) -> dict[str, str]:
    """Our TestMain and the test wrappers, in the test's package (a text without a package
    clause does not build either way)."""
    package = _PACKAGE.search(text)
    names = _tests(text)
    wrappers = "".join(_TEST_WRAPPER.format(name=name, renamed=_RENAMED.format(index=index),
                                            index=index)
                       for index, name in enumerate(names))
    return {"cgm_main_test.go": _WRAPPER.format(
        package=package[1] if package else "main", count=len(names), wrappers=wrappers,
        names=", ".join(names) or "no test function")}


def _stdio(text: str) -> tuple[str, tuple[Command, ...]]:
    """A whole program (package main, func main) built with ``go build``."""
    return "main.go", (Command(("{go}", "build", "-o", "main", "main.go"), compile=True,
                               env=_GO_ENV),
                       Command(("./main",)))


EXECUTION = ExecutionPart(
    tools=(
        Tool("go", ("go", "/usr/lib/go/bin/go", "/usr/local/go/bin/go"), "golang-go",
             version=("version",)),
    ),
    source="main_test.go",
    finish=_finish,
    files=_files,
    proof=(
        "our TestMain (in the test's package) runs the tests with the runner's arguments and "
        "flags put back to ours, and writes the token when every test function of the text "
        "ran and passed (each is called through a wrapper of ours that marks it); a "
        "program's own TestMain does not build"
    ),
    memory_errors=("runtime: out of memory", "cannot allocate memory"),
    commands=(
        # our file first: its variables are initialized before the program's
        Command(("{go}", "test", "-c", "-o", "main.test", "cgm_main_test.go", "{source}"),
                compile=True, env=_GO_ENV),
        Command(("./main.test", "-test.paniconexit0"), vouch=True),
    ),
    classify_run=_classify_run,
    stdio=_stdio,
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
