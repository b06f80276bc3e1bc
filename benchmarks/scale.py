"""Items per second of the per-item statistics: one process, ``--jobs 2``, Ray with 1 and 2 workers.

    python benchmarks/scale.py [--n 100000] [--metrics chrf_code codebleu] [--batch-size 256]

The baseline of every ratio is the best single-process path, the faster of two: one
``metric.statistics()`` call over every item, and the same process scoring chunks of
``runner.CHUNK_SIZE`` items one after the other (the chunks ``--jobs N`` hands its workers;
a large batch in one call can be slower per item than small ones). So the ratio of ``--jobs
2`` or Ray is what the extra processes add, not what chunking adds.

Needs Ray (``pip install "cgm-metrics[ray]"``); starts a local Ray with ``--cpus`` CPUs
(default 2). Every engine scores the same ``--n`` pairs (standard-library functions against
mutated copies, cycled with fresh mutations) and must return the same statistics, byte for byte,
as the one-process run; the script stops if one does not. Then a per-item cost breakdown of the
Ray path: compute (the metric itself), encode (the driver packs items into Arrow blocks in the
object store), decode (a worker unpacks a block into Python strings), and the rest (scheduling,
transfers, actor start-up). The fixed cost of a run (starting the actors, building the metrics)
is measured on a run of one block.

Timings on a shared machine are noisy: every engine runs ``--repeats`` (>= 3) times,
interleaved (one run of each engine, then again); the best run counts and the median is
recorded too. Compare the engines within one run, and read the load average printed at the
start and the end. Every run appends its figures, with the machine, the load and the date,
to benchmarks/results/scale.json.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchtools import Record, interleaved  # noqa: E402
from corpus import mutate, stdlib_functions  # noqa: E402

import cgm_metrics  # noqa: E402
from cgm_metrics.pipeline import distributed  # noqa: E402


def pairs(n: int, seed: int = 0) -> tuple[list[str], list[list[str]]]:
    """``n`` (prediction, [reference]) pairs: the stdlib functions, cycled, each time with
    fresh mutations."""
    functions = stdlib_functions(min(n, 5000), seed=seed)
    rng = random.Random(seed)
    references = [functions[i % len(functions)] for i in range(n)]
    predictions = [mutate(ref, rng) for ref in references]
    return predictions, [[ref] for ref in references]


def one_process(name: str, predictions, references) -> np.ndarray:
    return cgm_metrics.get_metric(name, lang="python").statistics(predictions, references)


def one_process_chunked(name: str, predictions, references) -> np.ndarray:
    """The same process scoring chunks of ``runner.CHUNK_SIZE`` items one after the other."""
    from cgm_metrics.pipeline.runner import CHUNK_SIZE

    metric = cgm_metrics.get_metric(name, lang="python")
    return np.concatenate([
        np.asarray(metric.statistics(predictions[start:start + CHUNK_SIZE],
                                     references[start:start + CHUNK_SIZE]), dtype=np.float64)
        for start in range(0, len(predictions), CHUNK_SIZE)])


def process_pool(name: str, predictions, references, jobs: int) -> np.ndarray:
    """The CLI's ``--jobs`` runner (a process pool over chunks of items)."""
    from cgm_metrics.pipeline.evaluation import compute_statistics, load_metrics

    metric_set = load_metrics([name], "python")
    return compute_statistics(metric_set, {"s": predictions}, references, jobs=jobs)[name]["s"]


def on_ray(name: str, predictions, references, workers: int, batch_size: int) -> np.ndarray:
    metric = cgm_metrics.get_metric(name, lang="python")
    return distributed.ray_statistics(metric, predictions, references, workers=workers,
                                      batch_size=batch_size)


def timed(function, *args):
    start = time.perf_counter()
    result = function(*args)
    return result, time.perf_counter() - start


def breakdown(name: str, predictions, references, batch_size: int, ray_seconds: float,
              workers: int) -> dict[str, float]:
    """Microseconds per item of each part of a Ray run, each part timed here on its own."""
    import ray

    from cgm_metrics.core.inputs import check_inputs

    n = len(predictions)
    start = time.perf_counter()
    blocks = distributed._list_blocks(predictions, references, batch_size, 0)
    encode = time.perf_counter() - start
    tables = ray.get(blocks)
    start = time.perf_counter()
    for table in tables:
        check_inputs(table.column("prediction").to_pylist(),
                     table.column("references").to_pylist())
    decode = time.perf_counter() - start
    del blocks, tables
    sample = slice(0, min(n, 2000))
    stats, compute = timed(one_process, name, predictions[sample], references[sample])
    scale = n / len(predictions[sample])
    start = time.perf_counter()
    for first in range(0, len(stats), batch_size):
        block = np.ascontiguousarray(stats[first:first + batch_size])
        np.frombuffer(block.tobytes(), dtype=block.dtype)
    results = (time.perf_counter() - start) * scale
    compute *= scale
    parts = {"compute": compute, "encode (driver)": encode, "decode (worker)": decode,
             "results": results}
    # the workers share compute, decode and results; the driver encodes alone
    parallel = (compute + decode + results) / workers + encode
    parts["scheduling, transfers, start-up"] = max(0.0, ray_seconds - parallel)
    return {key: value / n * 1e6 for key, value in parts.items()}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000, help="items (default 100000)")
    parser.add_argument("--metrics", nargs="+", default=["chrf_code", "codebleu"])
    parser.add_argument("--batch-size", type=int, default=None,
                        help="items per block (default: ray_statistics' default)")
    parser.add_argument("--cpus", type=int, default=2, help="CPUs of the local Ray (default 2)")
    parser.add_argument("--repeats", type=int, default=3, help="interleaved runs (>= 3)")
    args = parser.parse_args(argv)
    record = Record("scale", {"n": args.n, "metrics": args.metrics,
                              "batch_size": args.batch_size, "cpus": args.cpus,
                              "repeats": args.repeats})
    ray = distributed.require_ray()
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())} "
          f"on {os.cpu_count()} CPUs")
    predictions, references = pairs(args.n)
    # Ray runs its workers at niceness 15; the one-process and --jobs runs run at 0. On a
    # machine shared with other work that alone would slow Ray down, so run them at 0 too.
    os.environ.setdefault("RAY_worker_niceness", "0")
    start = time.perf_counter()
    ray.init(num_cpus=args.cpus, include_dashboard=False, logging_level="WARNING",
             log_to_driver=False)
    print(f"{args.n} items; local Ray with {args.cpus} CPUs started in "
          f"{time.perf_counter() - start:.1f} s; Ray {ray.__version__}, "
          f"block {args.batch_size or distributed._block_size(args.n, 2)} items, "
          f"worker niceness {os.environ['RAY_worker_niceness']}")
    for name in args.metrics:
        # first a run of one block: the fixed cost of a run (actors started, metric built),
        # and the first run after ray.init no longer pays for the cluster's warm-up
        _, fixed = timed(on_ray, name, predictions[:256], references[:256], 1, 256)
        engines = {
            "1 process, 1 call": lambda m=name: one_process(m, predictions, references),
            "1 process, chunks": lambda m=name: one_process_chunked(m, predictions, references),
            "--jobs 2": lambda m=name: process_pool(m, predictions, references, 2),
            "Ray, 1 worker": lambda m=name: on_ray(m, predictions, references, 1,
                                                   args.batch_size),
            "Ray, 2 workers": lambda m=name: on_ray(m, predictions, references, 2,
                                                    args.batch_size),
        }
        timings = interleaved(engines, args.repeats)
        reference = timings["1 process, 1 call"].result
        for label, timing in timings.items():
            stats = timing.result
            if stats.tobytes() != reference.tobytes() or stats.shape != reference.shape:
                raise SystemExit(f"{name}: {label} differs from the one-process statistics")
            timing.result = None  # the statistics of 100,000 items are not kept
        rows = [(label, timing.best) for label, timing in timings.items()]
        baseline = min(("1 process, 1 call", "1 process, chunks"),
                       key=lambda label: timings[label].best)
        best = timings[baseline].best
        print(f"\n{name}: same statistics from every engine; ratios against the best single "
              f"process ({'chunks' if 'chunks' in baseline else '1 call'})")
        print(f"{'engine':18} {'seconds':>8} {'items/s':>9} {'vs best 1 process':>18}")
        for label, timing in timings.items():
            print(f"{label:18} {timing.best:8.1f} {args.n / timing.best:9.0f} "
                  f"{best / timing.best:17.2f}x")
            record.value(f"{name} {label} items/s", args.n / timing.best, "items/s",
                         f"best of {args.repeats} interleaved runs")
            if not label.startswith("1 process"):
                record.ratio(f"{name} {label}", timings[baseline], timing,
                             f"{name}, {args.n} items: the best single process ({baseline}) "
                             f"vs {label}", args.n, "item")
        print(f"fixed cost of a Ray run (one block of 256 items, 1 worker): {fixed:.1f} s")
        record.value(f"{name} Ray fixed cost", fixed, "s", "a Ray run of one block of 256 items")
        block = args.batch_size or distributed._block_size(args.n, 2)
        costs = breakdown(name, predictions, references, block, dict(rows)["Ray, 2 workers"], 2)
        print("per item on Ray, 2 workers (microseconds): "
              + ", ".join(f"{key} {value:.0f}" for key, value in costs.items()))
    print(f"\nload average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    ray.shutdown()
    record.write()
    return 0


if __name__ == "__main__":
    sys.exit(main())
