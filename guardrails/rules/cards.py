r"""Card numbers: 13 to 19 digits with a card's IIN that pass Luhn, in any grouping.

A card may be broken across lines ("4111 1111\n1111 1111"), so a candidate runs over line
breaks; but cards are also listed one per line, under or over other figures. A candidate
whose first line is a card on its own ends at that line ("3782 822463 10005\n4111 …"), and
one whose next line starts a card on its own line gives way to it ("+44 20 7946 0958\n4111
1111 1111 1111"): a card never runs into the value on the next line, nor loses its first
group to the line before. Otherwise the longest run that passes is the card, trying the
candidate without its last groups in turn (a card glued to a figure after it).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

SCORE = 0.95

_SEP = r"(?:[ .\-]|[ \t]*\n[ \t]*)"
"""Between digit groups of a card: a space, dot or hyphen, or a line break."""
CANDIDATE = re.compile(rf"(?<![\w.\-+/])\d(?:{_SEP}?\d){{12,18}}(?!\w)")
"""13 to 19 digits with a card's separators, not glued to a word or another figure."""
_BREAK = re.compile(r"[ \t]*\n[ \t]*")
_CUT = " .-/\n\t"


def luhn(value: str, *, minimum: int = 13) -> bool:
    """Whether the digits of ``value`` form a card number (13-19 digits, Luhn, known IIN).

    A leading 1 is an airline card (UATP, ISO/IEC 7812 industry 1: always 15 digits) or JCB's
    1800; other runs starting with 1 are ids and millisecond timestamps, not cards.
    """
    digits = [int(c) for c in value if c.isdigit()]
    if not minimum <= len(digits) <= 19:
        return False
    uatp = digits[0] == 1 and len(digits) == 15
    if digits[0] not in (2, 3, 4, 5, 6) and digits[:4] != [1, 8, 0, 0] and not uatp:
        return False
    total = sum(digits[-1::-2]) + sum(sum(divmod(2 * d, 10)) for d in digits[-2::-2])
    return total % 10 == 0


def find(text: str) -> Iterator[tuple[int, int, float]]:
    """``(start, end, score)`` of every card number in ``text``."""
    position = 0
    while (match := CANDIDATE.search(text, position)) is not None:
        start, end = match.span()
        brk = _BREAK.search(text, start, end)
        card = _card(text, start, end, brk)
        if card is not None:
            yield start, card, SCORE
            position = card
        else:  # the next line may hold a card of its own: search again from there
            position = brk.end() if brk is not None else end


def _card(text: str, start: int, end: int, brk: re.Match[str] | None) -> int | None:
    """Where the card that starts a candidate ends, or ``None`` when it starts none."""
    if brk is not None:
        if luhn(text[start : brk.start()]):
            return brk.start()  # a card on its own line: the next line is another value
        if _own_line_card(text, brk.end()):
            return None  # the card is the next line's; this line is some other figure
    return next((cut for cut in _cuts(text, start, end) if luhn(text[start:cut])), None)


def _own_line_card(text: str, start: int) -> bool:
    """Whether a card begins at ``start`` and ends within its line."""
    match = CANDIDATE.match(text, start)
    if match is None:
        return False
    brk = _BREAK.search(text, start, match.end())
    line_end = brk.start() if brk is not None else match.end()
    return any(luhn(text[start:cut]) for cut in _cuts(text, start, line_end))


def _cuts(text: str, start: int, end: int) -> Iterator[int]:
    """``end``, then each earlier end of a digit group, longest first."""
    yield end
    for i in range(end - 1, start, -1):
        if text[i] in _CUT and text[i - 1] not in _CUT:
            yield i
