from pathlib import Path

import evaluate
import gradio as gr

from cgm_metrics.frontends.hub import build_widget

module = evaluate.load(str(Path(__file__).resolve().parent))
demo = build_widget(
    module,
    extra_inputs={
        # the widget exists to run code; it runs only in the sandbox (refused where unavailable)
        "allow_code_execution": gr.Checkbox(value=True),
        "timeout": gr.Number(value=3.0),
    },
)

if __name__ == "__main__":
    demo.launch()
