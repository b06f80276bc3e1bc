"""TSED (Song et al., 2024): similarity of code by the tree edit distance between tree-sitter
syntax trees, equal to the `tsed` package, compiled, as a HuggingFace evaluate metric."""

import evaluate

from cgm_metrics.frontends.hub import CheckedModule, code_features
from cgm_metrics.maths.tsed import compute_tsed

_CITATION = """\
@inproceedings{song-etal-2024-revisiting,
    title = "Revisiting Code Similarity Evaluation with Abstract Syntax Tree Edit Distance",
    author = "Song, Yewei and Lothritz, Cedric and Tang, Daniel and Bissyand{\\'e}, Tegawend{\\'e}
              and Klein, Jacques",
    booktitle = "Proceedings of the 62nd Annual Meeting of the Association for Computational
                 Linguistics (Volume 2: Short Papers)",
    year = "2024",
    pages = "38--46",
    doi = "10.18653/v1/2024.acl-short.3",
}
"""

_DESCRIPTION = """\
TSED = max(0, 1 - d / max(n1, n2)): d is the tree edit distance that turns the prediction's
syntax tree into the reference's (deletion 1.0, insertion 0.8, rename 1.0 by default), n1 and
n2 the sizes of the two trees. The trees are read exactly as the `tsed` package reads them:
tree-sitter's S-expression of the code (grammars of tree-sitter-language-pack 0.9.0), which
holds named nodes only (no punctuation, operators, keywords, identifiers or literals), with a
node relabelled by the last field name written inside it. So TSED compares the *shape* of
programs: renaming variables or changing an operator does not change it. The values equal
the package's (to floating-point rounding, 1e-15) many times faster: the tree edit distance
is computed by a compiled Zhang-Shasha programme instead of pure-Python APTED. With several
references the best one counts; the score is the mean over items.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of str): generated code, one string per item (the edit's origin).
    references (list of str or list of list of str): reference code (the edit's target), one
        or several per item.
    lang (str): programming language: any with a TSED part (`cgm modules --languages` lists
        them, with aliases such as py, js, c#, csharp). Default "python".
    language (str): the same, under the `tsed` Space's name (give one of the two).
    deletion_weight, insertion_weight, rename_weight (float): edit costs, default 1.0, 0.8
        and 1.0 (the package's README and Space).
    return_per_sample (bool): include "tsed_scores" (default True, as the `tsed` Space).
    tree (str): "sexp" (default: the trees the `tsed` package reads from the S-expression) or
        "types" (every named node labelled by its own type, as the paper describes; the values
        then differ from the package's).
Returns:
    tsed (float, 0..1): mean TSED over items; higher is more similar.
    tsed_scores (list of float): per-item TSED (best reference).
    signature (str): options, grammar release and library version.
Examples:
    >>> tsed = evaluate.load("cgm/tsed")
    >>> results = tsed.compute(predictions=["def add(a, b):\\n    return a + b"],
    ...                        references=["def add(x, y):\\n    return x + y"])
    >>> results["tsed"], results["tsed_scores"]
    (1.0, [1.0])
    >>> results = tsed.compute(
    ...     predictions=["def f(x):\\n    return x + 1\\n"],
    ...     references=["def f(x):\\n    if x > 0:\\n        return x\\n    return -x\\n"])
    >>> results["tsed"]
    0.575
    >>> results = tsed.compute(
    ...     predictions=["class A { int f(int x) { return x + 1; } }"],
    ...     references=["class A { int f(int x) { int y = x * 2; return y; } }"],
    ...     language="java")
    >>> round(results["tsed"], 4)
    0.7619
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Tsed(CheckedModule, evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=code_features(),
            homepage="https://github.com/Etamin/TSED",
            codebase_urls=["https://github.com/Etamin/TSED"],
            reference_urls=["https://aclanthology.org/2024.acl-short.3/"],
        )

    def _compute(
        self,
        predictions,
        references,
        lang=None,
        language=None,
        deletion_weight=1.0,
        insertion_weight=0.8,
        rename_weight=1.0,
        return_per_sample=True,
        tree="sexp",
    ):
        return compute_tsed(
            predictions,
            references,
            lang=lang,
            language=language,
            deletion_weight=deletion_weight,
            insertion_weight=insertion_weight,
            rename_weight=rename_weight,
            return_per_sample=return_per_sample,
            tree=tree,
        )
