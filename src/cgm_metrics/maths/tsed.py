"""TSED, Tree Similarity of Edit Distance (Song et al., 2024), equal to the ``tsed`` package.

TSED = max(0, 1 - d / max(n1, n2)) where ``d`` is the tree edit distance from the
prediction's syntax tree to the reference's (deleting a node costs 1.0, inserting one 0.8,
renaming one 1.0: the package's published weights) and ``n1``, ``n2`` the sizes of the trees.

The trees are the ones the package reads, by default (``tree="sexp"``):

1. the code is parsed with tree-sitter, with the grammars of ``tree-sitter-language-pack``
   0.9.0 (the release the package runs offline with; its grammars differ from the pinned
   grammar wheels of the other metrics for several languages, e.g. Go's ``statement_list``);
2. the tree is printed as tree-sitter's S-expression: named nodes only, so punctuation,
   operators and keywords vanish, and no source text, so identifiers and literals vanish;
3. the S-expression is read back token by token: ``(`` opens a node, ``)`` closes it, and
   any other token becomes the label of the open node, so a field name (``body:``), which
   comes before its child's ``(``, relabels the *parent*: a node's label is the last field
   name written directly inside it, else its type;
4. a tree's size is the number of ``)`` in its S-expression.

The distance is the exact ordered tree edit distance (APTED in the package, Zhang-Shasha
here, compiled: the same minimum), so the values agree to floating-point rounding.
Several references: the best one counts, as the package's evaluate Space does.

``tree="types"`` reads the tree-sitter tree directly instead: every named node labelled by its
own type (field names do not relabel anything; a MISSING node is ``MISSING <type>``), the size
its number of nodes. That is the paper's description of the trees; the numbers then differ
from the package's.
"""

from __future__ import annotations

import importlib.metadata
import threading
from collections.abc import Sequence
from functools import cache
from typing import Any

import numpy as np

from ..base.errors import ItemError
from ..core.inputs import check_number
from ..languages import DEFAULT_LANGUAGE, covering
from ..pipeline.metric import MeanOfItems
from .ruby.ted import Tree, tree_edit_distance

#: The grammar release the ``tsed`` package is checked against (newer ones download grammars
#: at run time).
GRAMMAR_PACK = "tree-sitter-language-pack"
GRAMMAR_PACK_VERSION = "0.9.0"

def tsed_languages() -> dict[str, str]:
    """The languages with a TSED part (their modules' ``tsed``) -> the name of their grammar
    in the grammar pack, or "" for a language read with its own grammar (a plugin's). TSED
    parses with the pack's grammar, as the ``tsed`` package does, not with the grammar wheel
    of the language's parsing part."""
    from ..languages import iter_parts

    return {name: part.pack for name, part in iter_parts("tsed").items()}



#: Deletion, insertion and rename weights of the package's README and Space.
DEFAULT_WEIGHTS = (1.0, 0.8, 1.0)
#: ``tree`` choices: the package's reading of the S-expression, or the node types.
TREES = ("sexp", "types")
#: Largest distance table (nodes of the prediction times nodes of the reference): 1.6 GB.
MAX_TABLE_CELLS = 200_000_000


def resolve_tsed_language(lang: object) -> str:
    """The canonical name of ``lang`` (name or alias, case-insensitive, as every metric
    resolves it), or a ``ValueError`` listing the languages TSED supports."""
    from ..languages import resolve

    return resolve(lang, part="tsed", user="tsed").name


def _parser(lang: str) -> Any:
    """The parser TSED reads ``lang`` (a canonical name) with: the pack's grammar, or the
    language's own for a language without one in the pack."""
    from ..languages import resolve

    language = resolve(lang, part="tsed")
    assert language.tsed is not None
    if language.tsed.pack:
        return _pack_parser(language.tsed.pack)
    if language.parsing is None:
        raise ValueError(f"tsed: {language.name!r} names no grammar of the pack and has no "
                         "parsing part of its own.")
    from ..core.parsing import parser_for

    return parser_for(language.parsing)


@cache
def _pack_parser(pack_name: str) -> Any:
    try:
        from tree_sitter_language_pack import get_parser
    except ImportError:  # pragma: no cover - a dependency of the package
        raise ImportError(
            f"tsed needs {GRAMMAR_PACK}=={GRAMMAR_PACK_VERSION}: "
            f"pip install '{GRAMMAR_PACK}=={GRAMMAR_PACK_VERSION}'"
        ) from None
    installed = importlib.metadata.version(GRAMMAR_PACK)
    if installed != GRAMMAR_PACK_VERSION:
        raise ImportError(
            f"tsed reads its trees with {GRAMMAR_PACK} {GRAMMAR_PACK_VERSION} (the grammars the "
            f"tsed package is checked against); {installed} is installed. Fix: pip install "
            f"'{GRAMMAR_PACK}=={GRAMMAR_PACK_VERSION}'."
        )
    return get_parser(pack_name)  # type: ignore[arg-type]  # a language's TSED part


def sexp(code: str, lang: str) -> str:
    """tree-sitter's S-expression of ``code``, as the ``tsed`` package prints it.

    tree-sitter prints it recursively in C, one call per level of the tree, on the caller's
    stack, where the package's process dies of a segmentation fault when code nests a few
    thousand levels deep. Here a tree deeper than :data:`PRINT_DEPTH` levels is printed by the
    same function on a thread whose stack is sized for its depth (:data:`STACK_PER_LEVEL` a
    level), the same text; code nested deeper than :data:`MAX_DEPTH` levels is refused with a
    :class:`TreeTooDeepError` (a ``ValueError``).
    """
    parser = _parser(resolve_tsed_language(lang))
    source = code.encode("utf-8", errors="surrogatepass")
    return print_tree(parser.parse(source).root_node)


#: Deepest tree that tree-sitter's printer runs on the caller's own stack: at most about 700
#: bytes of C stack a level were measured (Python's nested lists), so 1,000 levels fit the
#: smallest thread stacks (1 MB) with room.
PRINT_DEPTH = 1_000
#: Stack given to the printer a level of a deeper tree (about 3x the most measured).
STACK_PER_LEVEL = 2_048
#: Deepest tree TSED reads (levels of tree-sitter nodes, named or not); the ``tsed`` package's
#: own process dies at about 12,000 (Python's nested lists, an 8 MB stack).
MAX_DEPTH = 20_000

_STACK_LOCK = threading.Lock()


def tree_depth(root: Any, limit: int | None = None) -> int:
    """How many levels lie below ``root`` (every node a tree cursor visits), without
    recursion; with ``limit``, the walk stops at the first node deeper than it (and returns
    ``limit + 1``)."""
    cursor = root.walk()
    depth = deepest = 0
    while True:
        if cursor.goto_first_child():
            depth += 1
            if depth > deepest:
                deepest = depth
                if limit is not None and depth > limit:
                    return depth
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return deepest
            depth -= 1


class TreeTooDeepError(ValueError):
    """Code nested deeper than :data:`MAX_DEPTH` levels: it has no TSED."""


def print_tree(root: Any) -> str:
    """``str(root)`` (tree-sitter's S-expression) for a tree of any depth up to
    :data:`MAX_DEPTH`, :class:`TreeTooDeepError` beyond: see :func:`sexp`."""
    if root.descendant_count <= PRINT_DEPTH:  # the depth is at most the number of nodes
        return str(root)
    depth = tree_depth(root, MAX_DEPTH)
    if depth <= PRINT_DEPTH:
        return str(root)
    if depth > MAX_DEPTH:
        raise TreeTooDeepError(
            f"tsed: the code nests more than {MAX_DEPTH:,} levels deep (its syntax tree), "
            "beyond what TSED reads; score smaller or less nested units."
        )
    printed: list[str] = []
    runner = threading.Thread(target=lambda: printed.append(str(root)), name="tsed-print")
    with _STACK_LOCK:  # the stack size applies to the threads started while it is set
        previous = threading.stack_size()
        try:
            threading.stack_size(max(depth * STACK_PER_LEVEL, 1 << 24))
            runner.start()
        except (RuntimeError, MemoryError) as error:
            raise TreeTooDeepError(
                f"tsed: the code nests {depth:,} levels deep and no thread with a stack for "
                f"its syntax tree could be started ({error}); score smaller or less nested "
                "units."
            ) from None
        finally:
            threading.stack_size(previous)
    runner.join()
    if not printed:  # pragma: no cover - str() raised in the thread (out of memory)
        raise MemoryError("tsed: no memory to print the syntax tree")
    return printed[0]


def sexp_tree(text: str) -> tuple[Tree, int]:
    """The tree the ``tsed`` package reads from an S-expression, and its size (``)`` count).

    Token by token, as the package: ``(`` opens a child of the open node, ``)`` attaches the
    open node to its parent (at the top level it is ignored), any other token relabels the
    open node. The tree is the node left open at the end (the root, unless a quoted paren
    unbalanced the text).
    """
    tokens = text.replace("(", " ( ").replace(")", " ) ").split()
    labels: list[str] = []
    children: list[list[int]] = []
    stack: list[int] = []
    current = -1
    for token in tokens:
        if token == "(":
            if current >= 0:
                stack.append(current)
            current = len(labels)
            labels.append("")
            children.append([])
        elif token == ")":
            if stack:
                parent = stack.pop()
                children[parent].append(current)
                current = parent
        else:
            if current < 0:
                current = len(labels)
                labels.append("")
                children.append([])
            labels[current] = token
    size = text.count(")")
    if current < 0:
        return Tree((), ()), size
    # the subtree of the open node, renumbered in pre-order
    order: list[int] = []
    todo = [current]
    while todo:
        node = todo.pop()
        order.append(node)
        todo.extend(reversed(children[node]))
    index = {node: k for k, node in enumerate(order)}
    return (
        Tree(
            tuple(labels[node] for node in order),
            tuple(tuple(index[kid] for kid in children[node]) for node in order),
        ),
        size,
    )


def typed_tree(code: str, lang: str) -> tuple[Tree, int]:
    """The named nodes of ``code``'s tree-sitter tree, each labelled by its type (the
    ``tree="types"`` reading), and their number."""
    parser = _parser(resolve_tsed_language(lang))
    root = parser.parse(code.encode("utf-8", errors="surrogatepass")).root_node
    if root.descendant_count > MAX_DEPTH and tree_depth(root, MAX_DEPTH) > MAX_DEPTH:
        raise TreeTooDeepError(
            f"tsed: the code nests more than {MAX_DEPTH:,} levels deep (its syntax tree), "
            "beyond what TSED reads; score smaller or less nested units."
        )
    labels: list[str] = []
    children: list[list[int]] = []
    stack = [(root, -1)]
    while stack:
        node, parent = stack.pop()
        index = len(labels)
        labels.append(f"MISSING {node.type}" if node.is_missing else node.type)
        children.append([])
        if parent >= 0:
            children[parent].append(index)
        stack.extend((kid, index) for kid in reversed(node.named_children))
    tree = Tree(tuple(labels), tuple(tuple(kids) for kids in children))
    return tree, len(labels)


def tsed_similarity(
    first: tuple[Tree, int],
    second: tuple[Tree, int],
    weights: Sequence[float] = DEFAULT_WEIGHTS,
) -> float:
    """TSED of two (tree, size) pairs: ``first`` is edited into ``second``."""
    (tree1, size1), (tree2, size2) = first, second
    longest = max(size1, size2)
    if longest <= 0:
        return 1.0
    if len(tree1) * len(tree2) > MAX_TABLE_CELLS:
        raise ValueError(
            f"tsed: syntax trees of {len(tree1)} and {len(tree2)} nodes need a distance table "
            f"of {len(tree1) * len(tree2):,} cells (the limit is {MAX_TABLE_CELLS:,}); "
            "score smaller units (functions rather than whole files)."
        )
    delete, insert, rename = weights
    distance = float(tree_edit_distance(tree1, tree2, relabel=rename, delete=delete,
                                        insert=insert))
    if distance > longest:
        return 0.0
    return (longest - distance) / longest


def tsed(
    prediction: str,
    reference: str,
    lang: str = DEFAULT_LANGUAGE,
    weights: Sequence[float] = DEFAULT_WEIGHTS,
    tree: str = "sexp",
) -> float:
    """TSED of one pair (``TSED.Calculate(lang, prediction, reference, *weights)``).

    >>> tsed("def f(x):\\n    return x + 1\\n", "def g(y):\\n    return y - 2\\n")
    1.0
    >>> tsed("x = 1\\n", "")  # 5 nodes against 1: delete 4 at 1.0
    0.2
    """
    lang = resolve_tsed_language(lang)
    read = _reader(tree)
    return tsed_similarity(read(prediction, lang), read(reference, lang), weights)


def _sexp_reader(code: str, lang: str) -> tuple[Tree, int]:
    return sexp_tree(sexp(code, lang))


def _reader(tree: object) -> Any:
    """The function reading a (tree, size) from code (a module function, so metrics pickle)."""
    if tree == "sexp":
        return _sexp_reader
    if tree == "types":
        return typed_tree
    raise ValueError(f"Unknown `tree` {tree!r}; choose 'sexp' (the tsed package's reading of "
                     "the S-expression, default) or 'types' (named nodes labelled by type).")


def _check_weights(weights: Any) -> tuple[float, float, float]:
    if isinstance(weights, (str, bytes)) or not isinstance(weights, Sequence) or len(weights) != 3:
        raise ValueError(
            "`weights` must be three numbers (deletion, insertion, rename), e.g. (1.0, 0.8, 1.0), "
            f"got {weights!r}."
        )
    names = ("deletion", "insertion", "rename")
    return tuple(  # type: ignore[return-value]
        check_number(value, f"weights ({name})", 0.0, 1e6) for value, name in zip(weights, names,
                                                                                   strict=True)
    )


class TsedMetric(MeanOfItems):
    """TSED per item (best reference), the corpus score their mean.

    Options: ``lang``, ``weights`` = (deletion, insertion, rename), default (1.0, 0.8, 1.0),
    and ``tree`` ("sexp", the package's trees, default; or "types").

    >>> metric = TsedMetric(lang="python")
    >>> metric.compute(["def add(a, b):\\n    return a + b"],
    ...                ["def add(x, y):\\n    return x + y"])["score"]
    1.0
    """

    name = "tsed"
    display_name = "TSED"
    description = "Tree edit distance between tree-sitter syntax trees, normalised (Song et al., 2024)"
    seconds_per_1k_chars = 0.7  # benchmarks/metric_cost.py, worst case (quadratic tree edit distance)
    seconds_growth_per_1k_chars = 0.0014  # benchmarks/space.py, calibration
    scale = 1.0
    higher_is_better = True
    languages = covering("tsed")
    runs_code = False

    def __init__(
        self, lang: Any = DEFAULT_LANGUAGE, weights: Any = DEFAULT_WEIGHTS, tree: str = "sexp"
    ) -> None:
        self.lang = resolve_tsed_language(lang)
        self.weights = _check_weights(weights)
        self._read = _reader(tree)
        self.tree = tree
        options: dict[str, Any] = {"lang": self.lang, "weights": self.weights,
                                   "grammars": f"{GRAMMAR_PACK}=={GRAMMAR_PACK_VERSION}"}
        if tree != "sexp":
            options["tree"] = tree
        super().__init__(**options)

    def trees(self, codes: Sequence[str]) -> list[tuple[Tree, int]]:
        """The (tree, size) of each code string (by default as the package reads them)."""
        return [self._read(code, self.lang) for code in codes]

    def item_values(self, predictions: list[str], references: list[list[str]]) -> np.ndarray:
        from ..core.parsing import shared, sharing

        parsed: dict[str, tuple[Tree, int]] = {}  # a text repeated in the call is parsed once
        read = self._read
        # in an evaluation, a text's tree serves every system (the grammar pack's parse is
        # TSED's own: the other metrics read the library's grammars)
        kind = ("tsed-tree", self.tree, self.lang)

        def tree(code: str) -> tuple[Tree, int]:
            found = parsed.get(code)
            if found is None:
                found = parsed[code] = (shared((*kind, code), lambda: read(code, self.lang))
                                        if sharing() else read(code, self.lang))
            return found

        values = np.empty(len(predictions), dtype=np.float64)
        for index, (prediction, refs) in enumerate(zip(predictions, references, strict=True)):
            try:
                origin = tree(prediction)
                values[index] = max(tsed_similarity(origin, tree(ref), self.weights)
                                    for ref in refs)
            except ItemError:
                raise
            except ValueError as error:  # nested too deep, trees too large: name the item
                raise ItemError(index, str(error)) from None
        return values


def compute_tsed(
    predictions: Any,
    references: Any,
    lang: Any = None,
    language: Any = None,
    deletion_weight: Any = DEFAULT_WEIGHTS[0],
    insertion_weight: Any = DEFAULT_WEIGHTS[1],
    rename_weight: Any = DEFAULT_WEIGHTS[2],
    return_per_sample: bool = True,
    tree: str = "sexp",
) -> dict:
    """The ``tsed`` evaluate module's result: :class:`TsedMetric`'s (``Metric.compute``) in
    the ``tsed`` Space's call and keys (``language``, the three weights; ``{"tsed",
    "tsed_scores"}``), ``lang`` as an alias."""
    from ..core.inputs import check_flag

    return_per_sample = check_flag(return_per_sample, "return_per_sample")
    if lang is not None and language is not None and (
        resolve_tsed_language(lang) != resolve_tsed_language(language)
    ):
        raise ValueError(f"`lang`={lang!r} and `language`={language!r} disagree; give one.")
    chosen = lang if lang is not None else language if language is not None else DEFAULT_LANGUAGE
    metric = TsedMetric(lang=chosen, weights=(deletion_weight, insertion_weight, rename_weight),
                        tree=tree)
    scored = metric.compute(predictions, references, per_item=return_per_sample)
    result: dict[str, Any] = {"tsed": scored["score"]}
    if return_per_sample:
        result["tsed_scores"] = scored["per_item"]
    result["signature"] = scored["signature"]
    return result
