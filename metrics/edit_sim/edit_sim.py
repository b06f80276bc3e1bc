"""EDIT-SIM and COMBINED (Dibia et al., 2023): similarity that tells how much effort a
generation saves, alone or combined with unit-test outcomes, plus pass@k (Chen et al., 2021)."""

import evaluate

from cgm_metrics.core.inputs import check_flag
from cgm_metrics.execution.edit_sim_module import compute_edit_sim
from cgm_metrics.frontends.hub import CheckedModule, code_features
from cgm_metrics.languages import DEFAULT_LANGUAGE

_CITATION = """\
@inproceedings{dibia2023aligning,
  title={Aligning Offline Metrics and Human Judgments of Value for Code Generation Models},
  author={Dibia, Victor and Fourney, Adam and Bansal, Gagan and Poursabzi-Sangdeh, Forough
          and Liu, Han and Amershi, Saleema},
  booktitle={Findings of the Association for Computational Linguistics: ACL 2023},
  pages={8516--8528},
  year={2023}
}
@article{chen2021evaluating,
  title={Evaluating Large Language Models Trained on Code},
  author={Chen, Mark and others},
  journal={arXiv preprint arXiv:2107.03374},
  year={2021}
}
"""

_DESCRIPTION = """\
EDIT-SIM = 1 - lev(gen, ref) / max(len(gen), len(ref)), the normalised Levenshtein similarity
of the generated code and the reference on characters (or on code tokens), best reference per
item, averaged over items. Given unit-test outcomes (`passed`), it also returns PASS, pass@k
with the unbiased estimator (the same numbers as evaluate's code_eval) and
COMBINED = min(1, PASS + EDIT-SIM), which Dibia et al. (2023) found to correlate best with
programmers' judgement of value (Pearson r = 0.70, against 0.61 for PASS and 0.48 for
EDIT-SIM). Unit tests can also be run here, in a sandbox, with an explicit opt-in.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of str): generated code, one string per item (several samples of one
        task are several items with the same `task_ids` entry).
    references (list of str or list of list of str): reference solution(s) per item.
    passed (list of bool, optional): unit-test outcome of each prediction (e.g. from
        code_eval's results). Enables "pass", "combined" and pass@k.
    k (list of int, optional): the k of pass@k; default [1] when outcomes are known. Every
        task needs at least k samples (an error otherwise, never a silently missing key).
    task_ids (list, optional): the task of each item, grouping samples for pass@k; default:
        every item is its own task.
    unit ("char" or "token"): Levenshtein on characters (the paper's EDIT-SIM, default) or
        on TranX code tokens.
    return_per_sample (bool): add per-item "scores" (and "combined_scores" and "passed" with
        outcomes); default False.
    tests (list of str, optional): a test program per item; `prediction + "\\n" + test` is
        run in the sandbox to obtain `passed`. Needs `allow_code_execution=True` or the
        environment variable HF_ALLOW_CODE_EVAL="1".
    allow_code_execution (bool): opt in to running `tests` (default False).
    lang (str): the language `tests` run in (default "python"; any language with an
        execution part, e.g. "cpp", "java", "perl", or MultiPL-E's keys; `cgm modules
        --languages` lists them), compiled where needed, in the sandbox.
    timeout (float): wall-clock seconds per program (default 3.0 for Python; MultiPL-E's
        for the other languages: 15, or 5 for JavaScript, Ruby and Rust; at most 86400).
    num_workers (int): programs run at the same time (default 4).
    memory_mb (int, optional): address space per process, in MiB (default 8192, or half the
        machine's memory if less, at least 1024).
    max_processes (int, optional): processes and threads of a program together (default 512).
    max_file_mb (int, optional): the largest file a program may write, in MiB (default 64).
Returns:
    edit_sim (float, 0..1): mean EDIT-SIM.
    unit (str): the unit used ("char" or "token").
    pass (float, 0..1), combined (float, 0..1), pass@k (float, 0..1 per k): with outcomes.
    scores (list of float, 0..1): per-item EDIT-SIM, with return_per_sample.
    combined_scores (list of float, 0..1): per-item COMBINED, with return_per_sample and
        outcomes.
    passed (list of bool): per-item outcome (given, or from the sandbox when `tests` ran),
        with return_per_sample and outcomes.
    verdicts (list of str): per-item MultiPL-E verdict ("OK", "Exception", "SyntaxError",
        "Timeout"...), with return_per_sample when `tests` ran.
Examples:
    >>> edit_sim = evaluate.load("cgm/edit_sim")
    >>> result = edit_sim.compute(predictions=["kitten"], references=["sitting"])
    >>> round(result["edit_sim"], 4)
    0.5714
    >>> result = edit_sim.compute(
    ...     predictions=["def f(x):\\n    return x+1", "def f(x):\\n    return x-1"],
    ...     references=["def f(x):\\n    return x + 1", "def f(x):\\n    return x + 1"],
    ...     passed=[True, False], task_ids=[0, 0], k=[1, 2])
    >>> result["pass@1"], result["pass@2"], round(result["combined"], 4)
    (0.5, 1.0, 0.9423)
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class EditSim(CheckedModule, evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=code_features(),
            reference_urls=["https://aclanthology.org/2023.findings-acl.541/"],
        )

    def _compute(
        self,
        predictions,
        references,
        passed=None,
        k=None,
        task_ids=None,
        unit="char",
        return_per_sample=False,
        tests=None,
        allow_code_execution=False,
        timeout=None,
        num_workers=4,
        memory_mb=None,
        max_processes=None,
        max_file_mb=None,
        lang=DEFAULT_LANGUAGE,
    ):
        return_per_sample = check_flag(return_per_sample, "return_per_sample")
        return compute_edit_sim(
            predictions,
            references,
            passed=passed,
            k=k,
            task_ids=task_ids,
            unit=unit,
            return_per_sample=return_per_sample,
            tests=tests,
            allow_code_execution=allow_code_execution,
            timeout=timeout,
            num_workers=num_workers,
            memory_mb=memory_mb,
            max_processes=max_processes,
            max_file_mb=max_file_mb,
            lang=lang,
        )
