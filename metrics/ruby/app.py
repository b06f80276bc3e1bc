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
        "lang": gr.Dropdown(cgm_metrics.languages.names(), value=DEFAULT_LANGUAGE),
        "return_per_sample": gr.Checkbox(value=True),
    },
)

if __name__ == "__main__":
    demo.launch()
