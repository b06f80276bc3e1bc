"""The Gradio Space (``spaces/app.py``) as a small package that displays: testable without a
browser.

* :mod:`.views`: the three views (side by side, systems, agreement), computed by
  :mod:`cgm_metrics.pipeline.evaluation` and :mod:`cgm_metrics.agreement`;
* :mod:`.uploads`: uploaded files checked and read with the ``cgm`` readers;
* :mod:`.limits`: what a request may ask for and the time budget that picks the metrics;
* :mod:`.html` and :mod:`.plots`: what the page shows;
* :mod:`.pages`: each tab's answer in one call (numbers and display);
* :mod:`.workers`: warm worker processes that compute the answers on every core.

Everything is bounded (:data:`LIMITS`): a problem the user can fix raises
:class:`SpaceInputError` with a message meant for a browser. No code is ever executed (only
metrics that never run code are offered) and nothing here reaches the network.

>>> result = side_by_side("x = a + b", ["x = a + b", "x = a - b"], metrics=["chrf_code"])
>>> [round(c["scores"]["chrf_code"]["score"], 2) for c in result["candidates"]]
[100.0, 32.67]
"""

from . import workers
from .html import (
    _TOKEN,
    TRUST_NOTE,
    agreement_html,
    diff_html,
    explanation_markdown,
    format_score,
    side_by_side_html,
    systems_html,
)
from .limits import (
    ALPHA,
    LIMITS,
    METRIC_BUDGET,
    RESAMPLES,
    SEED,
    TIME_BUDGET,
    WORST_CASE_BUDGET,
    Limits,
    Plan,
    SpaceInputError,
    estimated_seconds,
    item_sizes,
    plan_metrics,
    rate_growth,
    test_seconds,
    worst_case_seconds,
)
from .pages import agreement_page, compare_page, side_by_side_page
from .plots import agreement_png, differences_svg
from .uploads import check_upload, read_uploads, upload_names
from .views import (
    BIN_PRESETS,
    DEFAULT_SYSTEM_METRICS,
    EXAMPLES,
    agreement_upload,
    check_language,
    check_snippets,
    compare_command,
    compare_uploads,
    language_choices,
    metric_choices,
    score_command,
    side_by_side,
    warm_up,
)

__all__ = [
    "ALPHA", "BIN_PRESETS", "DEFAULT_SYSTEM_METRICS", "EXAMPLES", "LIMITS", "METRIC_BUDGET",
    "RESAMPLES", "SEED", "TIME_BUDGET", "TRUST_NOTE",
    "WORST_CASE_BUDGET", "_TOKEN", "Limits", "Plan", "SpaceInputError", "agreement_html",
    "agreement_page", "agreement_png", "agreement_upload", "check_language", "check_snippets",
    "check_upload", "compare_command", "compare_page", "compare_uploads", "diff_html",
    "differences_svg", "estimated_seconds", "explanation_markdown", "format_score", "item_sizes",
    "language_choices", "metric_choices", "plan_metrics", "rate_growth", "read_uploads",
    "score_command", "side_by_side", "side_by_side_html", "side_by_side_page",
    "systems_html", "test_seconds", "upload_names", "warm_up", "workers",
    "worst_case_seconds",
]
