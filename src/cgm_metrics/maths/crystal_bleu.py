"""CrystalBLEU (Eghbali and Pradel, ASE 2022): BLEU that ignores the n-grams every program
shares, equal to the ``crystalbleu`` package's ``corpus_bleu`` and ``sentence_bleu``.

Code shares many n-grams whatever it does (``( ) ;``, ``= 0 ;``, ``public static``), so
BLEU rates unrelated programs as similar. CrystalBLEU removes a list of *trivially shared*
n-grams (the k most frequent 1- to 4-grams of a corpus of the language, k = 500 in the
paper) from the hypothesis and reference counts before the modified precisions. The
lengths and so the brevity penalty are not filtered. With no list it is NLTK's BLEU.

Statistics: one row per item, ``[hyp_len, ref_len, matches_1..N, totals_1..N]`` as the
package counts them for one pair (n-grams clipped by the best reference, ``totals`` at least
1, ``ref_len`` the closest reference length, the shorter on ties). The package's corpus
score is its arithmetic on the summed rows, and a row alone is its ``sentence_bleu``, so
resampling rows resamples the corpus score (significance tests) and the per-item scores are
the package's sentence scores. Counting is vectorised: every n-gram of the call becomes an
integer code (one ``numpy.unique`` per order), the trivially shared ones are removed by code.
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np

from ..core.inputs import check_int
from ..core.tokenizers import leaf_tokens
from ..languages import DEFAULT_LANGUAGE, resolve_language
from ..pipeline.metric import Metric
from .classic.bleu import _exp, _log  # the C library's exp/log, bit for bit as math's

#: ``tokenize`` choices.
TOKENIZERS: tuple[str, ...] = ("code", "pygments", "none")
#: ``smoothing`` choices: NLTK's ``SmoothingFunction`` methods that depend on the summed
#: statistics only (methods 4 to 7 read the corpus's last pair or its length and are not
#: offered).
SMOOTHING: tuple[str, ...] = ("method0", "method1", "method2", "method3")
DEFAULT_WEIGHTS = (0.25, 0.25, 0.25, 0.25)
DEFAULT_K = 500
MAX_ORDER = 4
_CODE_LIMIT = 1 << 61  # n-gram codes and (segment, code) keys stay below this (one bit spare)

# -------------------------------------------------------------------------- tokens


_WARNED: set[str] = set()


def _warn_once(key: str, message: str, category: type[Warning], stacklevel: int) -> None:
    """A warning shown once per process, whoever calls (the Space's workers and a training
    loop build the metric many times)."""
    if key not in _WARNED:
        _WARNED.add(key)
        warnings.warn(message, category, stacklevel=stacklevel)


def _pygments_tokens(code: str, lang: str) -> list[str]:
    try:
        from pygments.lexers import get_lexer_by_name
        from pygments.token import Comment
    except ImportError:
        raise ImportError(
            "tokenize='pygments' needs Pygments: pip install Pygments (or use tokenize='code')."
        ) from None
    from ..languages import find

    language = find(lang)
    name = language.pygments if language is not None and language.pygments else lang
    lexer = get_lexer_by_name(name, stripnl=False, ensurenl=False)
    return [
        text for kind, text in lexer.get_tokens(code) if text.strip() and kind not in Comment
    ]


def tokenizer(tokenize: object, lang: str | None = DEFAULT_LANGUAGE) -> Callable[[str], list[str]]:
    """The function from code to tokens named by ``tokenize``:

    - ``"code"`` (default): the lexical tokens of ``lang`` from its tree-sitter grammar
      (identifiers, keywords, operators and literals as written, string literals whole,
      comments dropped);
    - ``"pygments"``: Pygments' lexer for ``lang`` with whitespace and comment tokens
      dropped, the tokens of the CrystalBLEU paper's experiments;
    - ``"none"`` (or None, as a command line's ``tokenize=none`` arrives): the text split on
      whitespace (pre-tokenized input, as sacrebleu names it).
    """
    if tokenize is None:
        tokenize = "none"
    if not isinstance(tokenize, str) or tokenize not in TOKENIZERS:
        raise ValueError(
            f"Unknown `tokenize` {tokenize!r} for crystal_bleu; choose one of "
            f"{', '.join(repr(t) for t in TOKENIZERS)} (default 'code': the tree-sitter tokens "
            "of `lang`; 'none': split on whitespace)."
        )
    if tokenize == "none":
        return str.split
    spec = resolve_language(lang)
    # partials of module functions: a metric holding one still pickles (worker processes)
    if tokenize == "pygments":
        return partial(_pygments_tokens, lang=spec.name)
    return partial(leaf_tokens, lang=spec.name)


# -------------------------------------------------------------- trivially shared n-grams


def trivially_shared_ngrams(
    corpus: Iterable[str | Sequence[str]],
    k: int = DEFAULT_K,
    max_order: int = MAX_ORDER,
    tokenize: str = "code",
    lang: str = DEFAULT_LANGUAGE,
) -> list[tuple[str, ...]]:
    """The ``k`` most frequent 1- to ``max_order``-grams of ``corpus``: CrystalBLEU's list of
    trivially shared n-grams (the package README's recipe, k = 500 in the paper).

    ``corpus`` is a list of documents (code strings tokenized with ``tokenize``/``lang``, or
    token lists); n-grams do not cross documents (the paper's scripts count per file; pass
    one concatenated document to count across files). Counting and ties follow
    ``collections.Counter.most_common``: equal counts keep the order in which the n-grams
    first appear (document by document, orders 1 to ``max_order``, left to right).

    >>> trivially_shared_ngrams(["x = 0 ;", "y = 0 ;"], k=3, tokenize="none")
    [('=',), ('0',), (';',)]
    """
    k = check_int(k, "k", 1, 10**9)
    max_order = check_int(max_order, "max_order", 1, 10)
    split = tokenizer(tokenize, lang)
    if isinstance(corpus, (str, bytes)):
        raise TypeError("`corpus` must be a list of documents (strings or token lists), not one "
                        "string; wrap it in a list: [text].")
    counts: Counter = Counter()
    for index, document in enumerate(corpus):
        if isinstance(document, str):
            tokens = split(document)
        elif isinstance(document, Sequence) and all(isinstance(t, str) for t in document):
            tokens = list(document)
        else:
            raise TypeError(f"`corpus[{index}]` must be a string or a list of token strings, got "
                            f"{type(document).__name__}.")
        for n in range(1, max_order + 1):
            counts.update(zip(*(tokens[i:] for i in range(n)), strict=False))
    return [ngram for ngram, _ in counts.most_common(k)]


def load_ngrams(path: str | Path) -> list[tuple[str, ...]]:
    """A list of n-grams from a JSON file holding a list of token lists."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"`trivially_shared` file {str(path)!r} does not exist.") from None
    except json.JSONDecodeError as error:
        raise ValueError(f"`trivially_shared` file {str(path)!r} is not JSON: {error}.") from None
    return check_ngrams(data)


def save_ngrams(ngrams: Iterable[Sequence[str]], path: str | Path) -> None:
    """Write n-grams as a JSON list of token lists (what ``trivially_shared=path`` reads)."""
    data = [list(ngram) for ngram in check_ngrams(list(ngrams))]
    Path(path).write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")


def check_ngrams(ngrams: Any) -> list[tuple[str, ...]]:
    """n-grams as tuples of strings (dict keys, sets, lists of lists or of tuples)."""
    if isinstance(ngrams, dict):
        ngrams = list(ngrams)
    if isinstance(ngrams, (str, bytes)) or not isinstance(ngrams, Iterable):
        raise TypeError(
            "`trivially_shared` must be a list of n-grams (tuples of tokens, e.g. "
            "[('(', ')'), (';',)]), a path to a JSON file of them, or None; got "
            f"{type(ngrams).__name__}. Compute one with trivially_shared_ngrams(corpus)."
        )
    result = []
    for index, ngram in enumerate(ngrams):
        if isinstance(ngram, str):
            raise TypeError(
                f"`trivially_shared[{index}]` is the string {ngram!r}; each n-gram must be a "
                f"tuple of tokens, e.g. ({ngram!r},) (the package silently ignores nothing for "
                "a string key)."
            )
        if not isinstance(ngram, Sequence) or not ngram or not all(
            isinstance(token, str) for token in ngram
        ):
            raise TypeError(
                f"`trivially_shared[{index}]` is {ngram!r}; each n-gram must be a non-empty "
                "tuple of token strings."
            )
        result.append(tuple(ngram))
    return result


def ngrams_digest(ngrams: Iterable[tuple[str, ...]]) -> str:
    """A short, order-independent hash of a set of n-grams (for the signature)."""
    canonical = json.dumps(sorted(set(ngrams)), ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


# -------------------------------------------------------------------------- counting


def ngram_statistics(
    hypotheses: list[list[str]],
    references: list[list[list[str]]],
    max_order: int,
    ignored: frozenset[tuple[str, ...]] = frozenset(),
) -> np.ndarray:
    """Rows ``[hyp_len, ref_len, matches_1..N, totals_1..N]`` of token lists, as the
    ``crystalbleu`` package's ``modified_precision`` counts every pair.

    Every n-gram of the call becomes an int64 code: tokens are numbered, and an n-gram's code
    is ``code of its (n-1)-gram * V + its last token``, renumbered densely (one
    ``numpy.unique``) only when the codes would overflow. The ignored n-grams are appended as
    extra segments, so they get codes too and are removed by code. Clipping uses the largest count in any one reference of the item.
    """
    n_items = len(hypotheses)
    n_refs = [len(group) for group in references]
    flat_refs = [ref for group in references for ref in group]
    owners = np.repeat(np.arange(n_items, dtype=np.int64), n_refs)
    ignored_list = sorted(ngram for ngram in ignored if len(ngram) <= max_order)
    segments = hypotheses + flat_refs + [list(ngram) for ngram in ignored_list]
    flat = list(chain.from_iterable(segments))
    # token codes 1..V in order of first appearance (C-level: dict.fromkeys, map)
    vocabulary = {token: code for code, token in enumerate(dict.fromkeys(flat), start=1)}
    ids = np.fromiter(map(vocabulary.__getitem__, flat), dtype=np.int64, count=len(flat))
    lengths = np.fromiter(map(len, segments), np.int64, len(segments))
    rows = np.zeros((n_items, 2 + 2 * max_order), dtype=np.float64)
    hyp_lengths = lengths[:n_items]
    ref_lengths = lengths[n_items : n_items + len(flat_refs)]
    rows[:, 0] = hyp_lengths
    rows[:, 1] = _closest_lengths(hyp_lengths, ref_lengths, owners, n_items)
    rows[:, 2 + max_order :] = 1.0  # the package's max(1, total)
    if ids.size == 0:
        return rows
    n_hyp_tokens = int(hyp_lengths.sum())
    n_ref_tokens = int(ref_lengths.sum())
    n_segments = len(segments)
    one_reference = len(flat_refs) == n_items
    segment = np.repeat(np.arange(n_segments, dtype=np.int64), lengths)
    ends = np.repeat(np.cumsum(lengths), lengths)
    positions = np.arange(ids.size, dtype=np.int64)
    first_of_ignored = (np.cumsum(lengths) - lengths)[n_items + len(flat_refs) :]
    ignored_orders = np.fromiter(map(len, ignored_list), np.int64, len(ignored_list))
    vocab = len(vocabulary) + 1
    codes = ids.copy()
    bound = vocab  # every code is below bound

    def renumber(values: np.ndarray) -> tuple[np.ndarray, int]:
        unique, inverse = np.unique(values, return_inverse=True)
        return inverse.ravel().astype(np.int64) + 1, unique.size + 1

    hyp_part = slice(0, n_hyp_tokens)
    ref_part = slice(n_hyp_tokens, n_hyp_tokens + n_ref_tokens)
    for order in range(1, max_order + 1):
        if order > 1:  # an n-gram's code: its (n-1)-gram's code and its last token
            if bound * vocab >= _CODE_LIMIT:
                codes, bound = renumber(codes)
            codes = codes * vocab + ids[np.minimum(positions + order - 1, ids.size - 1)]
            bound *= vocab
        if n_segments * bound >= _CODE_LIMIT:
            codes, bound = renumber(codes)
        keep = positions + order - 1 < ends
        dropped = np.unique(codes[first_of_ignored[ignored_orders == order]])
        if dropped.size:  # binary search in the few ignored codes
            found = np.minimum(np.searchsorted(dropped, codes), dropped.size - 1)
            keep &= dropped[found] != codes
        if one_reference:
            rows[:, 1 + order], totals = _one_reference_counts(
                codes, segment, keep, hyp_part, ref_part, n_items, bound)
            rows[:, 1 + max_order + order] = np.maximum(totals, 1.0)
            continue
        # hypothesis n-gram counts per (item, code)
        hyp_keep = keep[hyp_part]
        hyp_keys = segment[hyp_part][hyp_keep] * bound + codes[hyp_part][hyp_keep]
        hyp_unique, hyp_counts = np.unique(hyp_keys, return_counts=True)
        totals = np.bincount(hyp_unique // bound, weights=hyp_counts, minlength=n_items)
        rows[:, 1 + max_order + order] = np.maximum(totals, 1.0)
        # the largest count in any one reference, per (item, code)
        ref_keep = keep[ref_part]
        ref_segment = segment[ref_part][ref_keep] - n_items
        ref_codes = codes[ref_part][ref_keep]
        per_ref, per_ref_counts = np.unique(ref_segment * bound + ref_codes,
                                            return_counts=True)
        item_keys = owners[per_ref // bound] * bound + per_ref % bound
        order_by = np.argsort(item_keys, kind="stable")
        item_keys, per_ref_counts = item_keys[order_by], per_ref_counts[order_by]
        if item_keys.size:
            starts = np.flatnonzero(np.r_[True, item_keys[1:] != item_keys[:-1]])
            ref_unique = item_keys[starts]
            ref_counts = np.maximum.reduceat(per_ref_counts, starts)
        else:
            ref_unique = ref_counts = np.zeros(0, dtype=np.int64)
        _, in_hyp, in_ref = np.intersect1d(
            hyp_unique, ref_unique, assume_unique=True, return_indices=True
        )
        clipped = np.minimum(hyp_counts[in_hyp], ref_counts[in_ref])
        rows[:, 1 + order] = np.bincount(
            hyp_unique[in_hyp] // bound, weights=clipped, minlength=n_items
        )
    return rows


def _one_reference_counts(
    codes: np.ndarray,
    segment: np.ndarray,
    keep: np.ndarray,
    hyp_part: slice,
    ref_part: slice,
    n_items: int,
    bound: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Clipped matches and hypothesis totals per item when item k has reference k.

    One sort of the keys ``(item, code, side)`` of both sides groups equal n-grams of an
    item; each group contributes ``min(hypothesis count, reference count)``.
    """
    hyp_keep, ref_keep = keep[hyp_part], keep[ref_part]
    hyp_items = segment[hyp_part][hyp_keep]
    totals = np.bincount(hyp_items, minlength=n_items).astype(np.float64)
    hyp_keys = (hyp_items * bound + codes[hyp_part][hyp_keep]) << 1
    ref_items = segment[ref_part][ref_keep] - n_items
    ref_keys = ((ref_items * bound + codes[ref_part][ref_keep]) << 1) | 1
    keys = np.concatenate([hyp_keys, ref_keys])
    if not keys.size:
        return np.zeros(n_items), totals
    keys.sort()
    heads = keys >> 1
    starts = np.flatnonzero(np.r_[True, heads[1:] != heads[:-1]])
    ends = np.r_[starts[1:], keys.size]
    refs_before = np.zeros(keys.size + 1, dtype=np.int64)
    np.cumsum(keys & 1, out=refs_before[1:])
    ref_count = refs_before[ends] - refs_before[starts]
    clipped = np.minimum(ends - starts - ref_count, ref_count)
    matched = clipped > 0
    matches = np.bincount(heads[starts[matched]] // bound, weights=clipped[matched],
                          minlength=n_items)
    return matches, totals


def _closest_lengths(
    hyp_lengths: np.ndarray, ref_lengths: np.ndarray, owners: np.ndarray, n_items: int
) -> np.ndarray:
    """Per item the reference length closest to the hypothesis length, the shorter on ties."""
    if ref_lengths.size == n_items:
        return ref_lengths.astype(np.float64)
    distance = np.abs(ref_lengths - hyp_lengths[owners])
    order = np.lexsort((ref_lengths, distance, owners))
    first = np.r_[True, owners[order][1:] != owners[order][:-1]]
    result = np.empty(n_items, dtype=np.float64)
    result[owners[order][first]] = ref_lengths[order][first]
    return result


# -------------------------------------------------------------------------- scores


def crystal_bleu_from_statistics(
    stats: np.ndarray,
    weights: Sequence[float] = DEFAULT_WEIGHTS,
    smoothing: str = "method0",
    epsilon: float = 0.1,
) -> np.ndarray:
    """The package's ``corpus_bleu`` arithmetic on (summed) rows, vectorised.

    Same operations in the same order as the package: precisions as ``matches / totals``
    (zero matches: ``sys.float_info.min`` without smoothing, or the chosen method),
    ``math.fsum`` of the weighted logarithms, ``math.exp``, the brevity penalty
    ``exp(1 - r / c)``; 0 when no unigram matches.
    """
    stats = np.asarray(stats, dtype=np.float64)
    order = len(weights)
    if stats.shape[-1] != 2 + 2 * order:
        raise ValueError(f"CrystalBLEU rows of {len(weights)} orders have {2 + 2 * order} "
                         f"numbers, got {stats.shape[-1]}.")
    hyp_len, ref_len = stats[..., 0], stats[..., 1]
    matches = [stats[..., 2 + n] for n in range(order)]
    totals = [stats[..., 2 + order + n] for n in range(order)]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        precisions = []
        zeros_so_far = np.zeros(hyp_len.shape)
        for n in range(order):
            zero = matches[n] == 0
            plain = matches[n] / totals[n]
            if smoothing == "method0":
                value = np.where(zero, sys.float_info.min, plain)
            elif smoothing == "method1":
                value = np.where(zero, (matches[n] + epsilon) / totals[n], plain)
            elif smoothing == "method2":
                value = plain if n == 0 else (matches[n] + 1) / (totals[n] + 1)
            else:  # method3
                zeros_so_far = zeros_so_far + zero
                value = np.where(zero, 1 / (2.0**zeros_so_far * totals[n]), plain)
            precisions.append(value)
        terms = []
        for weight, value in zip(weights, precisions, strict=True):
            log_p = np.full(value.shape, -np.inf)
            positive = value > 0
            if positive.any():
                log_p[positive] = _log(value[positive])
            terms.append(weight * log_p)
        total = _fsum(terms, hyp_len.shape)
        short = (hyp_len <= ref_len) & (hyp_len > 0)
        bp = np.where(hyp_len > ref_len, 1.0, 0.0)
        if short.any():
            bp[short] = _exp(1 - ref_len[short] / hyp_len[short])
        score = bp * _exp(total)
    return np.where(matches[0] == 0, 0.0, score)


def _fsum(terms: list[np.ndarray], shape: tuple[int, ...]) -> np.ndarray:
    """``math.fsum`` across the orders, element by element (exactly rounded, as the package)."""
    flat = [np.asarray(term, dtype=np.float64).ravel() for term in terms]
    result = np.fromiter(
        (math.fsum(values) if all(map(math.isfinite, values)) else -math.inf
         for values in zip(*flat, strict=True)),
        dtype=np.float64,
        count=flat[0].size if flat else 0,
    )
    return result.reshape(shape)


# -------------------------------------------------------------------------- metric


def _check_weights(weights: Any) -> tuple[float, ...]:
    if isinstance(weights, (str, bytes)) or not isinstance(weights, Sequence) or not weights:
        raise ValueError(f"`weights` must be a list of n-gram weights, e.g. (0.25, 0.25, 0.25, "
                         f"0.25), got {weights!r}.")
    if len(weights) > 10:
        raise ValueError(f"`weights` has {len(weights)} orders; at most 10 are supported.")
    result = []
    for value in weights:
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise ValueError(f"`weights` must hold numbers, got {value!r}.")
        if not math.isfinite(value) or value < 0:
            raise ValueError(f"`weights` must be finite numbers >= 0, got {value!r}.")
        result.append(float(value))
    return tuple(result)


class CrystalBleuMetric(Metric):
    """CrystalBLEU: corpus score as the package's ``corpus_bleu``, per item its
    ``sentence_bleu``.

    Options: ``trivially_shared`` (the n-grams to ignore: a list of token tuples, as the
    package's ``ignoring=``, or a JSON list of token lists, as text or as the path of a file;
    None ignores nothing, which is BLEU), ``tokenize`` ("code", "pygments" or "none"), ``lang``, ``weights``,
    ``smoothing`` ("method0" to "method3", NLTK's) and ``epsilon`` (method1's).

    >>> shared = [(";",), ("=",), ("int",)]
    >>> metric = CrystalBleuMetric(tokenize="none", trivially_shared=shared)
    >>> round(metric.compute(["int y = a + b ; return y ;"],
    ...                      ["int x = a + b ; return x ;"])["score"], 4)
    0.5308
    """

    name = "crystal_bleu"
    display_name = "CrystalBLEU"
    description = "BLEU without the n-grams every program shares (Eghbali and Pradel, 2022)"
    seconds_per_1k_chars = 0.008  # benchmarks/metric_cost.py, worst case
    seconds_growth_per_1k_chars = 0.000014  # benchmarks/space.py, calibration
    scale = 1.0
    higher_is_better = True
    languages = None  # the code tokenizer reads any language of the table
    runs_code = False

    def __init__(
        self,
        lang: Any = DEFAULT_LANGUAGE,
        tokenize: str | None = "code",
        trivially_shared: Any = None,
        weights: Any = DEFAULT_WEIGHTS,
        smoothing: str = "method0",
        epsilon: float = 0.1,
    ) -> None:
        self.lang = resolve_language(lang).name
        self._tokens = tokenizer(tokenize, self.lang)
        tokenize = "none" if tokenize is None else tokenize
        self.tokenize = tokenize
        self.weights = _check_weights(weights)
        if smoothing not in SMOOTHING:
            raise ValueError(
                f"Unknown `smoothing` {smoothing!r}; choose one of "
                f"{', '.join(repr(s) for s in SMOOTHING)} (NLTK's SmoothingFunction methods; "
                "methods 4 to 7 depend on the corpus's last pair, not on summed statistics). "
                "The paper used method1 with epsilon=0.0001."
            )
        self.smoothing = smoothing
        if (isinstance(epsilon, bool) or not isinstance(epsilon, (int, float))
                or not math.isfinite(epsilon) or epsilon <= 0):
            raise ValueError(f"`epsilon` must be a positive number, got {epsilon!r}.")
        self.epsilon = float(epsilon)
        if isinstance(trivially_shared, (str, Path)) and not str(trivially_shared).strip():
            trivially_shared = None  # an empty text box
        if trivially_shared is None:
            _warn_once(
                "plain-bleu",
                "crystal_bleu without `trivially_shared` n-grams ignores nothing: it is plain "
                "BLEU. Compute the list with cgm_metrics.maths.crystal_bleu.trivially_shared_ngrams("
                "corpus) and pass it as trivially_shared=.",
                UserWarning,
                stacklevel=3,
            )
            ngrams: list[tuple[str, ...]] = []
        elif isinstance(trivially_shared, str) and trivially_shared.strip().startswith("["):
            try:  # the JSON text itself (a widget's text box, a command line)
                ngrams = check_ngrams(json.loads(trivially_shared))
            except json.JSONDecodeError as error:
                raise ValueError(f"`trivially_shared` is not a JSON list of token lists: "
                                 f"{error}.") from None
        elif isinstance(trivially_shared, (str, Path)):
            ngrams = load_ngrams(trivially_shared)
        else:
            ngrams = check_ngrams(trivially_shared)
        self.ignored = frozenset(ngrams)
        shared = (f"sha256-{ngrams_digest(self.ignored)}/{len(self.ignored)}"
                  if self.ignored else "none")
        options: dict[str, Any] = {
            "tokenize": tokenize,
            "trivially_shared": shared,
            "weights": self.weights,
            "smoothing": smoothing,
        }
        if tokenize != "none":
            options["lang"] = self.lang
        if smoothing == "method1":
            options["epsilon"] = self.epsilon
        super().__init__(**options)

    def columns(self) -> tuple[str, ...]:
        orders = range(1, len(self.weights) + 1)
        return ("hyp_len", "ref_len", *(f"matches_{n}" for n in orders),
                *(f"totals_{n}" for n in orders))

    def tokens(self, code: str) -> list[str]:
        return self._tokens(code)

    def statistics(self, predictions: list[str], references: list[list[str]]) -> np.ndarray:
        seen: dict[str, list[str]] = {}  # a text repeated in the call is tokenized once

        def tokens(text: str) -> list[str]:
            found = seen.get(text)
            if found is None:
                found = seen[text] = self._tokens(text)
            return found

        return ngram_statistics(
            [tokens(text) for text in predictions],
            [[tokens(ref) for ref in refs] for refs in references],
            len(self.weights),
            self.ignored,
        )

    def score_from_statistics(self, stats: np.ndarray) -> np.ndarray:
        return crystal_bleu_from_statistics(stats, self.weights, self.smoothing, self.epsilon)


def compute_crystal_bleu(
    predictions: Any,
    references: Any,
    lang: Any = DEFAULT_LANGUAGE,
    tokenize: str = "code",
    trivially_shared: Any = None,
    weights: Any = DEFAULT_WEIGHTS,
    smoothing: str = "method0",
    epsilon: float = 0.1,
    return_per_sample: bool = False,
) -> dict:
    """The ``crystal_bleu`` evaluate module's result (and any caller's with raw lists):
    :class:`CrystalBleuMetric`'s (``Metric.compute``) in the module's keys."""
    from ..core.inputs import check_flag

    return_per_sample = check_flag(return_per_sample, "return_per_sample")
    metric = CrystalBleuMetric(lang=lang, tokenize=tokenize, trivially_shared=trivially_shared,
                               weights=weights, smoothing=smoothing, epsilon=epsilon)
    scored = metric.compute(predictions, references, per_item=return_per_sample)
    result: dict[str, Any] = {"crystal_bleu": scored["score"]}
    if return_per_sample:
        result["scores"] = scored["per_item"]
    result["signature"] = scored["signature"]
    return result
