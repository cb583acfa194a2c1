"""Spans: one detected value (``Detection``) and how overlapping spans are resolved.

A leaf module: detection, precision, the guardrail and the workers all speak in these.
Detection merges overlaps recall first (``merge_overlaps``): a validated finding owns its
characters, and what another finding covers beyond it is kept as its own detection, so two
recognizers that disagree on where a value ends never expose the difference.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol, TypeVar

VALIDATED_TYPES = frozenset(
    {"CREDIT_CARD", "IBAN_CODE", "PHONE_NUMBER", "EMAIL_ADDRESS", "US_SSN", "IP_ADDRESS",
     "CRYPTO", "UK_NHS", "US_ITIN"}
)  # fmt: skip
"""Types found by a checksum, libphonenumber or a grammar: they win every overlap."""
_EDGE = " \t\n*_~()[]{}\"'“”‘’<>.,:;!?|-–—"


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


def merge_overlaps(spans: Sequence[Detection], text: str) -> list[Detection]:
    """Non-overlapping detections that together cover everything ``spans`` cover.

    Validated types first, then higher score, then longer, claim their characters; each
    other span keeps the parts nobody claimed (trimmed of blanks and punctuation, at least
    two letters or digits). In reading order.
    """
    ranked = sorted(
        spans, key=lambda s: (s.type not in VALIDATED_TYPES, -s.score, s.start - s.end, s.start)
    )
    kept: list[Detection] = []
    for span in ranked:
        pieces = _unclaimed(span.start, span.end, kept)
        if pieces == [(span.start, span.end)]:
            kept.append(span)  # whole: markup and all
            continue
        for start, end in pieces:
            while start < end and text[start] in _EDGE:
                start += 1
            while end > start and text[end - 1] in _EDGE:
                end -= 1
            if sum(c.isalnum() for c in text[start:end]) >= 2:
                kept.append(replace(span, start=start, end=end))
    return sorted(kept, key=lambda s: s.start)


def _unclaimed(start: int, end: int, kept: Sequence[Detection]) -> list[tuple[int, int]]:
    pieces = [(start, end)]
    for k in kept:
        pieces = [
            part
            for a, b in pieces
            for part in ((a, min(b, k.start)), (max(a, k.end), b))
            if part[1] > part[0]
        ]
    return pieces
