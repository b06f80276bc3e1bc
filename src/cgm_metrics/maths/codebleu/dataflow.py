"""Dataflow graphs as the `codebleu` package extracts them, from one generic walker.

The walker follows the package's rules (GraphCodeBERT's DFG functions) node kind by node kind,
reading the language's :class:`~.tables.DataflowRules`. Three things differ, none of them in
the numbers:

- Determinism. Where the package merges parent lists with ``list(set(...))`` (an order that
  depends on PYTHONHASHSEED and feeds the variable renaming), this walker uses a fixed order:
  by default the one the package produces under PYTHONHASHSEED=0, computed without the
  process's hash (``setorder.py``), so every value is one the package itself gives; or, as an
  option, order of first appearance (source order).
- Cost. The package walks a loop body twice, and a nested loop twice per walk of its parent,
  so 16 nested loops cost 2^16 walks. A loop's result depends only on the node and the
  incoming variable state, so it is remembered per (node, state): nesting costs linear time.
- Depth. Trees deeper than :data:`MAX_DEPTH` give an empty graph, which is what the package's
  recursion produces for them (a RecursionError it swallows); below it the walker's own
  recursion is bounded by the depth.
"""

from __future__ import annotations

import sys
from collections import Counter

from .setorder import set_order
from .tables import MAX_DEPTH, DataflowRules
from .tree import FlatTree, code_tokens

COMES = "comesFrom"
COMPUTED = "computedFrom"

# an entry: (name, token position, relation, parent names, parent positions)
Entry = tuple[str, int, str, tuple[str, ...], tuple[int, ...]]
State = dict[str, tuple[int, ...]]


class _Invalid(Exception):
    """The package raises here (e.g. a missing field); its graph is then empty."""


def _position(entry: Entry) -> int:
    return entry[1]


def _source_union(first: tuple, second: tuple) -> tuple:
    """Merged parent names in order of first appearance (source order)."""
    return tuple(dict.fromkeys(first + second))


def _package_union(first: tuple, second: tuple) -> tuple:
    """Merged parent names in the order of the package's ``list(set(...))`` at hash seed 0."""
    return tuple(set_order(first + second))


UNIONS = {"package": _package_union, "source": _source_union}


_ABSENT = object()


class _Walker:
    """The package's DFG rules over one mutable variable state with an undo journal.

    The package sorts every partial result by token position; sorting is stable, so entries
    of one position keep their order whether or not partial results are sorted, and only
    that order matters (merges, final sort). Here only the final result is sorted.

    The package copies the whole state at every node (quadratic in the number of names); here
    the state is changed in place, every change is journaled, and a branch rolls its changes
    back to walk the next branch from the same state.
    """

    def __init__(self, tree: FlatTree, rules: DataflowRules, union) -> None:
        self.union = union
        self.tree = tree
        self.rules = rules
        self.types = tree.types
        self.children = tree.children
        self.atomic = frozenset(rules.atomic)
        self.comments = frozenset(rules.comments)
        self.opaque = frozenset(rules.opaque)
        self.separators = frozenset(rules.separators)
        self.identifier = rules.identifier
        _, self.index_to_code = code_tokens(tree, self.atomic, self.comments)
        kinds: dict[str, str] = {}
        for kind, names in (
            ("definition", rules.definition),
            ("assignment", rules.assignment),
            ("increment", rules.increment),
            ("branch", rules.branch),
            ("for_in", rules.for_in),
            ("c_for", rules.c_for),
            ("foreach", rules.foreach),
            ("loop", rules.loop),
        ):
            for name in names:
                kinds.setdefault(name, kind)
        self.kinds = kinds
        self.state: State = {}
        self.journal: list[tuple[str, object]] = []
        self.memo: dict = {}
        self.names_under: dict[int, tuple[str, ...]] = {}

    # -- state with an undo journal --------------------------------------------------------
    def _set(self, name: str, value: tuple[int, ...]) -> None:
        self.journal.append((name, self.state.get(name, _ABSENT)))
        self.state[name] = value

    def _changes(self, mark: int) -> dict[str, tuple[int, ...]]:
        state = self.state
        return {name: state[name] for name, _ in self.journal[mark:]}

    def _undo(self, mark: int) -> None:
        journal, state = self.journal, self.state
        while len(journal) > mark:
            name, old = journal.pop()
            if old is _ABSENT:
                del state[name]
            else:
                state[name] = old  # type: ignore[assignment]

    # -- helpers -------------------------------------------------------------------------
    def _field(self, node: int | None, name: str) -> int | None:
        if node is None:
            raise _Invalid(name)
        return self.tree.child_by_field(node, name)

    def _kids(self, node: int | None) -> list[int]:
        if node is None:
            raise _Invalid("children of a missing node")
        return self.children[node]

    def _code(self, node: int) -> tuple[int, str]:
        return self.index_to_code[(self.tree.starts[node], self.tree.ends[node])]

    def _leaves(self, node: int | None) -> list[int]:
        """The token leaves under ``node``, outside opaque subtrees."""
        if node is None:
            raise _Invalid("leaves of a missing node")
        types, children = self.types, self.children
        atomic, comments, opaque = self.atomic, self.comments, self.opaque
        found = []
        stack = [node]
        while stack:
            current = stack.pop()
            kind = types[current]
            if kind in opaque:
                continue
            if (not children[current] or kind in atomic) and kind not in comments:
                found.append(current)
            else:
                stack.extend(reversed(children[current]))
        return found

    def _split(self, node: int) -> tuple[int, int] | None:
        """The children just before and after ``node``'s first separator token, if any."""
        kids = self.children[node]
        for k, child in enumerate(kids):
            if self.types[child] in self.separators:
                return (kids[k - 1], kids[k + 1]) if 0 < k < len(kids) - 1 else None
        return None

    def _sides(self, node: int, first: str, second: str) -> tuple[int | None, int | None] | None:
        """The children of fields ``first`` and ``second``; where there is no ``first`` and
        the language has separators, the children around the first separator (None: the
        node has neither, and is walked as any other node)."""
        one = self._field(node, first)
        if one is None and self.separators:
            return self._split(node)
        return one, self._field(node, second)

    def variables(self, node: int | None) -> list[tuple[int, str]]:
        """(position, text) of the leaves under ``node`` whose text differs from their type."""
        found = []
        for leaf in self._leaves(node):
            position, code = self._code(leaf)
            if self.types[leaf] != code:
                found.append((position, code))
        return found

    def _names(self, node: int) -> tuple[str, ...]:
        """Every token text under ``node``: all a loop's result can depend on."""
        names = self.names_under.get(node)
        if names is None:
            names = tuple(sorted({self._code(leaf)[1] for leaf in self._leaves(node)}))
            self.names_under[node] = names
        return names

    # -- the walk --------------------------------------------------------------------------
    def walk(self, node: int | None) -> list[Entry]:
        if node is None:
            raise _Invalid("walk of a missing node")
        kind_name = self.types[node]
        if kind_name in self.opaque:
            return []
        if (not self.children[node] or kind_name in self.atomic) and kind_name not in self.comments:
            position, code = self._code(node)
            if kind_name == code:
                return []
            known = self.state.get(code)
            if known is not None:
                return [(code, position, COMES, (code,), known)]
            if kind_name == self.identifier:
                self._set(code, (position,))
            return [(code, position, COMES, (), ())]
        kind = self.kinds.get(kind_name)
        if kind is None:
            return self._default(node)
        if kind in ("for_in", "c_for", "foreach", "loop"):
            # a loop's result depends only on the node and the state of the names inside it
            state = self.state
            key = (node, tuple(state.get(name) for name in self._names(node)))
            cached = self.memo.get(key)
            if cached is not None:
                entries, changes = cached
                for name, value in changes.items():
                    self._set(name, value)
                return entries
            mark = len(self.journal)
            entries = getattr(self, "_" + kind)(node)
            self.memo[key] = (entries, self._changes(mark))
            return entries
        return getattr(self, "_" + kind)(node)

    def _default(self, node: int) -> list[Entry]:
        entries: list[Entry] = []
        first = self.rules.first
        children = self.children[node]
        types = self.types
        if first:
            for child in children:
                if types[child] in first:
                    entries += self.walk(child)
        kids_of = self.children
        comments, opaque, identifier = self.comments, self.opaque, self.identifier
        for child in children:
            kind_name = types[child]
            if kind_name in first:
                continue
            if not kids_of[child] and kind_name not in comments and kind_name not in opaque:
                # a plain leaf, inlined (most nodes): the same rule as in walk()
                position, code = self._code(child)
                if kind_name == code:
                    continue
                known = self.state.get(code)
                if known is not None:
                    entries.append((code, position, COMES, (code,), known))
                    continue
                if kind_name == identifier:
                    self._set(code, (position,))
                entries.append((code, position, COMES, (), ()))
                continue
            entries += self.walk(child)
        return entries

    def _definition(self, node: int) -> list[Entry]:
        style = self.rules.definition_style
        children = self.children[node]
        if style == "fields":
            sides = self._sides(node, self.rules.definition_name, self.rules.definition_value)
            if sides is None:
                return self._default(node)
            name, value = sides
        elif style == "two_children":
            name = self._kids(node)[0]
            value = children[1] if len(children) == 2 else None
        else:  # after_keyword
            if len(children) < 2:
                raise _Invalid("function without a name")
            name = children[1]
            value = children[2] if len(children) >= 3 else None
        entries: list[Entry] = []
        if value is None:
            for position, code in self.variables(name):
                entries.append((code, position, COMES, (), ()))
                self._set(code, (position,))
        else:
            names = self.variables(name)
            values = self.variables(value)
            entries += self.walk(value)
            for position, code in names:
                for value_position, value_code in values:
                    entries.append((code, position, COMES, (value_code,), (value_position,)))
                self._set(code, (position,))
        return entries

    def _pairs(self, node: int, left_field: int | None, right_field: int | None
               ) -> tuple[list[int | None], list[int | None]] | None:
        """Left and right sides of a tuple-style assignment (None: nothing to do)."""
        types = self.types
        if types[node] == "for_in_clause":
            return [left_field], [self._kids(node)[-1]]
        if right_field is None and self.rules.for_in_style == "fields":
            return None
        lefts = [x for x in self._kids(left_field) if types[x] != ","]
        rights = [x for x in self._kids(right_field) if types[x] != ","]
        if len(rights) != len(lefts):
            lefts, rights = [left_field], [right_field]
        if not lefts:
            lefts = [left_field]
        if not rights:
            rights = [right_field]
        if types[node] == "operator_assignment":
            lefts, rights = [self.children[node][0]], [self.children[node][-1]]
        return lefts, rights

    def _bind(self, lefts: list, rights: list, entries: list[Entry]) -> list[Entry]:
        """Walk the right sides, then each left variable is computed from its right side."""
        for right in rights:
            entries += self.walk(right)
        for left, right in zip(lefts, rights, strict=False):
            sources = self.variables(right)
            names = tuple(code for _, code in sources)
            positions = tuple(position for position, _ in sources)
            for position, code in self.variables(left):
                entries.append((code, position, COMPUTED, names, positions))
                self._set(code, (position,))
        return entries

    def _assignment(self, node: int) -> list[Entry]:
        sides = self._sides(node, self.rules.left, self.rules.right)
        if sides is None:
            return self._default(node)
        left, right = sides
        if self.rules.assignment_style == "tuple":
            pairs = self._pairs(node, left, right)
            if pairs is None:
                return []
            entries = self._bind(pairs[0], pairs[1], [])
            return entries
        entries = list(self.walk(right))
        names = self.variables(left)
        values = self.variables(right)
        for position, code in names:
            for value_position, value_code in values:
                entries.append((code, position, COMPUTED, (value_code,), (value_position,)))
            self._set(code, (position,))
        return entries

    def _increment(self, node: int) -> list[Entry]:
        entries: list[Entry] = []
        found = self.variables(node)
        for position, code in found:
            for other_position, other_code in found:
                entries.append((code, position, COMPUTED, (other_code,), (other_position,)))
            self._set(code, (position,))
        return entries

    def _branch(self, node: int) -> list[Entry]:
        rules = self.rules
        entries: list[Entry] = []
        base = len(self.journal)
        branches: list[dict[str, tuple[int, ...]]] = []
        flag = False
        has_else = "else" in self.types[node]
        for child in self.children[node]:
            child_type = self.types[child]
            if "else" in child_type:
                has_else = True
            if rules.branch_style == "elif_chain":
                same_path = child_type not in ("elif_clause", "else_clause")
            elif rules.branch_style == "plain":
                same_path = child_type not in rules.branch
            else:
                same_path = child_type not in rules.branch and not flag
            if same_path:
                entries += self.walk(child)
                continue
            flag = True
            # walk this branch from the state before the statement, then restore the path
            current = self._changes(base)
            self._undo(base)
            entries += self.walk(child)
            branches.append(self._changes(base))
            self._undo(base)
            for name, value in current.items():
                self._set(name, value)
        branches.append(self._changes(base))
        self._undo(base)
        keep_input = rules.branch_keeps_input == "always" or not has_else
        state = self.state
        touched: dict[str, None] = {}
        for changes in branches:
            touched.update(dict.fromkeys(changes))
        merged = {}
        for name in touched:
            before = state.get(name)
            positions: list[int] = []
            for changes in branches:
                value = changes.get(name, before)
                if value is not None:
                    positions.extend(value)
            if keep_input and before is not None:
                positions.extend(before)
            merged[name] = tuple(sorted(set(positions)))
        for name, value in merged.items():
            self._set(name, value)
        return entries

    def _merge_loop(self, entries: list[Entry]) -> list[Entry]:
        """The package's merge of a loop's two walks: one entry per (name, position, relation)."""
        merged: dict[tuple[str, int, str], list] = {}
        for name, position, relation, parents, parent_positions in entries:
            key = (name, position, relation)
            found = merged.get(key)
            if found is None:
                merged[key] = [parents, parent_positions]
            else:
                found[0] = self.union(found[0], parents)
                found[1] = tuple(sorted(set(found[1] + parent_positions)))
        return [(k[0], k[1], k[2], v[0], v[1]) for k, v in merged.items()]

    def _for_in(self, node: int) -> list[Entry]:
        entries: list[Entry] = []
        types = self.types
        for _ in range(2):
            if self.rules.for_in_style == "pattern_value":
                lefts = [self._field(node, "pattern")]
                rights = [self._field(node, "value")]
            else:
                left, right = self.rules.left, self.rules.right
                rights = [x for x in self._kids(self._field(node, right)) if types[x] != ","]
                lefts = [x for x in self._kids(self._field(node, left)) if types[x] != ","]
                if len(rights) != len(lefts):
                    lefts = [self._field(node, left)]
                    rights = [self._field(node, right)]
                if not lefts:
                    lefts = [self._field(node, left)]
                if not rights:
                    rights = [self._field(node, right)]
            entries = self._bind(lefts, rights, entries)
            if self.rules.for_in_style == "pattern_value":
                entries += self.walk(self._field(node, "body"))
            else:
                last = self.children[node][-1]
                if types[last] == "block":
                    entries += self.walk(last)
        return self._merge_loop(entries)

    def _c_for(self, node: int) -> list[Entry]:
        rules = self.rules
        entries: list[Entry] = []
        children = self.children[node]
        for child in children:
            entries += self.walk(child)
        again = False
        for child in children:
            if again:
                entries += self.walk(child)
            elif rules.c_for_update_of and self.types[child] == rules.c_for_update_of:
                update = self._field(child, "update")
                if update is not None:
                    entries += self.walk(update)
                again = True
            elif self.types[child] == rules.c_for_restart:
                again = True
        return self._merge_loop(entries)

    def _foreach(self, node: int) -> list[Entry]:
        if self.rules.foreach_variable_pair:
            name = value = None
            for child in self.children[node]:
                if self.types[child] == "variable_name" and value is None:
                    value = child
                elif self.types[child] == "variable_name" and name is None:
                    name = child
                    break
        else:
            sides = self._sides(node, self.rules.foreach_name, self.rules.foreach_value)
            if sides is None:
                return self._default(node)
            name, value = sides
        if self.rules.foreach_body:
            bodies = [self._field(node, self.rules.foreach_body)]
        else:  # the children after the value
            kids = self.children[node]
            bodies = kids[kids.index(value) + 1:] if value in kids else []
        entries: list[Entry] = []
        for _ in range(2):
            entries += self.walk(value)
            names = self.variables(name)
            values = self.variables(value)
            for position, code in names:
                for value_position, value_code in values:
                    entries.append((code, position, COMPUTED, (value_code,), (value_position,)))
                self._set(code, (position,))
            for body in bodies:
                entries += self.walk(body)
        return self._merge_loop(entries)

    def _loop(self, node: int) -> list[Entry]:
        entries: list[Entry] = []
        for _ in range(2):
            for child in self.children[node]:
                entries += self.walk(child)
        return self._merge_loop(entries)


def data_flow(tree: FlatTree, rules: DataflowRules, order: str = "package") -> list[Entry]:
    """The package's ``get_data_flow``: the graph's edges, merged per token position.

    ``order`` says how merged parent names are ordered where the package iterates a set:
    "package" (its order under PYTHONHASHSEED=0, so the result is one the package gives) or
    "source" (first appearance). Neither depends on this process's hash seed.
    """
    if tree.depth > MAX_DEPTH:
        return []
    union = UNIONS[order]
    walker = _Walker(tree, rules, union)
    limit = sys.getrecursionlimit()
    needed = tree.depth * 2 + 200
    try:
        if needed > limit:
            sys.setrecursionlimit(needed)
        entries = walker.walk(0)
    except (_Invalid, IndexError, KeyError):
        entries = []
    finally:
        if needed > limit:
            sys.setrecursionlimit(limit)
    entries = sorted(entries, key=_position)
    keep = set()
    for entry in entries:
        if entry[4]:
            keep.add(entry[1])
        keep.update(entry[4])
    merged: dict[int, Entry] = {}
    for entry in entries:
        if entry[1] not in keep:
            continue
        found = merged.get(entry[1])
        if found is None:
            merged[entry[1]] = entry
        else:
            merged[entry[1]] = (
                entry[0],
                entry[1],
                entry[2],
                union(found[3], entry[3]),
                tuple(dict.fromkeys(found[4] + entry[4])),
            )
    return list(merged.values())


def normalize(entries: list[Entry]) -> list[tuple[int, str, tuple[int, ...]]]:
    """Variables renamed by order of first appearance (parents before the child)."""
    names: dict[str, int] = {}
    result = []
    for name, _, relation, parents, _ in entries:
        for parent in parents:
            if parent not in names:
                names[parent] = len(names)
        if name not in names:
            names[name] = len(names)
        result.append((names[name], relation, tuple(names[p] for p in parents)))
    return result


def match_count(candidate: list, reference: list) -> int:
    """How many reference items find a candidate item (each candidate item used once)."""
    available = Counter(candidate)
    matched = 0
    for item in reference:
        if available[item] > 0:
            available[item] -= 1
            matched += 1
    return matched
