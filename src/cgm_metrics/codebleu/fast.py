"""The compiled statistics path of CodeBLEU: parse once, flatten once, then batch kernels.

Per batch of items, each distinct snippet (after comment removal) is parsed once and walked
once with a tree cursor into flat integer arrays (kind, field, byte range, parent); the
kernels of ``kernels.py`` then compute the syntax, dataflow and n-gram statistics of the whole
batch. The numbers are those of the pure-Python reference (``metric.py`` with ``tree.py``,
``dataflow.py``, ``ngrams.py``); ``CGM_CODEBLEU_ENGINE=python`` selects the reference.
"""

from __future__ import annotations

import os
import time
from functools import cache

import numpy as np

from ..core.parsing import _parser

try:
    from . import kernels as K
except ImportError:  # pragma: no cover - numba is a dependency; without it, the reference
    K = None
from .dataflow import COMES, MAX_DEPTH, data_flow, normalize
from .preprocess import _ODD_SPACE, _strip_c_style, _strip_python
from .tables import DataflowRules
from .tree import ATOMIC_TYPES, flatten, token_texts

ENGINE_VARIABLE = "CGM_CODEBLEU_ENGINE"
ENGINES = ("compiled", "python")
BATCH = 256  # items per batch: bounds the memory of the flat arrays
ERROR_KIND = 65535


def engine() -> str:
    """The statistics engine chosen by ``CGM_CODEBLEU_ENGINE`` ("compiled" by default)."""
    value = os.environ.get(ENGINE_VARIABLE, "compiled").strip().lower() or "compiled"
    if value not in ENGINES:
        raise ValueError(
            f"{ENGINE_VARIABLE} must be one of {', '.join(ENGINES)}; got {value!r}."
        )
    return "python" if K is None else value


class LanguageTables:
    """A grammar's node kinds as integer tables, and the dataflow rules as integers."""

    def __init__(self, grammar, rules: DataflowRules) -> None:
        names: dict[str, int] = {}
        name_of_kind = np.full(65536, -1, np.int64)
        named_of_kind = np.zeros(65536, np.bool_)
        kinds = list(range(grammar.node_kind_count)) + [ERROR_KIND]
        for kind in kinds:
            label = grammar.node_kind_for_id(kind)
            if label is None:
                continue
            name_of_kind[kind] = names.setdefault(label, len(names))
            named_of_kind[kind] = grammar.node_kind_is_named(kind)
        self.grammar = grammar
        self.names = names
        self.name_points, self.name_off = fixed_strings(list(names))
        self.name_list = list(names)
        self.name_of_kind = name_of_kind
        self.named_of_kind = named_of_kind
        size = len(names)
        self.atomic = np.zeros(size, np.bool_)
        for label in ATOMIC_TYPES:
            if label in names:
                self.atomic[names[label]] = True
        self.comment = names.get("comment", -2)
        role = np.zeros(size, np.int64)
        assigned: set[str] = set()
        for code, labels in (
            (K.ROLE_DEFINITION, rules.definition),
            (K.ROLE_ASSIGNMENT, rules.assignment),
            (K.ROLE_INCREMENT, rules.increment),
            (K.ROLE_BRANCH, rules.branch),
            (K.ROLE_FOR_IN, rules.for_in),
            (K.ROLE_C_FOR, rules.c_for),
            (K.ROLE_FOREACH, rules.foreach),
            (K.ROLE_LOOP, rules.loop),
        ):
            for label in labels:
                if label in names and label not in assigned:
                    role[names[label]] = code
                    assigned.add(label)
        self.role = role
        self.is_first = self._flags(rules.first)
        self.is_branch = self._flags(rules.branch)
        self.has_else = np.array(["else" in label for label in self.name_list], np.bool_)

        def kind_of(label: str) -> int:
            return names.get(label, -2) if label else -2

        def field(label: str) -> int:
            found = grammar.field_id_for_name(label)
            return -2 if found is None else int(found)

        R = np.zeros(K.R_SIZE, np.int64)
        R[K.R_DEF_STYLE] = {"fields": 0, "two_children": 1, "rust_function": 2}[
            rules.definition_style]
        R[K.R_DEF_NAME] = field(rules.definition_name)
        R[K.R_DEF_VALUE] = field(rules.definition_value)
        R[K.R_ASSIGN_STYLE] = 1 if rules.assignment_style == "tuple" else 0
        R[K.R_BRANCH_STYLE] = {"python": 0, "plain": 1, "flagged": 2}[rules.branch_style]
        R[K.R_KEEPS_INPUT] = 1 if rules.branch_keeps_input == "always" else 0
        R[K.R_FOR_IN_STYLE] = 1 if rules.for_in_style == "ruby" else 0
        R[K.R_RESTART] = kind_of(rules.c_for_restart)
        R[K.R_UPDATE_OF] = kind_of(rules.c_for_update_of)
        R[K.R_FOREACH_NAME] = field(rules.foreach_name)
        R[K.R_FOREACH_VALUE] = field(rules.foreach_value)
        R[K.R_FOREACH_PHP] = int(rules.foreach_php)
        R[K.R_HAS_FIRST] = int(bool(rules.first))
        R[K.R_COMMA] = kind_of(",")
        R[K.R_BLOCK] = kind_of("block")
        R[K.R_FOR_IN_CLAUSE] = kind_of("for_in_clause")
        R[K.R_OPERATOR_ASSIGNMENT] = kind_of("operator_assignment")
        R[K.R_ELIF_CLAUSE] = kind_of("elif_clause")
        R[K.R_ELSE_CLAUSE] = kind_of("else_clause")
        R[K.R_VARIABLE_NAME] = kind_of("variable_name")
        R[K.R_IDENTIFIER] = kind_of("identifier")
        R[K.R_COMMENT] = self.comment
        R[K.R_F_LEFT] = field("left")
        R[K.R_F_RIGHT] = field("right")
        R[K.R_F_BODY] = field("body")
        R[K.R_F_PATTERN] = field("pattern")
        R[K.R_F_VALUE] = field("value")
        R[K.R_F_UPDATE] = field("update")
        self.rules = R

    def _flags(self, labels) -> np.ndarray:
        flags = np.zeros(len(self.names), np.bool_)
        for label in labels:
            if label in self.names:
                flags[self.names[label]] = True
        return flags


def fixed_strings(strings: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Code points of ``strings`` end to end, and their offsets (for the intern tables)."""
    offsets = np.zeros(len(strings) + 1, np.int64)
    np.cumsum([len(s) for s in strings], out=offsets[1:])
    return _code_points("".join(strings)).astype(np.int64), offsets


@cache
def keyword_strings(keywords: frozenset) -> tuple[np.ndarray, np.ndarray]:
    return fixed_strings(sorted(keywords))


@cache
def language_tables(lang: str, rules: DataflowRules) -> LanguageTables:
    from ..core.languages import resolve_language

    return LanguageTables(resolve_language(lang).grammar, rules)


# -- comment removal --------------------------------------------------------------------------


def _code_points(text: str) -> np.ndarray:
    if text.isascii():
        return np.frombuffer(text.encode("ascii"), np.uint8)
    return np.frombuffer(text.encode("utf-32-le", errors="surrogatepass"), np.uint32)


def _from_points(points: np.ndarray) -> str:
    if points.dtype == np.uint8:
        return points.tobytes().decode("ascii")
    return points.tobytes().decode("utf-32-le", errors="surrogatepass")


def strip_python(source: str) -> str:
    """``preprocess.remove_comments(source, "python")`` with the compiled scanner."""
    try:
        if _ODD_SPACE.search(source) is None:
            points = _code_points(source)
            out = np.empty(points.size + 1, points.dtype)
            written = K.strip_python(points, out)
            if written >= 0:
                return _from_points(out[:written])
            if written == K._KEEP:
                return source
        return _strip_python(source)
    except Exception:  # the package swallows every failure and keeps the text
        return source


def strip_python_all(texts: list[str]) -> dict[str, str]:
    """``strip_python`` of many texts with one kernel call."""
    done: dict[str, str] = {}
    plain = list(dict.fromkeys(text for text in texts if _ODD_SPACE.search(text) is None))
    if plain:
        joined = "".join(plain)
        points = _code_points(joined)
        offsets = np.zeros(len(plain) + 1, np.int64)
        np.cumsum([len(text) for text in plain], out=offsets[1:])
        out, lengths = K.strip_python_batch(points, offsets)
        stripped = _from_points(out)
        for k, text in enumerate(plain):
            written = lengths[k]
            if written >= 0:
                done[text] = stripped[offsets[k] : offsets[k] + written]
            elif written == K._KEEP:
                done[text] = text
    for text in texts:
        if text not in done:
            done[text] = strip_python(text)
    return done


def remove_comments(source: str, style: str) -> str:
    if style == "python":
        return strip_python(source)
    if style == "none":
        return source
    try:
        return _strip_c_style(source)
    except Exception:
        return source



# -- one batch ---------------------------------------------------------------------------


class _Batch:
    """Flat arrays of every distinct snippet of a batch of items."""

    def __init__(self, tables: LanguageTables, lang: str) -> None:
        self.tables = tables
        self.parser = _parser(lang)
        self.flat: list[int] = []
        self.node_off = [0]
        self.texts: list[str] = []
        self.sources: list[bytes] = []
        self.missing: list[int] = []
        self.errors: list[tuple[int, str]] = []
        self.parse_seconds = 0.0
        self.flatten_seconds = 0.0

    def add(self, text: str) -> int:
        """Parse and flatten ``text``; returns its tree number."""
        clock = time.process_time
        start = clock()
        source = text.encode("utf-8", errors="surrogatepass")
        tree = self.parser.parse(source)
        parsed = clock()
        cursor = tree.walk()
        first_child = cursor.goto_first_child
        next_sibling = cursor.goto_next_sibling
        parent_of = cursor.goto_parent
        push = self.flat.extend
        base = self.node_off[-1]
        stack: list[int] = []
        parent = -1
        index = 0
        while True:
            node = cursor.node
            kind = node.kind_id
            begin, end = node.byte_range
            push((kind, cursor.field_id or 0, begin, end, parent))
            if first_child():
                stack.append(parent)
                parent = index
                index += 1
                continue
            if begin == end:
                if node.is_missing:
                    self.missing.append(base + index)
            elif kind == ERROR_KIND:
                self.errors.append((base + index, str(node)))
            index += 1
            while not next_sibling():
                if not parent_of():
                    break
                parent = stack.pop()
            else:
                continue
            break
        self.node_off.append(base + index)
        self.texts.append(text)
        self.sources.append(source)
        self.flatten_seconds += clock() - parsed
        self.parse_seconds += parsed - start
        return len(self.texts) - 1


def compiled_statistics(metric, predictions, references, timings=None) -> np.ndarray:
    """The statistics rows of ``metric`` (a CodeBleuMetric), computed by the kernels."""
    from .metric import N_COLUMNS

    tables = language_tables(metric.spec.name, metric.rules)
    rows = np.zeros((len(predictions), N_COLUMNS))
    spent = {"comments": 0.0, "parse": 0.0, "flatten": 0.0, "ngrams": 0.0, "tokens": 0.0,
             "syntax": 0.0, "dataflow": 0.0}
    items = list(zip(predictions, references, strict=False))
    for start in range(0, len(items), BATCH):
        block = rows[start : start + BATCH]
        _batch(metric, tables, items[start : start + BATCH], block, spent)  # in place
    if timings is not None:
        for key, value in spent.items():
            timings[key] = timings.get(key, 0.0) + value
    return rows


def _batch(metric, tables: LanguageTables, items, rows: np.ndarray, spent: dict) -> None:
    from .metric import DATAFLOW_MATCH, DATAFLOW_TOTAL, SYNTAX_MATCH, SYNTAX_TOTAL

    clock = time.process_time
    style = metric.comment_style
    keywords = metric.keywords
    batch = _Batch(tables, metric.spec.name)
    # n-gram inputs: every hypothesis and reference text, end to end
    segments: list[str] = []
    item_off = [0]
    pairs: list[tuple[int, int, int]] = []
    ngram_time = 0.0
    comments = 0.0
    stripped_once: dict[str, str] = {}
    if style == "python":
        t0 = clock()
        stripped_once = strip_python_all(
            [text.strip() for prediction, refs in items for text in [prediction, *refs]]
        )
        comments += clock() - t0
    for item, (prediction, refs) in enumerate(items):
        t0 = clock()
        hypothesis = prediction.strip()
        stripped = [ref.strip() for ref in refs]
        segments.append(hypothesis)
        segments.extend(stripped)
        item_off.append(len(segments))
        t1 = clock()
        ngram_time += t1 - t0
        cache: dict[str, int] = {}
        candidate = hypothesis
        first = True
        for reference in stripped:
            t2 = clock()
            # the package strips the candidate again for every reference (cumulatively)
            if first and stripped_once:
                candidate = stripped_once[candidate]
            else:
                candidate = remove_comments(candidate, style)
            first = False
            if stripped_once:
                cleaned = stripped_once[reference]
            else:
                cleaned = remove_comments(reference, style)
            comments += clock() - t2
            found = cache.get(candidate)
            if found is None:
                found = cache[candidate] = batch.add(candidate)
            other = cache.get(cleaned)
            if other is None:
                other = cache[cleaned] = batch.add(cleaned)
            pairs.append((item, found, other))
    spent["comments"] += comments
    spent["parse"] += batch.parse_seconds
    spent["flatten"] += batch.flatten_seconds
    # n-grams
    t0 = clock()
    seg_point_off = np.zeros(len(segments) + 1, np.int64)
    np.cumsum([len(text) for text in segments], out=seg_point_off[1:])
    kw_points, kw_off = keyword_strings(keywords)
    ids, seg_off = K.split_ids(_code_points("".join(segments)).astype(np.int64), seg_point_off,
                               kw_points, kw_off)
    n_ids = max(int(ids.max()) + 1 if ids.size else 0, kw_off.size - 1, 1)
    weights = np.where(np.arange(n_ids) < kw_off.size - 1, 1.0, 0.2)
    rows[:, 0:19] = K.ngram_rows(ids, seg_off, np.array(item_off, np.int64), weights)
    spent["ngrams"] += ngram_time + clock() - t0
    if not pairs:
        return
    # flat arrays
    t0 = clock()
    flat = np.fromiter(batch.flat, np.int64, len(batch.flat)).reshape(-1, 5)
    kinds = flat[:, 0]
    field = flat[:, 1].copy()
    starts = flat[:, 2].copy()
    ends = flat[:, 3].copy()
    parent = flat[:, 4].copy()
    node_off = np.array(batch.node_off, np.int64)
    name = tables.name_of_kind[kinds]
    visible = tables.named_of_kind[kinds]
    missing = np.zeros(name.size, np.int64)
    if batch.missing:
        missing[batch.missing] = 1
        visible = visible.copy()
        visible[batch.missing] = True
    label = name
    if batch.errors:
        label = name.copy()
        special: dict[str, int] = {}
        for index, text in batch.errors:
            label[index] = len(tables.names) + special.setdefault(text, len(special))
    send, has_kids, tpos, tokens, tok_off, depth = K.tree_structure(
        node_off, parent, starts, ends, name, tables.atomic, tables.comment
    )
    spent["flatten"] += clock() - t0
    # syntax
    t0 = clock()
    pair_trees = np.array([(a, b) for _, a, b in pairs], np.int64).reshape(-1, 2)
    keys = K.syntax_keys(node_off, parent, has_kids, label, missing, visible, field)
    syntax = K.syntax_matches(node_off, keys, pair_trees, int(keys.max()) + 1)
    spent["syntax"] += clock() - t0
    # token texts (the package's slicing), interned with the kind names as the first ids
    t0 = clock()
    parts = []
    tok_start = starts[tokens]
    tok_end = ends[tokens]
    tree_point_off = np.zeros(len(batch.texts) + 1, np.int64)
    for tree, text in enumerate(batch.texts):
        if text.isascii():
            parts.append(np.frombuffer(batch.sources[tree], np.uint8))
        else:  # byte columns applied to the string, per line: the texts come from Python
            lo, hi = tok_off[tree], tok_off[tree + 1]
            found = token_texts(text, tok_start[lo:hi].tolist(), tok_end[lo:hi].tolist())
            lengths = np.array([len(token) for token in found], np.int64)
            bounds = np.concatenate(([0], np.cumsum(lengths)))
            tok_start[lo:hi] = bounds[:-1]
            tok_end[lo:hi] = bounds[1:]
            parts.append(_code_points("".join(found)))
        tree_point_off[tree + 1] = tree_point_off[tree] + parts[-1].size
    points = np.concatenate([part.astype(np.int64) for part in parts]) if parts else (
        np.zeros(0, np.int64))
    ttext, text_points, txt_off = K.token_ids(
        points, tree_point_off, tok_start, tok_end, tok_off, node_off, tpos,
        tables.name_points, tables.name_off,
    )
    tskip = ttext == name
    spent["tokens"] += clock() - t0
    # dataflow
    t0 = clock()
    data, entry_off, tree_lo, tree_hi, status = K.dataflow(
        node_off, name, field, send, has_kids, tpos, ttext, tskip, depth,
        tables.atomic, tables.role, tables.is_first, tables.is_branch, tables.has_else,
        _with_order(tables.rules, metric.set_order), txt_off.size - 1, text_points, txt_off,
        MAX_DEPTH,
    )
    if status.any():
        data, entry_off = _reference_flows(metric, batch, status, data, entry_off, tree_lo,
                                           tree_hi)
    flows = K.dataflow_matches(data, entry_off, tree_lo, tree_hi, pair_trees)
    spent["dataflow"] += clock() - t0
    for k, (item, _, _) in enumerate(pairs):
        row = rows[item]
        row[SYNTAX_MATCH] += syntax[k, 0]
        row[SYNTAX_TOTAL] += syntax[k, 1]
        row[DATAFLOW_MATCH] += flows[k, 0]
        row[DATAFLOW_TOTAL] += flows[k, 1]


def _with_order(rules: np.ndarray, order: str) -> np.ndarray:
    out = rules.copy()
    out[K.R_ORDER] = 0 if order == "package" else 1
    return out


def _reference_flows(metric, batch, status, data, entry_off, tree_lo, tree_hi):
    """Trees with deeply nested loops: the reference walker (it remembers loop results)."""
    data_parts = [data]
    offsets = list(entry_off)
    size = data.size
    for tree in np.nonzero(status)[0]:
        flow = normalize(data_flow(flatten(batch.texts[tree], metric.spec), metric.rules,
                                   metric.set_order))
        tree_lo[tree] = len(offsets) - 1
        for name, relation, parents in flow:
            sequence = [name, 0 if relation == COMES else 1, *parents]
            data_parts.append(np.array(sequence, np.int64))
            size += len(sequence)
            offsets.append(size)
        tree_hi[tree] = len(offsets) - 1
    return np.concatenate(data_parts), np.array(offsets, np.int64)
