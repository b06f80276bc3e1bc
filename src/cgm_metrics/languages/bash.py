"""Bash: everything the library knows of it."""

import re

from . import Language
from .parts import (
    TOKEN,
    CodeBleuPart,
    Command,
    CommentStyle,
    DataflowRules,
    ExecutionPart,
    ExtractionPart,
    LanguageSpec,
    Quote,
    Tool,
    TsedPart,
    stderr_says,
    words,
)

# Bash Reference Manual, section 3.2.1 "Reserved Words"
# (https://www.gnu.org/software/bash/manual/bash.html#Reserved-Words).
KEYWORDS = words(
    "if then elif else fi time for in until while do done case esac coproc select function"
)

RULES = DataflowRules(
    definition=("variable_assignment",),
    increment=("postfix_expression",),
    branch=("if_statement",),
    branch_style="elif_chain",
    c_for=("c_style_for_statement",),
    c_for_restart="variable_assignment",
    foreach=("for_statement",),
    foreach_name="variable",
    loop=("while_statement",),
    identifier="variable_name",
    atomic=("ansi_c_string", "raw_string"),
    opaque=("test_operator",),
)

COMMENT_STYLE = CommentStyle(
    line=("#",),
    line_at_word_start=True,
    quotes=(
        Quote(delimiter="'", escape=False, multiline=True, not_after=""),
        Quote(delimiter='"', escape=True, multiline=True, not_after=""),
    ),
    escapes_outside=True,
)

PROBE = (
    'f() { local s=$1; for v in "$@"; do s=$((s + v)); done # c\n'
    'if [ "$s" -gt 0 ]; then echo "$s"; else echo 0; fi; }\n'
    "x=(1 2)\n"
    "y=$(( "
)

# the completion proof: after the test's last command, when it succeeded (set -e ends the
# script before). The test's failure path is `set -e`: a failing check ends the script. So
# that no program can defuse it, the text's first line (line numbers stay) disables the
# `trap` builtin, and `enable` with it, before the program's code runs: no ERR, RETURN or
# DEBUG trap can return success from the test or skip its checks (not through `builtin` or
# `command` either); and a text with `set -e` passes only if errexit is still on after its
# last command (a function named `set` makes the test's `set -e` do nothing).
_START = "enable -n trap enable; "
_SET_E = re.compile(r"^[ \t]*set[ \t]+-e\b", re.MULTILINE)
_WRITE = f"printf 'passed %s\\n' \"$(< {TOKEN})\" >&4"
_END = (
    "\ncgm_status_=$?; if (( cgm_status_ == 0 )) && ! [[ :$SHELLOPTS: == *:errexit:* ]]; then "
    "cgm_status_=1; printf '%s\\n' 'not every check of the test ran: set -e is off after "
    "it' >&2; fi; if (( cgm_status_ == 0 )); then " + _WRITE + "; fi; exit \"$cgm_status_\"\n"
)
_END_PLAIN = (
    "\ncgm_status_=$?; if (( cgm_status_ == 0 )); then " + _WRITE + "; fi; exit "
    "\"$cgm_status_\"\n"
)


def _finish(text: str) -> str:
    return _START + text + (_END if _SET_E.search(text) else _END_PLAIN)


EXECUTION = ExecutionPart(
    tools=(Tool("bash", ("/bin/bash", "/usr/bin/bash", "bash"), "bash"),),
    source="main.sh",
    finish=_finish,
    proof=(
        "a command after the text writes the token when the last command succeeded (and "
        "errexit is still on, in a text that sets it); the first line disables `trap` and "
        "`enable` before the program's code runs"
    ),
    memory_errors=("cannot allocate memory", "xmalloc: cannot allocate"),
    commands=(Command(("{bash}", "{source}"), vouch=True),),
    classify_run=stderr_says("syntax error"),
    default_timeout=15.0,
    canary=(
        "#!/bin/bash\n"
        "add() {\n"
        "    echo $(( $1 + $2 ))\n"
        "}\n"
        "\n"
        "candidate() {\n"
        '    add "$@"\n'
        "}\n"
        "\n"
        "set -e\n"
        "run_test() {\n"
        '    [[ $(candidate "2" "3") = "5" ]]\n'
        "}\n"
        "\n"
        "run_test\n"
    ),
    multipl_e="bash F (15 s)",
)

EXTRACTION = ExtractionPart(
    tags=("bash", "sh", "shell", "zsh", "shellscript", "ksh"),
    definition=r"^[ \t]*(?:(?:function[ \t]+)?(?P<name>[\w-]+)[ \t]*\([ \t]*\)|function[ \t]+"
    r"(?P<alt>[\w-]+))",
    code_start=r"(?:#!|function |[\w-]+[ \t]*\(\)|[A-Za-z_]\w*=|declare |local |set )",
    no_code='echo "no code in the answer" >&2\nexit 1\n',
    keep=frozenset({"function_definition", "variable_assignment", "declaration_command"}),
    words_are_code=True,
    bare_calls=r"(?:^|[\s;$(|&])([A-Za-z_][\w-]*)",
    tests_define=True,
    cleanups=((r"^#!.*\n", ""),),
)

LANGUAGE = Language(
    name="bash",
    display_name="Bash",
    aliases=("shell",),
    multipl_e=("sh",),
    extensions=(".sh", ".bash"),
    parsing=LanguageSpec(
        "bash",
        "tree_sitter_bash",
        "language",
        comment_types=frozenset({"comment"}),
        string_types=frozenset({"ansi_c_string", "raw_string", "string", "translated_string"}),
        identifier_types=frozenset({"variable_name"}),
    ),
    codebleu=CodeBleuPart(KEYWORDS, RULES, COMMENT_STYLE, PROBE),
    tsed=TsedPart(pack="bash"),
    execution=EXECUTION,
    extraction=EXTRACTION,
)
