"""spaCy's stop word lists, read from their files without importing spaCy or its languages.

Importing ``spacy.lang.<lang>.stop_words`` imports spaCy and runs the language package's
``__init__`` first: French's tokenizer exceptions compile a regular expression for some 7 s of
CPU (the first lower-case name a detection process met stalled it that long in the middle of
traffic), and a service whose detection runs in worker processes would load spaCy for one
word list. The lists are plain sets with no imports of their own.
"""

from __future__ import annotations

import importlib.util
import runpy
from pathlib import Path


def stop_words(lang: str) -> frozenset[str]:
    """The stop words spaCy ships for ``lang`` (a two-letter code, e.g. ``"fr"``)."""
    spacy = importlib.util.find_spec("spacy")  # finds the package without importing it
    if spacy is None or spacy.origin is None:
        raise ModuleNotFoundError("spaCy is not installed", name="spacy")
    path = Path(spacy.origin).parent / "lang" / lang / "stop_words.py"
    return frozenset(runpy.run_path(str(path))["STOP_WORDS"])


STOP_WORDS = stop_words("en")
"""English's."""
