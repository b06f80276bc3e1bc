"""Markdown report with PNG plots (scores with CIs, significance matrices) for ``cgm``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ...base.errors import InputError
from ...base.formatting import format_p, format_value, matrix_rows
from ...base.io import atomic_path, write_atomic

if TYPE_CHECKING:
    from ...pipeline.evaluation import CompareResult


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt

    return plt


def plot_scores(results: dict, systems: list[str], path: Path) -> None:
    """One panel per metric: each system's score with its confidence interval."""
    plt = _pyplot()
    names = list(results)
    fig, axes = plt.subplots(1, len(names), figsize=(4.2 * len(names), 0.5 * len(systems) + 1.6),
                             squeeze=False)
    positions = np.arange(len(systems))[::-1]
    for ax, name in zip(axes[0], names, strict=True):
        scores = results[name]["scores"]
        values = np.array([scores[s]["score"] for s in systems])
        low = np.array([scores[s]["low"] for s in systems])
        high = np.array([scores[s]["high"] for s in systems])
        ax.errorbar(values, positions, xerr=[values - low, high - values], fmt="o",
                    color="tab:blue", ecolor="tab:gray", capsize=4)
        ax.set_yticks(positions)
        ax.set_yticklabels(systems)
        ax.set_title(name)
        ax.set_xlabel("score (95% CI)")
        ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    with atomic_path(path) as part:
        fig.savefig(part, dpi=110, format="png")
    plt.close(fig)


def plot_significance(results: dict, systems: list[str], path: Path, correction: str) -> None:
    """One heatmap per metric of the adjusted p-values of every pair, annotated."""
    plt = _pyplot()
    names = list(results)
    size = 0.75 * len(systems) + 1.8
    fig, axes = plt.subplots(1, len(names), figsize=(size * len(names), size), squeeze=False)
    index = {s: i for i, s in enumerate(systems)}
    for column, (ax, name) in enumerate(zip(axes[0], names, strict=True)):
        matrix = np.full((len(systems), len(systems)), np.nan)
        labels = [["" for _ in systems] for _ in systems]
        for pair in results[name]["pairs"]:
            i, j = index[pair["a"]], index[pair["b"]]
            matrix[i, j] = matrix[j, i] = pair["p_adjusted"]
            text = format_p(pair["p_adjusted"]) + ("*" if pair["significant"] else "")
            labels[i][j] = labels[j][i] = text
        image = ax.imshow(matrix, cmap="RdYlGn_r", vmin=0.0, vmax=1.0)
        for i in range(len(systems)):
            for j in range(len(systems)):
                dark = i != j and matrix[i, j] < 0.2
                ax.text(j, i, labels[i][j] if i != j else "-", ha="center", va="center",
                        fontsize=8, color="white" if dark else "black")
        ax.set_xticks(range(len(systems)))
        ax.set_xticklabels(systems, rotation=40, ha="right")
        ax.set_yticks(range(len(systems)))
        ax.set_yticklabels(systems if column == 0 else [])
        ax.set_title(f"{name}: {correction} p")
    fig.colorbar(image, ax=list(axes[0]), shrink=0.8, label="adjusted p-value")
    with atomic_path(path) as part:
        fig.savefig(part, dpi=110, bbox_inches="tight", format="png")
    plt.close(fig)


def _md_table(headers, rows) -> str:
    lines = ["| " + " | ".join(str(h) for h in headers) + " |",
             "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def write_report(
    directory: str,
    title: str,
    intro: str,
    comparison: CompareResult,
    correction_name: str,
    extra_columns: dict[str, dict[str, str]] | None = None,
) -> list[Path]:
    """Write ``report.md``, ``scores.png`` and ``significance.png`` into ``directory``."""
    results = comparison.rows()
    systems, n_items, settings = comparison.systems, comparison.n_items, comparison.settings
    folder = Path(directory)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InputError(f"Cannot create the report folder {directory}: "
                         f"{error.strerror}.") from None
    scores_png = folder / "scores.png"
    significance_png = folder / "significance.png"
    plot_scores(results, systems, scores_png)
    plot_significance(results, systems, significance_png, correction_name)
    extra_columns = extra_columns or {}

    parts = [f"# {title}", "", intro, ""]
    headers = ["system"] + list(extra_columns) + [f"{name} (95% CI)" for name in results]
    rows = []
    for system in systems:
        row = [system] + [column[system] for column in extra_columns.values()]
        for result in results.values():
            s, scale = result["scores"][system], result["scale"]
            row.append(f"{format_value(s['score'], scale)} "
                       f"[{format_value(s['low'], scale)}, "
                       f"{format_value(s['high'], scale)}]")
        rows.append(row)
    parts += ["## Scores", "", _md_table(headers, rows), "", "![scores](scores.png)", ""]
    parts += ["## Pairwise comparisons", "",
              f"{settings['method']}, seed {settings['seed']}, p-values {correction_name}-"
              f"adjusted over all pairs, alpha {settings['alpha']}; MDD = minimum detectable "
              f"difference at power {settings['power']} with {n_items} items.", ""]
    for name, result in results.items():
        scale = result["scale"]
        parts += [f"### {name}", "", _md_table(
            ["A vs B", "B - A", "p", f"p ({correction_name})", "MDD", "verdict"],
            [[f"{p['a']} vs {p['b']}", f"{p['delta']:+.4g}", format_p(p["p_value"]),
              format_p(p["p_adjusted"]), format_value(p["mdd"], scale),
              p["verdict"]] for p in result["pairs"]],
        ), "", _md_table([""] + systems, matrix_rows(systems, result["pairs"])), "",
            f"Signature: `{result['signature']}`", ""]
    parts += ["![significance matrix](significance.png)", ""]
    report = folder / "report.md"
    write_atomic(report, "\n".join(parts))
    return [report, scores_png, significance_png]
