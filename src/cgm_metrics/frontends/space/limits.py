"""What one request to the Space may ask for, and the cost model that decides which metrics run.

Every request is planned before anything is computed, from the characters each metric would
score (every candidate or prediction together with its references) and two measured rates:

* the **typical rate** of the metric, CPU seconds per 1,000 characters of real code
  (:func:`real_code_rates`, from the language modules: measured by
  ``python benchmarks/space.py --calibrate``); a metric not in the table (a plugin, a metric
  added later) is taken at its worst rate;
* the **worst rate**, the class attribute ``seconds_per_1k_chars`` (the slowest of the
  adversarial inputs of ``python benchmarks/metric_cost.py``: deep nesting, one long token,
  random unicode, ...).

A comparison adds its significance tests (:func:`test_seconds`, measured the same way).
Metrics are admitted cheapest first while the typical estimates fit :data:`METRIC_BUDGET` and
the worst-case estimates fit :data:`WORST_CASE_BUDGET`: real code answers within
:data:`TIME_BUDGET`, and no input within the limits, however adversarial, keeps a worker
longer than the worst-case budget. A metric is never dropped for a more expensive one; each
skipped metric is reported with the ``cgm`` command that computes it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from ...base.errors import InputError

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
    max_graded_rows: int = 5_000  # agreement uploads
    max_graded_systems: int = 10  # agreement uploads: 10 systems make 170 models


LIMITS = Limits()

TIME_BUDGET = 2.0  # seconds per request on real code
METRIC_BUDGET = 1.5  # of it for metrics and tests; the rest for reading, tables and the plot
WORST_CASE_BUDGET = 30.0  # seconds a request may take on adversarial input (half the workers' limit)

def real_code_rates() -> dict[str, dict[str, float]]:
    """CPU seconds per 1,000 characters scored, on real code, per metric and language: each
    language module's ``cost`` (:mod:`cgm_metrics.languages`), measured on the first 100
    pairs of each language of tests/data/codebleu (items of about 1,000 characters, the
    prediction with its references), one core, by ``python benchmarks/space.py --only
    calibrate`` (the highest of several runs, rounded up). A language without a measured rate
    is taken at the metric's slowest measured one."""
    from ...languages import all_languages

    rates: dict[str, dict[str, float]] = {}
    for name, language in all_languages().items():
        for metric, rate in language.cost.items():
            rates.setdefault(metric, {})[name] = float(rate)
    return rates



def rate_growth(name: str) -> float:
    """How the metric's rate on real code grows with the size of an item: its class
    attribute ``seconds_growth_per_1k_chars`` (seconds per 1,000 characters more, for every
    1,000 characters an item has beyond 1,000; 0 for a metric that cannot be loaded)."""
    from ...pipeline.registry import metric_class

    try:
        return float(metric_class(name).seconds_growth_per_1k_chars)
    except (ImportError, ValueError):
        return 0.0


#: significance tests per metric (paired bootstrap, 1,000 resamples, every pair, Holm):
#: seconds = fixed + per_cell * items * systems, from ``python benchmarks/space.py --only
#: model``
TEST_SECONDS_FIXED = 0.005
TEST_SECONDS_PER_CELL = 0.00001


def worst_seconds_per_1k_chars(name: str) -> float:
    """The metric's worst measured rate (its class attribute); a metric without one (a plugin
    that did not measure it) is taken to be as slow as the slowest measured one."""
    from ...pipeline.registry import metric_class, metrics

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


def real_code_rate(name: str, lang: str | None = None) -> float:
    """Seconds per 1,000 characters of real code in ``lang`` (items of about 1,000
    characters); the worst rate for a metric that was not calibrated."""
    rates = real_code_rates().get(name)
    if not rates:
        return worst_seconds_per_1k_chars(name)
    return float(rates.get(lang or "", max(rates.values())))


def item_sizes(systems: Iterable[Sequence[str]], references: Sequence[Sequence[str]]
               ) -> list[int]:
    """Characters of every (system, item) to score: the prediction and its references."""
    ref_chars = [sum(len(r) for r in refs) for refs in references]
    return [len(p) + ref_chars[i] for predictions in systems
            for i, p in enumerate(predictions)]


def estimated_seconds(name: str, sizes: Sequence[int], lang: str | None = None) -> float:
    """The plan's estimate of scoring items of ``sizes`` characters of real code: per item,
    its size times the rate, which grows by the metric's :func:`rate_growth` beyond 1,000
    characters."""
    import numpy as np

    kchars = np.asarray(sizes, dtype=np.float64) / 1000
    growth = rate_growth(name) if name in real_code_rates() else 0.0
    rates = real_code_rate(name, lang) + growth * np.maximum(kchars - 1, 0)
    return float((kchars * rates).sum())


def worst_case_seconds(name: str, sizes: Sequence[int], lang: str | None = None) -> float:
    """The longest scoring items of ``sizes`` characters can take (adversarial input): the
    worst rate times the characters, and never less than the estimate on real code."""
    worst = worst_seconds_per_1k_chars(name) * sum(sizes) / 1000
    return max(worst, estimated_seconds(name, sizes, lang))


def test_seconds(n_items: int, n_systems: int) -> float:
    """The estimate of one metric's significance tests on ``n_systems`` x ``n_items``."""
    return TEST_SECONDS_FIXED + TEST_SECONDS_PER_CELL * n_items * n_systems


@dataclass
class Plan:
    """The metrics a request computes, in the order asked, and why the others are left out."""

    admitted: list[str]
    skipped: dict[str, str] = field(default_factory=dict)
    #: name -> estimated seconds on real code (tests included)
    estimates: dict[str, float] = field(default_factory=dict)


def plan_metrics(names: list[str], sizes: Sequence[int], lang: str | None = None,
                 fixed_seconds: float = 0.0,
                 command: Callable[[str], str] | None = None) -> Plan:
    """Admit the metrics cheapest first (estimated cost of items of ``sizes`` characters of
    real code in ``lang``, plus ``fixed_seconds`` each for the tests) while the estimates fit
    :data:`METRIC_BUDGET` and the worst cases :data:`WORST_CASE_BUDGET`. Sorted by cost, the
    first metric that does not fit ends the plan: a metric is never left out while a more
    expensive one runs. ``command(name)`` is the ``cgm`` command that computes a skipped
    metric."""
    costs = {name: estimated_seconds(name, sizes, lang) + fixed_seconds for name in names}
    worst = {name: worst_case_seconds(name, sizes, lang) + fixed_seconds for name in names}
    n_chars = sum(sizes)
    order = sorted(names, key=lambda name: (costs[name], worst[name]))
    admitted: set[str] = set()
    skipped: dict[str, str] = {}
    spent = spent_worst = 0.0
    full = False
    for name in order:
        if not full and (spent + costs[name] <= METRIC_BUDGET
                         and spent_worst + worst[name] <= WORST_CASE_BUDGET):
            admitted.add(name)
            spent += costs[name]
            spent_worst += worst[name]
            continue
        full = True
        how = f" Compute it with `{command(name)}`." if command else ""
        skipped[name] = (
            f"too large for the Space: scoring {n_chars:,} characters with it takes about "
            f"{costs[name]:.1f} s on real code (up to {worst[name]:.0f} s on unusual input), "
            f"more than is left of the {TIME_BUDGET:g} s the Space allows a request after the "
            f"cheaper metrics.{how}"
        )
    return Plan([name for name in names if name in admitted],
                {name: skipped[name] for name in names if name in skipped},
                {name: costs[name] for name in names})
