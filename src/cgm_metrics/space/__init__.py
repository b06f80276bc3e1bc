"""The Gradio Space (``spaces/app.py``) as a small package that displays: testable without a
browser.

* :mod:`.views`: the three views (side by side, systems, agreement), computed by
  :mod:`cgm_metrics.evaluation` and :mod:`cgm_metrics.agreement`;
* :mod:`.uploads`: uploaded files checked and read with the ``cgm`` readers;
* :mod:`.limits`: what a request may ask for and the time budget that picks the metrics;
* :mod:`.html` and :mod:`.plots`: what the page shows.

Everything is bounded (:data:`LIMITS`): a problem the user can fix raises
:class:`SpaceInputError` with a message meant for a browser. No code is ever executed (only
metrics that never run code are offered) and nothing here reaches the network.

>>> result = side_by_side("x = a + b", ["x = a + b", "x = a - b"], metrics=["chrf_code"])
>>> [round(c["scores"]["chrf_code"]["score"], 2) for c in result["candidates"]]
[100.0, 32.67]
"""

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
    SECONDS_PER_TEST_UNIT,
    SEED,
    TIME_BUDGET,
    Limits,
    SpaceInputError,
    estimated_seconds,
    plan_metrics,
)
from .plots import agreement_image, plain_label, plot_differences
from .uploads import check_upload, read_uploads, upload_names
from .views import (
    BIN_PRESETS,
    DEFAULT_SYSTEM_METRICS,
    EXAMPLES,
    agreement_upload,
    check_language,
    check_snippets,
    compare_uploads,
    language_choices,
    metric_choices,
    side_by_side,
    warm_up,
)

__all__ = [
    "ALPHA", "BIN_PRESETS", "DEFAULT_SYSTEM_METRICS", "EXAMPLES", "LIMITS", "METRIC_BUDGET",
    "RESAMPLES", "SECONDS_PER_TEST_UNIT", "SEED", "TIME_BUDGET", "TRUST_NOTE", "_TOKEN",
    "Limits", "SpaceInputError", "agreement_html", "agreement_image", "agreement_upload",
    "check_language", "check_snippets", "check_upload", "compare_uploads", "diff_html",
    "estimated_seconds", "explanation_markdown", "format_score", "language_choices",
    "metric_choices", "plain_label", "plan_metrics", "plot_differences", "read_uploads",
    "side_by_side", "side_by_side_html", "systems_html", "upload_names", "warm_up",
]
