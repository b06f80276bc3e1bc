"""CrystalBLEU (Eghbali and Pradel, ASE 2022): BLEU for code without the n-grams every program
shares, equal to the `crystalbleu` package, as a HuggingFace evaluate metric."""

import evaluate

from cgm_metrics.frontends.hub import CheckedModule, code_features
from cgm_metrics.languages import DEFAULT_LANGUAGE
from cgm_metrics.maths.crystal_bleu import compute_crystal_bleu

_CITATION = """\
@inproceedings{eghbali2022crystalbleu,
  title={CrystalBLEU: Precisely and Efficiently Measuring the Similarity of Code},
  author={Eghbali, Aryaz and Pradel, Michael},
  booktitle={Proceedings of the 37th IEEE/ACM International Conference on Automated Software
             Engineering (ASE '22)},
  pages={28:1--28:12},
  year={2022},
  doi={10.1145/3551349.3556903}
}
"""

_DESCRIPTION = """\
Programs share many n-grams whatever they do (parentheses, semicolons, `= 0 ;`, `public
static`), so BLEU finds unrelated code similar and barely separates similar from dissimilar
code. CrystalBLEU removes a list of trivially shared n-grams (the k most frequent 1- to
4-grams of a corpus of the language; k = 500 in the paper) from the n-gram counts of the
hypothesis and the references before BLEU's modified precisions; lengths, and so the brevity
penalty, are not filtered. The list is part of the definition: its hash is in the signature.
Compute it with cgm_metrics.maths.crystal_bleu.trivially_shared_ngrams(corpus). Without a list
nothing is ignored (NLTK's BLEU). The values equal the `crystalbleu` package's corpus_bleu
(the score) and sentence_bleu (per item) given the same tokens and list.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of str): generated code, one string per item.
    references (list of str or list of list of str): reference code, one or several per item.
    trivially_shared (list of tuples of str, or str): the n-grams to ignore, as the package's
        `ignoring=` (tuples of tokens: ("(", ")"), (";",) ...), or a JSON list of token
        lists, as text or as the path of a file. Default None: nothing is ignored (BLEU).
    tokenize (str): "code" (default: the tree-sitter tokens of `lang`, comments dropped,
        string literals whole), "pygments" (Pygments' lexer for `lang`, whitespace and
        comments dropped: the paper's tokens; needs Pygments) or "none" (split on
        whitespace, for pre-tokenized text).
    lang (str): programming language for the code tokenizers (default "python").
    weights (list of float): n-gram weights, default (0.25, 0.25, 0.25, 0.25).
    smoothing (str): NLTK smoothing "method0" (none, the package's default), "method1",
        "method2" or "method3". The paper used method1 with epsilon=0.0001.
    epsilon (float): method1's epsilon (default 0.1, NLTK's).
    return_per_sample (bool): add the per-item sentence CrystalBLEU as "scores".
Returns:
    crystal_bleu (float, 0..1): corpus CrystalBLEU (summed statistics, as corpus_bleu).
    scores (list of float): per-item sentence CrystalBLEU, with return_per_sample.
    signature (str): options, hash and size of the n-gram list, library version.
Examples:
    >>> crystal_bleu = evaluate.load("cgm/crystal_bleu")
    >>> shared = [(";",), ("int",), ("i",), ("=",), ("0",), ("=", "0"), ("0", ";"),
    ...           ("=", "0", ";"), ("int", "i"), ("i", "=")]
    >>> result = crystal_bleu.compute(predictions=["int y = a + b ; return y ;"],
    ...                               references=["int x = a + b ; return x ;"],
    ...                               trivially_shared=shared, tokenize="none",
    ...                               smoothing="method1", epsilon=0.0001)
    >>> result["crystal_bleu"]
    0.5307712171072443
    >>> from cgm_metrics.maths.crystal_bleu import trivially_shared_ngrams
    >>> corpus = ["for (int i = 0; i < n; i++) { sum += a[i]; }",
    ...           "for (int j = 0; j < m; j++) { total += b[j]; }"]
    >>> shared = trivially_shared_ngrams(corpus, k=20, lang="java")
    >>> shared[:5]
    [(';',), ('i',), ('j',), ('for',), ('(',)]
    >>> result = crystal_bleu.compute(predictions=["for (int k = 0; k < n; k++) { s += c[k]; }"],
    ...                               references=[corpus[0]], lang="java",
    ...                               trivially_shared=shared, smoothing="method1",
    ...                               epsilon=0.0001, return_per_sample=True)
    >>> round(result["crystal_bleu"], 4), [round(s, 4) for s in result["scores"]]
    (0.0154, [0.0154])
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class CrystalBleu(CheckedModule, evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=code_features(),
            homepage="https://github.com/sola-st/crystalbleu",
            codebase_urls=["https://github.com/sola-st/crystalbleu"],
            reference_urls=["https://doi.org/10.1145/3551349.3556903"],
        )

    def _compute(
        self,
        predictions,
        references,
        trivially_shared=None,
        tokenize="code",
        lang=DEFAULT_LANGUAGE,
        weights=(0.25, 0.25, 0.25, 0.25),
        smoothing="method0",
        epsilon=0.1,
        return_per_sample=False,
    ):
        return compute_crystal_bleu(
            predictions,
            references,
            lang=lang,
            tokenize=tokenize,
            trivially_shared=trivially_shared,
            weights=weights,
            smoothing=smoothing,
            epsilon=epsilon,
            return_per_sample=return_per_sample,
        )
