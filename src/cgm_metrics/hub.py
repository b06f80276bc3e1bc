"""Glue between the library and HuggingFace ``evaluate`` / the Hub.

The loading scripts under ``metrics/`` stay thin: features, input checks
(:class:`CheckedModule`) and a call into the library, whose result they return in their own
keys. The widget builder replaces ``evaluate.utils.launch_gradio_widget``, which fails on
gradio 6 (it uses ``gr.inputs``), and can build a widget without launching it.
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import datasets

from .core.inputs import check_batch


def code_features() -> list[datasets.Features]:
    """Features for ``predictions`` (strings) and ``references`` (string or list of strings).

    evaluate tries each feature set against the first example, so a batch with one reference
    per item and a batch with several both validate.
    """
    return [
        datasets.Features(
            {
                "predictions": datasets.Value("string", id="sequence"),
                "references": datasets.Sequence(
                    datasets.Value("string", id="sequence"), id="references"
                ),
            }
        ),
        datasets.Features(
            {
                "predictions": datasets.Value("string", id="sequence"),
                "references": datasets.Value("string", id="sequence"),
            }
        ),
    ]


def _dataframe(gr: Any, headers: list[str]) -> Any:
    """A gradio Dataframe input with one row, on gradio 5 and 6 alike."""
    parameters = inspect.signature(gr.Dataframe).parameters
    kwargs: dict[str, Any] = {"headers": headers, "datatype": ["str"] * len(headers)}
    if "column_count" in parameters:  # gradio 6
        kwargs["column_count"] = len(headers)
    else:
        kwargs["col_count"] = len(headers)
    kwargs["row_count"] = 1
    kwargs["label"] = "Input (one row per item; several references: one JSON list per cell)"
    return gr.Dataframe(**kwargs)


def _parse_cell(value: Any) -> Any:
    """A cell holding a JSON list (several references) becomes a list; text stays text."""
    if isinstance(value, str) and value.strip().startswith("["):
        try:
            parsed = json.loads(value)
        except json.JSONDecodeError:
            return value
        if isinstance(parsed, list) and all(isinstance(item, str) for item in parsed):
            return parsed
    return value


def _rows_to_columns(table: Any, headers: list[str]) -> dict[str, list]:
    rows = table.values.tolist() if hasattr(table, "values") else list(table or [])
    columns: dict[str, list] = {name: [] for name in headers}
    for row in rows:
        if all((cell is None or str(cell).strip() == "") for cell in row):
            continue
        for name, cell in zip(headers, row, strict=False):
            columns[name].append(_parse_cell("" if cell is None else cell))
    return columns


def _card_text(module: Any) -> str:
    path = Path(inspect.getfile(type(module))).with_name("README.md")
    text = path.read_text(encoding="utf-8") if path.exists() else module.description
    if text.startswith("---"):  # drop the Space front matter
        end = text.find("\n---", 3)
        text = text[end + 4 :] if end != -1 else text
    return text


def build_widget(module: Any, extra_inputs: dict[str, Any] | None = None) -> Any:
    """A gradio Blocks app for an evaluate module, built but not launched.

    The table has one column per feature of the module; ``extra_inputs`` maps ``compute``
    keyword arguments to gradio components (e.g. a language dropdown). Errors are shown as
    messages, never as tracebacks.
    """
    import gradio as gr

    features = module.features[0] if isinstance(module.features, list) else module.features
    headers = list(features)
    extra_inputs = extra_inputs or {}

    def compute(table: Any, *extra: Any) -> dict:
        columns = _rows_to_columns(table, headers)
        kwargs = dict(zip(extra_inputs, extra, strict=True))
        try:
            result = module.compute(**columns, **kwargs)
        except (TypeError, ValueError) as error:
            raise gr.Error(str(error)) from None
        return json.loads(json.dumps(result, default=float))

    compute.extra_names = list(extra_inputs)  # type: ignore[attr-defined]  # kwarg per extra input

    with gr.Blocks(title=module.name) as demo:
        gr.Markdown(f"# {module.name}")
        table = _dataframe(gr, headers)
        extras = []
        for name, component in extra_inputs.items():
            component.label = component.label or name
            extras.append(component)
            component.render()
        button = gr.Button("Compute", variant="primary")
        output = gr.JSON(label="Result")
        button.click(compute, inputs=[table, *extras], outputs=output, api_name="compute")
        gr.Markdown(_card_text(module))
    return demo


def uniform_references(references: Any) -> Any:
    """``references`` with one shape for the whole batch: a list of references per item as
    soon as one item has a list.

    evaluate picks the features from the first item only and casts the others to them, so in
    a mixed batch a string after a list becomes a list of its characters and a list after a
    string becomes its repr, silently. Every module of this project applies it in
    ``add_batch`` (:class:`CheckedModule`).
    """
    if isinstance(references, (list, tuple)):
        lists = [isinstance(item, (list, tuple)) for item in references]
        if any(lists) and not all(lists):
            return [item if is_list else [item] for item, is_list in zip(references, lists,
                                                                         strict=True)]
    return references


class CheckedModule:
    """Mixin for the evaluate modules of this project (``class M(CheckedModule,
    evaluate.Metric)``): ``compute`` and ``add_batch`` check the list inputs with
    :func:`check_batch` before evaluate does, so a bare string or an empty batch is a clear
    error naming the argument (``add`` takes one item, where a string is right)."""

    def _checked_inputs(self, predictions, references, kwargs) -> dict[str, object]:
        given = {"predictions": predictions, "references": references, **kwargs}
        return {name: given.get(name) for name in self._feature_names()}  # type: ignore[attr-defined]

    def compute(self, *, predictions=None, references=None, **kwargs):
        """Compute the module, after checking its list inputs (a bare string or an empty
        batch is a clear error)."""
        check_batch(self._checked_inputs(predictions, references, kwargs))
        return super().compute(predictions=predictions, references=references, **kwargs)

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add a batch, after checking its list inputs; references may mix strings and lists
        (:func:`uniform_references`)."""
        check_batch(self._checked_inputs(predictions, references, kwargs))
        return super().add_batch(
            predictions=predictions, references=uniform_references(references), **kwargs
        )
