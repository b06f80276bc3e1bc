from pathlib import Path

import evaluate
import gradio as gr

from cgm_metrics.frontends.hub import build_widget
from cgm_metrics.languages import DEFAULT_LANGUAGE
from cgm_metrics.maths.tsed import tsed_languages

module = evaluate.load(str(Path(__file__).resolve().parent))
demo = build_widget(
    module,
    extra_inputs={
        "lang": gr.Dropdown(sorted(tsed_languages()), value=DEFAULT_LANGUAGE),
        "deletion_weight": gr.Number(value=1.0),
        "insertion_weight": gr.Number(value=0.8),
        "rename_weight": gr.Number(value=1.0),
        "tree": gr.Radio(["sexp", "types"], value="sexp"),
        "return_per_sample": gr.Checkbox(value=True),
    },
)

if __name__ == "__main__":
    demo.launch()
