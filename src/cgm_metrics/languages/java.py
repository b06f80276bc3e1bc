"""Java: everything the library knows of it."""

import re
from typing import Any

from . import Language
from .parts import (
    C_STYLE,
    TOKEN,
    VERDICT,
    CodeBleuPart,
    Command,
    DataflowRules,
    ExecutionPart,
    ExtractionPart,
    LanguageSpec,
    PdgSpec,
    Tool,
    TsedPart,
    exit_status,
    node_set,
    pairs,
    words,
)

KEYWORDS = words(
    "abstract assert boolean break byte case catch char class const continue default do "
    "double else enum extends final finally float for goto if implements import instanceof "
    "int interface long native new package private protected public return short static "
    "strictfp super switch synchronized this throw throws transient try void volatile while"
)

RULES = DataflowRules(
    definition=("variable_declarator",),
    assignment=("assignment_expression",),
    increment=("update_expression",),
    branch=("if_statement", "else"),
    c_for=("for_statement",),
    c_for_restart="local_variable_declaration",
    foreach=("enhanced_for_statement",),
    loop=("while_statement",),
)

COMMENT_STYLE = C_STYLE

PROBE = (
    "class A extends B implements C { int f(int a, int[] b) { for (int i = 0; i < b.l"
    "ength; i++) { a += b[i]; } /* c */ if (a > 0) { return a; } else { return -a; } "
    '} String s = "x"; }\n'
    "int x = ;"
)

PDG = PdgSpec(
    containers=node_set(
        "block class_body constructor_body enum_body_declarations interface_body program switch_block_statement_group"
    ),
    body_fields=node_set("alternative body consequence"),
    clauses=node_set("catch_clause switch_block_statement_group"),
    extra_statements=frozenset(),
    loops=node_set("do_statement enhanced_for_statement for_statement while_statement"),
    branches=node_set(
        "if_statement switch_expression switch_statement try_statement try_with_resources_statement"
    ),
    scopes=node_set(
        "class_declaration constructor_declaration enum_declaration interface_declaration method_declaration record_declaration"
    ),
    variables=node_set("identifier"),
    defines=pairs(
        "assignment_expression.left catch_formal_parameter.name class_declaration.name enhanced_for_statement.name formal_parameter.name resource.name spread_parameter.name variable_declarator.name"
    ),
    define_and_use=pairs("update_expression.None"),
    uses=frozenset(),
    ignores=pairs(
        "constructor_declaration.name field_access.field method_declaration.name method_invocation.name"
    ),
    patterns=node_set("variable_declarator"),
    assignments_with_operator=node_set("assignment_expression"),
    transparent=node_set("block expression_statement parenthesized_expression program"),
)

# the completion proof: our class's main runs Problem's (whose static initializers run then)
_MAIN = "CgmTestsMain_"
_WRAPPER = f"""class {_MAIN} {{
    public static void main(String[] args) throws Throwable {{
        byte[] token = java.nio.file.Files.readAllBytes(java.nio.file.Paths.get("{TOKEN}"));
        Problem.main(args);
        try (java.io.FileOutputStream out = new java.io.FileOutputStream("{VERDICT}", true)) {{
            out.write(("passed " + new String(token, "UTF-8") + "\\n").getBytes("UTF-8"));
        }}
    }}
}}
"""


def _memory_flags(memory_mb: int) -> tuple[str, ...]:
    """The JVM sized to the address-space limit: its heap a quarter of it (the JVM's own
    rule, applied to the limit instead of the machine's memory), its fixed reservations
    (1 GiB of class space, 240 MiB of code cache) shrunk, so that any memory_mb >= 1024 runs."""
    return (f"-XX:MaxRAM={memory_mb}m", "-XX:CompressedClassSpaceSize=64m",
            "-XX:ReservedCodeCacheSize=64m", "-XX:MaxMetaspaceSize=192m", "-XX:+UseSerialGC",
            "-XX:-UsePerfData")


def _fit(program: Any, memory_mb: int) -> Any:
    """The program's javac and java sized to memory_mb (glibc's arenas too: 64 MiB each)."""
    import dataclasses
    import os

    flags = _memory_flags(memory_mb)
    steps = []
    for step in program.steps:
        argv = tuple(step.argv or ())
        name = os.path.basename(argv[0]) if argv else ""
        if name == "javac":
            argv = (argv[0], *(f"-J{flag}" for flag in flags), *argv[1:])
        elif name == "java":
            argv = (argv[0], *flags, *argv[1:])
        env = {**(step.env or {}), "MALLOC_ARENA_MAX": "2"}
        steps.append(dataclasses.replace(step, argv=argv, env=env))
    return dataclasses.replace(program, steps=tuple(steps))


_PUBLIC_CLASS = re.compile(r"^\s*public\s+(?:final\s+|abstract\s+)*class\s+([A-Za-z_$][\w$]*)",
                           re.M)
_MAIN_CLASS = re.compile(r"\bclass\s+([A-Za-z_$][\w$]*)[^{]*\{(?:(?!\bclass\s).)*?"
                         r"\bstatic\s+void\s+main\s*\(", re.S)


def _stdio(text: str) -> tuple[str, tuple[Command, ...]]:
    """A whole program: written to the file its public class needs (``Main.java`` without
    one), run as the class that has ``static void main`` (``Main`` if none is found)."""
    public = _PUBLIC_CLASS.search(text)
    main = _MAIN_CLASS.search(text)
    name = main[1] if main else public[1] if public else "Main"
    source = f"{public[1] if public else name}.java"
    return source, (
        Command(("{javac}", "-encoding", "UTF8", "-d", "classes", source), compile=True),
        Command(("{java}", "-cp", "classes", name)),
    )


EXECUTION = ExecutionPart(
    tools=(
        Tool("javac", ("$JAVA_HOME/bin/javac", "javac"), "default-jdk-headless",
             version=("-version",)),
        Tool("java", ("$JAVA_HOME/bin/java", "java"), "default-jdk-headless",
             version=("-version",)),
        Tool(
            "javatuples",
            (
                "/usr/share/java/javatuples.jar",
                "/usr/share/java/javatuples-1.2.jar",
                "/usr/multiple/javatuples-1.2.jar",
            ),
            "libjavatuples-java",
            kind="file",
        ),
    ),
    source="program.java",
    files=lambda text: {f"{_MAIN}.java": _WRAPPER},
    proof=(
        "our main class calls Problem.main (Problem's static initializers run then) and "
        "writes the token when it returns"
    ),
    notes=(
        "the JVM is sized to memory_mb (a quarter of it for the heap, as the JVM sizes it "
        "from the machine's memory)"
    ),
    memory_errors=(
        "java.lang.OutOfMemoryError",
        "insufficient memory for the Java Runtime Environment",
        "Could not reserve enough space",
    ),
    fit=_fit,
    commands=(
        Command(
            ("{javac}", "-encoding", "UTF8", "-cp", "{javatuples}", "-d", "classes", "{source}",
             f"{_MAIN}.java"),
            compile=True,
        ),
        Command(("{java}", "-ea", "-cp", "classes:{javatuples}", _MAIN), vouch=True),
    ),
    classify_run=exit_status,
    stdio=_stdio,
    default_timeout=15.0,
    canary=(
        "import java.util.*;\n"
        "import org.javatuples.*;\n"
        "class Problem {\n"
        "    public static Pair<Long, Long> add(long a, long b) {\n"
        "        return Pair.with(a + b, a - b);\n"
        "    }\n"
        "    public static void main(String[] args) {\n"
        "    assert(add((2l), (3l)).equals((Pair.with(5l, -1l))));\n"
        "    }\n"
        "\n"
        "}\n"
    ),
    multipl_e=(
        "javac -encoding UTF8 -d DIR F (javatuples on the classpath), then java -ea -cp "
        "DIR:javatuples.jar Problem (15 s each)"
    ),
)

EXTRACTION = ExtractionPart(
    tags=("java",),
    definition=r"^[ \t]*(?:(?:public|private|protected|static|final|synchronized|abstract)[ \t]+)*"
    r"(?:<[^>]*>[ \t]+)?[\w<>\[\],. ?]+[ \t]+(?P<name>[A-Za-z_]\w*)[ \t]*\(",
    code_start=r"(?:import |package |(?:public |private |protected |static |final |abstract )*"
    r"(?:class|interface|enum|record) |(?:public |private |protected |static )+)",
    no_code="class Problem { no code in the answer }\n",
    main="main",
    classes=node_set("class_declaration interface_declaration enum_declaration record_declaration"),
    assembly="class_members",
)

LANGUAGE = Language(
    name="java",
    code_contests=(4,),  # CodeContests' Solution.Language id
    display_name="Java",
    aliases=(),
    multipl_e=("java",),
    extensions=(".java",),
    parsing=LanguageSpec(
        "java",
        "tree_sitter_java",
        "language",
        comment_types=frozenset({"block_comment", "comment", "line_comment"}),
        string_types=frozenset({"character_literal", "string_literal", "text_block"}),
        identifier_types=frozenset({"identifier", "type_identifier"}),
    ),
    codebleu=CodeBleuPart(KEYWORDS, RULES, COMMENT_STYLE, PROBE),
    tsed=TsedPart(pack="java"),
    pdg=PDG,
    execution=EXECUTION,
    extraction=EXTRACTION,
    cost={
        "chrf_code": 0.0001,
        "codebleu": 0.00039,
        "ruby": 0.0026,
        "bleu": 0.00073,
        "edit_sim": 1e-05,
        "meteor": 0.00028,
        "rouge_l": 9e-05,
        "rouge_w": 0.0015,
        "tsed": 0.00091,
        "crystal_bleu": 0.00031,
        "codexglue_edit_sim": 9e-06,
    },
    examples=(
        (
            "int max(int a, int b) {\n    return a > b ? a : b;\n}",
            "int max(int a, int b) {\n    if (a > b) return a;\n    return b;\n}",
            "int max(int x, int y) {\n    return Math.max(x, y);\n}",
            "",
        ),
    ),
)
