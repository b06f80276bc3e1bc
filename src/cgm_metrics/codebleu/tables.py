"""Per-language data of CodeBLEU: dataflow rules, comment styles (keywords: ``keywords.py``).

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

Beyond the package's rules, for grammars it does not have (its ten languages keep the
defaults, so their graphs are unchanged): the identifier type (a new name is registered only
at a leaf of this type), which nodes are kept whole as tokens (``atomic``) and which are
comments, the fields of an assignment's sides, ``separators`` (where a definition, assignment
or for-each node has no field for its first side, its sides are the children just before
and after its first separator token, e.g. Kotlin's ``val x = 1`` or Lua's ``a, b = 1, 2``;
without a separator either it is walked as any other node), ``opaque`` node types (types and
operators: the walker neither walks them nor reads variables from them) and a for-each body
given by a field or, with ``foreach_body=""``, as the children after the iterated value.
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
    identifier: str = "identifier"  # the leaf type of a name
    atomic: tuple[str, ...] = tuple(sorted(ATOMIC_TYPES))  # kept whole as one token
    comments: tuple[str, ...] = ("comment",)  # neither tokens nor walked
    left: str = "left"  # the fields of an assignment's (and a Python-style for's) two sides
    right: str = "right"
    separators: tuple[str, ...] = ()  # tokens between the two sides where fields are missing
    opaque: tuple[str, ...] = ()  # node types neither walked nor read for variables
    foreach_body: str = "body"  # the body's field; "" for the children after the value


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
    # -- languages the package does not have: its kinds of node, mapped onto each grammar
    # (tree-sitter-kotlin 1.1.0, -swift 0.7.4, -scala 0.26.3, -lua 0.5.0, -bash 0.25.1,
    # -haskell 0.24.1, -julia 0.23.1; tests/test_codebleu_languages.py walks examples by hand)
    "kotlin": DataflowRules(
        # `val x: Int = 1` and `for (x in xs)` have no fields: their sides are around = / in;
        # Kotlin's ++ and -- share unary_expression with -x and !x, so no increment rule
        definition=("property_declaration",),
        assignment=("assignment",),
        branch=("if_expression", "else", "when_expression", "when_entry"),
        foreach=("for_statement",),
        foreach_body="",
        loop=("while_statement", "do_while_statement"),
        atomic=("character_literal", "multiline_string_literal", "string_literal"),
        comments=("block_comment", "line_comment"),
        separators=("=", "in"),
        opaque=("function_type", "non_nullable_type", "nullable_type", "parenthesized_type",
                "type_arguments", "type_constraints", "type_parameters", "user_type"),
    ),
    "swift": DataflowRules(
        definition=("property_declaration",),
        assignment=("assignment",),
        left="target",
        right="result",
        branch=("if_statement", "else", "switch_statement", "switch_entry"),
        foreach=("for_statement",),
        foreach_name="item",
        foreach_value="collection",
        foreach_body="",
        loop=("while_statement", "repeat_while_statement"),
        identifier="simple_identifier",
        atomic=("line_string_literal", "multi_line_string_literal", "raw_string_literal"),
        comments=("comment", "multiline_comment"),
    ),
    "scala": DataflowRules(
        # `x += 1` is an infix_expression (a method call) in this grammar: not an assignment;
        # a generator `x <- xs` (enumerator) has no fields: its sides are around <- / =
        definition=("val_definition", "var_definition", "enumerator"),
        definition_name="pattern",
        assignment=("assignment_expression",),
        branch=("if_expression", "else", "case_block", "case_clause"),
        loop=("for_expression", "while_expression", "do_while_expression"),
        atomic=("character_literal", "interpolated_string_expression", "string"),
        comments=("block_comment", "comment"),
        separators=("<-", "="),
        opaque=("operator_identifier",),
    ),
    "lua": DataflowRules(
        # `a, b = 1, 2` and `for k, v in pairs(t)` have no fields: sides around = / in
        definition=("for_generic_clause", "for_numeric_clause"),
        definition_value="start",
        assignment=("assignment_statement",),
        assignment_style="tuple",
        branch=("if_statement", "elseif_statement", "else_statement"),
        branch_style="plain",
        loop=("for_statement", "while_statement", "repeat_statement"),
        separators=("=", "in"),
    ),
    "bash": DataflowRules(
        # x=1 declares and assigns; a definition, so that `x=` (no value) defines x
        definition=("variable_assignment",),
        increment=("postfix_expression",),
        branch=("if_statement",),
        branch_style="python",
        foreach=("for_statement",),
        foreach_name="variable",
        foreach_value="value",
        c_for=("c_style_for_statement",),
        c_for_restart="variable_assignment",
        loop=("while_statement",),
        identifier="variable_name",
        # "..." is not kept whole: the expansions inside it ("$x") are variables
        atomic=("ansi_c_string", "raw_string"),
        opaque=("test_operator",),
    ),
    "haskell": DataflowRules(
        # where/let bindings (name = ...) and do/generator bindings (pattern <- ...)
        definition=("bind", "generator"),
        definition_value="match",
        branch=("conditional", "else", "alternatives", "alternative"),
        identifier="variable",
        atomic=("char", "string"),
        comments=("comment", "haddock"),
        separators=("<-",),
        opaque=("operator", "signature"),
    ),
    "julia": DataflowRules(
        # no fields: sides around the operator (=, +=, in)
        definition=("for_binding",),
        assignment=("assignment", "compound_assignment_expression"),
        assignment_style="tuple",
        branch=("if_statement", "elseif_clause", "else_clause"),
        branch_style="plain",
        loop=("for_statement", "while_statement"),
        atomic=("character_literal", "command_literal", "prefixed_string_literal",
                "string_literal"),
        comments=("block_comment", "line_comment"),
        separators=("operator",),
        opaque=("operator",),
    ),
}

class Quote(NamedTuple):
    """A literal the comment scanner keeps whole (a comment marker inside it is text)."""

    delimiter: str  # opens and closes it, e.g. '"' or '"""'
    escape: bool = True  # a backslash keeps the next character inside it
    multiline: bool = True  # False: a newline before the closing delimiter leaves it unclosed
    # it opens only where the character before is none of these (and not beyond ASCII): a
    # quote after an identifier is Haskell's x' or Julia's transpose A'
    not_after: str = ""


class CommentStyle(NamedTuple):
    """How comments are found in the text, for the scanner of ``preprocess.py`` and
    ``csrc/comments.c`` (keyword arguments; immutable).

    At each position the scanner tries, in this order: a Lua long comment (a line-comment
    opener followed by a long bracket ``[==[``, closed by ``]==]``), each ``block`` comment,
    each ``line`` comment, a Lua long string, each quote, a backslash escape; the first that
    matches (a block, long comment or quote only when closed) is taken, else the character is
    copied. A comment becomes one space, a string or escape is copied; then the lines left
    blank are dropped.
    """

    block: tuple[tuple[str, str], ...] = ()  # (opener, closer)
    nested: bool = False  # block comments nest (Haskell, Julia)
    line: tuple[str, ...] = ()  # openers of comments running to the end of the line
    # Bash: ``#`` opens a comment only at the start of a word (first character, or after
    # whitespace or one of ; | & ( ) < >): $# and ${#x} stay
    line_at_word_start: bool = False
    # Haskell: a line opener touching one of these characters (before it, or after its run
    # of repeated last characters) is part of an operator (-->, |--), not a comment
    line_symbols: str = ""
    long_brackets: bool = False  # Lua: long comments --[[ ]] and long strings [[ ]]
    quotes: tuple[Quote, ...] = ()  # tried in order (a triple quote before its single one)
    escapes_outside: bool = False  # Bash: a backslash outside quotes keeps the next character


# The package's regular expression for every language but Python and Ruby: // and /* */
# comments, single- and double-quoted strings with backslash escapes, spanning lines.
C_STYLE = CommentStyle(
    block=(("/*", "*/"),), line=("//",), quotes=(Quote("'"), Quote('"')),
)

# The languages the package does not have, from their references: Lua 5.4 manual 3.1, Bash
# manual 3.1.2-3.1.2.3 (comments, quoting), Haskell 2010 report 2.2-2.3 (comments, nested
# comments) and 2.6 (literals), Julia manual "Strings" and "Comments". Kotlin, Swift and
# Scala use the package's C-family style, as the package does for Java, Go and Rust (their
# block comments nest, as Rust's do: the package does not nest them for any language).
SCANNED_STYLES: dict[str, CommentStyle] = {
    "c": C_STYLE,
    "lua": CommentStyle(
        line=("--",), long_brackets=True,
        quotes=(Quote("'", multiline=False), Quote('"', multiline=False)),
    ),
    "bash": CommentStyle(
        line=("#",), line_at_word_start=True, escapes_outside=True,
        quotes=(Quote("'", escape=False), Quote('"')),
    ),
    "haskell": CommentStyle(
        block=(("{-", "-}"),), nested=True, line=("--",), line_symbols="!#$%&*+./<=>?@\\^|~:",
        quotes=(Quote('"', multiline=False),
                Quote("'", multiline=False, not_after="ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                      "abcdefghijklmnopqrstuvwxyz0123456789_'")),
    ),
    "julia": CommentStyle(
        block=(("#=", "=#"),), nested=True, line=("#",),
        quotes=(Quote('"""'), Quote('"'), Quote("`"),
                Quote("'", multiline=False, not_after="ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                      "abcdefghijklmnopqrstuvwxyz0123456789_')]}.")),
    ),
}

# How comments are removed before the syntax and dataflow components (preprocess.py): the
# package's "python" (tokenize's rules: comments and docstrings) and "none" (Ruby: kept), or a
# style of SCANNED_STYLES ("c": the package's regular expression for the C family).
COMMENT_STYLES: dict[str, str] = {
    "python": "python",
    "ruby": "none",
    **dict.fromkeys(
        ("c", "c_sharp", "cpp", "go", "java", "javascript", "php", "rust", "typescript",
         "kotlin", "swift", "scala"), "c"
    ),
    "lua": "lua",
    "bash": "bash",
    "haskell": "haskell",
    "julia": "julia",
}
