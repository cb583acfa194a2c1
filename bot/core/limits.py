"""Rate limits as the core sees them: what a limit is, what a throttled turn is told."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Limit:
    """``turns`` per ``per_seconds`` for each ``kind`` (``user``: a person, ``channel``)."""

    kind: str
    turns: int
    per_seconds: float


@dataclass(frozen=True, slots=True)
class Throttled:
    """A turn over a limit: which one, and in how many seconds the next turn is allowed."""

    limit: Limit
    retry_after: float


def throttled_reply(throttled: Throttled) -> str:
    """The over-limit answer: which limit, and when to try again."""
    limit = throttled.limit
    who = "you" if limit.kind == "user" else "this channel"
    return (
        f"You've reached the limit of {limit.turns} {_plural(limit.turns, 'message')} per "
        f"{_span(limit.per_seconds)} for {who}. Please try again in "
        f"{_span(throttled.retry_after)}."
    )


def _span(seconds: float) -> str:
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            count = math.ceil(seconds / size - 1e-9)
            return f"{count} {_plural(count, unit)}" if count != 1 else f"1 {unit}"
    count = max(1, math.ceil(seconds))
    return f"{count} {_plural(count, 'second')}"


def _plural(count: int, word: str) -> str:
    return word if count == 1 else f"{word}s"
