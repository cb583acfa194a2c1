"""Repeats: a value found once in a message is hidden wherever else the message has it.

"Hakuba had given Hakuba his address", "early Yefremova" after "Faina D. Yefremova": the
models find a value in one context and miss it in the next. Every other occurrence of a
detected value (in any case), and of each capitalized word of a detected person's name
("Yefremova"), becomes a detection of the same type, outside markup that is never redacted.
A word of a name that English also knows ("Park", or "Ring" in "Ring Maria Gonzalez") counts
only where it is written as a name (``guardrails.rules.parts``).

The text is read once, word by word, whatever the number of values: an occurrence of a value
begins with that value's first word, so each word of the text is looked up in an index of the
values' first words and only the values it starts are tried there. Dense text with thousands
of findings costs no more per character than text with a few.

An account name made of a detected person's name is theirs too (``handles``): "user jsmith
(John Smith)", "john.smith42", "smithj": it names the person as well as their name does.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from guardrails.rules.names import COMMON_WORDS
from guardrails.rules.parts import PROPER, after_offices, written_as_name
from guardrails.text.spans import Detection

_NAME_WORD = re.compile(r"[^\W\d_]{3,}(?:['’\-][^\W\d_]+)*")
_WORD = re.compile(r"\w+")
_MIN_CHARS = 3


def repeats(
    found: Sequence[Detection],
    text: str,
    protected: Sequence[tuple[int, int]] = (),
    form: Callable[[str], str] | None = None,
    any_case: bool = True,
) -> list[Detection]:
    """Detections for the other occurrences of what ``found`` holds.

    ``form``: how a name's word links (``PeopleFinder.link_form``); every capitalized word
    in any case without it. ``any_case``: a value written with a capital counts again in
    lower case too (English); in the other languages, where a lower-case place or people is
    an adjective ("suisse", "corse", "argentins"), it does not.
    """
    words, proper = _needles(found, text, form)
    needles = list(words.items())
    if not needles:
        return []
    taken = _covered(found, protected, len(text))
    out: list[Detection] = []
    for rank, start, end in sorted(_occurrences(needles, text)):
        if needles[rank][0] in proper and not written_as_name(text, start, end):
            continue
        if not any_case and text[start:end].islower() and not needles[rank][0].islower():
            continue  # "la Suisse ... l'association suisse": an adjective, not the place
        if taken.find(1, start, end) < 0:
            model = needles[rank][1]
            out.append(replace(model, start=start, end=end, score=model.score - 0.01))
            _take(taken, start, end)
    return out


def _covered(
    found: Sequence[Detection], protected: Sequence[tuple[int, int]], length: int
) -> bytearray:
    """A byte per character of the text: 1 where a detection or protected markup covers it."""
    taken = bytearray(length)
    for start, end in [(d.start, d.end) for d in found] + list(protected):
        _take(taken, start, end)
    return taken


def _take(taken: bytearray, start: int, end: int) -> None:
    """Mark ``[start, end)`` as covered."""
    start, end = max(0, start), min(len(taken), end)
    if end > start:
        taken[start:end] = b"\x01" * (end - start)


def _occurrences(needles: list[tuple[str, Detection]], text: str) -> list[tuple[int, int, int]]:
    """``(needle rank, start, end)`` of every occurrence of every needle in ``text``.

    An occurrence is the needle in any case, not inside a word, an address or a domain.
    Compared in place, not by a pattern per needle: compiling one costs more than the
    search, and a dense message has thousands of values.
    """
    index: dict[str, list[tuple[int, int, str]]] = {}
    for rank, (needle, _) in enumerate(needles):
        first = _WORD.search(needle)
        if first is not None:
            entry = (rank, first.start(), needle)
            index.setdefault(first.group().casefold(), []).append(entry)
    found: list[tuple[int, int, int]] = []
    for word in _WORD.finditer(text):
        for rank, offset, needle in index.get(word.group().casefold(), ()):
            start = word.start() - offset
            end = start + len(needle)
            if start >= 0 and _same(text[start:end], needle) and _alone(text, start, end):
                found.append((rank, start, end))
    return found


def _same(found: str, needle: str) -> bool:
    """Whether two strings are equal in any case."""
    return found.lower() == needle.lower() or found.casefold() == needle.casefold()


def _alone(text: str, start: int, end: int) -> bool:
    """Not inside a word, an address or a domain: nothing of them before, after it."""
    before = text[start - 1] if start else ""
    after = text[end : end + 2]
    if before and (_word_char(before) or before in "@."):
        return False
    if after[:1] and (_word_char(after[0]) or after[0] == "@"):
        return False
    return not (after[:1] == "." and len(after) == 2 and _word_char(after[1]))


def _word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


def _needles(
    found: Sequence[Detection], text: str, form: Callable[[str], str] | None
) -> tuple[dict[str, Detection], set[str]]:
    """What to look for: each detected value, and the words of each person's name.

    Also the words that count only where written as a name.
    """
    needles: dict[str, Detection] = {}
    proper: set[str] = set()
    for d in found:
        value = text[d.start : d.end]
        alone = d.type == "PERSON" and _NAME_WORD.fullmatch(value) is not None
        if sum(c.isalnum() for c in value) >= _MIN_CHARS and "\n" not in value and not alone:
            needles.setdefault(value, d)
        if d.type != "PERSON" or not (alone or " " in value.strip()):
            continue
        for word in after_offices(_NAME_WORD.findall(value)):
            if not (word[0].isupper() or alone) or word.casefold() in COMMON_WORDS:
                continue
            if word not in needles:
                needles[word] = d
                if form and form(word).startswith(PROPER):
                    proper.add(word)
    return needles, proper


_HANDLE_TOKEN = re.compile(r"(?<![\w@.\-])[A-Za-z][\w.\-]*[A-Za-z0-9](?![\w@\-]|\.\w)")
_TRAILING_DIGITS = re.compile(r"[._\-]?\d{1,4}$")
_MIN_HANDLE = 5
"""Shorter handle forms ("jli" of "Jun Li") are too often other words."""


def handles(
    found: Sequence[Detection], text: str, protected: Sequence[tuple[int, int]] = ()
) -> list[tuple[int, int]]:
    """Spans of account names made of a detected person's first and last name.

    The forms systems build logins from, in any case and with up to four digits after them:
    initial and surname ("jsmith"), name and surname joined or dotted ("johnsmith",
    "john.smith", "john_smith", "john-smith") and surname and initial ("smithj"). Not inside
    a detection or protected markup.
    """
    forms = _handle_forms(found, text)
    if not forms:
        return []
    taken = _covered(found, protected, len(text))
    out = []
    for match in _HANDLE_TOKEN.finditer(text):
        bare = _TRAILING_DIGITS.sub("", match.group()).casefold()
        if bare in forms and taken.find(1, match.start(), match.end()) < 0:
            out.append(match.span())
    return out


def _handle_forms(found: Sequence[Detection], text: str) -> set[str]:
    forms: set[str] = set()
    for d in found:
        if d.type != "PERSON":
            continue
        words = [w.casefold() for w in after_offices(_NAME_WORD.findall(text[d.start : d.end]))]
        words = [w for w in words if w.isalpha()]
        if len(words) < 2:
            continue
        first, last = words[0], words[-1]
        joined = (first + last, f"{first}.{last}", f"{first}_{last}", f"{first}-{last}")
        forms.update(
            f for f in (first[0] + last, *joined, last + first[0]) if len(f) >= _MIN_HANDLE
        )
    return forms
