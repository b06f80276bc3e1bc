"""The fast code tokenizer equals the study's four regex steps on any text."""

from hypothesis import given, settings
from hypothesis import strategies as st

from cgm_metrics.core.tokenizers import code_tokens, tranx_tokenize

_ALPHABET = st.sampled_from(list("aAbBzZ09_ \t\n\"'`(),.=+é\u03a9\xa0\u2028\x1c"))


@settings(max_examples=500, deadline=None)
@given(st.lists(_ALPHABET, max_size=30).map("".join))
def test_code_tokens_equal_the_four_regex_steps(text):
    assert code_tokens(text) == tranx_tokenize(text).split()


def test_study_examples():
    # Examples from the Out of the BLEU protocol: TranX emits backticks for quotes.
    assert code_tokens('sys.signal("x")') == ["sys", ".", "signal", "(", "`", "x", "`", ")"]
    assert code_tokens("getValue()") == ["get", "Value", "(", ")"]
