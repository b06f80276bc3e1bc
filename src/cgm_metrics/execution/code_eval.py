"""evaluate's ``code_eval``, call for call, with every program run in the sandbox.

Same arguments (``predictions`` = a list of candidate programs per task, ``references`` = one
test program per task, ``k=[1, 10, 100]``, ``num_workers=4``, ``timeout=3.0``), same opt-in
(the environment variable ``HF_ALLOW_CODE_EVAL="1"``), same return value ``(pass_at_k,
results)``: ``pass_at_k`` maps ``"pass@k"`` to the mean unbiased estimate over tasks, for the k
that every task has enough candidates for (code_eval leaves the others out; so do we, with a
warning); ``results`` maps each task's index to its ``(completion_id, result)`` pairs in order,
each result a dict with ``task_id``, ``passed``, ``result`` (``"passed"``, ``"timed out"`` or
``"failed: <error>"``) and ``completion_id``, plus ``status`` (``"passed"``, ``"failed"``,
``"timeout"`` or ``"killed"``), ``limit`` (the limit that ended the program: ``"timeout"``,
``"memory_mb"``, ``"max_processes"``, ``"max_file_mb"``, ``"open_files"``, or None) and
``verdict`` (MultiPL-E's: ``"OK"``, ``"Exception"``, ``"SyntaxError"``, ``"Timeout"``...). As in
code_eval a candidate's program is ``candidate + "\\n" + test``, run in a fresh namespace.

``lang`` (default ``"python"``) runs the programs in another language with an execution part
(``cgm modules --languages`` lists them; MultiPL-E's layout: prompt + completion, then the
tests), compiled where needed, every step in the sandbox (see ``execution.languages``).

Limits (``memory_mb``, ``max_processes``, ``max_file_mb``; ``timeout`` as in code_eval) have
defaults under which every correct program of HumanEval or MBPP passes as in code_eval (see
``sandbox.Limits``); a bad value of any argument is a ``ValueError`` naming it, raised before
anything runs (numpy numbers and arrays are taken as code_eval takes them). A harness failure
(the sandbox cannot be set up, its canary fails, a program cannot be started) raises
``SandboxError``: it is never counted as a failed candidate.

A reference may also be an input/output problem in place of a test program: a JSON object of
one of the formats of ``execution.io_formats`` (a LiveCodeBench row, APPS's ``input_output``
``{"inputs", "outputs", "fn_name"?}``, ``{"tests": [{"input", "output"}], "test_type"}``...),
as a string; the candidate is then the whole program, run once per test with the test's input
on its stdin (or called with its arguments), its output compared with the expected one, and
its result has the judge's ``judge`` verdict (``"accepted"``, ``"wrong_answer"``...).

Differences on purpose: a pass needs the program text to run to its end (exiting early with
status 0 fails here as there), and the program runs in the sandbox of ``sandbox.py`` instead of
code_eval's in-process guard, so functions that guard disables (``os.getcwd``, ``shutil.rmtree``,
``subprocess``...) work as in a plain interpreter. Inputs code_eval would silently misread (a
bare string where a candidate list belongs is split into one-character candidates there) are
refused with an error naming the fix.
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..languages import DEFAULT_LANGUAGE
from ..maths.edit_sim.similarity import check_unit, combined_values, edit_similarity
from ..maths.passk import pass_at_k_per_task
from .judge import Judge, candidate_job, problem_job
from .languages import find_toolchain, get_language
from .problems import untested
from .sandbox import (
    ENV_SWITCH,
    check_count,
    check_flag,
    check_limits,
    code_execution_allowed,
)

CODE_EVAL_WARNING = (
    "code_eval executes untrusted model-generated code. This implementation runs every "
    "program in a sandbox (separate interpreter, Linux namespaces, its own uid, resource "
    "limits, no network), and still only when you opt in, as with evaluate's code_eval: set "
    f'the environment variable {ENV_SWITCH}="1" (in Python: '
    f'os.environ["{ENV_SWITCH}"] = "1"), or pass allow_code_execution=True.'
)


def check_candidates(predictions: Any, argument: str = "predictions") -> list[list[str]]:
    """A list of candidate lists (strings), or an error that names the fix."""
    if isinstance(predictions, (str, bytes)) or not isinstance(predictions, Sequence):
        if hasattr(predictions, "tolist"):
            predictions = predictions.tolist()
        else:
            raise TypeError(
                f"`{argument}` must be a list with a list of candidate programs per task, got "
                f"{type(predictions).__name__}; e.g. predictions=[[candidate_1, candidate_2]]."
            )
    result = []
    for index, candidates in enumerate(predictions):
        if isinstance(candidates, str):
            raise TypeError(
                f"`{argument}[{index}]` is a string, but each task needs a list of candidate "
                f"programs; wrap it: [{argument}[{index}]] (code_eval would split the string "
                "into one-character candidates)."
            )
        if hasattr(candidates, "tolist"):
            candidates = candidates.tolist()
        if not isinstance(candidates, Sequence):
            raise TypeError(
                f"`{argument}[{index}]` is {type(candidates).__name__}; it must be a list of "
                "candidate programs (strings)."
            )
        for inner, candidate in enumerate(candidates):
            if not isinstance(candidate, str):
                raise TypeError(
                    f"`{argument}[{index}][{inner}]` is {type(candidate).__name__}, not a "
                    "string of code."
                )
        result.append(list(candidates))
    return result


def check_storable(predictions: Any = None, references: Any = None) -> None:
    """Through ``evaluate``, inputs are stored in an Arrow table, which takes UTF-8 text only:
    a candidate or a test that UTF-8 cannot encode (a lone surrogate, e.g. ``"\\udcff"``) is
    a ValueError naming it, before evaluate's own error. (``compute_code_eval`` itself judges
    such a candidate: that sample fails, saying why.)"""

    def check(text: Any, where: str) -> None:
        if not isinstance(text, str):
            return
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as error:
            raise ValueError(
                f"`{where}` is not valid text: {error.reason} ({text[error.start]!r} at "
                f"character {error.start}); evaluate stores inputs as UTF-8 and cannot take "
                "it. Decode the model's output with errors='replace', or drop the candidate "
                "(compute_code_eval judges it a failed sample)."
            ) from None

    if isinstance(predictions, Sequence) and not isinstance(predictions, str):
        for index, candidates in enumerate(predictions):
            if isinstance(candidates, Sequence) and not isinstance(candidates, str):
                for inner, candidate in enumerate(candidates):
                    check(candidate, f"predictions[{index}][{inner}]")
    if isinstance(references, Sequence) and not isinstance(references, str):
        for index, test in enumerate(references):
            check(test, f"references[{index}]")


def _io_references(references: Any, n_tasks: int, lang: str) -> list[Any]:
    """For every task, the input/output problem its reference holds in place of a test program
    (a JSON row of an input/output format: :func:`~.io_formats.problem_from_reference`), or
    None."""
    from ..base.errors import InputError
    from .io_formats import problem_from_reference

    if isinstance(references, (str, bytes)) or not isinstance(references, Sequence):
        return [None] * n_tasks
    found = []
    for index, reference in enumerate(list(references)[:n_tasks]):
        try:
            found.append(problem_from_reference(reference, index, lang))
        except InputError as error:
            raise ValueError(str(error)) from None
    return found + [None] * (n_tasks - len(found))


def _check_tests(references: Any, n_tasks: int, lang: Any = DEFAULT_LANGUAGE,
                 io_problems: Sequence[Any] = ()) -> list[str]:
    if isinstance(references, (str, bytes)) or not isinstance(references, Sequence):
        if hasattr(references, "tolist"):
            references = references.tolist()
        else:
            raise TypeError(
                "`references` must be a list with one test program (a string) per task, got "
                f"{type(references).__name__}."
            )
    references = list(references)
    if len(references) != n_tasks:
        raise ValueError(
            f"`predictions` has {n_tasks} tasks but `references` has {len(references)} test "
            "programs; give one test program per task."
        )
    for index, test in enumerate(references):
        if not isinstance(test, str):
            raise TypeError(f"`references[{index}]` is {type(test).__name__}, not a string.")
        if index < len(io_problems) and io_problems[index] is not None:
            continue  # an input/output problem's tests (a JSON row), checked when it was read
        if untested(test, lang):
            raise ValueError(
                f"`references[{index}]` is an empty test program (only whitespace and "
                f"comments): every candidate of task "
                f"{index} would pass without being tested. Give the task's tests (its asserts)."
            )
    return references


def check_ks(k: Any) -> list[int]:
    """The k of pass@k: an integer or a list, tuple or array of them (numpy included), as
    code_eval takes them; a ValueError naming `k` otherwise."""
    if hasattr(k, "tolist") and not isinstance(k, (str, bytes)):
        k = k.tolist()  # numpy arrays and scalars
    ks = [k] if isinstance(k, int) and not isinstance(k, bool) else k
    if isinstance(ks, (str, bytes)) or not isinstance(ks, (Sequence, set, frozenset)):
        raise ValueError(f"`k` must be a list of positive integers (e.g. k=[1, 10]), got {k!r}.")
    ks = list(ks)
    if not ks:
        raise ValueError("`k` is empty; give at least one positive integer (e.g. k=[1]).")
    for value in ks:
        if hasattr(value, "item") and not isinstance(value, (str, bytes)):
            value = value.item()
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(
                f"`k` must hold positive integers, got {value!r}"
                + (f"; use {int(value)}" if isinstance(value, float) and value.is_integer()
                   and value >= 1 else "")
                + "."
            )
    return [int(value.item() if hasattr(value, "item") else value) for value in ks]


def compute_code_eval(
    predictions: Any,
    references: Any,
    k: Any = (1, 10, 100),
    num_workers: Any = 4,
    timeout: Any = None,
    solutions: Any = None,
    unit: str = "char",
    allow_code_execution: bool = False,
    memory_mb: Any = None,
    max_processes: Any = None,
    max_file_mb: Any = None,
    lang: Any = DEFAULT_LANGUAGE,
    extract: Any = False,
) -> tuple[dict[str, Any], defaultdict]:
    """code_eval's ``(pass_at_k, results)``; ``solutions`` (a reference solution, or a list of
    them, per task) adds the mean ``edit_sim`` and ``combined`` over all candidates. ``lang``:
    the language the programs are run in (``execution.languages``); ``timeout`` None is the
    language's default (3.0 s for Python, as code_eval). ``extract=True``: every candidate is
    a chat model's answer, whose solution code is extracted (``execution.extract``) and run
    before the test; each result then has ``extraction`` (the code found and how), and an
    answer without code fails (with a warning counting them)."""
    if not code_execution_allowed(allow_code_execution):
        raise ValueError(CODE_EVAL_WARNING)
    language = get_language(lang)
    tasks = check_candidates(predictions)
    if not tasks:
        raise ValueError("`predictions` is empty; give at least one task with candidates.")
    io_problems = _io_references(references, len(tasks), language.name)
    tests = _check_tests(references, len(tasks), language.name, io_problems)
    ks = check_ks(k)
    workers = check_count(num_workers, "num_workers", 1, 1024)
    limits = check_limits(language.default_timeout if timeout is None else timeout, memory_mb,
                          max_processes, max_file_mb)
    references_per_task = _check_solutions(solutions, len(tasks))
    check_unit(unit)
    extracting = check_flag(extract, "extract")
    find_toolchain(language.name)  # a missing toolchain: its error before anything runs
    jobs = [candidate_job((task_id, completion_id), candidate, tests[task_id], language.name,
                          extracting)
            if io_problems[task_id] is None else
            problem_job((task_id, completion_id), io_problems[task_id], candidate, extracting)
            for task_id, candidates in enumerate(tasks)
            for completion_id, candidate in enumerate(candidates)]
    if extracting:
        for job in jobs:  # edit_sim compares the code that was judged
            tasks[job.key[0]][job.key[1]] = job.code
        no_code = sum(job.extraction.code is None for job in jobs)
        if no_code:
            warnings.warn(f"{no_code} of {len(jobs)} answers hold no code in "
                          f"{language.display_name}; they count as failed (each result's "
                          "'extraction' says why).", stacklevel=2)
    if not jobs:
        raise ValueError("every candidate list in `predictions` is empty; nothing to run.")
    from tqdm.auto import tqdm

    # a progress bar on a terminal (tqdm shows none when stderr is not one)
    with tqdm(total=len(jobs), desc="code_eval", unit="program", disable=None,
              leave=False) as bar:
        verdicts = Judge(limits, workers=workers).judge(jobs, progress=bar.update)
    results: defaultdict = defaultdict(list)
    for job, verdict in zip(jobs, verdicts, strict=True):
        task_id, completion_id = job.key
        record: dict[str, Any] = {
            "task_id": task_id,
            "passed": verdict.passed,
            "result": verdict.result,
            "completion_id": completion_id,
            "status": verdict.status,
            "limit": verdict.limit,
            "verdict": verdict.verdict,
        }
        if verdict.judge is not None:  # an input/output problem's verdict
            record["judge"] = verdict.judge
        if extracting:
            record["extraction"] = job.extraction.to_dict()
        results[task_id].append((completion_id, record))
    total = np.array([len(entries) for entries in results.values()])
    correct = np.array([sum(r["passed"] for _, r in entries) for entries in results.values()])
    pass_at_k: dict[str, Any] = {}
    left_out = []
    for value in ks:
        if (total >= value).all():
            pass_at_k[f"pass@{value}"] = float(pass_at_k_per_task(total, correct, value).mean())
        else:
            left_out.append(value)
    if left_out:
        warnings.warn(
            f"pass@k for k={left_out} is left out: some task has fewer than k candidates "
            f"(at least {int(total.min())}); code_eval leaves such k out the same way.",
            stacklevel=2,
        )
    if references_per_task is not None:
        similarity, passed = [], []
        for task_id, candidates in enumerate(tasks):
            for completion_id, candidate in enumerate(candidates):
                best = max(edit_similarity(candidate, r, unit) for r in references_per_task[task_id])
                results[task_id][completion_id][1]["edit_sim"] = best
                similarity.append(best)
                passed.append(float(results[task_id][completion_id][1]["passed"]))
        if similarity:
            values = np.array(similarity)
            pass_at_k["edit_sim"] = float(values.mean())
            pass_at_k["combined"] = float(combined_values(values, np.array(passed)).mean())
    return pass_at_k, results


def _check_solutions(solutions: Any, n_tasks: int) -> list[list[str]] | None:
    if solutions is None:
        return None
    if isinstance(solutions, (str, bytes)) or not isinstance(solutions, Sequence):
        raise TypeError(
            "`solutions` must be a list with a reference solution (or a list of them) per task."
        )
    solutions = list(solutions)
    if len(solutions) != n_tasks:
        raise ValueError(
            f"`predictions` has {n_tasks} tasks but `solutions` has {len(solutions)}; give one "
            "reference solution (or list of them) per task."
        )
    result = []
    for index, item in enumerate(solutions):
        refs = [item] if isinstance(item, str) else item
        if (
            not isinstance(refs, Sequence)
            or not refs
            or not all(isinstance(r, str) for r in refs)
        ):
            raise TypeError(
                f"`solutions[{index}]` must be a string or a non-empty list of strings."
            )
        result.append(list(refs))
    return result


__all__ = ["CODE_EVAL_WARNING", "check_candidates", "check_flag", "check_ks", "check_storable",
           "compute_code_eval"]
