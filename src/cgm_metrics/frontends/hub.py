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

from ..core.inputs import check_batch, check_entry, feature_shapes, uniform_entries


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


def check_storable(inputs: dict[str, Any], single: bool = False) -> None:
    """Every text of the checked ``inputs`` (``{argument: entries}``, an entry a string or a
    list of strings, as the caller gave them) must be encodable as UTF-8, which evaluate's Arrow storage requires: a
    lone surrogate (e.g. ``"\\ud800"``, from bytes decoded with ``errors="surrogateescape"``)
    is a ValueError naming the argument, the item (and the reference) and the fix, where
    pyarrow would raise a UnicodeEncodeError naming nothing. ``single``: each argument holds
    one item (``add``), named without an index."""
    for argument, entries in inputs.items():
        if entries is None or isinstance(entries, (str, bytes)):
            continue
        for index, entry in enumerate(entries):
            where = argument if single else f"{argument}[{index}]"
            nested = not isinstance(entry, str) and isinstance(entry, (list, tuple))
            for inner, text in enumerate(entry if nested else [entry]):
                if not isinstance(text, str) or text.isascii():
                    continue
                try:
                    text.encode("utf-8")
                except UnicodeEncodeError as error:
                    named = f"{where}[{inner}]" if nested else where
                    raise ValueError(
                        f"`{named}` is not valid text: {error.reason} "
                        f"({text[error.start]!r} at character {error.start}); evaluate stores "
                        "inputs as UTF-8 and cannot take it. Replace such characters first, "
                        "e.g. text.encode('utf-8', 'replace').decode('utf-8'), or drop the "
                        "item."
                    ) from None


class CheckedModule:
    """Mixin for the evaluate modules of this project (``class M(CheckedModule,
    evaluate.Metric)``): ``compute``, ``add_batch`` and ``add`` check every entry of the
    inputs against the module's features (:func:`check_batch`) before evaluate sees them, so
    a bare string, an empty batch, a number, a dict, bytes or references nested one level
    too deep are clear errors naming the argument and the position, never a printed string
    scored as code. References may mix strings and lists of strings, within a batch and
    across batches. Text that UTF-8 cannot encode (a lone surrogate) is a clear error naming
    the entry (:func:`check_storable`), in every call alike.

    ``compute`` with its inputs, in one process (``num_process == 1``) and with nothing added
    before, calls ``_compute`` directly: evaluate would write the batch to an Arrow file (or
    buffer, ``keep_in_memory``), read it back and delete it, which changes nothing but costs
    more than the metric on a small batch. ``add``/``add_batch`` and distributed use
    (``num_process > 1``) keep evaluate's storage and its semantics."""

    def input_shapes(self, arguments: dict) -> dict:
        """The shapes each input may take in a call with these ``arguments`` (default: what
        the module's features allow; a module whose inputs change shape with an argument,
        such as paired_significance's ``metric``, narrows them)."""
        return feature_shapes(self.features)  # type: ignore[attr-defined]

    def compute(self, *, predictions=None, references=None, **kwargs):
        """Compute the module, after checking its inputs entry by entry."""
        given = {"predictions": predictions, "references": references, **kwargs}
        names = self._feature_names()
        strays = [name for name in ("predictions", "references")
                  if name not in names and given[name] is not None]
        if strays:
            raise TypeError(
                f"{', '.join(f'`{name}`' for name in strays)} is not an input of this module; "
                f"its inputs are {', '.join(f'`{name}`' for name in names)}."
            )
        inputs = {name: given.get(name) for name in names}
        if all(value is None for value in inputs.values()):
            if getattr(self, "writer", None) is None:
                raise ValueError(
                    f"Nothing to compute: pass {', '.join(f'{name}=[...]' for name in names)} "
                    "(one entry per item each), or add items with add_batch() or add() first."
                )
            return super().compute(**given)
        checked = check_batch(inputs, shapes=self.input_shapes(given))
        check_storable(inputs)
        given.update(checked)
        if self._stores_nothing():
            # what evaluate's compute does after its round trip through storage
            from datasets.utils.py_utils import temp_seed

            extra = {key: value for key, value in kwargs.items() if key not in names}
            with temp_seed(self.seed):
                return self._compute(**{name: given[name] for name in names}, **extra)
        return super().compute(**given)

    def _stores_nothing(self) -> bool:
        """True when evaluate's storage would hold only this call's batch and give it back
        unchanged: one process, nothing added before, inputs read back as Python objects."""
        return (getattr(self, "num_process", 1) == 1 and getattr(self, "writer", None) is None
                and self.info.format is None)  # type: ignore[attr-defined]

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add a batch, after checking its inputs entry by entry; references may mix strings
        and lists of strings."""
        given = {"predictions": predictions, "references": references, **kwargs}
        names = self._feature_names()
        inputs = {name: given.get(name) for name in names}
        checked = check_batch(inputs, shapes=self.input_shapes(given))
        check_storable(inputs)
        given.update(checked)
        return super().add_batch(**given)

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Add one item, after checking it (``prediction`` a string, ``reference`` a string
        or a list of strings)."""
        given = {"predictions": prediction, "references": reference, **kwargs}
        labels = {"predictions": "prediction", "references": "reference"}
        shapes = feature_shapes(self.features)
        checked: dict[str, object] = {}
        for name in self._feature_names():
            label = labels.get(name, name)
            if given.get(name) is None:
                raise TypeError(f"`{label}` is missing (None); add() takes one item: a value "
                                f"for each of {', '.join(labels.get(n, n) for n in shapes)}.")
            if name in shapes:
                entry = check_entry(given[name], f"`{label}`", shapes[name])
                checked[name] = uniform_entries([entry], shapes[name])[0]
                check_storable({label: [given[name]]}, single=True)
        extra = {name: value for name, value in kwargs.items()
                 if name not in ("predictions", "references")}
        extra.update({name: value for name, value in checked.items()
                      if name not in ("predictions", "references")})
        return super().add(
            prediction=checked.get("predictions", prediction),
            reference=checked.get("references", reference), **extra,
        )
