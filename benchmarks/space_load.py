"""The Space under load: many users at once against a local server, end to end over HTTP.

Starts ``spaces/app.py`` on 127.0.0.1 (a free port) in its own process, waits until it
answers and its workers are warm, then plays each scenario with ``--users`` simulated users
(each its own HTTP connection to Gradio's API, as a browser; ``--client gradio_client`` for
the official client, which costs the shared CPU more) and stops the server:

* ``side``: side by side on realistic code (the references of tests/data/codebleu in Python,
  Java and JavaScript; 2, 3 or 4 candidates: the recorded prediction and mutations of the kind
  code models make), every metric the page offers (the page's request);
* ``compare``: the Systems tab with 3 systems x 100 items (references of 100 consecutive
  Python pairs, a different window per user; systems: the recorded predictions and two
  mutated copies) as JSONL uploads, the page's default metrics;
* ``compare_all``: the same uploads with every metric ticked;
* ``mixed``: every fourth user compares (``compare``), the others score side by side.

Each scenario runs in two shapes: a **burst** (every user sends one request at the same
instant: the refusal test) and **steady** use (each user sends ``--rounds`` requests, with a
think time drawn from ``--think`` seconds between an answer and the next request, starts
spread over the first think time). End to end = from the call until the answer is in the
client (uploads, queue, computing, downloading the result). A request refused by the server
(e.g. HTTP 503 "Queue is full") or failed is counted, never timed; the Space's own answer "too
large for the Space" is an answer (timed, and listed with the answers). Every request is bounded
by ``--timeout``; the whole run by the number of users, rounds and scenarios.

Prints, per scenario and shape: requests, refused/failed, p50/p95/max seconds, the server's
CPU seconds per request (the server process and its workers, from /proc), which metrics
answered, and the 1-minute load average before and after. The machine may be shared: run it
when ``uptime`` is low, repeat, and read the figures as a range. Every run appends its figures
(per scenario and shape: p50/p95/max seconds, refusals, server CPU per request), with the
machine, the load and the date, to ``benchmarks/results/space_load.json``.

Where the time goes: the server runs with ``CGM_SPACE_TIMINGS=1`` (each request's timestamps,
see :mod:`cgm_metrics.frontends.space.workers`) and the users note when their uploads and their call
were done; after each comparison scenario the script prints, per stage, p50/p95/max seconds
over the requests: uploading, posting the call, Gradio's queue until the handler, waiting for a
free worker, computing in the worker (wall and CPU; their ratio is the share of a core the
worker got), the answer's way back to the handler, and from the handler to the user; and the
CPU of the server process apart from its workers'.

    python benchmarks/space_load.py                       # all scenarios, both shapes
    python benchmarks/space_load.py --scenarios side --shapes burst --users 20
    python benchmarks/space_load.py --startup [--no-browser]
        # the start: the page served, shown in headless Chromium, a first click answered
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "codebleu"
sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchtools import Record  # noqa: E402
from corpus import mutate  # noqa: E402

SCENARIOS = ("side", "compare", "compare_all", "mixed")
SHAPES = ("burst", "steady")
LANGUAGES = ("python", "python", "java", "javascript")  # Python twice as often


# ---------------------------------------------------------------- realistic requests


def _pairs(lang: str) -> list[dict]:
    with (DATA / f"codebleu_public_{lang}.jsonl").open(encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle]
    return [row for row in rows if row["references"][0].strip() and row["predictions"][0].strip()]


def side_requests(n: int, seed: int = 0) -> list[tuple[str, str, list[str]]]:
    """``n`` side-by-side requests ``(lang, reference, candidates)``: 2, 3 or 4 candidates
    (the recorded prediction, then mutations of the reference and of the prediction)."""
    rng = random.Random(seed)
    pairs = {lang: _pairs(lang) for lang in set(LANGUAGES)}
    requests = []
    for index in range(n):
        lang = LANGUAGES[index % len(LANGUAGES)]
        row = rng.choice(pairs[lang])
        reference, prediction = row["references"][0], row["predictions"][0]
        candidates = [prediction, mutate(reference, rng), mutate(prediction, rng),
                      mutate(reference, rng)][: 2 + index % 3]
        requests.append((lang, reference, candidates))
    return requests


def compare_files(folder: Path, user: int, n_items: int = 100) -> tuple[Path, list[Path]]:
    """JSONL uploads of one user: references of ``n_items`` consecutive Python pairs (a
    window that differs per user) and three systems."""
    rows = _pairs("python")
    start = (user * 37) % (len(rows) - n_items)
    window = rows[start:start + n_items]
    rng = random.Random(user)
    folder.mkdir(parents=True, exist_ok=True)
    refs = folder / "references.jsonl"
    refs.write_text("".join(json.dumps({"references": row["references"]}) + "\n"
                            for row in window), encoding="utf-8")
    systems = {
        "recorded": [row["predictions"][0] for row in window],
        "mutated_reference": [mutate(row["references"][0], rng) for row in window],
        "mutated_prediction": [mutate(row["predictions"][0], rng) for row in window],
    }
    paths = []
    for name, predictions in systems.items():
        path = folder / f"{name}.jsonl"
        path.write_text("".join(json.dumps({"prediction": p}) + "\n" for p in predictions),
                        encoding="utf-8")
        paths.append(path)
    return refs, paths


# ---------------------------------------------------------------- the server


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """``spaces/app.py`` in its own process on a free port. ``startup_seconds``: until it
    served its page (``/config``); ``ready_seconds``: until its workers were warm too
    (``wait_workers=False``: not waited for here, see :meth:`wait_workers`)."""

    def __init__(self, app: Path = ROOT / "spaces" / "app.py",
                 startup_timeout: float = 300.0, wait_workers: bool = True) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        env = {**os.environ, "GRADIO_SERVER_NAME": "127.0.0.1",
               "GRADIO_SERVER_PORT": str(self.port), "GRADIO_ANALYTICS_ENABLED": "False",
               "HF_EVALUATE_OFFLINE": "1", "CGM_SPACE_TIMINGS": "1"}
        self.log = tempfile.TemporaryFile()
        started = time.perf_counter()
        self.process = subprocess.Popen([sys.executable, str(app)],
                                        env=env, stdout=self.log, stderr=subprocess.STDOUT)
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited with {self.process.returncode}:\n"
                                   + self.output()[-3000:])
            try:
                with urllib.request.urlopen(self.url + "config", timeout=5) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if time.perf_counter() - started > startup_timeout:
                self.stop()
                raise RuntimeError(f"the server did not answer within {startup_timeout:.0f} s")
            time.sleep(0.5)
        self.startup_seconds = time.perf_counter() - started
        self.startup_cpu = self.cpu_seconds(workers=False)
        self.started, self.startup_timeout = started, startup_timeout
        if wait_workers:
            self.wait_workers()

    def workers_expected(self) -> int:
        try:
            from cgm_metrics.frontends.space.workers import default_size
        except ImportError:  # a version of the Space without worker processes (--app)
            expected = 0
        else:
            expected = default_size() + (1 if default_size() else 0)  # scoring + agreement
        return expected

    def workers_ready(self) -> int:
        return self.output().count("ready in")

    def wait_workers(self) -> None:
        """Wait until every worker process has said it is ready (its warm-up done)."""
        expected = self.workers_expected()
        while self.workers_ready() < expected:
            if self.process.poll() is not None or (
                    time.perf_counter() - self.started > self.startup_timeout):
                self.stop()
                raise RuntimeError("the Space's workers did not start:\n"
                                   + self.output()[-3000:])
            time.sleep(0.5)
        self.ready_seconds = time.perf_counter() - self.started

    def output(self) -> str:
        self.log.seek(0)
        return self.log.read().decode("utf-8", "replace")

    def timings(self) -> list[dict]:
        """The per-request timestamps the server has logged so far (``space-timing`` lines)."""
        return [json.loads(line.split("space-timing ", 1)[1])
                for line in self.output().splitlines() if line.startswith("space-timing ")]

    def cpu_seconds(self, workers: bool = True) -> float:
        """CPU seconds used so far by the server process and its descendants (workers;
        ``workers=False``: the server process alone)."""
        tick = os.sysconf("SC_CLK_TCK")
        children: dict[int, list[int]] = {}
        stats: dict[int, list[str]] = {}
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                text = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            fields = text[text.rfind(")") + 2:].split()
            stats[int(entry)] = fields
            children.setdefault(int(fields[1]), []).append(int(entry))
        total, todo = 0.0, [self.process.pid]
        if not workers:
            todo, total = [], (int(stats[self.process.pid][11])
                               + int(stats[self.process.pid][12])) / tick
        while todo:
            pid = todo.pop()
            if pid in stats:
                total += (int(stats[pid][11]) + int(stats[pid][12])) / tick
            todo.extend(children.get(pid, []))
        return total

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


# ---------------------------------------------------------------- users


class HttpUser:
    """One user over Gradio's HTTP API (``/gradio_api/upload``, ``/gradio_api/call/<name>``
    and its event stream): what a browser sends, at a fraction of gradio_client's CPU (the
    clients share the machine with the server)."""

    def __init__(self, url: str, timeout: float) -> None:
        import httpx

        self.http = httpx.Client(base_url=url, timeout=timeout)
        self.stamps: list[dict] = []  # per compare call: when each step was done (time.time())

    def upload(self, paths: list[Path]) -> list[dict]:
        files = [("files", (path.name, path.read_bytes())) for path in paths]
        response = self.http.post("gradio_api/upload", files=files)
        response.raise_for_status()
        return [{"path": server_path, "orig_name": path.name,
                 "meta": {"_type": "gradio.FileData"}}
                for server_path, path in zip(response.json(), paths, strict=True)]

    def call(self, api_name: str, data: list) -> list:
        response = self.http.post(f"gradio_api/call/{api_name}", json={"data": data})
        response.raise_for_status()
        if self.stamps:
            self.stamps[-1]["posted"] = time.time()
        event_id = response.json()["event_id"]
        event = None
        with self.http.stream("GET", f"gradio_api/call/{api_name}/{event_id}") as stream:
            for line in stream.iter_lines():
                if line.startswith("event: "):
                    event = line[7:].strip()
                elif line.startswith("data: ") and event in ("complete", "error"):
                    payload = json.loads(line[6:]) if line[6:].strip() != "null" else None
                    if event == "error":
                        raise RuntimeError(f"the server answered with an error: {payload}")
                    if self.stamps:
                        self.stamps[-1]["done"] = time.time()
                    return payload
        raise RuntimeError(f"the event stream ended without an answer (last event {event})")

    def side_by_side(self, lang: str, reference: str, candidates: list[str]) -> list:
        return self.call("side_by_side", [lang, reference, *(candidates + [""] * 4)[:4]])

    def compare(self, refs: Path, systems: list[Path], metrics: list[str]) -> list:
        stamps = {"start": time.time()}
        files = self.upload([refs, *systems])
        stamps.update(uploaded=time.time(), key=files[0]["path"])
        self.stamps.append(stamps)
        return self.call("compare_systems", [files[0], files[1:], "python", metrics, False])

    def close(self) -> None:
        self.http.close()


class GradioClientUser:
    """One user through gradio_client (the official client; heavier on CPU)."""

    def __init__(self, url: str, timeout: float) -> None:
        from gradio_client import Client

        self.client = Client(url, verbose=False, download_files=False,
                             analytics_enabled=False)
        self.timeout = timeout

    def side_by_side(self, lang: str, reference: str, candidates: list[str]) -> list:
        padded = (candidates + [""] * 4)[:4]
        return self.client.submit(lang, reference, *padded, api_name="/side_by_side").result(
            timeout=self.timeout)

    def compare(self, refs: Path, systems: list[Path], metrics: list[str]) -> list:
        from gradio_client import handle_file

        return self.client.submit(handle_file(str(refs)), [handle_file(str(p)) for p in systems],
                                  "python", metrics, False,
                                  api_name="/compare_systems").result(timeout=self.timeout)

    def close(self) -> None:
        self.client.close()


CLIENTS = {"http": HttpUser, "gradio_client": GradioClientUser}


def _outcome(scenario: str, answer) -> str:
    """Which metrics answered (and which were skipped) in one answer."""
    if scenario == "side":
        numbers = answer[2]
        ran = numbers["metrics"]
        skipped = list(numbers["skipped"])
    else:
        ran = list(answer[2])
        skipped = re.findall(r"<p class='note'>(\w+) skipped", answer[0])
    return "ran " + ",".join(ran) + ("; skipped " + ",".join(skipped) if skipped else "")


def play(url: str, scenario: str, shape: str, users: int, rounds: int,
         think: tuple[float, float], folder: Path, seed: int,
         client_kind: str = "http", timeout: float = 120.0) -> dict:
    """Every user's requests of one scenario and shape; timings and refusals."""
    n_rounds = 1 if shape == "burst" else rounds
    side = side_requests(users * n_rounds, seed)
    files = {user: compare_files(folder / f"user{user}", user) for user in range(users)}
    all_metrics = None
    clients = [CLIENTS[client_kind](url, timeout) for _ in range(users)]
    if scenario == "compare_all":
        config = json.load(urllib.request.urlopen(url + "config", timeout=30))
        all_metrics = next(c["props"]["choices"] for c in config["components"]
                           if c.get("props", {}).get("elem_id") == "metric-choice")
        all_metrics = [choice[1] if isinstance(choice, list) else choice
                       for choice in all_metrics]
    times: list[float] = []
    failures: list[str] = []
    outcomes: dict[str, int] = {}
    lock = threading.Lock()
    barrier = threading.Barrier(users)

    def one_request(user: int, index: int) -> None:
        client = clients[user]
        kind = scenario
        if scenario == "mixed":
            kind = "compare" if user % 4 == 3 else "side"
        start = time.perf_counter()
        try:
            if kind == "side":
                answer = client.side_by_side(*side[user * n_rounds + index])
            else:
                refs, systems = files[user]
                answer = client.compare(refs, systems,
                                        all_metrics or ["chrf_code", "codebleu", "ruby"])
        except Exception as error:  # noqa: BLE001 - a refusal or failure is what we count
            message = f"{type(error).__name__}: {str(error)[:160]}"
            with lock:
                if "too large for the Space" in message:  # an answer: the polite refusal
                    times.append(time.perf_counter() - start)
                    outcomes["too large for the Space"] = outcomes.get(
                        "too large for the Space", 0) + 1
                else:
                    failures.append(message)
            return
        elapsed = time.perf_counter() - start
        with lock:
            times.append(elapsed)
            key = kind + ": " + _outcome(kind, answer) if scenario == "mixed" else _outcome(
                kind, answer)
            outcomes[key] = outcomes.get(key, 0) + 1

    def user_loop(user: int) -> None:
        rng = random.Random(seed * 1000 + user)
        barrier.wait()
        if shape == "steady":
            time.sleep(rng.uniform(0, think[1]))  # users arrive over the first think time
        for index in range(n_rounds):
            one_request(user, index)
            if shape == "steady" and index + 1 < n_rounds:
                time.sleep(rng.uniform(*think))

    threads = [threading.Thread(target=user_loop, args=(user,)) for user in range(users)]
    load_before = os.getloadavg()[0]
    started, client_cpu = time.perf_counter(), time.process_time()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - started
    client_cpu = time.process_time() - client_cpu
    stamps = [stamp for client in clients for stamp in getattr(client, "stamps", [])]
    for client in clients:
        client.close()
    return {"times": times, "failures": failures, "outcomes": outcomes, "wall": wall,
            "stamps": stamps,
            "client_cpu": client_cpu,
            "load_before": load_before, "load_after": os.getloadavg()[0]}


def profile(stamps: list[dict], timings: list[dict]) -> list[tuple[str, list[float]]]:
    """Per stage, its seconds for every comparison the users and the server both noted
    (matched by the references' upload path)."""
    by_key = {t["key"]: t for t in timings if t.get("key")}
    rows = [(s, by_key[s["key"]]) for s in stamps if s.get("key") in by_key and "done" in s]
    if not rows:
        return []
    first = min(s["start"] for s, _ in rows)
    stages = {
        "uploading the 4 files": lambda s, t: s["uploaded"] - s["start"],
        "posting the call": lambda s, t: s["posted"] - s["uploaded"],
        "Gradio's queue until the handler": lambda s, t: t["arrived"] - s["posted"],
        "waiting for a free worker": lambda s, t: t["worker"] - t["arrived"],
        "to the worker (pickle, pipe)": lambda s, t: t["started"] - t["worker"],
        "computing in the worker (wall)": lambda s, t: t["computed"] - t["started"],
        "computing in the worker (CPU)": lambda s, t: t["cpu"],
        "answer back to the handler": lambda s, t: t["answered"] - t["computed"],
        "handler to the user (Gradio, event stream)": lambda s, t: s["done"] - t["answered"],
        "end to end": lambda s, t: s["done"] - s["start"],
        "computing started, after the burst began": lambda s, t: t["started"] - first,
    }
    return [(name, [stage(s, t) for s, t in rows]) for name, stage in stages.items()]


def _quantile(values: list[float], q: float) -> float:
    """The ``q`` quantile with linear interpolation (numpy's default)."""
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3, help="requests per user (steady)")
    parser.add_argument("--think", type=float, nargs=2, default=(3.0, 8.0),
                        metavar=("MIN", "MAX"), help="seconds between an answer and the "
                        "next request of a user (steady)")
    parser.add_argument("--scenarios", nargs="+", choices=SCENARIOS, default=list(SCENARIOS))
    parser.add_argument("--shapes", nargs="+", choices=SHAPES, default=list(SHAPES))
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per request")
    parser.add_argument("--client", choices=CLIENTS, default="http",
                        help="how users call the Space: Gradio's HTTP API (default) or "
                        "gradio_client")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--app", type=Path, default=ROOT / "spaces" / "app.py",
                        help="the Space to serve (another version's spaces/app.py, with its "
                        "package first on PYTHONPATH)")
    parser.add_argument("--startup", action="store_true",
                        help="only the start: seconds until the page is served, until a first "
                        "side-by-side request sent then is answered, until the workers are warm")
    parser.add_argument("--no-browser", action="store_true",
                        help="with --startup: skip the time until headless Chromium shows the "
                        "page")
    args = parser.parse_args()
    if not 1 <= args.users <= 100 or not 1 <= args.rounds <= 20:
        parser.error("--users must lie in 1..100 and --rounds in 1..20")
    if args.startup:
        startup(args)
        return

    print(f"{os.cpu_count()} CPUs; `uptime` before start: "
          f"{', '.join(f'{x:.1f}' for x in os.getloadavg())}", flush=True)
    record = Record("space_load", {
        "users": args.users, "rounds": args.rounds, "think": list(args.think),
        "scenarios": args.scenarios, "shapes": args.shapes, "client": args.client,
        "timeout": args.timeout, "seed": args.seed,
        # another version's app by its folder's name only: no machine paths in the results
        "app": args.app.name if args.app == ROOT / "spaces" / "app.py"
        else f"{args.app.resolve().parent.name}/{args.app.name} (--app)"})
    server = Server(args.app)
    print(f"server up in {server.startup_seconds:.1f} s, its workers warm in "
          f"{server.ready_seconds:.1f} s, at {server.url}", flush=True)
    print("\n| scenario | shape | requests | refused or failed | p50 s | p95 s | max s | "
          "server CPU s / request | clients' CPU s / request | load 1 min before-after | "
          "answers |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|", flush=True)
    failures_seen: list[str] = []
    profiles: list[tuple[str, str, list[tuple[str, list[float]]], float]] = []
    try:
        with tempfile.TemporaryDirectory(prefix="cgm-space-load-") as folder:
            for scenario in args.scenarios:
                for shape in args.shapes:
                    cpu_before = server.cpu_seconds()
                    own_before, seen = server.cpu_seconds(workers=False), len(server.timings())
                    result = play(server.url, scenario, shape, args.users, args.rounds,
                                  tuple(args.think), Path(folder) / scenario, args.seed,
                                  args.client, args.timeout)
                    cpu = server.cpu_seconds() - cpu_before
                    own = server.cpu_seconds(workers=False) - own_before
                    profiles.append((scenario, shape, profile(result["stamps"],
                                                              server.timings()[seen:]),
                                     own / max(len(result["times"]), 1)))
                    times = result["times"]
                    n = len(times) + len(result["failures"])
                    if times:
                        timing = (f"{statistics.median(times):.2f} | {_quantile(times, 0.95):.2f}"
                                  f" | {max(times):.2f}")
                    else:
                        timing = "- | - | -"
                    answers = "; ".join(f"{count} x {key}"
                                        for key, count in sorted(result["outcomes"].items()))
                    print(f"| {scenario} | {shape} | {n} | {len(result['failures'])} | "
                          f"{timing} | {cpu / max(n, 1):.2f} | "
                          f"{result['client_cpu'] / max(n, 1):.2f} | {result['load_before']:.1f}-"
                          f"{result['load_after']:.1f} | {answers} |", flush=True)
                    failures_seen += [f"{scenario}/{shape}: {f}" for f in result["failures"]]
                    _record(record, f"{scenario} {shape}", result, n, cpu)
    finally:
        server.stop()
    for scenario, shape, stages, own in profiles:
        if not stages:
            continue
        print(f"\nWhere the time of {scenario} ({shape}) went, seconds per request "
              f"(p50 / p95 / max; {len(stages[0][1])} requests):")
        for name, values in stages:
            print(f"  {name:<44} {statistics.median(values):6.2f} "
                  f"{_quantile(values, 0.95):6.2f} {max(values):6.2f}")
        print(f"  the server process's own CPU (Gradio, uploads, handlers): {own:.3f} s a request")
    for failure in sorted(set(failures_seen)):
        print(f"  {failures_seen.count(failure)} x {failure}")
    print(f"\n`uptime` after: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    record.write()


class Browser:
    """Headless Chromium through playwright (Debian's /usr/bin/chromium, or CGM_CHROMIUM), as
    the Space's browser tests drive it; started before the server so its own start is not
    counted."""

    ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync"]

    def __init__(self) -> None:
        import shutil

        from playwright.sync_api import sync_playwright

        path = os.environ.get("CGM_CHROMIUM", "/usr/bin/chromium")
        if not Path(path).exists():
            path = shutil.which("chromium") or ""
        if not path:
            raise SystemExit("no chromium found (CGM_CHROMIUM, /usr/bin/chromium); "
                             "install Debian's chromium or pass --no-browser")
        self._playwright = sync_playwright().start()
        self._browser = self._playwright.chromium.launch(executable_path=path, args=self.ARGS,
                                                         timeout=60_000)

    def page_shown(self, url: str, since: float, timeout: float = 300.0) -> float:
        """Seconds from ``since`` (perf_counter) until the page at ``url`` shows its tabs."""
        page = self._browser.new_page(viewport={"width": 1280, "height": 900})
        page.set_default_timeout(timeout * 1000)
        page.goto(url, wait_until="domcontentloaded")
        page.get_by_role("tab", name="Systems").wait_for(state="visible")
        shown = time.perf_counter() - since
        page.close()
        return shown

    def close(self) -> None:
        self._browser.close()
        self._playwright.stop()


def startup(args: argparse.Namespace) -> None:
    """The Space's start as its first user meets it: the server started, its page polled
    until served; then at once one side-by-side request (the first of :func:`side_requests`)
    over HTTP, timed from the server's start; then the wait for every worker's warm-up."""
    print(f"{os.cpu_count()} CPUs; `uptime` before start: "
          f"{', '.join(f'{x:.1f}' for x in os.getloadavg())}", flush=True)
    record = Record("space_load", {"startup": True, "seed": args.seed, "app": args.app.name
                                   if args.app == ROOT / "spaces" / "app.py" else
                                   f"{args.app.resolve().parent.name}/{args.app.name} (--app)"})
    load_before = os.getloadavg()[0]
    browser = Browser() if not args.no_browser else None
    try:
        server = Server(args.app, wait_workers=False)
    except BaseException:
        if browser is not None:
            browser.close()
        raise
    shown = None
    try:
        print(f"page served after {server.startup_seconds:.1f} s (server CPU "
              f"{server.startup_cpu:.1f} s)", flush=True)
        if browser is not None:
            shown = browser.page_shown(server.url, server.started)
            print(f"page shown in headless Chromium (its tabs visible) "
                  f"{shown:.1f} s after the start", flush=True)
        lang, reference, candidates = side_requests(1, args.seed)[0]
        user = HttpUser(server.url, args.timeout)
        try:
            answer = user.side_by_side(lang, reference, candidates)
        finally:
            user.close()
        first = time.perf_counter() - server.started
        warm_then = server.workers_ready()
        print(f"first side-by-side ({lang}, {len(candidates)} candidates) answered "
              f"{first:.1f} s after the start, {warm_then} of {server.workers_expected()} "
              f"workers warm then; {_outcome('side', answer)}", flush=True)
        server.wait_workers()
        print(f"workers warm after {server.ready_seconds:.1f} s", flush=True)
    finally:
        server.stop()
        if browser is not None:
            browser.close()
    load = f"1-minute load {load_before:.1f}-{os.getloadavg()[0]:.1f}"
    if shown is not None:
        record.value("startup page shown in a browser", round(shown, 2), "s",
                     "from the server's start until headless Chromium (started before the "
                     "server) shows the page's tabs, the page requested once /config "
                     f"answered; {load}")
    record.value("startup page served", round(server.startup_seconds, 2), "s",
                 f"from the server's start until /config answers (polled every 0.5 s); {load}")
    record.value("startup server CPU", round(server.startup_cpu, 2), "s",
                 "the server process's CPU seconds until its page was served")
    record.value("startup first answer", round(first, 2), "s",
                 "from the server's start until a side-by-side request sent when the page "
                 f"was served is answered; {warm_then} workers warm then; {load}")
    record.value("startup workers warm", round(server.ready_seconds, 2), "s",
                 f"from the server's start until every worker is warm; {load}")
    print(f"`uptime` after: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    record.write()


def _record(record: Record, key: str, result: dict, requests: int, cpu: float) -> None:
    """One scenario and shape's figures: seconds end to end, refusals, CPU, its load."""
    times = result["times"]
    load = f"1-minute load {result['load_before']:.1f}-{result['load_after']:.1f}"
    if times:
        for name, value in (("p50", statistics.median(times)),
                            ("p95", _quantile(times, 0.95)), ("max", max(times))):
            record.value(f"{key} {name}", round(value, 3), "s",
                         f"{name} of {len(times)} answers, end to end over HTTP; {load}")
    record.value(f"{key} refused or failed", len(result["failures"]), "requests",
                 f"of {requests} requests")
    record.value(f"{key} server CPU", round(cpu / max(requests, 1), 3), "s",
                 "the server's and its workers' CPU seconds per request")


if __name__ == "__main__":
    main()
