"""The compiled statistics engine: the C library of ``csrc/`` driven batch by batch.

Per batch of items (``BATCH_ITEMS``): the n-gram columns of every item in one call; comments
removed from every distinct text in one call; each distinct cleaned snippet parsed once by
tree-sitter and walked into the batch's flat arrays (by the compiled walk, or by a Python
cursor walk where that is not available); then tokens, syntax keys and dataflow graphs of the
whole batch, and the comparison of every (candidate, reference) pair, one call each. The rows
are those of the pure-Python reference (``reference.py``), which the tests keep equal.

Imports no numpy: rows are ``array('d')`` buffers.
"""

from __future__ import annotations

import ctypes
import sys
import time
from array import array
from functools import cache
from itertools import accumulate
from typing import Any

from ...base import native
from .options import CodeBleuOptions
from .score import N_COLUMNS, SYNTAX_MATCH
from .tables import MAX_DEPTH, CommentStyle, DataflowRules, scanned_style

BATCH_ITEMS = 256  # items per batch: bounds the memory of the flat arrays
ERROR_KIND = 65535
ABI = 2  # csrc/engine.h: CGM_ENGINE_ABI
# csrc/engine.h: the order of the rules array (checked against the library's RULE_NAMES)
RULE_NAMES = (
    "definition_style", "definition_name_field", "definition_value_field", "tuple_assignment",
    "branch_style", "branch_keeps_input", "for_pattern_value", "c_for_restart", "c_for_update_of",
    "foreach_name_field", "foreach_value_field", "foreach_body_field", "foreach_rest",
    "foreach_variable_pair", "has_first", "has_separators", "comma", "block", "for_in_clause",
    "operator_assignment", "elif_clause", "else_clause", "variable_name", "identifier", "left",
    "right", "body", "pattern", "value", "update",
)  # fmt: skip
# csrc/engine.h: flags of a name
NAME_ATOMIC, NAME_FIRST, NAME_BRANCH, NAME_HAS_ELSE = 1, 2, 4, 8
NAME_SEPARATOR, NAME_OPAQUE, NAME_COMMENT_TYPE = 16, 32, 64
# csrc/comments.c: cgm_strip_comments styles; tokenize before Python 3.12 reads an
# unterminated quote as an error token and goes on (from 3.12 on, tokenize is the C
# tokenizer: such texts stay with tokenize itself)
TOKENIZE_STYLE, SCANNED_STYLE = (1 if sys.version_info >= (3, 12) else 3), 2
UNSURE, KEEP = -1, -2  # comment removal: run Python's tokenize / keep the text as it is
UNSUPPORTED_TREE = -3
# Deeper loop nests, and trees deeper than the C walk recurses (a thread's stack can be
# small), go to the reference walker (trees deeper than MAX_DEPTH have no graph at all).
LOOP_NESTING_LIMIT = 10
C_WALK_DEPTH_LIMIT = 200

_P, _I64, _I32, _INT, _TEXT = (ctypes.c_void_p, ctypes.c_int64, ctypes.c_int32, ctypes.c_int,
                               ctypes.c_char_p)
_SIGNATURES: dict[str, tuple[Any, list[Any]]] = {
    "cgm_engine_abi": (_INT, []),
    "cgm_rule_names": (_TEXT, []),
    "cgm_language_new": (_P, [_I32, _P, _P, _I32, _P, _P, _I32, _P, _P, _P]),
    "cgm_batch_new": (_P, [_P, _I64, _P]),
    "cgm_batch_free": (None, [_P]),
    "cgm_batch_clear": (_INT, [_P]),
    "cgm_tree_language": (_P, [_P, _I64]),
    "cgm_batch_add_tree": (_I64, [_P, _P, _I64, _TEXT, _I64]),
    "cgm_batch_add_walked_tree": (_I64, [_P, _P, _I64, _P, _I64, _TEXT, _I64]),
    "cgm_batch_error_leaves": (_I64, [_P, _I64, _P, _I64]),
    "cgm_batch_set_label": (_INT, [_P, _I64, _I64, _I32]),
    "cgm_batch_tokens": (_INT, [_P]),
    "cgm_batch_syntax": (_INT, [_P]),
    "cgm_batch_dataflow": (_INT, [_P, _INT, _I64, _I64, _I64, _P]),
    "cgm_batch_set_graph": (_INT, [_P, _I64, _P, _P, _I64]),
    "cgm_batch_compare": (_INT, [_P, _P, _I64, _P, _I64, _I64]),
    "cgm_batch_tree_rows": (_I64, [_P, _I64, _P, _I64]),
    "cgm_ngram_rows": (_INT, [_TEXT, _P, _P, _I64, _TEXT, _P, _I64, _P, _I64]),
    "cgm_strip_comments": (_INT, [_INT, _P, _TEXT, _P, _I64, _P, _P]),
    "cgm_string_hashes": (None, [_P, _P, _I64, _P]),
    "cgm_set_order": (_I64, [_P, _I64, _P, _P]),
}


class EngineError(RuntimeError):
    """The compiled engine refused its input (a bug: the reference engine would not)."""


@cache
def library() -> Any:
    """The C library with its functions declared, or None (then the reference engine runs)."""
    lib = native.library()
    if lib is None:
        return None
    for name, (result, arguments) in _SIGNATURES.items():
        function = getattr(lib, name)
        function.restype = result
        function.argtypes = arguments
    if lib.cgm_engine_abi() != ABI or lib.cgm_rule_names().decode().split(",") != list(RULE_NAMES):
        return None
    return lib


def _address(buffer: array) -> int:
    return buffer.buffer_info()[0]


def _check(status: int, what: str) -> int:
    if status == -1:
        raise MemoryError(f"CodeBLEU's compiled engine ran out of memory ({what})")
    if status < 0:
        raise EngineError(f"CodeBLEU's compiled engine refused {what} (status {status})")
    return status


def _code_points(strings: list[str]) -> tuple[array, array]:
    """The code points of ``strings`` end to end (int32) and their offsets (int64)."""
    joined = "".join(strings)
    points = array("i", joined.encode("utf-32-le", errors="surrogatepass"))
    if points.itemsize != 4:  # pragma: no cover - every platform Python runs on has 4-byte int
        raise RuntimeError("array('i') must have 4-byte items")
    return points, array("q", accumulate((len(s) for s in strings), initial=0))


def _utf8(strings: list[str]) -> tuple[bytes, array]:
    encoded = [s.encode("utf-8", errors="surrogatepass") for s in strings]
    return b"".join(encoded), array("q", accumulate(map(len, encoded), initial=0))


# -- languages ----------------------------------------------------------------------------


class LanguageTables:
    """A grammar's node types and a language's dataflow rules as the C engine's tables, and
    the language's parser."""

    def __init__(self, lib: Any, spec: Any, rules: DataflowRules) -> None:
        import tree_sitter

        grammar = spec.grammar
        kinds = range(grammar.node_kind_count)
        labels_of_kind = list(map(grammar.node_kind_for_id, kinds))
        names = {label: k for k, label in enumerate(
            dict.fromkeys(label for label in labels_of_kind if label is not None))}
        name_of_kind = array("i", [-1 if label is None else names[label] for label in labels_of_kind])
        named_of_kind = array("B", map(grammar.node_kind_is_named, kinds))
        self.error_name = names.setdefault(grammar.node_kind_for_id(ERROR_KIND) or "ERROR",
                                           len(names))
        self.names = names
        labels = list(names)
        role = array("i", [0] * len(labels))
        for code, typed in enumerate((rules.definition, rules.assignment, rules.increment,
                                      rules.branch, rules.for_in, rules.c_for, rules.foreach,
                                      rules.loop), start=1):
            for label in typed:
                if label in names and role[names[label]] == 0:
                    role[names[label]] = code
        flags = array("B", bytes(len(labels)))
        for label, index in names.items():
            flags[index] = (
                (NAME_ATOMIC if label in rules.atomic else 0)
                | (NAME_FIRST if label in rules.first else 0)
                | (NAME_BRANCH if label in rules.branch else 0)
                | (NAME_HAS_ELSE if "else" in label else 0)
                | (NAME_SEPARATOR if label in rules.separators else 0)
                | (NAME_OPAQUE if label in rules.opaque else 0)
                | (NAME_COMMENT_TYPE if label in rules.comments else 0)
            )

        def name(label: str) -> int:
            return names.get(label, -2) if label else -2

        def field(label: str) -> int:
            found = grammar.field_id_for_name(label)
            return -2 if found is None else int(found)

        values = {
            "definition_style": {"fields": 0, "two_children": 1, "after_keyword": 2}[
                rules.definition_style],
            "definition_name_field": field(rules.definition_name),
            "definition_value_field": field(rules.definition_value),
            "tuple_assignment": int(rules.assignment_style == "tuple"),
            "branch_style": {"elif_chain": 0, "plain": 1, "flagged": 2}[rules.branch_style],
            "branch_keeps_input": int(rules.branch_keeps_input == "always"),
            "for_pattern_value": int(rules.for_in_style == "pattern_value"),
            "c_for_restart": name(rules.c_for_restart),
            "c_for_update_of": name(rules.c_for_update_of),
            "foreach_name_field": field(rules.foreach_name),
            "foreach_value_field": field(rules.foreach_value),
            "foreach_body_field": field(rules.foreach_body),
            "foreach_rest": int(not rules.foreach_body),
            "foreach_variable_pair": int(rules.foreach_variable_pair),
            "has_first": int(bool(rules.first)),
            "has_separators": int(bool(rules.separators)),
            **{label: name(label) for label in (
                "block", "for_in_clause", "operator_assignment", "elif_clause", "else_clause",
                "variable_name")},
            "identifier": name(rules.identifier),
            "comma": name(","),
            "left": field(rules.left),
            "right": field(rules.right),
            **{label: field(label) for label in ("body", "pattern", "value", "update")},
        }  # fmt: skip
        points, starts = _code_points(labels)
        rule_values = array("q", [values[key] for key in RULE_NAMES])
        self.pointer = lib.cgm_language_new(
            len(labels), _address(points), _address(starts), len(name_of_kind),
            _address(name_of_kind), _address(named_of_kind), self.error_name, _address(role),
            _address(flags), _address(rule_values),
        )  # fmt: skip
        if not self.pointer:
            raise MemoryError("CodeBLEU's compiled engine: no memory for the language tables")
        self.spec = spec
        self.parse = tree_sitter.Parser(grammar).parse
        self.language_pointer = _grammar_pointer(spec)
        self.compiled_walk = False  # decided by _check_compiled_walk
        self.probe = ""  # the language's snippet walked both ways before that decision


@cache
def language_tables(lang: str, rules: DataflowRules) -> LanguageTables:
    from ...languages import resolve

    language = resolve(lang, part="codebleu", user="CodeBLEU")
    tables = LanguageTables(library(), language.parsing, rules)
    tables.probe = language.codebleu.probe if language.codebleu is not None else ""
    tables.compiled_walk = _check_compiled_walk(tables)
    return tables


def _grammar_pointer(spec: Any) -> int | None:
    """The grammar's TSLanguage pointer, from the capsule its wheel hands out."""
    from ...languages.parts import grammar_object

    try:
        capsule = grammar_object(spec.module, spec.function)
        get = ctypes.pythonapi.PyCapsule_GetPointer
        get.restype = ctypes.c_void_p
        get.argtypes = [ctypes.py_object, ctypes.c_char_p]
        return get(capsule, b"tree_sitter.Language")
    except (AttributeError, ValueError):  # no such capsule or no C API: no compiled walk
        return None


# -- walking trees ------------------------------------------------------------------------

_GENERIC_PROBE = "x = (1, y) + f(z) // c\n"
HEADER = object.__basicsize__  # where py-tree-sitter's Tree object holds its TSTree pointer


def _check_compiled_walk(tables: LanguageTables) -> bool:
    """Whether trees of this language may be walked in C: tree-sitter 0.25 or 0.26 (the
    layouts the walk reads), the tree's language pointer is the grammar's own, and a probe
    tree walks to exactly the rows of the Python cursor walk."""
    import sys

    import tree_sitter

    if sys.implementation.name != "cpython":  # the walk reads the Tree object at its address
        return False
    release = getattr(tree_sitter, "__version__", None)
    if release is None:  # 0.25 is the line without __version__ that speaks ABI 15
        known = getattr(tree_sitter, "LANGUAGE_VERSION", None) == 15
    else:
        known = release.split(".")[:2] in (["0", "25"], ["0", "26"])
    if not known or tables.language_pointer is None:
        return False
    lib = library()
    source = (tables.probe or _GENERIC_PROBE).encode()
    tree = tables.parse(source)
    if lib.cgm_tree_language(id(tree), HEADER) != tables.language_pointer:
        return False
    batch = Batch(tables, compiled_walk=True)
    try:
        errors = lib.cgm_batch_add_tree(batch.pointer, id(tree), tree.root_node.descendant_count,
                                        source, len(source))
        if errors < 0:
            return False
        batch.texts.append("")
        walked = batch.add_walked_tree(tree, source, "")
        return batch.tree_rows(0) == batch.tree_rows(walked)
    except EngineError:
        return False
    finally:
        batch.close()


class Batch:
    """The flat trees of one batch of snippets, in C memory."""

    def __init__(self, tables: LanguageTables, compiled_walk: bool) -> None:
        self.lib = library()
        self.tables = tables
        self.compiled_walk = compiled_walk
        self.pointer = self.lib.cgm_batch_new(tables.pointer, HEADER, tables.language_pointer)
        if not self.pointer:
            raise MemoryError("CodeBLEU's compiled engine: no memory for a batch")
        self.texts: list[str] = []
        self.labels: dict[str, int] = {}  # ERROR leaves' S-expressions -> label ids

    def close(self) -> None:
        if self.pointer:
            self.lib.cgm_batch_free(self.pointer)
            self.pointer = None

    def clear(self) -> None:
        _check(self.lib.cgm_batch_clear(self.pointer), "a new batch")
        self.texts = []
        self.labels = {}

    def _label(self, text: str) -> int:
        return self.labels.setdefault(text, len(self.tables.names) + len(self.labels))

    def add_tree(self, tree: Any, source: bytes, text: str) -> int:
        """Walks ``tree`` (parsed from ``source``, the UTF-8 of ``text``) in C; its number."""
        if not self.compiled_walk:
            return self.add_walked_tree(tree, source, text)
        lib = self.lib
        errors = lib.cgm_batch_add_tree(self.pointer, id(tree), tree.root_node.descendant_count,
                                        source, len(source))
        if errors == UNSUPPORTED_TREE:  # not a tree the walk can read: the Python walk from now
            self.compiled_walk = self.tables.compiled_walk = False
            if len(source) < 2**31 - 1:
                import warnings

                warnings.warn(
                    f"cgm-metrics: CodeBLEU's compiled tree walk does not recognise this "
                    f"{self.tables.spec.name} tree; trees are walked in Python from now on "
                    "(same numbers, slower).", RuntimeWarning, stacklevel=2)
            return self.add_walked_tree(tree, source, text)
        _check(errors, "a tree")
        number = len(self.texts)
        self.texts.append(text)
        if errors:
            found = array("i", [0]) * errors
            lib.cgm_batch_error_leaves(self.pointer, number, _address(found), errors)
            cursor = tree.walk()
            for index in found:
                cursor.goto_descendant(index)
                lib.cgm_batch_set_label(self.pointer, number, index, self._label(str(cursor.node)))
        return number

    def add_walked_tree(self, tree: Any, source: bytes, text: str) -> int:
        """Walks ``tree`` with a Python cursor (about 0.4 us a node) into the batch."""
        rows: list[int] = []
        push = rows.extend
        missing: list[int] = []
        errors: list[tuple[int, str]] = []
        cursor = tree.walk()
        first_child = cursor.goto_first_child
        next_sibling = cursor.goto_next_sibling
        to_parent = cursor.goto_parent
        parents: list[int] = []
        parent = -1
        index = 0
        while True:
            node = cursor.node
            kind = node.kind_id
            begin, end = node.byte_range
            push((kind, cursor.field_id or 0, begin, end, parent))
            if first_child():
                parents.append(parent)
                parent = index
                index += 1
                continue
            if begin == end:
                if node.is_missing:
                    missing.append(index)
            elif kind == ERROR_KIND:
                errors.append((index, str(node)))
            index += 1
            while not next_sibling():
                if not to_parent():
                    break
                parent = parents.pop()
            else:
                continue
            break
        nodes = array("i", rows)
        missing_nodes = array("i", missing)
        leaves = self.lib.cgm_batch_add_walked_tree(
            self.pointer, _address(nodes), index, _address(missing_nodes), len(missing_nodes),
            source, len(source))
        _check(leaves, "a walked tree")
        number = len(self.texts)
        self.texts.append(text)
        for node_index, label in errors:
            self.lib.cgm_batch_set_label(self.pointer, number, node_index, self._label(label))
        return number

    def tree_rows(self, number: int) -> list[int]:
        """The flat rows of tree ``number`` (6 ints a node), for checks and tests."""
        count = self.lib.cgm_batch_tree_rows(self.pointer, number, None, 0)
        out = array("i", [0]) * (6 * count)
        self.lib.cgm_batch_tree_rows(self.pointer, number, _address(out), count)
        return out.tolist()


# -- comments -------------------------------------------------------------------------------


MAX_MARKS = 4  # csrc/engine.h: CGM_MAX_MARKS
_MARKS = ctypes.c_char_p * MAX_MARKS
_FLAGS = ctypes.c_int32 * MAX_MARKS


class _CommentStyle(ctypes.Structure):
    """csrc/engine.h: CommentStyle."""

    _fields_ = [
        ("block_open", _MARKS), ("block_close", _MARKS), ("line", _MARKS), ("quote", _MARKS),
        ("quote_not_after", _MARKS), ("quote_escape", _FLAGS), ("quote_multiline", _FLAGS),
        ("line_symbols", ctypes.c_char_p), ("n_block", ctypes.c_int32),
        ("n_line", ctypes.c_int32), ("n_quotes", ctypes.c_int32), ("nested", ctypes.c_int32),
        ("line_at_word_start", ctypes.c_int32), ("long_brackets", ctypes.c_int32),
        ("escapes_outside", ctypes.c_int32),
    ]  # fmt: skip


@cache
def _comment_style(style: CommentStyle) -> _CommentStyle:
    """``style`` as the C scanner reads it (kept alive by the cache: the struct points at
    the markers' bytes)."""
    if max(len(style.block), len(style.line), len(style.quotes)) > MAX_MARKS:
        raise ValueError(f"a comment style has at most {MAX_MARKS} markers of each kind")
    markers = [m for pair in style.block for m in pair] + list(style.line)
    markers += [q.delimiter for q in style.quotes] + [q.not_after for q in style.quotes]
    if not all(m.isascii() and "\0" not in m for m in markers + [style.line_symbols]):
        raise ValueError("comment style markers must be ASCII without NUL")
    encoded = _CommentStyle()
    encoded.block_open = _MARKS(*(opener.encode() for opener, _ in style.block))
    encoded.block_close = _MARKS(*(closer.encode() for _, closer in style.block))
    encoded.line = _MARKS(*(opener.encode() for opener in style.line))
    encoded.quote = _MARKS(*(q.delimiter.encode() for q in style.quotes))
    encoded.quote_not_after = _MARKS(*(q.not_after.encode() for q in style.quotes))
    encoded.quote_escape = _FLAGS(*(int(q.escape) for q in style.quotes))
    encoded.quote_multiline = _FLAGS(*(int(q.multiline) for q in style.quotes))
    encoded.line_symbols = style.line_symbols.encode()
    encoded.n_block, encoded.n_line, encoded.n_quotes = (
        len(style.block), len(style.line), len(style.quotes))
    encoded.nested = int(style.nested)
    encoded.line_at_word_start = int(style.line_at_word_start)
    encoded.long_brackets = int(style.long_brackets)
    encoded.escapes_outside = int(style.escapes_outside)
    return encoded


def strip_comments(texts: list[str], style: str) -> list[str]:
    """``preprocess.remove_comments`` of every text, in one call of the compiled scanner
    (Python's tokenize where the scanner is unsure, as the reference does)."""
    if style == "none" or not texts:
        return list(texts)
    data, starts = _utf8(texts)
    out = ctypes.create_string_buffer(len(data) + 1)
    lengths = array("q", [0]) * len(texts)
    if style == "tokenize":
        code, scanned = TOKENIZE_STYLE, None
    else:
        code, scanned = SCANNED_STYLE, ctypes.byref(_comment_style(scanned_style(style)))
    _check(library().cgm_strip_comments(code, scanned, data, _address(starts), len(texts), out,
                                        _address(lengths)), "comment removal")
    raw = out.raw
    result = []
    for k, text in enumerate(texts):
        length = lengths[k]
        if length >= 0:
            start = starts[k]
            result.append(raw[start : start + length].decode("utf-8", errors="surrogatepass"))
        elif length == KEEP:
            result.append(text)
        else:
            from .preprocess import remove_comments

            result.append(remove_comments(text, style))
    return result


# -- n-grams --------------------------------------------------------------------------------


@cache
def _keyword_bytes(keywords: frozenset[str]) -> tuple[bytes, array]:
    return _utf8(sorted(keywords))


def ngram_columns(options: CodeBleuOptions, hypotheses: list[str], references: list[list[str]],
                  rows: array, first_item: int) -> None:
    """Columns 0-18 of the items' rows (whitespace tokens; a custom tokenizer runs in Python)."""
    if options.custom_tokenizer:
        from .reference import ngram_statistics

        for k, (hypothesis, refs) in enumerate(zip(hypotheses, references, strict=True)):
            ngram_statistics(options, hypothesis, refs, rows, (first_item + k) * N_COLUMNS)
        return
    segments: list[str] = []
    item_starts = [0]
    for hypothesis, refs in zip(hypotheses, references, strict=True):
        segments.append(hypothesis)
        segments.extend(refs)
        item_starts.append(len(segments))
    data, starts = _utf8(segments)
    keywords, keyword_starts = _keyword_bytes(options.keywords)
    items = array("q", item_starts)
    _check(library().cgm_ngram_rows(
        data, _address(starts), _address(items), len(hypotheses), keywords,
        _address(keyword_starts), len(keyword_starts) - 1,
        _address(rows) + 8 * N_COLUMNS * first_item, N_COLUMNS), "n-grams")


# -- statistics -------------------------------------------------------------------------------


def statistics(options: CodeBleuOptions, predictions: list[str], references: list[list[str]],
               rows: array, spent: dict[str, float], profile: bool = False) -> None:
    """Fills ``rows`` (``N_COLUMNS`` a row, item after item) for every item; ``spent``
    receives CPU seconds per stage (parsing and walking told apart when ``profile``)."""
    tables = language_tables(options.spec.name, options.rules)
    batch = Batch(tables, tables.compiled_walk)
    try:
        for start in range(0, len(predictions), BATCH_ITEMS):
            stop = start + BATCH_ITEMS
            _score_batch(options, batch, predictions[start:stop], references[start:stop],
                         rows, start, spent, profile)
    finally:
        batch.close()


def _score_batch(options: CodeBleuOptions, batch: Batch, predictions: list[str],
                 references: list[list[str]], rows: array, first_item: int,
                 spent: dict[str, float], profile: bool) -> None:
    clock = time.process_time
    lib = library()
    started = clock()
    hypotheses = [prediction.strip() for prediction in predictions]
    stripped = [[ref.strip() for ref in refs] for refs in references]
    ngram_columns(options, hypotheses, stripped, rows, first_item)
    ngrams_done = clock()
    spent["ngrams"] += ngrams_done - started
    # comment removal of every distinct text (the package strips the candidate again for
    # every further reference, cumulatively: those rounds follow)
    style = options.comment_style
    distinct = list(dict.fromkeys([*hypotheses, *(ref for refs in stripped for ref in refs)]))
    cleaned = dict(zip(distinct, strip_comments(distinct, style), strict=True))
    candidates = [cleaned[h] for h in hypotheses]
    pairs = array("q")
    tree_of: dict[str, int] = {}
    needed: list[tuple[str, int]] = []  # (text, position in pairs to fill)
    for item, refs in enumerate(stripped):
        for k, ref in enumerate(refs):
            if k:
                candidate = candidates[item]
                if candidate not in cleaned:
                    cleaned[candidate] = strip_comments([candidate], style)[0]
                candidates[item] = cleaned[candidate]
            pairs.extend((first_item + item, -1, -1))
            needed.append((candidates[item], len(pairs) - 2))
            needed.append((cleaned[ref], len(pairs) - 1))
    comments_done = clock()
    spent["comments"] += comments_done - ngrams_done
    # each distinct snippet parsed once and walked into the batch
    batch.clear()
    parse: Any = batch.tables.parse
    # inside an evaluation's block the other tree metrics read the same trees (no block can be
    # open unless core.parsing was imported: a plain call does not import it)
    parsing = sys.modules.get("cgm_metrics.core.parsing")
    if parsing is not None and parsing.sharing():
        spec = batch.tables.spec
        parse = lambda source: parsing.parse_tree(source, spec)  # noqa: E731
    add = batch.add_tree
    parse_seconds = 0.0
    for text, slot in needed:
        number = tree_of.get(text)
        if number is None:
            source = text.encode("utf-8", errors="surrogatepass")
            if profile:
                before = clock()
                tree = parse(source)
                parse_seconds += clock() - before
            else:
                tree = parse(source)
            number = tree_of[text] = add(tree, source, text)
        pairs[slot] = number
    spent["parse"] += parse_seconds
    trees_done = clock()
    spent["flatten"] += trees_done - comments_done - parse_seconds
    _check(lib.cgm_batch_tokens(batch.pointer), "tokens")
    tokens_done = clock()
    spent["tokens"] += tokens_done - trees_done
    _check(lib.cgm_batch_syntax(batch.pointer), "syntax")
    syntax_done = clock()
    spent["syntax"] += syntax_done - tokens_done
    status = array("B", bytes(len(batch.texts) + 1))
    _check(lib.cgm_batch_dataflow(batch.pointer, 0 if options.set_order == "package" else 1,
                                  MAX_DEPTH, LOOP_NESTING_LIMIT, C_WALK_DEPTH_LIMIT,
                                  _address(status)), "dataflow")
    for number in (k for k, flag in enumerate(status) if flag):  # the last entry is spare
        _reference_graph(options, batch, number)
    _check(lib.cgm_batch_compare(batch.pointer, _address(pairs), len(pairs) // 3,
                                 _address(rows), N_COLUMNS, SYNTAX_MATCH), "the comparison")
    spent["dataflow"] += clock() - syntax_done


def _reference_graph(options: CodeBleuOptions, batch: Batch, number: int) -> None:
    """A tree with deeply nested loops, or deeper than the C walk goes: its graph from the
    reference walker (it remembers loop results, where walking each loop twice per enclosing
    walk costs 2^depth)."""
    from .dataflow import COMES, data_flow, normalize
    from .tree import flatten

    flow = normalize(data_flow(flatten(batch.texts[number], options.spec), options.rules,
                               options.set_order))
    data = array("i")
    starts = array("q", [0])
    for name, relation, parents in flow:
        data.extend((name, 0 if relation == COMES else 1, *parents))
        starts.append(len(data))
    _check(batch.lib.cgm_batch_set_graph(batch.pointer, number, _address(data),
                                         _address(starts), len(flow)), "a reference graph")
