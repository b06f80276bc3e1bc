"""Validation of the (predictions, references) inputs every metric takes.

Errors name the argument, the offending position and the fix, so a user never meets a
traceback from deep inside a metric.
"""

from __future__ import annotations

from collections.abc import Sequence


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
