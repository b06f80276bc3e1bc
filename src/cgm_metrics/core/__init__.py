"""The tiny shared parsing core: input checks (``inputs``), parsing (``parsing``), comment
stripping and identifier normalisation (``text``), tokenizers (``tokenizers``). Import each
from its module; the languages' parsing view is :func:`cgm_metrics.languages.resolve_language`.
"""
