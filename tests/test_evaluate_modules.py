"""evaluate's own discipline, applied to every folder under metrics/ automatically.

Mirrors huggingface/evaluate tests/test_metric_common.py and the distributed tests of
tests/test_metric.py: load by absolute path, the main class is ours, ``_compute`` takes no
``**kwargs``, the docstring examples run as doctests, two processes give rank 0 the
single-process result, and bad inputs raise clear errors. The Space files of each folder are
checked too (card front matter and sections, requirements, a widget that builds).
"""

from __future__ import annotations

import doctest
import inspect
import math
import multiprocessing
import re
import uuid
from pathlib import Path
from unittest.mock import patch

import pytest
from conftest import METRICS_DIR
from module_cases import case_for

MODULE_DIRS = sorted(p for p in METRICS_DIR.iterdir() if (p / f"{p.name}.py").exists())
NAMES = [p.name for p in MODULE_DIRS]
CARD_SECTIONS = [
    "description",
    "how to use",
    "inputs",
    "output",
    "examples",
    "limitations",
    "citation",
]


def _load(name: str, **kwargs):
    import evaluate

    return evaluate.load(str(METRICS_DIR / name), **kwargs)


def _approx_equal(a, b) -> bool:
    """Equality of nested results; floats to 1e-12 relative."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_approx_equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_approx_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) or isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)
    return a == b


def test_every_folder_is_a_module():
    folders = sorted(p.name for p in METRICS_DIR.iterdir() if p.is_dir())
    assert folders == NAMES, "each metrics/<name>/ folder needs a <name>.py loading script"


@pytest.mark.parametrize("name", NAMES)
def test_load_class_and_signature(name):
    import evaluate
    from evaluate.loading import evaluation_module_factory, import_main_class

    factory = evaluation_module_factory(str(METRICS_DIR / name), module_type="metric")
    module_class = import_main_class(factory.module_path)
    assert module_class.__module__.split(".")[-1] == name
    assert module_class is not evaluate.Metric
    parameters = inspect.signature(module_class._compute).parameters.values()
    assert not any(p.kind == inspect.Parameter.VAR_KEYWORD for p in parameters)
    module = _load(name)
    assert module.name == name


@pytest.mark.parametrize("name", NAMES)
def test_docstring_examples_run(name):
    import evaluate
    from evaluate.loading import evaluation_module_factory

    factory = evaluation_module_factory(str(METRICS_DIR / name), module_type="metric")
    import importlib

    script = importlib.import_module(factory.module_path)
    real_load = evaluate.load

    def local_load(path, *args, **kwargs):
        return real_load(str(METRICS_DIR / path.split("/")[-1]), *args, **kwargs)

    with patch("evaluate.load", side_effect=local_load):
        results = doctest.testmod(script, verbose=False, raise_on_error=True)
    assert results.failed == 0
    assert results.attempted > 1, "the docstring needs at least two runnable statements"


def _distributed_worker(arguments):
    name, process_id, experiment_id, cache_dir, batch, options = arguments
    import os

    os.environ["HF_EVALUATE_OFFLINE"] = "1"
    import evaluate

    module = evaluate.load(
        str(METRICS_DIR / name),
        num_process=2,
        process_id=process_id,
        experiment_id=experiment_id,
        cache_dir=cache_dir,
        timeout=60,
    )
    module.add_batch(**batch)
    return module.compute(**options)


@pytest.mark.parametrize("name", NAMES)
def test_distributed_rank0_equals_single_process(name, tmp_path):
    module = _load(name)
    case = case_for(name, list(module.features[0] if isinstance(module.features, list) else module.features))
    batch, options = case["batch"], case["options"]
    expected = module.compute(**batch, **options)
    n = len(next(iter(batch.values())))
    half = n // 2
    halves = [
        {key: values[:half] for key, values in batch.items()},
        {key: values[half:] for key, values in batch.items()},
    ]
    experiment_id = uuid.uuid4().hex
    context = multiprocessing.get_context("spawn")
    with context.Pool(2) as pool:
        results = pool.map(
            _distributed_worker,
            [(name, i, experiment_id, str(tmp_path), halves[i], options) for i in range(2)],
        )
    assert results[1] is None
    assert _approx_equal(results[0], expected)


@pytest.mark.parametrize("name", NAMES)
def test_bad_inputs_raise_clear_errors(name):
    module = _load(name)
    case = case_for(name, list(module.features[0] if isinstance(module.features, list) else module.features))
    for kwargs, error, text in case["bad"]:
        with pytest.raises(error, match=re.compile(re.escape(text), re.IGNORECASE)):
            module.compute(**kwargs, **case["options"])
    if "lang" in inspect.signature(type(module)._compute).parameters:
        with pytest.raises(ValueError, match="Supported"):
            module.compute(**case["batch"], **{**case["options"], "lang": "klingon"})


def _front_matter(card: str) -> dict[str, str]:
    assert card.startswith("---\n"), "the card starts with Space front matter"
    block = card[4 : card.index("\n---", 4)]
    return dict(
        (line.split(":", 1)[0].strip(), line.split(":", 1)[1].strip())
        for line in block.splitlines()
        if ":" in line and not line.startswith(" ") and not line.startswith("-")
    )


@pytest.mark.parametrize("name", NAMES)
def test_space_files(name):
    folder = METRICS_DIR / name
    card = (folder / "README.md").read_text(encoding="utf-8")
    meta = _front_matter(card)
    assert meta["sdk"] == "gradio"
    assert meta["app_file"] == "app.py"
    import gradio

    assert meta["sdk_version"].split(".")[0] == gradio.__version__.split(".")[0]
    assert "evaluate" in card.split("\n---", 2)[0] and "metric" in card.split("\n---", 2)[0]
    headings = " ".join(re.findall(r"^#+ (.*)$", card, flags=re.MULTILINE)).lower()
    for section in CARD_SECTIONS:
        assert section in headings, f"metrics/{name}/README.md lacks a '{section}' section"
    requirements = (folder / "requirements.txt").read_text().split()
    assert any(r.startswith("cgm-metrics") for r in requirements)
    assert "launch_gradio_widget" not in (folder / "app.py").read_text()


@pytest.mark.parametrize("name", NAMES)
def test_widget_builds_and_computes(name):
    """The app's widget builds with the installed gradio, and its function computes what the
    module computes: the module's test batch as a table, every extra input at its default."""
    import json
    import runpy

    import gradio
    import pandas

    app = Path(METRICS_DIR / name / "app.py")
    with patch.object(gradio.Blocks, "launch", lambda self, *a, **k: None):
        namespace = runpy.run_path(str(app), run_name="__main__")
    demo = namespace["demo"]
    assert isinstance(demo, gradio.Blocks)
    functions = demo.fns.values() if isinstance(demo.fns, dict) else demo.fns
    (block,) = [f for f in functions if f.api_name == "compute"]
    module = _load(name)
    features = module.features[0] if isinstance(module.features, list) else module.features
    headers = list(features)
    batch = case_for(name, headers)["batch"]
    n = len(batch[headers[0]])
    rows = [
        [
            json.dumps(batch[h][i]) if isinstance(batch[h][i], (list, tuple)) else batch[h][i]
            for h in headers
        ]
        for i in range(n)
    ]
    table = pandas.DataFrame(rows + [[""] * len(headers)], columns=headers)  # a blank row too
    defaults = [component.value for component in block.inputs[1:]]
    names = block.fn.extra_names
    assert len(names) == len(defaults)
    result = block.fn(table, *defaults)
    expected = module.compute(**batch, **dict(zip(names, defaults, strict=True)))
    assert _approx_equal(result, json.loads(json.dumps(expected, default=float)))


# -- text evaluate cannot store ------------------------------------------------------------


def _with_text(entries: list, index: int, text: str) -> tuple[list, str]:
    """``entries`` with item ``index`` (or its first string, for a list) replaced by ``text``,
    and the name the error must give."""
    changed = list(entries)
    if isinstance(changed[index], (list, tuple)):
        changed[index] = [text, *list(changed[index])[1:]]
        return changed, f"[{index}][0]"
    changed[index] = text
    return changed, f"[{index}]"


@pytest.mark.parametrize("name", NAMES)
def test_unencodable_text_names_the_input(name):
    """A lone surrogate (text decoded with errors="surrogateescape") in any input of any
    module, in compute, add_batch or add, is a ValueError naming the argument, the item and
    the fix, where evaluate's Arrow storage raises pyarrow's UnicodeEncodeError naming
    nothing; nothing is stored."""
    module = _load(name)
    features = list(module.features[0] if isinstance(module.features, list) else module.features)
    case = case_for(name, features)
    batch, options = case["batch"], case["options"]
    for feature in (features[0], features[-1]):
        changed, where = _with_text(batch[feature], 1, "x = '\udcff'")
        message = re.escape(f"`{feature}{where}` is not valid text") + ".*'replace'"
        with pytest.raises(ValueError, match=message):
            module.compute(**{**batch, feature: changed}, **options)
        with pytest.raises(ValueError, match=message):
            module.add_batch(**{**batch, feature: changed})
        assert len(module) == 0  # nothing was written
    singular = {"predictions": "prediction", "references": "reference"}
    if set(features) == set(singular):
        item = {singular[f]: batch[f][0] for f in features}
        item["prediction"] = "\ud800" if isinstance(item["prediction"], str) else ["\ud800"]
        with pytest.raises(ValueError, match=r"`predictions?(\[0\])*` is not valid text"):
            module.add(**item)


# -- compute without evaluate's storage where it changes nothing ----------------------------


@pytest.mark.parametrize("name", [n for n in NAMES if n != "code_eval"])
def test_compute_skips_storage_and_keeps_evaluates_semantics(name, monkeypatch):
    """``compute(predictions=..., references=...)`` in one process with nothing added before
    gives what evaluate's storage path gives (add_batch, then compute()) without writing
    anything; a pending add_batch still counts (evaluate's semantics: the stored items and
    the call's together), and so does keep_in_memory."""
    module = _load(name)
    features = list(module.features[0] if isinstance(module.features, list) else module.features)
    case = case_for(name, features)
    batch, options = case["batch"], case["options"]
    module.add_batch(**batch)
    stored = module.compute(**options)  # evaluate's own path: write, read back, delete
    half = len(batch[features[0]]) // 2
    module.add_batch(**{key: values[:half] for key, values in batch.items()})
    pending = module.compute(**{key: values[half:] for key, values in batch.items()}, **options)
    assert _approx_equal(pending, stored)

    def no_storage(*args, **kwargs):
        raise AssertionError("compute wrote its inputs to evaluate's storage")

    monkeypatch.setattr(module, "_init_writer", no_storage)
    assert _approx_equal(module.compute(**batch, **options), stored)
    in_memory = _load(name, keep_in_memory=True)
    assert _approx_equal(in_memory.compute(**batch, **options), stored)
    in_memory.add_batch(**batch)
    assert _approx_equal(in_memory.compute(**options), stored)
