"""PHP: everything the library knows of it."""

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
    "__halt_compiler abstract and array as break callable case catch class clone const "
    "continue declare default die do echo else elseif empty enddeclare endfor endforeach "
    "endif endswitch endwhile eval exit extends final for foreach function global goto if "
    "implements include include_once instanceof insteadof interface isset list namespace new "
    "or print private protected public require require_once return static switch throw trait "
    "try unset use var while xor"
)

RULES = DataflowRules(
    definition=("simple_parameter",),
    definition_value="default_value",
    assignment=("assignment_expression", "augmented_assignment_expression"),
    increment=("update_expression",),
    branch=("if_statement", "else_clause"),
    branch_keeps_input="always",
    c_for=("for_statement",),
    c_for_restart="assignment_expression",
    foreach=("foreach_statement",),
    foreach_variable_pair=True,
    loop=("while_statement",),
)

COMMENT_STYLE = C_STYLE

PROBE = (
    "<?php\n"
    "function f($a, $b = 1) { foreach ($b as $k => $v) { $a += $v; } // c\n"
    "if ($a > 0) { return $a; } else { return -$a; } }\n"
    "class C { public $x = 1; }\n"
    "$x = ;"
)


_PHP_PARSE = re.compile(r"(?:^|\n)(?:PHP )?Parse error: ")


def _classify_run(step: Any) -> str:
    if step.status == "timeout":
        return "Timeout"
    if _PHP_PARSE.search(step.stdout) or _PHP_PARSE.search(step.stderr):
        return "SyntaxError"
    return "OK" if step.passed else "Exception"

# the completion proof: after the text, back in PHP mode whether the text closed it or not
# (PHP cannot open /proc/self/fd/N of a memory file: its php://fd/N streams)
_END = (
    '\\file_put_contents("php://fd/4", "passed " . \\file_get_contents("php://fd/3") '
    '. "\\n");\n'
)


# A pass proves the test ran as PHP: a text that leaves PHP mode before its end (a `?>`,
# in code or in a line comment, after which the test would be printed, not run) fails. PHP's
# own tokenizer decides, on a block of ours before the text on its first line (line numbers
# stay): it reads the file before any code of the program runs, and ends the run when inline
# text (other than whitespace) follows the program's first opening tag.
_START = (
    "<?php (static function () { $cgm_ours = true; $cgm_open = false; "
    "foreach (\\token_get_all(\\file_get_contents(__FILE__)) as $cgm_token) { "
    "if (!\\is_array($cgm_token)) { continue; } "
    "if ($cgm_ours) { $cgm_ours = $cgm_token[0] !== \\T_CLOSE_TAG; continue; } "
    "if ($cgm_token[0] === \\T_OPEN_TAG || $cgm_token[0] === \\T_OPEN_TAG_WITH_ECHO) { "
    "$cgm_open = true; } "
    "elseif ($cgm_open && $cgm_token[0] === \\T_INLINE_HTML && \\trim($cgm_token[1]) !== '') { "
    "\\fwrite(\\STDERR, \"the program leaves PHP mode before its end (line $cgm_token[2]): \" "
    ". \"what follows would be printed, not run\\n\"); exit(1); } } })(); ?>"
)


def _finish(text: str) -> str:
    closed = text.rstrip().endswith("?>")
    return _START + text + ("<?php " if closed else "\n?><?php ") + _END


EXECUTION = ExecutionPart(
    tools=(Tool("php", ("php",), "php-cli"),),
    source="main.php",
    finish=_finish,
    parsed_test=lambda test: "<?php\n" + test,
    proof=(
        "a statement after the text (back in PHP mode) writes the token; a text that leaves "
        "PHP mode before its end (its test printed, not run) fails, PHP's own tokenizer "
        "reading the file before the program's code runs"
    ),
    memory_errors=("Allowed memory size of", "Out of memory"),
    commands=(Command(("{php}", "{source}"), vouch=True),),
    classify_run=_classify_run,
    default_timeout=15.0,
    canary=(
        "<?php\n"
        "function add($a, $b) {\n"
        "    return $a + $b;\n"
        "}\n"
        "function candidate(...$args) {\n"
        "    return add(...$args);\n"
        "}\n"
        "\n"
        "function test(): void {\n"
        '    if (candidate(2, 3) !== 5) { throw new Exception("Test failed!"); }\n'
        "}\n"
        "\n"
        "test();\n"
    ),
    multipl_e="php F (15 s)",
    notes=(
        "a parse error is a SyntaxError wherever PHP prints it (MultiPL-E looks for it on"
        " stdout only, where PHP's CLI with Debian's php.ini never prints it, and records"
        " Exception); a timeout is Timeout (MultiPL-E: Exception)"
    ),
)

EXTRACTION = ExtractionPart(
    tags=("php",),
    definition=r"^[ \t]*function[ \t]+(?P<name>\w+)",
    code_start=r"(?:<\?php|function |class |use |namespace |declare\(|const )",
    no_code='<?php\nfwrite(STDERR, "no code in the answer\\n");\nexit(1);\n',
    keep=node_set(
        "function_definition class_declaration interface_declaration trait_declaration "
        "enum_declaration const_declaration namespace_use_declaration"
    ),
    open_tag="<?php",
    tests_define=True,
    cleanups=((r"^\s*<\?php\b", ""), (r"\?>\s*$", "")),
)

LANGUAGE = Language(
    name="php",
    display_name="PHP",
    aliases=(),
    multipl_e=("php",),
    extensions=(".php",),
    parsing=LanguageSpec(
        "php",
        "tree_sitter_php",
        "language_php",
        comment_types=frozenset({"comment"}),
        string_types=frozenset({"encapsed_string", "heredoc", "nowdoc", "string"}),
        identifier_types=frozenset({"name"}),
    ),
    codebleu=CodeBleuPart(KEYWORDS, RULES, COMMENT_STYLE, PROBE),
    tsed=TsedPart(pack="php"),
    execution=EXECUTION,
    extraction=EXTRACTION,
    cost={
        "chrf_code": 0.0001,
        "codebleu": 0.00041,
        "ruby": 0.0009,
        "bleu": 0.00072,
        "edit_sim": 1e-05,
        "meteor": 0.00031,
        "rouge_l": 0.0001,
        "rouge_w": 0.0018,
        "tsed": 0.00077,
        "crystal_bleu": 0.00028,
        "codexglue_edit_sim": 8e-06,
    },
)
