"""Validation of the (predictions, references) inputs every metric takes.

Errors name the argument, the offending position and the fix, so a user never meets a
traceback from deep inside a metric.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from typing import Any

from ..base.errors import did_you_mean  # noqa: F401 - where its callers import it


def _describe(value: object) -> str:
    return "None" if value is None else type(value).__name__


def _entries(value: object) -> list | None:
    """``value`` as a list of its entries if it is an ordered collection (a list, a tuple, a
    numpy array, a pandas Series, a datasets Column); ``None`` for anything else (a string,
    bytes, a dict, a set, a number, a 0-d array, None)."""
    if isinstance(value, (str, bytes, bytearray, Mapping, Set)):
        return None
    if isinstance(value, (list, tuple)):
        return list(value)
    if hasattr(value, "tolist") and not isinstance(value, Sequence):  # numpy, pandas, torch
        converted = value.tolist()
        return converted if isinstance(converted, list) else None  # a 0-d array is a scalar
    if isinstance(value, Sequence):
        return list(value)
    return None


#: the shapes one entry of an input may take: a string, or a list of strings
STRING = "string"
STRINGS = "strings"


def _wanted(shapes: frozenset[str] | set[str]) -> str:
    return " or ".join(
        {STRING: "a string", STRINGS: "a list of strings"}[shape] for shape in sorted(shapes)
    )


def check_entry(
    entry: object, label: str, shapes: frozenset[str] | set[str], what: str = "item"
) -> str | list[str]:
    """One entry of an input (``label`` names it in errors, e.g. "`references[3]`"): a
    string, or a list of strings (returned as a list), as ``shapes`` allow. Where a string
    is allowed too (references), the list needs at least one string; a list-only input
    (code_eval's candidates per task) may be empty."""
    if isinstance(entry, str):
        if STRING not in shapes:
            raise TypeError(
                f"{label} is a string; each {what} needs {_wanted(shapes)}: wrap it, "
                f"[{label.strip('`')}]."
            )
        return entry
    inner = _entries(entry)
    if inner is None or STRINGS not in shapes:
        shown = "a list" if inner is not None else _describe(entry)
        fix = ""
        if set(shapes) == {STRING} and label.startswith("`prediction"):
            fix = " (use '' for a missing output)"
        elif set(shapes) == {STRINGS}:
            fix = " (wrap it in a list)"
        raise TypeError(
            f"{label} is {shown}, not a string; each {what} needs {_wanted(shapes)}{fix}."
        )
    if not inner and STRING in shapes:  # a string or its list: references, at least one
        raise ValueError(
            f"{label} is an empty list; every {what} needs at least one string."
        )
    for position, element in enumerate(inner):
        if isinstance(element, str):
            continue
        name = f"{label[:-1]}[{position}]`"
        if _entries(element) is not None:
            raise TypeError(
                f"{name} is a list, not a string: nested one level too deep. Give "
                f"{_wanted(shapes)} per {what}."
            )
        raise TypeError(f"{name} is {_describe(element)}, not a string.")
    return inner


def check_entries(
    values: object, argument: str, shapes: frozenset[str] | set[str], what: str = "item"
) -> list:
    """Every entry of one list input, checked against the shapes it may take
    (:data:`STRING`, :data:`STRINGS` or both), as a plain list: strings stay strings, lists
    of strings (tuples, arrays) become lists. Anything else, a list nested one level too
    deep included, is a ``TypeError`` naming ``argument[i]`` (or ``argument[i][j]``); an
    empty list of strings is a ``ValueError``."""
    if isinstance(values, (str, bytes, bytearray)):
        raise TypeError(
            f"`{argument}` must be a list (one entry per {what}), got a single "
            f"{type(values).__name__}. Wrap one {what} in a list: {argument}=[...]."
        )
    entries = _entries(values)
    if entries is None:
        raise TypeError(
            f"`{argument}` must be a list (one entry per {what}), got {_describe(values)}."
        )
    for index, entry in enumerate(entries):
        if not isinstance(entry, str):  # the common case costs one isinstance
            entries[index] = check_entry(entry, f"`{argument}[{index}]`", shapes, what)
        elif STRING not in shapes:
            check_entry(entry, f"`{argument}[{index}]`", shapes, what)
    return entries


def check_predictions(predictions: object, argument: str = "predictions") -> list[str]:
    """A list of strings, or a clear ``TypeError``/``ValueError``."""
    return check_entries(predictions, argument, {STRING})


def check_references(
    references: object, n_items: int, argument: str = "references",
    predictions_argument: str = "predictions",
) -> list[list[str]]:
    """A list of reference lists (one list per item), from strings or lists of strings."""
    checked = check_entries(references, argument, {STRING, STRINGS})
    if len(checked) != n_items:
        raise ValueError(
            f"`{predictions_argument}` has {n_items} items but `{argument}` has {len(checked)}; "
            "give exactly one reference (or one list of references) per prediction."
        )
    return [[entry] if isinstance(entry, str) else entry for entry in checked]


def check_inputs(
    predictions: object, references: object, allow_empty: bool = False,
    names: tuple[str, str] = ("predictions", "references"),
) -> tuple[list[str], list[list[str]]]:
    """Validate and normalise a metric's inputs.

    Returns the predictions as a list of strings and the references as one list of strings
    per item. Raises ``ValueError`` for an empty corpus unless ``allow_empty``. ``names``
    are the argument names the errors use (e.g. ``("predictions_b", "references")``).
    """
    preds = check_predictions(predictions, names[0])
    refs = check_references(references, len(preds), names[1], names[0])
    if not preds and not allow_empty:
        raise ValueError(
            f"`{names[0]}` and `{names[1]}` are empty; pass at least one item to score."
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


# ------------------------------------------------------------------ list inputs of a batch


def feature_shapes(features: Any) -> dict[str, frozenset[str]]:
    """The shapes each input of an evaluate module may take, read from its features (one
    ``datasets.Features`` or a list of options): ``Value("string")`` is :data:`STRING`, a
    sequence of strings :data:`STRINGS`. An input of any other type is left out (evaluate
    checks it)."""
    options = features if isinstance(features, (list, tuple)) else [features]
    shapes: dict[str, set[str]] = {}
    unknown: set[str] = set()
    for option in options:
        for name, feature in option.items():
            inner = getattr(feature, "feature", None)
            if getattr(feature, "dtype", None) == "string":
                shapes.setdefault(name, set()).add(STRING)
            elif inner is not None and getattr(inner, "dtype", None) == "string":
                shapes.setdefault(name, set()).add(STRINGS)
            else:
                unknown.add(name)
    return {name: frozenset(kinds) for name, kinds in shapes.items() if name not in unknown}


def uniform_entries(entries: list, shapes: frozenset[str]) -> list:
    """An input that may be a string or a list of strings per item, as lists throughout.

    evaluate picks one feature set from the first item and casts every later item (and
    batch) to it: a string after a list would become a list of its characters, a list after
    a string its repr. One shape for every item and every batch avoids both."""
    if STRING in shapes and STRINGS in shapes:
        return [[entry] if isinstance(entry, str) else entry for entry in entries]
    return entries


def check_batch(
    inputs: dict[str, object], empty_ok: bool = False,
    shapes: dict[str, frozenset[str]] | None = None,
) -> dict[str, object]:
    """The list inputs of an evaluate module, checked before evaluate's own machinery sees
    them, and returned as plain lists. evaluate would split a bare string into one-character
    items, fail with an IndexError on an empty batch, and cast any object to its printed
    string (a number, a dict, a list nested one level too deep) where the first item was a
    string. ``inputs`` maps argument names to values; nothing given (all ``None``) is left
    to evaluate; ``shapes`` (:func:`feature_shapes`) are checked entry by entry."""
    given = {name: value for name, value in inputs.items() if value is not None}
    if not given:
        return dict(inputs)
    missing = [name for name in inputs if name not in given]
    if missing:
        raise TypeError(
            f"{', '.join(f'`{name}`' for name in missing)} "
            f"{'is' if len(missing) == 1 else 'are'} missing (None) while "
            f"{', '.join(f'`{name}`' for name in given)} {'is' if len(given) == 1 else 'are'} "
            f"given; pass every one of {', '.join(inputs)} as a list with one entry per item."
        )
    checked: dict[str, object] = {}
    for name, value in given.items():
        kinds = (shapes or {}).get(name)
        if kinds is None:
            if isinstance(value, (str, bytes)):
                raise TypeError(
                    f"`{name}` must be a list (one entry per item), got a single "
                    f"{type(value).__name__}. Wrap one item in a list: {name}=[...]."
                )
            if not hasattr(value, "__len__"):
                raise TypeError(
                    f"`{name}` must be a list (one entry per item), got {_describe(value)}."
                )
            checked[name] = value
        else:
            checked[name] = uniform_entries(check_entries(value, name, kinds), kinds)
    if not empty_ok and all(len(value) == 0 for value in checked.values()):
        names = ", ".join(f"`{name}`" for name in checked)
        raise ValueError(f"{names} are empty; pass at least one item to score.")
    lengths = {name: len(value) for name, value in checked.items()}
    if len(set(lengths.values())) > 1:
        described = ", ".join(f"`{name}` has {n}" for name, n in lengths.items())
        raise ValueError(f"The inputs differ in length ({described}); give one entry per item.")
    return checked
