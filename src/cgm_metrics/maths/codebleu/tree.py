"""One walk over a parsed snippet: a flat tree that the syntax and dataflow parts share.

tree-sitter's Python ``Node`` objects are expensive to create, so each snippet is parsed
once and walked once with a cursor into plain lists (types, children, fields, byte ranges).
Everything after that is list indexing, without recursion.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

from ...core.parsing import parse
from ...languages.parts import LanguageSpec
from .tables import ATOMIC_TYPES


@dataclass
class FlatTree:
    """A parse tree in pre-order lists; node 0 is the root."""

    text: str
    types: list[str]
    children: list[list[int]]
    fields: list[str | None]
    starts: list[int]
    ends: list[int]
    named: list[bool]
    missing: list[bool]
    unexpected: dict[int, str]  # childless ERROR nodes: their S-expression (names a character)
    depth: int

    def child_by_field(self, node: int, name: str) -> int | None:
        for child in self.children[node]:
            if self.fields[child] == name:
                return child
        return None


def _kinds(spec: LanguageSpec) -> dict[int, tuple[str, bool]]:
    """Node kind id -> (name, is named), filled as kinds are met."""
    found = _KIND_CACHE.get(spec.name)
    if found is None:
        found = _KIND_CACHE[spec.name] = {}
    return found


_KIND_CACHE: dict[str, dict[int, tuple[str, bool]]] = {}


def flatten(code: str, spec: LanguageSpec) -> FlatTree:
    """Parse ``code`` and flatten its tree with one cursor walk."""
    parsed = parse(code, spec)
    cursor = parsed.root.walk()
    kinds = _kinds(spec)
    types: list[str] = []
    children: list[list[int]] = []
    fields: list[str | None] = []
    starts: list[int] = []
    ends: list[int] = []
    named: list[bool] = []
    missing: list[bool] = []
    unexpected: dict[int, str] = {}
    stack: list[int] = []
    depth = 0
    while True:
        node = cursor.node
        index = len(types)
        kind = kinds.get(node.kind_id)
        if kind is None:
            kind = kinds[node.kind_id] = (node.type, node.is_named)
        types.append(kind[0])
        named.append(kind[1])
        children.append([])
        fields.append(cursor.field_name)
        start, end = node.byte_range
        starts.append(start)
        ends.append(end)
        # only zero-width nodes can be MISSING (inserted by error recovery)
        missing.append(start == end and node.is_missing)
        if stack:
            children[stack[-1]].append(index)
        if cursor.goto_first_child():
            stack.append(index)
            if len(stack) > depth:
                depth = len(stack)
            continue
        if end > start and kind[0] == "ERROR":
            unexpected[index] = str(node)
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return FlatTree(
                    code, types, children, fields, starts, ends, named, missing, unexpected, depth
                )
            stack.pop()


def subtree_keys(tree: FlatTree, interned: dict) -> list[int]:
    """Structural ids of the root and of every node with children (the package's subtrees).

    Two ids are equal exactly when the package's S-expressions (``str(node)``) are equal:
    named and missing nodes with their field names, anonymous tokens left out. ``interned``
    maps structures to ids and must be shared by the snippets being compared.
    """
    types, children, fields = tree.types, tree.children, tree.fields
    named, missing, unexpected = tree.named, tree.missing, tree.unexpected
    count = len(types)
    # what a node contributes to its parent's S-expression
    parts: list[tuple] = [()] * count
    keys: list[int] = []
    empty: tuple = ()
    for node in range(count - 1, -1, -1):
        kids = children[node]
        visible = named[node] or missing[node]
        if kids:
            if len(kids) == 1:
                inner = parts[kids[0]]
            else:
                inner = tuple(part for child in kids for part in parts[child])
            structure: tuple = (types[node], missing[node], inner)
        elif not visible and node != 0:
            continue  # an anonymous token: not a subtree, not printed
        elif unexpected and node in unexpected:
            structure = (unexpected[node],)
        else:
            structure = (types[node], missing[node], empty)
        ident = interned.get(structure)
        if ident is None:
            ident = interned[structure] = len(interned)
        if visible:
            parts[node] = ((fields[node], ident),)
        elif kids:
            parts[node] = inner
        if kids or node == 0:
            keys.append(ident)
    return keys


def code_tokens(
    tree: FlatTree, atomic: frozenset[str] = ATOMIC_TYPES,
    comments: frozenset[str] = frozenset({"comment"}),
) -> tuple[list[int], dict[tuple[int, int], tuple[int, str]]]:
    """The package's token list: leaves (nodes of ``atomic`` types whole, ``comments``
    skipped; the package's own sets by default).

    Returns the token nodes and the package's ``index_to_code`` map from a node's byte range
    to (token position, token text). Text is sliced from each line with tree-sitter's *byte*
    columns applied to the Python string, as the package does (it differs from the real text
    after a non-ASCII character on the same line).
    """
    types, children, starts, ends = tree.types, tree.children, tree.starts, tree.ends
    tokens: list[int] = []
    stack = [0]
    while stack:
        node = stack.pop()
        kind = types[node]
        if (not children[node] or kind in atomic) and kind not in comments:
            tokens.append(node)
        else:
            stack.extend(reversed(children[node]))
    index_to_code: dict[tuple[int, int], tuple[int, str]] = {}
    texts = token_texts(tree.text, [starts[node] for node in tokens], [ends[node] for node in tokens])
    for position, (node, token) in enumerate(zip(tokens, texts, strict=True)):
        index_to_code[(starts[node], ends[node])] = (position, token)
    return tokens, index_to_code


def token_texts(text: str, starts: list[int], ends: list[int]) -> list[str]:
    """The package's text of each token from its byte range.

    Text is sliced from each line with tree-sitter's *byte* columns applied to the Python
    string, as the package does (it differs from the real text after a non-ASCII character on
    the same line); the lines of a token are joined without newlines.
    """
    if text.isascii():  # byte columns are character columns: slice directly
        found = [text[start:end] for start, end in zip(starts, ends, strict=True)]
        if "\n" in text:
            found = [token.replace("\n", "") if "\n" in token else token for token in found]
        return found
    source = text.encode("utf-8", errors="surrogatepass")
    line_starts = [0]
    found_at = source.find(b"\n")
    while found_at != -1:
        line_starts.append(found_at + 1)
        found_at = source.find(b"\n", found_at + 1)
    lines = text.split("\n")
    out = []
    for start, end in zip(starts, ends, strict=True):
        start_row = bisect_right(line_starts, start) - 1
        end_row = bisect_right(line_starts, end) - 1
        start_col = start - line_starts[start_row]
        end_col = end - line_starts[end_row]
        if start_row == end_row:
            token = lines[start_row][start_col:end_col]
        else:
            token = lines[start_row][start_col:]
            for row in range(start_row + 1, end_row):
                token += lines[row]
            token += lines[end_row][:end_col]
        out.append(token)
    return out
