from pathlib import Path

import evaluate
import gradio as gr

from cgm_metrics.frontends.hub import build_widget
from cgm_metrics.languages import DEFAULT_LANGUAGE, names

module = evaluate.load(str(Path(__file__).resolve().parent))
demo = build_widget(
    module,
    extra_inputs={
        # a JSON list of token lists; empty: nothing ignored (plain BLEU)
        "trivially_shared": gr.Textbox(value="", lines=3,
                                       placeholder='[["("], [")"], [";"], ["=", "0"]]'),
        "tokenize": gr.Radio(["code", "pygments", "none"], value="code"),
        "lang": gr.Dropdown(names("parsing"), value=DEFAULT_LANGUAGE),
        "smoothing": gr.Radio(["method0", "method1", "method2", "method3"], value="method0"),
        "return_per_sample": gr.Checkbox(value=True),
    },
)

if __name__ == "__main__":
    demo.launch()
