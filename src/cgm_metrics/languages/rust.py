"""Rust: everything the library knows of it."""

import re

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
    Tool,
    TsedPart,
    compile_timeout_or_syntax_error,
    exit_status,
    node_set,
    words,
)

KEYWORDS = words(
    "as async await block bool break char const continue crate default dyn else enum expr "
    "extern f32 f64 false fn for i128 i16 i32 i64 i8 ident if impl in isize item let lifetime "
    "literal loop macro_rules! match meta mod move mut pat path pub ref return self static "
    "stmt str struct super trait true tt ty type u128 u16 u32 u64 u8 union unsafe use usize "
    "vis where while yield"
)

RULES = DataflowRules(
    definition=("function_item",),
    definition_style="after_keyword",
    assignment=("assignment_expression", "compound_assignment_expr", "let_expression"),
    branch=("if_expression", "if_let_expression", "match_expression", "else"),
    c_for=("for_expression",),
    c_for_restart="local_variable_declaration",
    foreach=("for_each_statement",),
    foreach_name="left",
    foreach_value="right",
    loop=("while_expression", "while_let_expression", "loop_expression"),
)

COMMENT_STYLE = C_STYLE

PROBE = (
    "fn f(a: i32, b: &[i32]) -> i32 { let mut s = a; for v in b { s += v; } // c\n"
    "match s { 0 => 1, _ => s } }\n"
    "struct S { x: i32 }\n"
    "let x = ;"
)

# the completion proof: the test's `fn main()` (its last) is renamed and called by ours
_MAIN = re.compile(r"\bfn\s+main\s*\(\s*\)")
_TESTS = "cgm_tests_main_"
_END = f"""

fn main() {{
    {_TESTS}();
    let token = ::std::fs::read("{TOKEN}").unwrap_or_default();
    let mut line = b"passed ".to_vec();
    line.extend_from_slice(&token);
    line.push(b'\\n');
    let written = ::std::fs::OpenOptions::new().append(true).open("{VERDICT}")
        .and_then(|mut verdict| ::std::io::Write::write_all(&mut verdict, &line));
    if written.is_err() {{
        ::std::process::exit(1);
    }}
}}
"""


def _finish(text: str) -> str:
    found = list(_MAIN.finditer(text))
    if not found:
        return text  # no entry point: it does not build (or cannot vouch)
    last = found[-1]
    return text[: last.start()] + f"fn {_TESTS}()" + text[last.end() :] + _END


EXECUTION = ExecutionPart(
    tools=(Tool("rustc", ("/usr/bin/rustc", "rustc"), "rustc"),),
    source="main.rs",
    finish=_finish,
    proof=(
        "the test's (last) fn main is renamed and called by ours, which writes the token when "
        "it returns"
    ),
    memory_errors=("memory allocation of ",),
    commands=(
        Command(("{rustc}", "{source}", "-o", "main"), compile=True),
        Command(("./main",), vouch=True),
    ),
    classify_run=exit_status,
    default_timeout=5.0,
    canary=(
        "fn add(a: isize, b: isize) -> isize {\n"
        "    a + b\n"
        "}\n"
        "\n"
        "fn main() {\n"
        "    let candidate = add;\n"
        "    assert_eq!(candidate(2, 3), 5);\n"
        "}\n"
    ),
    classify_compile=compile_timeout_or_syntax_error,
    multipl_e=(
        "rustc F -o F_noext (edition 2015, 15 s; a compile timeout is Timeout), then F_noext (5 s)"
    ),
)

EXTRACTION = ExtractionPart(
    tags=("rust", "rs"),
    definition=r"^[ \t]*(?:pub(?:\([^)]*\))?[ \t]+)?(?:const[ \t]+)?(?:unsafe[ \t]+)?fn[ \t]+(?P<name>\w+)",
    code_start=r"(?:use |fn |pub |struct |enum |impl |trait |const |static |#\[|mod |type )",
    no_code='compile_error!("no code in the answer");\n',
    keep=node_set(
        "use_declaration function_item struct_item enum_item impl_item trait_item const_item "
        "static_item type_item macro_definition extern_crate_declaration mod_item attribute_item "
        "function_signature_item union_item"
    ),
    main="main",
    test_modules=node_set("mod_item"),
)

LANGUAGE = Language(
    name="rust",
    display_name="Rust",
    aliases=(),
    multipl_e=("rs",),
    extensions=(".rs",),
    parsing=LanguageSpec(
        "rust",
        "tree_sitter_rust",
        "language",
        comment_types=frozenset({"block_comment", "line_comment"}),
        string_types=frozenset({"char_literal", "raw_string_literal", "string_literal"}),
        identifier_types=frozenset({"field_identifier", "identifier", "type_identifier"}),
    ),
    codebleu=CodeBleuPart(KEYWORDS, RULES, COMMENT_STYLE, PROBE),
    tsed=TsedPart(pack="rust"),
    execution=EXECUTION,
    extraction=EXTRACTION,
    cost={
        "chrf_code": 0.00011,
        "codebleu": 0.0004,
        "ruby": 0.00095,
        "bleu": 0.00075,
        "edit_sim": 1e-05,
        "meteor": 0.00038,
        "rouge_l": 8e-05,
        "rouge_w": 0.0019,
        "tsed": 0.00094,
        "crystal_bleu": 0.00032,
        "codexglue_edit_sim": 9e-06,
    },
)
