"""Perl: everything the library knows of it.

Parsing with the ``tree-sitter-perl`` grammar wheel (pinned in setup.cfg); TSED with the
grammar of ``tree-sitter-language-pack``, as the ``tsed`` package reads Perl. CodeBLEU has no
Perl in the ``codebleu`` package: its keywords and dataflow rules below are mapped onto this
grammar as for the other languages the package does not have. Execution follows MultiPL-E's
Perl harness (``perl F``; the tests call ``eq_deeply`` of ``Test::Deep`` and ``exit 1`` on a
mismatch).
"""

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
    words,
)

# perlsyn (compound statements, loop control), perlop (the named operators: and, or, not,
# xor, the string comparisons and x), perlsub / perlmod (declarations, the phase blocks) and
# perlfunc's declarations and special literals; symbols (=~, ->, ...) are left out, as the
# package's lists leave out operators.
KEYWORDS = words(
    "if elsif else unless while until for foreach do last next redo goto return sub my our "
    "local state package use no require BEGIN END INIT CHECK UNITCHECK and or not xor eq ne "
    "lt gt le ge cmp x defined undef ref bless die eval wantarray print say __PACKAGE__ "
    "__FILE__ __LINE__ __SUB__ __DATA__ __END__"
)

RULES = DataflowRules(
    # `my $x = ...` and `$x += ...` are assignment expressions (left / right fields); a list
    # assignment `my ($a, $b) = @_` computes each variable from each on the right
    assignment=("assignment_expression",),
    increment=("postinc_expression", "preinc_expression"),
    # if / elsif / else nest as Ruby's do
    branch=("conditional_statement", "elsif", "else"),
    branch_style="plain",
    foreach=("for_statement",),
    foreach_name="variable",
    foreach_value="list",
    foreach_body="block",
    c_for=("cstyle_for_statement",),
    c_for_restart="expression_statement",
    loop=("loop_statement",),
    identifier="varname",
    # literals are kept whole, "..." too (its quotes would be names otherwise)
    atomic=("heredoc_content", "interpolated_string_literal", "quoted_regexp", "string_literal"),
    comments=("comment", "pod"),
)

# perlsyn "Comments" and perlop "Quote and Quote-like Operators": `#` to the end of the line
# where a word starts (so $#array and s/a#b// stay), single and double quotes. POD blocks
# stay in the text as documentation, as docstrings do outside Python.
COMMENT_STYLE = CommentStyle(
    line=("#",),
    line_at_word_start=True,
    quotes=(Quote("'"), Quote('"')),
)

PROBE = (
    "sub f { my ($a, $b) = @_; my $s = $a; for my $v (@$b) { $s += $v; } # c\n"
    "  if ($s > 0) { return $s; } elsif ($s < 0) { return -$s; } else { $s++; } }\n"
    "my %h = (x => \"$s\");\n"
    "my $y = ;"
)

# a program that does not compile: perl reports it and stops before running anything
_COMPILE_ERROR = re.compile(r"aborted due to compilation errors\.|(?:^|\n)syntax error at ")


def _classify_run(step: Any) -> str:
    # MultiPL-E's eval_pl.py: Timeout; a nonzero exit status is an Exception; so is ERROR
    # printed on either stream; else OK
    if step.status == "timeout":
        return "Timeout"
    if not step.passed:
        return "SyntaxError" if _COMPILE_ERROR.search(step.stderr) else "Exception"
    if "ERROR" in step.stdout or "ERROR" in step.stderr:
        return "Exception"
    return "OK"

# the completion proof: a block after the test's last statement writes the token (an exit,
# a die, an exec, a __DATA__/__END__ or an unclosed POD block before it leaves none). The
# test fails with `exit 1`: a program that makes that exit harmless (an override of exit,
# global through CORE::GLOBAL::exit or in the test's package, `use subs` or an imported sub)
# is refused when the text has been compiled, before anything of it runs (the check is a
# BEGIN block after the test, so an override that would remove itself when called is still
# there).
_END = f"""
;BEGIN {{
    no strict "refs";
    for my $cgm_name_ ("CORE::GLOBAL::exit", __PACKAGE__ . "::exit", "main::exit") {{
        if (CORE::exists &{{$cgm_name_}} or CORE::defined &{{$cgm_name_}}) {{
            CORE::print STDERR "ERROR: the program overrides exit ($cgm_name_), the way its "
                . "test fails: refused\\n";
            CORE::exit 1;
        }}
    }}
}}
;{{
    CORE::open(my $cgm_token_, "<", "{TOKEN}") or die "cannot read the run's token: $!";
    my $cgm_line_ = "passed " . CORE::do {{ local $/; <$cgm_token_> }} . "\\n";
    CORE::open(my $cgm_verdict_, ">>", "{VERDICT}") or die "cannot write the verdict: $!";
    CORE::print {{$cgm_verdict_}} $cgm_line_;
    CORE::close($cgm_verdict_) or die "cannot write the verdict: $!";
}}
"""


EXECUTION = ExecutionPart(
    tools=(
        Tool("perl", ("/usr/bin/perl", "perl"), "perl"),
        # found when perl loads it (its path is perl's own)
        Tool("Test::Deep", ("/usr/bin/perl", "perl"), "libtest-deep-perl",
             check=("-MTest::Deep", "-e", "1")),
    ),
    source="main.pl",
    finish=lambda text: text + "\n" + _END,
    proof=(
        "a block after the text writes the token (an exit, die or exec before it leaves "
        "none); a text that overrides exit (the test's failure path) is refused once "
        "compiled, before it runs"
    ),
    memory_errors=("Out of memory",),
    commands=(Command(("{perl}", "{source}"), vouch=True),),
    classify_run=_classify_run,
    default_timeout=15.0,
    canary=(
        "# add two numbers\n"
        "sub add {\n"
        "    my($a, $b) = @_;\n"
        "    return $a + $b;\n"
        "}\n"
        "use Test::Deep;\n"
        "\n"
        "sub testhumaneval {\n"
        "    my $candidate = \\&add;\n"
        "        if(eq_deeply($candidate->(2, 3),5)) {\n"
        "        print \"ok!\" }else{\n"
        "        exit 1;\n"
        "        }\n"
        "}\n"
        "\n"
        "testhumaneval();\n"
    ),
    multipl_e="perl F (15 s); a nonzero exit status or ERROR in the output is an Exception",
    notes=(
        "a program that does not compile (perl: 'aborted due to compilation errors') is a "
        "SyntaxError (MultiPL-E's Perl rule has no SyntaxError and records Exception)"
    ),
)

# Chat answers (--extract): MultiPL-E's prompts open `sub name {` and its tests begin by closing
# it; a whole solution keeps its `use` lines, subs, packages and assignments and loses its
# calls and loops (usage, the model's own checks) and its `use Test::More` (the tests bring
# Test::Deep). A line of words can parse as Perl: only a definition makes unfenced text code.
EXTRACTION = ExtractionPart(
    tags=("perl", "pl", "perl5"),
    definition=r"^[ \t]*sub[ \t]+(?P<name>\w+)",
    code_start=r"(?:#!|use |sub |my |our |package |require )",
    no_code='die "no code in the answer\\n";\n',
    keep=frozenset(
        {"use_statement", "use_version_statement", "subroutine_declaration_statement",
         "expression_statement", "package_statement"}
    ),
    words_are_code=True,
    definition_types=frozenset({"subroutine_declaration_statement"}),
    statements=frozenset({"expression_statement"}),
    statement_kept=frozenset({"assignment_expression", "require_expression"}),
    own_imports=frozenset({"use_statement"}),
    own_import_words=("Test::More",),
    tests_define=True,
)

LANGUAGE = Language(
    name="perl",
    display_name="Perl",
    aliases=("perl5",),
    multipl_e=("pl",),
    extensions=(".pl", ".pm", ".t"),
    parsing=LanguageSpec(
        "perl",
        "tree_sitter_perl",
        "language",
        comment_types=frozenset({"comment", "pod"}),
        string_types=frozenset(
            {"command_string", "heredoc_content", "interpolated_string_literal",
             "match_regexp", "quoted_regexp", "quoted_word_list", "string_literal",
             "substitution_regexp", "transliteration_expression"}
        ),
        identifier_types=frozenset({"varname"}),
    ),
    codebleu=CodeBleuPart(KEYWORDS, RULES, COMMENT_STYLE, PROBE),
    tsed=TsedPart(pack="perl"),
    execution=EXECUTION,
    extraction=EXTRACTION,
)
