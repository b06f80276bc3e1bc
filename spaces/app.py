"""cgm-metrics Space: score code side by side, compare systems, check metric-human agreement.

Run locally with ``python spaces/app.py`` (http://127.0.0.1:7860). The logic lives in
the package ``cgm_metrics.frontends.space``; this file only lays out the page. The language and metric
menus are the registry's (built-in and plugins). No code is ever executed and
nothing is sent to the network (analytics are off).

Answers are computed in warm worker processes, one per core (``CGM_SPACE_WORKERS`` sets how
many; 0 computes in this process), so users at once share every core: side by side and
Systems share the scoring workers, agreement uploads (heavier, bounded in time and memory)
have their own. Requests wait in one queue of up to ``QUEUE_SIZE``.

The page is served first and the workers start after it, so that their warm-up does not
compete with the server's start for the cores. Until a scoring worker is warm, side by side
and Systems are answered in the server process (one request at a time); an agreement upload
waits for its worker's warm-up (at most ``workers.STARTUP_SECONDS``), with a message saying so.
"""

import functools
import io
import logging
import os

os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"  # before gradio is imported: no telemetry
# Gradio asks matplotlib for its backend around every call; with none chosen, matplotlib
# imports pyplot to find one: 0.3 s in the server's event loop, which stalled every upload and
# call of the first burst. The server draws nothing (the workers make the images), so the
# backend is set here (the workers inherit it) and matplotlib is loaded at start.
os.environ.setdefault("MPLBACKEND", "Agg")
try:
    import matplotlib  # noqa: F401 - loaded with the server, not by the first request
except ImportError:  # Gradio runs without it
    pass

import gradio as gr  # noqa: E402

from cgm_metrics.base.errors import InputError  # noqa: E402
from cgm_metrics.frontends import space  # noqa: E402
from cgm_metrics.languages import DEFAULT_LANGUAGE  # noqa: E402

LOGGER = logging.getLogger("cgm_metrics.frontends.space")

#: scoring (side by side, Systems): one warm worker process per core, a request at a time each
SCORING = space.workers.Pool("scoring", timeout=60.0, early=True)
#: agreement uploads: one worker, at most 60 s and 1.5 GB more than its warm size a request
#: (at the limits: about 7 s of CPU and 0.35 GB, benchmarks/space.py --only agreement)
AGREEMENT = space.workers.Pool("agreement", size=min(1, SCORING.size), timeout=60.0,
                               memory_mb=1_500, plots=True)
#: requests that may wait at once (every tab together); a busy Space queues, never refuses
QUEUE_SIZE = 200

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


def _message(text):
    """A gr.Error for the browser that Gradio does not print a traceback of (the log has
    the line it needs)."""
    error = gr.Error(text)
    error.print_exception = False
    return error


def _guarded(function):
    """Run a handler; user mistakes become gr.Error messages and one line in the server log,
    anything else a short message (its traceback goes to the server log, never to the
    browser)."""

    @functools.wraps(function)
    def wrapper(*args):
        try:
            return function(*args)
        except InputError as error:  # the user's to fix (SpaceInputError is one): no traceback
            LOGGER.warning("%s: input error: %s", function.__name__,
                        " ".join(str(error).split())[:300])
            raise _message(str(error)) from None
        except gr.Error:
            raise
        except Exception:  # noqa: BLE001 - the browser gets a message, the log the details
            LOGGER.exception("request failed")
            raise _message("Something went wrong while scoring this input; please check it "
                           "and try again, or use the `cgm` command for details.") from None

    return wrapper


def _path(upload):
    """An upload as a plain string path, or None: Gradio's own str subclass would make every
    worker process import Gradio to read it."""
    if upload is None:
        return None
    if not isinstance(upload, str):  # a file object of older Gradio versions
        upload = getattr(upload, "path", None) or getattr(upload, "name", "")
    return str(upload)


@_guarded
def score_side_by_side(lang, reference, candidate_a, candidate_b, candidate_c, candidate_d):
    candidates = [candidate_a, candidate_b, candidate_c, candidate_d]
    page = SCORING.run("side_by_side", lang, reference, candidates)
    for name, reason in page["skipped"].items():
        gr.Warning(f"{name} skipped: {reason}")
    return page["scores_html"], page["diffs_html"], page["numbers"]


@_guarded
def compare_systems(references, systems, lang, metrics, unescape=False):
    if not metrics:
        raise space.SpaceInputError("Choose at least one metric.")
    if systems is not None and not isinstance(systems, (list, tuple)):
        systems = [systems]
    page = SCORING.run("compare", _path(references), [_path(p) for p in systems or []], lang,
                       list(metrics), bool(unescape))
    for text in page["warnings"]:  # e.g. escaped lines read verbatim
        gr.Warning(text)
    for name, reason in page["skipped"].items():
        gr.Warning(f"{name} skipped: {reason}")
    return page["html"], page["plot_svg"], page["summary"]


@_guarded
def agreement(graded, protocol, bins):
    from PIL import Image

    if AGREEMENT.size and not AGREEMENT.warmed():
        gr.Info("The Space has just started and its agreement worker is still loading "
                "(seconds on a quiet machine, longer on a busy one); your upload is analysed "
                "as soon as it is ready.")
    page = AGREEMENT.run("agreement", _path(graded), protocol, bins)
    image = Image.open(io.BytesIO(page["png"]))
    image.load()
    return page["html"], image


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
                lang = gr.Dropdown(languages, value=DEFAULT_LANGUAGE, label="Language", scale=1,
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
                         outputs=[scores, diffs, raw], api_name="side_by_side",
                         concurrency_id="scoring", concurrency_limit=max(1, 2 * SCORING.size))

        with gr.Tab("Systems", id="systems"):
            gr.Markdown(
                "Upload a references file and two or more system files (one per system; the "
                "file name is the system name; two files with the same name become `model` and "
                "`model (2)`). Plain text: one item per line, read as it is (tick *escaped "
                "lines* when `\\n` inside a line means a newline, as in `cgm demo --export` "
                "files; unticked, files whose lines look escaped get a warning). JSONL: one "
                "object per line with `prediction` (systems) or "
                f"`references` (a string or a list). Limits: {space.LIMITS.max_items} items, "
                f"{space.LIMITS.max_systems} systems, "
                f"{space.LIMITS.max_upload_bytes // 1_000_000} MB per file. The chosen metrics "
                "run cheapest first while their measured cost on code of this size fits the "
                f"{space.TIME_BUDGET:g} s a request may take (3 systems x 100 items of real "
                "code: the default metrics fit); a metric that does not fit is skipped with a "
                "note giving the `cgm compare` command that computes it."
            )
            with gr.Row():
                references = gr.File(label="References", elem_id="references-file")
                systems = gr.File(label="System files", file_count="multiple",
                                  elem_id="systems-files")
            with gr.Row():
                systems_lang = gr.Dropdown(languages, value=DEFAULT_LANGUAGE, label="Language",
                                           elem_id="systems-lang")
                metric_choice = gr.CheckboxGroup(space.metric_choices(),
                                                 value=list(space.DEFAULT_SYSTEM_METRICS),
                                                 label="Metrics", elem_id="metric-choice")
                unescape = gr.Checkbox(value=False, elem_id="unescape",
                                       label="Escaped lines (\\n inside a line is a newline)")
            compare_button = gr.Button("Compare", variant="primary", elem_id="compare-button")
            systems_out = gr.HTML(label="Comparison", elem_id="systems-result")
            systems_plot = gr.HTML(label="Bootstrap distributions of the differences",
                                   elem_id="systems-plot")
            with gr.Accordion("Raw numbers (JSON)", open=False):
                systems_raw = gr.JSON(label="Side-by-side scores")
            compare_button.click(compare_systems,
                                 inputs=[references, systems, systems_lang, metric_choice,
                                         unescape],
                                 outputs=[systems_out, systems_plot, systems_raw],
                                 api_name="compare_systems", concurrency_id="scoring",
                                 concurrency_limit=max(1, 2 * SCORING.size))

        with gr.Tab("Agreement", id="agreement"):
            gr.Markdown(
                "Upload a graded-outputs JSONL (one row per item and system with `grades` or "
                "`grade`, and `scores` or `prediction`/`references`) to see how often each "
                "metric's verdict on a pair of systems matches the human graders', by size of "
                "the metric difference (Roy et al. 2021; Evtikhiev et al. 2023). "
                f"Limits: {space.LIMITS.max_graded_rows:,} rows, "
                f"{space.LIMITS.max_graded_systems} systems (each adds 16 synthetic models); "
                "larger files: `cgm agreement`."
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
                                   api_name="agreement", concurrency_id="agreement",
                                   concurrency_limit=1)
    demo.queue(default_concurrency_limit=1, max_size=QUEUE_SIZE)
    return demo


demo = build()

if __name__ == "__main__":
    demo.launch(prevent_thread_lock=True, **LAUNCH_OPTIONS)  # the page first
    SCORING.start()  # then the workers warm up (parsers, WordNet); until one is warm, the
    AGREEMENT.start()  # server answers side by side and Systems itself
    demo.block_thread()
