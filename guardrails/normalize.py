"""Platform markup normalized for analysis, with a map back to the original offsets.

Presidio reads ``Normalized.text``: readable text without Slack/Discord markup, HTML escapes
or invisible characters. Every character of it remembers the span of the original text it came
from, so a detection maps back onto the user's own text (``Normalized.original``) and the
redaction keeps the user's formatting byte for byte.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bot.types import Platform

# Zero-width and other invisible format characters, C0/C1 controls except tab and newline.
INVISIBLE_RE = re.compile(
    "[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\u00ad\x00-\x08\x0b-\x1f\x7f-\x9f]"
)


@dataclass
class Normalized:
    """Analysis text plus, per character, the original span it stands for.

    Attributes:
        text: what the analyzer reads.
        starts: for each character of ``text``, where its original span starts.
        ends: for each character of ``text``, where its original span ends.
    """

    text: str = ""
    starts: list[int] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)

    def original(self, start: int, end: int) -> tuple[int, int]:
        """The original span of the analysis span ``[start, end)`` (``end > start``)."""
        return self.starts[start], self.ends[end - 1]


class _Builder:
    """Appends analysis text piece by piece, recording where each piece came from."""

    def __init__(self) -> None:
        self.pieces: list[str] = []
        self.starts: list[int] = []
        self.ends: list[int] = []

    def copy(self, source: str, start: int, end: int) -> None:
        """Copy ``source[start:end]`` as is, minus invisible characters."""
        for i in range(start, end):
            if not INVISIBLE_RE.match(source, i):
                self.pieces.append(source[i])
                self.starts.append(i)
                self.ends.append(i + 1)

    def stand_in(self, text: str, start: int, end: int) -> None:
        """Write ``text`` for the original ``[start, end)``: each character maps to all of it."""
        self.pieces.append(text)
        self.starts.extend([start] * len(text))
        self.ends.extend([end] * len(text))

    def build(self) -> Normalized:
        return Normalized("".join(self.pieces), self.starts, self.ends)


def normalize(text: str, platform: Platform) -> Normalized:
    """The analysis form of a message written on ``platform``."""
    builder = _Builder()
    builder.copy(text, 0, len(text))
    return builder.build()
