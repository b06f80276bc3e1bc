"""C++: everything the library knows of it."""

from . import Language, c_sharp
from .parts import (
    C_STYLE,
    CodeBleuPart,
    Command,
    ExecutionPart,
    ExtractionPart,
    LanguageSpec,
    Tool,
    TsedPart,
    exit_status,
    words,
)

KEYWORDS = words(
    "auto const double float int short struct unsigned break continue else for long signed "
    "switch void case default enum goto register sizeof typedef volatile char do extern if "
    "return static union while asm dynamic_cast namespace reinterpret_cast bool explicit new "
    "static_cast typeid catch false try operator template typename class friend private this "
    "using const_cast inline public throw virtual delete mutable protected true wchar_t and "
    "bitand compl not_eq or_eq xor_eq and_eq bitor not or xor cin endl INT_MIN iomanip main "
    "npos std cout include INT_MAX iostream MAX_RAND NULL string"
)

# the codebleu package reads the C family with one set of rules: C#'s
RULES = c_sharp.RULES

COMMENT_STYLE = C_STYLE

PROBE = (
    "template <typename T> class A : public B { T f(T a) { for (auto i : v) { a += i;"
    " } return a ? a : -a; } }; // c\n"
    "int x = ;"
)

# the completion proof: the test's ``main`` is renamed (-Dmain=...) and called by ours, in a
# translation unit of its own that the program's macros cannot reach
_MAIN = "cgm_tests_main_"
_WRAPPER = f"""#undef main
#include <unistd.h>
int {_MAIN}();
int main() {{
    {_MAIN}();
    char token[256];
    ssize_t size = pread(3, token, sizeof token, 0);
    if (size > 0) {{
        char line[300] = "passed ";
        for (ssize_t i = 0; i < size; i++) line[7 + i] = token[i];
        line[7 + size] = '\\n';
        if (write(4, line, 8 + size) != 8 + size) return 1;
    }}
    return 0;
}}
"""


EXECUTION = ExecutionPart(
    tools=(Tool("g++", ("g++",), "g++"),),
    source="main.cpp",
    files=lambda text: {"cgm_main.cpp": _WRAPPER},
    proof=(
        "the test's main is renamed (-Dmain=...) and called by ours, compiled apart, which "
        "writes the token when it returns"
    ),
    memory_errors=("std::bad_alloc", "out of memory allocating", "virtual memory exhausted"),
    commands=(
        Command(("{g++}", f"-Dmain={_MAIN}", "{source}", "cgm_main.cpp", "-o", "main",
                 "-std=c++17"), compile=True),
        Command(("./main",), vouch=True),
    ),
    classify_run=exit_status,
    default_timeout=15.0,
    canary=(
        "#include<assert.h>\n"
        "#include<bits/stdc++.h>\n"
        "long add(long a, long b) {\n"
        "    return a + b;\n"
        "}\n"
        "int main() {\n"
        "    auto candidate = add;\n"
        "    assert(candidate((2), (3)) == (5));\n"
        "}\n"
    ),
    multipl_e="g++ F -o F_noext -std=c++17, then F_noext (15 s each)",
    # a whole program (its own main), optimised as judges compile it
    stdio=lambda text: ("main.cpp", (
        Command(("{g++}", "-O2", "-std=c++17", "main.cpp", "-o", "main"), compile=True),
        Command(("./main",)))),
)

EXTRACTION = ExtractionPart(
    tags=("cpp", "c++", "cc", "cxx", "hpp", "h++"),
    definition=r"^[ \t]*(?:[\w:<>,*&\[\]]+[ \t]+)+[*&]*(?P<name>[A-Za-z_]\w*)[ \t]*\(",
    code_start=r"#include|#define|using |template|namespace |struct |class |typedef |"
    r"(?:static |inline |const |unsigned |signed )*[A-Za-z_][\w:<>,*& ]*[\s*&]+[A-Za-z_]\w*\s*\(",
    no_code="#error no code in the answer\n",
    compatible=("c", "h"),  # everything at the top level is kept but `main`
    main="main",
    declarator_names=frozenset({"function_definition"}),
)

LANGUAGE = Language(
    name="cpp",
    code_contests=(2,),  # CodeContests' Solution.Language id
    display_name="C++",
    aliases=("c++", "cxx", "cc"),
    multipl_e=("cpp",),
    extensions=(".cpp", ".cc", ".cxx", ".hpp"),
    parsing=LanguageSpec(
        "cpp",
        "tree_sitter_cpp",
        "language",
        comment_types=frozenset({"comment"}),
        string_types=frozenset(
            {"char_literal", "raw_string_literal", "string_literal", "system_lib_string"}
        ),
        identifier_types=frozenset(
            {"field_identifier", "identifier", "namespace_identifier", "type_identifier"}
        ),
    ),
    codebleu=CodeBleuPart(KEYWORDS, RULES, COMMENT_STYLE, PROBE),
    tsed=TsedPart(pack="cpp"),
    execution=EXECUTION,
    extraction=EXTRACTION,
    cost={
        "chrf_code": 0.00011,
        "codebleu": 0.00046,
        "ruby": 0.0012,
        "bleu": 0.00062,
        "edit_sim": 1e-05,
        "meteor": 0.00025,
        "rouge_l": 8e-05,
        "rouge_w": 0.0012,
        "tsed": 0.0011,
        "crystal_bleu": 0.00039,
        "codexglue_edit_sim": 7e-06,
    },
)
