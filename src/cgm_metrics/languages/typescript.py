"""TypeScript: everything the library knows of it."""

from typing import Any

from . import Language, javascript
from .javascript import node_errors
from .parts import (
    C_STYLE,
    TOKEN,
    CodeBleuPart,
    Command,
    ExecutionPart,
    ExtractionPart,
    LanguageSpec,
    Tool,
    TsedPart,
    node_set,
    ran,
    words,
)

KEYWORDS = words(
    "await break case catch class const continue debugger default delete do else enum export "
    "extends false finally for function if implements import in instanceof interface let new "
    "null package private protected public return super switch static this throw try True "
    "typeof var void while with yield true abstract any as asserts boolean declare enum "
    "implements infer interface is keyof module namespace never number object override "
    "private protected public readonly satisfies string symbol type undefined unique unknown"
)

# the codebleu package reads TypeScript with JavaScript's rules
RULES = javascript.RULES

COMMENT_STYLE = C_STYLE

PROBE = (
    "function f(a: number, b = 1, ...c) { for (let i = 0; i < a; i++) { a += i; } // "
    "c\n"
    "  const {x, y: z} = b; return a ? `${x}` : -a; }\n"
    "class C extends D { m() { return this.x; } }\n"
    "let x = ;"
)


def _classify_run(step: Any) -> str:
    return ran(step) or node_errors(step.stderr)

# the completion proof: a statement after the test's last one, through eval, which
# type-checks without a declaration of require (a throw or an exit skips it)
_END = (
    '\n;eval("require")("fs").writeSync(4, "passed " + eval("require")("fs")'
    f'.readFileSync("{TOKEN}", "utf8") + "\\n");\n'
)


EXECUTION = ExecutionPart(
    tools=(
        Tool("node", ("node", "nodejs"), "nodejs"),
        Tool(
            "tsc",
            (
                "tsc",
                "/usr/lib/node_modules/typescript/bin/tsc",
                "/usr/local/lib/node_modules/typescript/bin/tsc",
                "/usr/share/nodejs/typescript/bin/tsc",
            ),
            "node-typescript",
            other="npm install -g typescript",
        ),
    ),
    source="main.ts",
    finish=lambda text: text + _END,
    proof="a statement after the text writes the token (a throw or an exit skips it)",
    memory_errors=(
        "JavaScript heap out of memory",
        "Fatal process out of memory",
        "Array buffer allocation failed",
        "Fatal JavaScript invalid size error",
    ),
    commands=(
        Command(("{node}", "{tsc}", "--target", "esnext", "{source}"), compile=True),
        Command(("{node}", "main.js"), vouch=True),
    ),
    classify_run=_classify_run,
    default_timeout=15.0,
    canary=(
        "function add(a: number, b: number): number {\n"
        "  return a + b;\n"
        "}\n"
        "\n"
        "declare var require: any;\n"
        "const assert = require('node:assert');\n"
        "\n"
        "function test() {\n"
        "  let candidate = add;\n"
        "  assert.deepEqual(candidate(2, 3),5);\n"
        "}\n"
        "\n"
        "test();\n"
    ),
    multipl_e="tsc --target esnext F.ts, then node F.js (15 s each)",
)

EXTRACTION = ExtractionPart(
    tags=("typescript", "ts", "tsx"),
    definition=r"^[ \t]*(?:export[ \t]+(?:default[ \t]+)?)?(?:async[ \t]+)?(?:function[ \t]*\*?[ \t]*"
    r"(?P<name>[A-Za-z_$][\w$]*)|(?:const|let|var)[ \t]+(?P<alt>[A-Za-z_$][\w$]*)[ \t]*[=:])",
    code_start=r"(?:function |const |let |var |class |async function |interface |type |enum |export )",
    no_code=javascript.EXTRACTION.no_code,
    keep=node_set(
        "function_declaration generator_function_declaration class_declaration "
        "abstract_class_declaration lexical_declaration variable_declaration export_statement "
        "interface_declaration type_alias_declaration enum_declaration function_signature"
    ),
    compatible=("javascript", "js", "jsx"),
    function_variables=javascript.EXTRACTION.function_variables,
    function_values=javascript.FUNCTION_VALUES,
    own_imports=javascript.EXTRACTION.own_imports,
    own_import_words=javascript.EXTRACTION.own_import_words,
    exports=javascript.EXTRACTION.exports,
    tests_define=True,
    test_variables=javascript.EXTRACTION.test_variables,
    cleanups=(javascript.STRIP_EXPORT,),
)

LANGUAGE = Language(
    name="typescript",
    display_name="TypeScript",
    aliases=(),
    multipl_e=("ts",),
    extensions=(".ts",),
    parsing=LanguageSpec(
        "typescript",
        "tree_sitter_typescript",
        "language_typescript",
        comment_types=frozenset({"comment", "html_comment"}),
        string_types=frozenset({"regex", "string", "template_string"}),
        identifier_types=frozenset(
            {
                "identifier",
                "property_identifier",
                "shorthand_property_identifier",
                "type_identifier",
            }
        ),
    ),
    codebleu=CodeBleuPart(KEYWORDS, RULES, COMMENT_STYLE, PROBE),
    tsed=TsedPart(pack="typescript"),
    execution=EXECUTION,
    extraction=EXTRACTION,
)
