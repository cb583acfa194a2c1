"""Training examples: labelled sentences as spaCy documents, with copies in other letter cases.

People write in lower case in chat and in capitals in clinical notes; a model that learnt names
from their capitals alone misses both. Each training sentence is kept as written and, with a
fixed seeded choice, copied once in all capitals, all lower case or title case, so case is
learnt rather than patched. A character whose other case is longer (``ß`` → ``SS``) stays as
it is, so the spans keep their offsets.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import Any

from guardrails.ner import swaps
from guardrails.ner.readers import Sentence

CASES = ("upper", "lower", "title")


def recased(text: str, case: str) -> str:
    """``text`` in ``case`` (``upper``, ``lower``, ``title``), one character for one."""
    if case == "title":
        words = text.split(" ")
        return " ".join(w[:1].upper() + w[1:] for w in words)  # "McDonald" keeps its capitals
    change = str.upper if case == "upper" else str.lower
    return "".join(c2 if len(c2 := change(c)) == 1 else c for c in text)


def variants(sentence: Sentence, share: float, seed: int) -> Iterator[Sentence]:
    """The sentence, and for ``share`` of sentences one copy in another case.

    The choice (whether, and which case) is a hash of the seed and the sentence id, so a
    rebuild gives the same copies.
    """
    yield sentence
    digest = hashlib.sha256(f"{seed}:{sentence.id}".encode()).digest()
    if digest[0] / 256 >= share or not sentence.text:
        return
    case = CASES[digest[1] % len(CASES)]
    yield replace(sentence, id=f"{sentence.id}:{case}", text=recased(sentence.text, case))


def to_doc(nlp: Any, sentence: Sentence) -> Any:
    """A spaCy ``Doc`` of the sentence with its entities set and missing spans unknown.

    Spans are widened to whole tokens; an entity that overlaps an earlier one is left out.
    """
    doc = nlp.make_doc(sentence.text)
    taken: set[int] = set()
    entities, missing = [], []
    for start, end, label in sentence.spans:
        span = doc.char_span(start, end, label=label, alignment_mode="expand")
        if span is not None and not taken & set(range(span.start, span.end)):
            entities.append(span)
            taken |= set(range(span.start, span.end))
    for start, end in sentence.missing:
        span = doc.char_span(start, end, alignment_mode="expand")
        if span is not None and not taken & set(range(span.start, span.end)):
            missing.append(span)
            taken |= set(range(span.start, span.end))
    doc.set_ents(entities, missing=missing, default="outside")
    return doc


def docs(
    nlp: Any,
    sentences: Iterable[Sentence],
    *,
    share: float = 0.0,
    swap: float = 0.0,
    seed: int = 0,
) -> Iterator[Any]:
    """Documents of the sentences and of their copies.

    ``swap`` of the sentences that name a person or place get a copy with other names in
    (``swaps``); of all of these, ``share`` get a copy in another case.
    """
    for sentence in sentences:
        copies = [sentence]
        if _chosen(f"{seed}:swap:{sentence.id}", swap):
            copies += [s for s in [swaps.swapped(sentence, seed)] if s is not None]
        for copy in copies:
            for variant in variants(copy, share, seed):
                yield to_doc(nlp, variant)


def _chosen(key: str, share: float) -> bool:
    """A seeded choice: whether ``key`` falls in the ``share``."""
    return hashlib.sha256(key.encode()).digest()[0] / 256 < share
