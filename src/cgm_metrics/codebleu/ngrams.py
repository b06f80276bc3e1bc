"""The two n-gram components as per-item sufficient statistics.

``ngram_match``: corpus BLEU-4 (NLTK's, as the package copies it): clipped counts with the
maximum over references, denominators floored at 1 per item, closest reference length (ties
to the shorter). ``weighted_ngram_match``: the package's *recall* variant: reference counts
clipped by the hypothesis, unigrams weighted (keyword 1, other tokens 0.2), numerators and
denominators summed over references, and a brevity penalty whose "reference length" is
always 2 (the package measures the length of a [tokens, weights] pair).
"""

from __future__ import annotations

from collections import Counter

ORDER = 4
KEYWORD_WEIGHT = 1.0
OTHER_WEIGHT = 0.2


def _ngrams(tokens: list[str], n: int) -> Counter:
    if len(tokens) < n:
        return Counter()
    if n == 1:
        return Counter(tokens)
    return Counter(zip(*(tokens[i:] for i in range(n)), strict=False))


def bleu_row(hypothesis: list[str], references: list[list[str]]) -> list[float]:
    """[clipped_1..4, total_1..4, hypothesis length, closest reference length]."""
    numerators, denominators = [], []
    reference_counts = [[_ngrams(ref, n) for n in range(1, ORDER + 1)] for ref in references]
    for n in range(1, ORDER + 1):
        counts = _ngrams(hypothesis, n)
        clipped = 0
        for gram, count in counts.items():
            best = max(ref_counts[n - 1][gram] for ref_counts in reference_counts)
            clipped += min(count, best)
        numerators.append(float(clipped))
        denominators.append(float(max(1, sum(counts.values()))))
    length = len(hypothesis)
    closest = min((len(ref) for ref in references), key=lambda r: (abs(r - length), r))
    return numerators + denominators + [float(length), float(closest)]


def weighted_row(
    hypothesis: list[str], references: list[list[str]], keywords: frozenset[str]
) -> list[float]:
    """[weighted recall numerators 1..4, denominators 1..4, pseudo reference length 2]."""
    numerators = [0.0] * ORDER
    denominators = [0.0] * ORDER
    hypothesis_counts = [_ngrams(hypothesis, n) for n in range(1, ORDER + 1)]
    for reference in references:
        for n in range(1, ORDER + 1):
            ref_counts = _ngrams(reference, n)
            counts = hypothesis_counts[n - 1]
            if n == 1:
                matched = 0.0
                total = 0.0
                for token, count in ref_counts.items():
                    weight = KEYWORD_WEIGHT if token in keywords else OTHER_WEIGHT
                    matched += min(count, counts[token]) * weight
                    total += count * weight
                numerators[0] += matched
                denominators[0] += max(1, total)
            else:
                numerators[n - 1] += sum(min(c, counts[g]) for g, c in ref_counts.items())
                denominators[n - 1] += max(1, sum(ref_counts.values()))
    return numerators + denominators + [2.0]
