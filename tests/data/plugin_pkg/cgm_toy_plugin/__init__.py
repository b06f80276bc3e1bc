from cgm_metrics.languages import resolve_language
from cgm_metrics.languages.parts import LanguageSpec
from cgm_metrics.metric import MeanOfItems


class TokenOverlap(MeanOfItems):
    name, display_name = "token_overlap", "Token overlap"
    description = "Share of the reference's distinct tokens found in the prediction, 0-1."
    seconds_growth_per_1k_chars = 0.002  # the Space's estimate reads it from the class

    def __init__(self, lang=None):
        super().__init__(lang=lang and resolve_language(lang).name)

    def item_values(self, predictions, references):
        return [max(len(set(p.split()) & set(r.split())) / max(len(set(r.split())), 1)
                    for r in refs) for p, refs in zip(predictions, references, strict=True)]


STARLARK = LanguageSpec(name="starlark", module="tree_sitter_python", function="language",
                        comment_types={"comment"}, string_types={"string"},
                        identifier_types={"identifier"})
