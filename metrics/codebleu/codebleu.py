"""CodeBLEU (Ren et al., 2020) with the numbers of the `codebleu` package 0.7.0
(``evaluate.load("k4black/codebleu")``), deterministic and linear-time, for its ten languages
plus TypeScript, Kotlin, Swift, Scala, Lua, Bash, Haskell, Julia and Perl."""

import evaluate

from cgm_metrics.core.inputs import check_flag
from cgm_metrics.frontends.hub import CheckedModule, code_features
from cgm_metrics.maths.codebleu import compute_codebleu

_CITATION = """\
@misc{ren2020codebleu,
  title={CodeBLEU: a Method for Automatic Evaluation of Code Synthesis},
  author={Shuo Ren and Daya Guo and Shuai Lu and Long Zhou and Shujie Liu and Duyu Tang and
          Neel Sundaresan and Ming Zhou and Ambrosio Blanco and Shuai Ma},
  year={2020},
  eprint={2009.10297},
  archivePrefix={arXiv},
  primaryClass={cs.SE}
}
"""

_DESCRIPTION = """\
CodeBLEU = alpha * ngram_match + beta * weighted_ngram_match + gamma * syntax_match +
theta * dataflow_match, every component a corpus-level micro-average. By default the values
are those of the `codebleu` package 0.7.0 (the k4black/codebleu Space), quirks included:
whitespace tokens, BLEU-4 with method1 smoothing, a weighted unigram *recall* with summed
multi-reference counts, unclipped AST subtree membership, and a dataflow score of 0 counted as
1 in the total. Unlike the package, the result never depends on PYTHONHASHSEED and nested
loops cost linear time. Options give the Out of the BLEU weights (0.1, 0.1, 0.4, 0.4) and
other meanings of a missing dataflow ("zero", "renormalize").
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of str): generated code, one string per item.
    references (list of str or list of list of str): reference code, one or several per item.
    lang (str or list of str): required, as in the package: a language with a CodeBLEU
        part, the package's ten and more (`cgm modules --languages` lists them, with aliases
        such as js, kt, sh). ["java"] as k4black/codebleu takes it
        works too; a plain string is the whole name here ("cpp" is C++), where k4black reads
        its first character.
    weights (4 floats): weights of ngram, weighted ngram, syntax and dataflow match
        (default 0.25 each; (0.1, 0.1, 0.4, 0.4) in Out of the BLEU).
    tokenizer (callable str -> list of str): tokens of the two n-gram components, as in the
        package (default None: whitespace, `s.split()`).
    dataflow (str): what a dataflow score of 0 means: "package" (default, counted as 1 like
        the package, whether the references have no dataflow or nothing matched), "zero"
        (counted as 0), "renormalize" (without reference dataflow the component is dropped
        and the other weights renormalised; a real 0 stays 0).
    return_per_sample (bool): add "scores", the CodeBLEU of every item on its own.
    set_order (str): order of merged dataflow names where the package iterates a set:
        "package" (default: the package's order at PYTHONHASHSEED=0, computed) or "source".
Returns:
    codebleu (float, 0..1), ngram_match_score, weighted_ngram_match_score,
    syntax_match_score, dataflow_match_score (floats, 0..1): the package's keys.
    scores (list of float, 0..1): per-item CodeBLEU, with return_per_sample.
Examples:
    >>> codebleu = evaluate.load("cgm/codebleu")
    >>> result = codebleu.compute(
    ...     predictions=["def add ( a , b ) :\\n return a + b"],
    ...     references=["def sum ( first , second ) :\\n return second + first"],
    ...     lang="python")
    >>> {key: round(value, 4) for key, value in result.items()}  # doctest: +NORMALIZE_WHITESPACE
    {'codebleu': 0.5538, 'ngram_match_score': 0.1042, 'weighted_ngram_match_score': 0.1109,
     'syntax_match_score': 1.0, 'dataflow_match_score': 1.0}
    >>> result = codebleu.compute(predictions=["x = 1", ""], references=[["x = 1"], ["y = 2"]],
    ...                           lang=["python"], weights=(0.1, 0.1, 0.4, 0.4),
    ...                           return_per_sample=True)
    >>> [round(score, 4) for score in result["scores"]]
    [0.9057, 0.4]
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Codebleu(CheckedModule, evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=code_features(),
            homepage="https://github.com/k4black/codebleu",
            reference_urls=[
                "https://arxiv.org/abs/2009.10297",
                "https://pypi.org/project/codebleu/0.7.0/",
            ],
        )

    def _compute(
        self,
        predictions,
        references,
        lang=None,
        weights=(0.25, 0.25, 0.25, 0.25),
        tokenizer=None,
        dataflow="package",
        return_per_sample=False,
        set_order="package",
    ):
        return_per_sample = check_flag(return_per_sample, "return_per_sample")
        return compute_codebleu(
            predictions,
            references,
            lang=lang,
            weights=weights,
            tokenizer=tokenizer,
            dataflow=dataflow,
            return_per_sample=return_per_sample,
            set_order=set_order,
        )
