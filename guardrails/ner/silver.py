"""Dates, times and nationalities the corpora do not label, as the starting model reads them.

The corpora label people, places and organizations only, so a model trained on them alone
would unlearn what the medium English model knew of dates, times and nationalities, which a
detection policy may turn on (``DATE_TIME``, ``NRP``). Each sentence keeps those the starting
model finds where the corpus labels nothing, so the trained model still finds them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import Any

from guardrails.ner.readers import Sentence

LABELS = frozenset({"DATE", "TIME", "NORP"})


def with_silver(nlp: Any, sentences: Iterable[Sentence]) -> Iterator[Sentence]:
    """Each sentence with the starting model's dates, times and nationalities added."""
    items = list(sentences)
    for sentence, doc in zip(items, nlp.pipe(s.text for s in items), strict=True):
        taken = [(a, b) for a, b, _ in sentence.spans] + list(sentence.missing)
        extra = [
            (e.start_char, e.end_char, e.label_)
            for e in doc.ents
            if e.label_ in LABELS and not any(a < e.end_char and e.start_char < b for a, b in taken)
        ]
        yield (
            replace(sentence, spans=tuple(sorted([*sentence.spans, *extra]))) if extra else sentence
        )
