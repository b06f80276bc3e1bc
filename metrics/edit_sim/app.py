from pathlib import Path

import evaluate
import gradio as gr

from cgm_metrics.frontends.hub import build_widget

module = evaluate.load(str(Path(__file__).resolve().parent))
demo = build_widget(module, extra_inputs={"unit": gr.Dropdown(["char", "token"], value="char")})

if __name__ == "__main__":
    demo.launch()
