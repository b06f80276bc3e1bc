"""``cgm serve`` under load: nothing lost, nothing hung, no fault reported as a verdict.

1. **Soak**: ``--clients`` concurrent clients (256) on loopback for ``--duration`` seconds
   (300), each sending SandboxFusion ``/run_code`` requests one after the other, a mix of
   right, wrong, endless and crashing Python programs that read their stdin. A 503 or 504 is
   retried after its ``Retry-After`` (a refusal, not a loss). Every answer is checked against
   what its program must give: right -> Success with the expected stdout; wrong -> Success
   with another; crashing -> Failed, exit status not 0; endless -> Failed, TimeLimitExceeded;
   a SandboxError is a fault reported as a fault. Counted: **lost** (the connection failed or
   the answer was not SandboxFusion's), **hung** (no answer within the client's timeout),
   **faults reported as verdicts** (any other answer), throughput and p50/p99 latency.
2. The same with a sandbox worker killed every ``--kill-every`` seconds (3): its request must
   answer SandboxError and the worker be replaced.
3. **Overhead**: the same trivial programs through the library's own batch path
   (``runs.execute`` on ``--workers`` warm workers) and through the service (one
   ``/v1/batch`` request; and ``/run_code`` requests from as many clients as workers), 3
   interleaved rounds; the service's extra wall time per program.

4. **LiveCodeBench's programs**: the 18 samples of ``io_judge_speed.py`` (three LiveCodeBench
   problems, six Python programs each) through ``/submit`` (each row inline, from as many
   clients as workers) and through LiveCodeBench's own grader on as many processes, 3
   interleaved rounds, the same verdicts required; wall time, peer / service.

Every run appends its figures to ``benchmarks/results/serve_soak.json``. The test suite runs
a short soak (``tests/test_serve_soak.py``) through :func:`soak`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

KINDS = ("right", "wrong", "crashing", "endless")
WEIGHTS = (0.4, 0.3, 0.2, 0.1)
SUM = "import sys\nprint(sum(map(int, sys.stdin.read().split())))\n"
PROGRAMS = {
    "right": SUM,
    "wrong": "import sys\nprint(sum(map(int, sys.stdin.read().split())) + 1)\n",
    "crashing": "import sys\nnumbers = sys.stdin.read().split()\nraise ValueError(numbers[0])\n",
    "endless": "while True:\n    pass\n",
}


@dataclass
class SoakResult:
    """What a soak counted."""

    requests: int = 0  # requests sent (first attempts)
    answered: int = 0  # answered with a SandboxFusion answer
    lost: int = 0
    hung: int = 0
    faults_as_verdicts: int = 0
    sandbox_errors: int = 0
    refused: Counter = field(default_factory=Counter)  # HTTP status -> retries
    kinds: Counter = field(default_factory=Counter)
    latencies: list[float] = field(default_factory=list)
    seconds: float = 0.0
    kills: int = 0
    examples: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        ordered = sorted(self.latencies)

        def pct(p: float) -> float | None:
            return ordered[min(len(ordered) - 1, int(p * len(ordered)))] if ordered else None

        return {"requests": self.requests, "answered": self.answered, "lost": self.lost,
                "hung": self.hung, "faults_as_verdicts": self.faults_as_verdicts,
                "sandbox_errors": self.sandbox_errors, "refused": dict(self.refused),
                "kills": self.kills, "seconds": round(self.seconds, 1),
                "throughput": round(self.answered / self.seconds, 2) if self.seconds else 0.0,
                "p50_s": pct(0.50), "p99_s": pct(0.99),
                "kinds": dict(self.kinds), "examples": self.examples[:5]}


def _check(kind: str, expected: str, answer: dict) -> str:
    """"ok", "fault" (SandboxError) or "wrong" (an answer its program cannot give)."""
    status = answer.get("status")
    if status == "SandboxError":
        return "fault"
    run = answer.get("run_result") or {}
    if kind == "right":
        good = status == "Success" and run.get("stdout") == expected
    elif kind == "wrong":
        good = status == "Success" and run.get("stdout") not in (None, expected)
    elif kind == "crashing":
        good = (status == "Failed" and run.get("status") == "Finished"
                and run.get("return_code") not in (0, None))
    else:
        good = status == "Failed" and run.get("status") == "TimeLimitExceeded"
    return "ok" if good else "wrong"


async def _client(session: Any, url: str, stop_at: float, result: SoakResult,
                  rng: random.Random, run_timeout: float, client_timeout: float) -> None:
    import aiohttp

    while time.monotonic() < stop_at:
        kind = rng.choices(KINDS, WEIGHTS)[0]
        numbers = [rng.randint(-1000, 1000) for _ in range(rng.randint(1, 20))]
        expected = f"{sum(numbers)}\n"
        body = {"code": PROGRAMS[kind], "language": "python", "run_timeout": run_timeout,
                "stdin": " ".join(map(str, numbers)) + "\n"}
        result.requests += 1
        result.kinds[kind] += 1
        started = time.monotonic()
        while True:
            try:
                async with session.post(url + "/run_code", json=body,
                                        timeout=aiohttp.ClientTimeout(total=client_timeout)
                                        ) as response:
                    if response.status in (503, 504):
                        result.refused[response.status] += 1
                        wait = float(response.headers.get("Retry-After", "1"))
                        await asyncio.sleep(wait * rng.uniform(0.5, 1.5))
                        continue
                    answer = await response.json(content_type=None)
                    code = response.status
            except asyncio.TimeoutError:
                result.hung += 1
                result.examples.append(f"hung: {kind}")
                break
            except (aiohttp.ClientError, ValueError) as error:
                result.lost += 1
                result.examples.append(f"lost: {kind}: {type(error).__name__}: {error}")
                break
            if code != 200 or not isinstance(answer, dict) or "status" not in answer:
                result.lost += 1
                result.examples.append(f"lost: {kind}: HTTP {code}: {str(answer)[:200]}")
                break
            result.answered += 1
            result.latencies.append(time.monotonic() - started)
            verdict = _check(kind, expected, answer)
            if verdict == "fault":
                result.sandbox_errors += 1
            elif verdict == "wrong":
                result.faults_as_verdicts += 1
                result.examples.append(f"as verdict: {kind}: {str(answer)[:300]}")
            break


def soak(url: str, clients: int, seconds: float, *, run_timeout: float = 0.5,
         kill_every: float | None = None, worker_pids: Any = None, seed: int = 0,
         client_timeout: float = 180.0) -> SoakResult:
    """Run the soak against the server at ``url``; with ``kill_every``, a sandbox worker
    (one of ``worker_pids()``) is killed every that many seconds."""
    import aiohttp

    result = SoakResult()
    stop = threading.Event()

    def killer() -> None:
        rng = random.Random(seed + 1)
        while not stop.wait(kill_every):
            pids = worker_pids()
            if pids:
                try:
                    os.kill(rng.choice(pids), signal.SIGKILL)
                    result.kills += 1
                except OSError:
                    pass

    async def main() -> None:
        connector = aiohttp.TCPConnector(limit=clients)
        async with aiohttp.ClientSession(connector=connector) as session:
            stop_at = time.monotonic() + seconds
            await asyncio.gather(*(
                _client(session, url, stop_at, result, random.Random(seed * 100_003 + n),
                        run_timeout, client_timeout) for n in range(clients)))

    thread = None
    if kill_every:
        thread = threading.Thread(target=killer, daemon=True)
        thread.start()
    started = time.monotonic()
    try:
        asyncio.run(main())
    finally:
        stop.set()
        if thread is not None:
            thread.join()
    result.seconds = time.monotonic() - started
    return result


# ---------------------------------------------------------------- a server


def sandbox_worker_pids(server_pid: int) -> list[int]:
    """The sandbox worker processes of the server ``server_pid`` (its children running the
    worker), in order."""
    found = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as handle:
                parent = int(handle.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                command = handle.read()
        except (OSError, ValueError, IndexError):
            continue
        if parent == server_pid and b"_sandbox_child.py" in command:
            found.append(int(entry))
    return sorted(found)


class Server:
    """``cgm serve`` in a process of its own."""

    def __init__(self, *arguments: str) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        env = {**os.environ, "PYTHONPATH": str(HERE.parent / "src")}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "cgm_metrics", "serve", "--port", str(port), *arguments],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        import requests

        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"cgm serve ended: {self.process.stderr.read().decode()}")
            try:
                health = requests.get(self.url + "/v1/health", timeout=5).json()
                if health["workers_alive"] == health["workers"]:
                    return
            except (requests.ConnectionError, ValueError):
                pass
            time.sleep(0.2)
        raise RuntimeError("cgm serve did not start in 180 s")

    def health(self) -> dict:
        import requests

        return requests.get(self.url + "/v1/health", timeout=30).json()

    def worker_pids(self) -> list[int]:
        return sandbox_worker_pids(self.process.pid)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


# ---------------------------------------------------------------- overhead


def overhead(server: Server, workers: int, programs: int, repeats: int) -> dict[str, Any]:
    """Trivial programs through the library's batch path and through the service."""
    from concurrent.futures import ThreadPoolExecutor

    import requests
    from benchtools import interleaved

    from cgm_metrics.execution.runs import execute
    from cgm_metrics.execution.sandbox import Limits
    from cgm_metrics.frontends.service.protocol import whole_program

    limits = Limits(timeout=5.0, memory_mb=4096)
    built = [whole_program("python", "print(1)", run_timeout=5.0)[0] for _ in range(programs)]
    body = {"code": "print(1)", "language": "python", "run_timeout": 5.0}

    def library() -> int:
        verdicts = list(execute(enumerate(built), limits, workers=workers))
        assert all(v.passed for _, v in verdicts)
        return len(verdicts)

    def batch() -> int:
        answers = requests.post(server.url + "/v1/batch", json={"requests": [body] * programs},
                                timeout=600).json()["results"]
        assert all(a["status"] == "Success" for a in answers)
        return len(answers)

    def one_by_one() -> int:
        session = requests.Session()

        def send(_: int) -> str:
            return session.post(server.url + "/run_code", json=body, timeout=120).json()["status"]

        with ThreadPoolExecutor(workers) as pool:
            statuses = list(pool.map(send, range(programs)))
        assert statuses == ["Success"] * programs
        return len(statuses)

    library()  # warm workers on both sides
    batch()
    timings = interleaved({"library": library, "batch": batch, "run_code": one_by_one},
                          repeats)
    out: dict[str, Any] = {}
    for name, timing in timings.items():
        out[f"{name}_ms_per_program"] = 1e3 * timing.best / programs
        out[f"{name}_ms_per_program_median"] = 1e3 * timing.median / programs
    for name in ("batch", "run_code"):
        out[f"{name}_overhead_ms"] = out[f"{name}_ms_per_program"] - out[
            "library_ms_per_program"]
    out["timings"] = timings
    return out


def livecodebench(server: Server, workers: int, repeats: int) -> dict[str, Any]:
    """io_judge_speed's LiveCodeBench samples through /submit and through LiveCodeBench's
    grader (same verdicts, or SystemExit); the two timings."""
    import json
    from concurrent.futures import ThreadPoolExecutor

    import io_judge_speed as lcb
    import requests
    from benchtools import interleaved

    os.environ["HF_ALLOW_CODE_EVAL"] = "1"
    peer = lcb.peer_module()
    rows = lcb.rows()
    samples = [(task, code) for task in lcb.PROGRAMS for code in lcb.PROGRAMS[task]]
    peer_samples = [{"input_output": json.dumps({
        "inputs": [t["input"] for t in rows[task]["tests"]],
        "outputs": [t["output"] for t in rows[task]["tests"]],
        "fn_name": rows[task]["fn_name"]})} for task, _ in samples]
    timeout = int(lcb.DEFAULT_TIME_LIMIT)
    session = requests.Session()

    def submit(sample: tuple[str, str]) -> str:
        task, code = sample
        answer = session.post(server.url + "/submit", timeout=600, json={
            "id": task, "completion": f"```python\n{code}```",
            "config": {"provided_data": rows[task], "run_timeout": timeout}}).json()
        return answer["extra"]["judge"]

    def service() -> list[str]:
        with ThreadPoolExecutor(workers) as pool:
            return list(pool.map(submit, samples))

    def theirs() -> list[str]:
        results, _ = peer.evaluate_generations(peer_samples, [[code] for _, code in samples],
                                               num_process_evaluate=workers, timeout=timeout)
        return [lcb.lcb_names(results[index])[0] for index in range(len(samples))]

    service()  # the judge's workers warm, as in a training loop after its first step
    timings = interleaved({"peer": theirs, "service": service}, repeats)
    if timings["peer"].result != timings["service"].result:
        raise SystemExit(f"the verdicts differ:\n peer    {timings['peer'].result}\n "
                         f"service {timings['service'].result}")
    return {"timings": timings, "samples": len(samples)}


def main() -> None:
    from benchtools import Record, load

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=256)
    parser.add_argument("--duration", type=float, default=300.0)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--run-timeout", type=float, default=0.5)
    parser.add_argument("--kill-every", type=float, default=3.0)
    parser.add_argument("--programs", type=int, default=200, help="programs of the overhead")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--skip", choices=("soak", "kills", "overhead", "livecodebench"),
                        action="append",
                        default=[])
    args = parser.parse_args()
    record = Record("serve_soak", {
        "clients": args.clients, "duration_s": args.duration, "workers": args.workers,
        "run_timeout": args.run_timeout, "kill_every_s": args.kill_every,
        "mix": dict(zip(KINDS, WEIGHTS, strict=True)), "overhead_programs": args.programs,
        "repeats": args.repeats})
    print(load())
    server = Server("--workers", str(args.workers))
    try:
        for name, kill in (("soak", None), ("kills", args.kill_every)):
            if name in args.skip:
                continue
            result = soak(server.url, args.clients, args.duration, run_timeout=args.run_timeout,
                          kill_every=kill, worker_pids=server.worker_pids)
            summary = result.summary()
            summary["health"] = server.health()
            print(name, summary)
            for key in ("requests", "answered", "lost", "hung", "faults_as_verdicts",
                        "sandbox_errors", "kills"):
                record.value(f"{name}_{key}", summary[key], "requests", f"{name}: {key}")
            record.value(f"{name}_throughput", summary["throughput"], "programs/s",
                         f"{name}: answers a second")
            record.value(f"{name}_p50", summary["p50_s"], "s", f"{name}: median latency")
            record.value(f"{name}_p99", summary["p99_s"], "s", f"{name}: 99th percentile")
            record.value(f"{name}_refused", sum(summary["refused"].values()), "requests",
                         f"{name}: 503/504 answers retried after Retry-After")
            record.value(f"{name}_worker_restarts", summary["health"]["worker_restarts"],
                         "workers", f"{name}: workers replaced (cumulative)")
            print(load())
        if "overhead" not in args.skip:
            figures = overhead(server, args.workers, args.programs, args.repeats)
            timings = figures.pop("timings")
            for name in ("batch", "run_code"):
                record.ratio(f"{name}_vs_library", timings[name], timings["library"],
                             f"the service ({name}) / the library's runs.execute, "
                             f"{args.programs} trivial programs on {args.workers} workers",
                             unit=args.programs, unit_name="program")
            for key, value in figures.items():
                record.value(key, round(value, 3), "ms", key.replace("_", " "))
            print({k: round(v, 3) for k, v in figures.items()})
        if "livecodebench" not in args.skip:
            found = livecodebench(server, args.workers, args.repeats)
            timings = found["timings"]
            ratio = record.ratio(
                "livecodebench_submit", timings["peer"], timings["service"],
                f"LiveCodeBench's evaluate_generations / /submit, {found['samples']} samples "
                f"of 3 LiveCodeBench problems (io_judge_speed's), {args.workers} workers and "
                f"clients, same verdicts", unit=found["samples"], unit_name="sample")
            print(f"LiveCodeBench's programs: peer {timings['peer'].best:.2f} s, /submit "
                  f"{timings['service'].best:.2f} s: {ratio:.2f}x")
    finally:
        server.close()
    print(load())
    record.write()


if __name__ == "__main__":
    # run as a script: its helpers and the checkout's package (not when a test imports it:
    # benchmarks/ on sys.path would let its scripts shadow packages of the same names)
    sys.path.insert(0, str(HERE))
    sys.path.insert(0, str(HERE.parent / "src"))
    main()
