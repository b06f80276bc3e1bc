"""Chat answers written from real programs: a program of MultiPL-E's layout (prompt +
completion + tests, with its recorded verdict) becomes the whole function a chat model would
give, wrapped the ways chat models answer (prose, fences with and without a tag, reasoning
with a broken draft, usage and tests of their own, a block in another language, raw code
ending in a chat token, a main of their own). The extracted program must get the verdict of
the original program."""

from __future__ import annotations

import gzip
import json
import re
from dataclasses import dataclass

from conftest import DATA

from cgm_metrics import languages
from cgm_metrics.execution.extract import entry_point_of
from cgm_metrics.execution.tasks import Problem

TAGS = {"python": "python", "cpp": "cpp", "java": "java", "javascript": "javascript",
        "typescript": "typescript", "go": "go", "rust": "rust", "php": "php", "ruby": "ruby",
        "lua": "lua", "bash": "bash"}
NAMES = {"python": "Python", "cpp": "C++", "java": "Java", "javascript": "JavaScript",
         "typescript": "TypeScript", "go": "Go", "rust": "Rust", "php": "PHP", "ruby": "Ruby",
         "lua": "Lua", "bash": "Bash"}
STYLES = ("prose", "tilde_untagged", "think_draft", "usage_after", "own_tests",
          "other_language_first", "raw_chat_token", "with_main", "two_versions",
          "deepseek_close_only", "body_only")


@dataclass(frozen=True)
class Original:
    """A real program: its task, its parts and the verdict it got."""

    language: str
    task: str
    index: str
    prompt: str
    completion: str
    tests: str
    verdict: str

    @property
    def problem(self) -> Problem:
        return Problem(self.task, self.prompt, self.tests, self.entry_point,
                       language=self.language)

    @property
    def entry_point(self) -> str:
        if self.language == "python":
            match = re.search(r"^def (\w+)", self.prompt, re.M)
            return match.group(1) if match else ""
        return entry_point_of(self.prompt, self.language)

    @property
    def program(self) -> str:
        text = self.prompt + self.completion + "\n" + self.tests
        if self.language == "python":
            text += "\n" + f"check({self.entry_point})"
        return text


def multipl_e(language: str) -> list[Original]:
    key = {"cpp": "cpp", "java": "java", "javascript": "js", "python": "python"}[language]
    with gzip.open(DATA / "multipl_e" / f"{key}.jsonl.gz", "rt", encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle]
    return [Original(language, row["task"], str(row["completion_index"]), row["prompt"],
                     row["completion"], row["tests"], row["status"]) for row in rows]


def conventions(language: str) -> list[Original]:
    data = json.loads((DATA / "multipl_e_conventions" / "programs.json").read_text())
    return [Original(row["language"], row["task"], row["name"], row["prompt"],
                     row["completion"], row["tests"], row["expected"])
            for row in data["programs"] if row["language"] == language]


# ------------------------------------------------------------------ the solution a chat gives


def signature_start(original: Original) -> int:
    """Where the entry point's definition starts in the prompt."""
    rules = languages.resolve(original.language, part="extraction").extraction
    start = 0
    for match in re.finditer(rules.definition, original.prompt, re.M):
        if (match.group("name") or match.groupdict().get("alt")) == original.entry_point:
            start = match.start()
    return start


def whole_function(original: Original) -> str:
    """The prompt's definition with the completion, closed as the tests close it."""
    text = original.prompt[signature_start(original):] + original.completion
    if original.tests.lstrip().startswith("}"):
        text = text.rstrip(" \t") + ("" if text.endswith("\n") else "\n") + "}"
    return text.rstrip() + "\n"


def head_imports(original: Original) -> str:
    """The imports / includes a chat model writes above its function."""
    head = original.prompt[:signature_start(original)]
    if original.language == "go":
        found = re.search(r"^import \([^)]*\)\n|^import .*\n", head, re.M)
        return found.group(0) if found else ""
    keep = [line for line in head.splitlines()
            if re.match(r"\s*(?:from \S+ import|import |#include|using |use |require)", line)]
    return "\n".join(keep) + ("\n" if keep else "")


def call_of(original: Original) -> str:
    """A call of the entry point taken from the tests (the model's usage example)."""
    name = original.entry_point
    tests = original.tests
    if original.language == "bash":
        match = re.search(r"\$\(candidate ([^)]*)\)", tests)
        return f"{name} {match.group(1)}" if match else name
    for needle in ("candidate.call(", "candidate(", name + "("):
        start = tests.find(needle)
        if start >= 0:
            break
    else:
        return name + "()"
    position = start + len(needle)
    depth = 1
    while position < len(tests) and depth:
        depth += {"(": 1, ")": -1}.get(tests[position], 0)
        position += 1
    return name + "(" + tests[start + len(needle):position - 1] + ")"


def usage_line(original: Original) -> str:
    call = call_of(original)
    return {
        "python": f"print({call})",
        "cpp": f"auto result = {call};\n    (void)result;",
        "java": f"System.out.println({call});",
        "javascript": f"console.log({call});",
        "typescript": f"console.log({call});",
        "go": f"fmt.Println({call})",
        "rust": f'println!("{{:?}}", {call});',
        "php": f"print_r({call});",
        "ruby": f"p {call}",
        "lua": f"print({call})",
        "bash": f'echo "$({call})"',
    }[original.language]


def with_main(original: Original, solution: str) -> str:
    """The solution as a whole program with a main of the model's own."""
    usage = usage_line(original)
    language = original.language
    imports = head_imports(original)
    if language == "python":
        return f'{imports}\n{solution}\n\nif __name__ == "__main__":\n    {usage}\n'
    if language == "cpp":
        return (f"#include <iostream>\n{imports}\n{solution}\nint main() {{\n    {usage}\n"
                "    return 0;\n}\n")
    if language == "java":
        return (f"import java.util.*;\nimport org.javatuples.*;\n\nclass Solution {{\n"
                f"{_indent(solution)}\n    public static void main(String[] args) {{\n"
                f"        {usage}\n    }}\n}}\n")
    if language == "go":
        return f'package main\n\nimport "fmt"\n\n{solution}\nfunc main() {{\n    {usage}\n}}\n'
    if language == "rust":
        return f"{solution}\nfn main() {{\n    {usage}\n}}\n"
    if language == "php":
        return f"<?php\n\n{solution}\n{usage}\n?>\n"
    if language == "bash":
        return f"#!/bin/bash\n\n{solution}\n{usage}\n"
    if language == "javascript":
        return f"{solution}\n{usage}\nmodule.exports = {{ {original.entry_point} }};\n"
    return f"{solution}\n{usage}\n"


def own_tests(original: Original) -> str:
    """Tests of the model's own, in a block of their own."""
    call = call_of(original)
    name = original.entry_point
    return {
        "python": ("import unittest\n\n\nclass TestSolution(unittest.TestCase):\n"
                   f"    def test_example(self):\n        self.assertIsNotNone({call})\n\n\n"
                   'if __name__ == "__main__":\n    unittest.main()\n'),
        "cpp": f"int main() {{\n    auto got = {call};\n    (void)got;\n    return 0;\n}}\n",
        "java": (f"public class Main {{\n    public static void main(String[] args) {{\n"
                 f"        System.out.println(Problem.{call});\n    }}\n}}\n"),
        "javascript": f"const assert = require('assert');\nassert.ok({call} !== undefined);\n",
        "typescript": f"const result = {call};\nconsole.assert(result !== undefined);\n",
        "go": (f"func Test{name.title().replace('_', '')}Example(t *testing.T) {{\n"
               f"    _ = {call}\n}}\n"),
        "rust": (f"#[cfg(test)]\nmod tests {{\n    use super::*;\n\n    #[test]\n"
                 f"    fn example() {{\n        let _ = {call};\n    }}\n}}\n"),
        "php": f"<?php\nvar_dump({call});\n",
        "ruby": f"require 'minitest/autorun'\n\nclass TestIt < Minitest::Test\n  def test_it\n    refute_nil {call}\n  end\nend\n",
        "lua": f"assert({call} ~= nil)\n",
        "bash": f'result="$({call})"\necho "$result"\n',
    }[original.language]


def _indent(text: str) -> str:
    return "\n".join("    " + line if line.strip() else line for line in text.splitlines())


def draft(solution: str) -> str:
    """A broken draft: the first half of the solution's lines."""
    lines = solution.splitlines()
    return "\n".join(lines[: max(2, len(lines) // 2)]) + "\n"


def answers(original: Original) -> list[tuple[str, str]]:
    """``(style, answer)`` for every style."""
    language = original.language
    tag = TAGS[language]
    name = NAMES[language]
    solution = whole_function(original)
    if language == "java":
        solution_block = ("import java.util.*;\nimport org.javatuples.*;\n\nclass Problem {\n"
                          + _indent(solution) + "\n}\n")
    else:
        solution_block = head_imports(original) + ("\n" if head_imports(original) else "") + solution
    other = "javascript" if language == "python" else "python"
    other_code = (f"function {original.entry_point}(...args) {{\n  return null;\n}}\n"
                  if other == "javascript" else
                  f"def {original.entry_point}(*args):\n    raise NotImplementedError\n")
    out = {
        "prose": (f"Here is a {name} implementation of `{original.entry_point}`:\n\n"
                  f"```{tag}\n{solution_block}```\n\nIt walks through the input once, so the "
                  "time complexity is linear."),
        "tilde_untagged": f"Sure! Here's the function.\n\n~~~\n{solution}~~~\n",
        "think_draft": (f"<think>\nLet me first sketch it.\n```{tag}\n{draft(solution)}```\n"
                        "Hmm, that is incomplete; let me write it out fully.\n</think>\n\n"
                        f"```{tag}\n{solution_block}```"),
        "usage_after": (f"```{tag}\n{solution_block}```\n\nExample usage:\n\n```{tag}\n"
                        f"{usage_line(original)}\n```\n"),
        "own_tests": (f"Solution:\n```{tag}\n{solution_block}```\n\nAnd some tests I wrote:\n"
                      f"```{tag}\n{own_tests(original)}```\n"),
        "other_language_first": (f"For reference, in {other}:\n```{other}\n{other_code}```\n\n"
                                 f"And in {name}, as asked:\n```{tag}\n{solution_block}```\n"),
        "raw_chat_token": f"{solution_block}<|im_end|>\n<|im_start|>user\nthanks",
        "with_main": (f"The complete program:\n\n```{tag}\n{with_main(original, solution)}```\n"
                      "Compile and run it to see the result."),
        "two_versions": (f"A first attempt:\n```{tag}\n{draft(solution)}```\nThat misses the "
                         f"end. The corrected version:\n```{tag}\n{solution_block}```\n"),
        "deepseek_close_only": (f"Okay, so I need to write {original.entry_point}. Let me "
                                f"think.\n```{tag}\n{draft(solution)}```\n</think>\n\n"
                                f"**Solution**\n\n```{tag}\n{solution_block}```"),
        "body_only": (f"Only the body of the function:\n\n```{tag}\n{original.completion}"
                      f"{'' if original.completion.endswith(chr(10)) else chr(10)}```\n"),
    }
    return [(style, out[style]) for style in STYLES]


# ------------------------------------------------------------------ parity


def parity(language: str, originals: list[Original], num_workers: int = 2) -> dict:
    """Every answer of every original: its extraction, its program, and whether the
    program's verdict equals the original's. Programs are run once per distinct text."""
    from cgm_metrics.execution.extract import assembled_parts, extract_code
    from cgm_metrics.execution.languages import run_sources
    from cgm_metrics.execution.tasks import program_for

    rows = []
    texts: dict[str, int] = {}
    for original in originals:
        for style, answer in answers(original):
            extraction = extract_code(answer, original.problem)
            problem, completion = assembled_parts(original.problem, extraction)
            if extraction.code is None:
                problem, completion = original.problem, ""
            program = program_for(problem, completion)
            text = program if isinstance(program, str) else program_text(problem, completion)
            texts.setdefault(text, len(texts))
            rows.append({"original": original, "style": style, "extraction": extraction,
                         "program": text})
    outcomes = run_sources(list(texts), language, num_workers=num_workers,
                           allow_code_execution=True)
    for row in rows:
        verdict = outcomes[texts[row["program"]]].verdict
        row["verdict"] = verdict
        row["same"] = verdict == row["original"].verdict
    return {"rows": rows, "programs": len(texts)}


def program_text(problem: Problem, completion: str) -> str:
    """The program text of a task in another language (MultiPL-E's layout)."""
    return problem.prompt + completion + "\n" + problem.test
