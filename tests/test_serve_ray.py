"""``cgm serve --ray local``: programs on a real local Ray cluster's sandbox actors (the Ray
engine's), the same answers as the local workers, and a sandbox worker killed inside an actor
answers SandboxError and is replaced. The server starts the cluster in its own process and
stops it when it ends. The Ray tests share one xdist worker (``--dist loadgroup``)."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest
import requests
from _peers import require
from hostile_programs import needs_sandbox
from serve_helpers import running_server

pytestmark = [pytest.mark.xdist_group("ray"), needs_sandbox]


def test_serve_on_ray_actors(tmp_path):
    require("ray")
    with running_server(tmp_path, "--ray", "local", "--workers", "2", startup=240) as server:
        health = server.health()
        assert health["engine"] == "ray" and health["workers"] == 2

        def post(body):
            return requests.post(server.url + "/run_code", json=body, timeout=240).json()

        ok = post({"code": "print(input() * 2)", "language": "python", "stdin": "ab"})
        assert ok["status"] == "Success" and ok["run_result"]["stdout"] == "abab\n"
        compiled = post({"code": "#include <cstdio>\nint main(){puts(\"ray\");return 4;}",
                         "language": "cpp"})
        assert compiled["status"] == "Failed" and compiled["run_result"]["return_code"] == 4
        assert compiled["run_result"]["stdout"] == "ray\n"
        slow = post({"code": "while True: pass", "language": "python", "run_timeout": 1})
        assert slow["run_result"]["status"] == "TimeLimitExceeded"

        answers: list = []
        thread = threading.Thread(target=lambda: answers.append(post({
            "code": "import time\ntime.sleep(30)", "language": "python", "run_timeout": 60})))
        thread.start()
        deadline = time.monotonic() + 60
        while server.health()["running"] == 0 and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(0.5)
        before = server.descendant_workers()
        assert before, "no sandbox worker found below the server"
        for pid in before:  # the idle actor's worker too: both die, the running one answers
            os.kill(pid, signal.SIGKILL)
        thread.join(120)
        assert answers[0]["status"] == "SandboxError", answers[0]
        after = post({"code": "print(5)", "language": "python"})
        assert after["status"] == "Success" and after["run_result"]["stdout"] == "5\n"
        assert server.health()["worker_restarts"] >= 1
