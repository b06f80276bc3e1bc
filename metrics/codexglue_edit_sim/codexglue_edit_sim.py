"""CodeXGLUE's line-completion metrics, edit similarity (fuzz.ratio) and exact match, equal to
CodeXGLUE's evaluator, as a HuggingFace evaluate metric."""

import evaluate

from cgm_metrics.frontends.hub import CheckedModule, code_features
from cgm_metrics.maths.codexglue import compute_codexglue_edit_sim

_CITATION = """\
@inproceedings{lu2021codexglue,
  title={CodeXGLUE: A Machine Learning Benchmark Dataset for Code Understanding and Generation},
  author={Lu, Shuai and Guo, Daya and Ren, Shuo and Huang, Junjie and Svyatkovskiy, Alexey and
          Blanco, Ambrosio and Clement, Colin and Drain, Dawn and Jiang, Daxin and Tang, Duyu
          and Li, Ge and Zhou, Lidong and Shou, Linjun and Zhou, Long and Tufano, Michele and
          Gong, Ming and Zhou, Ming and Duan, Nan and Sundaresan, Neel and Deng, Shao Kun and
          Fu, Shengyu and Liu, Shujie},
  booktitle={Proceedings of the Neural Information Processing Systems Track on Datasets and
             Benchmarks},
  year={2021}
}
"""

_DESCRIPTION = """\
The "Edit sim" and "EM" of CodeXGLUE's line-level code completion (also reported by RepoBench
and other completion benchmarks). Per item, the prediction is stripped of surrounding
whitespace and the reference used as given, CodeXGLUE's literal placeholders are restored in
both (<NUM_LIT> -> 0, <STR_LIT> -> nothing, <STR_LIT:abc> -> abc), edit similarity is
fuzzywuzzy's fuzz.ratio (100 * 2 * LCS / total length, rounded to an integer) and exact match
compares the whitespace-split tokens. Both are averaged over items (exact match in percent).
This is not Dibia et al.'s EDIT-SIM (`edit_sim`), which divides a Levenshtein distance by the
longer length.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of str): generated lines, one string per item.
    references (list of str or list of list of str): the expected line(s); with several, the
        best ratio counts and an exact match with any of them counts.
    ratio (str): the fuzz.ratio to equal: "fuzzywuzzy" (default; with python-Levenshtein,
        as thefuzz: an integer), "difflib" (fuzzywuzzy without python-Levenshtein:
        difflib's SequenceMatcher, an integer) or "rapidfuzz" (rapidfuzz.fuzz.ratio, not
        rounded).
    post_process (bool): restore CodeXGLUE's literal placeholders (default True).
    return_per_sample (bool): add per-item "scores" (ratios) and "exact" (booleans).
Returns:
    edit_sim (float, 0..100): mean fuzz.ratio, CodeXGLUE's "Edit sim" before rounding.
    exact_match (float, 0..100): percentage of exact matches, CodeXGLUE's "EM".
    signature (str): options and library version.
Examples:
    >>> codexglue = evaluate.load("cgm/codexglue_edit_sim")
    >>> result = codexglue.compute(predictions=["def __init__ ( self ) :", "return x"],
    ...                            references=["def __init__ ( self ) :", "return y"])
    >>> result["edit_sim"], result["exact_match"]
    (94.0, 50.0)
    >>> result = codexglue.compute(predictions=["x = <NUM_LIT> ;\\n"], references=["x = 0 ;"],
    ...                            return_per_sample=True)
    >>> result["scores"], result["exact"]
    ([100.0], [True])
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class CodexglueEditSim(CheckedModule, evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=code_features(),
            homepage="https://github.com/microsoft/CodeXGLUE",
            codebase_urls=["https://github.com/microsoft/CodeXGLUE"],
            reference_urls=["https://arxiv.org/abs/2102.04664"],
        )

    def _compute(
        self,
        predictions,
        references,
        ratio="fuzzywuzzy",
        post_process=True,
        return_per_sample=False,
    ):
        return compute_codexglue_edit_sim(
            predictions,
            references,
            ratio=ratio,
            post_process=post_process,
            return_per_sample=return_per_sample,
        )
