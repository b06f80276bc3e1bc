"""The Space's images: the bootstrap distributions of the differences, the agreement plot."""

from __future__ import annotations

import io
import tempfile
from pathlib import Path
from typing import Any

import numpy as np


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=True)  # images only, no display
    from matplotlib.figure import Figure

    return Figure


def _figure_image(figure: Any) -> Any:
    from PIL import Image

    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100)
    buffer.seek(0)
    image = Image.open(buffer)
    image.load()
    return image


def plain_label(text: str) -> str:
    """Text matplotlib shows as typed: ``$`` would start mathtext (``sys_$\\frac$`` fails
    to parse), so it is escaped."""
    return text.replace("$", r"\$")


def plot_differences(result: dict[str, Any]) -> Any:
    """A PIL image: per metric, the bootstrap distribution of every pair's difference B - A,
    with 0 marked; a distribution that straddles 0 is a difference the data cannot confirm."""
    figure_type = _pyplot()
    names = list(result["differences"])
    figure = figure_type(figsize=(4.6 * len(names), 3.4), layout="constrained")
    axes = figure.subplots(1, len(names), squeeze=False)[0]
    colours = ["#1c7ed6", "#e8590c", "#2b8a3e", "#ae3ec9", "#f08c00", "#0ca678", "#c92a2a",
               "#5c940d", "#364fc7", "#862e9c"]
    for ax, name in zip(axes, names, strict=True):
        pairs = {p["a"] + " vs " + p["b"]: p for p in result["metrics"][name]["pairs"]}
        for index, (label, values) in enumerate(result["differences"][name].items()):
            star = "*" if pairs[label]["significant"] else ""
            colour = colours[index % len(colours)]
            first, second = label.split(" vs ", 1)
            text = plain_label(f"{second} - {first}{star}")
            if np.ptp(values) == 0:  # the same outputs: a spike would flatten the others
                ax.axvline(float(values[0]), color=colour, lw=2, ls="--",
                           label=f"{text} (no variation)")
            else:
                ax.hist(values, bins=40, alpha=0.55, color=colour, label=text)
        ax.axvline(0.0, color="black", lw=1)
        ax.set_title(plain_label(f"{name}: bootstrap B - A (* significant, Holm)"),
                     fontsize=10)
        ax.set_xlabel("difference (metric units)")
        ax.set_ylabel("resamples")
        ax.legend(fontsize=7)
    return _figure_image(figure)



def agreement_image(result: Any) -> Any:
    """The metric vs human delta plot of :func:`cgm_metrics.agreement.plot` as a PIL image."""
    from PIL import Image

    from ..agreement import plot

    with tempfile.TemporaryDirectory(prefix="cgm-space-") as folder:
        path = plot(result, Path(folder) / "agreement.png")
        image = Image.open(path)
        image.load()
    return image
