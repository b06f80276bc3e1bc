"""Running ``cgm serve`` for tests and benchmarks: a real server process on a free port."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]


def load_soak():
    """benchmarks/serve_soak.py, loaded by path once: benchmarks/ on sys.path would let its
    scripts (codebleu.py, ruby.py, ...) shadow the real packages of the same names."""
    name = "cgm_benchmark_serve_soak"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / "serve_soak.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # its dataclasses look their module up
        spec.loader.exec_module(module)
    return sys.modules[name]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    """A running ``cgm serve`` process: ``url``, ``process``, ``log()``."""

    def __init__(self, process: subprocess.Popen, url: str, log_path: Path) -> None:
        self.process = process
        self.url = url
        self.log_path = log_path

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def health(self, **kwargs) -> dict:
        return requests.get(self.url + "/v1/health", timeout=10, **kwargs).json()

    def descendant_workers(self) -> list[int]:
        """The sandbox worker processes anywhere below this server (on a local Ray cluster
        it started, they are its actors' children)."""
        children: dict[int, list[int]] = {}
        commands: dict[int, bytes] = {}
        for entry in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as handle:
                    parent = int(handle.read().rsplit(")", 1)[1].split()[1])
                with open(f"/proc/{entry}/cmdline", "rb") as handle:
                    commands[int(entry)] = handle.read()
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(parent, []).append(int(entry))
        found, todo = [], [self.process.pid]
        while todo:
            pid = todo.pop()
            for child in children.get(pid, []):
                if b"_sandbox_child.py" in commands.get(child, b""):
                    found.append(child)
                todo.append(child)
        return sorted(found)

    def worker_pids(self) -> list[int]:
        """The sandbox worker processes of this server (its children running the worker)."""
        return load_soak().sandbox_worker_pids(self.process.pid)


@contextlib.contextmanager
def running_server(tmp_path: Path, *arguments: str, env: dict | None = None,
                   startup: float = 120.0) -> Iterator[Server]:
    """``cgm serve --port FREE ARGUMENTS`` in a process of its own, ended (SIGTERM, then
    SIGKILL) when the block ends."""
    port = free_port()
    log_path = tmp_path / f"serve-{port}.log"
    environment = {**os.environ, **(env or {})}
    environment["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT / "src"), *filter(None, [environment.get("PYTHONPATH")])])
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "cgm_metrics", "serve", "--port", str(port), *arguments],
            stdout=log, stderr=subprocess.STDOUT, env=environment, cwd=tmp_path)
    server = Server(process, f"http://127.0.0.1:{port}", log_path)
    try:
        deadline = time.monotonic() + startup
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"cgm serve ended ({process.returncode}): {server.log()}")
            try:
                health = server.health(headers=_auth(arguments))
                if health.get("workers_alive") == health.get("workers"):
                    break
            except (requests.ConnectionError, ValueError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"cgm serve did not start: {server.log()}")
            time.sleep(0.1)
        yield server
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _auth(arguments: tuple[str, ...]) -> dict:
    if "--token" in arguments:
        return {"Authorization": "Bearer " + arguments[arguments.index("--token") + 1]}
    return {}


def load_verl_sandbox_fusion():
    """verl's ``verl/utils/reward_score/sandbox_fusion`` package, loaded unchanged from the
    installed verl wheel without importing ``verl`` itself (whose ``__init__`` needs torch and
    more; this part needs only ``requests``)."""
    spec = importlib.util.find_spec("verl")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("verl is not installed: pip install --no-deps verl")
    folder = Path(list(spec.submodule_search_locations)[0]) / "utils" / "reward_score" / \
        "sandbox_fusion"
    name = "verl_sandbox_fusion_unchanged"
    if name in sys.modules:
        return sys.modules[name]
    package = importlib.util.spec_from_file_location(
        name, folder / "__init__.py", submodule_search_locations=[str(folder)])
    assert package is not None and package.loader is not None
    module = importlib.util.module_from_spec(package)
    sys.modules[name] = module
    package.loader.exec_module(module)
    return module
