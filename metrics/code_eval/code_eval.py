"""pass@k of generated code by running unit tests (Chen et al., 2021): evaluate's code_eval,
call for call, with every program run in a sandbox."""

import datasets
import evaluate

from cgm_metrics.execution.code_eval import check_candidates, check_storable, compute_code_eval
from cgm_metrics.frontends.hub import CheckedModule
from cgm_metrics.languages import DEFAULT_LANGUAGE

_CITATION = """\
@article{chen2021evaluating,
  title={Evaluating Large Language Models Trained on Code},
  author={Chen, Mark and Tworek, Jerry and Jun, Heewoo and Yuan, Qiming and others},
  journal={arXiv preprint arXiv:2107.03374},
  year={2021}
}
"""

_DESCRIPTION = """\
pass@k, the probability that at least one of k sampled programs passes its unit tests, with the
unbiased estimator of Chen et al. (2021): 1 - C(n - c, k) / C(n, k) for a task with n candidates
of which c pass, averaged over tasks. A drop-in for evaluate's code_eval (same arguments, same
HF_ALLOW_CODE_EVAL opt-in, same (pass_at_k, results) return value), but every program runs in a
sandbox: its own interpreter in new Linux PID, mount and network namespaces, under a uid of its
own, with CPU, memory, process and file limits. A pass means the program text ran to its end:
exiting early with status 0 is a failure. With `solutions`, EDIT-SIM and COMBINED
(Dibia et al., 2023) are added. With `lang`, programs in C++, Java, JavaScript, TypeScript, Go,
Rust, PHP, Ruby, Lua, Bash or Perl run the same way, with MultiPL-E's verdicts.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of list of str): the candidate programs of each task.
    references (list of str): one test program per task; a candidate's program is
        `candidate + "\\n" + test`. Or an input/output problem as a JSON string (a
        LiveCodeBench row, APPS's input_output, {"tests": [...], "test_type": "stdin"}):
        the candidate is then the whole program, run on each test's input.
    k (list of int): the k of pass@k (default [1, 10, 100]); a k larger than some task's
        number of candidates is left out, as in code_eval (with a warning).
    num_workers (int): programs run at the same time, each worker a sandbox set up once
        (default 4).
    timeout (float): wall-clock seconds each program may run (default 3.0 for Python, as
        code_eval; for the other languages MultiPL-E's: 15, or 5 for JavaScript, Ruby and
        Rust; at most 86400); its CPU time is limited to the next whole second plus one. A
        compiled language's compile step has a budget of its own (30 s).
    memory_mb (int, optional): address space per process, in MiB (default 8192, or half the
        machine's memory if less, at least 1024).
    max_processes (int, optional): processes and threads a program may have together
        (default 512).
    max_file_mb (int, optional): the largest file a program may write, in MiB (default 64).
    solutions (list of str or list of list of str, optional): reference solution(s) per task;
        adds "edit_sim" and "combined" (means over all candidates) to pass_at_k and "edit_sim"
        to each result.
    unit ("char" or "token"): the unit of EDIT-SIM (default "char").
    allow_code_execution (bool): opt in by argument (True or False only); the environment
        variable HF_ALLOW_CODE_EVAL="1" opts in as for code_eval.
    lang (str): the language of the programs (default "python"): any language with an
        execution part, e.g. "cpp", "java", "javascript", "perl" (or MultiPL-E's keys: "js",
        "ts", "go_test.go", "rs", "rb", "sh", "pl"...; `cgm modules --languages` lists them). Each program is
        `candidate + "\n" + test` as for Python (MultiPL-E's layout), compiled where needed
        and run in the sandbox. A language whose toolchain is missing raises an error naming
        the package to install (`cgm modules --languages` lists what runs here).
    extract (bool): every candidate is a chat model's answer (prose, fenced blocks, a
        `<think>` section, usage examples...): the code of its solution is extracted (the
        block that defines a function the test calls, in `lang`; the model's own main, tests
        and usage lines dropped) and run before the test (default False). Each result then
        has "extraction": the code found, how it was found and why other blocks were left;
        an answer without code fails, with a warning counting them.
Returns:
    pass_at_k (dict): "pass@k" -> mean estimate over tasks (0..1) for each k kept.
    results (dict): task index -> list of (completion_id, result) with result a dict of
        "task_id", "passed", "result" ("passed", "timed out" or "failed: <error>"),
        "completion_id", "status" ("passed", "failed", "timeout" or "killed"), "limit"
        (the limit that ended the program: "timeout", "memory_mb", "max_processes",
        "max_file_mb", "open_files" or None) and "verdict", MultiPL-E's status ("OK",
        "Exception", "SyntaxError" for a compile or parse error, "Timeout"; JavaScript and
        TypeScript also "AssertionError" and "ReferenceError"); "passed" is verdict == "OK".
Raises:
    ValueError: a bad value of any argument (naming it), before anything runs.
    SandboxError (a RuntimeError): the sandbox could not be set up or could not start a
        program, or a language's toolchain does not work in it; never counted as a failed
        candidate.
    ToolchainMissingError (a RuntimeError): the language's compiler or interpreter is not
        installed; the message names the package.
Examples:
    >>> code_eval = evaluate.load("cgm/code_eval")
    >>> test_cases = ["assert add(2,3)==5"]
    >>> candidates = [["def add(a,b): return a*b", "def add(a, b): return a+b"]]
    >>> pass_at_k, results = code_eval.compute(references=test_cases, predictions=candidates,
    ...                                        k=[1, 2], allow_code_execution=True)
    >>> pass_at_k
    {'pass@1': 0.5, 'pass@2': 1.0}
    >>> [(result["completion_id"], result["passed"]) for _, result in results[0]]
    [(0, False), (1, True)]
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class CodeEval(CheckedModule, evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {
                    "predictions": datasets.Sequence(datasets.Value("string")),
                    "references": datasets.Value("string"),
                }
            ),
            homepage="https://github.com/openai/human-eval",
            reference_urls=["https://arxiv.org/abs/2107.03374"],
        )

    # evaluate would turn a bare string into one-character candidates before _compute sees it
    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """evaluate's add_batch, after checking that each task has a list of candidates."""
        if predictions is not None:
            check_candidates(predictions)
        check_storable(predictions, references)
        return super().add_batch(predictions=predictions, references=references, **kwargs)

    def add(self, *, prediction=None, reference=None, **kwargs):
        """evaluate's add, after checking that the task has a list of candidates."""
        if prediction is not None:
            check_candidates([prediction], argument="prediction")
        check_storable([prediction] if prediction is not None else None,
                       [reference] if reference is not None else None)
        return super().add(prediction=prediction, reference=reference, **kwargs)

    def compute(self, *, predictions=None, references=None, **kwargs):
        """evaluate's compute, after checking that each task has a list of candidates."""
        if predictions is not None:
            if len(check_candidates(predictions)) == 0:
                raise ValueError("`predictions` is empty; give at least one task's candidates.")
        check_storable(predictions, references)
        return super().compute(predictions=predictions, references=references, **kwargs)

    def _compute(
        self,
        predictions,
        references,
        k=[1, 10, 100],  # noqa: B006 - code_eval's default, never mutated
        num_workers=4,
        timeout=None,
        solutions=None,
        unit="char",
        allow_code_execution=False,
        memory_mb=None,
        max_processes=None,
        max_file_mb=None,
        lang=DEFAULT_LANGUAGE,
        extract=False,
    ):
        return compute_code_eval(
            predictions,
            references,
            k=k,
            num_workers=num_workers,
            timeout=timeout,
            solutions=solutions,
            unit=unit,
            allow_code_execution=allow_code_execution,
            memory_mb=memory_mb,
            max_processes=max_processes,
            max_file_mb=max_file_mb,
            lang=lang,
            extract=extract,
        )
