"""Writing an :class:`AgreementResult`: terminal table, JSON, CSV and the delta plot."""

from __future__ import annotations

import csv
import io
import json
import textwrap
from pathlib import Path

from ..base.io import atomic_path, write_atomic
from .analysis import AgreementResult

CSV_FIELDS = ("metric", "bin", "pairs", "significant", "not_significant", "mismatches",
              "type_i", "type_ii", "opposite", "mismatch_rate")
COLOURS = {"agree": "#2b8a3e", "type_i": "#e8590c", "type_ii": "#1c7ed6", "opposite": "#c92a2a"}


def format_table(result: AgreementResult) -> str:
    """The per-metric, per-bin table as plain text."""
    lines = [
        f"protocol {result.protocol} | aggregate {result.aggregate} | "
        f"{result.models_summary()} | {result.n_resamples} resamples | seed "
        f"{result.seed} | alpha {result.alpha:g}",
        *(f"note: {note}" for note in result.notes),
        f"{'metric':<12}{'bin':>8}{'pairs':>7}{'sig':>6}{'n.s.':>6}{'mism.':>7}{'I':>5}"
        f"{'II':>5}{'opp.':>6}{'rate':>8}",
    ]
    for metric, rows in result.table.items():
        for row in rows:
            rate = "-" if row["mismatch_rate"] is None else f"{row['mismatch_rate']:.4f}"
            lines.append(
                f"{metric:<12}{row['bin']:>8}{row['pairs']:>7}{row['significant']:>6}"
                f"{row['not_significant']:>6}{row['mismatches']:>7}{row['type_i']:>5}"
                f"{row['type_ii']:>5}{row['opposite']:>6}{rate:>8}"
            )
    lines.extend(textwrap.wrap(
        "bin: the metric's difference in points between two models; pairs: model pairs in it; "
        "sig / n.s.: pairs the metric finds significantly different / not; mism.: pairs whose "
        "metric verdict differs from the humans'; I: Type-I (the metric sees a difference the "
        "humans do not, or the opposite one); II: Type-II (the humans see a difference the "
        "metric does not); opp.: opposite directions (counted in I); rate: mism. / pairs",
        width=100))
    if result.correlations:
        lines.append("")
        lines.append(f"{'metric':<12}{'level':>11}{'pearson':>22}{'spearman':>22}"
                     f"{'kendall':>22}")
        for level in ("per_item", "per_system"):
            for metric, entry in result.correlations[level].items():
                cells = []
                for kind in ("pearson", "spearman", "kendall"):
                    c = entry[kind]
                    cells.append("-" if c["value"] is None else
                                 f"{c['value']:.3f} [{c['low']:.3f},{c['high']:.3f}]")
                lines.append(f"{metric:<12}{level:>11}" + "".join(f"{c:>22}" for c in cells))
    return "\n".join(lines)


def to_json(result: AgreementResult, path: str | Path | None = None) -> str:
    """The result as JSON: one top-level key per line, each value compact (json's C encoder
    runs only without ``indent``; an indented CoNaLa-sized result took seconds)."""
    items = result.to_dict().items()
    text = "{\n" + ",\n".join(
        f"{json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}" for key, value in items
    ) + "\n}"
    if path is not None:
        write_atomic(path, text + "\n")
    return text


def to_csv(result: AgreementResult, path: str | Path | None = None) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    for metric, rows in result.table.items():
        for row in rows:
            writer.writerow({"metric": metric, **{k: row[k] for k in CSV_FIELDS[1:]}})
    text = buffer.getvalue()
    if path is not None:
        write_atomic(path, text)
    return text


def plot(result: AgreementResult, path: str | Path) -> Path:
    """Metric delta against human delta per pair, one panel per metric, coloured by verdict
    agreement (the figure of Roy et al. 2021). Written with matplotlib's Agg backend."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    from matplotlib.figure import Figure

    metrics = [m for m in result.metrics if m != "grade"]
    columns = min(3, len(metrics))
    rows = -(-len(metrics) // columns)
    figure = Figure(figsize=(4.2 * columns, 3.6 * rows), layout="constrained")
    axes = figure.subplots(rows, columns, squeeze=False)
    for index, metric in enumerate(metrics):
        ax = axes[index // columns][index % columns]
        pairs = [p for p in result.pairs if p["metric"] == metric]
        for outcome, colour in COLOURS.items():
            chosen = [p for p in pairs if p["outcome"] == outcome]
            if chosen:
                ax.scatter([p["human_delta_points"] for p in chosen],
                           [p["metric_delta_points"] for p in chosen], s=10, c=colour,
                           label=f"{outcome} ({len(chosen)})", alpha=0.8)
        ax.axhline(0, color="grey", lw=0.5)
        ax.axvline(0, color="grey", lw=0.5)
        ax.set_title(metric)
        ax.set_xlabel("human delta (points)")
        ax.set_ylabel("metric delta (points)")
        ax.legend(fontsize=7, loc="upper left")
    for index in range(len(metrics), rows * columns):
        axes[index // columns][index % columns].set_visible(False)
    figure.suptitle(f"Metric vs human differences per model pair ({result.protocol})")
    path = Path(path)
    with atomic_path(path) as part:  # the format from the target's extension, not the part's
        figure.savefig(part, dpi=110, format=path.suffix.lstrip(".").lower() or "png")
    return path
