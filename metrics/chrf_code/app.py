from pathlib import Path

import evaluate
import gradio as gr

import cgm_metrics
from cgm_metrics.frontends.hub import build_widget
from cgm_metrics.languages import DEFAULT_LANGUAGE

module = evaluate.load(str(Path(__file__).resolve().parent))
demo = build_widget(
    module,
    extra_inputs={
        "average": gr.Radio(["corpus", "sentence"], value="corpus"),
        "word_order": gr.Radio([0, 1, 2], value=0),
        "lang": gr.Dropdown(cgm_metrics.languages.names(), value=DEFAULT_LANGUAGE),
        "strip_comments": gr.Checkbox(value=False),
        "normalize_identifiers": gr.Checkbox(value=False),
        "return_per_sample": gr.Checkbox(value=True),
    },
)

if __name__ == "__main__":
    demo.launch()
