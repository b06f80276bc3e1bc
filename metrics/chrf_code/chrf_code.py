"""chrF and chrF++ for code: sacrebleu's CHRF, fast, with comment stripping and identifier
normalisation, as a HuggingFace evaluate metric."""

import evaluate
from evaluate.utils.file_utils import add_start_docstrings

from cgm_metrics.core.inputs import check_flag, check_int, check_number
from cgm_metrics.frontends.hub import CheckedModule, code_features
from cgm_metrics.maths.chrf import ChrfCodeMetric

_CITATION = """\
@inproceedings{popovic-2015-chrf,
    title = "chr{F}: character n-gram {F}-score for automatic {MT} evaluation",
    author = "Popovi{\\'c}, Maja",
    booktitle = "Proceedings of the Tenth Workshop on Statistical Machine Translation",
    year = "2015",
    pages = "392--395",
}
@inproceedings{popovic-2017-chrf,
    title = "chr{F}++: words helping character n-grams",
    author = "Popovi{\\'c}, Maja",
    booktitle = "Proceedings of the Second Conference on Machine Translation",
    year = "2017",
    pages = "612--618",
}
@inproceedings{post-2018-call,
    title = "A Call for Clarity in Reporting {BLEU} Scores",
    author = "Post, Matt",
    booktitle = "Proceedings of the Third Conference on Machine Translation: Research Papers",
    year = "2018",
    pages = "186--191",
}
@article{evtikhiev2023out,
    title = {Out of the BLEU: How Should We Assess Quality of the Code Generation Models?},
    author = {Evtikhiev, Mikhail and Bogomolov, Egor and Sokolov, Yaroslav and Bryksin, Timofey},
    journal = {Journal of Systems and Software},
    volume = {203},
    year = {2023},
}
"""

_DESCRIPTION = """\
chrF is the F-score of character n-gram precision and recall (Popovic, 2015); chrF++ adds
word n-grams (Popovic, 2017). On code it agrees with human judgement better than BLEU and
CodeBLEU (Evtikhiev et al., 2023, "Out of the BLEU"). This module computes exactly
sacrebleu's CHRF (every option, several references per item, the best one chosen per item),
several times faster, from sufficient statistics that also serve significance tests.
average="sentence" gives the mean of sentence-level chrF, the "ChrF" column of Out of the
BLEU. Two code-aware options parse the code with tree-sitter first: strip_comments removes
comments (and Python docstrings), normalize_identifiers renames identifiers v0, v1, ... in
order of first appearance. Both need `lang`.
"""

_KWARGS_DESCRIPTION = """
Computes chrF / chrF++ of code predictions against references.

Args:
    predictions (list of str): generated code, one string per item.
    references (list of str, or list of list of str): one reference or a list of references
        per item; the number of references may differ between items.
    char_order (int): character n-gram order, 0 to 20, default 6.
    word_order (int): word n-gram order, 0 to 10, default 0 (2 gives chrF++).
    beta (int or float): weight of recall relative to precision, above 0 and at most 1000,
        default 2.
    lowercase (bool): compare case-insensitively, default False.
    whitespace (bool): keep whitespace in character n-grams, default False.
    eps_smoothing (bool): chrF++.py / NLTK epsilon smoothing instead of sacrebleu's effective
        order, default False.
    average (str): "corpus" (chrF of the summed statistics, sacrebleu's corpus_score) or
        "sentence" (mean of sentence-level chrF, as in Out of the BLEU). Default "corpus".
    return_per_sample (bool): also return the sentence chrF of every item, default False.
    lang (str): programming language (any that `cgm modules --languages` lists, or an
        alias such as py, js, c#, c++, kt, sh). Needed by the two
        code options below, ignored otherwise. Default None.
    strip_comments (bool): remove comments and Python docstrings before scoring.
    normalize_identifiers (bool): rename identifiers by order of first appearance.

Returns:
    score (float): chrF, 0 to 100.
    char_order, word_order, beta (int): the options used.
    average (str): the aggregation used.
    signature (str): the options and library version, for reproducibility.
    scores (list of float): sentence chrF per item, 0 to 100 (with return_per_sample=True).

Examples:
    >>> chrf_code = evaluate.load("cgm/chrf_code")
    >>> predictions = ["def add(a, b):\\n    return a + b", "print('hello')"]
    >>> references = ["def add(x, y):\\n    return x + y", "print('hello world')"]
    >>> results = chrf_code.compute(predictions=predictions, references=references)
    >>> print(round(results["score"], 2), results["char_order"], results["word_order"])
    58.56 6 0

    Mean of sentence chrF, with the score of every item:

    >>> results = chrf_code.compute(predictions=predictions, references=references,
    ...                             average="sentence", return_per_sample=True)
    >>> print(round(results["score"], 2), [round(s, 2) for s in results["scores"]])
    59.02 [54.38, 63.66]

    Several references per item (the best one counts), and code options:

    >>> references = [["def add(x, y):\\n    return x + y", "def add(a, b):\\n    return b + a"],
    ...               ["print('hello world')"]]
    >>> print(round(chrf_code.compute(predictions=predictions, references=references)["score"], 2))
    75.85
    >>> print(chrf_code.compute(predictions=["x = 1  # one"], references=["x = 1"],
    ...                         lang="python", strip_comments=True)["score"])
    100.0
"""


@add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class ChrfCode(CheckedModule, evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=code_features(),
            homepage="https://github.com/mjpost/sacrebleu",
            codebase_urls=["https://github.com/mjpost/sacrebleu"],
            reference_urls=[
                "https://aclanthology.org/W15-3049",
                "https://aclanthology.org/W17-4770",
                "https://arxiv.org/abs/2208.03133",
            ],
        )

    def _compute(
        self,
        predictions,
        references,
        char_order=6,
        word_order=0,
        beta=2,
        lowercase=False,
        whitespace=False,
        eps_smoothing=False,
        average="corpus",
        return_per_sample=False,
        lang=None,
        strip_comments=False,
        normalize_identifiers=False,
    ):
        char_order = check_int(char_order, "char_order", 0, 20)
        word_order = check_int(word_order, "word_order", 0, 10)
        check_number(beta, "beta", 0, 1000, low_open=True)
        return_per_sample = check_flag(return_per_sample, "return_per_sample")
        metric = ChrfCodeMetric(
            char_order=char_order,
            word_order=word_order,
            beta=beta,
            lowercase=lowercase,
            whitespace=whitespace,
            eps_smoothing=eps_smoothing,
            average=average,
            lang=lang,
            strip_comments=strip_comments,
            normalize_identifiers=normalize_identifiers,
        )
        scored = metric.compute(predictions, references, per_item=return_per_sample)
        result = {
            "score": scored["score"],
            "char_order": metric.char_order,
            "word_order": metric.word_order,
            "beta": beta,
            "average": average,
            "signature": scored["signature"],
        }
        if return_per_sample:
            result["scores"] = scored["per_item"]
        return result
