"""Parse once with tree-sitter and walk the tree without recursion.

Inside :func:`shared_work` (an evaluation opens one per block of items), a text is parsed once
per language for every metric that asks (:func:`parse`, :func:`parse_tree`), and what a metric
derives from a text (RUBY's graphs and trees, a reference's counts) can be kept for the other
systems with :func:`shared`; everything is dropped when the block ends. Outside one, every call
parses again. The values are per thread (a context variable): threads never share them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from typing import Any, TypeVar

from tree_sitter import Node, Parser, Tree

from ..languages import resolve_language
from ..languages.parts import LanguageSpec


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


T = TypeVar("T")


class SharedWork:
    """Values computed once per key while a :func:`shared_work` block lasts."""

    def __init__(self) -> None:
        self._values: dict[tuple[Any, ...], Any] = {}

    def get(self, key: tuple[Any, ...], build: Callable[[], T]) -> T:
        try:
            return self._values[key]
        except KeyError:
            value = self._values[key] = build()
            return value

    def __len__(self) -> int:
        return len(self._values)

    def clear(self) -> None:
        self._values.clear()


_SHARED: ContextVar[SharedWork | None] = ContextVar("cgm_shared_work", default=None)


@contextmanager
def shared_work() -> Iterator[SharedWork]:
    """A block in which parses and derived values are computed once per text; nested blocks
    join the outermost one, which frees everything when it ends."""
    outer = _SHARED.get()
    if outer is not None:
        yield outer
        return
    work = SharedWork()
    token = _SHARED.set(work)
    try:
        yield work
    finally:
        _SHARED.reset(token)
        work.clear()


def sharing() -> bool:
    """True inside a :func:`shared_work` block."""
    return _SHARED.get() is not None


def shared(key: tuple[Any, ...], build: Callable[[], T]) -> T:
    """``build()``, computed once per ``key`` inside a :func:`shared_work` block (the key
    names the kind of value first, e.g. ``("ruby-graph", "python", text)``)."""
    work = _SHARED.get()
    return build() if work is None else work.get(key, build)


def parse_tree(source: bytes, spec: LanguageSpec) -> Tree:
    """The tree-sitter tree of ``source`` (UTF-8) in the language of ``spec``, parsed once
    per :func:`shared_work` block (never modify it: every metric of the block reads it)."""
    parser = _parser(spec.name)
    work = _SHARED.get()
    if work is None:
        return parser.parse(source)
    return work.get(("tree", spec.name, source), lambda: parser.parse(source))


def parse(code: str, lang: str | LanguageSpec) -> ParsedCode:
    """Parse ``code`` in language ``lang`` (name, alias or registry row)."""
    spec = lang if isinstance(lang, LanguageSpec) else resolve_language(lang)
    if not isinstance(code, str):
        raise TypeError(f"code must be a string, got {type(code).__name__}")
    source = code.encode("utf-8", errors="surrogatepass")
    return ParsedCode(code, source, parse_tree(source, spec), spec)


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
