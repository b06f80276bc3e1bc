"""What an evaluate module's ``compute`` costs beyond the metric: the training-loop call.

    python benchmarks/evaluate_overhead.py [--pairs 8] [--calls 20] [--repeats 5]

A training loop loads a module once and calls ``compute`` on a small batch at every
evaluation step. evaluate's own ``compute`` writes the batch to an Arrow cache file, reads it
back, deletes it, then scores; the modules of this library skip that round trip when it
changes nothing (one process, nothing added before) and call the metric directly. For each
module, three sides score the same ``--pairs`` pairs (``stdlib_pairs``: standard-library
functions against mutated copies), ``--calls`` calls per timed run, ``--repeats`` interleaved
runs (the best run counts, the median is recorded too):

- ``storage``: ``add_batch(...)`` then ``compute()``, evaluate's path through its cache (what
  every ``compute`` call cost before the direct path);
- ``compute``: ``compute(predictions=..., references=...)``, the training-loop call;
- ``score``: ``cgm_metrics.score(name, ...)``, the library's call (the metric's own work plus
  building it from the registry).

Every side must give the same score. The ratio ``storage / compute`` and the milliseconds per
call of each side are appended to ``benchmarks/results/evaluate_overhead.json``.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchtools import Record, interleaved, load  # noqa: E402
from corpus import stdlib_pairs  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

# module name -> (options of compute, the key of its score, options of cgm_metrics.score)
MODULES = {
    "chrf_code": ({}, "score", {}),
    "codebleu": ({"lang": "python"}, "codebleu", {"lang": "python"}),
    "ruby": ({}, "ruby", {"lang": "python"}),
    "tsed": ({}, "tsed", {"lang": "python"}),
    "edit_sim": ({}, "edit_sim", {}),
    "codexglue_edit_sim": ({}, "edit_sim", {}),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=8, help="pairs per call (a small batch)")
    parser.add_argument("--calls", type=int, default=20, help="compute calls per timed run")
    parser.add_argument("--repeats", type=int, default=5, help="interleaved runs (>= 3)")
    parser.add_argument("--modules", nargs="*", default=list(MODULES), choices=list(MODULES))
    args = parser.parse_args()

    import evaluate

    import cgm_metrics

    predictions, references = stdlib_pairs(args.pairs)
    print(f"{args.pairs} pairs a call, {args.calls} calls a run, {args.repeats} interleaved "
          f"runs; {load()}")
    record = Record("evaluate_overhead", {"pairs": args.pairs, "calls": args.calls,
                                          "repeats": args.repeats, "modules": args.modules})
    print("| module | evaluate's storage | compute | cgm_metrics.score | storage / compute |")
    print("|---|---|---|---|---|")
    for name in args.modules:
        options, key, score_options = MODULES[name]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            module = evaluate.load(str(ROOT / "metrics" / name))

        def storage(module=module, options=options, key=key):
            for _ in range(args.calls):
                module.add_batch(predictions=predictions, references=references)
                value = module.compute(**options)[key]
            return value

        def direct(module=module, options=options, key=key):
            for _ in range(args.calls):
                value = module.compute(predictions=predictions, references=references,
                                       **options)[key]
            return value

        def library(name=name, score_options=score_options):
            for _ in range(args.calls):
                value = cgm_metrics.score(name, predictions, references, **score_options)
            return value["score"]

        direct()  # grammars, compiled kernels and caches loaded outside the timings
        timed = interleaved({"storage": storage, "compute": direct, "score": library},
                            args.repeats)
        values = {side: timing.result for side, timing in timed.items()}
        if len(set(values.values())) != 1:
            raise SystemExit(f"{name}: the three calls disagree: {values}")
        ms = {side: 1e3 * timing.best / args.calls for side, timing in timed.items()}
        ratio = record.ratio(name, timed["storage"], timed["compute"],
                             f"{name}: add_batch + compute() (evaluate's cache round trip) vs "
                             f"compute(predictions=..., references=...), {args.pairs} pairs a "
                             "call", args.calls, "call")
        for side, value in ms.items():
            record.value(f"{name} {side}", value, "ms/call", f"{side} side, best run")
        record.value(f"{name} overhead", ms["compute"] - ms["score"], "ms/call",
                     "compute minus cgm_metrics.score, best runs")
        print(f"| {name} | {ms['storage']:.2f} ms | {ms['compute']:.2f} ms | "
              f"{ms['score']:.2f} ms | {ratio:.1f}x |")
    record.write()


if __name__ == "__main__":
    main()
