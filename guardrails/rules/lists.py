"""Lists: a name in a list of names is a name, though no model or rule read it alone.

"Kischko - Lindner - Edmond, Kracht - Heidenreich, Hecking, Bredow (63. Turowski)": a team's
line-up, a list of participants, towns along a route. The models find most items of such a
list and miss some, by chance of their context. A run of four items or more, each one to
three capitalized words and nothing else, separated by commas, semicolons, slashes, spaced
dashes, brackets or "and" (a colon or a line ends it), is a list. When at least half its items are
found, and at least two thirds of those as one type (a person or a place), the items not
found become that type; but not a first item of several words (the sentence before the list
may run into it: "Die Bahnstrecke Griesheim - Höchst - ..."), a word the list has twice
("Kim - Analyst, Lee - Analyst": a role), a word in brackets with no minute before it
("Galán (Recreativo)": a player's club, not counted either), nor initials in a list that is
not in capitals ("Portland (ENA)"). A list of products or companies (none found) or of people
and places alike stays as it was.

Each line is read once, segment by segment, whatever the number of findings: the findings
are looked up by position with a binary search.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from guardrails.text.spans import Detection

TYPES = frozenset({"PERSON", "LOCATION"})
MIN_ITEMS = 4
SCORE = 0.7
"""Below the models' 0.85: a finding of its own over the same words wins."""

_AND = r"and|or|und|oder|et|ou|y|o|e|ed|en|i|oraz|lub|&"
"""The words that join a list's last item in the languages read ("Hecking und Bredow")."""
_SEPARATOR = re.compile(
    rf"[ \t]*(?:[,;/()]|[ \t][-–][ \t])[ \t]*(?:(?:{_AND})[ \t]+)?|[ \t]+(?:{_AND})[ \t]+"
    r"|:[ \t]*|\n"
)
_ENDS_RUN = re.compile(r":[ \t]*|\n")
"""A colon or a line ends a list: "Tore: Müller, Klein" lists no "Tore"."""
_ITEM = re.compile(
    r"(?:\d{1,3}\.[ \t]+)?"  # a minute before a substitute: "(63. Turowski)"
    r"(?P<name>[^\W\d_][^\W_]*(?:['’\-][^\W\d_]+)*"
    r"(?:[ \t]+[^\W\d_][^\W_]*(?:['’\-][^\W\d_]+)*){0,2})"
)


_LAST = re.compile(r"[.!?:]?[ \t]*\Z")
"""What ends a line's last item: a full stop, a question or exclamation mark, a colon."""
SHARE = 2
"""A list is completed when at least 1/SHARE of its items were found."""


@dataclass(frozen=True, slots=True)
class _Item:
    start: int
    end: int
    aside: bool = False
    """In brackets with no minute before it: "Galán (Recreativo)" names a club, not a player."""


def _items(text: str) -> list[list[_Item]]:
    """The runs of name-shaped segments between separators (a line ends a run), as items."""
    runs: list[list[_Item]] = []
    current: list[_Item] = []

    def close() -> None:
        if len(current) >= MIN_ITEMS:
            runs.append(list(current))
        current.clear()

    position, opened = 0, False
    for separator in [*_SEPARATOR.finditer(text), None]:
        end = separator.start() if separator is not None else len(text)
        if separator is None or _ENDS_RUN.fullmatch(separator.group()):
            last = _LAST.search(text, position, end)  # always: it may match nothing
            end = last.start() if last is not None else end  # "..., Hobsch, Rische."
        if position < end:  # an empty segment, between ")" and ",", neither adds nor ends
            segment = _ITEM.fullmatch(text, position, end)
            minute = segment is not None and segment.start("name") > position
            if segment is not None and (opened or not minute) and _capitalized(segment["name"]):
                aside = opened and not minute
                current.append(_Item(segment.start("name"), segment.end("name"), aside))
            else:
                close()
        if separator is None or _ENDS_RUN.fullmatch(separator.group()):
            close()
        if separator is not None:
            position, opened = separator.end(), "(" in separator.group()
    return runs


def _capitalized(words: str) -> bool:
    """Whether every word of an item begins with a capital ("Eintracht Frankfurt", not "vs")."""
    return all(word[0].isupper() for word in words.split())


def complete(found: Sequence[Detection], text: str) -> list[Detection]:
    """Detections for the items of lists whose other items were found (see the module)."""
    names = sorted((d for d in found if d.type in TYPES), key=lambda d: d.start)
    if len(names) < 2:
        return []
    starts = [d.start for d in names]

    def seen(item: _Item) -> str | None:
        i = bisect_right(starts, item.end - 1) - 1
        return names[i].type if i >= 0 and names[i].end > item.start else None

    added: list[Detection] = []
    for run in _items(text):
        # A club in brackets ("Galán (Recreativo)") is no member: not counted, not added.
        members = [(i, item, seen(item)) for i, item in enumerate(run) if not item.aside]
        known = Counter(kind for _, _, kind in members if kind is not None)
        total = sum(known.values())
        if total < 2 or total * SHARE < len(members):
            continue
        kind, count = known.most_common(1)[0]
        if count * 3 < total * 2:
            continue  # people and places alike: no side taken
        words = [text[item.start : item.end] for _, item, _ in members]
        repeated = {w for w, n in Counter(w.casefold() for w in words).items() if n > 1}
        shouted = sum(w.isupper() for w in words) * 2 > len(words)
        added += [
            Detection(kind, item.start, item.end, SCORE)
            for (i, item, found_as), word in zip(members, words, strict=True)
            if found_as is None
            and not (i == 0 and " " in word)  # "Die Bahnstrecke Griesheim - Höchst - ..."
            and word.casefold() not in repeated  # "X - Analyst, Y - Analyst": a role
            and (shouted or not word.isupper())  # "Portland (ENA)": initials
        ]
    return added
