"""The two n-gram components as per-item sufficient statistics.

``ngram_match``: corpus BLEU-4 (NLTK's, as the package copies it): clipped counts with the
maximum over references, denominators floored at 1 per item, closest reference length (ties
to the shorter). ``weighted_ngram_match``: the package's *recall* variant: reference counts
clipped by the hypothesis, unigrams weighted (keyword 1, other tokens 0.2), numerators and
denominators summed over references, and a brevity penalty whose "reference length" is
always 2 (the package measures the length of a [tokens, weights] pair).

The n-gram counts of each snippet are built once and shared by both components.
"""

from __future__ import annotations

from collections import Counter

ORDER = 4
KEYWORD_WEIGHT = 1.0
OTHER_WEIGHT = 0.2


def ngram_counts(tokens: list[str]) -> list[Counter]:
    """Counts of the 1- to 4-grams of ``tokens``."""
    counts = [Counter(tokens)]
    for n in range(2, ORDER + 1):
        counts.append(Counter(zip(*(tokens[i:] for i in range(n)), strict=False)))
    return counts


def _overlap(first: Counter, second: Counter) -> int:
    """Sum over n-grams of min(first count, second count)."""
    if len(second) < len(first):
        first, second = second, first
    total = 0
    for gram, count in first.items():
        other = second.get(gram)
        if other:
            total += count if count < other else other
    return total


def ngram_rows(
    hypothesis: list[str], references: list[list[str]], keywords: frozenset[str]
) -> list[float]:
    """[BLEU clipped 1..4, totals 1..4, hypothesis length, closest reference length,
    weighted recall numerators 1..4, denominators 1..4, pseudo reference length 2]."""
    hyp = ngram_counts(hypothesis)
    refs = [ngram_counts(ref) for ref in references]
    bleu_clipped, bleu_total = [], []
    recall_clipped = [0.0] * ORDER
    recall_total = [0.0] * ORDER
    for n in range(ORDER):
        counts = hyp[n]
        if len(refs) == 1:
            best = refs[0][n]
        else:
            best = Counter()
            for ref in refs:
                best |= ref[n]
        bleu_clipped.append(float(_overlap(counts, best)))
        bleu_total.append(float(max(1, sum(counts.values()))))
    unigrams = hyp[0]
    for ref in refs:
        # unigrams: weighted, summed in the reference's token order as the package does
        matched = 0.0
        total = 0.0
        for token, count in ref[0].items():
            weight = KEYWORD_WEIGHT if token in keywords else OTHER_WEIGHT
            matched += min(count, unigrams[token]) * weight
            total += count * weight
        recall_clipped[0] += matched
        recall_total[0] += max(1, total)
        for n in range(1, ORDER):
            # with one reference the clipped count is the BLEU one (min is symmetric)
            matched_n = bleu_clipped[n] if len(refs) == 1 else _overlap(ref[n], hyp[n])
            recall_clipped[n] += matched_n
            recall_total[n] += max(1, sum(ref[n].values()))
    length = len(hypothesis)
    closest = min((len(ref) for ref in references), key=lambda r: (abs(r - length), r))
    return (
        bleu_clipped
        + bleu_total
        + [float(length), float(closest)]
        + recall_clipped
        + recall_total
        + [2.0]
    )
