"""Entry points of installed packages: the one door through which metrics and languages
of other packages come in (``cgm_metrics.metrics`` and ``cgm_metrics.languages``).

Discovery is lazy: nothing here runs on ``import cgm_metrics``, only when the registry or the
language table is first asked for a name it does not know, or for the full list.
"""

from __future__ import annotations

import warnings
from importlib import metadata

METRICS_GROUP = "cgm_metrics.metrics"
LANGUAGES_GROUP = "cgm_metrics.languages"


def entry_points(group: str) -> dict[str, metadata.EntryPoint]:
    """``{name: entry point}`` of ``group`` over every installed distribution, sorted by
    name. A name declared twice with different targets keeps the first one, with a warning
    (the same distribution seen twice on ``sys.path`` declares the same target: no warning)."""
    found: dict[str, metadata.EntryPoint] = {}
    for point in metadata.entry_points(group=group):
        seen = found.setdefault(point.name, point)
        if seen.value != point.value:
            warnings.warn(f"{group}: {point.name!r} is declared twice ({seen.value} and "
                          f"{point.value}); using {seen.value}.", RuntimeWarning, stacklevel=2)
    return dict(sorted(found.items()))


def load(point: metadata.EntryPoint) -> object:
    """The object an entry point names; any failure becomes an ``ImportError`` that names
    the entry point and its distribution."""
    try:
        return point.load()
    except Exception as error:  # noqa: BLE001 - a broken plugin must not break the library
        dist = getattr(point, "dist", None)
        owner = f" of {dist.name}" if dist is not None else ""
        raise ImportError(f"the entry point {point.name} = {point.value}{owner} "
                          f"({point.group}) failed to load: {type(error).__name__}: "
                          f"{error}") from error
