"""Which language a message is written in, among the ones its scope allows.

py3langid (an offline naive Bayes model over byte n-grams, shipped in the package) restricted
to the scope's languages and English: some 20 µs for a chat message, the best accuracy on
short messages of the candidates measured (``tests/perf/bench_langid``). A scope that allows
English only is never asked: its messages cost what they did. Markup, links, mentions and
digits are left out of what the identifier reads; a message with too few letters to tell
(``ok``, a bare link) is English. Only the code leaves this module, never the text.
"""

from __future__ import annotations

import copy
import functools
import re
import threading
from collections.abc import Iterable
from typing import Any

ENGLISH = "en"
SAMPLE_CHARS = 600
"""A longer message is identified by its first characters, its dominant language: the
identifier's cost grows with the text (about 0.5 µs a character)."""
MIN_LETTERS = 4
"""Fewer letters than this say nothing about a language: English."""

_NOISE = re.compile(r"<[^>\s]*>|\bhttps?://\S+|\S+@\S+|[\d_]+")
_LETTER = re.compile(r"[^\W\d_]")
_LOCK = threading.Lock()


def identify(text: str, languages: Iterable[str]) -> str:
    """The language of ``text`` among ``languages`` and English (an ISO 639-1 code).

    Args:
        text: the message, markup included.
        languages: what its scope allows; English is always one of them.
    """
    allowed = tuple(sorted({ENGLISH, *languages}))
    if allowed == (ENGLISH,):
        return ENGLISH
    sample = _NOISE.sub(" ", text[:SAMPLE_CHARS])
    if len(_LETTER.findall(sample, 0, 200)) < MIN_LETTERS:
        return ENGLISH
    found: Any = _identifier(allowed).classify(sample)
    return str(found[0])


def ready() -> bool:
    """Whether the model is loaded: until then, ``identify`` takes about a second."""
    return _model.cache_info().currsize > 0


@functools.lru_cache(maxsize=16)
def _identifier(allowed: tuple[str, ...]) -> Any:
    """py3langid's identifier restricted to ``allowed``, sharing the one loaded model."""
    identifier = copy.copy(_model())
    identifier.set_languages(list(allowed))  # rebinds its own tables; the model's are kept
    return identifier


READABLE = ("en", "de", "fr", "es", "it", "nl", "pt", "pl")
"""Every language a scope may name (``bot.core.scopes.Language``)."""


@functools.cache
def _model() -> Any:
    """py3langid's model for ``READABLE`` alone, loaded once per process, on first use.

    Its table of 97 languages' n-gram weights is cut to these eight columns for good (the
    rest would stay resident for nothing); its byte automaton is shared by every scope's
    identifier.
    """
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    with _LOCK:
        model = LanguageIdentifier.from_model_file(MODEL_FILE)
    model.set_languages(list(READABLE))
    model._full_model = (model.nb_ptc, model.nb_pc, model.nb_classes)  # noqa: SLF001
    return model
