"""Per-item statistics on a real local Ray cluster (2 CPUs) equal the one-process statistics.

One cluster serves the whole module (Ray takes seconds to start); the CLI tests run ``cgm`` as a
user does, in a subprocess that starts its own local Ray or joins this one by its address.
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from _peers import require
from conftest import stdlib_pairs

import cgm_metrics
from cgm_metrics.core.inputs import check_inputs
from cgm_metrics.pipeline.distributed import INSTALL_HINT

pytestmark = pytest.mark.xdist_group("ray")  # one worker, one cluster (pytest --dist loadgroup)

N_ITEMS = 150
BATCH = 32  # several blocks per system, so the order of blocks matters


@pytest.fixture(scope="module")
def cluster():
    ray = require("ray")
    ray.init(num_cpus=2, include_dashboard=False, object_store_memory=256 * 2**20,
             logging_level="WARNING")
    yield ray
    ray.shutdown()


@pytest.fixture(scope="module")
def corpus():
    predictions, references = stdlib_pairs(N_ITEMS, seed=7)
    # a second system: right on every third item, as the first elsewhere
    other = [r if i % 3 == 0 else p for i, (p, r) in enumerate(zip(predictions, references, strict=True))]
    return {"a": predictions, "b": other}, [[r] for r in references]


def same(a: np.ndarray, b: np.ndarray) -> bool:
    """Bit for bit: shape, dtype and every byte."""
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def test_every_registry_metric_equals_one_process(cluster, corpus):
    from cgm_metrics.pipeline.distributed import ray_statistics_table

    systems, references = corpus
    metrics = {name: cgm_metrics.get_metric(name, lang="python") for name in cgm_metrics.metrics()
               if not cgm_metrics.pipeline.registry.metric_class(name).runs_code}  # texts, no programs
    result = ray_statistics_table(metrics, systems, references, batch_size=BATCH)
    assert list(result) == list(metrics)
    for name, metric in metrics.items():
        for system, predictions in systems.items():
            local = np.asarray(metric.statistics(predictions, references))
            assert same(result[name][system], local), (name, system)
            assert metric.corpus_score(result[name][system]) == metric.corpus_score(local)


def test_library_runner_engine_ray_equals_local(cluster, corpus):
    from cgm_metrics.pipeline.runner import compute_statistics

    systems, references = corpus
    metric = cgm_metrics.get_metric("chrf_code")
    local = compute_statistics(metric, systems["b"], references)
    assert same(compute_statistics(metric, systems["b"], references, engine="ray"), local)
    with pytest.raises(ValueError, match="`engine` must be one of local, ray"):
        compute_statistics(metric, systems["b"], references, engine="spark")


def test_one_metric_from_lists_and_from_parquet(cluster, corpus, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from cgm_metrics.pipeline.distributed import ray_statistics

    systems, references = corpus
    predictions = systems["a"]
    metric = cgm_metrics.get_metric("codebleu", lang="python")
    local = metric.statistics(predictions, references)
    assert same(ray_statistics(metric, predictions, references, batch_size=BATCH), local)
    # Parquet in several files and row groups, with a column the metric does not read
    for part, (start, stop) in enumerate([(0, 70), (70, N_ITEMS)]):
        table = pa.table({
            "prediction": predictions[start:stop],
            "references": [r[0] for r in references[start:stop]],  # a string: one reference
            "extra": list(range(start, stop)),
        })
        pq.write_table(table, tmp_path / f"part-{part}.parquet", row_group_size=25)
    dataset = cluster.data.read_parquet(str(tmp_path))
    stats = ray_statistics("codebleu", dataset, options={"lang": "python"}, batch_size=BATCH)
    assert same(stats, local)


def test_a_dead_worker_is_retried_without_losing_or_repeating_items(cluster, corpus, tmp_path):
    from cgm_metrics.maths.chrf import ChrfCodeMetric
    from cgm_metrics.pipeline.distributed import ray_statistics

    systems, references = corpus
    local = ChrfCodeMetric().statistics(systems["a"], references)
    flag = tmp_path / "die-once"
    flag.write_text("")

    class DiesOnce(ChrfCodeMetric):
        """chrF that kills its worker process the first time it gets the block of items 32-63."""

        def statistics(self, predictions, references):
            if predictions[0] == systems["a"][32] and flag.exists():
                flag.unlink()
                os._exit(1)  # the process is gone, as on a lost node
            return super().statistics(predictions, references)

    stats = ray_statistics(DiesOnce(), systems["a"], references, batch_size=BATCH)
    assert not flag.exists(), "the worker never died: the test did not test a retry"
    assert same(stats, local)


def test_bad_rows_are_reported_with_their_item_number(cluster, corpus, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from cgm_metrics.pipeline.distributed import ray_statistics

    systems, references = corpus
    predictions = list(systems["a"])
    predictions[123] = None
    refs = [list(r) for r in references]
    refs[40] = []
    with pytest.raises(TypeError) as local:
        check_inputs(predictions, refs)
    assert "`predictions[123]`" in str(local.value)
    # lists: checked before anything runs, as one process checks them
    with pytest.raises(TypeError) as on_ray:
        ray_statistics("chrf_code", predictions, refs, batch_size=BATCH)
    assert str(on_ray.value) == str(local.value)
    # a dataset: each worker checks its rows; the first bad row of the whole input is reported
    path = tmp_path / "bad.parquet"
    pq.write_table(pa.table({"prediction": predictions, "references": refs}), path)
    with pytest.raises(TypeError) as on_ray:
        ray_statistics("chrf_code", cluster.data.read_parquet(str(path)), batch_size=BATCH)
    assert str(on_ray.value) == str(local.value)
    # with every prediction fixed, the empty reference list of item 40 is the first error
    predictions[123] = ""
    pq.write_table(pa.table({"prediction": predictions, "references": refs}), path)
    with pytest.raises(ValueError) as local:
        check_inputs(predictions, refs)
    with pytest.raises(ValueError) as on_ray:
        ray_statistics("chrf_code", cluster.data.read_parquet(str(path)), batch_size=BATCH)
    assert str(on_ray.value) == str(local.value)
    assert "`references[40]` is an empty list" in str(on_ray.value)


def test_a_dataset_without_the_columns_names_them(cluster):
    from cgm_metrics.pipeline.distributed import ray_statistics

    dataset = cluster.data.from_items([{"output": "x", "references": "y"}])
    with pytest.raises(ValueError, match="no 'prediction' column"):
        ray_statistics("chrf_code", dataset)


# ---------------------------------------------------------------- the command line


def cgm(*args, env=None) -> subprocess.CompletedProcess:
    environment = dict(os.environ, HF_EVALUATE_OFFLINE="1", PYTHONHASHSEED="0", **(env or {}))
    return subprocess.run([sys.executable, "-m", "cgm_metrics", *map(str, args)],
                          capture_output=True, text=True, env=environment, timeout=600)


@pytest.fixture(scope="module")
def cli_files(corpus, tmp_path_factory):
    folder = tmp_path_factory.mktemp("cli")
    systems, references = corpus
    (folder / "refs.jsonl").write_text(
        "".join(json.dumps({"references": r}) + "\n" for r in references), encoding="utf-8")
    for name in ("a", "b"):
        (folder / f"{name}.jsonl").write_text(
            "".join(json.dumps({"prediction": p}) + "\n" for p in systems[name]),
            encoding="utf-8")
    return folder


def test_cgm_score_on_a_local_ray_equals_one_process(cluster, cli_files):
    common = ["score", "--references", cli_files / "refs.jsonl", "--predictions",
              cli_files / "a.jsonl", cli_files / "b.jsonl", "--metrics", "chrf_code", "codebleu",
              "--lang", "python"]
    one = cgm(*common, "--json", cli_files / "one.json", "--per-item", cli_files / "one.csv")
    assert one.returncode == 0, one.stderr
    on_ray = cgm(*common, "--json", cli_files / "ray.json", "--per-item", cli_files / "ray.csv",
                 "--ray")  # no address: a local Ray started for this run
    assert on_ray.returncode == 0, on_ray.stderr
    assert on_ray.stdout == one.stdout
    assert (cli_files / "ray.json").read_bytes() == (cli_files / "one.json").read_bytes()
    assert (cli_files / "ray.csv").read_bytes() == (cli_files / "one.csv").read_bytes()


def test_cgm_compare_joining_a_cluster_equals_one_process(cluster, cli_files):
    address = cluster.get_runtime_context().gcs_address
    common = ["compare", cli_files / "a.jsonl", cli_files / "b.jsonl", "--references",
              cli_files / "refs.jsonl", "--metrics", "chrf_code", "ruby", "--n-resamples", "300"]
    one = cgm(*common, "--json", cli_files / "one_cmp.json")
    assert one.returncode == 0, one.stderr
    on_ray = cgm(*common, "--json", cli_files / "ray_cmp.json", "--ray", address)
    assert on_ray.returncode == 0, on_ray.stderr
    assert on_ray.stdout == one.stdout
    assert (cli_files / "ray_cmp.json").read_bytes() == (cli_files / "one_cmp.json").read_bytes()
    result = json.loads((cli_files / "ray_cmp.json").read_text())
    assert result["metrics"]["chrf_code"]["pairs"][0]["p_value"] is not None


def test_cgm_ray_without_ray_says_how_to_install_it(tmp_path):
    # a Python where `import ray` fails, as on a machine without the extra
    (tmp_path / "ray.py").write_text("raise ImportError('No module named ray')\n")
    (tmp_path / "refs.txt").write_text("x = 1\n")
    env = {"PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    result = cgm("score", "--references", tmp_path / "refs.txt", "--predictions",
                 tmp_path / "refs.txt", "--metrics", "chrf_code", "--ray", env=env)
    assert result.returncode == 1
    assert INSTALL_HINT in result.stderr


def test_cgm_ray_takes_no_file_for_an_address(tmp_path):
    (tmp_path / "a.txt").write_text("x = 1\n")
    result = cgm("compare", "--references", tmp_path / "a.txt", "--ray", tmp_path / "a.txt",
                 tmp_path / "a.txt")
    assert result.returncode == 1
    assert "is a file, not a Ray address" in result.stderr
