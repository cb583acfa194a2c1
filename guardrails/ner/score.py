"""How well a spaCy pipeline's entities match a corpus split: found and precision by label.

A labelled entity is *found* when a predicted entity of its label overlaps it; a predicted
entity is *right* when it overlaps a labelled entity of its label or a span of missing
annotation. Overlap rather than exact bounds, as in the guardrail's evaluation: a name
redacted with a word too many is still hidden. Each split is also read in capitals and in lower
case, the forms clinical notes and chat take.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from guardrails.ner.examples import recased
from guardrails.ner.readers import Sentence

MODEL_LABELS = {"PERSON": "PERSON", "PER": "PERSON", "GPE": "LOC", "LOC": "LOC", "FAC": "LOC"}
MODEL_LABELS |= {"ORG": "ORG"}
"""A model's entity labels as the corpora's (OntoNotes' GPE and FAC are places)."""
LABELS = ("PERSON", "LOC", "ORG")


@dataclass
class Tally:
    """Counts for one split: labelled and found, predicted and right, by label."""

    gold: Counter[str] = field(default_factory=Counter)
    found: Counter[str] = field(default_factory=Counter)
    predicted: Counter[str] = field(default_factory=Counter)
    right: Counter[str] = field(default_factory=Counter)

    def recall(self, label: str) -> float:
        """Share of labelled entities found."""
        return self.found[label] / self.gold[label] if self.gold[label] else 0.0

    def precision(self, label: str) -> float:
        """Share of predicted entities that are right."""
        return self.right[label] / self.predicted[label] if self.predicted[label] else 0.0

    def line(self) -> str:
        """One line of recall / precision per label."""
        cells = [
            f"{label} {self.recall(label):5.1%} / {self.precision(label):5.1%} ({self.gold[label]})"
            for label in LABELS
        ]
        return "  ".join(cells)


def score(nlp: Any, sentences: Iterable[Sentence], case: str | None = None) -> Tally:
    """Tally the pipeline's entities against the sentences (recased first when ``case``)."""
    items = [replace(s, text=recased(s.text, case)) if case else s for s in sentences]
    tally = Tally()
    for sentence, doc in zip(items, nlp.pipe(s.text for s in items), strict=True):
        predicted = [
            (e.start_char, e.end_char, MODEL_LABELS[e.label_])
            for e in doc.ents
            if e.label_ in MODEL_LABELS
        ]
        _count(tally, sentence, predicted)
    return tally


def _count(tally: Tally, sentence: Sentence, predicted: list[tuple[int, int, str]]) -> None:
    def overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
        return a[0] < b[1] and b[0] < a[1]

    for start, end, label in sentence.spans:
        tally.gold[label] += 1
        tally.found[label] += any(
            p[2] == label and overlaps(p[:2], (start, end)) for p in predicted
        )
    for start, end, label in predicted:
        tally.predicted[label] += 1
        tally.right[label] += any(
            s[2] == label and overlaps(s[:2], (start, end)) for s in sentence.spans
        ) or any(overlaps(m, (start, end)) for m in sentence.missing)


def report(nlp: Any, splits: Mapping[str, list[Sentence]]) -> list[str]:
    """Lines of recall / precision for each split as written, in capitals and in lower case."""
    lines = []
    for name, sentences in splits.items():
        for case in (None, "upper", "lower"):
            tally = score(nlp, sentences, case)
            lines.append(f"{name:<14} {case or 'as written':<10} {tally.line()}")
    return lines
