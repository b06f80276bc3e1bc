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
from .tables import DataflowRules
from .tree import ATOMIC_TYPES, FlatTree, code_tokens

COMES = "comesFrom"
COMPUTED = "computedFrom"
MAX_DEPTH = 800

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


class _Walker:
    def __init__(self, tree: FlatTree, rules: DataflowRules, union) -> None:
        self.union = union
        self.tree = tree
        self.rules = rules
        self.types = tree.types
        self.children = tree.children
        _, self.index_to_code = code_tokens(tree)
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
        self.memo: dict = {}

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

    def variables(self, node: int | None) -> list[tuple[int, str]]:
        """(position, text) of the leaves under ``node`` whose text differs from their type."""
        if node is None:
            raise _Invalid("variables of a missing node")
        types, children = self.types, self.children
        found = []
        stack = [node]
        while stack:
            current = stack.pop()
            kind = types[current]
            if (not children[current] or kind in ATOMIC_TYPES) and kind != "comment":
                position, code = self._code(current)
                if kind != code:
                    found.append((position, code))
            else:
                stack.extend(reversed(children[current]))
        return found

    # -- the walk --------------------------------------------------------------------------
    def walk(self, node: int | None, states: State) -> tuple[list[Entry], State]:
        if node is None:
            raise _Invalid("walk of a missing node")
        kind_name = self.types[node]
        children = self.children[node]
        if (not children or kind_name in ATOMIC_TYPES) and kind_name != "comment":
            position, code = self._code(node)
            if kind_name == code:
                return [], states
            if code in states:
                return [(code, position, COMES, (code,), states[code])], states
            if kind_name == "identifier":
                states = {**states, code: (position,)}
            return [(code, position, COMES, (), ())], states
        kind = self.kinds.get(kind_name)
        if kind is None:
            return self._default(node, states)
        if kind in ("for_in", "c_for", "foreach", "loop"):
            key = (node, tuple(sorted(states.items())))
            cached = self.memo.get(key)
            if cached is None:
                cached = self.memo[key] = getattr(self, "_" + kind)(node, states)
            return cached
        return getattr(self, "_" + kind)(node, states)

    def _default(self, node: int, states: State) -> tuple[list[Entry], State]:
        entries: list[Entry] = []
        first = self.rules.first
        children = self.children[node]
        if first:
            for child in children:
                if self.types[child] in first:
                    found, states = self.walk(child, states)
                    entries += found
        for child in children:
            if self.types[child] not in first:
                found, states = self.walk(child, states)
                entries += found
        entries.sort(key=_position)
        return entries, states

    def _definition(self, node: int, states: State) -> tuple[list[Entry], State]:
        style = self.rules.definition_style
        children = self.children[node]
        if style == "fields":
            name = self._field(node, self.rules.definition_name)
            value = self._field(node, self.rules.definition_value)
        elif style == "two_children":
            name = self._kids(node)[0]
            value = children[1] if len(children) == 2 else None
        else:  # rust_function
            if len(children) < 2:
                raise _Invalid("function without a name")
            name = children[1]
            value = children[2] if len(children) >= 3 else None
        entries: list[Entry] = []
        states = dict(states)
        if value is None:
            for position, code in self.variables(name):
                entries.append((code, position, COMES, (), ()))
                states[code] = (position,)
        else:
            names = self.variables(name)
            values = self.variables(value)
            found, states = self.walk(value, states)
            states = dict(states)
            entries += found
            for position, code in names:
                for value_position, value_code in values:
                    entries.append((code, position, COMES, (value_code,), (value_position,)))
                states[code] = (position,)
        entries.sort(key=_position)
        return entries, states

    def _pairs(self, node: int) -> tuple[list[int | None], list[int | None]] | None:
        """Left and right sides of a tuple-style assignment (None: nothing to do)."""
        types = self.types
        if types[node] == "for_in_clause":
            return [self._field(node, "left")], [self._kids(node)[-1]]
        left_field = self._field(node, "left")
        right_field = self._field(node, "right")
        if right_field is None and self.rules.for_in_style == "python":
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

    def _bind(
        self, lefts: list, rights: list, entries: list[Entry], states: State
    ) -> tuple[list[Entry], State]:
        """Walk the right sides, then each left variable is computed from its right side."""
        for right in rights:
            found, states = self.walk(right, states)
            entries += found
        states = dict(states)
        for left, right in zip(lefts, rights, strict=False):
            sources = self.variables(right)
            names = tuple(code for _, code in sources)
            positions = tuple(position for position, _ in sources)
            for position, code in self.variables(left):
                entries.append((code, position, COMPUTED, names, positions))
                states[code] = (position,)
        return entries, states

    def _assignment(self, node: int, states: State) -> tuple[list[Entry], State]:
        if self.rules.assignment_style == "tuple":
            sides = self._pairs(node)
            if sides is None:
                return [], states
            entries, states = self._bind(sides[0], sides[1], [], states)
            entries.sort(key=_position)
            return entries, states
        left = self._field(node, "left")
        right = self._field(node, "right")
        entries, states = self.walk(right, states)
        entries = list(entries)
        names = self.variables(left)
        values = self.variables(right)
        states = dict(states)
        for position, code in names:
            for value_position, value_code in values:
                entries.append((code, position, COMPUTED, (value_code,), (value_position,)))
            states[code] = (position,)
        entries.sort(key=_position)
        return entries, states

    def _increment(self, node: int, states: State) -> tuple[list[Entry], State]:
        entries: list[Entry] = []
        states = dict(states)
        found = self.variables(node)
        for position, code in found:
            for other_position, other_code in found:
                entries.append((code, position, COMPUTED, (other_code,), (other_position,)))
            states[code] = (position,)
        entries.sort(key=_position)
        return entries, states

    def _branch(self, node: int, states: State) -> tuple[list[Entry], State]:
        rules = self.rules
        entries: list[Entry] = []
        current = states
        others: list[State] = []
        flag = False
        has_else = "else" in self.types[node]
        for child in self.children[node]:
            child_type = self.types[child]
            if "else" in child_type:
                has_else = True
            if rules.branch_style == "python":
                same_path = child_type not in ("elif_clause", "else_clause")
            elif rules.branch_style == "plain":
                same_path = child_type not in rules.branch
            else:
                same_path = child_type not in rules.branch and not flag
            if same_path:
                found, current = self.walk(child, current)
            else:
                flag = True
                found, branch_states = self.walk(child, states)
                others.append(branch_states)
            entries += found
        others.append(current)
        if rules.branch_keeps_input == "always" or not has_else:
            others.append(states)
        merged: dict[str, list[int]] = {}
        for state in others:
            for name, positions in state.items():
                merged.setdefault(name, []).extend(positions)
        entries.sort(key=_position)
        return entries, {name: tuple(sorted(set(p))) for name, p in merged.items()}

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
        result = [(k[0], k[1], k[2], v[0], v[1]) for k, v in merged.items()]
        result.sort(key=_position)
        return result

    def _for_in(self, node: int, states: State) -> tuple[list[Entry], State]:
        entries: list[Entry] = []
        for _ in range(2):
            if self.rules.for_in_style == "ruby":
                lefts = [self._field(node, "pattern")]
                rights = [self._field(node, "value")]
            else:
                types = self.types
                left_field = self._field(node, "right")  # evaluated first, as in the package
                rights = [x for x in self._kids(left_field) if types[x] != ","]
                left_field = self._field(node, "left")
                lefts = [x for x in self._kids(left_field) if types[x] != ","]
                if len(rights) != len(lefts):
                    lefts = [self._field(node, "left")]
                    rights = [self._field(node, "right")]
                if not lefts:
                    lefts = [self._field(node, "left")]
                if not rights:
                    rights = [self._field(node, "right")]
            entries, states = self._bind(lefts, rights, entries, states)
            if self.rules.for_in_style == "ruby":
                found, states = self.walk(self._field(node, "body"), states)
                entries += found
            else:
                last = self.children[node][-1]
                if self.types[last] == "block":
                    found, states = self.walk(last, states)
                    entries += found
        return self._merge_loop(entries), states

    def _c_for(self, node: int, states: State) -> tuple[list[Entry], State]:
        rules = self.rules
        entries: list[Entry] = []
        children = self.children[node]
        for child in children:
            found, states = self.walk(child, states)
            entries += found
        again = False
        for child in children:
            if again:
                found, states = self.walk(child, states)
                entries += found
            elif rules.c_for_update_of and self.types[child] == rules.c_for_update_of:
                update = self._field(child, "update")
                if update is not None:
                    found, states = self.walk(update, states)
                    entries += found
                again = True
            elif self.types[child] == rules.c_for_restart:
                again = True
        return self._merge_loop(entries), states

    def _foreach(self, node: int, states: State) -> tuple[list[Entry], State]:
        if self.rules.foreach_php:
            name = value = None
            for child in self.children[node]:
                if self.types[child] == "variable_name" and value is None:
                    value = child
                elif self.types[child] == "variable_name" and name is None:
                    name = child
                    break
        else:
            name = self._field(node, self.rules.foreach_name)
            value = self._field(node, self.rules.foreach_value)
        body = self._field(node, "body")
        entries: list[Entry] = []
        for _ in range(2):
            found, states = self.walk(value, states)
            entries += found
            names = self.variables(name)
            values = self.variables(value)
            states = dict(states)
            for position, code in names:
                for value_position, value_code in values:
                    entries.append((code, position, COMPUTED, (value_code,), (value_position,)))
                states[code] = (position,)
            found, states = self.walk(body, states)
            entries += found
        return self._merge_loop(entries), states

    def _loop(self, node: int, states: State) -> tuple[list[Entry], State]:
        entries: list[Entry] = []
        for _ in range(2):
            for child in self.children[node]:
                found, states = self.walk(child, states)
                entries += found
        return self._merge_loop(entries), states


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
        entries, _ = walker.walk(0, {})
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


def normalize(entries: list[Entry]) -> list[tuple[str, str, tuple[int, ...]]]:
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
