"""RUBY's program graph with its per-node walks compiled (``csrc/pdg.c``).

The C library (:mod:`cgm_metrics.base.native`) walks the tree-sitter tree into a flat tree
(CodeBLEU's compiled walk) and computes the statements, the variable occurrences with their
roles, and the graph's nodes, labels and structural edges; the reaching definitions over the
statements and the def-use edges are joined here, as :func:`.pdg.program_graph` joins them.
:func:`.pdg.program_graph` uses this when the library is built and the grammar's trees can
be walked in C, and its pure-Python walks otherwise; both give the same graph (the tests
compare them).
"""

from __future__ import annotations

import ctypes
import threading
from array import array
from functools import cache
from itertools import pairwise
from typing import Any

from ...core.parsing import ParsedCode
from ...languages.parts import PdgSpec

# csrc/pdg.c
_CLAUSE, _STATEMENT, _CONTAINER, _COMMENT, _LITERAL = 1, 2, 4, 8, 16
_VARIABLE, _PATTERN, _ASSIGN_OP, _TRANSPARENT = 32, 64, 128, 256
_POSITIONS = (("defines", 1), ("define_and_use", 2), ("ignores", 3), ("uses", 4))
_CONTROL = -(2**31)
_DEEP = 1  # cgm_pdg_build: statements nest deeper than the limit
_SUFFIXES = ("_statement", "_declaration", "_definition")
_P, _I64 = ctypes.c_void_p, ctypes.c_int64


class _Tables(ctypes.Structure):
    _fields_ = [
        ("n_names", ctypes.c_int32), ("n_fields", ctypes.c_int32),
        ("name_flags", _P), ("body_field", _P), ("position", _P),
        ("left_field", ctypes.c_int32), ("operator_field", ctypes.c_int32),
        ("equals_name", ctypes.c_int32),
        ("name_text", _P), ("name_start", _P), ("kept_text", _P), ("kept_start", _P),
        ("max_depth", ctypes.c_int32),
    ]  # fmt: skip


def _address(buffer: array) -> int:
    return buffer.buffer_info()[0]


def _texts(strings: list[str]) -> tuple[array, array]:
    encoded = [s.encode("utf-8", errors="surrogatepass") for s in strings]
    offsets = array("q", [0])
    for item in encoded:
        offsets.append(offsets[-1] + len(item))
    return array("B", b"".join(encoded) + b"\0"), offsets


class _Language:
    """One language's tables for the C builder (kept alive with the arrays they point to)."""

    def __init__(self, lib: Any, codebleu_tables: Any, parsing: Any, spec: PdgSpec,
                 max_depth: int) -> None:
        from .syntax import _kept

        self.lib = lib
        self.codebleu = codebleu_tables
        grammar = codebleu_tables.spec.grammar
        names: dict[str, int] = codebleu_tables.names
        self.names = list(names)
        n_fields = grammar.field_count + 1
        fields = {grammar.field_name_for_id(k): k for k in range(1, n_fields)}
        self.field_names = [None] + [grammar.field_name_for_id(k) for k in range(1, n_fields)]
        flags = array("i", [0]) * len(names)
        sets = ((spec.clauses, _CLAUSE), (spec.containers, _CONTAINER),
                (parsing.comment_types, _COMMENT), (parsing.string_types, _LITERAL),
                (spec.variables, _VARIABLE), (spec.patterns, _PATTERN),
                (spec.assignments_with_operator, _ASSIGN_OP), (spec.transparent, _TRANSPARENT))
        for label, index in names.items():
            value = 0
            if label.endswith(_SUFFIXES) or label in spec.extra_statements:
                value |= _STATEMENT
            for members, flag in sets:
                if label in members:
                    value |= flag
            flags[index] = value
        body = array("B", bytes(n_fields))
        for label in spec.body_fields:
            if label in fields:
                body[fields[label]] = 1
        position = array("b", bytes(len(names) * n_fields))
        for attribute, code in _POSITIONS:
            for parent, field in getattr(spec, attribute):
                column = 0 if field == "None" else fields.get(field)
                if parent in names and column is not None:
                    cell = names[parent] * n_fields + column
                    if position[cell] == 0:
                        position[cell] = code
        name_text, name_start = _texts(self.names)
        kept_text, kept_start = _texts([_kept(label) for label in self.names])
        self._keep = (flags, body, position, name_text, name_start, kept_text, kept_start)
        self.tables = _Tables(
            len(names), n_fields, _address(flags), _address(body), _address(position),
            fields.get("left", -1), fields.get("operator", -1), names.get("=", -1),
            _address(name_text), _address(name_start), _address(kept_text),
            _address(kept_start), max_depth)
        self.roles: dict[int, str] = {_CONTROL: "control"}
        for code in [*range(1, n_fields), *range(-64, 0)]:  # fields, the first 64 positions
            self.role(code)
        self.local = threading.local()  # a batch and a scratch per thread

    def role(self, code: int) -> str:
        found = self.roles.get(code)
        if found is None:
            found = self.roles[code] = "data:" + (
                str(self.field_names[code]) if code > 0 else str(-1 - code))
        return found

    def scratch(self) -> tuple[Any, int]:
        """This thread's batch (the flat tree) and builder memory, freed with the thread."""
        memory = getattr(self.local, "memory", None)
        if memory is None:
            memory = self.local.memory = _Memory(self.lib, self.codebleu)
        return memory.batch, memory.scratch


class _Memory:
    """A batch and the builder's scratch in C memory, freed when no thread holds them."""

    def __init__(self, lib: Any, codebleu_tables: Any) -> None:
        from ..codebleu.engine import Batch

        self.lib = lib
        self.scratch = 0
        self.batch = Batch(codebleu_tables, compiled_walk=True)
        self.scratch = lib.cgm_pdg_new()
        if not self.scratch:
            self.batch.close()
            raise MemoryError("RUBY's compiled graph builder: no memory")

    def __del__(self) -> None:
        batch = getattr(self, "batch", None)
        if batch is not None:
            batch.close()
        if getattr(self, "scratch", 0):
            self.lib.cgm_pdg_free(self.scratch)
            self.scratch = 0


_SIGNATURES = {
    "cgm_pdg_new": (_P, []),
    "cgm_pdg_free": (None, [_P]),
    "cgm_pdg_build": (_I64, [_P, _P, _I64, _P]),
    "cgm_pdg_results": (None, [_P, _P, _P]),
}


@cache
def _language(name: str, max_depth: int) -> _Language | None:
    """The language's C tables, or None when its graphs are built in Python (no library, no
    CodeBLEU tables for the language, or its trees cannot be walked in C)."""
    from ...languages import find

    language = find(name)
    if language is None or language.pdg is None or language.codebleu is None:
        return None
    try:
        from ..codebleu.engine import language_tables, library
    except ImportError:  # pragma: no cover - the package ships it
        return None
    lib = library()
    if lib is None:
        return None
    for function, (result, arguments) in _SIGNATURES.items():
        getattr(lib, function).restype = result
        getattr(lib, function).argtypes = arguments
    codebleu_tables = language_tables(name, language.codebleu.rules)
    if not codebleu_tables.compiled_walk:
        return None
    return _Language(lib, codebleu_tables, language.parsing, language.pdg, max_depth)


class Statement:
    """A statement for the reaching definitions (:class:`.pdg._DataFlow`)."""

    __slots__ = ("parent", "region", "children", "defs", "reads", "def_nodes", "read_nodes")

    def __init__(self, parent: int, region: int) -> None:
        self.parent = parent
        self.region = region
        self.children: list[int] = []
        self.def_nodes: dict[str, list[int]] = {}  # name: graph nodes of its occurrences
        self.read_nodes: dict[str, list[int]] = {}
        self.defs: list[str] = []
        self.reads: list[str] = []


def _ints(address: int, count: int) -> list[int]:
    values = array("i")
    if count:
        values.frombytes(ctypes.string_at(address, 4 * count))
    return values.tolist()


def graph_parts(parsed: ParsedCode, max_depth: int) -> Any:
    """``(statements, kinds, labels, edges)`` of ``parsed``'s program graph from the C
    builder: statements with their occurrences (as graph nodes), their node types, the graph's
    labels and structural edges; None when statements nest deeper than ``max_depth``;
    NotImplemented when the C builder does not serve this language or tree."""
    language = _language(parsed.language.name, max_depth)
    if language is None:
        return NotImplemented
    lib = language.lib
    batch, scratch = language.scratch()
    lib.cgm_batch_clear(batch.pointer)
    tree = parsed.tree
    source = parsed.source
    added = lib.cgm_batch_add_tree(batch.pointer, id(tree), tree.root_node.descendant_count,
                                   source, len(source))
    if added != 0:  # a tree the walk does not read (or with ERROR leaves): the Python walks
        return NotImplemented
    status = lib.cgm_pdg_build(scratch, batch.pointer, 0, ctypes.byref(language.tables))
    if status == _DEEP:
        return None
    if status != 0:
        raise MemoryError("RUBY's compiled graph builder failed") if status == -1 else \
            RuntimeError(f"RUBY's compiled graph builder refused a tree (status {status})")
    sizes = (ctypes.c_int64 * 5)()
    arrays = (ctypes.c_void_p * 6)()
    lib.cgm_pdg_results(scratch, sizes, arrays)
    addresses = [address or 0 for address in arrays]
    n_statements, n_occurrences, n_edges, n_nodes, n_bytes = sizes
    rows = _ints(addresses[0], 4 * n_statements)
    names = language.names
    statements = [Statement(parent, region)
                  for parent, region in zip(rows[1::4], rows[2::4], strict=True)]
    kinds = [names[k] for k in rows[3::4]]
    for index, statement in enumerate(statements):
        if statement.parent >= 0:
            statements[statement.parent].children.append(index)
    occurrences = _ints(addresses[1], 5 * n_occurrences)
    for k in range(0, len(occurrences), 5):
        statement = statements[occurrences[k]]
        node, mark = occurrences[k + 1], occurrences[k + 2]
        name = source[occurrences[k + 3]:occurrences[k + 4]].decode("utf-8", errors="replace")
        if mark & 1:
            statement.def_nodes.setdefault(name, []).append(node)
        if mark & 2:
            statement.read_nodes.setdefault(name, []).append(node)
    for statement in statements:
        statement.defs = list(statement.def_nodes)
        statement.reads = list(statement.read_nodes)
    data = ctypes.string_at(addresses[3], n_bytes) if n_bytes else b""
    chars = _ints(addresses[5], n_nodes + 1)
    text = data.decode("utf-8", errors="replace")
    if len(text) == chars[-1]:
        labels = [text[a:b] for a, b in pairwise(chars)]
    else:  # text that is not plain UTF-8 (lone surrogates): each label decoded apart
        ends = _ints(addresses[4], n_nodes + 1)
        labels = [data[a:b].decode("utf-8", errors="replace") for a, b in pairwise(ends)]
    flat = _ints(addresses[2], 3 * n_edges)
    roles = language.roles
    try:
        edges = [(source_node, target, roles[code]) for source_node, target, code in
                 zip(flat[0::3], flat[1::3], flat[2::3], strict=True)]
    except KeyError:  # an operand past the 64th position
        role = language.role
        edges = [(source_node, target, role(code)) for source_node, target, code in
                 zip(flat[0::3], flat[1::3], flat[2::3], strict=True)]
    return statements, kinds, labels, edges
