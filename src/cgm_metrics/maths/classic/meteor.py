"""METEOR on code as Out of the BLEU computed it: nltk's METEOR with WordNet 3.0.

Per item: ``nltk.translate.meteor_score.single_meteor_score(ref_tokens, hyp_tokens)`` with
nltk's defaults (lowercasing, Porter stemmer, alpha 0.9, beta 3, gamma 0.5) on TranX code
tokens; with several references, the best one. The corpus score is the mean over items.
Scale 0-1.

WordNet 3.0 must be installed (see :mod:`cgm_metrics.maths.classic.wordnet`); a missing or
different WordNet raises :class:`~cgm_metrics.maths.classic.wordnet.WordNetNotFoundError` with
the command that fixes it, because METEOR without WordNet gives different numbers.
"""

from __future__ import annotations

import math

import numpy as np

from ...languages import DEFAULT_LANGUAGE, resolve_language
from ...pipeline.metric import MeanOfItems
from .tokens import token_function
from .wordnet import WORDNET_VERSION, load_wordnet


def _check_parameter(name: str, value: object, upper: float | None) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise TypeError(f"`{name}` must be a number, got {value!r}.")
    if value < 0 or (upper is not None and value > upper):
        bound = f"from 0 to {upper:g}" if upper is not None else "at least 0"
        raise ValueError(f"`{name}` must be {bound}, got {value!r}.")
    return float(value)


_MEMO_LIMIT = 200_000  # entries per memo; emptied when full, so memory stays bounded


class _MemoStemmer:
    """nltk's Porter stemmer with each word's stem remembered: METEOR stems every token of
    the hypothesis once per reference, and code repeats its tokens. ``stem`` is a pure
    function of the word, so the stems are nltk's."""

    def __init__(self) -> None:
        from nltk.stem.porter import PorterStemmer

        self._stemmer = PorterStemmer()
        self._memo: dict[str, str] = {}

    def stem(self, word: str) -> str:
        stem = self._memo.get(word)
        if stem is None:
            if len(self._memo) >= _MEMO_LIMIT:
                self._memo.clear()
            stem = self._memo[word] = self._stemmer.stem(word)
        return stem


class _MemoWordNet:
    """The one WordNet call nltk's METEOR makes, ``synsets(word)``, remembered per word
    (the same Synset objects nltk's reader returns, which caches them itself)."""

    def __init__(self, wordnet) -> None:
        self._wordnet = wordnet
        self._memo: dict[str, list] = {}

    def synsets(self, word: str) -> list:
        synsets = self._memo.get(word)
        if synsets is None:
            if len(self._memo) >= _MEMO_LIMIT:
                self._memo.clear()
            synsets = self._memo[word] = self._wordnet.synsets(word)
        return synsets


class MeteorMetric(MeanOfItems):
    """nltk's METEOR on code tokens with WordNet 3.0, best reference, mean over items.

    >>> metric = MeteorMetric()
    >>> round(metric.compute(["return a + b"], ["return a - b"])["score"], 4)
    0.6389
    """

    name = "meteor"
    display_name = "METEOR"
    description = ("Unigram alignment with stems and WordNet synonyms, with a penalty for "
                   "fragmented matches, 0-1.")
    seconds_per_1k_chars = 0.005  # benchmarks/metric_cost.py, worst case

    def __init__(
        self,
        lang: str = DEFAULT_LANGUAGE,
        tokenize: str = "code",
        alpha: float = 0.9,
        beta: float = 3.0,
        gamma: float = 0.5,
    ) -> None:
        self._tokens = token_function(tokenize, "meteor")
        self._alpha = _check_parameter("alpha", alpha, 1.0)
        self._beta = _check_parameter("beta", beta, None)
        self._gamma = _check_parameter("gamma", gamma, 1.0)
        super().__init__(tokenize=tokenize, alpha=alpha, beta=beta, gamma=gamma)
        self.lang = resolve_language(lang).name  # tokens do not depend on it; a typo is an error
        # load_wordnet fails here, with the fix, when WordNet is missing
        self._wordnet = _MemoWordNet(load_wordnet())
        self._stemmer = _MemoStemmer()
        # nltk (about 1 s of imports, scipy.stats among them) loads with the first METEOR
        # metric, not with the class: listings and the Space's page read only its metadata
        from nltk.translate.meteor_score import single_meteor_score

        self._meteor = single_meteor_score

    def item_values(self, predictions: list[str], references: list[list[str]]) -> np.ndarray:
        values = np.zeros(len(predictions))
        for index, (prediction, refs) in enumerate(zip(predictions, references, strict=True)):
            hyp = self._tokens(prediction)
            values[index] = max(self._single(self._tokens(ref), hyp) for ref in refs)
        return values

    def _single(self, reference: list[str], hypothesis: list[str]) -> float:
        return float(
            self._meteor(
                reference,
                hypothesis,
                stemmer=self._stemmer,
                wordnet=self._wordnet,
                alpha=self._alpha,
                beta=self._beta,
                gamma=self._gamma,
            )
        )

    def signature(self) -> str:
        import nltk

        base = super().signature()
        return f"{base}|nltk:{nltk.__version__}|wordnet:{WORDNET_VERSION}"
