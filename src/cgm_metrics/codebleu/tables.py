"""Per-language data of CodeBLEU: dataflow rules, comment style (keywords: ``keywords.py``).

A language is a data row here, not code: the one generic dataflow walker (``dataflow.py``,
and the compiled engine's ``csrc/dataflow.c``) reads these rules. Each row reproduces what the `codebleu` package's per-language ``DFG_*`` function does with
that language's node types (C and C++ use the C# rules there, and here). The package's
functions differ only in these details, so one walker reads them from this table.

Kinds of node the walker knows:
- ``definition``: a declaration with an optional initial value (``name`` comes from ``value``)
- ``assignment``: ``pairwise`` (each left variable computed from each right variable) or
  ``tuple`` (``a, b = x, y`` paired element by element; Python and Ruby)
- ``increment``: ``i++``: each variable of the node computed from each
- ``branch``: if/else: branches start from the same state, their states are merged
- ``for_in`` / ``foreach`` / ``while``: the loop is walked twice (loop-carried flow)
- ``c_for``: C-style ``for``: walked once, then the part after its initialiser again
"""

from typing import NamedTuple  # (no postponed annotations: they cost a compile per field)

# Trees deeper than this have no dataflow graph: the package's recursion gives up on them (a
# RecursionError it swallows), whatever the language.
MAX_DEPTH = 800

# kept whole as one token by the package's tokenizer, whatever their children
ATOMIC_TYPES = frozenset({"string_literal", "string", "character_literal"})


class DataflowRules(NamedTuple):
    """How the walker treats one language's node types (keyword arguments; immutable)."""

    definition: tuple[str, ...] = ()
    definition_style: str = "fields"  # "fields", "two_children" (C#), "rust_function"
    definition_name: str = "name"
    definition_value: str = "value"
    assignment: tuple[str, ...] = ()
    assignment_style: str = "pairwise"  # or "tuple"
    increment: tuple[str, ...] = ()
    branch: tuple[str, ...] = ()
    # "python": a child is a new branch when it is an elif/else clause; "plain": when it is a
    # branch type; "flagged": from the first child of a branch type on
    branch_style: str = "flagged"
    # whether the state before the statement joins the merge: "no_else" (only without an
    # else) or "always"
    branch_keeps_input: str = "no_else"
    for_in: tuple[str, ...] = ()
    for_in_style: str = "python"  # "python" (left/right fields, body = last block) or "ruby"
    c_for: tuple[str, ...] = ()
    c_for_restart: str = ""  # the child type after which the loop is walked again
    c_for_update_of: str = ""  # Go: the clause whose ``update`` field is walked again
    foreach: tuple[str, ...] = ()
    foreach_name: str = "name"
    foreach_value: str = "value"
    foreach_php: bool = False  # PHP: the two ``variable_name`` children are value and name
    loop: tuple[str, ...] = ()
    first: tuple[str, ...] = ()  # children walked before their siblings


_JAVA = DataflowRules(
    definition=("variable_declarator",),
    assignment=("assignment_expression",),
    increment=("update_expression",),
    branch=("if_statement", "else"),
    c_for=("for_statement",),
    c_for_restart="local_variable_declaration",
    foreach=("enhanced_for_statement",),
    loop=("while_statement",),
)

_CSHARP = DataflowRules(
    definition=("variable_declarator",),
    definition_style="two_children",
    assignment=("assignment_expression",),
    increment=("postfix_unary_expression",),
    branch=("if_statement", "else"),
    c_for=("for_statement",),
    c_for_restart="local_variable_declaration",
    foreach=("for_each_statement",),
    foreach_name="left",
    foreach_value="right",
    loop=("while_statement",),
)

_JAVASCRIPT = DataflowRules(
    definition=("variable_declarator",),
    assignment=("assignment_pattern", "augmented_assignment_expression"),
    increment=("update_expression",),
    branch=("if_statement", "else"),
    branch_keeps_input="always",
    c_for=("for_statement",),
    c_for_restart="variable_declaration",
    loop=("while_statement",),
)

RULES: dict[str, DataflowRules] = {
    "python": DataflowRules(
        definition=("default_parameter",),
        assignment=("assignment", "augmented_assignment", "for_in_clause"),
        assignment_style="tuple",
        branch=("if_statement",),
        branch_style="python",
        for_in=("for_statement",),
        loop=("while_statement",),
        first=("for_in_clause",),
    ),
    "java": _JAVA,
    "c_sharp": _CSHARP,
    "c": _CSHARP,
    "cpp": _CSHARP,
    "javascript": _JAVASCRIPT,
    "typescript": _JAVASCRIPT,
    "ruby": DataflowRules(
        definition=("keyword_parameter",),
        assignment=("assignment", "operator_assignment"),
        assignment_style="tuple",
        branch=("if", "elsif", "else", "unless", "when"),
        branch_style="plain",
        for_in=("for",),
        for_in_style="ruby",
        loop=("while_modifier", "until"),
    ),
    "go": DataflowRules(
        definition=("var_spec",),
        assignment=("assignment_statement",),
        increment=("inc_statement",),
        branch=("if_statement", "else"),
        branch_keeps_input="always",
        c_for=("for_statement",),
        c_for_update_of="for_clause",
    ),
    "php": DataflowRules(
        definition=("simple_parameter",),
        definition_value="default_value",
        assignment=("assignment_expression", "augmented_assignment_expression"),
        increment=("update_expression",),
        branch=("if_statement", "else_clause"),
        branch_keeps_input="always",
        c_for=("for_statement",),
        c_for_restart="assignment_expression",
        foreach=("foreach_statement",),
        foreach_php=True,
        loop=("while_statement",),
    ),
    "rust": DataflowRules(
        definition=("function_item",),
        definition_style="rust_function",
        assignment=("assignment_expression", "compound_assignment_expr", "let_expression"),
        branch=("if_expression", "if_let_expression", "match_expression", "else"),
        c_for=("for_expression",),
        c_for_restart="local_variable_declaration",
        foreach=("for_each_statement",),
        foreach_name="left",
        foreach_value="right",
        loop=("while_expression", "while_let_expression", "loop_expression"),
    ),
}

# How the package removes comments before the syntax and dataflow components (preprocess.py):
# "python" by tokenize's rules (comments and docstrings), "none" (Ruby: kept), "c" (// and /* */
# by a regular expression that keeps string literals).
COMMENT_STYLES: dict[str, str] = {
    "python": "python",
    "ruby": "none",
    **dict.fromkeys(
        ("c", "c_sharp", "cpp", "go", "java", "javascript", "php", "rust", "typescript"), "c"
    ),
}
