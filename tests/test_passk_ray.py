"""Programs of ``cgm compare --problems`` run on a real local Ray cluster (2 CPUs): a sandbox per
actor, the same verdicts and the same JSON as one process.

The cluster is started once for the module, in this process; ``cgm`` runs in this process too
and joins it (``--ray auto``). The Ray tests share one xdist worker (``--dist loadgroup``).
"""

import json

import pytest
from _peers import require
from hostile_programs import needs_sandbox
from test_passk import TASKS, cgm, samples_file, variants, write_jsonl

pytestmark = [pytest.mark.xdist_group("ray"), needs_sandbox]


@pytest.fixture(scope="module")
def cluster():
    ray = require("ray")
    ray.init(num_cpus=2, include_dashboard=False, object_store_memory=256 * 2**20,
             logging_level="WARNING")
    yield ray
    ray.shutdown()


def test_ray_gives_the_verdicts_and_json_of_one_process(cluster, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("HF_ALLOW_CODE_EVAL", "1")
    tasks = TASKS[:20]
    problem_file = write_jsonl(tmp_path / "p.jsonl", tasks)
    kinds = ("canonical", "wrong", "raising", "syntax_error", "exiting")
    files = [samples_file(tmp_path / f"{name}.jsonl", tasks,
                          lambda i, j, shift=shift: variants.completion(
                              tasks[i], kinds[(i + j + shift) % len(kinds)]), n=2)
             for shift, name in enumerate(("a", "b"))]
    outputs, runs = [], []
    for engine in (["--jobs", "1"], ["--ray", "auto"]):
        name = engine[0].strip("-")
        code, _, err = cgm(capsys, "compare", "--problems", problem_file, *files, "--metrics",
                           "pass@1", "pass@2", "edit_sim", *engine, "--json",
                           tmp_path / f"{name}.json", "--results", tmp_path / f"{name}.jsonl")
        assert code == 0, err
        outputs.append((tmp_path / f"{name}.json").read_bytes())
        runs.append([{k: v for k, v in json.loads(line).items()
                      if k not in ("duration", "cpu_time")}  # measured, not decided
                     for line in open(tmp_path / f"{name}.jsonl", encoding="utf-8")])
    assert outputs[0] == outputs[1]
    assert runs[0] == runs[1] and len(runs[0]) == 2 * 20 * 2
    assert {run["status"] for run in runs[0]} == {"passed", "failed"}
    assert cluster.is_initialized()  # a cluster the run joined is left running
