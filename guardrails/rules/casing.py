"""English as the model's lemmatizer knows it, and whether a text reads as English.

``Lexicon`` holds the words a spaCy lemmatizer's tables list (with their inflections): the
name rules tell an English word ("Park", "Grace Period") from a name by it. ``reads_as_english``
counts function words, so the lower-case words of a Dutch or Indonesian message are not taken
for names.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

from guardrails.rules.names import COMMON_WORDS
from guardrails.rules.stopwords import STOP_WORDS, stop_words


@dataclass(frozen=True)
class Lexicon:
    """English words a spaCy lemmatizer knows, with its suffix rules for inflected forms."""

    words: frozenset[str]
    suffixes: tuple[tuple[str, str], ...]

    def knows(self, word: str) -> bool:
        """Whether ``word`` (lower case) or a lemma the suffix rules make of it is known."""
        if word in self.words or word in COMMON_WORDS:
            return True
        return any(
            word.endswith(old) and word[: len(word) - len(old)] + new in self.words
            for old, new in self.suffixes
        )


def lexicon(analyzer: Any, *, nouns: bool = True, parts: tuple[str, ...] = ()) -> Lexicon | None:
    """The lexicon of the analyzer's English spaCy lemmatizer; ``None`` without one.

    ``nouns=False`` leaves out its nouns, which include many proper names ("melbourne");
    ``parts`` keeps only those parts of speech (``("adj", "adv")``: "western", "israeli").
    """
    nlp = getattr(getattr(analyzer, "nlp_engine", None), "nlp", {}).get("en")
    if nlp is None or "lemmatizer" not in nlp.component_names:
        return None  # veilbot's own model keeps it disabled: its word lists are all it needs
    lookups = nlp.get_pipe("lemmatizer").lookups
    if not lookups.has_table("lemma_index"):
        return None
    from spacy.strings import get_string_id  # spaCy is loaded: the lemmatizer came from it

    skip = {} if nouns else {get_string_id("noun"), "noun"}
    keep = {get_string_id(part) for part in parts} | set(parts)
    words: set[str] = set()
    for name in ("lemma_index", "lemma_exc"):
        for pos, entries in lookups.get_table(name).items():
            if pos not in skip and (not parts or pos in keep):
                words.update(entries)
    rules = lookups.get_table("lemma_rules").values() if lookups.has_table("lemma_rules") else []
    suffixes = sorted({(old, new) for table in rules for old, new in table if old})
    return Lexicon(frozenset(words), tuple(suffixes))


_LANGUAGES = "ca cs da de es fi fr hu id it nb nl pl pt ro sv tl tr".split()
_WORD = re.compile(r"[^\W\d_]{2,}")


@functools.cache
def foreign_function_words() -> frozenset[str]:
    """Stop words of the Latin-script languages spaCy ships lists for, English's left out."""
    words: set[str] = set()
    for lang in _LANGUAGES:
        words |= stop_words(lang)
    return frozenset(w.casefold() for w in words) - STOP_WORDS


def reads_as_english(text: str, known: Lexicon) -> bool:
    """Whether ``text`` has at least as many English function words as other languages'.

    "nou ze is al een week best wel erg ziek" has five Dutch ones ("best" and "week" are
    English too) and no English one: its unknown words are Dutch, not names.
    """
    english = foreign = 0
    others = foreign_function_words()
    for match in _WORD.finditer(text):
        word = match.group().casefold()
        if word in STOP_WORDS:
            english += 1
        elif word in others and not known.knows(word):
            foreign += 1
    return foreign <= english
