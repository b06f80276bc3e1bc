"""The errors of the library, in one place.

* :class:`InputError` (a ``ValueError``): a problem with what the user gave (a file, an
  argument, an option) that the user can fix; the message names it and the fix. ``cgm``
  exits 1 on it, the Space shows it as a message.
  :class:`ItemError` is one that names an item of the corpus by its index.
* :class:`MetricUnavailableError` (a ``RuntimeError``): a metric that cannot run in this
  installation (a missing database such as WordNet, a plugin that fails to import); a
  default metric is skipped with the reason, a metric asked for by name is an error.
  :class:`ToolchainMissingError` is one: a language's compiler or interpreter is missing.
* :class:`UnsupportedLanguageError` (a ``ValueError``): a metric without the language (or
  without ``lang`` where it needs one); likewise skipped or an error.
"""

from __future__ import annotations

from collections.abc import Iterable


class InputError(ValueError):
    """A problem with the user's input that the user can fix."""


class ItemError(InputError):
    """An item that a metric cannot score (code nested deeper than the metric reads, say): the
    message names it by its index in the corpus (``item 3: ...``)."""

    def __init__(self, item: int, message: str) -> None:
        super().__init__(item, message)
        self.item = item
        self.message = message

    def __str__(self) -> str:
        return f"item {self.item}: {self.message}"

    def shifted(self, offset: int) -> ItemError:
        """The same error for a block of items that starts at ``offset`` in the corpus."""
        return ItemError(self.item + offset, self.message) if offset else self


class MetricUnavailableError(RuntimeError):
    """A metric that cannot run here; the message says why and how to make it run."""


class ToolchainMissingError(MetricUnavailableError):
    """Programs of a language cannot run: its compiler, interpreter or a library its programs
    import is not installed; the message names the package that provides it."""


class UnsupportedLanguageError(ValueError):
    """A metric asked for a language it does not cover (CodeBLEU's tables, say); the message
    lists the languages it covers."""


def did_you_mean(value: object, choices: Iterable[str]) -> str:
    """`` Did you mean 'codebleu'?`` for the valid name closest to a misspelt one (case and
    ``-``/``_`` ignored), or ``""`` when none is close. Appended to every "unknown name" error."""
    if not isinstance(value, str) or not value.strip():
        return ""
    import difflib  # here, not on import: a first CodeBLEU call need not load it

    folded = {choice.lower().replace("-", "_"): choice for choice in choices}
    key = value.strip().lower().replace("-", "_")
    close = difflib.get_close_matches(key, list(folded), n=1, cutoff=0.6)
    return f" Did you mean {folded[close[0]]!r}?" if close else ""
