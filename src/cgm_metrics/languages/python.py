"""Python: everything the library knows of it."""

from . import Language
from .parts import (
    CodeBleuPart,
    DataflowRules,
    ExecutionPart,
    ExtractionPart,
    LanguageSpec,
    PdgSpec,
    TsedPart,
    node_set,
    pairs,
    stderr_says,
    words,
)

KEYWORDS = words(
    "False None True and as assert async await break class continue def del elif else except "
    "finally for from global if import in is lambda nonlocal not or pass raise return try "
    "while with yield match case type"
)

RULES = DataflowRules(
    definition=("default_parameter",),
    assignment=("assignment", "augmented_assignment", "for_in_clause"),
    assignment_style="tuple",
    branch=("if_statement",),
    branch_style="elif_chain",
    for_in=("for_statement",),
    loop=("while_statement",),
    first=("for_in_clause",),
)

COMMENT_STYLE = "tokenize"

PROBE = (
    "@d\n"
    "def f(a, *b, c=1, **d) -> int:\n"
    "    'doc'  # c\n"
    "    for x, y in z:\n"
    "        a += x if y else -y\n"
    "    return [a for a in b if a], {**d}, f'{a!r}'\n"
    "class C(D): pass\n"
    "x = (\n"
)

PDG = PdgSpec(
    containers=node_set("block else_clause finally_clause module"),
    body_fields=frozenset(),
    clauses=node_set("case_clause elif_clause except_clause"),
    extra_statements=node_set("decorated_definition"),
    loops=node_set("for_statement while_statement"),
    branches=node_set("elif_clause if_statement match_statement try_statement"),
    scopes=node_set("class_definition decorated_definition function_definition"),
    variables=node_set("identifier"),
    defines=pairs(
        "aliased_import.alias as_pattern.alias assignment.left class_definition.name default_parameter.name for_statement.left function_definition.name function_definition.parameters global_statement.name import_from_statement.name import_statement.name named_expression.name typed_default_parameter.name"
    ),
    define_and_use=pairs("augmented_assignment.left"),
    uses=pairs(
        "assignment.type default_parameter.value typed_default_parameter.type typed_default_parameter.value typed_parameter.type"
    ),
    ignores=pairs(
        "aliased_import.name attribute.attribute for_in_clause.left import_from_statement.module_name keyword_argument.name lambda.parameters"
    ),
    patterns=node_set(
        "as_pattern_target dictionary_splat_pattern dotted_name list list_pattern list_splat list_splat_pattern parameters parenthesized_expression pattern_list tuple tuple_pattern typed_parameter"
    ),
    assignments_with_operator=frozenset(),
    transparent=node_set("block expression_statement module parenthesized_expression"),
)


EXECUTION = ExecutionPart(
    tools=(),
    source="",
    proof="the sandbox's runner writes the token after the program text returned",
    commands=(),
    classify_run=stderr_says("SyntaxError"),
    default_timeout=3.0,
    canary=("def add(a, b):\n    return a + b\n\nassert add(2, 3) == 5\n"),
    check_call="check({entry_point})",
    multipl_e=(
        "python3 F (15 s); here the sandbox's own interpreter, as evaluate's code_eval "
        "runs a program (exec in a fresh namespace)"
    ),
)

def accepts(code: str) -> bool:
    """Python's own parser agrees (as RUBY's published pipeline's ``ast.parse``)."""
    import ast
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences and the like
            ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


EXTRACTION = ExtractionPart(
    tags=("python", "py", "python3", "py3", "ipython", "pycon"),
    definition=r"^[ \t]*(?:async[ \t]+)?def[ \t]+(?P<name>\w+)",
    code_start=r"(?:from \S+ import |import |def |async def |class |@\w)",
    no_code='raise SystemExit("no code in the answer")\n',
    keep=node_set(
        "import_statement import_from_statement future_import_statement function_definition "
        "class_definition decorated_definition expression_statement"
    ),
    method_call="\n\ndef {entry_point}(*args, **kwargs):\n"
    "    return {owner}().{entry_point}(*args, **kwargs)\n",
    statements=node_set("expression_statement"),
    statement_kept=node_set("assignment augmented_assignment"),
    test_classes=node_set("class_definition"),
    header_end=":",
    test_functions=node_set("function_definition decorated_definition"),
    completion_indent="    ",
)

LANGUAGE = Language(
    name="python",
    code_contests=(3,),  # CodeContests' Solution.Language id
    display_name="Python",
    aliases=("python3",),
    multipl_e=("py",),
    extensions=(".py",),
    parsing=LanguageSpec(
        "python",
        "tree_sitter_python",
        "language",
        comment_types=frozenset({"comment"}),
        string_types=frozenset({"concatenated_string", "string"}),
        identifier_types=frozenset({"identifier"}),
        docstrings=True,
    ),
    codebleu=CodeBleuPart(KEYWORDS, RULES, COMMENT_STYLE, PROBE),
    tsed=TsedPart(pack="python"),
    pdg=PDG,
    execution=EXECUTION,
    extraction=EXTRACTION,
    accepts=accepts,
    examples=(
        (
            "def add(a, b):\n    return a + b",
            "def add(x, y):\n    return x + y",
            "def add(a, b):\n    return a - b",
            "def add(a, b):\n    result = a\n    result += b\n    return result",
        ),
        (
            "def mean(values):\n    if not values:\n        return 0.0\n"
            "    return sum(values) / len(values)",
            "def mean(xs):\n    return sum(xs) / len(xs) if xs else 0.0",
            "def mean(values):\n    total = 0\n    for v in values:\n        total += v\n"
            "    return total / len(values)",
            "",
        ),
    ),
    cost={
        "chrf_code": 0.00011,
        "codebleu": 0.00036,
        "ruby": 0.0026,
        "bleu": 0.00066,
        "edit_sim": 1e-05,
        "meteor": 0.00022,
        "rouge_l": 8e-05,
        "rouge_w": 0.0019,
        "tsed": 0.00095,
        "crystal_bleu": 0.00026,
        "codexglue_edit_sim": 9e-06,
    },
)
