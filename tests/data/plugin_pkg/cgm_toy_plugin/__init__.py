from cgm_metrics.languages import resolve_language
from cgm_metrics.languages.parts import LanguageSpec
from cgm_metrics.pipeline.metric import MeanOfItems, MetricFlag


class TokenOverlap(MeanOfItems):
    name, display_name = "token_overlap", "Token overlap"
    description = "Share of the reference's distinct tokens found in the prediction, 0-1."
    seconds_growth_per_1k_chars = 0.002  # the Space's estimate reads it from the class
    # `cgm score --token-overlap-min-length 2`
    cli_flags = (MetricFlag("min_length", "count only tokens of at least N characters "
                            "(default: 1)", kind="int"),)

    def __init__(self, lang=None, min_length=1):
        super().__init__(lang=lang and resolve_language(lang).name, min_length=min_length)
        self.min_length = min_length

    def _tokens(self, text):
        return {token for token in text.split() if len(token) >= self.min_length}

    def item_values(self, predictions, references):
        return [max(len(self._tokens(p) & self._tokens(r)) / max(len(self._tokens(r)), 1)
                    for r in refs) for p, refs in zip(predictions, references, strict=True)]


STARLARK = LanguageSpec(name="starlark", module="tree_sitter_python", function="language",
                        comment_types={"comment"}, string_types={"string"},
                        identifier_types={"identifier"})
