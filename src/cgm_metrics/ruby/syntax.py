"""The AST that RUBY's tree level compares: tree-sitter's named nodes, labelled.

Comments are dropped; string literals are leaves (the language's string types). A leaf is
labelled with its type and text (``identifier:x``, ``string:'a b'``, ``integral_type:int``);
an inner node with its type and the anonymous tokens it holds other than punctuation, so
operators and keywords that tree-sitter keeps as anonymous children still count
(``binary_operator +``, ``if_statement if else``). Built iteratively: depth costs no stack.
"""

from __future__ import annotations

from tree_sitter import Node

from ..core.parsing import ParsedCode
from .ted import Tree

_PUNCTUATION = frozenset("()[]{},;:.")


def _is_punctuation(text: str) -> bool:
    return bool(text) and all(ch in _PUNCTUATION for ch in text)


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
        named: list[Node] = []
        anonymous: list[str] = []
        if node.type in literals:
            labels.append(f"{node.type}:{parsed.node_text(node)}")
            children.append([])
            if parent >= 0:
                children[parent].append(index)
            continue
        for child in node.children:
            if child.is_named:
                if child.type not in comments:
                    named.append(child)
            else:
                text = parsed.node_text(child).strip()
                if text and not _is_punctuation(text):
                    anonymous.append(text)
        if named:
            labels.append(" ".join([node.type, *anonymous]))
        else:  # a leaf, or a node of anonymous tokens only (``integral_type:int``, ``()``)
            labels.append(f"{node.type}:{parsed.node_text(node)}")
        children.append([])
        if parent >= 0:
            children[parent].append(index)
        for child in reversed(named):
            stack.append((child, index))
    return Tree(tuple(labels), tuple(tuple(c) for c in children))
