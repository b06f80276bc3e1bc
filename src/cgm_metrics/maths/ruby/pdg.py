"""Program dependence graphs from tree-sitter, one generic builder for every language.

RUBY's graph level compares :func:`program_graph`, an expression-level PDG: its nodes are the
operations and operands of the program (the syntax-tree nodes, minus syntax-only wrappers),
its edges control dependences, operand-to-operation data dependences and def-use data
dependences between variable occurrences. It rests on :func:`statement_graph`, the classical
statement-level PDG, whose nodes are statements (or predicate clauses such as ``elif``,
``except`` or ``case``), labelled with their node type and own tokens
(``if_statement: if x > 0 :``), with labelled edges:

* ``control``: from a statement to each statement nested directly in it (structural control
  dependence: exact for structured code; early exits such as ``break`` or ``return`` are not
  modelled);
* ``data``: def-use, from a statement that defines a variable to a statement that reads it
  while that definition reaches it. Reaching definitions follow the structure: branches are
  alternatives; in a loop, the definitions made anywhere in its body also reach the top of
  the body and the loop header (loop-carried dependences; a linear-time over-approximation);
  function and class bodies see the enclosing definitions but do not leak theirs.

Language differences are data (each language module's ``pdg`` part, a :class:`PdgSpec`): which node types hold statements,
which fields hold bodies, which are loops, branches and scopes, which (parent, field)
positions define or read a variable, and which wrappers are no node of the fine graph.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tree_sitter import Node

from ...core.parsing import ParsedCode
from ...languages.parts import PdgSpec

MAX_DEPTH = 100  # statement nesting above this is not turned into a graph


def pdg_languages() -> dict[str, PdgSpec]:
    """The languages with RUBY graph rules (their modules' ``pdg`` part), by name."""
    from ...languages import iter_parts

    return iter_parts("pdg")


def _pdg_spec(name: str) -> PdgSpec | None:
    from ...languages import find

    language = find(name)
    return language.pdg if language is not None else None



_SUFFIXES = ("_statement", "_declaration", "_definition")


@dataclass(frozen=True)
class ProgramGraph:
    """Nodes (labels in source order) and labelled directed edges ``(source, target, label)``."""

    labels: tuple[str, ...]
    edges: tuple[tuple[int, int, str], ...]
    exact_labels: bool = True  # False: "kind: tokens" labels, relabelled by token distance

    @property
    def size(self) -> int:
        return len(self.labels) + len(self.edges)


@dataclass
class _Statement:
    node: Node
    parent: int  # index of the enclosing statement, -1 at top level
    region: int  # which part of the parent holds it (branch of an if, a catch clause)
    depth: int
    children: list[int]
    defs: list[str]
    reads: list[str]
    def_nodes: dict[str, list[Node]] = field(default_factory=dict)  # name: its occurrences
    read_nodes: dict[str, list[Node]] = field(default_factory=dict)


def _is_statement(spec: PdgSpec, node: Node, parent: Node | None, field: str | None) -> bool:
    if not node.is_named:
        return False
    if node.type in spec.clauses:
        return True
    if not (node.type.endswith(_SUFFIXES) or node.type in spec.extra_statements):
        return False
    if parent is None:
        return False
    return parent.type in spec.containers or (field is not None and field in spec.body_fields)


def _find_statements(parsed: ParsedCode, spec: PdgSpec) -> list[_Statement] | None:
    """Statements in source order with their enclosing statement; None if too deep."""
    statements: list[_Statement] = []
    # (node, parent node, field, enclosing statement, region below it, depth)
    stack: list[tuple[Node, Node | None, str | None, int, int, int]] = [
        (parsed.root, None, None, -1, -1, 0)
    ]
    while stack:
        node, parent, field, owner, region, depth = stack.pop()
        if node.type in parsed.language.comment_types:
            continue
        if _is_statement(spec, node, parent, field):
            if depth >= MAX_DEPTH:
                return None
            index = len(statements)
            statements.append(_Statement(node, owner, region, depth, [], [], []))
            if owner >= 0:
                statements[owner].children.append(index)
            owner, depth = index, depth + 1
            below_owner = True
        else:
            below_owner = False
        cursor = node.walk()
        entries = []
        if cursor.goto_first_child():
            while True:
                child = cursor.node
                if child.is_named:
                    child_region = child.start_byte if below_owner else region
                    entries.append((child, node, cursor.field_name, owner, child_region, depth))
                if not cursor.goto_next_sibling():
                    break
        stack.extend(reversed(entries))
    return statements


def _child_role(spec: PdgSpec, parent: Node, field: str | None, role: str,
                parent_type: str | None = None) -> str:
    if parent_type is None:
        parent_type = parent.type
    key = (parent_type, field if field is not None else "None")
    if key in spec.defines:
        if parent_type in spec.assignments_with_operator and field == "left":
            operator = parent.child_by_field_name("operator")
            if operator is not None and operator.type != "=":
                return "defuse"
        return "def"
    if key in spec.define_and_use:
        return "defuse"
    if key in spec.ignores:
        return "skip"
    if key in spec.uses:
        return "use"
    if role in ("def", "defuse", "skip") and parent_type in spec.patterns:
        return role
    return "use"


def _own_parts(
    parsed: ParsedCode, spec: PdgSpec, statement: _Statement, nested: set[int], texts: bool
) -> list[str]:
    """Leaf texts of a statement, nested statements excluded; sets the variables it defines
    and reads (``defs``, ``reads``) and the nodes where it does (``def_nodes``, ``read_nodes``).
    """
    atomic = parsed.language.string_types
    comments = parsed.language.comment_types
    tokens: list[str] = []
    defs: dict[str, list[Node]] = {}
    reads: dict[str, list[Node]] = {}
    # (node, role, whether its leaves are tokens: not inside a string kept whole)
    stack: list[tuple[Node, str, bool]] = [(statement.node, "use", texts)]
    while stack:
        node, role, emit = stack.pop()
        if node.type in comments:
            continue
        if emit and (node.child_count == 0 or node.type in atomic):
            text = parsed.node_text(node).strip()
            if text:
                tokens.append(text)
            emit = False
        if node.child_count == 0:
            if node.type in spec.variables:
                name = parsed.node_text(node)
                if role in ("def", "defuse"):
                    defs.setdefault(name, []).append(node)
                if role in ("use", "defuse"):
                    reads.setdefault(name, []).append(node)
            continue
        cursor = node.walk()
        entries = []
        if cursor.goto_first_child():
            kind = node.type
            while True:
                child = cursor.node
                if child.id not in nested:
                    role_below = _child_role(spec, node, cursor.field_name, role, kind)
                    entries.append((child, role_below, emit))
                if not cursor.goto_next_sibling():
                    break
        stack.extend(reversed(entries))
    statement.defs, statement.reads = list(defs), list(reads)
    statement.def_nodes, statement.read_nodes = defs, reads
    return tokens


def _union(a: dict[str, tuple[int, ...]], b: dict[str, tuple[int, ...]]):
    merged = dict(a)
    for name, sources in b.items():
        if name in merged:
            merged[name] = merged[name] + tuple(s for s in sources if s not in merged[name])
        else:
            merged[name] = sources
    return merged


class _DataFlow:
    """Reaching definitions over the statement tree (depth bounded by MAX_DEPTH)."""

    def __init__(self, spec: PdgSpec, statements: list, kinds: list[str] | None = None):
        self.spec = spec
        self.statements = statements
        # each statement's node type
        self.kinds = kinds if kinds is not None else [s.node.type for s in statements]
        self.edges: dict[tuple[int, int, str], None] = {}  # (definer, reader, variable)

    def run_block(self, indices: list[int], state):
        for index in indices:
            state = self.run(index, state)
        return state

    def read(self, index: int, state) -> None:
        for name in self.statements[index].reads:
            for source in state.get(name, ()):
                self.edges.setdefault((source, index, name))

    def define(self, index: int, state):
        defs = self.statements[index].defs
        if not defs:  # no state is changed once built: it can be shared
            return state
        after = dict(state)
        for name in defs:
            after[name] = (index,)
        return after

    def define_below(self, index: int) -> dict[str, tuple[int, ...]]:
        """Definitions of the statements nested in ``index`` (not inside nested scopes)."""
        found: dict[str, tuple[int, ...]] = {}
        stack = list(reversed(self.statements[index].children))
        while stack:
            child = stack.pop()
            statement = self.statements[child]
            for name in statement.defs:
                if child not in found.get(name, ()):
                    found[name] = found.get(name, ()) + (child,)
            if self.kinds[child] not in self.spec.scopes:
                stack.extend(reversed(statement.children))
        return found

    def run(self, index: int, state):
        statement = self.statements[index]
        self.read(index, state)
        after = self.define(index, state)
        kind = self.kinds[index]
        children = statement.children
        if kind in self.spec.loops:
            # Definitions made anywhere in the loop reach the top of the next iteration. One
            # pass over the body with them (an over-approximation when a definition is always
            # overwritten later in the same iteration) keeps nested loops linear, where
            # running each body twice would be exponential in the nesting depth.
            entry = _union(after, self.define_below(index))
            back = self.run_block(children, entry)
            self.read(index, back)  # the header runs again after the body
            return _union(entry, self.define(index, back))
        if not children:
            return after
        if kind in self.spec.scopes:
            self.run_block(children, after)
            return after
        if kind in self.spec.branches:
            regions: dict[int, list[int]] = {}
            for child in children:
                regions.setdefault(self.statements[child].region, []).append(child)
            result = after
            for members in regions.values():
                result = _union(result, self.run_block(members, after))
            return result
        return self.run_block(children, after)


def _statements_with_flow(
    parsed: ParsedCode, spec: PdgSpec, max_statements: int | None, texts: bool
) -> tuple[list[_Statement], _DataFlow, list[list[str]]] | None:
    """Statements, their reaching-definition flow and own tokens (if ``texts``); None past
    the limits."""
    statements = _find_statements(parsed, spec)
    if statements is None or (max_statements is not None and len(statements) > max_statements):
        return None
    nested = {s.node.id for s in statements}
    tokens = [_own_parts(parsed, spec, statement, nested, texts) for statement in statements]
    flow = _DataFlow(spec, statements)
    flow.run_block([i for i, s in enumerate(statements) if s.parent < 0], {})
    return statements, flow, tokens


def statement_graph(parsed: ParsedCode, max_statements: int | None = None) -> ProgramGraph | None:
    """The statement-level PDG of ``parsed``: one node per statement, labelled with its type
    and own tokens (``if_statement: if x > 0 :``), ``control`` edges to the statements nested
    directly in it and ``data`` edges from a definition to each statement it reaches that reads
    the variable. None when the language has no table, statements nest deeper than
    ``MAX_DEPTH`` or there are more than ``max_statements`` statements.
    """
    spec = _pdg_spec(parsed.language.name)
    if spec is None:
        return None
    built = _statements_with_flow(parsed, spec, max_statements, True)
    if built is None:
        return None
    statements, flow, tokens = built
    labels = [f"{s.node.type}: {' '.join(t)}" for s, t in zip(statements, tokens, strict=True)]
    edges: list[tuple[int, int, str]] = [
        (s.parent, index, "control") for index, s in enumerate(statements) if s.parent >= 0
    ]
    edges += [
        (source, target, "data")
        for source, target in dict.fromkeys((source, target) for source, target, _ in flow.edges)
    ]
    edges.sort(key=lambda edge: (edge[0], edge[1], edge[2]))
    return ProgramGraph(tuple(labels), tuple(edges), exact_labels=False)


def program_graph(
    parsed: ParsedCode, max_nodes: int | None = None, max_edges: int | None = None
) -> ProgramGraph | None:
    """The expression-level PDG of ``parsed`` that RUBY's graph level compares.

    Nodes are the operations and operands of the program: the nodes of the syntax tree
    (:func:`.syntax.syntax_tree`, same labels) except the root and syntax-only wrappers
    (blocks, expression statements, parentheses; ``PdgSpec.transparent``). Edges:

    * ``control``: from a statement or clause to each statement it governs (the body of a
      loop, a branch, a function or class; the top level hangs from no node);
    * ``data:<role>``: from an operand to the operation that consumes it, labelled with the
      operand's role in the grammar (its field, e.g. ``left``, ``function``, ``arguments``, or
      else its position among the operands); a variable being defined receives the value, so
      its edge points from the operation to the variable;
    * ``data``: def-use, from the variable occurrence that defines a value to each occurrence
      that reads it while that definition reaches it (the statement-level reaching
      definitions of :func:`statement_graph`, refined to occurrences).

    Siblings are not ordered otherwise: statements that do not depend on each other can be
    reordered without changing the graph, as in any PDG. None when the language has no
    table, statements nest deeper than ``MAX_DEPTH``, or there are more than ``max_nodes``
    nodes or ``max_edges`` edges (def-use edges can grow quadratically: many conditional
    definitions of a variable all reach each later use).

    The per-node walks run compiled (``csrc/pdg.c``, :mod:`.compiled`) where the C library is
    built, and as :func:`python_program_graph` otherwise: the same graph either way.
    """
    spec = _pdg_spec(parsed.language.name)
    if spec is None:
        return None
    from .compiled import graph_parts

    parts = graph_parts(parsed, MAX_DEPTH)
    if parts is NotImplemented:
        return python_program_graph(parsed, max_nodes, max_edges)
    if parts is None:
        return None
    statements, kinds, labels, edges = parts
    if max_nodes is not None and len(labels) > max_nodes:
        return None
    flow = _DataFlow(spec, statements, kinds)
    flow.run_block([i for i, s in enumerate(statements) if s.parent < 0], {})
    return _with_data_edges(flow, statements, labels, edges, max_edges, lambda node: node)


def _with_data_edges(flow: _DataFlow, statements: list[_Statement], labels: list[str],
                     edges: list[tuple[int, int, str]], max_edges: int | None,
                     graph_node: Callable[[Any], int]) -> ProgramGraph | None:
    """The graph: ``edges`` and the def-use edges of ``flow`` between graph nodes
    (``graph_node`` maps an occurrence to its node, -1 for none), or None past ``max_edges``."""
    for source, target, name in flow.edges:
        definitions = statements[source].def_nodes.get(name, [])
        origin = graph_node(definitions[-1]) if definitions else -1
        if origin < 0:
            continue
        for use in statements[target].read_nodes.get(name, []):
            reader = graph_node(use)
            if reader >= 0 and reader != origin:
                edges.append((origin, reader, "data"))
        if max_edges is not None and len(edges) > max_edges:
            return None
    edges = sorted(dict.fromkeys(edges))
    if max_edges is not None and len(edges) > max_edges:
        return None
    return ProgramGraph(tuple(labels), tuple(edges))


def python_program_graph(
    parsed: ParsedCode, max_nodes: int | None = None, max_edges: int | None = None
) -> ProgramGraph | None:
    """:func:`program_graph` by the pure-Python walks (the specification of the compiled
    builder, ``csrc/pdg.c``; used where the C library is not built)."""
    from .syntax import node_parts  # the tree level's labels (syntax imports ted only)

    spec = _pdg_spec(parsed.language.name)
    if spec is None:
        return None
    built = _statements_with_flow(parsed, spec, None, False)
    if built is None:
        return None
    statements, flow, _ = built
    statement_ids = {s.node.id for s in statements}
    defined = {node.id for s in statements for nodes in s.def_nodes.values() for node in nodes}
    labels: list[str] = []
    edges: list[tuple[int, int, str]] = []
    index_of: dict[int, int] = {}
    # (node, graph node it hangs from or -1, its role below that node or None for control)
    root = parsed.root
    root_id = root.id
    containers, transparent = spec.containers, spec.transparent
    stack: list[tuple[Node, int, str | None]] = [(root, -1, None)]
    while stack:
        node, parent, role = stack.pop()
        label, named = node_parts(parsed, node)
        node_id, kind = node.id, node.type
        governs = node_id in statement_ids or kind in containers or role is None
        if kind in transparent or node_id == root_id:
            # a wrapper: its children hang from its parent (a block's statements are governed
            # by the block's owner; a parenthesised operand keeps its role)
            passed = None if governs else role
            below = [(child, parent, passed) for child, _ in named]
        else:
            here = len(labels)
            if max_nodes is not None and here >= max_nodes:
                return None
            labels.append(label)
            index_of[node_id] = here
            if parent >= 0:
                if governs:
                    edges.append((parent, here, "control"))
                elif node_id in defined:
                    edges.append((parent, here, role))
                else:
                    edges.append((here, parent, role))
            below = []
            position = 0
            for child, field_name in named:
                if child.id in statement_ids:
                    below.append((child, here, None))
                else:
                    below.append((child, here, "data:" + (field_name or str(position))))
                    position += field_name is None
        stack.extend(reversed(below))

    def graph_node(node: Node | None) -> int:
        """The graph node of an occurrence: itself, or the literal that holds it (f-strings)."""
        while node is not None and node.id not in index_of:
            node = node.parent
        return -1 if node is None else index_of[node.id]

    return _with_data_edges(flow, statements, labels, edges, max_edges, graph_node)
