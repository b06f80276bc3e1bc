"""cgm-metrics Space: score code side by side, compare systems, check metric-human agreement.

Run locally with ``python spaces/app.py`` (http://127.0.0.1:7860). The logic lives in
the package ``cgm_metrics.space``; this file only lays out the page. The language and metric
menus are the registry's (built-in and plugins). No code is ever executed and
nothing is sent to the network (analytics are off).
"""

import functools
import logging
import os

os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"  # before gradio is imported: no telemetry

import gradio as gr  # noqa: E402

from cgm_metrics import space  # noqa: E402

LOGGER = logging.getLogger("cgm_metrics.space")

CSS = """
.cgm-scores, .cgm-pairs, .cgm-matrix, .cgm-agreement {border-collapse: collapse; margin: 4px 0;}
.cgm-scores th, .cgm-scores td, .cgm-pairs th, .cgm-pairs td, .cgm-matrix th, .cgm-matrix td,
.cgm-agreement th, .cgm-agreement td {border: 1px solid #d0d7de; padding: 3px 8px;}
td.num {text-align: right; font-variant-numeric: tabular-nums;}
tr.component th {font-weight: normal; color: #57606a;}
tr.sig td.verdict {font-weight: bold; color: #1a7f37;}
.cgm-diff pre {white-space: pre-wrap; font-family: ui-monospace, monospace; padding: 6px;
  border: 1px solid #d0d7de; border-radius: 4px;}
.cgm-diff del {background: #ffd7d5; text-decoration: line-through;}
.cgm-diff ins {background: #ccffd8; text-decoration: none;}
.note {color: #9a6700;}
textarea {font-family: ui-monospace, SFMono-Regular, Menlo, monospace !important;}
"""

# Local fonts only: the default theme would fetch web fonts from a font CDN.
THEME = gr.themes.Default(
    font=["ui-sans-serif", "system-ui", "sans-serif"],
    font_mono=["ui-monospace", "SFMono-Regular", "monospace"],
)

LAUNCH_OPTIONS = {
    "theme": THEME,
    "css": CSS,
    "max_file_size": space.LIMITS.max_upload_bytes,
    "show_error": True,  # shows gr.Error messages; other errors are turned into messages below
}


def _guarded(function):
    """Run a handler; user mistakes become gr.Error messages, anything else a short message
    (the traceback goes to the server log, never to the browser)."""

    @functools.wraps(function)
    def wrapper(*args):
        try:
            return function(*args)
        except space.SpaceInputError as error:
            raise gr.Error(str(error)) from None
        except gr.Error:
            raise
        except Exception:  # noqa: BLE001 - the browser gets a message, the log the details
            LOGGER.exception("request failed")
            raise gr.Error("Something went wrong while scoring this input; please check it "
                           "and try again, or use the `cgm` command for details.") from None

    return wrapper


@_guarded
def score_side_by_side(lang, reference, candidate_a, candidate_b, candidate_c, candidate_d):
    candidates = [candidate_a, candidate_b, candidate_c, candidate_d]
    result = space.side_by_side(reference, candidates, lang)
    for name, reason in result["skipped"].items():
        gr.Warning(f"{name} skipped: {reason}")
    diffs = "".join(space.diff_html(reference, c["code"], c["label"])
                    for c in result["candidates"])
    return space.side_by_side_html(result), diffs, result


@_guarded
def compare_systems(references, systems, lang, metrics, unescape=False):
    if not metrics:
        raise space.SpaceInputError("Choose at least one metric.")
    result = space.compare_uploads(references, systems, lang, metrics,
                                   unescape=bool(unescape))
    for name, reason in result["skipped"].items():
        gr.Warning(f"{name} skipped: {reason}")
    summary = {
        name: {"scores": entry["scores"], "pairs": entry["pairs"], "signature": entry["signature"]}
        for name, entry in result["metrics"].items()
    }
    return space.systems_html(result), space.plot_differences(result), summary


@_guarded
def agreement(graded, protocol, bins):
    result = space.agreement_upload(graded, protocol, bins)
    return space.agreement_html(result), space.agreement_image(result)


def build() -> gr.Blocks:
    languages = space.language_choices()
    with gr.Blocks(title="cgm-metrics: code generation metrics you can trust") as demo:
        gr.Markdown(
            "# cgm-metrics\nCodeBLEU, RUBY, chrF and friends for generated code, with the "
            "significance tests that say whether a difference means anything. Nothing you "
            "enter is executed or stored."
        )
        with gr.Tab("Side by side", id="side"):
            with gr.Row():
                lang = gr.Dropdown(languages, value="python", label="Language", scale=1,
                                   elem_id="side-lang")
            reference = gr.Textbox(label="Reference", lines=6, max_lines=30,
                                   placeholder="The code you consider correct",
                                   elem_id="reference")
            candidates = []
            with gr.Row():
                for label in "AB":
                    candidates.append(gr.Textbox(label=f"Candidate {label}", lines=6,
                                                 max_lines=30, elem_id=f"candidate-{label}"))
            with gr.Accordion("More candidates", open=False):
                with gr.Row():
                    for label in "CD":
                        candidates.append(gr.Textbox(label=f"Candidate {label}", lines=6,
                                                     max_lines=30, elem_id=f"candidate-{label}"))
            button = gr.Button("Score", variant="primary", elem_id="score-button")
            gr.Examples([list(example) for example in space.EXAMPLES],
                        inputs=[lang, reference, *candidates[:3]], label="Examples")
            scores = gr.HTML(label="Scores", elem_id="side-scores")
            diffs = gr.HTML(label="Differences", elem_id="side-diffs")
            with gr.Accordion("Raw numbers (JSON)", open=False):
                raw = gr.JSON(label="Side-by-side scores")
            gr.Markdown(space.explanation_markdown())
            button.click(score_side_by_side, inputs=[lang, reference, *candidates],
                         outputs=[scores, diffs, raw], api_name="side_by_side")

        with gr.Tab("Systems", id="systems"):
            gr.Markdown(
                "Upload a references file and two or more system files (one per system; the "
                "file name is the system name; two files with the same name become `model` and "
                "`model (2)`). Plain text: one item per line, read as it is (tick *escaped "
                "lines* when `\\n` inside a line means a newline, as in `cgm demo --export` "
                "files). JSONL: one object per line with `prediction` (systems) or "
                f"`references` (a string or a list). Limits: {space.LIMITS.max_items} items, "
                f"{space.LIMITS.max_systems} systems, "
                f"{space.LIMITS.max_upload_bytes // 1_000_000} MB per file; every request "
                f"answers within {space.TIME_BUDGET:g} s, so a metric too slow for the size "
                "of the upload is skipped with a note (use `cgm compare` for it)."
            )
            with gr.Row():
                references = gr.File(label="References", elem_id="references-file")
                systems = gr.File(label="System files", file_count="multiple",
                                  elem_id="systems-files")
            with gr.Row():
                systems_lang = gr.Dropdown(languages, value="python", label="Language",
                                           elem_id="systems-lang")
                metric_choice = gr.CheckboxGroup(space.metric_choices(),
                                                 value=list(space.DEFAULT_SYSTEM_METRICS),
                                                 label="Metrics", elem_id="metric-choice")
                unescape = gr.Checkbox(value=False, elem_id="unescape",
                                       label="Escaped lines (\\n inside a line is a newline)")
            compare_button = gr.Button("Compare", variant="primary", elem_id="compare-button")
            systems_out = gr.HTML(label="Comparison", elem_id="systems-result")
            systems_plot = gr.Image(label="Bootstrap distributions of the differences",
                                    type="pil", format="png", elem_id="systems-plot")
            with gr.Accordion("Raw numbers (JSON)", open=False):
                systems_raw = gr.JSON(label="Side-by-side scores")
            compare_button.click(compare_systems,
                                 inputs=[references, systems, systems_lang, metric_choice,
                                         unescape],
                                 outputs=[systems_out, systems_plot, systems_raw],
                                 api_name="compare_systems")

        with gr.Tab("Agreement", id="agreement"):
            gr.Markdown(
                "Upload a graded-outputs JSONL (one row per item and system with `grades` or "
                "`grade`, and `scores` or `prediction`/`references`) to see how often each "
                "metric's verdict on a pair of systems matches the human graders', by size of "
                "the metric difference (Roy et al. 2021; Evtikhiev et al. 2023). "
                f"Limit: {space.LIMITS.max_graded_rows} rows."
            )
            graded = gr.File(label="Graded JSONL", elem_id="graded-file")
            with gr.Row():
                protocol = gr.Dropdown(["default", "evtikhiev2023"], value="default",
                                       label="Protocol")
                bins = gr.Dropdown(list(space.BIN_PRESETS),
                                   value=next(iter(space.BIN_PRESETS)), label="Delta bins")
            agreement_button = gr.Button("Analyse", variant="primary",
                                         elem_id="agreement-button")
            agreement_out = gr.HTML(label="Agreement table", elem_id="agreement-result")
            agreement_plot = gr.Image(label="Metric vs human differences per pair",
                                      type="pil", format="png", elem_id="agreement-plot")
            agreement_button.click(agreement, inputs=[graded, protocol, bins],
                                   outputs=[agreement_out, agreement_plot],
                                   api_name="agreement")
    demo.queue(default_concurrency_limit=1, max_size=16)
    return demo


demo = build()
space.warm_up()  # parsers and WordNet loaded before the first request, not during it

if __name__ == "__main__":
    demo.launch(**LAUNCH_OPTIONS)
