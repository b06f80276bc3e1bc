"""The execution languages: how a program text of each language is compiled and run in the
sandbox, and how its outcome reads in MultiPL-E's vocabulary.

A program is one text, ``candidate + "\\n" + test`` as for Python (MultiPL-E's layout: the
prompt and its completion, then the tests). Each language is one :class:`ExecutionLanguage`
row of :data:`LANGUAGES`: the tools it needs (found on the host, each with the Debian or npm
package that provides it), the file the text is written to in the run's private directory,
the steps that compile and run it (each a :class:`~.sandbox.Step` under the sandbox's limits),
its timeouts, a tiny program that must pass before any other runs (the toolchain's canary),
and the rule that turns the steps' outcomes into MultiPL-E's verdict.

Timeouts. ``timeout`` (of code_eval, edit_sim and :func:`run_sources`) is the wall-clock limit
of the step that runs the program; None means the language's ``default_timeout``: 3 s for
Python (evaluate's code_eval), MultiPL-E's run timeouts for the others. The compile step has
a budget of its own, ``compile_timeout`` (30 s, twice MultiPL-E's 15 s: a loaded machine must not
turn a slow compile into a verdict), so a program takes at most ``compile_timeout + timeout``.

Verdicts (MultiPL-E's ``evaluation/src/eval_*.py`` rules, per language): ``OK``,
``Exception``, ``SyntaxError`` (a compile or parse error), ``Timeout``, and for JavaScript
and TypeScript also ``AssertionError`` and ``ReferenceError``. ``passed`` is True exactly when
the verdict is ``OK`` (MultiPL-E's pass@k counts status OK with exit code 0). Where our
verdict deliberately differs from what MultiPL-E's harness would record, the row's ``notes``
say so (PHP and Lua parse errors, a PHP timeout, a Go run that fails without printing FAIL).

The canonical names are the parsing languages' (``cpp``, ``javascript``...); MultiPL-E's own
keys (``cpp``, ``java``, ``js``, ``ts``, ``go_test.go``, ``rs``, ``php``, ``rb``, ``lua``,
``sh``, ``py``) are aliases, so a problem file's ``language`` field can be passed as it is.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import subprocess
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.inputs import did_you_mean
from ..errors import ToolchainMissingError, UnsupportedLanguageError
from .sandbox import (
    ExecutionResult,
    Limits,
    Program,
    Sandbox,
    SandboxError,
    Step,
    StepResult,
    hidden_dirs,
    require_opt_in,
    run_programs,
)

COMPILE_TIMEOUT = 30.0
VERDICTS = ("OK", "Exception", "SyntaxError", "Timeout", "AssertionError", "ReferenceError")


# --- tools ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Tool:
    """Something a language needs on the host: an executable (``candidates``: absolute paths,
    ``$VARIABLE/path`` or names looked up on PATH, in order) or a file (absolute paths only),
    and the Debian ``package`` that provides it (``other``: another way to install it)."""

    name: str
    candidates: tuple[str, ...]
    package: str  # Debian's, e.g. "g++"
    kind: str = "executable"  # or "file"
    other: str = ""  # e.g. "npm install -g typescript"

    @property
    def install(self) -> str:
        """How to install it, e.g. ``apt-get install g++``."""
        return f"apt-get install {self.package}" + (f" (or {self.other})" if self.other else "")

    def find(self) -> str | None:
        for candidate in self.candidates:
            if candidate.startswith("$"):  # an environment variable naming a folder
                variable, _, rest = candidate[1:].partition("/")
                folder = os.environ.get(variable)
                if not folder:
                    continue
                candidate = os.path.join(folder, rest)
            if os.path.isabs(candidate):
                found: str | None = candidate if os.path.isfile(candidate) else None
            else:
                found = shutil.which(candidate)
            if found is None:
                continue
            found = os.path.realpath(found)
            if self.kind == "executable" and not os.access(found, os.X_OK):
                continue
            if os.path.basename(found) == "rustup":  # a rustup proxy: its real compiler
                found = _rustup_compiler(found, self.name)
                if found is None:
                    continue
            return found
        return None


def _rustup_compiler(proxy: str, name: str) -> str | None:
    """The compiler a rustup proxy stands for (its toolchain's own binary), or None."""
    try:
        done = subprocess.run([proxy, "--print", "sysroot"], capture_output=True, text=True,
                              timeout=60, env={**os.environ, "RUSTUP_AUTO_INSTALL": "0"})
    except (OSError, subprocess.TimeoutExpired):
        return None
    root = done.stdout.strip()
    path = os.path.join(root, "bin", name)
    return path if done.returncode == 0 and root and os.path.isfile(path) else None


GXX = Tool("g++", ("g++",), "g++")
JAVAC = Tool("javac", ("$JAVA_HOME/bin/javac", "javac"), "default-jdk-headless")
JAVA = Tool("java", ("$JAVA_HOME/bin/java", "java"), "default-jdk-headless")
JAVATUPLES = Tool(
    "javatuples",
    ("/usr/share/java/javatuples.jar", "/usr/share/java/javatuples-1.2.jar",
     "/usr/multiple/javatuples-1.2.jar"),
    "libjavatuples-java",
    kind="file",
)
NODE = Tool("node", ("node", "nodejs"), "nodejs")
TSC = Tool(
    "tsc",
    ("tsc", "/usr/lib/node_modules/typescript/bin/tsc",
     "/usr/local/lib/node_modules/typescript/bin/tsc", "/usr/share/nodejs/typescript/bin/tsc"),
    "node-typescript",
    other="npm install -g typescript",
)
GO = Tool("go", ("go", "/usr/lib/go/bin/go", "/usr/local/go/bin/go"), "golang-go")
# Debian's compiler by its path first: a rustup proxy earlier on PATH may have no toolchain
RUSTC = Tool("rustc", ("/usr/bin/rustc", "rustc"), "rustc")
PHP = Tool("php", ("php",), "php-cli")
RUBY = Tool("ruby", ("ruby",), "ruby")
LUA = Tool("lua", ("lua5.3", "lua"), "lua5.3")
LUAUNIT = Tool(
    "luaunit",
    ("/usr/share/lua/5.3/luaunit.lua", "/usr/local/share/lua/5.3/luaunit.lua"),
    "lua-unit",
    kind="file",
)
BASH = Tool("bash", ("/bin/bash", "/usr/bin/bash", "bash"), "bash")


@dataclass(frozen=True)
class Toolchain:
    """A language's tools as found on this host: name -> absolute path, and the folders the
    sandbox must show (read-only) for tools that live where it hides them (a home folder)."""

    language: str
    tools: dict[str, str]
    paths: tuple[str, ...] = ()

    def __getitem__(self, name: str) -> str:
        return self.tools[name]


def _exposed_root(path: str) -> str | None:
    """The installation folder of a tool found where the sandbox hides the host (a home
    folder, /opt, a project's folder: anything but the system's folders), which the sandbox
    then shows, exactly that folder: the parent of its ``bin``, or its own folder; None for a
    tool in a system folder."""
    hidden = hidden_dirs()
    if not any(path.startswith(folder.rstrip("/") + "/") for folder in hidden):
        return None
    folder = os.path.dirname(path)
    if os.path.basename(folder) == "bin":
        folder = os.path.dirname(folder)
    return None if folder in hidden or folder == "/" else folder


# --- verdicts ---------------------------------------------------------------------------------


def _ran(step: StepResult) -> str | None:
    """``Timeout`` or ``OK`` where the step's own outcome decides, else None."""
    if step.status == "timeout":
        return "Timeout"
    if step.passed:
        return "OK"
    return None


def _exit_status(step: StepResult) -> str:
    return _ran(step) or "Exception"


def _node_errors(text: str) -> str:
    """MultiPL-E's JavaScript rule on a failed run: the first of these names in the output."""
    if "ERR_ASSERTION" in text:
        return "AssertionError"
    if "SyntaxError" in text:
        return "SyntaxError"
    if "ReferenceError" in text:
        return "ReferenceError"
    return "Exception"


def _python(step: StepResult) -> str:
    return _ran(step) or ("SyntaxError" if "SyntaxError" in step.stderr else "Exception")


def _javascript(step: StepResult) -> str:
    # MultiPL-E searches the printed CompletedProcess: both streams
    return _ran(step) or _node_errors(step.stdout + step.stderr)


def _typescript(step: StepResult) -> str:
    return _ran(step) or _node_errors(step.stderr)


def _go(step: StepResult) -> str:
    # MultiPL-E: "FAIL" on stdout is an Exception (a build that fails is the compile step's)
    if step.status == "timeout":
        return "Timeout"
    return "Exception" if "FAIL" in step.stdout or not step.passed else "OK"


_PHP_PARSE = re.compile(r"(?:^|\n)(?:PHP )?Parse error: ")


def _php(step: StepResult) -> str:
    if step.status == "timeout":
        return "Timeout"
    if _PHP_PARSE.search(step.stdout) or _PHP_PARSE.search(step.stderr):
        return "SyntaxError"
    return "OK" if step.passed else "Exception"


def _ruby(step: StepResult) -> str:
    # MultiPL-E: a failed run that printed nothing on stderr failed its tests (test-unit
    # reports on stdout); anything printed on stderr makes it a SyntaxError
    return _ran(step) or ("Exception" if step.stderr == "" else "SyntaxError")


_LUA_LOAD_ERROR = re.compile(r"^[^\n:]+: main\.lua:\d+: ")


def _lua(step: StepResult) -> str:
    # a chunk that does not load is reported in one line, without a traceback
    load_error = _LUA_LOAD_ERROR.match(step.stderr) and "stack traceback:" not in step.stderr
    return _ran(step) or ("SyntaxError" if load_error else "Exception")


def _bash(step: StepResult) -> str:
    return _ran(step) or ("SyntaxError" if "syntax error" in step.stderr else "Exception")


# --- the table ----------------------------------------------------------------------------------


Build = Callable[[Toolchain, str, float, float | None], Program]


@dataclass(frozen=True)
class ExecutionLanguage:
    """One execution language. ``build(toolchain, text, compile_timeout, timeout)`` gives the
    :class:`~.sandbox.Program`; ``compile_steps`` is how many of its steps compile (a failure
    there is the compile verdict); ``classify_compile(step)`` and ``classify_run(step)`` give
    the verdict of the step that ended the program."""

    name: str
    display_name: str
    aliases: tuple[str, ...]
    tools: tuple[Tool, ...]
    build: Build
    classify_run: Callable[[StepResult], str]
    default_timeout: float
    canary: str  # a program that must pass (the toolchain's canary in every worker)
    compile_steps: int = 0
    compile_timeout: float | None = None
    classify_compile: Callable[[StepResult], str] = field(
        default=lambda step: "SyntaxError"
    )
    multipl_e: str = ""  # MultiPL-E's command line, for the documentation
    notes: str = ""  # where our verdict differs from MultiPL-E's harness on purpose
    # how a pass proves the tests ran to their end (see "the completion proof" below)
    proof: str = ""
    # what its tools print when an allocation fails under the memory limit (memory_mb)
    memory_errors: tuple[str, ...] = ()
    # the program's commands sized to the memory limit (memory_mb), e.g. the JVM's flags
    fit: Callable[[Program, int], Program] | None = None


def _python_build(toolchain: Toolchain, text: str, compile_timeout: float,
                  timeout: float | None) -> Program:
    return Program((Step(python=text, timeout=timeout),))


# --- the completion proof ------------------------------------------------------------------
#
# A program of another language than Python passes only when, besides exiting with status 0,
# it wrote ``passed <token>`` to file descriptor 4, the token being a per-run secret on file
# descriptor 3 (``Step(vouch=True)``). The harness code that writes it runs after the last
# test, each language's way (the row's ``proof`` says how): a wrapper around the test's entry
# point (C++, Java, Rust, Go's TestMain), or a statement after the test's last one that runs
# only if the tests passed (JavaScript, TypeScript, PHP, Ruby, Lua, Bash). An exit with status
# 0 before that (a static initializer, an exit, signal or panic handler, an init function, a
# TestMain of the program's own, ``exit!``, ``exec``, ``die``...) leaves no token: it fails.

_TOKEN = "/proc/self/fd/3"
_VERDICT = "/proc/self/fd/4"

# C++: the test's ``main`` is renamed (-Dmain=...) and called by ours, in a translation unit
# of its own that the program's macros cannot reach
_CPP_MAIN = "cgm_tests_main_"
_CPP_WRAPPER = f"""#undef main
#include <unistd.h>
int {_CPP_MAIN}();
int main() {{
    {_CPP_MAIN}();
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

# Java: our class's main runs Problem's (whose static initializers run then)
_JAVA_MAIN = "CgmTestsMain_"
_JAVA_WRAPPER = f"""class {_JAVA_MAIN} {{
    public static void main(String[] args) throws Throwable {{
        byte[] token = java.nio.file.Files.readAllBytes(java.nio.file.Paths.get("{_TOKEN}"));
        Problem.main(args);
        try (java.io.FileOutputStream out = new java.io.FileOutputStream("{_VERDICT}", true)) {{
            out.write(("passed " + new String(token, "UTF-8") + "\\n").getBytes("UTF-8"));
        }}
    }}
}}
"""

# JavaScript and TypeScript: a statement after the test's last one (a throw, a top-level
# return or an exit skips it); in TypeScript through eval, which type-checks without a
# declaration of require
_JS_END = (f'\n;require("fs").writeSync(4, "passed " + require("fs").readFileSync("{_TOKEN}", '
           '"utf8") + "\\n");\n')
_TS_END = (f'\n;eval("require")("fs").writeSync(4, "passed " + eval("require")("fs")'
           f'.readFileSync("{_TOKEN}", "utf8") + "\\n");\n')

# Go: our TestMain runs the tests (a program's own TestMain is a duplicate: it does not build)
_GO_PACKAGE = re.compile(r"^\s*package\s+([A-Za-z_][A-Za-z0-9_]*)", re.MULTILINE)
_GO_WRAPPER = """package {package}

import (
\tcgm_os "os"
\tcgm_testing "testing"
)

func TestMain(m *cgm_testing.M) {{
\tcode := m.Run()
\tif code == 0 {{
\t\ttoken := make([]byte, 256)
\t\tsize, _ := cgm_os.NewFile(3, "token").ReadAt(token, 0)
\t\tline := append(append([]byte("passed "), token[:size]...), '\\n')
\t\tif _, err := cgm_os.NewFile(4, "verdict").Write(line); err != nil {{
\t\t\tcgm_os.Exit(1)
\t\t}}
\t}}
\tcgm_os.Exit(code)
}}
"""

# Rust: the test's `fn main()` (its last) is renamed and called by ours
_RUST_MAIN = re.compile(r"\bfn\s+main\s*\(\s*\)")
_RUST_TESTS = "cgm_tests_main_"
_RUST_END = f"""

fn main() {{
    {_RUST_TESTS}();
    let token = ::std::fs::read("{_TOKEN}").unwrap_or_default();
    let mut line = b"passed ".to_vec();
    line.extend_from_slice(&token);
    line.push(b'\\n');
    let written = ::std::fs::OpenOptions::new().append(true).open("{_VERDICT}")
        .and_then(|mut verdict| ::std::io::Write::write_all(&mut verdict, &line));
    if written.is_err() {{
        ::std::process::exit(1);
    }}
}}
"""

# PHP: after the text, back in PHP mode whether the text closed it or not
# (PHP cannot open /proc/self/fd/N of a memory file: its php://fd/N streams)
_PHP_END = ('\\file_put_contents("php://fd/4", "passed " . \\file_get_contents("php://fd/3") '
            '. "\\n");\n')

# Ruby: test-unit runs the tests at exit, after every exit handler the program registered
# before it; here they run at the end of the text instead, and the token follows a pass
_RUBY_END = f"""
if defined?(::Test::Unit::AutoRunner) && ::Test::Unit::AutoRunner.respond_to?(:need_auto_run=)
  ::Test::Unit::AutoRunner.need_auto_run = false
  cgm_tests_passed_ = ::Test::Unit::AutoRunner.run
else
  cgm_tests_passed_ = true
end
if cgm_tests_passed_
  ::File.open("{_VERDICT}", "a") {{ |verdict| verdict.write("passed " + ::File.binread("{_TOKEN}") + "\\n") }}
end
exit(cgm_tests_passed_ ? true : false)
"""

# Lua: MultiPL-E's last line `os.exit(lu.LuaUnit.run())` becomes one line (line numbers stay)
# that writes the token when no test failed; a text without it gets the token at its end
_LUA_RUN = "os.exit(lu.LuaUnit.run())"
_LUA_WRITE = (f'local cgm_token_ = io.open("{_TOKEN}", "rb"); local cgm_verdict_ = '
              f'io.open("{_VERDICT}", "ab"); cgm_verdict_:write("passed " .. '
              'cgm_token_:read("a") .. "\\n"); cgm_verdict_:close(); cgm_token_:close()')
_LUA_END = (f"do local cgm_failures_ = lu.LuaUnit.run(); if cgm_failures_ == 0 then "
            f"{_LUA_WRITE} end; os.exit(cgm_failures_) end")

# Bash: after the test's last command, when it succeeded (set -e ends the script before)
_BASH_END = (f'\ncgm_status_=$?; if (( cgm_status_ == 0 )); then printf \'passed %s\\n\' '
             f'"$(< {_TOKEN})" >&4; fi; exit "$cgm_status_"\n')


def _php_finished(text: str) -> str:
    closed = text.rstrip().endswith("?>")
    return text + ("<?php " if closed else "\n?><?php ") + _PHP_END


def _lua_finished(text: str) -> str:
    at = text.rfind(_LUA_RUN)
    if at < 0:
        return text + "\n" + _LUA_WRITE + "\n"
    return text[:at] + _LUA_END + text[at + len(_LUA_RUN):]


def _rust_finished(text: str) -> str:
    found = list(_RUST_MAIN.finditer(text))
    if not found:
        return text  # no entry point: it does not build (or cannot vouch)
    last = found[-1]
    return text[:last.start()] + f"fn {_RUST_TESTS}()" + text[last.end():] + _RUST_END


_FINISH: dict[str, Callable[[str], str]] = {
    "javascript": lambda text: text + _JS_END,
    "php": _php_finished,
    "ruby": lambda text: text + "\n" + _RUBY_END,
    "lua": _lua_finished,
    "bash": lambda text: text + _BASH_END,
}


def _single(tool: str, source: str) -> Build:
    """A program run by one interpreter: ``tool source``, the text finished by the
    language's harness code (see :data:`_FINISH`)."""
    language = {"main.js": "javascript", "main.php": "php", "main.rb": "ruby",
                "main.lua": "lua", "main.sh": "bash"}[source]

    def build(toolchain: Toolchain, text: str, compile_timeout: float,
              timeout: float | None) -> Program:
        return Program((Step(argv=(toolchain[tool], source), timeout=timeout, vouch=True),),
                       {source: _FINISH[language](text)})

    return build


def _cpp_build(toolchain: Toolchain, text: str, compile_timeout: float,
               timeout: float | None) -> Program:
    return Program(
        (Step(argv=(toolchain["g++"], f"-Dmain={_CPP_MAIN}", "main.cpp", "cgm_main.cpp", "-o",
                    "main", "-std=c++17"),
              timeout=compile_timeout),
         Step(argv=("./main",), timeout=timeout, vouch=True)),
        {"main.cpp": text, "cgm_main.cpp": _CPP_WRAPPER},
    )


# A file name no sensible public class has: MultiPL-E writes a temporary name, so a program
# that declares its class public fails to compile there and must here too.
_JAVA_SOURCE = "program.java"


def _java_build(toolchain: Toolchain, text: str, compile_timeout: float,
                timeout: float | None) -> Program:
    jar = toolchain["javatuples"]
    return Program(
        (Step(argv=(toolchain["javac"], "-encoding", "UTF8", "-cp", jar, "-d", "classes",
                    _JAVA_SOURCE, f"{_JAVA_MAIN}.java"), timeout=compile_timeout),
         Step(argv=(toolchain["java"], "-ea", "-cp", f"classes:{jar}", _JAVA_MAIN),
              timeout=timeout, vouch=True)),
        {_JAVA_SOURCE: text, f"{_JAVA_MAIN}.java": _JAVA_WRAPPER},
    )


def _java_memory_flags(memory_mb: int) -> tuple[str, ...]:
    """The JVM sized to the address-space limit: its heap a quarter of it (the JVM's own
    rule, applied to the limit instead of the machine's memory), its fixed reservations
    (1 GiB of class space, 240 MiB of code cache) shrunk, so that any memory_mb >= 1024 runs."""
    return (f"-XX:MaxRAM={memory_mb}m", "-XX:CompressedClassSpaceSize=64m",
            "-XX:ReservedCodeCacheSize=64m", "-XX:MaxMetaspaceSize=192m", "-XX:+UseSerialGC",
            "-XX:-UsePerfData")


def _java_fit(program: Program, memory_mb: int) -> Program:
    flags = _java_memory_flags(memory_mb)
    steps = []
    for step in program.steps:
        argv = tuple(step.argv or ())
        name = os.path.basename(argv[0]) if argv else ""
        if name == "javac":
            argv = (argv[0], *(f"-J{flag}" for flag in flags), *argv[1:])
        elif name == "java":
            argv = (argv[0], *flags, *argv[1:])
        env = {**(step.env or {}), "MALLOC_ARENA_MAX": "2"}  # glibc's arenas: 64 MiB each
        steps.append(dataclasses.replace(step, argv=argv, env=env))
    return dataclasses.replace(program, steps=tuple(steps))


def _typescript_build(toolchain: Toolchain, text: str, compile_timeout: float,
                      timeout: float | None) -> Program:
    node = toolchain["node"]
    return Program(
        (Step(argv=(node, toolchain["tsc"], "--target", "esnext", "main.ts"),
              timeout=compile_timeout),
         Step(argv=(node, "main.js"), timeout=timeout, vouch=True)),
        {"main.ts": text + _TS_END},
    )


_GO_ENV = {"GOPROXY": "off", "GOTOOLCHAIN": "local", "GOTELEMETRY": "off", "GOFLAGS": ""}


def _go_build(toolchain: Toolchain, text: str, compile_timeout: float,
              timeout: float | None) -> Program:
    # MultiPL-E runs `go test F_test.go`; here its two halves, so that each has its own limit:
    # `go test -c` builds (and vets, as go test does) the test binary, with its build cache,
    # GOPATH and configuration in the run's private HOME; then the binary runs as go test
    # runs it, under our TestMain (in the test's package)
    package = _GO_PACKAGE.search(text)
    files = {"main_test.go": text}
    sources = ["main_test.go"]
    if package is not None:
        files["cgm_main_test.go"] = _GO_WRAPPER.format(package=package[1])
        sources.append("cgm_main_test.go")
    return Program(
        (Step(argv=(toolchain["go"], "test", "-c", "-o", "main.test", *sources),
              timeout=compile_timeout, env=_GO_ENV),
         Step(argv=("./main.test", "-test.paniconexit0"), timeout=timeout, vouch=True)),
        files,
    )


def _rust_build(toolchain: Toolchain, text: str, compile_timeout: float,
                timeout: float | None) -> Program:
    return Program(
        (Step(argv=(toolchain["rustc"], "main.rs", "-o", "main"), timeout=compile_timeout),
         Step(argv=("./main",), timeout=timeout, vouch=True)),
        {"main.rs": _rust_finished(text)},
    )


def _rust_compile(step: StepResult) -> str:
    return "Timeout" if step.status == "timeout" else "SyntaxError"


_CANARIES = {
    "python": "def add(a, b):\n    return a + b\n\nassert add(2, 3) == 5\n",
    "cpp": "#include<assert.h>\n#include<bits/stdc++.h>\nlong add(long a, long b) {\n"
           "    return a + b;\n}\nint main() {\n    auto candidate = add;\n"
           "    assert(candidate((2), (3)) == (5));\n}\n",
    "java": "import java.util.*;\nimport org.javatuples.*;\nclass Problem {\n"
            "    public static Pair<Long, Long> add(long a, long b) {\n"
            "        return Pair.with(a + b, a - b);\n    }\n"
            "    public static void main(String[] args) {\n"
            "    assert(add((2l), (3l)).equals((Pair.with(5l, -1l))));\n    }\n\n}\n",
    "javascript": "function add(a, b){\n  return a + b;\n}\n\n"
                  "const assert = require('node:assert');\n\nfunction test() {\n"
                  "  let candidate = add;\n  assert.deepEqual(candidate(2, 3),5);\n}\n\ntest();\n",
    "typescript": "function add(a: number, b: number): number {\n  return a + b;\n}\n\n"
                  "declare var require: any;\nconst assert = require('node:assert');\n\n"
                  "function test() {\n  let candidate = add;\n"
                  "  assert.deepEqual(candidate(2, 3),5);\n}\n\ntest();\n",
    "go": "package add_test\n\nimport (\n    \"testing\"\n    \"fmt\"\n)\n\n"
          "func add(a int, b int) int {\n    return a + b\n}\n\n"
          "func TestAdd(t *testing.T) {\n  candidate := add\n"
          "  if fmt.Sprintf(\"%v\", candidate(2, 3)) != fmt.Sprintf(\"%v\", 5) {\n"
          "    t.Errorf(\"expected 5\")\n  }\n}\n",
    "rust": "fn add(a: isize, b: isize) -> isize {\n    a + b\n}\n\nfn main() {\n"
            "    let candidate = add;\n    assert_eq!(candidate(2, 3), 5);\n}\n",
    "php": "<?php\nfunction add($a, $b) {\n    return $a + $b;\n}\n"
           "function candidate(...$args) {\n    return add(...$args);\n}\n\n"
           "function test(): void {\n"
           "    if (candidate(2, 3) !== 5) { throw new Exception(\"Test failed!\"); }\n}\n\n"
           "test();\n",
    "ruby": "def add(a, b)\n  a + b\nend\n\nrequire 'test/unit'\n"
            "class TestHumanEval < Test::Unit::TestCase\n  def test_add\n"
            "    candidate = method(:add)\n    assert_equal(5, candidate.call(2, 3))\n"
            "  end\nend\n",
    "lua": "local function add(a, b)\n  return a + b\nend\n\nlu = require('luaunit')\n\n"
           "function test_humaneval()\nlocal candidate = add\n"
           "    lu.assertEquals(candidate(2, 3), 5)\nend\n\nos.exit(lu.LuaUnit.run())\n",
    "bash": "#!/bin/bash\nadd() {\n    echo $(( $1 + $2 ))\n}\n\ncandidate() {\n"
            "    add \"$@\"\n}\n\nset -e\nrun_test() {\n"
            "    [[ $(candidate \"2\" \"3\") = \"5\" ]]\n}\n\nrun_test\n",
}

_NODE_MEMORY = ("JavaScript heap out of memory", "Fatal process out of memory",
                "Array buffer allocation failed", "Fatal JavaScript invalid size error")

LANGUAGES: dict[str, ExecutionLanguage] = {
    spec.name: spec
    for spec in (
        ExecutionLanguage(
            "python", "Python", ("py", "python3"), (), _python_build, _python, 3.0,
            _CANARIES["python"],
            multipl_e="python3 F (15 s); here the sandbox's own interpreter, as evaluate's "
                      "code_eval runs a program (exec in a fresh namespace)",
            proof="the sandbox's runner writes the token after the program text returned",
        ),
        ExecutionLanguage(
            "cpp", "C++", ("c++", "cxx", "cc"), (GXX,), _cpp_build, _exit_status, 15.0,
            _CANARIES["cpp"], compile_steps=1, compile_timeout=COMPILE_TIMEOUT,
            multipl_e="g++ F -o F_noext -std=c++17, then F_noext (15 s each)",
            proof="the test's main is renamed (-Dmain=...) and called by ours, compiled apart, "
                  "which writes the token when it returns",
            memory_errors=("std::bad_alloc", "out of memory allocating",
                           "virtual memory exhausted"),
        ),
        ExecutionLanguage(
            "java", "Java", (), (JAVAC, JAVA, JAVATUPLES), _java_build, _exit_status, 15.0,
            _CANARIES["java"], compile_steps=1, compile_timeout=COMPILE_TIMEOUT,
            multipl_e="javac -encoding UTF8 -d DIR F (javatuples on the classpath), then "
                      "java -ea -cp DIR:javatuples.jar Problem (15 s each)",
            notes="the JVM is sized to memory_mb (a quarter of it for the heap, as the JVM "
                  "sizes it from the machine's memory)",
            proof="our main class calls Problem.main (Problem's static initializers run then) "
                  "and writes the token when it returns",
            memory_errors=("java.lang.OutOfMemoryError", "insufficient memory for the Java "
                           "Runtime Environment", "Could not reserve enough space"),
            fit=_java_fit,
        ),
        ExecutionLanguage(
            "javascript", "JavaScript", ("js", "node", "nodejs"), (NODE,), _single("node",
            "main.js"), _javascript, 5.0, _CANARIES["javascript"],
            multipl_e="node F (5 s)",
            proof="a statement after the text writes the token (a throw, a top-level return "
                  "or an exit skips it)",
            memory_errors=_NODE_MEMORY,
        ),
        ExecutionLanguage(
            "typescript", "TypeScript", ("ts",), (NODE, TSC), _typescript_build, _typescript,
            15.0, _CANARIES["typescript"], compile_steps=1, compile_timeout=COMPILE_TIMEOUT,
            multipl_e="tsc --target esnext F.ts, then node F.js (15 s each)",
            proof="a statement after the text writes the token (a throw or an exit skips it)",
            memory_errors=_NODE_MEMORY,
        ),
        ExecutionLanguage(
            "go", "Go", ("golang", "go_test.go"), (GO,), _go_build, _go, 15.0, _CANARIES["go"],
            compile_steps=1, compile_timeout=COMPILE_TIMEOUT,
            multipl_e="go test F_test.go (30 s for building and running; a failed build or "
                      "setup is a SyntaxError); here go test -c, then the test binary",
            notes="a run that fails without printing FAIL is an Exception here (MultiPL-E "
                  "would record OK with a nonzero exit code, which its pass@k does not count)",
            proof="our TestMain (in the test's package) runs the tests and writes the token "
                  "when they passed; a program's own TestMain does not build",
            memory_errors=("runtime: out of memory", "cannot allocate memory"),
        ),
        ExecutionLanguage(
            "rust", "Rust", ("rs",), (RUSTC,), _rust_build, _exit_status, 5.0,
            _CANARIES["rust"], compile_steps=1, compile_timeout=COMPILE_TIMEOUT,
            classify_compile=_rust_compile,
            multipl_e="rustc F -o F_noext (edition 2015, 15 s; a compile timeout is Timeout), "
                      "then F_noext (5 s)",
            proof="the test's (last) fn main is renamed and called by ours, which writes the "
                  "token when it returns",
            memory_errors=("memory allocation of ",),
        ),
        ExecutionLanguage(
            "php", "PHP", (), (PHP,), _single("php", "main.php"), _php, 15.0, _CANARIES["php"],
            multipl_e="php F (15 s)",
            notes="a parse error is a SyntaxError wherever PHP prints it (MultiPL-E looks for "
                  "it on stdout only, where PHP's CLI with Debian's php.ini never prints it, "
                  "and records Exception); a timeout is Timeout (MultiPL-E: Exception)",
            proof="a statement after the text (back in PHP mode) writes the token",
            memory_errors=("Allowed memory size of", "Out of memory"),
        ),
        ExecutionLanguage(
            "ruby", "Ruby", ("rb",), (RUBY,), _single("ruby", "main.rb"), _ruby, 5.0,
            _CANARIES["ruby"],
            multipl_e="ruby F (5 s); a failed run that wrote to stderr is a SyntaxError",
            proof="test-unit's tests run at the end of the text (not at exit, after the "
                  "program's own exit handlers), and the token follows when they passed",
            memory_errors=("NoMemoryError", "failed to allocate memory"),
        ),
        ExecutionLanguage(
            "lua", "Lua", (), (LUA, LUAUNIT), _single("lua", "main.lua"), _lua, 15.0,
            _CANARIES["lua"],
            multipl_e="lua F (Lua 5.3 with luaunit, 15 s)",
            notes="a chunk that does not parse is a SyntaxError (MultiPL-E's Lua rule has no "
                  "SyntaxError and records Exception)",
            proof="the last `os.exit(lu.LuaUnit.run())` writes the token when no test failed, "
                  "before it exits",
            memory_errors=("not enough memory",),
        ),
        ExecutionLanguage(
            "bash", "Bash", ("sh", "shell"), (BASH,), _single("bash", "main.sh"), _bash, 15.0,
            _CANARIES["bash"],
            multipl_e="bash F (15 s)",
            proof="a command after the text writes the token when the last command succeeded",
            memory_errors=("cannot allocate memory", "xmalloc: cannot allocate"),
        ),
    )
}

ALIASES: dict[str, str] = {
    alias: spec.name for spec in LANGUAGES.values() for alias in spec.aliases
}


def execution_languages() -> list[str]:
    """The names of the execution languages, in the table's order."""
    return list(LANGUAGES)


def get_language(lang: Any, argument: str = "lang") -> ExecutionLanguage:
    """The row of ``lang`` (a name or alias, any case; MultiPL-E's keys included); an
    :class:`UnsupportedLanguageError` listing the languages otherwise."""
    if isinstance(lang, (list, tuple)) and len(lang) == 1:
        lang = lang[0]
    if not isinstance(lang, str):
        raise TypeError(
            f"`{argument}` must be a language name such as 'python' or 'cpp', got "
            f"{type(lang).__name__}. Execution languages: {', '.join(LANGUAGES)}."
        )
    key = lang.strip().lower()
    key = ALIASES.get(key, key)
    if key not in LANGUAGES:
        raise UnsupportedLanguageError(
            f"Unknown language {lang!r} for `{argument}`: not an execution language."
            f"{did_you_mean(key, [*LANGUAGES, *ALIASES])} "
            f"Supported: {', '.join(LANGUAGES)} (aliases: {', '.join(sorted(ALIASES))})."
        )
    return LANGUAGES[key]


def find_toolchain(lang: Any) -> Toolchain:
    """The tools of ``lang`` on this host, or a :class:`ToolchainMissingError` naming what to
    install."""
    spec = get_language(lang)
    found: dict[str, str] = {}
    missing: list[Tool] = []
    for tool in spec.tools:
        path = tool.find()
        if path is None:
            missing.append(tool)
        else:
            found[tool.name] = path
    if missing:
        names = ", ".join(tool.name for tool in missing)
        fixes = "; ".join(dict.fromkeys(tool.install for tool in missing))
        raise ToolchainMissingError(
            f"{spec.display_name} programs cannot run here: {names} "
            f"{'is' if len(missing) == 1 else 'are'} not installed. Install it: {fixes} "
            f"(with sudo unless root); `cgm modules --languages` lists what can run here."
        )
    roots = [_exposed_root(path) for path in found.values()]
    return Toolchain(spec.name, found, tuple(sorted({r for r in roots if r is not None})))


def missing_packages(languages: Iterable[Any] | None = None) -> list[str]:
    """The Debian packages that would provide the missing tools of ``languages`` (all of
    them by default), in the table's order, each once (scripts/test.sh installs these)."""
    specs = LANGUAGES.values() if languages is None else [get_language(x) for x in languages]
    packages = [tool.package for spec in specs for tool in spec.tools if tool.find() is None]
    return list(dict.fromkeys(packages))


# --- programs and verdicts ---------------------------------------------------------------------


def default_timeout(lang: Any) -> float:
    """The run timeout ``timeout=None`` means for ``lang``."""
    return get_language(lang).default_timeout


@dataclass(frozen=True)
class LanguageProgram(Program):
    """A :class:`~.sandbox.Program` built for an execution language (``language``, its
    canonical name): its verdict follows the language's rules (:func:`outcome_of`)."""

    language: str = "python"


def _built(spec: ExecutionLanguage, toolchain: Toolchain | None, text: Any,
           timeout: float | None) -> LanguageProgram:
    if not isinstance(text, str):
        raise TypeError(f"a program must be a string of code, got {type(text).__name__}.")
    toolchain = toolchain if toolchain is not None else find_toolchain(spec.name)
    program = spec.build(toolchain, text, spec.compile_timeout or 0.0, timeout)
    return LanguageProgram(program.steps, program.files, language=spec.name)


def steps_for(lang: Any, program_text: str, timeout: float | None = None,
              toolchain: Toolchain | None = None) -> LanguageProgram:
    """The :class:`~.sandbox.Program` (its files and steps) that compiles and runs
    ``program_text`` in ``lang``, its run step limited to ``timeout`` seconds (None: the
    language's default). Raises :class:`ToolchainMissingError` when the tools are missing."""
    spec = get_language(lang)
    run_timeout = spec.default_timeout if timeout is None else float(timeout)
    return _built(spec, toolchain, program_text, run_timeout)


def program_of(lang: Any, program_text: str,
               toolchain: Toolchain | None = None) -> LanguageProgram:
    """As :func:`steps_for`, but the run step takes the timeout of the limits it runs under
    (``Sandbox.run(program, limits=...)``); the compile step keeps its own budget. What a
    problem file's task in another language runs (``problems.program_for``)."""
    return _built(get_language(lang), toolchain, program_text, None)


def verdict(result: ExecutionResult, lang: Any) -> str:
    """MultiPL-E's verdict of a sandboxed run of a program built by :func:`steps_for`."""
    spec = get_language(lang)
    steps = result.steps
    if not steps:
        if result.status in ("failed", "killed") and not result.passed:
            return "Exception"  # refused before it ran (a text too large or not encodable)
        raise ValueError("the result has no step: it is not a run of a program.")
    last = len(steps) - 1
    if last < spec.compile_steps and not steps[last].passed:
        return spec.classify_compile(steps[last])
    if steps[last].status == "failed" and steps[last].returncode == 0:
        return "Exception"  # it ended with status 0 before its tests finished (no token)
    outcome = spec.classify_run(steps[last])
    if outcome == "OK" and not result.passed:  # OK needs exit status 0 (MultiPL-E's pass@k)
        return "Exception"
    return outcome


@dataclass(frozen=True)
class Outcome:
    """One program's outcome: ``passed`` (the verdict is OK), MultiPL-E's ``verdict``, the
    sandbox's :class:`~.sandbox.ExecutionResult` and ``message``, code_eval's result string
    (``"passed"``, ``"timed out"`` or ``"failed: <error>"``)."""

    passed: bool
    verdict: str
    result: ExecutionResult
    message: str


def _message(spec: ExecutionLanguage, result: ExecutionResult, outcome: str) -> str:
    """code_eval's result string; for a command, which step failed and how."""
    if outcome == "OK":
        return "passed"
    if outcome == "Timeout" or spec.name == "python" or not result.steps:
        return "timed out" if outcome == "Timeout" else result.result
    compiling = len(result.steps) <= spec.compile_steps
    how = result.steps[-1].result.removeprefix("failed: ")
    if result.passed:  # every step exited with 0, yet the output says it failed (Go)
        how = "the test output reports FAIL"
    return f"failed: {outcome} ({'compiling' if compiling else 'running'}: {how})"


def outcome_of(result: ExecutionResult, lang: Any) -> Outcome:
    """The :class:`Outcome` (verdict, pass, code_eval's result string) of a sandboxed run of a
    program of ``lang`` built by :func:`steps_for` or :func:`program_of`."""
    spec = get_language(lang)
    outcome = verdict(result, spec.name)
    if outcome != "OK" and result.limit is None and result.steps:
        step = result.steps[-1]
        if any(error in step.stderr or error in step.stdout for error in spec.memory_errors):
            # an allocation failed: the memory limit ended it, whatever the tool's status
            named = dataclasses.replace(step, status="killed", limit="memory_mb")
            result = dataclasses.replace(result, status="killed", limit="memory_mb",
                                         steps=(*result.steps[:-1], named))
    return Outcome(outcome == "OK", outcome, result, _message(spec, result, outcome))


def fitted(program: Any, limits: Limits) -> Any:
    """``program`` with its commands sized to ``limits.memory_mb`` where its language needs
    it (the JVM); any other program as it is."""
    if not isinstance(program, LanguageProgram):
        return program
    spec = get_language(program.language)
    return program if spec.fit is None else spec.fit(program, limits.memory_mb)


def run_checked(sandbox: Sandbox, program: Any, limits: Limits | None,
                checked: set[str]) -> ExecutionResult:
    """``sandbox.run(program, limits=limits)``, first running the toolchain's canary in this
    worker (once per language, remembered in ``checked``) when ``program`` is a
    :class:`LanguageProgram` of a language other than Python."""
    language = getattr(program, "language", None)
    if isinstance(program, LanguageProgram) and language != "python" and language not in checked:
        spec = get_language(language)
        timeout = limits.timeout if limits is not None else sandbox.limits.timeout
        check_toolchain_in(sandbox, spec, find_toolchain(spec.name), timeout)
        checked.add(spec.name)
    return sandbox.run(fitted(program, limits or sandbox.limits), limits=limits)


def check_toolchain_in(sandbox: Sandbox, spec: ExecutionLanguage, toolchain: Toolchain,
                       timeout: float) -> None:
    """The toolchain's canary in one worker: its tiny right program must pass there, or a
    :class:`~.sandbox.SandboxError` says why (a harness failure, never a verdict)."""
    if spec.name == "python":
        return  # the sandbox's own canary covered the interpreter
    program = spec.build(toolchain, spec.canary, max(spec.compile_timeout or 0.0, 60.0),
                         max(timeout, 30.0))
    if spec.fit is not None:
        program = spec.fit(program, sandbox.limits.memory_mb)
    result = sandbox.run(program)
    outcome = verdict(result, spec.name)
    if outcome == "OK":
        return
    step = outcome_of(result, spec.name).result.steps[-1]  # a failed allocation named
    detail = (step.stderr.strip() or step.stdout.strip())[-1500:]
    hint = (
        f" The limit {step.limit} ended it: raise it for {spec.display_name} (memory_mb "
        f"{sandbox.limits.memory_mb}, max_file_mb {sandbox.limits.max_file_mb})."
        if step.limit not in (None, "timeout") else ""
    )
    raise SandboxError(
        f"the {spec.display_name} toolchain ({', '.join(toolchain.tools.values())}) does not "
        f"work inside the sandbox: its canary program, which must pass, ended with "
        f"{outcome} ({step.result}; status {step.status}).{hint} Its output: {detail!r}. This "
        "is a harness failure, not a program's; no program was counted."
    )


def run_sources(
    programs: Iterable[str],
    lang: Any = "python",
    *,
    limits: Limits | None = None,
    num_workers: int = 4,
    require_isolation: bool = True,
    allow_code_execution: bool = False,
    progress: Callable[[int], None] | None = None,
) -> list[Outcome]:
    """Run every program text of ``lang`` in the sandbox (compiled where the language needs
    it), each worker first checking the toolchain with its canary; outcomes in order.
    ``limits.timeout`` is the run step's limit (build the limits with
    ``timeout=default_timeout(lang)`` for the language's default).

    Raises :class:`ToolchainMissingError` before anything runs when the language's tools are
    missing, :class:`~.sandbox.SandboxError` on a harness failure."""
    require_opt_in(allow_code_execution)
    spec = get_language(lang)
    texts = list(programs)
    for index, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"program {index} is {type(text).__name__}, not a string of code.")
    limits = limits if limits is not None else Limits(timeout=spec.default_timeout)
    toolchain = find_toolchain(spec.name)
    built: Sequence[Any]
    if spec.name == "python":
        built = texts  # the sandbox's own interpreter, as today
    else:
        built = [fitted(steps_for(spec.name, text, limits.timeout, toolchain), limits)
                 for text in texts]

    def prepare(sandbox: Sandbox) -> None:
        check_toolchain_in(sandbox, spec, toolchain, limits.timeout)

    results = run_programs(
        built,
        limits=limits,
        num_workers=num_workers,
        require_isolation=require_isolation,
        allow_code_execution=True,
        progress=progress,
        paths=toolchain.paths,
        prepare=None if spec.name == "python" else prepare,
    )
    return [outcome_of(result, spec.name) for result in results]


def tool_version(path: str) -> str:
    """The first line a tool prints about its version (for listings), or ''."""
    name = os.path.basename(path)
    if name.endswith((".jar", ".lua")):
        return ""
    flags = {"java": "-version", "javac": "-version", "go": "version"}
    flag = "-v" if name.startswith("lua") else flags.get(name, "--version")
    try:
        done = subprocess.run([path, flag], capture_output=True, text=True, timeout=60,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    text = (done.stdout.strip() or done.stderr.strip()).splitlines()
    return text[0].strip() if text else ""


def describe_languages(versions: bool = False) -> list[dict[str, Any]]:
    """Per execution language: name, display name, aliases, whether it can run here, its
    tools (paths, and with ``versions`` their version lines) or the reason and the fix."""
    rows = []
    for spec in LANGUAGES.values():
        row: dict[str, Any] = {"name": spec.name, "display_name": spec.display_name,
                               "aliases": list(spec.aliases), "default_timeout":
                               spec.default_timeout, "compile_timeout": spec.compile_timeout}
        try:
            toolchain = find_toolchain(spec.name)
        except ToolchainMissingError as error:
            row.update(available=False, reason=str(error), tools={})
        else:
            tools = dict(toolchain.tools)
            if spec.name == "python":
                import sys

                tools = {"python": sys.executable}
            row.update(available=True, reason="", tools=tools)
            if versions:
                row["versions"] = {name: tool_version(path) for name, path in tools.items()}
        rows.append(row)
    return rows


__all__ = [
    "ALIASES",
    "COMPILE_TIMEOUT",
    "LANGUAGES",
    "VERDICTS",
    "ExecutionLanguage",
    "LanguageProgram",
    "Outcome",
    "Tool",
    "Toolchain",
    "ToolchainMissingError",
    "default_timeout",
    "describe_languages",
    "execution_languages",
    "find_toolchain",
    "get_language",
    "missing_packages",
    "outcome_of",
    "program_of",
    "run_checked",
    "run_sources",
    "steps_for",
    "tool_version",
    "verdict",
]
