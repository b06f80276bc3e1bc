"""RUBY (Tran et al., 2019): similarity of code by program dependence graphs, syntax trees or
tokens, whichever level both snippets support, as in Out of the BLEU (Evtikhiev et al., 2023)."""

import evaluate

from cgm_metrics.core.inputs import check_flag
from cgm_metrics.frontends.hub import CheckedModule, code_features
from cgm_metrics.languages import DEFAULT_LANGUAGE
from cgm_metrics.maths.ruby import compute_ruby

_CITATION = """\
@inproceedings{tran2019does,
  title={Does BLEU Score Work for Code Migration?},
  author={Tran, Ngoc and Tran, Hieu and Nguyen, Son and Nguyen, Hoan and Nguyen, Tien},
  booktitle={2019 IEEE/ACM 27th International Conference on Program Comprehension (ICPC)},
  pages={165--176},
  year={2019}
}
@article{evtikhiev2023out,
  title={Out of the BLEU: How Should We Assess Quality of the Code Generation Models?},
  author={Evtikhiev, Mikhail and Bogomolov, Egor and Sokolov, Yaroslav and Bryksin, Timofey},
  journal={Journal of Systems and Software},
  volume={203},
  pages={111741},
  year={2023}
}
"""

_DESCRIPTION = """\
RUBY scores a candidate against a reference at the first level both snippets support:
graph (GRS, expression-level program dependence graphs: operations and operands as nodes,
control, operand and def-use data edges, for Python, Java and JavaScript; bipartite graph edit
distance, an upper bound on the exact one), tree (TRS, exact tree edit distance over the
tree-sitter AST) or string (STS, token Levenshtein over the TranX code tokens). At the graph
and tree levels a relabelling costs a deletion plus an insertion, so both span 0 to 1. Levels are never mixed; code that does not parse,
or is above a size limit, falls back to the next level and each item reports its level.
With several references an item takes its best reference. The score is the mean over items.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of str): generated code, one string per item.
    references (list of str or list of list of str): reference code, one or several per item.
    lang (str): programming language (default "python"); graphs are built for python, java
        and javascript, other languages start at the tree level.
    return_per_sample (bool): add per-item "scores" and "sample_levels".
    level (str or None): the first level to try, "graph", "tree" or "string" (default None:
        graph, then tree, then string). Items that cannot use it still fall back.
Returns:
    ruby (float, 0..1): mean RUBY over items.
    levels (dict): how many items used each level ("graph", "tree", "string").
    scores (list of float, 0..1): per-item RUBY, with return_per_sample.
    sample_levels (list of str): the level each item used, with return_per_sample.
Examples:
    >>> ruby = evaluate.load("cgm/ruby")
    >>> result = ruby.compute(predictions=["x = a + b"], references=["x = a + b"])
    >>> result["ruby"], result["levels"]
    (1.0, {'graph': 1, 'tree': 0, 'string': 0})
    >>> result = ruby.compute(
    ...     predictions=["def f(a):\\n    return a + 1", "print('hi'"],
    ...     references=[["def f(x):\\n    return x + 1"], ["print('hi')", "print('hello')"]],
    ...     return_per_sample=True)
    >>> [round(s, 3) for s in result["scores"]], result["sample_levels"]
    ([0.875, 0.833], ['graph', 'string'])
    >>> round(ruby.compute(predictions=["x = a - b"], references=["x = a + b"],
    ...                    level="tree")["ruby"], 3)
    0.857
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Ruby(CheckedModule, evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=code_features(),
            reference_urls=[
                "https://arxiv.org/abs/1906.04903",
                "https://arxiv.org/abs/2208.03133",
            ],
        )

    def _compute(self, predictions, references, lang=DEFAULT_LANGUAGE, return_per_sample=False, level=None):
        return_per_sample = check_flag(return_per_sample, "return_per_sample")
        return compute_ruby(
            predictions,
            references,
            lang=lang,
            return_per_sample=return_per_sample,
            level=level,
        )
