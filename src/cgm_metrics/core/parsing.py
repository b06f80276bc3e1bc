"""Parse once with tree-sitter and walk the tree without recursion."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from tree_sitter import Node, Parser, Tree

from .languages import LanguageSpec, resolve_language


@cache
def _parser(name: str) -> Parser:
    return Parser(resolve_language(name).grammar)


def parser_for(spec: LanguageSpec) -> Parser:
    """The (shared) tree-sitter parser of a language's grammar."""
    return _parser(spec.name)


@dataclass(frozen=True)
class ParsedCode:
    """A snippet with its tree. Node positions are byte offsets into ``source``."""

    text: str
    source: bytes
    tree: Tree
    language: LanguageSpec

    @property
    def root(self) -> Node:
        return self.tree.root_node

    @property
    def has_error(self) -> bool:
        """True when tree-sitter had to recover from a syntax error (ERROR or MISSING nodes)."""
        return self.tree.root_node.has_error

    def node_text(self, node: Node) -> str:
        """The node's source text, sliced by bytes as tree-sitter reports positions."""
        return self.source[node.start_byte : node.end_byte].decode("utf-8", errors="replace")


def parse(code: str, lang: str | LanguageSpec) -> ParsedCode:
    """Parse ``code`` in language ``lang`` (name, alias or registry row)."""
    spec = lang if isinstance(lang, LanguageSpec) else resolve_language(lang)
    if not isinstance(code, str):
        raise TypeError(f"code must be a string, got {type(code).__name__}")
    source = code.encode("utf-8", errors="surrogatepass")
    tree = _parser(spec.name).parse(source)
    return ParsedCode(code, source, tree, spec)


def walk(root: Node) -> Iterator[Node]:
    """Every node under ``root`` in pre-order (source order), iteratively.

    Uses a tree cursor, so depth costs no Python stack: deeply nested code cannot raise
    RecursionError.
    """
    cursor = root.walk()
    while True:
        yield cursor.node  # type: ignore[misc]  # a cursor always stands on a node
        if cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():  # a cursor made by root.walk() stops at root
                return


def leaves(root: Node, atomic_types: frozenset[str] = frozenset()) -> Iterator[Node]:
    """The leaves under ``root`` in source order; nodes of ``atomic_types`` count as leaves.

    Zero-width leaves (MISSING nodes inserted by error recovery) are skipped.
    """
    cursor = root.walk()
    while True:
        node: Node = cursor.node  # type: ignore[assignment]  # a cursor always stands on a node
        descend = node.type not in atomic_types and node.child_count > 0
        if not descend and node.end_byte > node.start_byte:
            yield node
        if descend and cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return
