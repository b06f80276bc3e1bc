"""paired_significance: does system B really beat system A on a metric?

Paired bootstrap resampling (Koehn, 2004) and paired approximate randomization (Riezler and
Maxwell, 2005) on the metric's per-item sufficient statistics, with sacrebleu's draws and
defaults, confidence intervals, a reproducibility signature and an optional human verdict.
"""

import datasets
import evaluate

from cgm_metrics.core.inputs import feature_shapes
from cgm_metrics.frontends.hub import CheckedModule
from cgm_metrics.significance import paired_test_texts
from cgm_metrics.significance.texts import runs_code

_CITATION = """\
@inproceedings{koehn2004statistical,
  title={Statistical Significance Tests for Machine Translation Evaluation},
  author={Koehn, Philipp}, booktitle={EMNLP}, year={2004}}
@inproceedings{riezler2005pitfalls,
  title={On Some Pitfalls in Automatic Evaluation and Significance Testing for MT},
  author={Riezler, Stefan and Maxwell, John T.}, booktitle={ACL Workshop on Intrinsic and
  Extrinsic Evaluation Measures for MT and/or Summarization}, year={2005}}
"""

_DESCRIPTION = """\
Paired significance test of two systems' outputs on the same items. The metric's per-item
sufficient statistics are resampled (a resample is a row of a count matrix; the metric is not
recomputed), so CodeBLEU, chrF for code, RUBY and sacrebleu's BLEU and chrF are tested exactly
and fast. With the same seed and number of resamples, BLEU and chrF give the p-values of
sacrebleu's PairedTest. A loaded evaluate module is also accepted: it is recomputed on every
resample (slow). System a plays the baseline; delta = score_b - score_a.

pass@k ("pass@1", "pass@10", ...) takes evaluate's code_eval call shape: for each system a list
of candidate programs per task, and one test program per task as the reference; every
candidate's program (candidate + "\\n" + test) runs once in the sandbox (opt in with
HF_ALLOW_CODE_EVAL="1" or metric_kwargs={"allow_code_execution": True}), and the tasks are
resampled. pass@1 with one candidate a task adds McNemar's exact test.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions_a (list of str): outputs of system a (the baseline), one per item; at least 2.
        For pass@k: a list of candidate programs per task (code_eval's predictions).
    predictions_b (list of str): outputs of system b for the same items (for pass@k: its
        candidate lists; the number of candidates may differ between systems and tasks).
    references (list of str or list of list of str): reference(s) per item. For pass@k: one
        test program per task (code_eval's references).
    metric (str or evaluate module): default "chrf_code"; a metric of cgm_metrics
        ("chrf_code", "codebleu", "ruby", "edit_sim", "bleu", "rouge_l", "meteor"), "chrf"
        (sacrebleu's chrF), "bleu" (sacrebleu's BLEU, tokenize="13a"), "registry:bleu" (BLEU
        with the code tokenizer), "pass@k" for any k (runs the code: see above), or a loaded
        evaluate module (recomputed on every resample).
    metric_kwargs (dict): options of the metric (e.g. {"lang": "java"}; for pass@k
        {"allow_code_execution": True, "timeout": 3.0, "retry_timeout": None}); default None.
    method (str): "paired_bootstrap" (default) or "approximate_randomization".
    n_resamples (int): resamples; default None = 1000 (bootstrap) or 10000 (randomization).
    seed (int or None): random seed, default 12345 (sacrebleu's).
    alpha (float): significance level in (0, 1), default 0.05.
    human_a, human_b (list of float): optional per-item human grades of a and b.
Returns:
    metric, method, n_resamples, seed, alpha, confidence (0.95), n_items: what was run;
    score_a, score_b, delta (= score_b - score_a), p_value, significant (p_value < alpha);
    ci_a, ci_b, ci_delta ([low, high] 95% percentile intervals), mean_a, mean_b,
    half_width_a, half_width_b (sacrebleu's "mean +- CI");
    verdict: "b > a, significant", "a > b, significant" or "no detectable difference";
    signature: metric, options, method, resamples, seed, alpha and library version;
    human (with grades only): score_a, score_b, delta, p_value, significant, ci_delta and
    verdict of the grades, agreement ("agree", "disagree", "type_i" or "type_ii") and
    explanation;
    exact_test (pass@1 with one candidate a task only): McNemar's exact test, {"test",
    "only_a_passes", "only_b_passes", "both_pass", "neither_passes", "p_value"}; it is then
    the test of the pair: p_value, significant and verdict are its, test is "mcnemar_exact" and
    resampled has the resampled test's {"method", "p_value", "significant"}.
Examples:
    >>> import evaluate
    >>> test = evaluate.load("cgm/paired_significance")
    >>> refs = ["x = 1", "y = 2", "z = 3", "w = 4"]
    >>> result = test.compute(predictions_a=["x = 1", "y = 3", "z = 9", "w = 0"],
    ...                       predictions_b=refs, references=refs, metric="chrf")
    >>> round(result["delta"], 2), result["p_value"] > 0.05
    (45.83, False)
    >>> result["verdict"]
    'b > a, significant'
"""


def _features():
    text = datasets.Value("string", id="sequence")
    candidates = datasets.Sequence(datasets.Value("string"))
    return [
        datasets.Features(
            {"predictions_a": text, "predictions_b": text,
             "references": datasets.Sequence(text, id="references")}
        ),
        datasets.Features({"predictions_a": text, "predictions_b": text, "references": text}),
        # pass@k: code_eval's candidate lists and one test program per task
        datasets.Features({"predictions_a": candidates, "predictions_b": candidates,
                           "references": datasets.Value("string")}),
    ]


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class PairedSignificance(CheckedModule, evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=_features(),
            reference_urls=["https://github.com/mjpost/sacrebleu"],
        )

    def input_shapes(self, arguments):
        """Texts, or (for a metric that runs code) candidate lists and test programs."""
        metric = arguments.get("metric", getattr(self, "_metric_of_call", "chrf_code"))
        features = self.features
        return feature_shapes(features[2:] if runs_code(metric) else features[:2])

    def compute(self, **kwargs):
        """evaluate's compute; the inputs' shapes follow ``metric`` (evaluate's own add_batch
        inside compute does not see it)."""
        self._metric_of_call = kwargs.get("metric", "chrf_code")
        try:
            return super().compute(**kwargs)
        finally:
            self._metric_of_call = "chrf_code"

    def _compute(
        self,
        predictions_a,
        predictions_b,
        references,
        metric="chrf_code",
        metric_kwargs=None,
        method="paired_bootstrap",
        n_resamples=None,
        seed=12345,
        alpha=0.05,
        human_a=None,
        human_b=None,
    ):
        result = paired_test_texts(
            predictions_a, predictions_b, references, metric=metric,
            metric_kwargs=metric_kwargs, method=method, n_resamples=n_resamples, seed=seed,
            alpha=alpha, human_a=human_a, human_b=human_b,
        )
        return result.to_dict()
