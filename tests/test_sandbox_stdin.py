"""The sandbox's standard input and whole standard output: a step's stdin (a text or a span of
a file, streamed through a pipe from the host's side), its stdout kept whole up to a bound
past which it is killed (limit "output"), Python code run as a script (``as_main``), and
sessions: steps run one at a time in one run's private directory (build once, run per test).
Real sandbox, real programs."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from cgm_metrics.execution.io_spec import DataRef
from cgm_metrics.execution.sandbox import Limits, Sandbox, SandboxError, Step


@pytest.fixture(scope="module")
def box():
    with Sandbox(Limits(timeout=5.0), allow_code_execution=True) as sandbox:
        yield sandbox


def test_a_text_reaches_the_program_s_stdin(box):
    result = box.run(Step(python="import sys\nprint(sum(map(int, sys.stdin.read().split())))",
                          stdin="1 2 3\n40\n", max_output_bytes=100, as_main=True))
    assert (result.status, result.stdout, result.steps[0].stdout_bytes) == ("passed", "46\n", 3)


def test_without_stdin_the_program_reads_an_empty_input(box):
    result = box.run(Step(argv=("/bin/cat",), max_output_bytes=100))
    assert (result.status, result.stdout) == ("passed", "")


def test_a_stdin_larger_than_a_pipe_is_streamed_whole(box):
    text = "".join(f"{n}\n" for n in range(400_000))  # 2.6 MB, past any pipe's capacity
    result = box.run(Step(argv=("/usr/bin/wc", "-c"), stdin=text, max_output_bytes=100))
    assert result.status == "passed" and int(result.stdout) == len(text.encode())


def test_a_dataref_streams_its_span_of_the_file_only(box, tmp_path):
    path = tmp_path / "tests.txt"
    body = "3 4\n" * 300_000
    path.write_bytes(b"HEAD\n" + body.encode() + b"TAIL")
    ref = DataRef(str(path), offset=5, length=len(body))
    result = box.run(Step(python="import sys\nd = sys.stdin.read()\n"
                                 "print(len(d), d.count('3 4'), 'HEAD' in d, 'TAIL' in d)",
                          stdin=ref, max_output_bytes=100, as_main=True))
    assert result.stdout == f"{len(body)} 300000 False False\n"


def test_the_input_file_is_not_visible_to_the_program(box, tmp_path):
    path = tmp_path / "secret_input.txt"
    path.write_text("42\n")
    source = (f"import os\nprint(input(), os.path.exists({str(path)!r}), "
              f"os.path.exists({str(tmp_path)!r}) and os.listdir({str(tmp_path)!r}))")
    result = box.run(Step(python=source, stdin=DataRef(str(path)), max_output_bytes=200,
                          as_main=True))
    assert result.stdout == "42 False []\n" or result.stdout == "42 False False\n"


def test_a_program_that_does_not_read_its_large_stdin_ends(box):
    result = box.run(Step(python="print('done')", stdin="y" * 5_000_000, max_output_bytes=100))
    assert (result.status, result.stdout) == ("passed", "done\n")


def test_the_whole_stdout_is_kept_up_to_the_bound(box):
    source = "for n in range(200_000):\n    print(n)"
    result = box.run(Step(python=source, max_output_bytes=10_000_000))
    expected = "".join(f"{n}\n" for n in range(200_000))
    assert result.status == "passed" and result.stdout == expected
    # without a bound: the last 64 KiB, as before
    tail = box.run(Step(python=source))
    assert tail.status == "passed" and expected.endswith(tail.stdout)
    assert len(tail.stdout) == 64 * 1024


@pytest.mark.parametrize("source", [
    "while True:\n    print('x' * 1000)",  # killed by the bound while it runs
    "import sys\nsys.stdout.write('y' * 5000)",  # ends by itself, past the bound
])
def test_output_past_the_bound_is_the_output_limit(box, source):
    result = box.run(Step(python=source, max_output_bytes=4096, as_main=True))
    assert (result.passed, result.status, result.limit) == (False, "killed", "output")
    assert "max_output_bytes" in result.result
    assert len(result.stdout) <= 4096


def test_a_command_past_the_bound_is_the_output_limit(box):
    result = box.run(Step(argv=("/usr/bin/yes",), max_output_bytes=1 << 20))
    assert (result.status, result.limit) == ("killed", "output")
    assert result.duration < 4.0  # stopped by the bound, not the time limit


def test_as_main_runs_the_code_as_a_script(box):
    main = box.run(Step(python="if __name__ == '__main__':\n    print(input())", stdin="hi\n",
                        as_main=True))
    assert (main.status, main.stdout) == ("passed", "hi\n")
    exits = box.run(Step(python="import sys\nprint(1)\nsys.exit()", as_main=True))
    assert (exits.status, exits.returncode, exits.stdout) == ("passed", 0, "1\n")
    fails = box.run(Step(python="import sys\nprint(1)\nsys.exit(3)", as_main=True))
    assert fails.status == "failed" and fails.returncode != 0
    # a script's threads are waited for, as the interpreter waits for them
    thread = box.run(Step(python="import threading\ndef main():\n    print(input())\n"
                                 "threading.Thread(target=main).start()",
                          stdin="from a thread\n", as_main=True))
    assert (thread.status, thread.stdout) == ("passed", "from a thread\n")
    # code_eval's way (no as_main) is unchanged: sys.exit fails, __name__ is not __main__
    plain = box.run(Step(python="import sys\nsys.exit(0)"))
    assert plain.status == "failed"


@pytest.mark.parametrize("source", [
    "import sys\nprint(1)\nsys.exit(3)",
    "raise SystemExit('no input given')",
    "import sys\nsys.exit(True)",
    "class Stop(SystemExit):\n    pass\nraise Stop(7)",
    "exit(4)",
    "import sys\nsys.exit([1, 2])",
])
def test_a_script_s_exit_ends_it_as_the_interpreter_does(box, source):
    """The exit status, stdout and stderr of ``python script.py``, the peer run here: no
    traceback for ``sys.exit``, a code that is not a number printed on stderr."""
    real = subprocess.run([sys.executable, "-c", source], capture_output=True, text=True,
                          timeout=60)
    ours = box.run(Step(python=source, as_main=True))
    assert (ours.returncode, ours.stdout, ours.stderr) == (real.returncode, real.stdout,
                                                           real.stderr)
    assert ours.status == "failed"


def test_each_step_of_a_program_gets_its_own_stdin(box):
    result = box.run([Step(argv=("/bin/cat",), stdin="one\n", max_output_bytes=100),
                      Step(argv=("/bin/sh", "-c", "cat; cat")),
                      Step(argv=("/bin/cat",), stdin="three\n", max_output_bytes=100)])
    assert [(s.status, s.stdout) for s in result.steps] == [
        ("passed", "one\n"), ("passed", ""), ("passed", "three\n")]


def test_a_session_builds_once_and_runs_steps_in_the_same_directory(box):
    build = Step(argv=("/bin/sh", "-c", "echo built > artefact"))
    with box.session([build]) as session:
        assert session.result is not None and session.result.status == "passed"
        outputs = [session.step(Step(argv=("/bin/sh", "-c", "cat artefact; cat"),
                                     stdin=f"test {n}\n", max_output_bytes=100)).stdout
                   for n in range(3)]
        slow = session.step(Step(python="while True: pass"), Limits(timeout=0.5, clock="cpu"))
        after = session.step(Step(python="print(input())", stdin="still open\n",
                                  max_output_bytes=100, as_main=True))
    assert outputs == [f"built\ntest {n}\n" for n in range(3)]
    assert slow.status == "timeout" and after.stdout == "still open\n"
    with pytest.raises(SandboxError, match="closed"):
        session.step(Step(argv=("/bin/true",)))
    # the worker runs other programs again, each in a fresh directory
    fresh = box.run(Step(argv=("/bin/sh", "-c", "ls -A; echo end")))
    assert fresh.stdout == "end\n"


def test_a_session_whose_build_fails_is_closed(box):
    session = box.session([Step(argv=("/bin/sh", "-c", "exit 2"))])
    assert session.result is not None and session.result.status == "failed"
    assert not session.open
    assert box.run(Step(argv=("/bin/true",))).status == "passed"


def test_stdin_must_be_text_or_a_dataref():
    with pytest.raises(TypeError, match="stdin"):
        Step(argv=("/bin/cat",), stdin=b"bytes")
    with pytest.raises(ValueError, match="max_output_bytes"):
        Step(argv=("/bin/cat",), max_output_bytes=0)
    with pytest.raises(ValueError, match="as_main"):
        Step(argv=("/bin/cat",), as_main=True)


def test_the_stdin_pipe_ends_are_closed_after_runs(box):
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(20):
        box.run(Step(python="pass", stdin="z" * 300_000))
    assert len(os.listdir("/proc/self/fd")) <= before
