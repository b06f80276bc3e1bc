"""The body of the ``edit_sim`` evaluate module (and of the CLI/Space), kept in the library:
:class:`~cgm_metrics.maths.edit_sim.EditSimMetric`'s result (``Metric.compute``; COMBINED with
the outcomes given or found by running the tests in this package's sandbox) and pass@k."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..core.inputs import check_inputs
from ..languages import DEFAULT_LANGUAGE
from ..maths.edit_sim.similarity import EditSimMetric, check_passed, check_unit
from ..maths.passk import pass_at_k
from .code_eval import check_ks
from .judge import Judge, candidate_job
from .languages import find_toolchain, get_language
from .sandbox import check_count, check_flag, check_limits, require_opt_in


def group_outcomes(outcomes: np.ndarray, task_ids: Any) -> tuple[list[int], list[int]]:
    """Samples and correct samples per task, tasks in order of first appearance."""
    n_items = len(outcomes)
    if task_ids is None:
        return [1] * n_items, [int(x) for x in outcomes]
    if isinstance(task_ids, (str, bytes)) or not isinstance(task_ids, Sequence):
        if hasattr(task_ids, "tolist"):
            task_ids = task_ids.tolist()
        else:
            raise TypeError("`task_ids` must be a list with the task of each prediction.")
    task_ids = list(task_ids)
    if len(task_ids) != n_items:
        raise ValueError(
            f"`predictions` has {n_items} items but `task_ids` has {len(task_ids)}; give the "
            "task of every prediction."
        )
    order: dict[Any, int] = {}
    samples: list[int] = []
    correct: list[int] = []
    for index, (task, outcome) in enumerate(zip(task_ids, outcomes, strict=True)):
        try:
            slot = order.setdefault(task, len(order))
        except TypeError:
            raise TypeError(
                f"`task_ids[{index}]` is {type(task).__name__}; use strings or integers."
            ) from None
        if slot == len(samples):
            samples.append(0)
            correct.append(0)
        samples[slot] += 1
        correct[slot] += int(outcome)
    return samples, correct


def compute_edit_sim(
    predictions: Any,
    references: Any,
    passed: Any = None,
    k: Any = None,
    task_ids: Any = None,
    unit: str = "char",
    return_per_sample: bool = False,
    tests: Any = None,
    allow_code_execution: bool = False,
    timeout: Any = None,
    num_workers: Any = 4,
    memory_mb: Any = None,
    max_processes: Any = None,
    max_file_mb: Any = None,
    lang: Any = DEFAULT_LANGUAGE,
) -> dict:
    """EDIT-SIM, and with outcomes (given or from sandboxed tests) PASS, pass@k and COMBINED.
    ``lang``: the language ``tests`` run in (``execution.languages``; ``timeout`` None is its
    default, 3.0 s for Python). Every argument is checked (a ValueError naming a bad one)
    before any test runs."""
    preds, refs = check_inputs(predictions, references)
    check_unit(unit)
    return_per_sample = check_flag(return_per_sample, "return_per_sample")
    check_flag(allow_code_execution, "allow_code_execution")
    language = get_language(lang)
    limits = check_limits(language.default_timeout if timeout is None else timeout, memory_mb,
                          max_processes, max_file_mb)
    workers = check_count(num_workers, "num_workers", 1, 1024)
    ks = None if k is None else check_ks(k)
    verdicts = None
    if tests is not None:
        if passed is not None:
            raise ValueError("Give either `passed` (known outcomes) or `tests` (to run), not both.")
        require_opt_in(allow_code_execution)
        if isinstance(tests, str) or not isinstance(tests, Sequence):
            raise TypeError("`tests` must be a list with one test program (a string) per item.")
        tests = list(tests)
        if len(tests) != len(preds):
            raise ValueError(
                f"`predictions` has {len(preds)} items but `tests` has {len(tests)}; give one "
                "test program per prediction."
            )
        for index, test in enumerate(tests):
            if not isinstance(test, str):
                raise TypeError(f"`tests[{index}]` is {type(test).__name__}, not a string.")
        find_toolchain(language.name)  # a missing toolchain: its error before anything runs
        jobs = [candidate_job(index, prediction, test, language.name)
                for index, (prediction, test) in enumerate(zip(preds, tests, strict=True))]
        runs = Judge(limits, workers=workers).judge(jobs)
        passed = [run.passed for run in runs]
        verdicts = [run.verdict for run in runs]
    if passed is None:
        if k is not None or task_ids is not None:
            raise ValueError(
                "`k` and `task_ids` need unit-test outcomes: pass `passed=[...]` or `tests=[...]`."
            )
        scored = EditSimMetric(unit=unit).compute(preds, refs, per_item=return_per_sample)
        output: dict[str, Any] = {"edit_sim": scored["score"], "unit": unit}
        if return_per_sample:
            output["scores"] = scored["per_item"]
        return output
    outcomes = check_passed(passed, len(preds))
    scored = EditSimMetric(unit=unit, passed=outcomes).compute(
        preds, refs, per_item=return_per_sample, item_components=return_per_sample)
    output = {"edit_sim": scored["edit_sim"], "pass": scored["pass"],
              "combined": scored["combined"]}
    samples, correct = group_outcomes(outcomes, task_ids)
    for value in [1] if ks is None else ks:
        output[f"pass@{value}"] = pass_at_k(samples, correct, value)
    output["unit"] = unit
    if return_per_sample:
        output["scores"] = scored["item_components"]["edit_sim"]
        output["combined_scores"] = scored["per_item"]
        output["passed"] = [bool(x) for x in outcomes]
        if verdicts is not None:
            output["verdicts"] = verdicts
    return output
