"""The AST that RUBY's tree level compares: tree-sitter's named nodes, labelled.

Comments are dropped; string literals are leaves (the language's string types). A leaf is
labelled with its type and text (``identifier:x``, ``string:'a b'``, ``integral_type:int``);
an inner node with its type and the anonymous tokens it holds other than punctuation, so
operators and keywords that tree-sitter keeps as anonymous children still count
(``binary_operator +``, ``if_statement if else``). Built iteratively: depth costs no stack.
"""

from __future__ import annotations

from functools import lru_cache

from tree_sitter import Node

from ..core.parsing import ParsedCode
from .ted import Tree

_PUNCTUATION = frozenset("()[]{},;:.")


@lru_cache(maxsize=4096)
def _kept(token: str) -> bool:
    """An anonymous token (its node type is its text) that is not pure punctuation."""
    return bool(token.strip()) and not all(ch in _PUNCTUATION for ch in token)


def syntax_tree(parsed: ParsedCode) -> Tree:
    """The labelled tree of ``parsed`` (pre-order, root first)."""
    comments = parsed.language.comment_types
    literals = parsed.language.string_types
    labels: list[str] = []
    children: list[list[int]] = []
    stack: list[tuple[Node, int]] = [(parsed.root, -1)]
    while stack:
        node, parent = stack.pop()
        index = len(labels)
        children.append([])
        if parent >= 0:
            children[parent].append(index)
        kind = node.type
        named: list[Node] = []
        anonymous: list[str] = []
        if kind not in literals:
            for child in node.children:
                if child.is_named:
                    if child.type not in comments:
                        named.append(child)
                elif _kept(child.type):
                    anonymous.append(child.type.strip())
        if named:
            labels.append(" ".join([kind, *anonymous]))
            stack.extend((child, index) for child in reversed(named))
        else:  # a leaf, a literal, or anonymous tokens only (``integral_type:int``, ``()``)
            labels.append(f"{kind}:{parsed.node_text(node)}")
    return Tree(tuple(labels), tuple(tuple(c) for c in children))
