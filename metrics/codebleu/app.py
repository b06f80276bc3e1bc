from pathlib import Path

import evaluate
import gradio as gr

from cgm_metrics.frontends.hub import build_widget
from cgm_metrics.languages import DEFAULT_LANGUAGE
from cgm_metrics.maths.codebleu import CodeBleuMetric

module = evaluate.load(str(Path(__file__).resolve().parent))
demo = build_widget(
    module,
    extra_inputs={
        "lang": gr.Dropdown(list(CodeBleuMetric.languages), value=DEFAULT_LANGUAGE),
        "dataflow": gr.Dropdown(["package", "zero", "renormalize"], value="package"),
        "return_per_sample": gr.Checkbox(value=True),
    },
)

if __name__ == "__main__":
    demo.launch()
