"""The placeholder grammar and the streaming restorer.

A placeholder is ``<TYPE_n>``: ``TYPE`` an entity type (``PERSON``, ``EMAIL_ADDRESS``) and ``n``
its number within the thread, from 1. Models do not always copy placeholders verbatim, so the
reading side is tolerant (any case, spaces inside the brackets). Everything that knows the
grammar lives here: ``PLACEHOLDER_RE`` and ``_PARTIAL_RE`` must change together.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Final

from bot.types import Restoration

TYPE_RE: Final = re.compile(r"[A-Z][A-Z0-9_]{0,39}")
"""A well-formed entity type, as the vault stores it."""

PLACEHOLDER_RE: Final = re.compile(r"< {0,3}([A-Za-z][A-Za-z0-9_]{0,39})_(\d{1,6}) {0,3}>")
"""A placeholder as a model may write it; groups are the type and the number."""

_PARTIAL_RE: Final = re.compile(r"< {0,3}(?:[A-Za-z][A-Za-z0-9_]{0,46} {0,3})?")
"""What a stream may end with while a placeholder is still being written."""

_MAX_PARTIAL: Final = 64  # longer than any partial _PARTIAL_RE accepts
NEUTRAL: Final = "[redacted]"
"""Shown instead of a placeholder the thread never issued."""


def format_placeholder(entity_type: str, number: int) -> str:
    """The canonical placeholder of the ``number``-th value of a type.

    Raises:
        ValueError: the type is not ``[A-Z][A-Z0-9_]*`` or the number is below 1.
    """
    if not TYPE_RE.fullmatch(entity_type) or number < 1:
        raise ValueError("malformed placeholder parts")
    return f"<{entity_type}_{number}>"


def canonical(match: re.Match[str]) -> str:
    """The canonical form (``<PERSON_1>``) of a tolerated match (``< person_01 >``)."""
    return f"<{match.group(1).upper()}_{int(match.group(2))}>"


def placeholder_type(placeholder: str) -> str:
    """The entity type of a canonical placeholder (``<EMAIL_ADDRESS_2>`` -> ``EMAIL_ADDRESS``)."""
    match = PLACEHOLDER_RE.fullmatch(placeholder)
    if match is None:
        raise ValueError("not a placeholder")
    return match.group(1).upper()


def find_placeholders(text: str) -> Iterator[re.Match[str]]:
    """Every placeholder-shaped span of a text, in reading order."""
    return PLACEHOLDER_RE.finditer(text)


def _partial_start(buffer: str) -> int:
    """Where a placeholder that is still being written begins, or ``len(buffer)``."""
    start = buffer.rfind("<", max(0, len(buffer) - _MAX_PARTIAL))
    if start >= 0 and _PARTIAL_RE.fullmatch(buffer, start):
        return start
    return len(buffer)


class PlaceholderRestorer:
    """Restores placeholders in a streamed answer from one thread's values.

    Implements ``bot.ports.StreamRestorer``. ``feed`` holds back only a tail that could still
    become a placeholder, so a placeholder is never shown half-written, and the concatenation
    of everything ``feed`` returned equals ``finish().text``, whatever the delta boundaries.
    Placeholders the thread never issued are shown as ``[redacted]`` and counted; they are
    never filled from anywhere else.

    Args:
        values: canonical placeholder (``<PERSON_1>``) to the value it stands for.
    """

    def __init__(self, values: Mapping[str, str]) -> None:
        self._values = dict(values)
        self._pending = ""
        self._shown: list[str] = []
        self._unknown = 0

    def feed(self, delta: str) -> str:
        """Accept a delta; return what can be shown now (never half a placeholder)."""
        buffer = self._pending + delta
        cut = _partial_start(buffer)
        self._pending = buffer[cut:]
        return self._emit(buffer[:cut])

    def finish(self) -> Restoration:
        """Flush what was held back; return the whole restored answer and its counters."""
        self._emit(self._pending)
        self._pending = ""
        return Restoration(text="".join(self._shown), unknown_placeholders=self._unknown)

    def restore(self, text: str) -> Restoration:
        """Restore a whole answer at once (same result as ``feed`` + ``finish``)."""
        self.feed(text)
        return self.finish()

    def _emit(self, text: str) -> str:
        out = PLACEHOLDER_RE.sub(self._replace, text) if text else ""
        self._shown.append(out)
        return out

    def _replace(self, match: re.Match[str]) -> str:
        value = self._values.get(canonical(match))
        if value is None:
            self._unknown += 1
            return NEUTRAL
        return value
