"""``cgm serve``: SandboxFusion's API over the sandbox, tested through real server processes
and the real clients (the ``sandbox-fusion`` package from PyPI and verl's reward code, loaded
unchanged from the verl wheel). The clients are imported, not skipped: a test install
without them fails here (scripts/test.sh installs both).

Expected values come from SandboxFusion's API (its status words, the fields its client
parses) and from verl's own test (scores 1.0 and 0.9 on its fixture), never from our output.
"""

from __future__ import annotations

import base64
import json
import os
import signal
import threading
import time
from pathlib import Path

import pytest
import requests
from hostile_programs import needs_sandbox
from serve_helpers import load_verl_sandbox_fusion, running_server

pytestmark = [needs_sandbox, pytest.mark.xdist_group("serve")]

DATA = Path(__file__).parent / "data" / "competitive"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("serve")
    with running_server(folder, "--workers", "2", "--max-body", "200000",
                        env={"CGM_TEST_SECRET": "the-servers-secret"}) as running:
        yield running


def post(server, body, path="/run_code", **kwargs):
    return requests.post(server.url + path, json=body, timeout=120, **kwargs)


# ---------------------------------------------------------------- SandboxFusion's answers


def test_ping_and_health(server):
    assert requests.get(server.url + "/v1/ping", timeout=10).json() == "pong"
    health = server.health()
    assert health["status"] == "ok" and health["workers"] == 2
    assert health["workers_alive"] == 2 and health["queue"] == 0


def test_run_code_statuses_as_sandboxfusion(server):
    ok = post(server, {"code": "print('hello')", "language": "python"}).json()
    assert ok["status"] == "Success" and ok["compile_result"] is None
    assert ok["run_result"]["status"] == "Finished" and ok["run_result"]["return_code"] == 0
    assert ok["run_result"]["stdout"] == "hello\n"
    # a script: __name__ is "__main__" (verl's call-based wrapper needs it), exit codes count
    main = post(server, {"code": "if __name__ == '__main__':\n    print('main')",
                         "language": "python"}).json()
    assert main["run_result"]["stdout"] == "main\n"
    failed = post(server, {"code": "import os\nos._exit(3)", "language": "python"}).json()
    assert failed["status"] == "Failed" and failed["run_result"]["return_code"] == 3
    exited = post(server, {"code": "import sys\nsys.exit(0)", "language": "python"}).json()
    assert exited["status"] == "Success"
    endless = post(server, {"code": "while True: pass", "language": "python",
                            "run_timeout": 1}).json()
    assert endless["status"] == "Failed"
    assert endless["run_result"]["status"] == "TimeLimitExceeded"


def test_compiled_language_compile_error_has_no_run_result(server):
    bad = post(server, {"code": "int main() { oops }", "language": "cpp"}).json()
    assert bad["status"] == "Failed" and bad["run_result"] is None
    assert bad["compile_result"]["status"] == "Finished"
    assert bad["compile_result"]["return_code"] != 0 and "oops" in bad["compile_result"]["stderr"]
    good = post(server, {"code": "#include <cstdio>\nint main(){int a,b;scanf(\"%d %d\",&a,&b);"
                                 "printf(\"%d\\n\",a+b);}", "language": "cpp",
                         "stdin": "2 40\n"}).json()
    assert good["status"] == "Success" and good["run_result"]["stdout"] == "42\n"
    assert good["compile_result"]["return_code"] == 0


def test_stdin_and_files(server):
    files = {"data/in.txt": base64.b64encode(b"from a file").decode()}
    answer = post(server, {"code": "import sys\nprint(sys.stdin.read().upper())\n"
                                   "print(open('data/in.txt').read())",
                           "language": "python", "stdin": "from stdin", "files": files}).json()
    assert answer["status"] == "Success"
    assert answer["run_result"]["stdout"] == "FROM STDIN\nfrom a file\n"


def test_unknown_language_lists_the_known(server):
    answer = post(server, {"code": "x", "language": "scala"})
    assert answer.status_code == 400
    body = answer.json()
    assert body["field"] == "language" and "python" in body["message"]
    assert "nodejs" in body["message"] and "cpp" in body["message"]


@pytest.mark.parametrize("body, field", [
    ({"code": 1, "language": "python"}, "code"),
    ({"language": "python"}, "code"),
    ({"code": "x", "language": "python", "run_timeout": "ten"}, "run_timeout"),
    ({"code": "x", "language": "python", "run_timeout": -1}, "run_timeout"),
    ({"code": "x", "language": "python", "compile_timeout": 10_000}, "compile_timeout"),
    ({"code": "x", "language": "python", "memory_limit_MB": "1G"}, "memory_limit_MB"),
    ({"code": "x", "language": "python", "stdin": ["a"]}, "stdin"),
    ({"code": "x", "language": "python", "files": {"../up.txt": ""}}, "files['../up.txt']"),
    ({"code": "x", "language": "python", "files": {"/etc/x": ""}}, "files['/etc/x']"),
    ({"code": "x", "language": "python", "files": {"a.txt": "not base64!"}}, "files['a.txt']"),
    ({"code": "x", "language": "python", "files": ["a"]}, "files"),
    ({"code": "x", "language": "python", "colour": "red"}, "colour"),
    ([1, 2], "body"),
])
def test_bad_payloads_name_the_field(server, body, field):
    answer = post(server, body)
    assert answer.status_code == 400, answer.text
    assert answer.json()["field"] == field


def test_undecodable_bodies_are_refused(server):
    def raw(data: bytes):
        return requests.post(server.url + "/run_code", data=data, timeout=30,
                             headers={"Content-Type": "application/json"})

    assert raw(b"{not json").json()["field"] == "body"
    assert raw(b'{"code": "\xff\xfe", "language": "python"}').status_code == 400
    surrogate = raw(b'{"code": "print(1)\\ud800", "language": "python"}')
    assert surrogate.status_code == 400 and surrogate.json()["field"] == "code"
    too_big = raw(json.dumps({"code": "#" * 300_000, "language": "python"}).encode())
    assert too_big.status_code == 413 and too_big.json()["field"] == "body"


def test_programs_see_nothing_of_the_server(server):
    probe = (
        "import os, socket, sys\n"
        "print('secret' if 'CGM_TEST_SECRET' in os.environ else 'no secret')\n"
        f"print('source' if os.path.exists({str(Path(__file__).resolve())!r}) else 'no source')\n"
        "s = socket.socket()\n"
        "s.settimeout(2)\n"
        "try:\n"
        f"    s.connect(('127.0.0.1', {server.url.rsplit(':', 1)[1]}))\n"
        "    print('network')\n"
        "except OSError:\n"
        "    print('no network')\n")
    answer = post(server, {"code": probe, "language": "python"}).json()
    assert answer["run_result"]["stdout"].split() == ["no", "secret", "no", "source", "no",
                                                      "network"]


# ---------------------------------------------------------------- batch


def test_batch_in_order_and_streamed(server):
    programs = [{"code": f"print({n} * {n})", "language": "python"} for n in range(6)]
    programs[3] = {"code": "raise SystemExit(2)", "language": "python"}
    answers = post(server, {"requests": programs}, path="/v1/batch").json()["results"]
    assert [a["status"] for a in answers] == ["Success"] * 3 + ["Failed"] + ["Success"] * 2
    assert [a["run_result"]["stdout"] for a in answers if a["status"] == "Success"] == [
        "0\n", "1\n", "4\n", "16\n", "25\n"]
    streamed = requests.post(server.url + "/v1/batch", json={"requests": programs,
                                                             "stream": True},
                             timeout=60, stream=True)
    lines = [json.loads(line) for line in streamed.iter_lines() if line]
    assert sorted(line["index"] for line in lines) == list(range(6))
    assert {line["index"]: line["status"] for line in lines}[3] == "Failed"
    bad = post(server, {"requests": [programs[0], {"code": 3, "language": "python"}]},
               path="/v1/batch")
    assert bad.status_code == 400 and bad.json()["field"] == "requests[1].code"


# ---------------------------------------------------------------- the real clients


def test_sandbox_fusion_client(server):
    from sandbox_fusion import RunCodeRequest, RunStatus, run_code, summary_run_code_result
    from sandbox_fusion.models import SummaryMapping

    answer = run_code(RunCodeRequest(code="print(input()[::-1])", stdin="olleh",
                                     language="python"), endpoint=server.url)
    assert answer.status == RunStatus.Success and answer.run_result.stdout == "hello\n"
    mapping = SummaryMapping(CompileFailed="compile", RunFailed="run", RunTimeout="timeout")
    compiled = run_code(RunCodeRequest(code="fn main() { let x: i32 = \"no\"; }",
                                       language="rust"), endpoint=server.url)
    assert summary_run_code_result(compiled, mapping) == "compile"
    slow = run_code(RunCodeRequest(code="import time\ntime.sleep(30)", run_timeout=1,
                                   language="python"), endpoint=server.url)
    assert summary_run_code_result(slow, mapping) == "timeout"
    crashed = run_code(RunCodeRequest(code="console.log(1); process.exit(4)",
                                      language="nodejs"), endpoint=server.url)
    assert summary_run_code_result(crashed, mapping) == "run"
    assert crashed.run_result.return_code == 4 and crashed.run_result.stdout == "1\n"


def test_verl_reward_code_scores_its_fixture(server):
    verl = load_verl_sandbox_fusion()
    problems = [json.loads(line) for line in
                (DATA / "verl_prime_code_fixture.jsonl").read_text().splitlines()]
    expected = [json.loads(line) for line in
                (DATA / "verl_prime_code_fixture_expected.jsonl").read_text().splitlines()]
    semaphore = threading.Semaphore(8)
    for problem, wanted in zip(problems, expected, strict=True):
        completion = f"```python\n{wanted['completion']}\n```"
        score, metadata = verl.compute_score(
            server.url + "/run_code", semaphore, 1024, completion,
            json.dumps(problem["input_output"]), continuous=True)
        assert score == wanted["expected_score_continuous"], metadata
    # no code block: verl's own rule, 0.0 without calling the server
    assert verl.compute_score(server.url + "/run_code", semaphore, 1024, "no code",
                              json.dumps(problems[0]["input_output"]))[0] == 0.0


def test_submit_judges_sandboxfusion_rows_as_its_own_tests_expect(server):
    """SandboxFusion's own test suite asserts which completions of its LiveCodeBench rows are
    accepted; /submit with the row inline (its client's provided_data) agrees."""
    from sandbox_fusion import SubmitRequest, TestConfig, submit

    competitive = Path(__file__).parent / "data" / "competitive"
    rows = {row["id"]: row for row in map(json.loads, (
        competitive / "sandboxfusion_live_code_bench_v1.jsonl").read_text().splitlines())}
    expected = [json.loads(line) for line in (
        competitive / "sandboxfusion_testsuite_expected.jsonl").read_text().splitlines()]
    checked = 0
    for case in expected:
        if case["problem_id"] not in rows:
            continue  # CodeContests rows: not in this file
        result = submit(SubmitRequest(
            dataset="inline", id=case["problem_id"], completion=case["completion"],
            config=TestConfig(language=case["language"], provided_data=rows[case["problem_id"]])),
            endpoint=server.url)
        assert result.accepted is case["expected_accepted"], (case["problem_id"], result.extra)
        assert result.tests and result.extracted_code
        checked += 1
    assert checked == 6
    bad = post(server, {"completion": "x", "config": {"provided_data": {"colour": 1}}},
               path="/submit")
    assert bad.status_code == 400 and bad.json()["field"] == "config.provided_data"
    assert "not a problem of a known format" in bad.json()["message"]


# ---------------------------------------------------------------- faults


def test_worker_killed_mid_program_is_a_sandbox_error_then_replaced(tmp_path):
    with running_server(tmp_path, "--workers", "1") as one:
        answers = []
        thread = threading.Thread(target=lambda: answers.append(post(one, {
            "code": "import time\ntime.sleep(20)", "language": "python",
            "run_timeout": 30}).json()))
        thread.start()
        deadline = time.monotonic() + 30
        while one.health()["running"] == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        pids = one.worker_pids()
        assert len(pids) == 1
        os.kill(pids[0], signal.SIGKILL)
        thread.join(60)
        assert answers[0]["status"] == "SandboxError"
        assert "harness failure" in answers[0]["message"] and answers[0]["run_result"] is None
        after = post(one, {"code": "print(7)", "language": "python"}).json()
        assert after["status"] == "Success" and after["run_result"]["stdout"] == "7\n"
        health = one.health()
        assert health["worker_restarts"] == 1 and health["sandbox_errors"] == 1
        assert health["workers_alive"] == 1 and one.worker_pids() != pids


def test_full_queue_answers_503_with_retry_after_and_queue_timeout_504(tmp_path):
    with running_server(tmp_path, "--workers", "1", "--queue", "1",
                        "--queue-timeout", "1") as one:
        sleeper = {"code": "import time\ntime.sleep(4)", "language": "python",
                   "run_timeout": 10}
        answers: list = []
        threads = [threading.Thread(target=lambda: answers.append(post(one, sleeper)))
                   for _ in range(3)]
        for thread in threads:
            thread.start()
            time.sleep(0.3)
        for thread in threads:
            thread.join(60)
        codes = sorted(answer.status_code for answer in answers)
        # one runs; one waits past --queue-timeout (504); one finds the queue full (503)
        assert codes == [200, 503, 504], [a.text for a in answers]
        for answer in answers:
            if answer.status_code != 200:
                assert int(answer.headers["Retry-After"]) >= 1


def test_client_disconnect_cancels_its_program(tmp_path):
    with running_server(tmp_path, "--workers", "1") as one:
        with pytest.raises(requests.exceptions.ReadTimeout):
            requests.post(one.url + "/run_code", json={"code": "import time\ntime.sleep(60)",
                                                       "language": "python", "run_timeout": 90},
                          timeout=1.5)
        deadline = time.monotonic() + 20
        while one.health()["cancelled"] == 0 and time.monotonic() < deadline:
            time.sleep(0.1)
        start = time.monotonic()
        answer = post(one, {"code": "print(1)", "language": "python"}).json()
        assert answer["status"] == "Success"
        assert time.monotonic() - start < 15  # not behind the minute-long program
        assert one.health()["cancelled"] == 1


def test_client_disconnect_cancels_its_submission(tmp_path):
    """/submit runs on the judge's own workers: a client that leaves has them killed too, so
    the next submission (one slot here) does not wait behind the minute-long program."""
    row = {"task_id": "echo", "input_output": {"inputs": ["1\n"], "outputs": ["1\n"]}}
    sleeper = "```python\nimport time\ntime.sleep(60)\nprint(input())\n```"
    right = "```python\nprint(input())\n```"

    def body(completion):
        return {"id": "echo", "completion": completion,
                "config": {"provided_data": row, "run_timeout": 90}}

    with running_server(tmp_path, "--workers", "1") as one:
        with pytest.raises(requests.exceptions.ReadTimeout):
            requests.post(one.url + "/submit", json=body(sleeper), timeout=3)
        deadline = time.monotonic() + 20
        while one.health()["cancelled"] == 0 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert one.health()["cancelled"] == 1
        start = time.monotonic()
        answer = post(one, body(right), path="/submit").json()
        assert answer["accepted"] is True, answer
        assert time.monotonic() - start < 30  # not behind the minute-long program
        assert one.health()["submissions"] == {"waiting": 0, "running": 0, "judged": 1}


def test_sigterm_drains_in_flight_and_refuses_new(tmp_path):
    with running_server(tmp_path, "--workers", "1") as one:
        answers: list = []
        thread = threading.Thread(target=lambda: answers.append(post(one, {
            "code": "import time\ntime.sleep(2)\nprint('finished')", "language": "python"})))
        thread.start()
        deadline = time.monotonic() + 30
        while one.health()["running"] == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        one.process.send_signal(signal.SIGTERM)
        time.sleep(0.3)
        with pytest.raises(requests.ConnectionError):
            requests.post(one.url + "/run_code", json={"code": "1", "language": "python"},
                          timeout=5)
        thread.join(30)
        assert answers[0].status_code == 200
        assert answers[0].json()["run_result"]["stdout"] == "finished\n"
        # cgm's exit status for SIGTERM (128 + 15), after the drain
        assert one.process.wait(timeout=30) == 143


def test_exposed_host_needs_a_token_or_no_auth(tmp_path):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "cgm_metrics", "serve", "--host", "0.0.0.0"],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "CGM_SERVE_TOKEN": ""})
    assert done.returncode == 1 and "--token" in done.stderr and "--no-auth" in done.stderr
    with running_server(tmp_path, "--workers", "1", "--token", "s3cret") as guarded:
        body = {"code": "print(1)", "language": "python"}
        assert post(guarded, body).status_code == 401
        assert post(guarded, body, headers={"Authorization": "Bearer wrong"}).status_code == 401
        assert post(guarded, body, headers={"Authorization": "Bearer s3cret"}).json()[
            "status"] == "Success"
        assert requests.post(guarded.url + "/run_code?token=s3cret", json=body,
                             timeout=60).json()["status"] == "Success"
