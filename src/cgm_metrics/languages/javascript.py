"""JavaScript: everything the library knows of it."""

from typing import Any

from . import Language
from .parts import (
    C_STYLE,
    TOKEN,
    CodeBleuPart,
    Command,
    DataflowRules,
    ExecutionPart,
    ExtractionPart,
    LanguageSpec,
    PdgSpec,
    Tool,
    TsedPart,
    node_set,
    pairs,
    ran,
    words,
)

KEYWORDS = words(
    "await break case catch class const continue debugger default delete do else enum export "
    "extends false finally for function if implements import in instanceof interface let new "
    "null package private protected public return super switch static this throw try True "
    "typeof var void while with yield"
)

RULES = DataflowRules(
    definition=("variable_declarator",),
    assignment=("assignment_pattern", "augmented_assignment_expression"),
    increment=("update_expression",),
    branch=("if_statement", "else"),
    branch_keeps_input="always",
    c_for=("for_statement",),
    c_for_restart="variable_declaration",
    loop=("while_statement",),
)

COMMENT_STYLE = C_STYLE

PROBE = (
    "function f(a, b = 1, ...c) { for (let i = 0; i < a; i++) { a += i; } // c\n"
    "  const {x, y: z} = b; return a ? `${x}` : -a; }\n"
    "class C extends D { m() { return this.x; } }\n"
    "let x = ;"
)

PDG = PdgSpec(
    containers=node_set(
        "class_body else_clause finally_clause program statement_block switch_body"
    ),
    body_fields=node_set("alternative body consequence"),
    clauses=node_set("catch_clause switch_case switch_default"),
    extra_statements=frozenset(),
    loops=node_set("do_statement for_in_statement for_statement while_statement"),
    branches=node_set("if_statement switch_statement try_statement"),
    scopes=node_set(
        "class_declaration function_declaration generator_function_declaration method_definition"
    ),
    variables=node_set(
        "identifier shorthand_property_identifier shorthand_property_identifier_pattern"
    ),
    defines=pairs(
        "arrow_function.parameter arrow_function.parameters assignment_expression.left assignment_pattern.left catch_clause.parameter class_declaration.name for_in_statement.left function_declaration.name function_declaration.parameters generator_function_declaration.name generator_function_declaration.parameters method_definition.parameters variable_declarator.name"
    ),
    define_and_use=pairs("augmented_assignment_expression.left update_expression.argument"),
    uses=pairs("assignment_pattern.right"),
    ignores=pairs("method_definition.name"),
    patterns=node_set(
        "array_pattern formal_parameters object_pattern pair_pattern parenthesized_expression rest_pattern"
    ),
    assignments_with_operator=frozenset(),
    transparent=node_set("expression_statement parenthesized_expression program statement_block"),
)


def node_errors(text: str) -> str:
    """MultiPL-E's JavaScript rule on a failed run: the first of these names in the output."""
    if "ERR_ASSERTION" in text:
        return "AssertionError"
    if "SyntaxError" in text:
        return "SyntaxError"
    if "ReferenceError" in text:
        return "ReferenceError"
    return "Exception"


def _classify_run(step: Any) -> str:
    # MultiPL-E searches the printed CompletedProcess: both streams
    return ran(step) or node_errors(step.stdout + step.stderr)

# the completion proof: a statement after the test's last one (a throw, a top-level return or
# an exit skips it)
_END = (
    f'\n;require("fs").writeSync(4, "passed " + require("fs").readFileSync("{TOKEN}", '
    '"utf8") + "\\n");\n'
)


EXECUTION = ExecutionPart(
    tools=(Tool("node", ("node", "nodejs"), "nodejs"),),
    source="main.js",
    finish=lambda text: text + _END,
    proof=(
        "a statement after the text writes the token (a throw, a top-level return or an "
        "exit skips it)"
    ),
    memory_errors=(
        "JavaScript heap out of memory",
        "Fatal process out of memory",
        "Array buffer allocation failed",
        "Fatal JavaScript invalid size error",
    ),
    commands=(Command(("{node}", "{source}"), vouch=True),),
    classify_run=_classify_run,
    default_timeout=5.0,
    canary=(
        "function add(a, b){\n"
        "  return a + b;\n"
        "}\n"
        "\n"
        "const assert = require('node:assert');\n"
        "\n"
        "function test() {\n"
        "  let candidate = add;\n"
        "  assert.deepEqual(candidate(2, 3),5);\n"
        "}\n"
        "\n"
        "test();\n"
    ),
    multipl_e="node F (5 s)",
)

#: the values that make a variable a function (``const f = (x) => ...``)
FUNCTION_VALUES = node_set("arrow_function function_expression function generator_function")
#: ``export`` before a definition (the tests load the program as a script)
STRIP_EXPORT = (
    r"(?m)^(\s*)export\s+(?:default\s+)?(?=(?:async\s+)?(?:function|class|const|let|"
    r"var|interface|type|enum|abstract)\b)",
    r"\1",
)

EXTRACTION = ExtractionPart(
    tags=("javascript", "js", "node", "nodejs", "jsx", "mjs", "cjs"),
    definition=r"^[ \t]*(?:export[ \t]+(?:default[ \t]+)?)?(?:async[ \t]+)?(?:function[ \t]*\*?[ \t]*"
    r"(?P<name>[A-Za-z_$][\w$]*)|(?:const|let|var)[ \t]+(?P<alt>[A-Za-z_$][\w$]*)[ \t]*=)",
    code_start=r"(?:function |const |let |var |class |async function |'use strict'|\"use strict\"|"
    r"module\.exports)",
    no_code='throw new Error("no code in the answer");\n',
    keep=node_set(
        "function_declaration generator_function_declaration class_declaration "
        "lexical_declaration variable_declaration export_statement"
    ),
    function_variables=node_set("lexical_declaration variable_declaration"),
    function_values=FUNCTION_VALUES,
    own_imports=node_set("lexical_declaration variable_declaration"),
    own_import_words=("require(", "assert"),
    exports=node_set("export_statement"),
    tests_define=True,
    test_variables=r"^(?:const|let|var)\s+(\w+)",
    cleanups=(STRIP_EXPORT,),
)

LANGUAGE = Language(
    name="javascript",
    display_name="JavaScript",
    aliases=("node", "nodejs"),
    multipl_e=("js",),
    extensions=(".js", ".mjs", ".cjs"),
    parsing=LanguageSpec(
        "javascript",
        "tree_sitter_javascript",
        "language",
        comment_types=frozenset({"comment", "html_comment"}),
        string_types=frozenset({"regex", "string", "template_string"}),
        identifier_types=frozenset(
            {"identifier", "property_identifier", "shorthand_property_identifier"}
        ),
    ),
    codebleu=CodeBleuPart(KEYWORDS, RULES, COMMENT_STYLE, PROBE),
    tsed=TsedPart(pack="javascript"),
    pdg=PDG,
    execution=EXECUTION,
    extraction=EXTRACTION,
    cost={
        "chrf_code": 0.0001,
        "codebleu": 0.0004,
        "ruby": 0.0027,
        "bleu": 0.00076,
        "edit_sim": 1e-05,
        "meteor": 0.00051,
        "rouge_l": 0.0001,
        "rouge_w": 0.0018,
        "tsed": 0.00099,
        "crystal_bleu": 0.00033,
        "codexglue_edit_sim": 9e-06,
    },
)
