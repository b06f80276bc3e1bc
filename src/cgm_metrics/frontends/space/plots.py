"""The Space's images: the bootstrap distributions of the differences (an SVG drawn here, shown
by the browser: a few milliseconds, where matplotlib took 0.2 s a metric), the agreement plot
(:func:`cgm_metrics.agreement.plot`, a PNG)."""

from __future__ import annotations

import html
import math
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

COLOURS = ("#1c7ed6", "#e8590c", "#2b8a3e", "#ae3ec9", "#f08c00", "#0ca678", "#c92a2a",
           "#5c940d", "#364fc7", "#862e9c")
BINS = 40
# one panel per metric, in pixels
WIDTH, HEIGHT = 440, 300
LEFT, RIGHT, TOP, BOTTOM = 46, 12, 26, 40
LEGEND_ROW = 14
COLUMNS = 3  # panels per row


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """About ``count`` round tick values (steps of 1, 2 or 5 times a power of ten) covering
    ``[low, high]``."""
    if not high > low:
        return [low]
    raw = (high - low) / max(count - 1, 1)
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(low / step - 1e-9)
    last = math.floor(high / step + 1e-9)
    return [round(k * step, 12) for k in range(first, last + 1)]


def _tick_label(value: float) -> str:
    text = f"{value:.6g}"
    return "0" if text in ("-0", "0") else text.replace("-", "\u2212")


def _panel(name: str, metric: dict[str, Any], differences: dict[str, np.ndarray],
           x_offset: int, y_offset: int, height: int) -> str:
    """One metric: every pair's histogram of differences on shared bins, 0 marked."""
    pairs = {p["a"] + " vs " + p["b"]: p for p in metric["pairs"]}
    values = [np.asarray(v, dtype=np.float64) for v in differences.values()]
    finite = np.concatenate([v[np.isfinite(v)] for v in values]) if values else np.zeros(0)
    low = min(float(finite.min()) if finite.size else 0.0, 0.0)
    high = max(float(finite.max()) if finite.size else 0.0, 0.0)
    if high - low < 1e-12:
        low, high = low - 1.0, high + 1.0
    pad = (high - low) * 0.04
    low, high = low - pad, high + pad
    edges = np.linspace(low, high, BINS + 1)
    counts = {label: np.histogram(v[np.isfinite(v)], bins=edges)[0]
              for label, v in differences.items()}
    # the y scale is the spread distributions' (a pair without variation is a line)
    top = max([int(c.max()) for c, v in zip(counts.values(), values, strict=True)
               if c.size and np.ptp(v) > 0] + [1])
    plot_bottom = height - BOTTOM - LEGEND_ROW * len(differences) - 6
    plot_w, plot_h = WIDTH - LEFT - RIGHT, plot_bottom - TOP

    def x_of(value: float) -> float:
        return LEFT + (value - low) / (high - low) * plot_w

    def y_of(count: float) -> float:
        return plot_bottom - count / top * plot_h

    parts = [f"<g transform='translate({x_offset},{y_offset})' "
             f"data-metric='{html.escape(name)}'>",
             f"<text x='{WIDTH / 2:.0f}' y='16' text-anchor='middle' font-size='12'>"
             f"{html.escape(name)}: bootstrap B \u2212 A (* significant, Holm)</text>",
             f"<rect x='{LEFT}' y='{TOP}' width='{plot_w}' height='{plot_h}' fill='none' "
             "stroke='#d0d7de'/>"]
    for tick in nice_ticks(low, high):
        x = x_of(tick)
        parts.append(f"<line x1='{x:.1f}' y1='{plot_bottom}' x2='{x:.1f}' "
                     f"y2='{plot_bottom + 4}' stroke='#57606a'/><text x='{x:.1f}' "
                     f"y='{plot_bottom + 15}' text-anchor='middle' font-size='10'>"
                     f"{_tick_label(tick)}</text>")
    for tick in nice_ticks(0, top, 4):
        y = y_of(tick)
        parts.append(f"<line x1='{LEFT - 4}' y1='{y:.1f}' x2='{LEFT}' y2='{y:.1f}' "
                     f"stroke='#57606a'/><text x='{LEFT - 6}' y='{y + 3:.1f}' "
                     f"text-anchor='end' font-size='10'>{_tick_label(tick)}</text>")
    parts.append(f"<text x='{LEFT + plot_w / 2:.0f}' y='{plot_bottom + 30}' "
                 "text-anchor='middle' font-size='11'>difference (metric units)</text>"
                 f"<text x='12' y='{TOP + plot_h / 2:.0f}' font-size='11' text-anchor='middle' "
                 f"transform='rotate(-90 12 {TOP + plot_h / 2:.0f})'>resamples</text>")
    for index, (label, count) in enumerate(counts.items()):
        colour = COLOURS[index % len(COLOURS)]
        first, second = label.split(" vs ", 1)
        star = "*" if pairs[label]["significant"] else ""
        values_here = values[index]
        if values_here.size and np.ptp(values_here) == 0:  # the same outputs: no spread
            x = x_of(float(values_here[0]))
            shape = (f"<line class='spike' x1='{x:.1f}' y1='{TOP}' x2='{x:.1f}' "
                     f"y2='{plot_bottom}' stroke='{colour}' stroke-width='2' "
                     "stroke-dasharray='5 3'/>")
            note = " (no variation)"
        else:
            points = [f"M{x_of(edges[0]):.1f},{plot_bottom}"]
            for k, c in enumerate(count):
                y = y_of(float(min(c, top)))
                points.append(f"L{x_of(edges[k]):.1f},{y:.1f}L{x_of(edges[k + 1]):.1f},{y:.1f}")
            points.append(f"L{x_of(edges[-1]):.1f},{plot_bottom}Z")
            shape = (f"<path d='{''.join(points)}' fill='{colour}' fill-opacity='0.45' "
                     f"stroke='{colour}' stroke-width='1'/>")
            note = ""
        counts_text = " ".join(str(int(c)) for c in count)
        parts.append(f"<g class='pair' data-pair='{html.escape(label)}' "
                     f"data-counts='{counts_text}'>{shape}</g>")
        legend_y = plot_bottom + BOTTOM + 4 + LEGEND_ROW * index
        parts.append(f"<rect x='{LEFT}' y='{legend_y - 9}' width='10' height='10' "
                     f"fill='{colour}' fill-opacity='0.6'/><text x='{LEFT + 15}' "
                     f"y='{legend_y}' font-size='10'>{html.escape(second)} \u2212 "
                     f"{html.escape(first)}{star}{note}</text>")
    zero = x_of(0.0)
    parts.append(f"<line class='zero' x1='{zero:.1f}' y1='{TOP}' x2='{zero:.1f}' "
                 f"y2='{plot_bottom}' stroke='black' stroke-width='1'/></g>")
    return "".join(parts)


def differences_svg(result: dict[str, Any]) -> str:
    """An SVG: per metric, the bootstrap distribution of every pair's difference B - A on
    shared bins, with 0 marked; a distribution that straddles 0 is a difference the data
    cannot confirm. Names are escaped text (a ``$`` or ``<`` shows as typed)."""
    names = list(result["differences"])
    n_pairs = max([len(result["differences"][name]) for name in names] + [1])
    height = HEIGHT + LEGEND_ROW * n_pairs
    columns = max(1, min(COLUMNS, len(names)))
    rows = max(1, -(-len(names) // columns))
    panels = "".join(_panel(name, result["metrics"][name], result["differences"][name],
                            (index % columns) * WIDTH, (index // columns) * height, height)
                     for index, name in enumerate(names))
    width = WIDTH * columns
    return (f"<svg xmlns='http://www.w3.org/2000/svg' class='cgm-differences' "
            f"viewBox='0 0 {width} {height * rows}' width='{width}' height='{height * rows}' "
            "style='max-width: 100%; height: auto' "
            "font-family='ui-sans-serif, system-ui, sans-serif' role='img' "
            "aria-label='Bootstrap distributions of the differences between systems'>"
            f"{panels}</svg>")


def agreement_png(result: Any) -> bytes:
    """The agreement plot as PNG bytes (what a worker process sends back)."""
    from ...agreement import plot

    with tempfile.TemporaryDirectory(prefix="cgm-space-") as folder:
        path = plot(result, Path(folder) / "agreement.png")
        return path.read_bytes()
