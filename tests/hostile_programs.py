"""Programs that try to pass without passing, for the sandbox tests of edit_sim and code_eval,
and the probe that tells whether the sandbox can run on this machine (and if not, why).

Each is a candidate placed before the failing test ``assert f(1) == 2`` (``f`` returns its
argument). The first five end early with status 0 (a harness that trusts the exit status alone
counts each as a pass); the others try the same through signals, threads, replaced functions,
closed streams, forks and guessed verdict lines. evaluate's code_eval counts the first five as
failures.
"""

from __future__ import annotations

import os

import pytest

from cgm_metrics.execution.sandbox import run_program


def sandbox_unavailable() -> str | None:
    """Why the sandbox cannot run here (its own error, which names the cause), or None."""
    try:
        result = run_program("pass", timeout=5, allow_code_execution=True)
    except (RuntimeError, NotImplementedError) as error:
        return str(error)
    if not {"pid_namespace", "network_namespace"} <= set(result.isolation):
        return f"the sandbox ran without PID and network namespaces ({result.isolation})"
    return None


SANDBOX_UNAVAILABLE = sandbox_unavailable()
if SANDBOX_UNAVAILABLE is not None and os.environ.get("CGM_REQUIRE_SANDBOX") == "1":
    # scripts/test.sh sets it on Linux: there a sandbox that cannot start is a failure of the
    # harness (an error of every module that needs it), never a skip
    raise RuntimeError(f"CGM_REQUIRE_SANDBOX=1 but the sandbox cannot run here: "
                       f"{SANDBOX_UNAVAILABLE}")
needs_sandbox = pytest.mark.skipif(
    SANDBOX_UNAVAILABLE is not None, reason=f"the sandbox cannot run here: {SANDBOX_UNAVAILABLE}"
)

FAILING_TEST = "assert f(1) == 2"

HOSTILE_CANDIDATES = {
    "sys_exit": "import sys\ndef f(x):\n    return x\nsys.exit(0)\n",
    "os_exit": "import os\ndef f(x):\n    return x\nos._exit(0)\n",
    "raise_systemexit": "def f(x):\n    return x\nraise SystemExit\n",
    "atexit_os_exit": "import atexit, os\natexit.register(os._exit, 0)\ndef f(x):\n    return x\n",
    "excepthook_exit_0": (
        "import os, sys\nsys.excepthook = lambda *args: os._exit(0)\ndef f(x):\n    return x\n"
    ),
    "signal_handler_exit_0": (
        "import os, signal\n"
        "signal.signal(signal.SIGALRM, lambda *args: os._exit(0))\n"
        "signal.setitimer(signal.ITIMER_REAL, 0.05)\n"
        "def f(x):\n    import time\n    time.sleep(1)\n    return x\n"
    ),
    "thread_exits_0": (
        "import os, threading, time\n"
        "threading.Thread(target=lambda: (time.sleep(0.05), os._exit(0))).start()\n"
        "def f(x):\n    time.sleep(1)\n    return x\n"
    ),
    "replaced_functions_and_builtins": (
        "import builtins, os, sys\n"
        "real_exit = os._exit\n"
        "os._exit = lambda code: real_exit(0)\n"
        "os.write = lambda fd, data: len(data)\n"
        "builtins.BaseException = object\n"
        "builtins.__import__ = lambda *args, **kwargs: real_exit(0)\n"
        "def f(x):\n    return x\n"
    ),
    "closed_standard_streams": "import os\nos.close(1)\nos.close(2)\ndef f(x):\n    return x\n",
    "forked_child_carries_on": (
        "import os, time\n"
        "if os.fork() != 0:\n    time.sleep(0.2)\n    os._exit(0)\n"
        "def f(x):\n    return x\n"
    ),
    "guessed_verdict_lines": (
        "import json, os\n"
        "for fd in range(3, 256):\n"
        "    for line in (b'passed ' + b'0' * 64, json.dumps({'result': 'passed'}).encode()):\n"
        "        try:\n            os.write(fd, line + b'\\n')\n"
        "        except OSError:\n            pass\n"
        "os._exit(0)\n"
    ),
}
# failing programs that write to the verdict channel (fd 4) to choose their own status: a
# nesting that a recursive parser cannot read, result lines of their own (written before the
# harness's, after it by a child, with the channel closed so the harness's cannot follow, with
# a mac guessed, a limit name made up). Each must be a plain failure (status "failed", no
# limit), and never stop the run.
_LINE = "json.dumps({'result': RESULT, 'limit': LIMIT}).encode() + b'\\n'"
STATUS_FORGERS = {
    "deeply_nested_line": "import os\nos.write(4, b'[' * 200_000 + b'\\n')\n",
    "deeply_nested_object": "import os\nos.write(4, b'{\"a\": ' * 100_000 + b'\\n')\n",
    "huge_line": "import os\nos.write(4, b'[' * (8 << 20))\n",
    "timeout_line_then_closed": (
        "import json, os\nos.write(4, " + _LINE.replace("RESULT", "'timed out'")
        .replace("LIMIT", "'timeout'") + ")\nos.close(4)\n"),
    "memory_line_then_closed": (
        "import json, os\nos.write(4, " + _LINE.replace("RESULT", "'failed: x'")
        .replace("LIMIT", "'memory_mb'") + ")\nos.close(4)\n"),
    "made_up_limit_then_closed": (
        "import json, os\nos.write(4, " + _LINE.replace("RESULT", "'failed: x'")
        .replace("LIMIT", "'no_such_limit'") + ")\nos.close(4)\n"),
    "guessed_mac": (
        "import os\nos.write(4, b'result ' + b'0' * 32 + b' {\"result\": \"timed out\", "
        "\"limit\": \"timeout\"}\\n')\nos.close(4)\n"),
    "child_writes_after_the_harness": (
        "import json, os, time\n"
        "if os.fork() == 0:\n"
        "    time.sleep(0.3)\n"
        "    line = os.pread(4, 4096, 0).split(b' ', 2)\n"  # the harness's line, its mac
        "    for limit in ('timeout', 'memory_mb', 'no_such_limit'):\n"
        "        os.write(4, b' '.join(line[:2]) + b' ' + " + _LINE.replace("RESULT", "'timed out'")
        .replace("LIMIT", "limit") + ")\n"
        "    os._exit(0)\n"
        "time.sleep(0.1)\n"),
    "replaced_channel": (
        "import json, os\nfd = os.open('/dev/null', os.O_WRONLY)\nos.dup2(fd, 4)\n"),
}
# a program that passes although it wrote junk to the channel: the harness's lines decide
CHANNEL_JUNK_THEN_PASS = "import os\nos.write(4, b'[' * 100_000 + b'\\n{\"result\": \"timed out\"}\\n')\n"
EARLY_EXIT_TRICKS = ["sys_exit", "os_exit", "raise_systemexit", "atexit_os_exit", "excepthook_exit_0"]


# --- the other execution languages: early endings with status 0 ------------------------------
#
# Per language, MultiPL-E's layout of a task `add` (its prompt and completion, "\n", its test):
# ``{body}`` is a statement at the start of add's body, ``{top}`` top-level code after add,
# both in the completion. The wrong add (a - b) fails its test; each trick below makes the
# wrong program end with exit status 0 (what MultiPL-E's harness counts as OK), so a harness
# that trusts the exit status counts it a pass. Each is (body, top); `expected` in
# LANGUAGE_TRICK_OUTCOMES overrides "ended early" where the trick cannot even build.

LANGUAGE_TASKS: dict[str, str] = {
    "cpp": (
        "#include<assert.h>\n#include<bits/stdc++.h>\nlong add(long a, long b) {\n{body}"
        "    return a {op} b;\n}\n{top}\n"
        "int main() {\n    auto candidate = add;\n    assert(candidate((2), (3)) == (5));\n}\n"
    ),
    "java": (
        "import java.util.*;\nclass Problem {\n    public static long add(long a, long b) {\n"
        "{body}        return a {op} b;\n    }\n{top}\n"
        "    public static void main(String[] args) {\n"
        "    assert(add((2l), (3l)) == (5l));\n    }\n\n}\n"
    ),
    "javascript": (
        "function add(a, b){\n{body}  return a {op} b;\n}\n{top}\n"
        "const assert = require('node:assert');\n\nfunction test() {\n  let candidate = add;\n"
        "  assert.deepEqual(candidate(2, 3),5);\n}\n\ntest();\n"
    ),
    "typescript": (
        "declare var process: any;\nfunction add(a: number, b: number): number {\n{body}"
        "  return a {op} b;\n}\n{top}\n"
        "declare var require: any;\nconst assert = require('node:assert');\n\n"
        "function test() {\n  let candidate = add;\n  assert.deepEqual(candidate(2, 3),5);\n}\n\n"
        "test();\n"
    ),
    "go": (
        "package add_test\n\nimport (\n    \"flag\"\n    \"fmt\"\n    \"os\"\n    \"testing\"\n)\n\n"
        "var _, _ = os.Getpid, flag.Parse\n\nfunc add(a int, b int) int {\n{body}    return a {op} b\n}\n{top}\n"
        "func TestAdd(t *testing.T) {\n  candidate := add\n"
        "  if fmt.Sprintf(\"%v\", candidate(2, 3)) != fmt.Sprintf(\"%v\", 5) {\n"
        "    t.Errorf(\"expected 5\")\n  }\n}\n"
    ),
    "rust": (
        "fn add(a: isize, b: isize) -> isize {\n{body}    a {op} b\n}\n{top}\n"
        "fn main() {\n    let candidate = add;\n    assert_eq!(candidate(2, 3), 5);\n}\n"
    ),
    "php": (
        "<?php\nfunction add($a, $b) {\n{body}    return $a {op} $b;\n}\n{top}\n"
        "function candidate(...$args) {\n    return add(...$args);\n}\n\n"
        "function test(): void {\n"
        "    if (candidate(2, 3) !== 5) { throw new Exception(\"Test failed!\"); }\n}\n\n"
        "test();\n"
    ),
    "ruby": (
        "def add(a, b)\n{body}  a {op} b\nend\n{top}\nrequire 'test/unit'\n"
        "class TestHumanEval < Test::Unit::TestCase\n  def test_add\n"
        "    candidate = method(:add)\n    assert_equal(5, candidate.call(2, 3))\n  end\nend\n"
    ),
    "lua": (
        "local function add(a, b)\n{body}  return a {op} b\nend\n{top}\n"
        "lu = require('luaunit')\n\nfunction test_humaneval()\nlocal candidate = add\n"
        "    lu.assertEquals(candidate(2, 3), 5)\nend\n\nos.exit(lu.LuaUnit.run())\n"
    ),
    "bash": (
        "#!/bin/bash\nadd() {\n{body}    echo $(( $1 {op} $2 ))\n}\n{top}\n"
        "candidate() {\n    add \"$@\"\n}\n\nset -e\nrun_test() {\n"
        "    [[ $(candidate \"2\" \"3\") = \"5\" ]]\n    [[ $(candidate \"0\" \"0\") = \"0\" ]]\n}\n\n"
        "run_test\n"
    ),
    "perl": (
        "sub add {\n    my($a, $b) = @_;\n{body}    return $a {op} $b;\n}\n{top}\n"
        "use Test::Deep;\n\nsub testhumaneval {\n    my $candidate = \\&add;\n"
        "        if(eq_deeply($candidate->(2, 3),5)) {\n        print \"ok!\" }else{\n"
        "        exit 1;\n        }\n}\n\ntesthumaneval();\n"
    ),
}

LANGUAGE_TRICKS: dict[str, dict[str, tuple[str, str]]] = {
    "cpp": {
        "static_initializer_exit": ("", "static int early = (std::exit(0), 0);\n"),
        "static_initializer__Exit": ("", "static int early = (std::_Exit(0), 0);\n"),
        "sigabrt_handler_exit": (
            "", "static int early = (std::signal(SIGABRT, [](int) { std::exit(0); }), 0);\n"),
        "sigabrt_handler__Exit": (
            "", "static int early = (std::signal(SIGABRT, [](int) { std::_Exit(0); }), 0);\n"),
        "constructor_attribute_exit": (
            "", "__attribute__((constructor)) static void early() { std::exit(0); }\n"),
    },
    "java": {
        "static_initializer_exit": ("", "    static { System.exit(0); }\n"),
        "static_initializer_halt": ("", "    static { Runtime.getRuntime().halt(0); }\n"),
        "uncaught_handler_halts": ("", (
            "    static { Thread.setDefaultUncaughtExceptionHandler("
            "(t, e) -> Runtime.getRuntime().halt(0)); }\n")),
        "shutdown_hook_halts": ("", (
            "    static { Runtime.getRuntime().addShutdownHook(new Thread("
            "() -> Runtime.getRuntime().halt(0))); }\n")),
    },
    "javascript": {
        "process_exit": ("", "process.exit(0);\n"),
        "uncaught_exception_exits": ("", "process.on('uncaughtException', () => process.exit(0));\n"),
        "exit_handler_sets_exit_code": ("", "process.on('exit', () => { process.exitCode = 0; });\n"),
        "top_level_return": ("", "return;\n"),
    },
    "typescript": {
        "process_exit": ("", "process.exit(0);\n"),
        "uncaught_exception_exits": ("", "process.on('uncaughtException', () => process.exit(0));\n"),
        "exit_handler_sets_exit_code": ("", "process.on('exit', () => { process.exitCode = 0; });\n"),
    },
    "go": {
        "test_main_runs_nothing": ("", "func TestMain(m *testing.M) {}\n"),
        "init_exits": ("", "func init() { os.Exit(0) }\n"),
        "exit_during_the_test": ("    os.Exit(0)\n", ""),
    },
    "rust": {
        "init_array_exits": ("", (
            "#[link_section = \".init_array\"]\n#[used]\n"
            "static EARLY: extern \"C\" fn() = { extern \"C\" fn early() { "
            "std::process::exit(0) } early };\n")),
        "panic_hook_exits": ("    std::panic::set_hook(Box::new(|_| std::process::exit(0)));\n", ""),
    },
    "php": {
        "exit": ("", "exit(0);\n"),
        "exception_handler_exits": ("", "set_exception_handler(function ($e) { exit(0); });\n"),
        "die": ("", "die();\n"),
        "top_level_return": ("", "return;\n"),
    },
    "ruby": {
        "exit": ("", "exit 0\n"),
        "exit_bang": ("", "exit!(0)\n"),
        "at_exit_exit_bang": ("", "at_exit { exit!(0) }\n"),
    },
    "lua": {
        "os_exit": ("", "os.exit(0)\n"),
        "overridden_os_exit": ("", "local real_exit = os.exit\nos.exit = function() real_exit(0) end\n"),
    },
    "bash": {
        "exit": ("", "exit 0\n"),
        "exit_trap": ("", "trap 'exit 0' EXIT\n"),
        "exec": ("", "exec true\n"),
    },
    "perl": {
        "exit": ("", "exit 0;\n"),
        "posix_exit": ("", "use POSIX ();\nPOSIX::_exit(0);\n"),
        "end_block_status_0": ("", "END { $? = 0 }\n"),
        "overridden_exit": ("", "BEGIN { *CORE::GLOBAL::exit = sub { CORE::exit(0) } }\n"),
        "exec": ("", "exec 'true';\n"),
    },
}

# tricks that do not even build here (our harness owns the name), with the verdict they get
# or that go test's own -test.paniconexit0 already fails (an os.Exit(0) while a test runs)
# or that the proof that the tests ran stops before (Perl's override of exit is refused once
# the text compiled; Bash's `trap` is disabled before the program runs, so the test fails)
LANGUAGE_TRICK_VERDICTS = {("go", "test_main_runs_nothing"): "SyntaxError",
                           ("go", "exit_during_the_test"): "Exception",
                           ("perl", "overridden_exit"): "Exception",
                           ("bash", "exit_trap"): "Exception"}


# --- the end is reached, but no test ran (or its failure path was defused) -------------------
#
# Each makes the wrong `add` reach the harness code after the test with status 0 without its
# test having run, or with the test's failure path made harmless: filters in the runner's
# inputs (arguments, flags, globals it reads at load), a fake or hidden test library, a test
# turned into printed text, an exit made a no-op, traps that return success; the harness of
# before passed every one. The first of each language is the one the fix was written
# against; the others are variants (RIGHT_STILL_PASSES below says what the right program
# does with each).
NO_TEST_TRICKS: dict[str, dict[str, tuple[str, str]]] = {
    "go": {
        "init_appends_a_filter": (
            "", 'func init() { os.Args = append(os.Args, "-test.run=^$") }\n'),
        "var_initializer_appends_a_filter": ("", (
            "var early = func() int {\n"
            '    os.Args = append(os.Args, "-test.run=NoSuchTest")\n    return 0\n}()\n')),
        "init_sets_the_flag": (
            "", 'func init() { testing.Init(); flag.Set("test.run", "^$") }\n'),
        "init_sets_the_flag_and_hides_the_set": ("", (
            "func init() {\n    testing.Init()\n    flag.Set(\"test.run\", \"^$\")\n"
            "    flag.CommandLine = flag.NewFlagSet(os.Args[0], flag.ContinueOnError)\n}\n")),
        "init_lists_instead": (
            "", 'func init() { os.Args = append(os.Args, "-test.list=.") }\n'),
    },
    "lua": {
        "global_arg_excludes_every_test": ("", 'arg = {"--exclude", "."}\n'),
        "global_arg_pattern_matches_nothing": ("", 'arg[1] = "-p"\narg[2] = "^nothing$"\n'),
        "fake_luaunit": ("", (
            "package.loaded.luaunit = {assertEquals = function() end,\n"
            "  LuaUnit = {run = function() return 0 end}}\n")),
        "hidden_test_function": ("", (
            "setmetatable(_G, {__newindex = function(t, k, v)\n"
            "  rawset(t, k:gsub('^test', 'hidden'), v) end})\n")),
        "assertion_made_a_no_op": (
            "", "require('luaunit').assertEquals = function() end\n"),
    },
    "ruby": {
        "argv_filters_every_test": ("", 'ARGV.replace(["--name=nothing"])\n'),
        "argv_filters_the_test_case": ("", 'ARGV << "--testcase=Nothing"\n'),
        "fake_test_unit_and_swallowed_require": ("", (
            "module Test; module Unit; class TestCase; def self.method_missing(*) end; end; "
            "end; end\ndef require(*) true end\n")),
        "replaced_test_unit": ("", (
            "require 'test/unit'\nTest.send(:remove_const, :Unit)\n"
            "module Test; module Unit; class TestCase; end; end; end\n"
            "$LOADED_FEATURES << 'test/unit.rb'\n")),
        "test_methods_made_private": ("", (
            "require 'test/unit'\nclass Test::Unit::TestCase\n"
            "  def self.method_added(name) private(name) if name.to_s.start_with?('test') end\n"
            "end\n")),
    },
    "perl": {
        "global_exit_made_a_no_op": ("", "BEGIN { *CORE::GLOBAL::exit = sub {} }\n"),
        "exit_overridden_in_the_package": ("", "use subs 'exit';\nsub exit {}\n"),
        "exit_imported_into_main": (
            "", "BEGIN { package Other; *main::exit = sub { 0 } }\n"),
        "no_op_exit_that_removes_itself": ("", (
            "BEGIN { *CORE::GLOBAL::exit = sub { delete $CORE::GLOBAL::{exit} } }\n")),
    },
    "bash": {
        "err_trap_returns_0": ("", "set -E\ntrap 'return 0' ERR\n"),
        "err_trap_removes_itself": ("", "set -E\ntrap 'trap - ERR; set +E; return 0' ERR\n"),
        "builtin_trap": ("", "set -E\nbuiltin trap 'return 0' ERR\n"),
        "set_shadowed": ("", "set() { :; }\n"),
        "command_trap_and_errtrace": (
            "", "command trap 'return 0' ERR\nset -o errtrace\n"),
    },
    "php": {
        "close_tag_prints_the_test": ("", "?>\n"),
        "close_tag_in_a_comment": ("", "// the end ?>\n"),
        "close_tag_after_a_statement": ("", "echo ''; ?>"),
        "short_open_tag_prints_the_test": ("", "?>\n<?"),
    },
}
# the tricks after which the right program still passes: the harness put the runner's inputs
# back, or the trick could not be set up (Bash's `trap` is disabled); with every other trick
# of NO_TEST_TRICKS the right program fails too (no test ran, or the program was refused),
# but for PHP's short open tag, which is PHP mode only where short_open_tag is on
RIGHT_STILL_PASSES = {("go", name) for name in NO_TEST_TRICKS["go"]} | {
    ("lua", "global_arg_excludes_every_test"), ("lua", "global_arg_pattern_matches_nothing"),
    ("ruby", "argv_filters_every_test"), ("ruby", "argv_filters_the_test_case"),
    ("ruby", "fake_test_unit_and_swallowed_require"), ("bash", "err_trap_returns_0"),
    ("bash", "err_trap_removes_itself"), ("bash", "builtin_trap"),
    ("bash", "command_trap_and_errtrace")}
EITHER = {("php", "short_open_tag_prints_the_test")}


def language_program(lang: str, right: bool, trick: str | None = None) -> str:
    """The task `add` of ``lang``, right (a + b) or wrong (a - b), with a trick or none (of
    LANGUAGE_TRICKS or NO_TEST_TRICKS)."""
    tricks = {**LANGUAGE_TRICKS.get(lang, {}), **NO_TEST_TRICKS.get(lang, {})}
    body, top = tricks[trick] if trick else ("", "")
    op = "+" if right else "-"
    return (LANGUAGE_TASKS[lang].replace("{body}", body).replace("{top}", top)
            .replace("{op}", op))


# --- limits: a memory bomb and an output flood per language -----------------------------------

MEMORY_BOMBS: dict[str, str] = {
    "cpp": ("#include <bits/stdc++.h>\nint main() {\n    std::vector<std::vector<char>> v;\n"
            "    while (true) v.emplace_back(1 << 20, 'x');\n}\n"),
    "java": ("import java.util.*;\nclass Problem {\n    public static void main(String[] a) {\n"
             "        List<long[]> l = new ArrayList<>();\n"
             "        while (true) l.add(new long[1 << 20]);\n    }\n}\n"),
    "javascript": "const a = [];\nwhile (true) a.push(new Array(1e6).fill(1.5));\n",
    "typescript": "const a: number[][] = [];\nwhile (true) a.push(new Array(1e6).fill(1.5));\n",
    "go": ("package bomb_test\n\nimport \"testing\"\n\nvar s [][]byte\n\n"
           "func TestBomb(t *testing.T) {\n\tfor {\n\t\tb := make([]byte, 1<<20)\n\t\tb[0] = 1\n"
           "\t\ts = append(s, b)\n\t}\n}\n"),
    "rust": ("fn main() {\n    let mut v: Vec<Vec<u8>> = Vec::new();\n"
             "    loop {\n        v.push(vec![1u8; 1 << 20]);\n    }\n}\n"),
    "php": "<?php\n$a = [];\nwhile (true) { $a[] = str_repeat('x', 1 << 20); }\n",
    "ruby": "a = []\nloop { a << ('x' * (1 << 20)) }\n",
    "lua": "local t = {}\nwhile true do t[#t + 1] = string.rep('x', 1 << 20) .. #t end\n",
    "bash": "s=$(printf '%1048576s' x)\nwhile true; do s=\"$s$s\"; done\n",
    "perl": "my @a;\nwhile (1) { push @a, 'x' x (1 << 20); }\n",
}

# programs that allocate nothing but print what the language's runtime prints when an
# allocation fails, then fail: the same plain failure as a real one (text names no limit)
MEMORY_LIARS: dict[str, str] = {
    "cpp": ("#include <cstdio>\n#include <cstdlib>\nint main() {\n    std::fputs(\"terminate "
            "called after throwing an instance of 'std::bad_alloc'\\n\", stderr);\n"
            "    std::exit(1);\n}\n"),
    "java": ("class Problem {\n    public static void main(String[] a) {\n"
             "        System.err.println(\"java.lang.OutOfMemoryError: Java heap space\");\n"
             "        System.exit(1);\n    }\n}\n"),
    "javascript": ("console.error('FATAL ERROR: Reached heap limit Allocation failed - "
                   "JavaScript heap out of memory');\nprocess.exit(1);\n"),
    "typescript": ("declare var process: any;\nconsole.error('FATAL ERROR: Reached heap limit "
                   "Allocation failed - JavaScript heap out of memory');\nprocess.exit(1);\n"),
    "go": ("package liar_test\n\nimport (\n\t\"fmt\"\n\t\"os\"\n\t\"testing\"\n)\n\n"
           "func TestLiar(t *testing.T) {\n\tfmt.Fprintln(os.Stderr, \"fatal error: runtime: "
           "out of memory\")\n\tos.Exit(2)\n}\n"),
    "rust": ("fn main() {\n    eprintln!(\"memory allocation of 1048576 bytes failed\");\n"
             "    std::process::exit(1);\n}\n"),
    "php": ("<?php\nfwrite(STDERR, \"PHP Fatal error:  Allowed memory size of 134217728 bytes "
            "exhausted\\n\");\nexit(255);\n"),
    "ruby": "$stderr.puts 'failed to allocate memory (NoMemoryError)'\nexit 1\n",
    "lua": "io.stderr:write('lua: not enough memory\\n')\nos.exit(1)\n",
    "bash": "echo 'bash: xmalloc: cannot allocate 1048576 bytes' >&2\nexit 2\n",
    "perl": "print STDERR \"Out of memory!\\n\";\nexit 1;\n",
}

OUTPUT_FLOODS: dict[str, str] = {
    "bash": "yes\n",
    "cpp": "#include <cstdio>\nint main() {\n    while (true) std::puts(\"flood\");\n}\n",
    "javascript": "const line = 'flood'.repeat(1 << 16);\nwhile (true) console.log(line);\n",
    "ruby": "line = 'flood' * (1 << 16)\nloop { puts line }\n",
    "perl": "my $line = 'flood' x (1 << 16);\nwhile (1) { print \"$line\\n\"; }\n",
}
