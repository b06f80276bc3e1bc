from pathlib import Path

import evaluate
import gradio as gr

from cgm_metrics.frontends.hub import build_widget

module = evaluate.load(str(Path(__file__).resolve().parent))
demo = build_widget(
    module,
    extra_inputs={
        "metric": gr.Dropdown(["chrf_code", "codebleu", "ruby", "bleu", "chrf"], value="chrf_code"),
        "method": gr.Dropdown(["paired_bootstrap", "approximate_randomization"], value="paired_bootstrap"),
    },
)
if __name__ == "__main__":
    demo.launch()
