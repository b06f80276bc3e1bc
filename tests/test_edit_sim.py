"""EDIT-SIM, COMBINED and pass@k (Dibia et al., 2023; Chen et al., 2021), and the sandbox.

Expected values are worked by hand (Levenshtein distances counted edit by edit) or computed
with the textbook binomial formula of pass@k; the sandbox tests attack the sandbox with the
programs it must contain and check the host afterwards.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import sandbox_venvs
from conftest import METRICS_DIR
from hostile_programs import FAILING_TEST, HOSTILE_CANDIDATES, needs_sandbox

import cgm_metrics
from cgm_metrics.execution.code_eval import compute_code_eval
from cgm_metrics.execution.sandbox import (
    Limits,
    Sandbox,
    SandboxError,
    Step,
    processes_of,
    run_program,
)
from cgm_metrics.maths.edit_sim import EditSimMetric, edit_similarity
from cgm_metrics.maths.passk import pass_at_k, pass_at_k_per_task

ROOT = Path(__file__).resolve().parents[1]



@pytest.fixture(scope="session", autouse=True)
def _remove_test_venvs():
    """The umask-077 venvs of the sandbox tests are large: removed when the session ends."""
    yield
    sandbox_venvs.remove_all()


def _load():
    import evaluate

    return evaluate.load(str(METRICS_DIR / "edit_sim"))


# --- EDIT-SIM: hand-worked values -------------------------------------------------------------


@pytest.mark.parametrize(
    ("prediction", "reference", "expected"),
    [
        ("kitten", "sitting", 1 - 3 / 7),  # k->s, e->i, +g
        ("abcd", "abed", 1 - 1 / 4),  # c->e
        ("return x+1", "return x + 1", 1 - 2 / 12),  # two inserted spaces
        ("", "", 1.0),  # both empty: identical
        ("", "abc", 0.0),
        ("abc", "abc", 1.0),
        ("abc", "xyz", 0.0),
        ("flaw", "lawn", 1 - 2 / 4),  # -f, +n
    ],
)
def test_character_edit_similarity(prediction, reference, expected):
    assert edit_similarity(prediction, reference) == pytest.approx(expected, abs=1e-15)


def test_token_edit_similarity_uses_tranx_tokens():
    # tokens a = b + 1 / a = b - 1: one substitution out of five tokens
    assert edit_similarity("a = b + 1", "a = b - 1", unit="token") == pytest.approx(0.8)
    # camelCase splits: getValue(x) -> get Value ( x ); get_value(x) -> get_value ( x )
    # 5 vs 4 tokens, distance 2 (get->get_value, delete Value)
    assert edit_similarity("getValue(x)", "get_value(x)", unit="token") == pytest.approx(1 - 2 / 5)
    # whitespace differences vanish at token level
    assert edit_similarity("x=1", "x   =   1", unit="token") == 1.0
    assert edit_similarity("x=1", "x   =   1") == pytest.approx(1 - 6 / 9)


def test_best_reference_counts_and_corpus_is_mean():
    metric = EditSimMetric()
    result = metric.compute(["kitten", "abcd"], [["sitting", "kitten!"], "abed"], per_item=True)
    assert result["per_item"] == pytest.approx([1 - 1 / 7, 0.75])
    assert result["score"] == pytest.approx((1 - 1 / 7 + 0.75) / 2)


def test_combined_hand_values_and_components():
    metric = EditSimMetric()
    # EDIT-SIM 4/7, 3/4, 0; PASS 0, 1, 1 -> COMBINED 4/7, 1, 1
    result = metric.compute(
        ["kitten", "abcd", "abc"], ["sitting", "abed", "xyz"], per_item=True, passed=[0, 1, True]
    )
    assert result["per_item"] == pytest.approx([4 / 7, 1.0, 1.0])
    assert result["score"] == pytest.approx((4 / 7 + 2) / 3)
    assert result["combined"] == pytest.approx((4 / 7 + 2) / 3)
    assert result["edit_sim"] == pytest.approx((4 / 7 + 3 / 4) / 3)
    assert result["pass"] == pytest.approx(2 / 3)


def test_sufficient_statistics_resample_like_items():
    metric = EditSimMetric()
    preds, refs = ["kitten", "abcd", "abc", ""], [["sitting"], ["abed"], ["xyz"], [""]]
    stats = metric.statistics(preds, refs, passed=[False, False, True, False])
    assert stats.shape == (4, 4)
    items = metric.item_scores(stats)
    counts = np.array([[2, 0, 1, 1], [0, 4, 0, 0], [1, 1, 1, 1]], dtype=float)
    # a bootstrap is counts @ stats; its score is the mean of the drawn item values
    resampled = metric.score_from_statistics(counts @ stats)
    assert resampled == pytest.approx((counts @ items) / counts.sum(1))
    assert metric.item_scores(metric.statistics(preds, refs)) == pytest.approx(
        [4 / 7, 0.75, 0.0, 1.0]
    )


def test_registry_entry_and_options():
    result = cgm_metrics.score("edit_sim", ["abcd"], ["abed"], unit="token", per_item=True)
    assert result["per_item"] == [0.0]  # one token each, different
    assert "unit:token" in result["signature"]
    with pytest.raises(ValueError, match="unit"):
        EditSimMetric(unit="line")
    with pytest.raises(ValueError, match="Supported"):
        EditSimMetric(lang="klingon")
    with pytest.raises(ValueError, match="passed"):
        EditSimMetric().compute(["a", "b"], ["a", "b"], passed=[True])
    with pytest.raises(ValueError, match=r"passed\[0\]"):
        EditSimMetric().compute(["a"], ["a"], passed=["yes"])


# --- pass@k --------------------------------------------------------------------------------


def _pass_at_k_binomial(n: int, c: int, k: int) -> Fraction:
    """Chen et al.'s definition, exactly: 1 - C(n - c, k) / C(n, k)."""
    return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))


def test_pass_at_k_hand_values():
    # n=5, c=2, k=2: 1 - C(3,2)/C(5,2) = 1 - 3/10
    assert pass_at_k([5], [2], 2) == pytest.approx(0.7, abs=1e-15)
    # code_eval's docstring example: two candidates, one passes
    assert pass_at_k([2], [1], 1) == 0.5 and pass_at_k([2], [1], 2) == 1.0
    # n - c < k: every draw holds a correct sample
    assert pass_at_k([3], [2], 2) == 1.0
    assert pass_at_k([4], [0], 3) == 0.0
    # mean over tasks
    assert pass_at_k([10, 5], [3, 0], 3) == pytest.approx((1 - 35 / 120) / 2, abs=1e-15)


def test_pass_at_k_equals_binomial_formula_on_a_grid():
    rng = np.random.default_rng(0)
    for _ in range(300):
        n = int(rng.integers(1, 60))
        c = int(rng.integers(0, n + 1))
        k = int(rng.integers(1, n + 1))
        exact = float(_pass_at_k_binomial(n, c, k))
        assert pass_at_k_per_task([n], [c], k)[0] == pytest.approx(exact, rel=1e-12, abs=1e-12)
    # large n, where the binomials overflow floats: still finite and exact to 1e-12
    assert pass_at_k([2000], [7], 100) == pytest.approx(
        float(_pass_at_k_binomial(2000, 7, 100)), rel=1e-12
    )


def test_pass_at_k_errors_instead_of_dropping_k():
    with pytest.raises(ValueError, match="at least 3 samples"):
        pass_at_k([2, 5], [1, 1], 3)
    with pytest.raises(ValueError, match="cannot exceed"):
        pass_at_k([2], [3], 1)
    with pytest.raises(ValueError, match="positive integer"):
        pass_at_k([2], [1], 0)


# --- the evaluate module -------------------------------------------------------------------


def test_module_outputs_with_outcomes_and_tasks():
    module = _load()
    preds = ["kitten", "abcd", "abc", "flaw", "x", "y"]
    refs = ["sitting", "abed", "xyz", "lawn", "x", "z"]
    result = module.compute(
        predictions=preds,
        references=refs,
        passed=[False, True, False, False, True, False],
        task_ids=["a", "a", "b", "b", "c", "c"],
        k=[1, 2],
        return_per_sample=True,
    )
    edit = [4 / 7, 0.75, 0.0, 0.5, 1.0, 0.0]
    combined = [4 / 7, 1.0, 0.0, 0.5, 1.0, 0.0]
    assert result["scores"] == pytest.approx(edit)
    assert result["combined_scores"] == pytest.approx(combined)
    assert result["edit_sim"] == pytest.approx(sum(edit) / 6)
    assert result["combined"] == pytest.approx(sum(combined) / 6)
    assert result["pass"] == pytest.approx(2 / 6)
    # tasks a: n=2 c=1; b: n=2 c=0; c: n=2 c=1
    assert result["pass@1"] == pytest.approx((0.5 + 0 + 0.5) / 3)
    assert result["pass@2"] == pytest.approx((1 + 0 + 1) / 3)
    with pytest.raises(ValueError, match="at least 3"):
        module.compute(
            predictions=preds, references=refs, passed=[True] * 6, k=[3], task_ids=[0] * 5 + [1]
        )
    with pytest.raises(ValueError, match="passed"):
        module.compute(predictions=preds, references=refs, k=[1])


def test_module_refuses_to_run_tests_without_opt_in(monkeypatch):
    monkeypatch.delenv("HF_ALLOW_CODE_EVAL", raising=False)
    module = _load()
    with pytest.raises(ValueError, match="HF_ALLOW_CODE_EVAL"):
        module.compute(predictions=["x = 1"], references=["x = 1"], tests=["assert x == 1"])
    with pytest.raises(ValueError, match="allow_code_execution"):
        run_program("print(1)")


# --- the sandbox ---------------------------------------------------------------------------


def _run(source: str, **options):
    options.setdefault("timeout", 2.0)
    start = time.monotonic()
    result = run_program(source, allow_code_execution=True, **options)
    elapsed = time.monotonic() - start
    assert elapsed < options["timeout"] + 10, "the wall-clock limit did not hold"
    if result.uid is not None:
        assert processes_of(result.uid) == [], "processes of the run outlived it"
    assert result.leftover_processes == 0
    return result


@needs_sandbox
def test_sandbox_passes_and_fails_like_unit_tests():
    module = _load()
    result = module.compute(
        predictions=["def add(a, b):\n    return a + b", "def add(a, b):\n    return a * b"],
        references=["def add(x, y):\n    return x + y"] * 2,
        tests=["assert add(2, 3) == 5", "assert add(2, 3) == 5"],
        allow_code_execution=True,
        return_per_sample=True,
    )
    assert result["passed"] == [True, False]
    assert result["pass@1"] == 0.5
    ok = _run("import json, math\nprint(json.dumps(math.sqrt(16)))")
    assert ok.passed and ok.stdout == "4.0\n"
    assert {"unprivileged_uid", "mount_namespace", "read_only_root"} <= set(ok.isolation)


@needs_sandbox
def test_programs_of_one_worker_start_alike_and_share_nothing():
    """Every program's process is a fork of one warmed worker: typed code runs, a failing
    program's traceback shows its own line, a garbage collection runs, and two programs
    neither share random state nor see each other's modules or environment changes."""
    with Sandbox(Limits(timeout=10), allow_code_execution=True) as box:
        failing = box.run("from typing import List\n\n\ndef f(x: List[int]):\n"
                          "    assert x == [2], 'not two'\n\n\nf([1])\n")
        assert failing.status == "failed" and failing.result == "failed: not two"
        assert 'line 5, in f' in failing.stderr and "assert x == [2]" in failing.stderr
        draw = ("import gc, os, random, sys\ngc.collect()\nassert 'json' not in os.environ\n"
                "os.environ['json'] = '1'\nsys.modules['json'] = None\nprint(random.random())")
        first, second = box.run(draw), box.run(draw)
        assert first.passed and second.passed, (first.stderr, second.stderr)
        assert first.stdout != second.stdout


@needs_sandbox
def test_module_takes_the_sandbox_limits_in_any_number_type():
    result = _load().compute(
        predictions=["def add(a, b):\n    return a + b", "def add(a, b):\n    return a * b"],
        references=["def add(x, y):\n    return x + y"] * 2,
        tests=["assert add(2, 3) == 5"] * 2,
        allow_code_execution=True,
        return_per_sample=True,
        timeout=np.float64(5),
        num_workers=np.int64(2),
        memory_mb=np.int64(2048),
        max_processes=64,
        max_file_mb=8,
        k=np.array([1]),
    )
    assert result["passed"] == [True, False] and result["pass@1"] == 0.5


@pytest.mark.parametrize(
    ("argument", "value"),
    [("timeout", 0), ("timeout", "3"), ("timeout", 1e9), ("memory_mb", 1), ("max_processes", 0),
     ("max_file_mb", 0), ("num_workers", 0), ("k", [0])],
)
def test_module_bad_values_are_value_errors_before_anything_runs(monkeypatch, argument, value):
    import cgm_metrics.execution.edit_sim_module as glue

    def nothing_may_run(*args, **kwargs):
        raise AssertionError("a program ran before the arguments were checked")

    monkeypatch.setattr(glue, "Judge", nothing_may_run)
    with pytest.raises(ValueError, match=f"`{argument}`"):
        _load().compute(predictions=["x = 1"], references=["x = 1"], tests=["assert x == 1"],
                        allow_code_execution=True, **{argument: value})


@needs_sandbox
def test_env_switch_is_the_opt_in(monkeypatch):
    monkeypatch.setenv("HF_ALLOW_CODE_EVAL", "1")
    assert run_program("pass", timeout=5).passed


@needs_sandbox
def test_infinite_loop_times_out():
    result = _run("while True:\n    pass", timeout=1.5)
    assert not result.passed and result.status == "timeout"
    sleeper = _run("import time\nwhile True:\n    time.sleep(0.05)", timeout=1.0)
    assert not sleeper.passed and sleeper.status == "timeout"
    assert sleeper.duration < 5


@needs_sandbox
def test_bounded_forks_hit_the_process_limit_and_are_reaped():
    program = (
        "import os, sys, time\n"
        "made = 0\n"
        "for _ in range(50):\n"
        "    try:\n"
        "        pid = os.fork()\n"
        "    except OSError:\n"
        "        break\n"
        "    if pid == 0:\n"
        "        time.sleep(60)\n"
        "        os._exit(0)\n"
        "    made += 1\n"
        "print(made)\n"
        "sys.exit(0 if made == 50 else 1)\n"
    )
    result = _run(program, max_processes=10)
    assert not result.passed  # the limit stopped the forks
    assert int(result.stdout) == 9  # 10 processes of the run's uid: itself and 9 children


@needs_sandbox
def test_fork_bomb_is_contained():
    bomb = (
        "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n"
    )
    result = _run(bomb, timeout=2.0, max_processes=16)
    assert not result.passed and result.status == "timeout"
    crashing_bomb = "import os\nwhile True:\n    os.fork()\n"
    assert not _run(crashing_bomb, timeout=2.0, max_processes=16).passed


@needs_sandbox
def test_memory_hog_is_contained():
    result = _run("x = bytearray(8 * 1024 ** 3)", memory_mb=512)
    assert not result.passed and "MemoryError" in result.stderr
    grower = _run(
        "chunks = []\nwhile True:\n    chunks.append(bytearray(50 * 1024 ** 2))", memory_mb=512
    )
    assert not grower.passed


@needs_sandbox
def test_output_flood_is_bounded():
    result = _run("import sys\nwhile True:\n    sys.stdout.write('x' * 65536)", max_file_mb=1)
    assert not result.passed and len(result.stdout) <= 64 * 1024


@needs_sandbox
def test_writes_outside_the_working_directory_do_not_reach_the_host():
    outside = Path(tempfile.mkdtemp(prefix=".cgm-sandbox-probe-", dir=ROOT))
    try:
        outside.chmod(0o777)  # even a world-writable host directory stays untouched
        target = outside / "escaped.txt"
        result = _run(f"open({str(target)!r}, 'w').write('x')")  # a user folder: unseen
        assert not result.passed and "No such file or directory" in result.stderr
        assert not target.exists()
        system = Path("/usr") / f"cgm-sandbox-escaped-{os.getpid()}"  # a system folder
        result = _run(f"open({str(system)!r}, 'w').write('x')")
        assert not result.passed and "Read-only file system" in result.stderr
        assert not system.exists()
        home = Path.home() / ".cgm-sandbox-escaped"
        assert not _run(f"open({str(home)!r}, 'w').write('x')").passed
        assert not home.exists()
        # /tmp is the run's own: writing there works but never reaches the host's /tmp
        scratch = Path("/tmp") / f"cgm-sandbox-escaped-{os.getpid()}"
        inside = _run(f"open({str(scratch)!r}, 'w').write('x')")
        assert inside.passed and not scratch.exists()
        relative = _run("open('result.txt', 'w').write('x')\nprint(open('result.txt').read())")
        assert relative.passed and relative.stdout == "x\n"
    finally:
        for path in outside.iterdir():
            path.unlink()
        outside.rmdir()


@needs_sandbox
def test_network_connection_is_refused_and_never_arrives():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        listener.setblocking(False)
        port = listener.getsockname()[1]
        program = (
            "import socket\n"
            f"s = socket.create_connection(('127.0.0.1', {port}), timeout=1)\n"
            "s.sendall(b'escaped')\n"
        )
        result = _run(program)
        assert not result.passed
        with pytest.raises(BlockingIOError):
            listener.accept()  # nothing connected


# --- a pass means the program ran to its end ------------------------------------------------


@needs_sandbox
def test_hostile_programs_cannot_pass_through_edit_sim():
    names = list(HOSTILE_CANDIDATES)
    result = _load().compute(
        predictions=[HOSTILE_CANDIDATES[name] for name in names],
        references=["def f(x):\n    return x + 1\n"] * len(names),
        tests=[FAILING_TEST] * len(names),
        allow_code_execution=True,
        timeout=2.0,
        return_per_sample=True,
    )
    assert dict(zip(names, result["passed"], strict=True)) == dict.fromkeys(names, False)
    assert result["pass@1"] == 0.0 and result["pass"] == 0.0


@needs_sandbox
def test_hostile_programs_cannot_pass_through_run_program():
    for name, candidate in HOSTILE_CANDIDATES.items():
        result = _run(candidate + "\n" + FAILING_TEST)
        assert not result.passed, name
        assert result.result.startswith("failed") or result.result == "timed out", name
    honest = _run("def f(x):\n    return x + 1\n" + FAILING_TEST)
    assert honest.passed and honest.result == "passed"


def test_opt_in_flags_take_only_booleans(monkeypatch):
    monkeypatch.delenv("HF_ALLOW_CODE_EVAL", raising=False)
    module = _load()
    for value in ("false", "False", "no", "0", 0, 1, None):
        with pytest.raises(TypeError, match=r"allow_code_execution.*True or False.*HF_ALLOW"):
            module.compute(
                predictions=["x = 1"],
                references=["x = 1"],
                tests=["assert x == 1"],
                allow_code_execution=value,
            )
        with pytest.raises(TypeError, match="allow_code_execution"):
            run_program("pass", allow_code_execution=value)
    with pytest.raises(TypeError, match="require_isolation"):
        run_program("pass", allow_code_execution=True, require_isolation="false")
    with pytest.raises(TypeError, match="return_per_sample"):
        module.compute(predictions=["x = 1"], references=["x = 1"], return_per_sample="yes")
    monkeypatch.setenv("HF_ALLOW_CODE_EVAL", "true")  # only "1" opts in, as in code_eval
    with pytest.raises(ValueError, match="HF_ALLOW_CODE_EVAL"):
        run_program("pass")


# --- wherever the interpreter lives ---------------------------------------------------------


def _add_probes(python: Path, parent: Path) -> None:
    """A module in the venv's site-packages and a ``.pth`` entry pointing at a folder beside
    the venv, both written under umask 077 (private to their owner)."""
    site = sandbox_venvs.site_packages(python)
    old = os.umask(0o077)
    try:
        (site / "cgm_venv_probe.py").write_text("VALUE = 'venv'\n")
        extra = parent / "extra-packages"
        extra.mkdir(exist_ok=True)
        (extra / "cgm_pth_probe.py").write_text("VALUE = 'pth'\n")
        (site / "cgm-extra.pth").write_text(f"{extra}\n")
    finally:
        os.umask(old)


# Runs in the venv's interpreter: a passing and a failing program through the sandbox, then
# code_eval's card example. The program imports numpy (a dependency installed in the venv), a
# module of the venv and one of a .pth entry, and reports what it sees of the home directory.
_VENV_SCRIPT = """
import json, os, sys
import cgm_metrics
from cgm_metrics.execution.code_eval import compute_code_eval
from cgm_metrics.execution.sandbox import run_program
probe = (
    "import json, os, sys\\n"
    "import numpy, cgm_venv_probe, cgm_pth_probe\\n"
    "home = HOME\\n"
    "seen = sorted(os.listdir(home)) if os.path.isdir(home) else []\\n"
    "print(json.dumps({'prefix': sys.prefix, 'seen': seen, 'secret': os.path.exists(SECRET),\\n"
    "                  'modules': [cgm_venv_probe.VALUE, cgm_pth_probe.VALUE]}))\\n"
)
passing = run_program(probe + "assert 1 + 1 == 2", timeout=10, allow_code_execution=True)
failing = run_program(probe + "assert 1 + 1 == 3", timeout=10, allow_code_execution=True)
scores, results = compute_code_eval(
    [["def add(a,b): return a*b", "def add(a, b): return a+b"]], ["assert add(2,3)==5"],
    k=[1, 2], num_workers=2, allow_code_execution=True)
print(json.dumps({"package": cgm_metrics.__file__, "prefix": sys.prefix,
                  "passing": [passing.passed, passing.stdout, passing.stderr[-2000:]],
                  "failing": [failing.passed, failing.stdout, failing.result],
                  "code_eval": {key: float(value) for key, value in scores.items()}}))
"""


def _run_through_venv(python: Path) -> None:
    venv = python.parent.parent
    _add_probes(python, venv.parent)
    for folder in (venv.parent, venv, sandbox_venvs.site_packages(python)):
        assert folder.stat().st_mode & 0o077 == 0, f"{folder} is not private"
    home = Path.home()
    secret = home / f".cgm-sandbox-secret-{os.getpid()}"
    secret.write_text("not for the sandbox")
    script = _VENV_SCRIPT.replace("HOME", repr(str(home))).replace("SECRET", repr(str(secret)))
    try:
        completed = sandbox_venvs.run_in(python, script)
    finally:
        secret.unlink()
    assert completed.returncode == 0, completed.stderr[-3000:]
    outcome = json.loads(completed.stdout.strip().splitlines()[-1])
    # the package of the venv, installed by pip, not this checkout
    assert outcome["package"].startswith(str(venv) + "/") and outcome["prefix"] == str(venv)
    passed, stdout, stderr = outcome["passing"]
    assert passed, stderr
    seen = json.loads(stdout)
    assert seen["prefix"] == str(venv)  # the venv's own interpreter, not its base
    assert seen["modules"] == ["venv", "pth"]  # its site-packages and its .pth entries
    assert seen["secret"] is False  # the rest of the home directory stays hidden
    assert secret.name not in seen["seen"]
    failed, stdout, result = outcome["failing"]
    assert not failed and json.loads(stdout)["modules"] == ["venv", "pth"]
    assert result == "failed: "
    # code_eval's card: "Partial match at k=1, full match at k=2"
    assert outcome["code_eval"] == {"pass@1": 0.5, "pass@2": 1.0}


@needs_sandbox
def test_a_caller_under_umask_077():
    """A caller whose umask is 077 (a private shell): the folders the sandbox makes for its
    mounts stay traversable, so the standard library is found (it was not: every program,
    the canary included, failed with "No module named 'subprocess'")."""
    old = os.umask(0o077)
    try:
        result = run_program("import json, subprocess\nprint(json.dumps([1]))",
                             allow_code_execution=True)
    finally:
        os.umask(old)
    assert (result.passed, result.stdout) == (True, "[1]\n"), result.stderr


@needs_sandbox
@sandbox_venvs.GROUP
def test_venv_under_tmp():
    """A venv made under umask 077 in a mkdtemp folder under /tmp, cgm-metrics installed in it
    by pip with its dependencies: every folder private to its owner."""
    _run_through_venv(sandbox_venvs.full_venv())


@needs_sandbox
@sandbox_venvs.GROUP
def test_venv_in_the_home_directory():
    """A venv made under umask 077 in a mkdtemp folder of the (private) home directory."""
    _run_through_venv(sandbox_venvs.light_venv())


def test_the_interpreters_own_prefix_in_a_private_home_is_visible():
    """(Like conda in a private home:) the prefixes of this interpreter are seen by every run,
    wherever they live; nothing else of the home directory is."""
    from cgm_metrics.execution.sandbox import visible_paths

    paths = visible_paths()
    for prefix in {sys.prefix, sys.base_prefix}:
        assert os.path.realpath(prefix) in paths or os.path.abspath(prefix) in paths
    home = os.path.realpath(Path.home())
    assert home not in paths and "/" not in paths


@needs_sandbox
def test_an_unreadable_path_of_the_interpreter_is_a_harness_error(monkeypatch, tmp_path):
    """A sys.path entry the run cannot read (a zip archive of mode 000: root reads it, no other
    uid does) fails the worker's canary: an error naming the path and the fix, before any
    program runs, never a failed program."""
    (tmp_path / "site-packages").mkdir()  # installed packages: what a run sees of sys.path
    archive = tmp_path / "site-packages" / "unreadable.zip"
    archive.write_bytes(b"PK\x05\x06" + b"\0" * 18)  # an empty zip archive
    archive.chmod(0)
    if os.geteuid() != 0:
        pytest.skip("only root reads a file of mode 000 (for others the sandbox ignores it)")
    monkeypatch.setattr(sys, "path", [*sys.path, str(archive)])
    with pytest.raises(SandboxError, match=r"unreadable\.zip.*Fix: make these folders readable"):
        run_program("pass", allow_code_execution=True)
    with pytest.raises(SandboxError, match=r"unreadable\.zip"):
        compute_code_eval([["x = 1"]], ["assert x == 1"], k=[1], allow_code_execution=True)


def test_a_missing_interpreter_is_a_harness_error(monkeypatch):
    monkeypatch.setattr(sys, "executable", "/nonexistent/bin/python3")
    with pytest.raises(SandboxError, match="cannot start the sandbox's interpreter.*/nonexistent"):
        run_program("pass", allow_code_execution=True)
    with pytest.raises(SandboxError, match="/nonexistent"):
        compute_code_eval([["x = 1"]], ["assert x == 1"], k=[1], allow_code_execution=True)


@needs_sandbox
def test_a_program_of_several_steps_shares_its_private_directory():
    """Steps (a command, e.g. a compiler, then what it built) run one after the other in the
    run's private directory, each under the limits, stopping at the first that fails."""
    sh, cat = shutil.which("sh"), shutil.which("cat")
    if sh is None or cat is None:
        pytest.skip("needs sh and cat")
    with Sandbox(allow_code_execution=True) as box:
        built = box.run(
            [Step(argv=(sh, "build.sh")), Step(argv=(cat, "built.txt")),
             Step(python="print(open('built.txt').read().strip() + '!')")],
            files={"build.sh": "echo hello > built.txt\n"},
        )
        assert built.passed and [s.status for s in built.steps] == ["passed"] * 3
        assert built.steps[1].stdout == "hello\n" and built.stdout == "hello!\n"
        broken = box.run([Step(argv=(sh, "-c", "echo oops >&2; exit 3")),
                          Step(python="print('never')")])
        assert not broken.passed and len(broken.steps) == 1
        assert (broken.status, broken.returncode, broken.stderr) == ("failed", 3, "oops\n")
        slow = box.run([Step(argv=(sh, "-c", "sleep 30"), timeout=0.5)])
        assert (slow.status, slow.limit) == ("timeout", "timeout") and slow.duration < 10
        # nothing of an earlier run is left in the private directory
        assert box.run("import os\nassert os.listdir('.') == [], os.listdir('.')").passed


@needs_sandbox
def test_the_private_directory_is_empty_with_a_needed_path_under_tmp(monkeypatch):
    """A site-packages folder of sys.path under /tmp (a venv made in a temporary folder) is
    bound back into each run's fresh /tmp; the run's own directory
    must still start empty, whichever tests ran before in the same process."""
    top = Path(tempfile.mkdtemp(prefix="cgm-needed-", dir="/tmp"))
    needed = top / "site-packages"  # installed packages: what a run sees of sys.path
    needed.mkdir()
    try:
        (needed / "cgm_needed_probe.py").write_text("VALUE = 7\n")
        # after sys.path[0] (the caller's script folder, which runs never see)
        monkeypatch.setattr(sys, "path", [sys.path[0], str(needed), *sys.path[1:]])
        with Sandbox(allow_code_execution=True) as box:
            for _ in range(2):
                result = box.run("import os, cgm_needed_probe\n"
                                 "assert cgm_needed_probe.VALUE == 7\n"
                                 "assert os.listdir('.') == [], os.listdir('.')\n"
                                 "open('left.txt', 'w').write('x')")
                assert result.passed, result.stderr[-2000:]
    finally:
        shutil.rmtree(top, ignore_errors=True)


@needs_sandbox
def test_a_command_that_cannot_start_is_a_harness_error():
    with Sandbox(allow_code_execution=True) as box:
        with pytest.raises(SandboxError, match="cannot start /nonexistent/compiler"):
            box.run([Step(argv=("/nonexistent/compiler", "x.c"))])
        assert box.run("x = 1").passed  # the worker carries on


@needs_sandbox
def test_a_worker_that_dies_is_a_harness_error():
    box = Sandbox(allow_code_execution=True)
    killer = threading.Timer(0.5, lambda: os.killpg(box._process.pid, signal.SIGKILL))
    killer.start()
    try:
        with pytest.raises(SandboxError, match="ended unexpectedly"):
            box.run("import time\ntime.sleep(30)", limits=Limits(timeout=30))
    finally:
        killer.cancel()
        box.close()


_UNPRIVILEGED_SCRIPT = """
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("cgm_sandbox", sys.argv[1])
sandbox = importlib.util.module_from_spec(spec)
sys.modules["cgm_sandbox"] = sandbox
spec.loader.exec_module(sandbox)
outcomes = {}
programs = {
    "passing": "import sys, cgm_private_probe\\nprint(sys.prefix)\\nassert 1 + 1 == 2",
    "failing": "assert 1 + 1 == 3",
    "os_exit": "import os\\nos._exit(0)\\nassert 1 + 1 == 3",
    "escape": "open(" + repr(sys.argv[2]) + ", 'w').write('x')",
    "unmount": "import ctypes\\nassert ctypes.CDLL(None).umount2(b'/tmp', 2) == 0",
}
for name, program in programs.items():
    try:
        result = sandbox.run_program(program, timeout=5, allow_code_execution=True)
    except RuntimeError as error:
        if "user namespaces are unavailable" not in str(error):
            raise
        print(json.dumps({"unavailable": str(error)}))
        sys.exit(0)
    outcomes[name] = [result.passed, result.stdout, list(result.isolation)]
print(json.dumps(outcomes))
"""


def test_unprivileged_user_with_a_venv():
    """Without root the sandbox uses a user namespace; run as the `nobody` user from a venv
    made under umask 077 (private folders, a private module in its site-packages)."""
    if os.geteuid() != 0:
        pytest.skip("switching to another user needs root; this run is unprivileged already")
    setpriv = shutil.which("setpriv")
    system_python = next(
        (p for p in ("/usr/bin/python3", "/usr/local/bin/python3") if os.path.exists(p)), None
    )
    if setpriv is None or system_python is None:
        pytest.skip(f"needs setpriv ({setpriv}) and an interpreter outside /root ({system_python})")
    as_nobody = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
    work = Path(tempfile.mkdtemp(prefix="cgm-unprivileged-", dir="/tmp"))
    try:
        os.chmod(work, 0o755)
        code = work / "code"
        code.mkdir()
        code.chmod(0o755)  # readable by nobody whatever this run's umask (077 keeps it private)
        # the sandbox is standalone: sandbox.py and its _sandbox_*.py helpers, nothing else
        execution = ROOT / "src" / "cgm_metrics" / "execution"
        files = [execution / "sandbox.py", *sorted(execution.glob("_sandbox_*.py"))]
        assert {f.name for f in files} >= {"_sandbox_child.py", "_sandbox_runner.py"}
        for source in files:
            shutil.copy(source, code / source.name)
            (code / source.name).chmod(0o644)
        home = work / "home"
        home.mkdir()
        os.chown(home, 65534, 65534)
        made = subprocess.run(
            [*as_nobody, "sh", "-c", 'umask 077 && "$0" -m venv --without-pip "$1" && '
             '"$1/bin/python" -c "import sysconfig, pathlib; pathlib.Path(sysconfig.get_paths()'
             '[\'purelib\'], \'cgm_private_probe.py\').write_text(\'\')"',
             system_python, str(home / "venv")],
            capture_output=True, text=True, timeout=120,
        )
        if made.returncode != 0:  # a set-up failure: an error, never a skip
            raise RuntimeError(f"{system_python} cannot make a venv as nobody: "
                               f"{made.stderr[-500:]}")
        assert (home / "venv").stat().st_mode & 0o077 == 0
        outside = Path(tempfile.mkdtemp(prefix=".cgm-unprivileged-probe-", dir=ROOT))
        outside.chmod(0o777)  # writable for nobody on the host, read-only in the sandbox
        target = outside / "escaped.txt"
        completed = subprocess.run(
            [*as_nobody, "env", f"HOME={home}", str(home / "venv" / "bin" / "python"), "-c",
             _UNPRIVILEGED_SCRIPT, str(code / "sandbox.py"), str(target)],
            capture_output=True, text=True, timeout=180, cwd=str(work),
        )
        assert completed.returncode == 0, completed.stderr[-3000:]
        outcome = json.loads(completed.stdout.strip().splitlines()[-1])
        if "unavailable" in outcome:
            if os.environ.get("CGM_REQUIRE_SANDBOX", "") not in ("", "0"):
                pytest.fail(f"CGM_REQUIRE_SANDBOX=1 but {outcome['unavailable']}")
            pytest.skip(outcome["unavailable"])
        passed, stdout, isolation = outcome["passing"]
        assert passed and stdout.strip() == str(home / "venv")
        assert {"user_namespace", "pid_namespace", "network_namespace"} <= set(isolation)
        assert outcome["failing"][0] is False and outcome["os_exit"][0] is False
        assert outcome["escape"][0] is False and not target.exists()
        assert outcome["unmount"][0] is False  # no capability over the run's own mounts
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if "outside" in locals():
            shutil.rmtree(outside, ignore_errors=True)


def test_without_namespaces_runs_only_when_asked_and_tricks_still_fail(monkeypatch):
    """Where namespaces cannot exist (not Linux) the run is refused with that reason; with
    require_isolation=False it runs with limits only, and a pass still needs the runner."""
    monkeypatch.setattr(sys, "platform", "darwin")
    with pytest.raises(RuntimeError, match="need Linux, and this is darwin.*require_isolation"):
        run_program("pass", allow_code_execution=True)
    honest = run_program(
        "def f(x):\n    return x + 1\n" + FAILING_TEST,
        timeout=2.0,
        allow_code_execution=True,
        require_isolation=False,
    )
    assert honest.passed and "pid_namespace" not in honest.isolation
    for name in ("sys_exit", "os_exit", "atexit_os_exit", "excepthook_exit_0"):
        result = run_program(
            HOSTILE_CANDIDATES[name] + FAILING_TEST,
            timeout=2.0,
            allow_code_execution=True,
            require_isolation=False,
        )
        assert not result.passed, name
