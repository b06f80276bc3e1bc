"""Timing rules shared by the benchmarks, so that ours and the peer are measured alike.

- Both sides get the same items and the same number of runs, interleaved (ours, peer, ours,
  peer, ...) so that a change of load on a shared machine hits both; the best run counts.
- Whatever a user's call does (building the scorer, converting or parsing the inputs) is
  inside each side's timed function, or outside both.
- Every figure comes with the load average before and after, because the machine may be
  shared: compare the ratios of one run, not absolute times across runs.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from typing import Any


def load() -> str:
    """The 1-, 5- and 15-minute load averages and the number of CPUs, as one line."""
    return f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs"


def best_of(functions: dict[str, Callable[[], Any]], repeats: int) -> dict[str, tuple[float, Any]]:
    """``{name: (best seconds, result)}``: every function run ``repeats`` times, interleaved."""
    best = {name: float("inf") for name in functions}
    results: dict[str, Any] = {}
    for _ in range(repeats):
        for name, function in functions.items():
            start = time.perf_counter()
            results[name] = function()
            best[name] = min(best[name], time.perf_counter() - start)
    return {name: (best[name], results[name]) for name in functions}


def ratio_row(figure: str, peer_seconds: float, ours_seconds: float, unit: int,
              unit_name: str = "pair") -> str:
    """A markdown row: the figure, both times per unit and the ratio peer / ours."""
    return (f"| {figure} | {1e3 * peer_seconds / unit:.3f} ms/{unit_name} | "
            f"{1e3 * ours_seconds / unit:.3f} ms/{unit_name} | {peer_seconds / ours_seconds:.1f}x |")


def tranx_tokens(code: str) -> list[str]:
    """The code tokenizer of Out of the BLEU (TranX / Wang Ling) in its four published steps,
    as the peers of the benchmarks tokenize (the library has its own, faster)."""
    code = re.sub(r"([^A-Za-z0-9_])", r" \1 ", code)
    code = re.sub(r"([a-z])([A-Z])", r"\1 \2", code)
    code = re.sub(r"\s+", " ", code)
    return code.replace('"', "`").replace("'", "`").split()
