from pathlib import Path

import evaluate
import gradio as gr

from cgm_metrics.frontends.hub import build_widget

module = evaluate.load(str(Path(__file__).resolve().parent))
demo = build_widget(
    module,
    extra_inputs={
        "ratio": gr.Radio(["fuzzywuzzy", "difflib", "rapidfuzz"], value="fuzzywuzzy"),
        "post_process": gr.Checkbox(value=True),
        "return_per_sample": gr.Checkbox(value=True),
    },
)

if __name__ == "__main__":
    demo.launch()
