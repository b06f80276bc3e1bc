"""How programs.json was written: right and wrong programs of two HumanEval problems in
TypeScript, Go, Rust, PHP, Ruby, Lua and Bash, laid out as MultiPL-E's dataset_builder
(humaneval_to_<lang>.py) lays out its prompts and tests. Run: python make_programs.py"""
import json
from pathlib import Path

GCD_DOC = ["Return a greatest common divisor of two integers a and b",
           ">>> greatest_common_divisor(3, 5)", "1", ">>> greatest_common_divisor(25, 15)", "5"]
DUP_DOC = ["From a list of integers, remove all elements that occur more than once.",
           "Keep order of elements left the same as in the input.",
           ">>> remove_duplicates([1, 2, 3, 2, 4])", "[1, 3, 4]"]
GCD_CASES = [((3, 7), 1), ((10, 15), 5), ((49, 14), 7), ((144, 60), 12)]
DUP_CASES = [([], []), ([1, 2, 3, 4], [1, 2, 3, 4]), ([1, 2, 3, 2, 4, 3, 5], [1, 4, 5])]


def items(values, separator=", "):
    return separator.join(map(str, values))


def comment(prefix, lines, first_prefix=None):
    out = [(first_prefix if first_prefix is not None else prefix) + lines[0]]
    out += [prefix + line for line in lines[1:]]
    return "\n".join(out) + "\n"


programs = []


def add(lang, task, name, prompt, completion, tests, multipl_e, expected=None, note=""):
    programs.append({
        "language": lang, "task": task, "name": name, "prompt": prompt,
        "completion": completion, "tests": tests, "multipl_e_status": multipl_e,
        "expected": expected or multipl_e, "note": note,
        "program": prompt + completion + "\n" + tests,
    })


# --- TypeScript: humaneval_to_ts.py -------------------------------------------------------------
def ts_tests(entry, asserts):
    body = "\n".join(f"  assert.deepEqual({a},{b});" for a, b in asserts)
    return ("declare var require: any;\nconst assert = require('node:assert');\n\n"
            f"function test() {{\n  let candidate = {entry};\n{body}\n}}\n\ntest();")


ts_gcd = "//" + comment("// ", GCD_DOC, "")[0:] + \
    "function greatest_common_divisor(a: number, b: number): number {\n"
ts_gcd_tests = ts_tests("greatest_common_divisor",
                        [(f"candidate({x}, {y})", str(r)) for (x, y), r in GCD_CASES])
add("typescript", "HumanEval_13_greatest_common_divisor", "right", ts_gcd,
    "  while (b !== 0) {\n    const t = a % b;\n    a = b;\n    b = t;\n  }\n  return a;\n}\n",
    ts_gcd_tests, "OK")
add("typescript", "HumanEval_13_greatest_common_divisor", "wrong", ts_gcd,
    "  return a * b;\n}\n", ts_gcd_tests, "AssertionError")
add("typescript", "HumanEval_13_greatest_common_divisor", "type error", ts_gcd,
    "  return \"a\" + b;\n}\n", ts_gcd_tests, "SyntaxError")
add("typescript", "HumanEval_13_greatest_common_divisor", "endless", ts_gcd,
    "  while (true) {}\n}\n", ts_gcd_tests, "Timeout")
ts_dup = "//" + comment("// ", DUP_DOC, "") + \
    "function remove_duplicates(numbers: number[]): number[] {\n"
add("typescript", "HumanEval_26_remove_duplicates", "right", ts_dup,
    "  const counts = new Map<number, number>();\n"
    "  for (const n of numbers) counts.set(n, (counts.get(n) ?? 0) + 1);\n"
    "  return numbers.filter((n) => counts.get(n) === 1);\n}\n",
    ts_tests("remove_duplicates", [(f"candidate([{items(a)}])", f"[{items(e)}]")
                                   for a, e in DUP_CASES]), "OK")


# --- Go: humaneval_to_go.py -----------------------------------------------------------------------
def go_tests(test_name, entry, cases):
    rows = "\n".join(f"     {{ actual: candidate({a}), expected: {e} }}," for a, e in cases)
    return (f"func {test_name}(t *testing.T) {{\n  candidate := {entry}\n"
            "\ttype test struct {\n\t\tactual   interface{}\n\t\texpected interface{}\n\t}\n"
            f"   tests := []test{{\n{rows}\n   }}\n\n"
            "\tfor i, tc := range tests {\n"
            "\t\tt.Run(fmt.Sprintf(\"test num % d\", i), func(t *testing.T) {\n"
            "\t\t\tif fmt.Sprintf(\"%v\", tc.actual) != fmt.Sprintf(\"%v\", tc.expected) {\n"
            "\t\t\t\tt.Errorf(\"expected '%s', got '%s'\", tc.expected, tc.actual)\n"
            "\t\t\t}\n\t\t})\n\t}\n}\n")


def go_prompt(package, doc, signature):
    return (f"package {package}_test\n\nimport (\n    \"testing\"\n    \"fmt\"\n)\n\n"
            + comment("// ", doc) + signature + " {\n")


go_gcd = go_prompt("greatest_common_divisor", GCD_DOC,
                   "func greatest_common_divisor(a int, b int) int")
go_gcd_tests = go_tests("TestGreatest_Common_Divisor", "greatest_common_divisor",
                        [(f"{x}, {y}", r) for (x, y), r in GCD_CASES])
add("go", "HumanEval_13_greatest_common_divisor", "right", go_gcd,
    "    for b != 0 {\n        a, b = b, a%b\n    }\n    return a\n}\n", go_gcd_tests, "OK")
add("go", "HumanEval_13_greatest_common_divisor", "wrong", go_gcd,
    "    return a * b\n}\n", go_gcd_tests, "Exception")
add("go", "HumanEval_13_greatest_common_divisor", "type error", go_gcd,
    "    return \"a\"\n}\n", go_gcd_tests, "SyntaxError")
add("go", "HumanEval_13_greatest_common_divisor", "endless", go_gcd,
    "    for {\n    }\n}\n", go_gcd_tests, "Timeout")


def go_list(values):
    return "[]int{" + items(values) + "}"


go_dup = go_prompt("remove_duplicates", DUP_DOC, "func remove_duplicates(numbers []int) []int")
add("go", "HumanEval_26_remove_duplicates", "right", go_dup,
    "    counts := make(map[int]int)\n    for _, n := range numbers {\n        counts[n]++\n"
    "    }\n    result := []int{}\n    for _, n := range numbers {\n"
    "        if counts[n] == 1 {\n            result = append(result, n)\n        }\n    }\n"
    "    return result\n}\n",
    go_tests("TestRemove_Duplicates", "remove_duplicates",
             [(go_list(a), go_list(e)) for a, e in DUP_CASES]), "OK")


# --- Rust: humaneval_to_rs.py ------------------------------------------------------------------------
def rs_tests(entry, asserts):
    body = "\n".join(f"    assert_eq!({a}, {b});" for a, b in asserts)
    return f"}}\n\nfn main() {{\n    let candidate = {entry};\n{body}\n}}\n"


rs_gcd = comment("/// ", GCD_DOC) + \
    "fn greatest_common_divisor(a: isize, b: isize) -> isize {\n"
rs_gcd_tests = rs_tests("greatest_common_divisor",
                        [(f"candidate({x}, {y})", str(r)) for (x, y), r in GCD_CASES])
add("rust", "HumanEval_13_greatest_common_divisor", "right", rs_gcd,
    "    let (mut a, mut b) = (a, b);\n    while b != 0 {\n        let t = a % b;\n"
    "        a = b;\n        b = t;\n    }\n    a", rs_gcd_tests, "OK")
add("rust", "HumanEval_13_greatest_common_divisor", "wrong", rs_gcd,
    "    a * b", rs_gcd_tests, "Exception")
add("rust", "HumanEval_13_greatest_common_divisor", "type error", rs_gcd,
    "    \"a\"", rs_gcd_tests, "SyntaxError")
add("rust", "HumanEval_13_greatest_common_divisor", "endless", rs_gcd,
    "    loop {}", rs_gcd_tests, "Timeout")


def rs_vec(values):
    return f"vec![{items(values)}]" if values else "Vec::<isize>::new()"


rs_dup = comment("/// ", DUP_DOC) + "fn remove_duplicates(numbers: Vec<isize>) -> Vec<isize> {\n"
add("rust", "HumanEval_26_remove_duplicates", "right", rs_dup,
    "    let mut counts = std::collections::HashMap::new();\n    for n in &numbers {\n"
    "        *counts.entry(*n).or_insert(0) += 1;\n    }\n"
    "    numbers.into_iter().filter(|n| counts[n] == 1).collect()",
    rs_tests("remove_duplicates", [(f"candidate({rs_vec(a)})", rs_vec(e))
                                   for a, e in DUP_CASES]), "OK")


# --- PHP: humaneval_to_php.py ------------------------------------------------------------------------
def php_tests(entry, asserts):
    body = "\n".join(f"    if ({a} !== {b}) {{ throw new Exception(\"Test failed!\"); }}"
                     for a, b in asserts)
    return (f"function candidate(...$args) {{\n    return {entry}(...$args);\n}}\n\n"
            f"function test(): void {{\n{body}\n}}\n\ntest();")


php_gcd = "<?php\n" + comment("// ", GCD_DOC) + "function greatest_common_divisor($a, $b) {\n"
php_gcd_tests = php_tests("greatest_common_divisor",
                          [(f"candidate({x}, {y})", str(r)) for (x, y), r in GCD_CASES])
add("php", "HumanEval_13_greatest_common_divisor", "right", php_gcd,
    "    while ($b != 0) {\n        $t = $a % $b;\n        $a = $b;\n        $b = $t;\n    }\n"
    "    return $a;\n}\n", php_gcd_tests, "OK")
add("php", "HumanEval_13_greatest_common_divisor", "wrong", php_gcd,
    "    return $a * $b;\n}\n", php_gcd_tests, "Exception")
add("php", "HumanEval_13_greatest_common_divisor", "parse error", php_gcd,
    "    return $a +;\n}\n", php_gcd_tests, "Exception", "SyntaxError",
    "MultiPL-E looks for 'PHP Parse error' on stdout only; PHP's CLI prints it on stderr")
add("php", "HumanEval_13_greatest_common_divisor", "endless", php_gcd,
    "    while (true) {}\n}\n", php_gcd_tests, "Exception", "Timeout",
    "MultiPL-E's PHP rule does not look at its timeout flag")


def php_array(values):
    return f"array({items(values)})"


php_dup = "<?php\n" + comment("// ", DUP_DOC) + "function remove_duplicates($numbers) {\n"
add("php", "HumanEval_26_remove_duplicates", "right", php_dup,
    "    $counts = array_count_values($numbers);\n"
    "    return array_values(array_filter($numbers, function ($n) use ($counts) {\n"
    "        return $counts[$n] == 1;\n    }));\n}\n",
    php_tests("remove_duplicates", [(f"candidate({php_array(a)})", php_array(e))
                                    for a, e in DUP_CASES]), "OK")
add("php", "HumanEval_26_remove_duplicates", "keys kept", php_dup,
    "    $counts = array_count_values($numbers);\n"
    "    return array_filter($numbers, function ($n) use ($counts) {\n"
    "        return $counts[$n] == 1;\n    });\n}\n",
    php_tests("remove_duplicates", [(f"candidate({php_array(a)})", php_array(e))
                                    for a, e in DUP_CASES]), "Exception",
    note="array_filter keeps the keys: array(0 => 1, 3 => 4, 6 => 5) !== array(1, 4, 5)")


# --- Ruby: humaneval_to_rb.py ------------------------------------------------------------------------
def rb_tests(entry, asserts):
    body = "\n".join(f"    assert_equal({b}, {a})" for a, b in asserts)
    return ("require 'test/unit'\nclass TestHumanEval < Test::Unit::TestCase\n"
            f"  def test_{entry}\n    candidate = method(:{entry})\n{body}\n  end\nend\n")


rb_gcd = comment("# ", GCD_DOC) + "def greatest_common_divisor(a, b)\n"
rb_gcd_tests = rb_tests("greatest_common_divisor",
                        [(f"candidate.call({x}, {y})", str(r)) for (x, y), r in GCD_CASES])
add("ruby", "HumanEval_13_greatest_common_divisor", "right", rb_gcd,
    "  b == 0 ? a : greatest_common_divisor(b, a % b)\nend", rb_gcd_tests, "OK")
add("ruby", "HumanEval_13_greatest_common_divisor", "wrong", rb_gcd,
    "  a * b\nend", rb_gcd_tests, "Exception")
add("ruby", "HumanEval_13_greatest_common_divisor", "syntax error", rb_gcd,
    "  if a > b\n    a\nend", rb_gcd_tests, "SyntaxError")
add("ruby", "HumanEval_13_greatest_common_divisor", "endless", rb_gcd,
    "  loop { }\nend", rb_gcd_tests, "Timeout")
rb_dup = comment("# ", DUP_DOC) + "def remove_duplicates(numbers)\n"
add("ruby", "HumanEval_26_remove_duplicates", "right", rb_dup,
    "  numbers.select { |n| numbers.count(n) == 1 }\nend",
    rb_tests("remove_duplicates", [(f"candidate.call([{items(a)}])", f"[{items(e)}]")
                                   for a, e in DUP_CASES]), "OK")


# --- Lua: humaneval_to_lua.py ------------------------------------------------------------------------
def lua_tests(entry, asserts):
    body = "\n".join(f"    lu.assertEquals({a}, {b})" for a, b in asserts)
    return (f"lu = require('luaunit')\n\nfunction test_humaneval()\nlocal candidate = {entry}\n"
            f"{body}\nend\n\nos.exit(lu.LuaUnit.run())")


lua_gcd = comment("-- ", GCD_DOC) + "local function greatest_common_divisor(a, b)\n"
lua_gcd_tests = lua_tests("greatest_common_divisor",
                          [(f"candidate({x}, {y})", str(r)) for (x, y), r in GCD_CASES])
add("lua", "HumanEval_13_greatest_common_divisor", "right", lua_gcd,
    "  while b ~= 0 do\n    a, b = b, a % b\n  end\n  return a\nend", lua_gcd_tests, "OK")
add("lua", "HumanEval_13_greatest_common_divisor", "wrong", lua_gcd,
    "  return a * b\nend", lua_gcd_tests, "Exception")
add("lua", "HumanEval_13_greatest_common_divisor", "syntax error", lua_gcd,
    "  return a +\nend", lua_gcd_tests, "Exception", "SyntaxError",
    "MultiPL-E's Lua rule has no SyntaxError")
add("lua", "HumanEval_13_greatest_common_divisor", "endless", lua_gcd,
    "  while true do end\nend", lua_gcd_tests, "Timeout")


def lua_table(values):
    return "{" + items(values) + "}"


lua_dup = comment("-- ", DUP_DOC) + "local function remove_duplicates(numbers)\n"
add("lua", "HumanEval_26_remove_duplicates", "right", lua_dup,
    "  local counts, result = {}, {}\n  for _, n in ipairs(numbers) do\n"
    "    counts[n] = (counts[n] or 0) + 1\n  end\n  for _, n in ipairs(numbers) do\n"
    "    if counts[n] == 1 then table.insert(result, n) end\n  end\n  return result\nend",
    lua_tests("remove_duplicates", [(f"candidate({lua_table(a)})", lua_table(e))
                                    for a, e in DUP_CASES]), "OK")


# --- Bash: humaneval_to_sh.py ------------------------------------------------------------------------
def sh_tests(entry, asserts):
    body = "\n".join(f"    [[ {a} = {b} ]]" for a, b in asserts)
    return (f"}}\n\ncandidate() {{\n    {entry} \"$@\"\n}}\n\nset -e\nrun_test() {{\n{body}\n}}"
            "\n\nrun_test")


sh_gcd = ("#!/bin/bash\n" + comment("# ", GCD_DOC) + "#\n# $1 is an integer\n# $2 is an integer\n"
          "greatest_common_divisor() {\n")
sh_gcd_tests = sh_tests("greatest_common_divisor",
                        [(f"$(candidate \"{x}\" \"{y}\")", f"\"{r}\"") for (x, y), r in GCD_CASES])
add("bash", "HumanEval_13_greatest_common_divisor", "right", sh_gcd,
    "    local a=$1 b=$2 t\n    while (( b != 0 )); do\n        t=$(( a % b ))\n        a=$b\n"
    "        b=$t\n    done\n    echo \"$a\"", sh_gcd_tests, "OK")
add("bash", "HumanEval_13_greatest_common_divisor", "wrong", sh_gcd,
    "    echo $(( $1 * $2 ))", sh_gcd_tests, "Exception")
add("bash", "HumanEval_13_greatest_common_divisor", "syntax error", sh_gcd,
    "    if (( $1 > $2 )); then\n        echo $1", sh_gcd_tests, "SyntaxError")
add("bash", "HumanEval_13_greatest_common_divisor", "endless", sh_gcd,
    "    while true; do :; done", sh_gcd_tests, "Timeout")
sh_dup = ("#!/bin/bash\n" + comment("# ", DUP_DOC) + "#\n# $1 is a space-separated list\n"
          "remove_duplicates() {\n")
add("bash", "HumanEval_26_remove_duplicates", "right", sh_dup,
    "    local -A counts\n    local n out=()\n"
    "    for n in $1; do counts[$n]=$(( ${counts[$n]:-0} + 1 )); done\n"
    "    for n in $1; do\n        if [[ ${counts[$n]} -eq 1 ]]; then out+=(\"$n\"); fi\n"
    "    done\n    echo \"${out[*]}\"",
    sh_tests("remove_duplicates", [(f"$(candidate \"{items(a, ' ')}\")", f"\"{items(e, ' ')}\"")
                                   for a, e in DUP_CASES]), "OK")

Path(__file__).with_name("programs.json").write_text(
    json.dumps({"programs": programs}, indent=1) + "\n", encoding="utf-8")
print(len(programs), "programs")
