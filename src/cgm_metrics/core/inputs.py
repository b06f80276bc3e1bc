"""Validation of the (predictions, references) inputs every metric takes.

Errors name the argument, the offending position and the fix, so a user never meets a
traceback from deep inside a metric.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def _describe(value: object) -> str:
    return "None" if value is None else type(value).__name__


def check_predictions(predictions: object, argument: str = "predictions") -> list[str]:
    """A list of strings, or a clear ``TypeError``/``ValueError``."""
    if isinstance(predictions, str) or not isinstance(predictions, Sequence):
        if hasattr(predictions, "tolist"):  # numpy arrays, pandas series
            predictions = predictions.tolist()
        else:
            raise TypeError(
                f"`{argument}` must be a list of strings (one per item), got "
                f"{_describe(predictions)}. Wrap a single prediction in a list: [prediction]."
            )
    result = list(predictions)
    for index, item in enumerate(result):
        if not isinstance(item, str):
            raise TypeError(
                f"`{argument}[{index}]` is {_describe(item)}, not a string. Every prediction "
                "must be a string; use '' for a missing output."
            )
    return result


def check_references(
    references: object, n_items: int, argument: str = "references"
) -> list[list[str]]:
    """A list of reference lists (one list per item), from strings or lists of strings."""
    if isinstance(references, str) or not isinstance(references, Sequence):
        if hasattr(references, "tolist"):
            references = references.tolist()
        else:
            raise TypeError(
                f"`{argument}` must be a list with one reference (a string) or a list of "
                f"references per item, got {_describe(references)}."
            )
    references = list(references)
    if len(references) != n_items:
        raise ValueError(
            f"`predictions` has {n_items} items but `{argument}` has {len(references)}; "
            "give exactly one reference (or one list of references) per prediction."
        )
    result: list[list[str]] = []
    for index, item in enumerate(references):
        if isinstance(item, str):
            result.append([item])
            continue
        if hasattr(item, "tolist"):
            item = item.tolist()
        if not isinstance(item, Sequence) or isinstance(item, (bytes, bytearray)):
            raise TypeError(
                f"`{argument}[{index}]` is {_describe(item)}; it must be a string or a list "
                "of strings."
            )
        item = list(item)
        if not item:
            raise ValueError(
                f"`{argument}[{index}]` is an empty list; every item needs at least one "
                "reference."
            )
        for inner, ref in enumerate(item):
            if not isinstance(ref, str):
                raise TypeError(
                    f"`{argument}[{index}][{inner}]` is {_describe(ref)}, not a string."
                )
        result.append(item)
    return result


def check_inputs(
    predictions: object, references: object, allow_empty: bool = False
) -> tuple[list[str], list[list[str]]]:
    """Validate and normalise a metric's inputs.

    Returns the predictions as a list of strings and the references as one list of strings
    per item. Raises ``ValueError`` for an empty corpus unless ``allow_empty``.
    """
    preds = check_predictions(predictions)
    refs = check_references(references, len(preds))
    if not preds and not allow_empty:
        raise ValueError(
            "`predictions` and `references` are empty; pass at least one item to score."
        )
    return preds, refs


# ------------------------------------------------------------------ options


def check_flag(value: object, argument: str) -> bool:
    """A real boolean (``True``/``False``, numpy's included); a string such as "yes" or
    "false" is an error, never read as true."""
    kind = type(value)
    if isinstance(value, bool) or (kind.__module__ == "numpy" and kind.__name__ in ("bool", "bool_")):
        return bool(value)  # numpy's bool, recognised without importing numpy
    raise TypeError(f"`{argument}` must be True or False, got {value!r}.")


def check_int(value: object, argument: str, low: int, high: int) -> int:
    """An integer in ``[low, high]`` (a bool is not an integer here)."""
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise TypeError(f"`{argument}` must be an integer from {low} to {high}, got {value!r}.")
    number = int(value.__index__())
    if not low <= number <= high:
        raise ValueError(f"`{argument}` must be an integer from {low} to {high}, got {number}.")
    return number


def check_number(
    value: object, argument: str, low: float, high: float, low_open: bool = False
) -> float:
    """A finite real number in ``[low, high]`` (or ``(low, high]`` with ``low_open``)."""
    if isinstance(value, (bool, str, bytes)):
        number = None
    else:
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = None
    interval = f"{'(' if low_open else '['}{low:g}, {high:g}]"
    if number is None:
        raise TypeError(f"`{argument}` must be a number in {interval}, got {value!r}.")
    if not (low < number if low_open else low <= number) or not number <= high:
        # NaN fails both comparisons and lands here too
        raise ValueError(f"`{argument}` must be a finite number in {interval}, got {value!r}.")
    return number


# ------------------------------------------------------------------ evaluate modules


def check_batch(inputs: dict[str, object], empty_ok: bool = False) -> None:
    """The list inputs of an evaluate module, checked before evaluate's own machinery sees
    them: evaluate would split a bare string into one-character items and fail with an
    IndexError deep inside on an empty batch. ``inputs`` maps argument names to values;
    ``None`` (not given) is left to evaluate."""
    given = {name: value for name, value in inputs.items() if value is not None}
    for name, value in given.items():
        if isinstance(value, (str, bytes)):
            raise TypeError(
                f"`{name}` must be a list (one entry per item), got a single "
                f"{type(value).__name__}. Wrap one item in a list: {name}=[...]."
            )
        if not hasattr(value, "__len__"):
            raise TypeError(
                f"`{name}` must be a list (one entry per item), got {_describe(value)}."
            )
    if not empty_ok and given and all(len(value) == 0 for value in given.values()):
        names = ", ".join(f"`{name}`" for name in given)
        raise ValueError(f"{names} are empty; pass at least one item to score.")
    lengths = {name: len(value) for name, value in given.items()}
    if len(set(lengths.values())) > 1:
        described = ", ".join(f"`{name}` has {n}" for name, n in lengths.items())
        raise ValueError(f"The inputs differ in length ({described}); give one entry per item.")


def uniform_references(references: Any) -> Any:
    """``references`` with one shape for the whole batch: a list of references per item as
    soon as one item has a list.

    evaluate picks the features from the first item only and casts the others to them, so in
    a mixed batch a string after a list becomes a list of its characters and a list after a
    string becomes its repr, silently. Every module of this project applies it in
    ``add_batch`` (:class:`CheckedModule`).
    """
    if isinstance(references, (list, tuple)):
        lists = [isinstance(item, (list, tuple)) for item in references]
        if any(lists) and not all(lists):
            return [item if is_list else [item] for item, is_list in zip(references, lists,
                                                                         strict=True)]
    return references


class CheckedModule:
    """Mixin for the evaluate modules of this project (``class M(CheckedModule,
    evaluate.Metric)``): ``compute`` and ``add_batch`` check the list inputs with
    :func:`check_batch` before evaluate does, so a bare string or an empty batch is a clear
    error naming the argument (``add`` takes one item, where a string is right)."""

    def _checked_inputs(self, predictions, references, kwargs) -> dict[str, object]:
        given = {"predictions": predictions, "references": references, **kwargs}
        return {name: given.get(name) for name in self._feature_names()}  # type: ignore[attr-defined]

    def compute(self, *, predictions=None, references=None, **kwargs):
        """Compute the module, after checking its list inputs (a bare string or an empty
        batch is a clear error)."""
        check_batch(self._checked_inputs(predictions, references, kwargs))
        return super().compute(predictions=predictions, references=references, **kwargs)

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add a batch, after checking its list inputs; references may mix strings and lists
        (:func:`uniform_references`)."""
        check_batch(self._checked_inputs(predictions, references, kwargs))
        return super().add_batch(
            predictions=predictions, references=uniform_references(references), **kwargs
        )
