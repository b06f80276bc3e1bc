"""Ruby: everything the library knows of it."""

import re
from typing import Any

from . import Language
from .parts import (
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
    ran,
    words,
)

KEYWORDS = words(
    "__ENCODING__ __LINE__ __FILE__ BEGIN END alias and begin break case class def defined? "
    "do else elsif end ensure false for if in module next nil not or redo rescue retry return "
    "self super then true undef unless until when while yield"
)

RULES = DataflowRules(
    definition=("keyword_parameter",),
    assignment=("assignment", "operator_assignment"),
    assignment_style="tuple",
    branch=("if", "elsif", "else", "unless", "when"),
    branch_style="plain",
    for_in=("for",),
    for_in_style="pattern_value",
    loop=("while_modifier", "until"),
)

COMMENT_STYLE = "none"

PROBE = (
    "def f(a, b = 1)\n"
    "  a.each { |x| b += x } # c\n"
    "  for i in 1..3 do b *= i end\n"
    '  b ? a : "#{b}"\n'
    "end\n"
    "x = ("
)


def _classify_run(step: Any) -> str:
    # MultiPL-E: a failed run that printed nothing on stderr failed its tests (test-unit
    # reports on stdout); anything printed on stderr makes it a SyntaxError
    return ran(step) or ("Exception" if step.stderr == "" else "SyntaxError")

# the completion proof: test-unit runs the tests at exit, after every exit handler the
# program registered before it; here they run at the end of the text instead, and the token
# follows a pass. A pass proves the tests ran: in a text that uses test-unit, it is loaded on
# the first line, before the program's code (a program that defines a fake Test::Unit or
# swallows `require` changes nothing, and a test-unit that cannot load fails the run), and
# the tests run through the collector and runner held from then, without command-line
# arguments or a configuration file (ARGV and test-unit.yml are not read); the token follows
# only when they passed, none was omitted or pending, and at least as many ran as the test
# defines test methods (``def test...`` after its first ``< Test::Unit::TestCase``).
_USES_TEST_UNIT = re.compile(r"test/unit|Test::Unit")
_TEST_CASE = re.compile(r"<\s*(?:::)?Test::Unit::TestCase\b")
_TEST_METHOD = re.compile(r"^[ \t]*def[ \t]+(test\w*[?!]?)", re.MULTILINE)
_START = (
    'require "test/unit"; require "test/unit/collector/descendant"; '
    'require "test/unit/ui/console/testrunner"; cgm_auto_runner_ = ::Test::Unit::AutoRunner; '
    "cgm_collector_ = ::Test::Unit::Collector::Descendant; "
    "cgm_runner_ = ::Test::Unit::UI::Console::TestRunner; "
)
_WRITE = (
    f'::File.open("{VERDICT}", "a") {{ |verdict| verdict.write("passed " + '
    f'::File.binread("{TOKEN}") + "\\n") }}'
)
_RUN = """
cgm_auto_runner_.need_auto_run = false
cgm_result_ = cgm_runner_.new(cgm_collector_.new.collect("main"), output_level: nil).start
cgm_tests_passed_ = cgm_result_.passed?
if cgm_tests_passed_ && !(cgm_result_.run_count >= {count} && cgm_result_.omission_count == 0 &&
                          cgm_result_.pending_count == 0)
  ::STDOUT.puts "not every test of the program ran and passed: {count} test methods, " \\
    "#{cgm_result_.run_count} ran, #{cgm_result_.omission_count} omitted, " \\
    "#{cgm_result_.pending_count} pending"
  cgm_tests_passed_ = false
end
if cgm_tests_passed_
  {write}
end
exit(cgm_tests_passed_ ? true : false)
"""


def _finish(text: str) -> str:
    if not _USES_TEST_UNIT.search(text):
        return text + "\n" + _WRITE + "\n"  # no test-unit: the token after the text
    case = _TEST_CASE.search(text)
    methods = set(_TEST_METHOD.findall(text, case.end())) if case else set()
    end = _RUN.replace("{count}", str(max(1, len(methods)))).replace("{write}", _WRITE)
    return _START + text + "\n" + end


EXECUTION = ExecutionPart(
    tools=(Tool("ruby", ("ruby",), "ruby"),),
    source="main.rb",
    finish=_finish,
    proof=(
        "test-unit is loaded on the first line, before the program's code; its tests run at "
        "the end of the text (not at exit, after the program's own exit handlers) through "
        "the collector and runner held from then, without command-line arguments, and the "
        "token follows when they passed and at least as many ran as the test defines"
    ),
    memory_errors=("NoMemoryError", "failed to allocate memory"),
    commands=(Command(("{ruby}", "{source}"), vouch=True),),
    classify_run=_classify_run,
    default_timeout=5.0,
    canary=(
        "def add(a, b)\n"
        "  a + b\n"
        "end\n"
        "\n"
        "require 'test/unit'\n"
        "class TestHumanEval < Test::Unit::TestCase\n"
        "  def test_add\n"
        "    candidate = method(:add)\n"
        "    assert_equal(5, candidate.call(2, 3))\n"
        "  end\n"
        "end\n"
    ),
    multipl_e="ruby F (5 s); a failed run that wrote to stderr is a SyntaxError",
)

EXTRACTION = ExtractionPart(
    tags=("ruby", "rb"),
    definition=r"^[ \t]*def[ \t]+(?:self\.)?(?P<name>\w+[?!]?)",
    code_start=r"(?:def |class |module |require |require_relative |[A-Z]\w* = )",
    no_code='abort("no code in the answer")\n',
    keep=frozenset({"method", "singleton_method", "class", "module", "assignment", "call"}),
    calls=frozenset({"call"}),
    calls_kept=frozenset({"require", "require_relative"}),
    test_classes=frozenset({"class"}),
)

LANGUAGE = Language(
    name="ruby",
    display_name="Ruby",
    aliases=(),
    multipl_e=("rb",),
    extensions=(".rb",),
    parsing=LanguageSpec(
        "ruby",
        "tree_sitter_ruby",
        "language",
        comment_types=frozenset({"comment"}),
        string_types=frozenset({"character", "heredoc_body", "regex", "simple_symbol", "string"}),
        identifier_types=frozenset({"constant", "identifier", "instance_variable"}),
    ),
    codebleu=CodeBleuPart(KEYWORDS, RULES, COMMENT_STYLE, PROBE),
    tsed=TsedPart(pack="ruby"),
    execution=EXECUTION,
    extraction=EXTRACTION,
    cost={
        "chrf_code": 0.00012,
        "codebleu": 0.00086,
        "ruby": 0.0014,
        "bleu": 0.00076,
        "edit_sim": 1e-05,
        "meteor": 0.00043,
        "rouge_l": 9e-05,
        "rouge_w": 0.0017,
        "tsed": 0.00088,
        "crystal_bleu": 0.00033,
        "codexglue_edit_sim": 9e-06,
    },
)
