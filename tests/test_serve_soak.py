"""A short soak of ``cgm serve`` (benchmarks/serve_soak.py's, seconds instead of minutes): 48
concurrent clients with right, wrong, endless and crashing programs lose nothing, hang on
nothing and report no fault as a verdict; with a sandbox worker killed every second, the
requests it was running answer SandboxError and the workers are replaced."""

from __future__ import annotations

import os
import signal
import time

import pytest
from hostile_programs import needs_sandbox
from serve_helpers import load_soak, running_server

pytestmark = [needs_sandbox, pytest.mark.xdist_group("serve")]


def test_short_soak_loses_and_hangs_nothing(tmp_path):
    soak = load_soak().soak

    with running_server(tmp_path, "--workers", "2") as server:
        calm = soak(server.url, clients=48, seconds=6, run_timeout=0.3, client_timeout=120)
        summary = calm.summary()
        assert summary["answered"] == summary["requests"] > 48, summary
        assert summary["lost"] == summary["hung"] == summary["faults_as_verdicts"] == 0, summary
        assert summary["sandbox_errors"] == 0, summary
        assert set(summary["kinds"]) == {"right", "wrong", "crashing", "endless"}

        killed = soak(server.url, clients=48, seconds=6, run_timeout=0.3, client_timeout=120,
                      kill_every=1.0, worker_pids=server.worker_pids, seed=1)
        summary = killed.summary()
        assert summary["kills"] >= 3, summary
        assert summary["answered"] == summary["requests"], summary
        assert summary["lost"] == summary["hung"] == summary["faults_as_verdicts"] == 0, summary
        # The last kill may land just as the soak ends: the replacement is waited for.
        health = wait_for_workers(server, alive=2)
        assert health["worker_restarts"] >= 1, health

        # A worker killed while idle is replaced without waiting for a request.
        restarts = health["worker_restarts"]
        os.kill(server.worker_pids()[0], signal.SIGKILL)
        health = wait_for_workers(server, alive=2, restarts=restarts + 1)
        assert health["programs_run"] == server.health()["programs_run"], health


def wait_for_workers(server, alive: int, restarts: int = 0, seconds: float = 60.0) -> dict:
    """The server's health once ``alive`` workers run after at least ``restarts`` restarts;
    fails after ``seconds`` (a replacement takes well under one at load 4)."""
    deadline = time.monotonic() + seconds
    while True:
        health = server.health()
        if health["workers_alive"] == alive and health["worker_restarts"] >= restarts:
            return health
        assert time.monotonic() < deadline, health
        time.sleep(0.1)
