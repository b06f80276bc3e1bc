"""What each tab of the page shows, from what the user typed or uploaded: the numbers
(:mod:`.views`) and their display (:mod:`.html`, :mod:`.plots`) in one call, so that a worker
process (:mod:`.workers`) sends back everything the page needs and the server only forwards it.

>>> page = side_by_side_page("python", "x = a + b", ["x = a + b", "x = a - b"])
>>> sorted(page)
['diffs_html', 'numbers', 'scores_html', 'skipped']
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .html import agreement_html, diff_html, side_by_side_html, systems_html
from .plots import agreement_png, differences_svg
from .views import agreement_upload, compare_uploads, side_by_side


def side_by_side_page(lang: Any, reference: Any, candidates: Any) -> dict[str, Any]:
    """``{"scores_html", "diffs_html", "numbers" (the side-by-side result), "skipped"}``."""
    result = side_by_side(reference, candidates, lang)
    diffs = "".join(diff_html(reference, c["code"], c["label"]) for c in result["candidates"])
    return {"scores_html": side_by_side_html(result), "diffs_html": diffs, "numbers": result,
            "skipped": result["skipped"]}


def compare_page(references: Any, systems: Any, lang: Any, metrics: Any,
                 unescape: bool = False) -> dict[str, Any]:
    """``{"html", "plot_svg", "summary" (scores and pairs per metric), "skipped",
    "warnings"}``."""
    result = compare_uploads(references, systems, lang, metrics, unescape=unescape)
    summary = {
        name: {"scores": entry["scores"], "pairs": entry["pairs"],
               "signature": entry["signature"]}
        for name, entry in result["metrics"].items()
    }
    return {"html": systems_html(result), "plot_svg": differences_svg(result),
            "summary": summary, "skipped": result["skipped"], "warnings": result["warnings"]}


def agreement_page(graded: Any, protocol: str, bins: Any) -> dict[str, Any]:
    """``{"html", "png" (the agreement plot, PNG bytes)}``."""
    result = agreement_upload(graded, protocol, bins)
    return {"html": agreement_html(result), "png": agreement_png(result)}


#: the tasks a worker process runs, by name
TASKS: dict[str, Callable[..., dict[str, Any]]] = {
    "side_by_side": side_by_side_page, "compare": compare_page, "agreement": agreement_page}
