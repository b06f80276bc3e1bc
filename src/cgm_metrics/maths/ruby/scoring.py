"""RUBY (Tran et al., 2019): graph, then tree, then string similarity, whichever builds first.

For one prediction ``C`` and reference ``R``:

* graph: GRS = 1 - GED(PDG_R, PDG_C) / (|V_R| + |E_R| + |V_C| + |E_C|), with expression-level
  program dependence graphs (:func:`.pdg.program_graph`: operations and operands as nodes;
  control, operand and def-use data edges) and bipartite graph edit distance (:mod:`.ged`, an
  upper bound on the exact distance), relabelling priced as a deletion plus an insertion;
* tree: TRS = 1 - TED(T_R, T_C) / (|T_R| + |T_C|), exact tree edit distance (:mod:`.ted`)
  over the tree-sitter AST (:mod:`.syntax`), relabelling priced as a deletion plus an
  insertion;
* string: STS = 1 - SED / max(len_R, len_C), token Levenshtein over the TranX code tokens;
  1.0 when both are empty.

The levels are not mixed: an item uses the first level that both snippets support.
"""

from __future__ import annotations

from dataclasses import dataclass

from rapidfuzz.distance import Levenshtein

from ...core.parsing import ParsedCode, parse, shared, shared_work, sharing
from ...core.tokenizers import code_tokens
from ...languages import DEFAULT_LANGUAGE, resolve_language
from ...languages.parts import LanguageSpec
from .ged import graph_similarity
from .pdg import ProgramGraph, program_graph
from .syntax import syntax_tree
from .ted import Tree, edit_cells, tree_similarity

LEVELS = ("graph", "tree", "string")

# Size limits: above them an item falls back to the next level (reported in its level).
MAX_GRAPH_NODES = 1500  # program-graph nodes per snippet for the graph level
MAX_GRAPH_EDGES = 4 * MAX_GRAPH_NODES  # and edges (typical code has 1-2 per node)
MAX_TREE_NODES = 3000  # AST nodes per snippet for the tree level
MAX_TREE_CELLS = 40_000_000  # work of one tree edit distance (product of decomposition cells)
SHARED_BLOCK = 1024  # items whose snippets are kept together when no evaluation shares them


def check_level(level: object) -> str | None:
    if level is None or level in LEVELS:
        return level  # type: ignore[return-value]
    raise ValueError(
        f"`level` must be None (graph, then tree, then string) or one of {', '.join(LEVELS)}; "
        f"got {level!r}."
    )


def _accepts(language: LanguageSpec, code: str) -> bool:
    """The language's own parser agrees, where its module has one (Python's ``ast.parse``,
    as the published pipeline's)."""
    from ...languages import find

    found = find(language.name)
    return found is None or found.accepts is None or found.accepts(code)


@dataclass
class _Snippet:
    """One snippet, with the representations of each level it supports (built lazily)."""

    code: str
    language: LanguageSpec
    start: str  # the first level to try

    def __post_init__(self) -> None:
        self._parsed: ParsedCode | None = None
        self._tokens: list[str] | None = None
        self._tree: Tree | None | bool = False
        self._graph: ProgramGraph | None | bool = False
        self._parsable: bool | None = None

    @property
    def tokens(self) -> list[str]:
        if self._tokens is None:
            self._tokens = code_tokens(self.code)
        return self._tokens

    @property
    def parsable(self) -> bool:
        if self._parsable is None:
            self._parsed = parse(self.code, self.language)
            ok = not self._parsed.has_error
            ok = ok and self._parsed.root.descendant_count <= 2 * MAX_TREE_NODES + 2
            ok = ok and _accepts(self.language, self.code)
            self._parsable = ok
        return self._parsable

    @property
    def tree(self) -> Tree | None:
        if self._tree is False:
            self._tree = None
            if self.start != "string" and self.parsable:
                tree = syntax_tree(self._parsed)
                if len(tree) <= MAX_TREE_NODES:
                    self._tree = tree
        return self._tree  # type: ignore[return-value]

    @property
    def graph(self) -> ProgramGraph | None:
        if self._graph is False:
            self._graph = None
            if self.start == "graph" and self.parsable:
                self._graph = program_graph(self._parsed, MAX_GRAPH_NODES, MAX_GRAPH_EDGES)
        return self._graph  # type: ignore[return-value]


def string_similarity(prediction_tokens: list[str], reference_tokens: list[str]) -> float:
    """STS = 1 - Levenshtein(tokens) / max(len); 1.0 when both are empty."""
    longest = max(len(prediction_tokens), len(reference_tokens))
    if longest == 0:
        return 1.0
    return 1.0 - Levenshtein.distance(prediction_tokens, reference_tokens) / longest


def _pair(prediction: _Snippet, reference: _Snippet) -> tuple[float, str]:
    if prediction.graph is not None and reference.graph is not None:
        return graph_similarity(reference.graph, prediction.graph), "graph"
    if (
        prediction.tree is not None
        and reference.tree is not None
        and edit_cells(prediction.tree, reference.tree) <= MAX_TREE_CELLS
    ):
        return tree_similarity(reference.tree, prediction.tree), "tree"
    return string_similarity(prediction.tokens, reference.tokens), "string"


def ruby_items(
    predictions: list[str],
    references: list[list[str]],
    lang: str | LanguageSpec = DEFAULT_LANGUAGE,
    level: str | None = None,
) -> tuple[list[float], list[str]]:
    """Per-item RUBY (maximum over references) and the level that gave it.

    Inputs are validated lists (see :func:`cgm_metrics.core.inputs.check_inputs`). ``level`` is the
    first level tried (default ``"graph"``); an item whose snippets do not support it, or
    exceed its size limit, falls back to the next level and reports the level it used.
    """
    spec = lang if isinstance(lang, LanguageSpec) else resolve_language(lang)
    start = check_level(level) or "graph"
    scores: list[float] = []
    levels: list[str] = []
    if not sharing():  # a call of its own: share within blocks of items (bounded memory)
        for first in range(0, len(predictions), SHARED_BLOCK):
            with shared_work():
                part = ruby_items(predictions[first:first + SHARED_BLOCK],
                                  references[first:first + SHARED_BLOCK], spec, start)
            scores += part[0]
            levels += part[1]
        return scores, levels

    def snippet(code: str) -> _Snippet:
        # every text's parse, tree and graph once per block: a reference serves every system
        return shared(("ruby-snippet", spec.name, start, code), lambda: _Snippet(code, spec, start))

    for prediction, refs in zip(predictions, references, strict=True):
        candidate = snippet(prediction)
        best: tuple[float, str] | None = None
        for reference in refs:
            result = _pair(candidate, snippet(reference))
            if best is None or result[0] > best[0]:
                best = result
        assert best is not None  # check_inputs guarantees at least one reference
        scores.append(float(best[0]))
        levels.append(best[1])
    return scores, levels


def ruby(prediction: str, reference: str, lang: str = DEFAULT_LANGUAGE, level: str | None = None):
    """``(score, level)`` for one pair, as the published ``ruby(hypothesis, reference)``.

    >>> ruby("x = a + b", "x = a + b")
    (1.0, 'graph')
    >>> ruby("x = (a", "x = a")[1]
    'string'
    """
    scores, levels = ruby_items([prediction], [[reference]], lang, level)
    return scores[0], levels[0]
