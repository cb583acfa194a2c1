"""Geographic coordinates: a pin says where someone is as exactly as a street address does.

Typed ``LOCATION``. Three notations:

- degrees, minutes and seconds with hemispheres (``40°42'46"N 74°0'21"W``);
- decimal degrees with hemispheres or degree signs (``52.5200° N, 13.4050° E``);
- each value after its label (``lat -33.8688, long 151.2093``);
- a bare decimal pair (``52.5200, 13.4050``, ``@52.52,13.405`` in a map link) with a word
  that names a position shortly before or after it (coordinates, GPS, lat/long, location,
  pin, map, where someone lives), with three or more decimals on each: a pair of numbers
  alone is a figure in a table as often.

Each value must be a latitude and a longitude (at most 90 and 180 degrees).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

SCORE = 0.85

_DMS_PART = r"\d{1,3}\s?°\s?\d{1,2}\s?['′’]\s?(?:\d{1,2}(?:[.,]\d+)?\s?(?:[\"″”]|'')\s?)?"
_DMS = re.compile(rf"(?<![\w.])(?P<a>{_DMS_PART})(?P<h>[NS])\b[,;]?\s?(?P<b>{_DMS_PART})[EW]\b")
_DECIMAL_HEMISPHERE = re.compile(
    r"(?<![\w.\-])(?P<a>\d{1,2}(?:\.\d+)?)\s?°?\s?(?P<h>[NS])\b[,;]?\s?"
    r"(?P<b>\d{1,3}(?:\.\d+)?)\s?°?\s?[EW]\b"
)
_DECIMAL_DEGREES = re.compile(
    r"(?<![\w.\-])(?P<a>[-+−]?\d{1,2}\.\d+)\s?°[,;]?\s?(?P<b>[-+−]?\d{1,3}\.\d+)\s?°"
)
_PAIR = re.compile(
    r"(?<![\w.\-])(?P<a>[-+−]?\d{1,2}\.\d{3,})\s?,\s?(?P<b>[-+−]?\d{1,3}\.\d{3,})(?![\w.]|,\d+\.)"
)
_LABELLED = re.compile(
    r"\b(?i:lat(?:itude)?)[\"']?\s?[:=]?\s?(?P<a>[-+−]?\d{1,2}\.\d{2,})°?[\"']?[\s,;&\"']{0,4}"
    r"(?i:lon(?:g|gitude)?|lng)[\"']?\s?[:=]?\s?(?P<b>[-+−]?\d{1,3}\.\d{2,})°?"
)
"""Each value after its own label: ``lat -33.8688, long 151.2093``, ``"latitude": 52.52,
"longitude": 13.405``, ``latitude=52.52&longitude=13.40``: each value is one, the labels
stay outside."""
_POSITION_WORD = re.compile(
    r"\b(?i:coord\w*|gps|lat(?:itude)?|lon(?:g|gitude)?|lng|location|located|position|pin|"
    r"maps?|geo\w*|where|here|address|live[sd]?|living)\b"
)
_WORD_BEFORE, _WORD_AFTER = 40, 24
"""How far before and after a bare pair a word for a position still names it."""


_ANY = re.compile(r"\d\.\d\d|°")
"""What every notation holds: a decimal's point between digits, or a degree sign."""
_BEFORE, _AFTER = 48, 64
"""How far a notation reaches before and after the point or degree sign it holds."""


def find(text: str) -> Iterator[tuple[int, int, float]]:
    """``(start, end, score)`` of each coordinate pair in ``text``.

    The notations are read only around a decimal point or a degree sign (``_ANY``), in
    windows that never overlap: the cost follows the text's decimals, not its length.
    """
    for a, b in _windows(text):
        for pattern in (_DMS, _DECIMAL_HEMISPHERE, _DECIMAL_DEGREES):
            for match in pattern.finditer(text, a, b):
                if _on_earth(match):
                    yield match.start(), match.end(), SCORE
        for match in _LABELLED.finditer(text, a, b):
            if _on_earth(match):
                yield match.start("a"), match.end("a"), SCORE
                yield match.start("b"), match.end("b"), SCORE
        for match in _PAIR.finditer(text, a, b):
            near = text[max(0, match.start() - _WORD_BEFORE) : match.end() + _WORD_AFTER]
            if _on_earth(match) and _POSITION_WORD.search(near) is not None:
                yield match.start(), match.end(), SCORE


def _windows(text: str) -> Iterator[tuple[int, int]]:
    """The stretches of ``text`` around its decimal points and degree signs, merged."""
    start = end = -1
    for hit in _ANY.finditer(text):
        a, b = max(0, hit.start() - _BEFORE), min(len(text), hit.end() + _AFTER)
        if a > end:
            if end > start:
                yield start, end
            start = a
        end = b
    if end > start:
        yield start, end


def _on_earth(match: re.Match[str]) -> bool:
    """Whether the pair's first value is a latitude and its second a longitude.

    Not both under one degree: that is the sea off West Africa, and two fractions ("0.912,
    0.877") are scores far more often.
    """
    lat, lon = abs(_degrees(match.group("a"))), abs(_degrees(match.group("b")))
    return lat <= 90 and lon <= 180 and (lat >= 1 or lon >= 1)


def _degrees(value: str) -> float:
    """The whole degrees a value starts with (its sign kept)."""
    number = re.match(r"[-+−]?\d+(?:\.\d+)?", value.strip())
    return float(number.group().replace("−", "-")) if number else 0.0
