"""Repeats: a value found once in a message is hidden wherever else the message has it.

"Hakuba had given Hakuba his address", "early Yefremova" after "Faina D. Yefremova": the
models find a value in one context and miss it in the next. Every other occurrence of a
detected value (in any case), and of each capitalized word of a detected person's name
("Yefremova"), becomes a detection of the same type, outside markup that is never redacted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from guardrails.names import COMMON_WORDS
from guardrails.spans import Detection

_NAME_WORD = re.compile(r"[^\W\d_]{3,}(?:['’\-][^\W\d_]+)*")
_MIN_CHARS = 3


def repeats(
    found: Sequence[Detection], text: str, protected: Sequence[tuple[int, int]] = ()
) -> list[Detection]:
    """Detections for the other occurrences of what ``found`` holds."""
    taken = [(d.start, d.end) for d in found] + list(protected)
    out: list[Detection] = []
    for needle, model in _needles(found, text).items():
        pattern = re.compile(rf"(?<![\w@.]){re.escape(needle)}(?![\w@]|\.\w)", re.IGNORECASE)
        for match in pattern.finditer(text):
            span = (match.start(), match.end())
            if not any(span[0] < b and a < span[1] for a, b in taken):
                out.append(replace(model, start=span[0], end=span[1], score=model.score - 0.01))
                taken.append(span)
    return out


def _needles(found: Sequence[Detection], text: str) -> dict[str, Detection]:
    """What to look for: each detected value, and the words of each person's name."""
    needles: dict[str, Detection] = {}
    for d in found:
        value = text[d.start : d.end]
        if sum(c.isalnum() for c in value) >= _MIN_CHARS and "\n" not in value:
            needles.setdefault(value, d)
        if d.type != "PERSON" or " " not in value.strip():
            continue
        for word in _NAME_WORD.findall(value):
            if word[0].isupper() and word.casefold() not in COMMON_WORDS:
                needles.setdefault(word, d)
    return needles
