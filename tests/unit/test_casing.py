"""Other languages' function words, which keep lower-case Dutch or French words from names."""

from __future__ import annotations

import subprocess
import sys

_PROBE = """
import sys
from guardrails.rules.casing import _LANGUAGES, foreign_function_words
words = foreign_function_words()
print(sorted(w for w in ("nous", "een", "und", "the", "ze") if w in words))
print([lang for lang in _LANGUAGES if f"spacy.lang.{lang}" in sys.modules])
"""


def test_function_words_are_read_without_loading_the_language_packages() -> None:
    """French's tokenizer exceptions alone compile for seconds: a detection process that
    loaded them at its first lower-case name stalled every turn waiting on it that long."""
    done = subprocess.run(  # noqa: S603  (this interpreter, a fixed script)
        [sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True, timeout=120
    )
    found, packages = done.stdout.splitlines()
    assert found == "['een', 'nous', 'und', 'ze']"  # Dutch, French, German; English left out
    assert packages == "[]"  # no language package but English's ran
