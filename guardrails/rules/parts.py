"""Which words of a detected person's name stand for that person when they come alone.

The vault remembers which placeholder each word of a name belongs to, so a later "Jane" keeps
the placeholder of "Jane Doe" (``guardrails.vault.linking``), and detection hides the other
occurrences of a name's words in the same message (``guardrails.rules.repeats``). A word
English does not know ("Maria", "Gonzalez") stands for the person in any case. A word English
knows ("Park", "Mark", or "Ring" where the model read "Ring Maria Gonzalez" as one name) does
so only where it is written as a name: capitalized and not the first word of a sentence ("ask
Park", not "the park", "Park the car" or "ring me"). Such a word is kept in its ``PROPER``
form; the detector tells the two apart with the spaCy model's lexicon
(``PeopleFinder.link_form``) and hands the forms over as ``Detection.parts``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from guardrails.rules.names import OFFICE_WORDS

NAME_TOKEN = re.compile(r"[^\W\d_]+(?:['’\-][^\W\d_]+)*")
TITLES = frozenset({"mr", "mrs", "ms", "miss", "dr", "prof", "sir", "madam"})
MAX_PARTS = 4
PROPER = "^"
"""Prefix of a name word that stands for the person only where written as a name."""
_NOT_PARTS = re.compile(r"[<>|\[\]()/@:._\d]")
"""A value with these (a handle, a URL part, markup) is no name whose words stand alone."""
_ABBREVIATIONS = re.compile(r"(?i:\b(?:mr|mrs|ms|dr|prof|st|jr|sr)\.|\b[^\W\d_]\.)")
"""Titles and initials, whose dots are part of a name ("Dr. Jane Doe", "John F. Kennedy")."""
_SENTENCE_END = frozenset(".!?•·\n")
_BEFORE_WORD = " \t*_~>\"'“‘([{-–—#"
"""Blanks, markup, quotes and bullets that may stand between a sentence's start and its word."""


def name_parts(
    entity_type: str, value: str, form: Callable[[str], str] | None = None
) -> tuple[str, ...]:
    """The words of a person's name that a later mention may use alone ("Jane", "Doe").

    ``form`` gives each word's lookup form, the casefolded word or its ``PROPER`` form
    (``PeopleFinder.link_form``); without it, every word stands alone in any case.
    """
    if entity_type != "PERSON" or _NOT_PARTS.search(_ABBREVIATIONS.sub(" ", value)):
        return ()
    words = [w for w in after_offices(NAME_TOKEN.findall(value)) if len(w) >= 2]
    words = [w for w in words if w.casefold() not in TITLES]
    forms = [form(w) if form else w.casefold() for w in words]
    return tuple(dict.fromkeys(forms))[:MAX_PARTS]


def after_offices(words: list[str]) -> list[str]:
    """A name's words without the offices and ranks it opens with, its last word kept.

    "Brigadier General Philip Drew": "General" alone, later, is nobody's name; "King" found
    alone is still someone's.
    """
    first = 0
    while first < len(words) - 1 and words[first].casefold() in OFFICE_WORDS:
        first += 1
    return words[first:]


def written_as_name(text: str, start: int, end: int) -> bool:
    """Whether the word at ``[start, end)`` is capitalized and not the first of a sentence.

    "ask Park", "thanks, Park", "Owner: Park": yes; "Park the car", "- Park it", "PARK",
    "park": no.
    """
    word = text[start:end]
    if not word[:1].isupper() or (len(word) > 1 and word.isupper()):
        return False
    before = text[max(0, start - 40) : start].rstrip(_BEFORE_WORD)
    return bool(before) and before[-1] not in _SENTENCE_END
