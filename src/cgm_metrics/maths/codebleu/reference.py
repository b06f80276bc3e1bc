"""The pure-Python statistics engine: the specification the compiled engine is tested against.

Per item: the n-gram statistics of the stripped texts (``ngrams.py``), then, after comment
removal (``preprocess.py``), each distinct snippet parsed and flattened once (``tree.py``) for
its subtree keys and its dataflow graph (``dataflow.py``). It runs where the compiled library
is not available (no C compiler at install time), with ``CGM_CODEBLEU_ENGINE=python``, and
for a custom ``tokenizer`` (a Python callable) in its n-gram part.
"""

from __future__ import annotations

import time
from array import array

from .dataflow import data_flow, match_count, normalize
from .ngrams import ngram_rows
from .options import CodeBleuOptions
from .preprocess import remove_comments
from .score import DATAFLOW_MATCH, DATAFLOW_TOTAL, N_COLUMNS, SYNTAX_MATCH, SYNTAX_TOTAL
from .tree import flatten, subtree_keys


def ngram_statistics(
    options: CodeBleuOptions, hypothesis: str, references: list[str], rows: array, base: int
) -> None:
    """Columns 0-18 of one item's row (at ``rows[base:]``) from its stripped texts."""
    tokenize = options.tokenize
    rows[base : base + 19] = array("d", ngram_rows(
        tokenize(hypothesis), [tokenize(ref) for ref in references], options.keywords
    ))


def statistics(
    options: CodeBleuOptions,
    predictions: list[str],
    references: list[list[str]],
    rows: array,
    spent: dict[str, float],
) -> None:
    """Fills ``rows`` (``N_COLUMNS`` a row, item after item) for every item."""
    clock = time.process_time
    interned: dict = {}
    for item, (prediction, refs) in enumerate(zip(predictions, references, strict=True)):
        start = clock()
        hypothesis = prediction.strip()
        stripped = [ref.strip() for ref in refs]
        ngram_statistics(options, hypothesis, stripped, rows, item * N_COLUMNS)
        spent["ngrams"] += clock() - start
        _structure(options, hypothesis, stripped, rows, item * N_COLUMNS, interned, spent)


def _structure(
    options: CodeBleuOptions,
    hypothesis: str,
    references: list[str],
    rows: array,
    base: int,
    interned: dict,
    spent: dict[str, float],
) -> None:
    """Syntax and dataflow statistics of one item; each distinct text is parsed once."""
    clock = time.process_time
    style = options.comment_style
    cache: dict[str, tuple] = {}

    def analysed(text: str) -> tuple:
        found = cache.get(text)
        if found is None:
            start = clock()
            tree = flatten(text, options.spec)
            parsed = clock()
            keys = subtree_keys(tree, interned)
            keyed = clock()
            flow = normalize(data_flow(tree, options.rules, options.set_order))
            spent["parse"] += parsed - start
            spent["syntax"] += keyed - parsed
            spent["dataflow"] += clock() - keyed
            found = cache[text] = (keys, flow)
        return found

    candidate = hypothesis
    syntax_match = syntax_total = flow_match = flow_total = 0
    for reference in references:
        start = clock()
        # the package strips the candidate again for every reference (cumulatively)
        candidate = remove_comments(candidate, style)
        cleaned = remove_comments(reference, style)
        spent["comments"] += clock() - start
        cand_keys, cand_flow = analysed(candidate)
        ref_keys, ref_flow = analysed(cleaned)
        cand_set = set(cand_keys)
        syntax_match += sum(1 for key in ref_keys if key in cand_set)
        syntax_total += len(ref_keys)
        if ref_flow:
            flow_total += len(ref_flow)
            flow_match += match_count(cand_flow, ref_flow)
    rows[base + SYNTAX_MATCH] = syntax_match
    rows[base + SYNTAX_TOTAL] = syntax_total
    rows[base + DATAFLOW_MATCH] = flow_match
    rows[base + DATAFLOW_TOTAL] = flow_total
