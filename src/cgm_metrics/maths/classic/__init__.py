"""BLEU, ROUGE-L and METEOR on code, computed exactly as Out of the BLEU computed them.

- :class:`BleuMetric` (``"bleu"``, 0-100): sacrebleu statistics; corpus BLEU as score,
  sentence BLEU (exp smoothing, effective order) per item.
- :class:`RougeLMetric` (``"rouge_l"``, 0-1): rouge-score's LCS F-measure, best reference.
- :class:`RougeNMetric` (``"rouge_n"``) and :class:`RougeWMetric` (``"rouge_w"``, 0-1):
  ROUGE-N (rouge-score or the rouge package) and ROUGE-W (weighted LCS, Lin 2004).
- :class:`MeteorMetric` (``"meteor"``, 0-1): nltk's METEOR with WordNet 3.0, best reference
  (WordNet setup: ``python -m cgm_metrics.maths.classic.wordnet install``).

All three use the study's TranX code tokens by default.
"""

from .bleu import BleuMetric, bleu_from_statistics
from .rouge import RougeLMetric, RougeNMetric, RougeWMetric, lcs_fmeasure, lcs_length

__all__ = [
    "BleuMetric",
    "MeteorMetric",
    "RougeLMetric",
    "RougeNMetric",
    "RougeWMetric",
    "bleu_from_statistics",
    "lcs_fmeasure",
    "lcs_length",
]


def __getattr__(name: str):
    # nltk is imported only when METEOR is used: it is slow to import.
    if name == "MeteorMetric":
        from .meteor import MeteorMetric

        return MeteorMetric
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
