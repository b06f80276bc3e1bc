"""CodeBLEU's per-item statistics rows, from the compiled engine or the pure-Python reference.

The compiled engine (``engine.py``, the C library built at install time) runs by default;
``CGM_CODEBLEU_ENGINE=python`` selects the reference (``reference.py``), which also runs
when the library is not available (``cgm_metrics.base.native.unavailable_reason()`` says why).
Both give the same rows; the tests keep them equal on every golden file.
"""

from __future__ import annotations

import os
from array import array

from .options import CodeBleuOptions
from .score import N_COLUMNS

ENGINE_VARIABLE = "CGM_CODEBLEU_ENGINE"
ENGINES = ("compiled", "python")
STAGES = ("comments", "parse", "flatten", "ngrams", "tokens", "syntax", "dataflow")


def engine() -> str:
    """The engine that runs: "compiled" unless ``CGM_CODEBLEU_ENGINE=python`` selects the
    reference or the compiled library is not available."""
    value = os.environ.get(ENGINE_VARIABLE, "compiled").strip().lower() or "compiled"
    if value not in ENGINES:
        raise ValueError(
            f"{ENGINE_VARIABLE} must be one of {', '.join(ENGINES)}; got {value!r}."
        )
    if value == "compiled":
        from . import engine as compiled

        if compiled.library() is None:
            return "python"
    return value


def statistics_rows(
    options: CodeBleuOptions,
    predictions: list[str],
    references: list[list[str]],
    timings: dict[str, float] | None = None,
) -> array:
    """One row of ``N_COLUMNS`` statistics per item, end to end (``score.py`` names the
    columns). ``timings`` receives the CPU seconds of each stage (``STAGES``; parsing is
    timed apart from walking only then, as the clock costs a little per snippet)."""
    rows = array("d", bytes(8 * N_COLUMNS * len(predictions)))
    spent = dict.fromkeys(STAGES, 0.0)
    if engine() == "compiled":
        from .engine import statistics as compiled

        compiled(options, predictions, references, rows, spent, profile=timings is not None)
    else:
        from .reference import statistics

        statistics(options, predictions, references, rows, spent)
    if timings is not None:
        for key, value in spent.items():
            timings[key] = timings.get(key, 0.0) + value
    return rows
