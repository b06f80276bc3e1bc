"""Reading the canonical graded-outputs JSONL (one row per item and system): the one reader
of the format (``cgm agreement``, and ``cgm compare --graded`` / ``cgm score --graded``
through :meth:`GradedData.outputs`).

```
{"item": 0, "system": "gcnn", "prediction": "...", "references": ["..."],
 "grades": {"grader1": 4, "grader2": 3}, "grade": 4, "scores": {"chrf": 0.81},
 "dimensions": {"fluency": {"grader1": 5, "grader2": 4}}}
```

``dimensions`` (optional) holds further human judgements per grader on other scales (Roy et
al. 2021: conciseness, content adequacy, fluency on a 1-5 Likert scale).

Items keep the order in which they first appear, systems too. Every problem a user can fix
raises :class:`GradedInputError` (a ``ValueError``) naming the line and the fix.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..base.errors import InputError
from ..base.io import read_jsonl_rows


class GradedInputError(InputError):
    """A problem with a graded-outputs file (or rows) that the user can fix."""


@dataclass
class GradedData:
    """Systems' outputs on shared items with human grades and optional metric scores.

    Arrays are indexed ``[system, item]`` in the order of :attr:`systems` and :attr:`items`.
    """

    items: list[Any]
    systems: list[str]
    references: list[list[str]] | None  # per item; None when no row carries references
    predictions: list[list[str]] | None  # [system][item]; None when a row lacks it
    raw_grades: list[dict[str, float]] | None  # per task (system-major), grader -> grade
    grade: np.ndarray | None  # [system, item] aggregated grade given in the file
    scores: dict[str, np.ndarray] = field(default_factory=dict)  # metric -> [system, item]
    graders: list[str] = field(default_factory=list)  # in order of first appearance
    #: further human dimensions: name -> per task (system-major), grader -> value
    dimensions: dict[str, list[dict[str, float]]] = field(default_factory=dict)

    @property
    def n_items(self) -> int:
        return len(self.items)

    @property
    def n_systems(self) -> int:
        return len(self.systems)

    def outputs(self, systems: Any = None) -> tuple[list[list[str]], dict[str, list[str]]]:
        """References per item and ``{system: predictions}`` (of ``systems`` when given, in
        that order), for scoring; the file must have been read with ``require_text``."""
        if self.predictions is None or self.references is None:
            raise GradedInputError("The graded rows lack 'prediction' or 'references'; every "
                                   "row needs both to be scored.")
        names = list(self.systems)
        if systems:
            missing = [name for name in systems if name not in self.systems]
            if missing:
                raise GradedInputError(
                    f"no system {', '.join(repr(m) for m in missing)}; the systems are: "
                    f"{', '.join(self.systems)}."
                )
            names = list(dict.fromkeys(systems))
        return self.references, {name: self.predictions[self.systems.index(name)]
                                 for name in names}


def _where(source: str, number: int) -> str:
    return f"{source}, line {number}" if source else f"row {number}"


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(
        value
    )


def read_graded_jsonl(path: str | Path, require_grades: bool = True,
                      require_text: bool = False) -> GradedData:
    """Read and validate a graded-outputs JSONL file (blank lines are skipped).

    ``require_grades``: every row needs human grades and there are two systems or more (the
    agreement analysis);
    ``require_text``: every row needs ``prediction`` and ``references`` (scoring systems).
    """
    path = Path(path)
    if not path.is_file():
        raise GradedInputError(f"Graded file not found: {path}. Give a JSONL file with one row "
                               "per (item, system).")
    try:
        rows = read_jsonl_rows(path)
    except GradedInputError:
        raise
    except InputError as error:
        raise GradedInputError(str(error)) from None
    return graded_from_rows(rows, source=str(path), require_grades=require_grades,
                            require_text=require_text)


def graded_from_rows(rows: list, source: str = "", require_grades: bool = True,
                     require_text: bool = False) -> GradedData:
    """Validate rows (dicts, or ``(line number, dict)`` pairs) into :class:`GradedData`
    (``require_grades``/``require_text``: see :func:`read_graded_jsonl`)."""
    numbered = [
        row if isinstance(row, tuple) and len(row) == 2 else (index, row)
        for index, row in enumerate(rows, start=1)
    ]
    if not numbered:
        raise GradedInputError(f"{source or 'rows'}: no rows; give one row per (item, system).")
    item_index: dict[str, int] = {}
    items: list[Any] = []
    systems: list[str] = []
    cells: dict[str, dict[int, dict]] = {}
    references: list[list[str] | None] = []
    for number, row in numbered:
        where = _where(source, number)
        if not isinstance(row, dict):
            raise GradedInputError(f"{where}: expected a JSON object, got {type(row).__name__}.")
        for key in ("item", "system"):
            if key not in row:
                raise GradedInputError(f"{where}: missing field {key!r}; every row needs "
                                       "'item' and 'system'.")
        item, system = row["item"], row["system"]
        if not isinstance(system, str) or not system:
            raise GradedInputError(f"{where}: 'system' must be a non-empty string.")
        if not isinstance(item, (int, str)) or isinstance(item, bool):
            raise GradedInputError(f"{where}: 'item' must be an integer or a string id.")
        key = json.dumps(item)
        if key not in item_index:
            item_index[key] = len(items)
            items.append(item)
            references.append(None)
        index = item_index[key]
        refs = row.get("references")
        if refs is not None:
            if isinstance(refs, str):
                refs = [refs]
            if not (isinstance(refs, list) and refs and all(isinstance(r, str) for r in refs)):
                raise GradedInputError(f"{where}: 'references' must be a string or a non-empty "
                                       "list of strings.")
            if references[index] is None:
                references[index] = refs
        if require_text:
            for key in ("prediction", "references"):
                if key not in row:
                    present = ", ".join(repr(k) for k in row) or "none"
                    raise GradedInputError(f"{where}: no field {key!r} (fields present: "
                                           f"{present}); every row needs 'prediction' and "
                                           "'references'.")
        if "prediction" in row and not isinstance(row["prediction"], str):
            raise GradedInputError(f"{where}: 'prediction' must be a string.")
        if system not in cells:
            systems.append(system)
            cells[system] = {}
        if index in cells[system]:
            raise GradedInputError(f"{where}: item {item!r} appears twice for system "
                                   f"{system!r}; keep one row per (item, system).")
        cells[system][index] = dict(row, _line=number)
    for system in systems:
        missing = [items[i] for i in range(len(items)) if i not in cells[system]]
        if missing:
            shown = ", ".join(repr(m) for m in missing[:5]) + (", ..." if len(missing) > 5
                                                               else "")
            raise GradedInputError(
                f"{source or 'rows'}: system {system!r} has no row for {len(missing)} item(s) "
                f"({shown}); every system needs a row for every item."
            )
    if len(systems) < 2 and require_grades:
        raise GradedInputError(
            f"{source or 'rows'}: only one system ({systems[0]!r}); agreement compares pairs "
            "of systems, so give rows for at least two systems."
        )
    ordered = [[cells[s][i] for i in range(len(items))] for s in systems]
    flat = [row for per_system in ordered for row in per_system]
    predictions = None
    if all("prediction" in row for row in flat):
        predictions = [[row["prediction"] for row in per] for per in ordered]
    refs_out = None if any(r is None for r in references) else references

    raw_grades = None
    graders: list[str] = []
    if any(row.get("grades") is not None for row in flat):
        raw_grades = []
        for row in flat:
            grades = row.get("grades")
            where = _where(source, row["_line"])
            if not isinstance(grades, dict):
                raise GradedInputError(f"{where}: 'grades' must be an object {{grader: grade}} "
                                       "(other rows have raw grades).")
            kept: dict[str, float] = {}
            for grader, value in grades.items():
                if value is None:  # not graded by this grader
                    continue
                if not _number(value):
                    raise GradedInputError(f"{where}: grade of {grader!r} must be a number, got "
                                           f"{value!r}.")
                kept[str(grader)] = value
                if str(grader) not in graders:
                    graders.append(str(grader))
            if not kept:
                raise GradedInputError(f"{where}: no grades; every (item, system) needs at "
                                       "least one grade.")
            raw_grades.append(kept)

    grade = None
    if all(row.get("grade") is not None for row in flat):
        for row in flat:
            if not _number(row["grade"]):
                raise GradedInputError(f"{_where(source, row['_line'])}: 'grade' must be a "
                                       "number.")
        grade = np.array([[row["grade"] for row in per] for per in ordered], dtype=np.float64)
    if raw_grades is None and grade is None and require_grades:
        raise GradedInputError(f"{source or 'rows'}: no human grades; every row needs 'grades' "
                               "(raw, per grader) or 'grade' (aggregated).")

    scores: dict[str, np.ndarray] = {}
    names: list[str] = []
    for row in flat:
        value = row.get("scores")
        if value is None:
            continue
        if not isinstance(value, dict):
            raise GradedInputError(f"{_where(source, row['_line'])}: 'scores' must be an "
                                   "object {metric: value}.")
        names.extend(name for name in value if name not in names)
    for name in names:
        table = np.empty((len(systems), len(items)))
        for s, per in enumerate(ordered):
            for i, row in enumerate(per):
                value = (row.get("scores") or {}).get(name)
                if not _number(value):
                    raise GradedInputError(
                        f"{_where(source, row['_line'])}: score {name!r} is "
                        f"{'missing' if value is None else repr(value)}; every row needs a "
                        f"number for every metric in 'scores'."
                    )
                table[s, i] = value
        scores[name] = table
    return GradedData(items, systems, refs_out, predictions, raw_grades, grade, scores,  # type: ignore[arg-type]
                      graders, _dimensions(flat, source))  # refs_out holds no None (checked above)


def _dimensions(flat: list[dict], source: str) -> dict[str, list[dict[str, float]]]:
    """The rows' ``dimensions`` per name and task (absent or null: not judged)."""
    names: list[str] = []
    for row in flat:
        value = row.get("dimensions")
        if value is None:
            continue
        if not isinstance(value, dict) or not all(
            isinstance(v, dict) or v is None for v in value.values()
        ):
            raise GradedInputError(f"{_where(source, row['_line'])}: 'dimensions' must be an "
                                   "object {dimension: {grader: value}}.")
        names.extend(name for name in value if name not in names)
    out: dict[str, list[dict[str, float]]] = {name: [] for name in names}
    for row in flat:
        given = row.get("dimensions") or {}
        for name in names:
            kept: dict[str, float] = {}
            for grader, value in (given.get(name) or {}).items():
                if value is None:
                    continue
                if not _number(value):
                    raise GradedInputError(f"{_where(source, row['_line'])}: {name!r} of "
                                           f"{grader!r} must be a number, got {value!r}.")
                kept[str(grader)] = value
            out[name].append(kept)
    return out


def check_grade_range(data: GradedData, low: float, high: float) -> None:
    """Raise when a raw or aggregated grade lies outside ``[low, high]``."""
    if data.raw_grades is not None:
        for task, grades in enumerate(data.raw_grades):
            for grader, value in grades.items():
                if not low <= value <= high:
                    system, item = divmod(task, data.n_items)
                    raise GradedInputError(
                        f"grade {value!r} of {grader!r} for item {data.items[item]!r}, system "
                        f"{data.systems[system]!r} is outside the grade range [{low:g}, "
                        f"{high:g}]; fix the grade or set the range (--grade-range LOW HIGH). "
                        "Leave ungraded cells out (or null) rather than using -1."
                    )
    if data.grade is not None:
        bad = np.argwhere((data.grade < low) | (data.grade > high))
        if len(bad):
            system, item = bad[0]
            raise GradedInputError(
                f"aggregated grade {data.grade[system, item]:g} for item {data.items[item]!r}, "
                f"system {data.systems[system]!r} is outside the grade range [{low:g}, "
                f"{high:g}]; fix it or set the range (--grade-range LOW HIGH)."
            )
