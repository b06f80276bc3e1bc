"""Lua: everything the library knows of it."""

import re
from typing import Any

from . import Language
from .parts import (
    TOKEN,
    VERDICT,
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
    ran,
    words,
)

# Lua 5.4 Reference Manual, section 3.1 "Lexical Conventions"
# (https://www.lua.org/manual/5.4/manual.html#3.1): the reserved keywords.
KEYWORDS = words(
    "and break do else elseif end false for function goto if in local nil not or repeat "
    "return then true until while"
)

RULES = DataflowRules(
    definition=("for_generic_clause", "for_numeric_clause"),
    definition_value="start",
    assignment=("assignment_statement",),
    assignment_style="tuple",
    branch=("if_statement", "elseif_statement", "else_statement"),
    branch_style="plain",
    loop=("for_statement", "while_statement", "repeat_statement"),
    separators=("=", "in"),
)

COMMENT_STYLE = CommentStyle(
    line=("--",),
    long_brackets=True,
    quotes=(
        Quote(delimiter="'", escape=True, multiline=False, not_after=""),
        Quote(delimiter='"', escape=True, multiline=False, not_after=""),
    ),
)

PROBE = (
    "local function f(a, b) local s = a for _, v in ipairs(b) do s = s + v end -- c\n"
    "if s > 0 then return s else return -s end end\n"
    "local t = {x = 1}\n"
    "local y = "
)


_LUA_LOAD_ERROR = re.compile(r"^[^\n:]+: main\.lua:\d+: ")


def _classify_run(step: Any) -> str:
    # a chunk that does not load is reported in one line, without a traceback
    load_error = _LUA_LOAD_ERROR.match(step.stderr) and "stack traceback:" not in step.stderr
    return ran(step) or ("SyntaxError" if load_error else "Exception")

# the completion proof: MultiPL-E's last line `os.exit(lu.LuaUnit.run())` becomes one line
# (line numbers stay) that writes the token when the tests passed; a text without it gets the
# token at its end. A pass proves the tests ran: luaunit is loaded on the text's first line,
# before the program's code runs (so it reads the command line of ours, not a global `arg`
# the program sets), and a runner of that luaunit runs the tests with arguments of ours;
# the token follows only when the test library the test uses (its `lu`) is that luaunit
# with its functions as loaded, the globals have no metatable (that could hide or swap
# them), and as many tests ran and passed as the text defines test functions (luaunit's
# rule: a global function whose name starts with "test").
_RUN = "os.exit(lu.LuaUnit.run())"
_TEST_FUNCTION = re.compile(r"^[ \t]*function[ \t]+([Tt][Ee][Ss][Tt][\w]*)[ \t]*\(", re.MULTILINE)
_START = (
    "local cgm_lu_ = require('luaunit'); local cgm_loaded_ = {}; local cgm_pairs_, "
    "cgm_rawequal_, cgm_rawget_, cgm_getmetatable_ = pairs, rawequal, rawget, getmetatable; "
    "for cgm_k_, cgm_v_ in pairs(cgm_lu_) do cgm_loaded_[cgm_k_] = cgm_v_ end; "
    "for cgm_k_, cgm_v_ in pairs(cgm_lu_.LuaUnit) do cgm_loaded_['LuaUnit.' .. cgm_k_] = cgm_v_ "
    "end; "
)
_WRITE = (
    f'local cgm_token_ = io.open("{TOKEN}", "rb"); local cgm_verdict_ = '
    f'io.open("{VERDICT}", "ab"); cgm_verdict_:write("passed " .. '
    'cgm_token_:read("a") .. "\\n"); cgm_verdict_:close(); cgm_token_:close()'
)
_END = (
    "do local cgm_same_ = cgm_rawequal_(lu, cgm_lu_) and cgm_getmetatable_(_G) == nil; "
    "for cgm_k_, cgm_v_ in cgm_pairs_(cgm_loaded_) do "
    "local cgm_name_ = cgm_k_:match('^LuaUnit%.(.*)'); cgm_same_ = cgm_same_ and "
    "cgm_rawequal_(cgm_name_ and cgm_rawget_(cgm_lu_.LuaUnit, cgm_name_) or "
    "cgm_rawget_(cgm_lu_, cgm_k_), cgm_v_) end; "
    "local cgm_runner_ = cgm_loaded_['LuaUnit.new'](); "
    "local cgm_failures_ = cgm_runner_:runSuite('--output', 'text'); "
    "local cgm_result_ = cgm_runner_.result; "
    "if cgm_failures_ == 0 and not (cgm_same_ and cgm_result_.runCount >= {count} and "
    "cgm_result_.successCount == cgm_result_.runCount) then "
    "io.stderr:write('not every test of the program ran and passed: {count} test functions, ' "
    ".. cgm_result_.runCount .. ' ran' .. (cgm_same_ and '' or ', with a test library other "
    "than luaunit as loaded') .. '\\n'); cgm_failures_ = 1 end; "
    "if cgm_failures_ == 0 then {write} end; os.exit(cgm_failures_) end"
)


def _finish(text: str) -> str:
    at = text.rfind(_RUN)
    if at < 0:
        return text + "\n" + _WRITE + "\n"
    count = max(1, len(set(_TEST_FUNCTION.findall(text))))
    end = _END.replace("{count}", str(count)).replace("{write}", _WRITE)
    return _START + text[:at] + end + text[at + len(_RUN) :]


EXECUTION = ExecutionPart(
    tools=(
        Tool("lua", ("lua5.3", "lua"), "lua5.3", version=("-v",)),
        Tool(
            "luaunit",
            ("/usr/share/lua/5.3/luaunit.lua", "/usr/local/share/lua/5.3/luaunit.lua"),
            "lua-unit",
            kind="file",
        ),
    ),
    source="main.lua",
    finish=_finish,
    proof=(
        "luaunit is loaded on the first line, before the program's code; the last "
        "`os.exit(lu.LuaUnit.run())` runs the tests with a runner of that luaunit and "
        "arguments of ours, and writes the token when the test used that luaunit unchanged "
        "and as many tests ran and passed as the text defines test functions"
    ),
    memory_errors=("not enough memory",),
    commands=(Command(("{lua}", "{source}"), vouch=True),),
    classify_run=_classify_run,
    default_timeout=15.0,
    canary=(
        "local function add(a, b)\n"
        "  return a + b\n"
        "end\n"
        "\n"
        "lu = require('luaunit')\n"
        "\n"
        "function test_humaneval()\n"
        "local candidate = add\n"
        "    lu.assertEquals(candidate(2, 3), 5)\n"
        "end\n"
        "\n"
        "os.exit(lu.LuaUnit.run())\n"
    ),
    multipl_e="lua F (Lua 5.3 with luaunit, 15 s)",
    notes=(
        "a chunk that does not parse is a SyntaxError (MultiPL-E's Lua rule has no "
        "SyntaxError and records Exception)"
    ),
)

EXTRACTION = ExtractionPart(
    tags=("lua",),
    definition=r"^[ \t]*(?:local[ \t]+)?function[ \t]+(?P<name>[\w.:]+)",
    code_start=r"(?:local |function |[A-Za-z_]\w* = )",
    no_code='error("no code in the answer")\n',
    keep=frozenset({"function_declaration", "variable_declaration", "assignment_statement"}),
)

LANGUAGE = Language(
    name="lua",
    display_name="Lua",
    aliases=(),
    multipl_e=("lua",),
    extensions=(".lua",),
    parsing=LanguageSpec(
        "lua",
        "tree_sitter_lua",
        "language",
        comment_types=frozenset({"comment"}),
        string_types=frozenset({"string"}),
        identifier_types=frozenset({"identifier"}),
    ),
    codebleu=CodeBleuPart(KEYWORDS, RULES, COMMENT_STYLE, PROBE),
    tsed=TsedPart(pack="lua"),
    execution=EXECUTION,
    extraction=EXTRACTION,
)
