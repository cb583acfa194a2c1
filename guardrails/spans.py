"""Spans: one detected value (``Detection``) and how overlapping spans are resolved.

A leaf module: detection, precision, the guardrail and the workers all speak in these.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar


@dataclass(frozen=True, slots=True)
class Detection:
    """One value to redact: its type and its span in the original text (end exclusive)."""

    type: str
    start: int
    end: int
    score: float = 1.0


class _Scored(Protocol):
    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...
    @property
    def score(self) -> float: ...


_S = TypeVar("_S", bound=_Scored)


def resolve_overlaps(spans: Sequence[_S]) -> list[_S]:
    """Keep the best of overlapping spans (higher score, then longer), in reading order."""
    ranked = sorted(spans, key=lambda s: (-s.score, -(s.end - s.start), s.start))
    kept: list[_S] = []
    for span in ranked:
        if all(span.end <= k.start or span.start >= k.end for k in kept):
            kept.append(span)
    return sorted(kept, key=lambda s: s.start)
