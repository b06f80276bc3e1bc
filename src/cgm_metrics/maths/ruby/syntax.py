"""The AST that RUBY's tree level compares: tree-sitter's named nodes, labelled.

Comments are dropped; string literals are leaves (the language's string types). A leaf is
labelled with its type and text (``identifier:x``, ``string:`a b```, ``integral_type:int``);
an inner node with its type and the anonymous tokens it holds other than punctuation, so
operators and keywords that tree-sitter keeps as anonymous children still count
(``binary_operator +``, ``if_statement if else``). A string literal is labelled by its value
as written, with the quote characters ``'`` and ``"`` read as one (``'a'`` and ``"a"`` are the
same literal; the published string level's tokenizer makes the same identification). Built
iteratively: depth costs no stack.
"""

from __future__ import annotations

from functools import lru_cache

from tree_sitter import Node

from ...core.parsing import ParsedCode
from .ted import Tree

_PUNCTUATION = frozenset("()[]{},;:.")
_QUOTES = str.maketrans({"'": "`", '"': "`"})


@lru_cache(maxsize=4096)
def _kept(token: str) -> str:
    """An anonymous token (its node type is its text) stripped, or "" when it is blank or pure
    punctuation."""
    if token.strip() and not all(ch in _PUNCTUATION for ch in token):
        return token.strip()
    return ""


def node_parts(parsed: ParsedCode, node: Node) -> tuple[str, list[tuple[Node, str | None]]]:
    """The label of ``node`` and its named children other than comments, with their fields.

    A literal (the language's string types) has no children here: it is one leaf.
    """
    kind = node.type
    named: list[tuple[Node, str | None]] = []
    anonymous: list[str] = []
    language = parsed.language
    literals = language.string_types
    if kind not in literals and node.child_count:
        comments = language.comment_types
        field_name = node.field_name_for_child
        for k, child in enumerate(node.children):
            if child.is_named:
                if child.type not in comments:
                    named.append((child, field_name(k)))
            else:
                token = _kept(child.type)
                if token:
                    anonymous.append(token)
    if named:
        return " ".join([kind, *anonymous]), named
    text = parsed.node_text(node)
    if kind in literals:
        text = text.translate(_QUOTES)
    return f"{kind}:{text}", named  # a leaf, a literal, or anonymous tokens only


def syntax_tree(parsed: ParsedCode) -> Tree:
    """The labelled tree of ``parsed`` (pre-order, root first)."""
    labels: list[str] = []
    children: list[list[int]] = []
    stack: list[tuple[Node, int]] = [(parsed.root, -1)]
    while stack:
        node, parent = stack.pop()
        index = len(labels)
        children.append([])
        if parent >= 0:
            children[parent].append(index)
        label, named = node_parts(parsed, node)
        labels.append(label)
        stack.extend((child, index) for child, _ in reversed(named))
    return Tree(tuple(labels), tuple(tuple(c) for c in children))
