"""Driver's licence numbers: a licence word, maybe a US state, and the number's shape.

A licence number has no checksum, and on its own it looks like any order id or version, so
it is only ever read after a licence word: "driver's license", "driving licence", "DL#",
"DLN" (strong: any number with a digit), or "license"/"licence"/"DL" alone (weak: the number
must have the shape of a US state's licence). A state code or name before the licence word
or before the number ("IL driver's license K325-4313-6208", "license OH TJ009946") holds the
number to that state's published formats (``FORMATS``, after the states' DMV formats as
collected by AAMVA); without a state, a weak context needs a format of some state, a letter
or seven digits in it. Separators (spaces, hyphens) are read through; a number glued to the
next word is retried without its last group.

A British licence number (DVLA) needs no licence word: its 16 characters spell the holder's
surname (five letters, padded with 9), a birth date (decade, month, plus 50 for a woman, day,
year) and initials, then a digit and two check characters ("MORGA753116SM9IJ", often spaced
or with a two-digit issue number: "MORGA 753116 SM9IJ 01"). A valid month and day in that
shape is no order id.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

FORMATS: dict[str, tuple[str, ...]] = {
    "AL": (r"\d{1,8}",),
    "AK": (r"\d{1,7}",),
    "AZ": (r"[A-Z]\d{1,8}", r"[A-Z]{2}\d{2,5}", r"\d{9}"),
    "AR": (r"\d{4,9}",),
    "CA": (r"[A-Z]\d{7}",),
    "CO": (r"\d{9}", r"[A-Z]\d{3,6}", r"[A-Z]{2}\d{2,5}"),
    "CT": (r"\d{9}",),
    "DE": (r"\d{1,7}",),
    "DC": (r"\d{7}", r"\d{9}"),
    "FL": (r"[A-Z]\d{12}",),
    "GA": (r"\d{7,9}",),
    "HI": (r"[A-Z]\d{8}", r"\d{9}"),
    "ID": (r"[A-Z]{2}\d{6}[A-Z]", r"\d{9}"),
    "IL": (r"[A-Z]\d{11,12}",),
    "IN": (r"[A-Z]\d{9}", r"\d{9,10}"),
    "IA": (r"\d{9}", r"\d{3}[A-Z]{2}\d{4}"),
    "KS": (r"[A-Z]\d[A-Z]\d[A-Z]", r"[A-Z]\d{8}", r"\d{9}"),
    "KY": (r"[A-Z]\d{8,9}", r"\d{9}"),
    "LA": (r"\d{1,9}",),
    "ME": (r"\d{7,8}", r"\d{7}[A-Z]"),
    "MD": (r"[A-Z]\d{12}",),
    "MA": (r"[A-Z]\d{8}", r"\d{9}"),
    "MI": (r"[A-Z]\d{10}", r"[A-Z]\d{12}"),
    "MN": (r"[A-Z]\d{12}",),
    "MS": (r"\d{9}",),
    "MO": (r"[A-Z]\d{5,9}", r"[A-Z]\d{6}R", r"\d{8}[A-Z]{2}", r"\d{9}[A-Z]?"),
    "MT": (r"[A-Z]\d{8}", r"\d{9}", r"\d{13,14}"),
    "NE": (r"[A-Z]\d{6,8}",),
    "NV": (r"\d{9,10}", r"\d{12}", r"X\d{8}"),
    "NH": (r"\d{2}[A-Z]{3}\d{5}",),
    "NJ": (r"[A-Z]\d{14}",),
    "NM": (r"\d{8,9}",),
    "NY": (r"[A-Z]\d{7}", r"[A-Z]\d{18}", r"\d{8,9}", r"\d{16}", r"[A-Z]{8}"),
    "NC": (r"\d{1,12}",),
    "ND": (r"[A-Z]{3}\d{6}", r"\d{9}"),
    "OH": (r"[A-Z]\d{4,8}", r"[A-Z]{2}\d{3,7}", r"\d{8}"),
    "OK": (r"[A-Z]\d{9}", r"\d{9}"),
    "OR": (r"\d{1,9}", r"[A-Z]\d{6}"),
    "PA": (r"\d{8}",),
    "RI": (r"\d{7}", r"[A-Z]\d{6}"),
    "SC": (r"\d{5,11}",),
    "SD": (r"\d{6,10}", r"\d{12}"),
    "TN": (r"\d{7,9}",),
    "TX": (r"\d{7,8}",),
    "UT": (r"\d{4,10}",),
    "VT": (r"\d{8}", r"\d{7}A"),
    "VA": (r"[A-Z]\d{8,11}", r"\d{9}"),
    "WA": (r"(?=[A-Z*]{1,7}[A-Z0-9*]{5,11}$)[A-Z0-9*]{12}", r"WDL[A-Z0-9]{9}"),
    "WV": (r"\d{7}", r"[A-Z]{1,2}\d{5,6}"),
    "WI": (r"[A-Z]\d{13}",),
    "WY": (r"\d{9,10}",),
}
"""Each state's licence number formats, separators removed, upper case."""
_COMPILED = {state: re.compile("|".join(f"(?:{f})" for f in fs)) for state, fs in FORMATS.items()}
_ANY = re.compile("|".join(f"(?:{f})" for fs in FORMATS.values() for f in fs))

STATE_NAMES = {
    "alabama": "AL", "alaska": "AK", "arizona": "AZ", "arkansas": "AR", "california": "CA",
    "colorado": "CO", "connecticut": "CT", "delaware": "DE", "district of columbia": "DC",
    "florida": "FL", "georgia": "GA", "hawaii": "HI", "idaho": "ID", "illinois": "IL",
    "indiana": "IN", "iowa": "IA", "kansas": "KS", "kentucky": "KY", "louisiana": "LA",
    "maine": "ME", "maryland": "MD", "massachusetts": "MA", "michigan": "MI",
    "minnesota": "MN", "mississippi": "MS", "missouri": "MO", "montana": "MT",
    "nebraska": "NE", "nevada": "NV", "new hampshire": "NH", "new jersey": "NJ",
    "new mexico": "NM", "new york": "NY", "north carolina": "NC", "north dakota": "ND",
    "ohio": "OH", "oklahoma": "OK", "oregon": "OR", "pennsylvania": "PA",
    "rhode island": "RI", "south carolina": "SC", "south dakota": "SD", "tennessee": "TN",
    "texas": "TX", "utah": "UT", "vermont": "VT", "virginia": "VA", "washington": "WA",
    "west virginia": "WV", "wisconsin": "WI", "wyoming": "WY",
}  # fmt: skip
"""A state's name (lower case) -> its code."""

_STATE = (
    rf"(?:(?:{'|'.join(FORMATS)})(?![\w])"
    rf"|(?i:{'|'.join(sorted(STATE_NAMES, key=len, reverse=True))})(?![\w]))"
)
STATE_PREFIX = re.compile(rf"(?P<state>{_STATE})[ \t]*[:\-]?[ \t]+(?=\w)")
"""A state before a licence number ("NY 123 456 789")."""
_STRONG = (
    r"(?i:\bdriver'?s?[ \t]+licen[cs]es?|\bdriving[ \t]+licen[cs]es?"
    r"|\bdriver[ \t]+licen[cs]e|\bDLN\b|\bD\.L\.)"
)
_WEAK = r"(?:(?i:\blicen[cs]es?\b|\blic\b\.?)|\bDL\b|(?i:\bdl)(?=[ \t]*(?:#|no\b|num)))"
_FILLER = r"(?i:[ \t]*(?:\(|\)|no\.?|num(?:ber)?\.?|#|id|is|was|:|-)){0,3}"
PATTERN = re.compile(
    rf"(?:(?P<strong>{_STRONG})|{_WEAK}){_FILLER}[ \t]*"
    rf"(?:\(?(?P<after>{_STATE})\)?[ \t]*[:#\-]?[ \t]*)?"
    r"(?P<v>[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])| (?=\d)){3,24})(?![\w\-])"
)
"""A licence word, a state after it, and the number (checked by ``accepted``)."""
_BEFORE = re.compile(rf"(?<![\w])(?P<state>{_STATE})[ \t]+$")
"""A state right before the licence word ("IL driver's license", "Ohio DL")."""


UK_PATTERN = re.compile(
    r"(?<![\w\-])(?P<surname>[A-Z]{1,5}9{0,4}) ?(?P<birth>\d(?:0[1-9]|1[0-2]|5[1-9]|6[0-2])"
    r"(?:0[1-9]|[12]\d|3[01])\d) ?[A-Z][A-Z9]\d[A-Z0-9][A-Z](?: ?\d{2})?(?![\w\-])"
)
"""A DVLA licence number: surname, birth date, initials, digit, check characters, issue."""


def find_uk(text: str) -> Iterator[tuple[int, int, float]]:
    """``(start, end, score)`` of each British (DVLA) licence number in ``text``."""
    for match in UK_PATTERN.finditer(text):
        if len(match.group("surname")) == 5:
            yield match.start(), match.end(), 0.85


def find(text: str) -> Iterator[tuple[int, int, float]]:
    """``(start, end, score)`` of each licence number in ``text``."""
    for match in PATTERN.finditer(text):
        before = _BEFORE.search(text, max(0, match.start() - 24), match.start())
        state = state_code(before.group("state") if before else match.group("after"))
        start, end = match.span("v")
        for cut in _cuts(text, start, end):
            if accepted(text[start:cut], state, strong=match.group("strong") is not None):
                yield start, cut, 0.85
                break


def accepted(value: str, state: str | None, *, strong: bool) -> bool:
    """Whether ``value`` is a licence number after a strong or weak context (and a state)."""
    compact = re.sub(r"[ \-]", "", value).upper()
    if len(compact) < 4:
        return False
    if state is not None and _COMPILED[state].fullmatch(compact):
        return True
    digits = sum(c.isdigit() for c in compact)
    if strong:
        return digits > 0 and 5 <= len(compact) <= 20
    if not digits or _ANY.fullmatch(compact) is None:
        return False
    return state is None and (digits >= 7 or digits < len(compact))


def state_code(found: str | None) -> str | None:
    """The code of a state written as its code or its name ("IL", "Illinois"), if any."""
    if found is None:
        return None
    return found if found in FORMATS else STATE_NAMES.get(" ".join(found.lower().split()))


def _cuts(text: str, start: int, end: int) -> list[int]:
    """``end``, then each earlier separator (a number glued to the next word or figure)."""
    return [end, *(i for i in range(end - 1, start, -1) if text[i] in " -")]
