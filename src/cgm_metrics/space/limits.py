"""What one request to the Space may ask for, and the time budget that decides which metrics
run: every request answers within :data:`TIME_BUDGET` seconds.

Before computing anything, the cost of each chosen metric is estimated from the characters it
would score (each candidate or prediction together with its reference) at the metric's worst
measured rate (the class attribute ``seconds_per_1k_chars``, printed by
``python benchmarks/metric_cost.py``); a comparison adds the cost of its significance tests.
Metrics are admitted cheapest first while the estimates fit :data:`METRIC_BUDGET`; the others
are reported as too large for the Space, with the ``cgm`` command to use instead.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import InputError

SEED = 12345
RESAMPLES = 1000
ALPHA = 0.05


class SpaceInputError(InputError):
    """A problem with what the user typed or uploaded, phrased for the browser."""


@dataclass(frozen=True)
class Limits:
    """What one request may ask for; the cost of a request is bounded by these."""

    max_snippet_chars: int = 5_000  # per snippet in the side-by-side view
    max_candidates: int = 4
    max_upload_bytes: int = 2_000_000  # per uploaded file
    max_items: int = 500  # per system file
    max_item_chars: int = 5_000  # per prediction or reference in uploaded files
    max_systems: int = 5
    max_graded_rows: int = 5_000


LIMITS = Limits()

TIME_BUDGET = 2.0  # seconds per request
METRIC_BUDGET = 1.5  # seconds of it for metrics and tests; the rest for diffs, tables, plots
SECONDS_PER_TEST_UNIT = 0.0006  # significance tests: per item x (systems + pairs), per metric


def seconds_per_1k_chars(name: str) -> float:
    """The metric's measured worst rate; a metric without one (a plugin that did not
    measure it) is taken to be as slow as the slowest measured one."""
    from ..registry import metric_class, metrics

    def rate(metric: str) -> float | None:
        try:
            return metric_class(metric).seconds_per_1k_chars
        except (ImportError, ValueError):
            return None

    own = rate(name)
    if own is not None:
        return float(own)
    known = [r for r in map(rate, metrics()) if r is not None]
    return float(max(known, default=1.0))


def estimated_seconds(name: str, n_chars: int) -> float:
    """The budget's estimate of scoring ``n_chars`` characters with the metric ``name``."""
    return seconds_per_1k_chars(name) * n_chars / 1000


def plan_metrics(names: list[str], n_chars: int, fixed_seconds: float = 0.0,
                 command: str = "cgm score") -> tuple[list[str], dict[str, str]]:
    """``(admitted, {skipped: reason})``: as many of the metrics as fit :data:`METRIC_BUDGET`
    by estimated cost (plus ``fixed_seconds`` each, for the tests), cheapest first; the
    admitted ones keep the order of ``names``."""
    admitted: list[str] = []
    skipped: dict[str, str] = {}
    spent = 0.0
    costs = {name: estimated_seconds(name, n_chars) + fixed_seconds for name in names}
    for name in sorted(names, key=costs.__getitem__):
        cost = costs[name]
        if spent + cost <= METRIC_BUDGET:
            admitted.append(name)
            spent += cost
        else:
            skipped[name] = (
                f"too large for the Space: {n_chars:,} characters to score would take about "
                f"{cost:.1f} s, and the Space answers every request within "
                f"{TIME_BUDGET:g} s. Use `{command}` (pip install cgm-metrics) for this input, "
                "or shorten it here."
            )
    return [name for name in names if name in admitted], {
        name: skipped[name] for name in names if name in skipped}
