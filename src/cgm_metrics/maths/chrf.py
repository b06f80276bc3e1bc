"""chrF and chrF++ on sufficient statistics, equal to sacrebleu's ``CHRF``, with code options.

Statistics (``average="corpus"``): one row per item of ``3 * (char_order + word_order)``
counts, laid out as sacrebleu lays them out: for every character order 1..char_order and then
every word order 1..word_order, ``[hypothesis n-grams, reference n-grams, matches]``. With
several references an item keeps the row of the reference with the best sentence chrF (the
first one on ties), as sacrebleu does. The corpus score is the chrF of the summed rows; the
score of one row is the item's sentence chrF.

Statistics (``average="sentence"``): rows ``[sentence chrF, 1]``, so the score of summed rows
(any resample of rows, too) is the mean of sentence chrF: the "ChrF" of Out of the BLEU.

Why it is faster than sacrebleu while counting the same n-grams:

- the n-grams of all character orders of a string go into ONE ``Counter`` in one C-level pass
  (``map(text.__getitem__, slices)`` over slice objects built once per call; n-grams of
  different orders are strings of different lengths, so they never collide);
- matches are counted without a Python loop: the common n-grams come from a C-level key-view
  intersection, their counts from ``map(dict.__getitem__)``, and ``numpy`` takes the minima
  and sums them per order (``bincount`` over the n-gram lengths);
- n-gram totals are arithmetic (``len - n + 1``), not counted;
- a reference is extracted once however many times it is compared, and the statistics serve
  corpus and sentence scores alike (sacrebleu extracts everything again for each
  ``sentence_score``);
- scores are computed with numpy over all rows at once, in sacrebleu's order of floating
  point operations, so that the selection of the best reference and every score agree.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from typing import Any

import numpy as np

from ..core.inputs import check_flag
from ..core.text import normalize_identifiers as _normalize_identifiers
from ..core.text import strip_comments as _strip_comments
from ..languages import resolve_language
from ..pipeline.metric import Metric, MetricFlag

_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_EPS = 1e-16
_AVERAGES = ("corpus", "sentence")
_CHUNK_CHARS = 1 << 21  # characters per sort in _char_matches
_SLICE_LIMIT = 100_000  # longest string whose n-grams come from the shared slice list


def _positive_int(value: Any, argument: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"`{argument}` must be an integer >= {minimum}, got {value!r}.")
    return int(value)


class _CharSlices:
    """Slice objects of every character n-gram (orders 1..order), ordered by end position.

    The n-grams of a string of length ``L`` are exactly the first ``count(L)`` slices, so one
    list built for the longest string of a call serves every string of it.
    """

    def __init__(self, order: int) -> None:
        self.order = order
        self.slices: list[slice] = []
        self.counts = [0]  # counts[L]: number of n-grams of a string of length L

    def grow(self, length: int) -> None:
        order, counts = self.order, self.counts
        for end in range(len(counts), length + 1):
            self.slices.extend(slice(end - n, end) for n in range(1, min(order, end) + 1))
            counts.append(counts[-1] + min(order, end))

    def ngrams(self, text: str) -> Counter:
        length = len(text)
        if length > _SLICE_LIMIT:  # a huge snippet: no slice list of that size
            return Counter(
                text[i : i + n] for n in range(1, self.order + 1) for i in range(length - n + 1)
            )
        if length >= len(self.counts):
            self.grow(length)
        return Counter(map(text.__getitem__, self.slices[: self.counts[length]]))


def _ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Concatenated ``arange(start, start + length)`` for every pair of the arguments."""
    ends = np.cumsum(lengths)
    return np.repeat(starts - ends + lengths, lengths) + np.arange(ends[-1] if len(ends) else 0)


def _windows(texts: list[str], lookup: np.ndarray, order: int, bits: int) -> np.ndarray:
    """For every character of every text, the codes of it and the next ``order - 1``.

    Character codes are 1..A (``lookup`` maps code points to them) packed ``bits`` apiece,
    first character highest; positions past the end of a text hold the sentinel 0, so the
    prefix of ``n`` characters of a window is the n-gram starting there (when it has no 0).
    """
    lengths = np.fromiter(map(len, texts), np.int64, len(texts))
    codes = np.frombuffer("".join(texts).encode("utf-32-le", "surrogatepass"), np.uint32)
    dest = np.arange(codes.size) + (order - 1) * np.repeat(np.arange(len(texts)), lengths)
    padded = np.zeros(codes.size + (order - 1) * (len(texts) + 1), dtype=np.int64)
    padded[dest] = lookup[codes]
    size = padded.size - order + 1
    windows = padded[:size] << ((order - 1) * bits)
    for k in range(1, order):
        windows |= padded[k : k + size] << ((order - 1 - k) * bits)
    return windows[dest]


@cache
def _compiled_matches() -> Any:
    """The compiled matcher (csrc/chrf.c), or None (then the numpy one below runs)."""
    import ctypes

    from ..base.native import library

    lib = library()
    function = getattr(lib, "cgm_chrf_char_matches", None) if lib is not None else None
    if function is None:
        return None
    pointer, count = ctypes.c_void_p, ctypes.c_int64
    function.argtypes = [pointer] * 7 + [count, ctypes.c_int32, pointer]
    function.restype = ctypes.c_int
    return function


def _char_matches(hyps: list[str], refs: list[str], owners: np.ndarray, order: int) -> np.ndarray:
    """Matched character n-grams ``[n_pairs, order]`` of every (hypothesis, reference) pair.

    ``refs[p]`` is compared with ``hyps[owners[p]]``; a match count is the sum over n-grams
    of the smaller of the two counts (sacrebleu's clipped matches). Vectorised: every
    n-gram start becomes an int64 key ``pair | window | side``; ONE sort of the keys of a
    chunk of pairs groups equal n-grams of every order at once (the n-grams of order n are
    the groups of equal top bits), and each group contributes ``min(hyp count, ref count)``.
    Alphabets too large to pack fall back to counting with ``Counter``.
    """
    n_pairs = len(refs)
    matches = np.zeros((n_pairs, order), dtype=np.float64)
    hyp_all = np.frombuffer("".join(hyps).encode("utf-32-le", "surrogatepass"), np.uint32)
    ref_all = np.frombuffer("".join(refs).encode("utf-32-le", "surrogatepass"), np.uint32)
    if hyp_all.size == 0 or ref_all.size == 0:
        return matches
    kernel = _compiled_matches()
    if kernel is not None:
        hyp_lengths = np.fromiter(map(len, hyps), np.int64, len(hyps))
        ref_lengths = np.fromiter(map(len, refs), np.int64, len(refs))
        owners = np.ascontiguousarray(owners, dtype=np.int64)
        arrays = (hyp_all, np.cumsum(hyp_lengths) - hyp_lengths, hyp_lengths, ref_all,
                  np.cumsum(ref_lengths) - ref_lengths, ref_lengths, owners)
        if kernel(*(a.ctypes.data for a in arrays), n_pairs, order, matches.ctypes.data) != 0:
            raise MemoryError("chrF's compiled n-gram matcher ran out of memory")
        return matches
    top = int(max(hyp_all.max(), ref_all.max()))
    present = np.zeros(top + 1, dtype=bool)
    present[hyp_all] = True
    present[ref_all] = True
    alphabet = int(present.sum())
    bits = alphabet.bit_length()
    pair_bits = 63 - 1 - order * bits
    if pair_bits < 8:  # fewer than 256 pairs per sort: count with Counter instead
        return _char_matches_counter(hyps, refs, owners, order)
    lookup = np.zeros(top + 1, dtype=np.int64)
    lookup[present] = np.arange(1, alphabet + 1)
    hyp_lengths = np.fromiter(map(len, hyps), np.int64, len(hyps))
    ref_lengths = np.fromiter(map(len, refs), np.int64, len(refs))
    hyp_starts = np.cumsum(hyp_lengths) - hyp_lengths
    ref_starts = np.cumsum(ref_lengths) - ref_lengths
    hyp_windows = _windows(hyps, lookup, order, bits)
    ref_windows = _windows(refs, lookup, order, bits)
    pair_chars = np.cumsum(hyp_lengths[owners] + ref_lengths)
    char_mask = (1 << bits) - 1
    first = 0
    while first < n_pairs:
        # a chunk: at most 2**pair_bits pairs and about _CHUNK_CHARS characters
        done = pair_chars[first - 1] if first else 0
        last = int(np.searchsorted(pair_chars, done + _CHUNK_CHARS, side="right"))
        last = min(max(last, first + 1), first + (1 << pair_bits), n_pairs)
        local = np.arange(last - first, dtype=np.int64) << (order * bits)
        h_len, r_len = hyp_lengths[owners[first:last]], ref_lengths[first:last]
        hyp_keys = (
            np.repeat(local, h_len) | hyp_windows[_ranges(hyp_starts[owners[first:last]], h_len)]
        )
        ref_keys = np.repeat(local, r_len) | ref_windows[_ranges(ref_starts[first:last], r_len)]
        keys = np.concatenate([hyp_keys << 1, (ref_keys << 1) | 1])
        keys.sort()
        size = keys.size
        refs_before = np.zeros(size + 1, dtype=np.int64)  # reference n-grams before index i
        np.cumsum(keys & 1, out=refs_before[1:])
        # groups of equal windows (order n = order), then ever shorter prefixes: the groups of
        # order n are unions of adjacent groups of order n + 1, so only their heads are compared
        heads = keys >> 1
        is_first = np.empty(size, dtype=bool)
        is_first[0] = True
        np.not_equal(heads[1:], heads[:-1], out=is_first[1:])
        group = np.flatnonzero(is_first)
        heads = heads[group]
        for n in range(order, 0, -1):
            if n < order:
                heads >>= bits
                is_first = np.empty(heads.size, dtype=bool)
                is_first[0] = True
                np.not_equal(heads[1:], heads[:-1], out=is_first[1:])
                kept = np.flatnonzero(is_first)
                group, heads = group[kept], heads[kept]
            ends = np.empty_like(group)
            ends[:-1] = group[1:]
            ends[-1] = size
            ref_count = refs_before[ends] - refs_before[group]
            clipped = np.minimum(ends - group - ref_count, ref_count)
            keep = (clipped > 0) & ((heads & char_mask) != 0)
            matches[first:last, n - 1] = np.bincount(
                heads[keep] >> (n * bits), clipped[keep], last - first
            )
        first = last
    return matches


def _char_matches_counter(
    hyps: list[str], refs: list[str], owners: np.ndarray, order: int
) -> np.ndarray:
    """:func:`_char_matches` with one ``Counter`` of all orders per string (any alphabet)."""
    slices = _CharSlices(order)
    hyp_ngrams = [slices.ngrams(text) for text in hyps]
    matches = np.zeros((len(refs), order), dtype=np.float64)
    for row, (owner, ref) in enumerate(zip(owners.tolist(), refs, strict=True)):
        hyp, ref_ngrams = hyp_ngrams[owner], slices.ngrams(ref)
        common = hyp.keys() & ref_ngrams.keys()
        if common:
            size = len(common)
            hyp_counts = np.fromiter(map(hyp.__getitem__, common), np.int64, size)
            ref_counts = np.fromiter(map(ref_ngrams.__getitem__, common), np.int64, size)
            lengths = np.fromiter(map(len, common), np.int64, size)
            matches[row] = np.bincount(lengths, np.minimum(hyp_counts, ref_counts), order + 1)[1:]
    return matches


class ChrfCodeMetric(Metric):
    """chrF / chrF++ (sacrebleu's ``CHRF``), optionally on comment-free or renamed code.

    Options: ``char_order`` (6), ``word_order`` (0; 2 gives chrF++), ``beta`` (2),
    ``lowercase``, ``whitespace`` (keep whitespace in character n-grams), ``eps_smoothing``
    (chrF++.py / NLTK smoothing instead of sacrebleu's effective order), ``average``
    ("corpus" or "sentence"), and the code options ``strip_comments`` and
    ``normalize_identifiers``, which need ``lang`` and transform predictions and references
    before counting.
    """

    name = "chrf_code"
    display_name = "chrF"
    description = ("F-score (recall weighted twice, beta=2) of character 1-6-grams, 0-100, "
                   "identical to sacrebleu's chrF. In Out of the BLEU it agreed with "
                   "programmers' judgements better than BLEU and CodeBLEU.")
    scale = 100.0
    seconds_per_1k_chars = 0.0099  # benchmarks/metric_cost.py, worst case
    cli_flags = (
        MetricFlag("char_order", "chrF character n-gram order (default: 6)", kind="int",
                   flag="--chrf-char-order"),
        MetricFlag("word_order", "chrF word n-gram order (default: 0; 2 gives chrF++)",
                   kind="int", flag="--chrf-word-order"),
        MetricFlag("beta", "chrF beta: recall is beta times as important as precision "
                   "(default: 2)", kind="number", flag="--chrf-beta"),
    )

    def __init__(
        self,
        char_order: int = 6,
        word_order: int = 0,
        beta: int = 2,
        lowercase: bool = False,
        whitespace: bool = False,
        eps_smoothing: bool = False,
        average: str = "corpus",
        lang: str | None = None,
        strip_comments: bool = False,
        normalize_identifiers: bool = False,
    ) -> None:
        self.char_order = _positive_int(char_order, "char_order", 0)
        self.word_order = _positive_int(word_order, "word_order", 0)
        if self.char_order + self.word_order == 0:
            raise ValueError("`char_order` and `word_order` cannot both be 0.")
        if isinstance(beta, bool) or not isinstance(beta, (int, float, np.integer, np.floating)):
            raise ValueError(f"`beta` must be a positive number, got {beta!r}.")
        if not beta > 0:
            raise ValueError(f"`beta` must be a positive number, got {beta!r}.")
        self.beta = beta
        self.lowercase = check_flag(lowercase, "lowercase")
        self.whitespace = check_flag(whitespace, "whitespace")
        self.eps_smoothing = check_flag(eps_smoothing, "eps_smoothing")
        if average not in _AVERAGES:
            raise ValueError(f"`average` must be 'corpus' or 'sentence', got {average!r}.")
        self.average = average
        self.strip_comments = check_flag(strip_comments, "strip_comments")
        self.normalize_identifiers = check_flag(normalize_identifiers, "normalize_identifiers")
        self.language = None if lang is None else resolve_language(lang)
        if self.language is None and (self.strip_comments or self.normalize_identifiers):
            raise ValueError(
                "`strip_comments` and `normalize_identifiers` need `lang` (e.g. lang='python')."
            )
        self.order = self.char_order + self.word_order
        options = {
            "char_order": self.char_order,
            "word_order": self.word_order,
            "beta": beta,
            "lowercase": self.lowercase,
            "whitespace": self.whitespace,
            "eps_smoothing": self.eps_smoothing,
            "average": average,
        }
        if self.language is not None and (self.strip_comments or self.normalize_identifiers):
            options.update(
                lang=self.language.name,
                strip_comments=self.strip_comments,
                normalize_identifiers=self.normalize_identifiers,
            )
        super().__init__(**options)

    # -- statistics -------------------------------------------------------------------------

    def columns(self) -> tuple[str, ...]:
        if self.average == "sentence":
            return ("sentence_chrf", "count")
        names = []
        for kind, orders in (("char", self.char_order), ("word", self.word_order)):
            for n in range(1, orders + 1):
                names += [f"{kind}{n}_hyp", f"{kind}{n}_ref", f"{kind}{n}_match"]
        return tuple(names)

    def _transform(self, text: str) -> str:
        if self.strip_comments:
            text = _strip_comments(text, self.language)
        if self.normalize_identifiers:
            text = _normalize_identifiers(text, self.language)
        if self.lowercase:
            text = text.lower()
        return text

    def _words(self, text: str) -> list[str]:
        """sacrebleu's chrF++ word split: punctuation split off one end of each word."""
        words: list[str] = []
        for word in text.split():
            if len(word) == 1:
                words.append(word)
            elif word[-1] in _PUNCTUATION:
                words += [word[:-1], word[-1]]
            elif word[0] in _PUNCTUATION:
                words += [word[0], word[1:]]
            else:
                words.append(word)
        return words

    def count_statistics(self, predictions: list[str], references: list[list[str]]) -> np.ndarray:
        """The count rows ``[n_items, 3 * order]`` whatever ``average`` is."""
        hyps = [self._transform(text) for text in predictions]
        refs = [self._transform(text) for group in references for text in group]
        n_refs = [len(group) for group in references]
        owners = np.repeat(np.arange(len(hyps), dtype=np.int64), n_refs)
        rows = np.zeros((len(refs), 3 * self.order), dtype=np.float64)
        if self.char_order:
            if self.whitespace:
                hyp_chars, ref_chars = hyps, refs
            else:
                hyp_chars = ["".join(text.split()) for text in hyps]
                ref_chars = ["".join(text.split()) for text in refs]
            hyp_lengths = np.fromiter(map(len, hyp_chars), np.int64, len(hyp_chars))
            ref_lengths = np.fromiter(map(len, ref_chars), np.int64, len(ref_chars))
            orders = np.arange(1, self.char_order + 1)
            ref_totals = np.maximum(ref_lengths[:, None] - orders + 1, 0)
            hyp_totals = np.maximum(hyp_lengths[owners][:, None] - orders + 1, 0)
            rows[:, 0 : 3 * self.char_order : 3] = np.where(ref_totals > 0, hyp_totals, 0)
            rows[:, 1 : 3 * self.char_order : 3] = ref_totals
            rows[:, 2 : 3 * self.char_order : 3] = _char_matches(
                hyp_chars, ref_chars, owners, self.char_order
            )
        if self.word_order:
            self._word_statistics(hyps, refs, owners, rows)
        if len(refs) == len(hyps):
            return rows
        # several references: keep the row of the best sentence chrF, the first on ties
        scores = self.chrf_from_counts(rows)
        order = np.lexsort((np.arange(len(refs)), -scores, owners))
        starts = np.concatenate([[0], np.cumsum(n_refs)[:-1]]).astype(np.int64)
        return rows[order[starts]]

    def _word_statistics(
        self, hyps: list[str], refs: list[str], owners: np.ndarray, rows: np.ndarray
    ) -> None:
        """chrF++ word n-gram counts, in the columns after the character orders."""
        word_order = self.word_order

        def extract(text: str) -> list[Counter]:
            words = self._words(text)
            return [
                Counter([" ".join(words[i : i + n]) for i in range(len(words) - n + 1)])
                for n in range(1, word_order + 1)
            ]

        hyp_ngrams = [extract(text) for text in hyps]
        base = 3 * self.char_order
        for row, (owner, ref) in enumerate(zip(owners.tolist(), refs, strict=True)):
            for index, (h, r) in enumerate(zip(hyp_ngrams[owner], extract(ref), strict=True)):
                column = base + 3 * index
                rows[row, column] = sum(h.values()) if r else 0
                rows[row, column + 1] = sum(r.values())
                rows[row, column + 2] = sum(min(count, r[g]) for g, count in h.items() if g in r)

    def statistics(self, predictions: list[str], references: list[list[str]]) -> np.ndarray:
        counts = self.count_statistics(predictions, references)
        if self.average == "corpus":
            return counts
        return np.column_stack([self.chrf_from_counts(counts), np.ones(len(counts))])

    # -- scores -----------------------------------------------------------------------------

    def chrf_from_counts(self, stats: np.ndarray) -> np.ndarray:
        """chrF (0-100) of count rows ``(..., 3 * order)``, vectorised.

        The operations follow sacrebleu's ``_compute_f_score`` one by one (same order of
        additions and products), so results agree bit for bit in practice.
        """
        stats = np.asarray(stats, dtype=np.float64)
        factor = self.beta**2
        shape = stats.shape[:-1]
        score = np.zeros(shape)
        avg_prec = np.zeros(shape)
        avg_rec = np.zeros(shape)
        effective = np.zeros(shape)
        with np.errstate(divide="ignore", invalid="ignore"):
            for i in range(self.order):
                n_hyp, n_ref, n_match = (
                    stats[..., 3 * i],
                    stats[..., 3 * i + 1],
                    stats[..., 3 * i + 2],
                )
                prec = np.where(n_hyp > 0, n_match / n_hyp, _EPS)
                rec = np.where(n_ref > 0, n_match / n_ref, _EPS)
                denom = factor * prec + rec
                score = score + np.where(denom > 0, (1 + factor) * prec * rec / denom, _EPS)
                both = (n_hyp > 0) & (n_ref > 0)
                avg_prec = np.where(both, avg_prec + prec, avg_prec)
                avg_rec = np.where(both, avg_rec + rec, avg_rec)
                effective = effective + both
            if self.eps_smoothing:
                return 100 * score / self.order
            avg_prec = np.where(effective > 0, avg_prec / effective, 0.0)
            avg_rec = np.where(effective > 0, avg_rec / effective, 0.0)
            total = avg_prec + avg_rec
            value = (1 + factor) * avg_prec * avg_rec
            value = value / (factor * avg_prec + avg_rec)
            return np.where(total != 0, 100 * value, 0.0)

    def score_from_statistics(self, stats: np.ndarray) -> np.ndarray:
        stats = np.asarray(stats, dtype=np.float64)
        if self.average == "corpus":
            return self.chrf_from_counts(stats)
        count = stats[..., 1]
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(count > 0, stats[..., 0] / np.where(count > 0, count, 1), 0.0)
