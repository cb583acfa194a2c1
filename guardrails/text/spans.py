"""Spans: one detected value (``Detection``) and how overlapping spans are resolved.

A leaf module: detection, precision, the guardrail and the workers all speak in these.
Detection merges overlaps recall first (``merge_overlaps``): a validated finding owns its
characters, and what another finding covers beyond it is kept as its own detection, so two
recognizers that disagree on where a value ends never expose the difference.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol, TypeVar

VALIDATED_TYPES = frozenset(
    {"CREDIT_CARD", "IBAN_CODE", "PHONE_NUMBER", "EMAIL_ADDRESS", "US_SSN", "IP_ADDRESS",
     "CRYPTO", "UK_NHS", "US_ITIN",
     # national identifiers with a check digit, looked for in their language only
     "DE_TAX_ID", "DE_ID_CARD", "DE_SOCIAL_SECURITY", "DE_HEALTH_INSURANCE", "FR_NIR",
     "FR_TAX_ID", "NL_BSN", "PT_NIF", "PT_CC", "PT_SOCIAL_SECURITY", "ES_NIF", "ES_NIE",
     "ES_SOCIAL_SECURITY", "IT_FISCAL_CODE", "PL_PESEL", "PL_ID_CARD"}
)  # fmt: skip
"""Types found by a checksum, libphonenumber or a grammar: they win every overlap."""
_EDGE = " \t\n*_~()[]{}\"'“”‘’<>.,:;!?|-–—"


@dataclass(frozen=True, slots=True)
class Detection:
    """One value to redact: its type and its span in the original text (end exclusive).

    ``parts``: for a person, the name tokens a later mention may use alone, as the detector
    judged them (``guardrails.vault.linking.name_parts``); ``None``: judged from the value.
    """

    type: str
    start: int
    end: int
    score: float = 1.0
    parts: tuple[str, ...] | None = None


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
    kept = _Claims()
    chosen: list[_S] = []
    for span in ranked:
        if kept.free(span.start, span.end) == [(span.start, span.end)]:
            kept.claim(span.start, span.end)
            chosen.append(span)
    return sorted(chosen, key=lambda s: s.start)


def merge_overlaps(spans: Sequence[Detection], text: str) -> list[Detection]:
    """Non-overlapping detections that together cover everything ``spans`` cover.

    Validated types first, then higher score, then longer, claim their characters; each
    other span keeps the parts nobody claimed (trimmed of blanks and punctuation, at least
    two letters or digits). In reading order.
    """
    ranked = sorted(
        spans, key=lambda s: (s.type not in VALIDATED_TYPES, -s.score, s.start - s.end, s.start)
    )
    claims = _Claims()
    kept: list[Detection] = []
    for span in ranked:
        pieces = claims.free(span.start, span.end)
        if pieces == [(span.start, span.end)]:
            claims.claim(span.start, span.end)
            kept.append(span)  # whole: markup and all
            continue
        for start, end in pieces:
            while start < end and text[start] in _EDGE:
                start += 1
            while end > start and text[end - 1] in _EDGE:
                end -= 1
            if sum(c.isalnum() for c in text[start:end]) >= 2:
                claims.claim(start, end)
                kept.append(replace(span, start=start, end=end))
    return sorted(kept, key=lambda s: s.start)


class _Claims:
    """Disjoint claimed ranges, sorted: what is free in a range costs a search, not a scan."""

    def __init__(self) -> None:
        self._starts: list[int] = []
        self._ends: list[int] = []

    def free(self, start: int, end: int) -> list[tuple[int, int]]:
        """The parts of ``[start, end)`` no claim covers, in order."""
        pieces: list[tuple[int, int]] = []
        at = start
        i = bisect.bisect_right(self._ends, start)
        while i < len(self._starts) and self._starts[i] < end:
            if self._starts[i] > at:
                pieces.append((at, self._starts[i]))
            at = max(at, self._ends[i])
            i += 1
        if at < end:
            pieces.append((at, end))
        return pieces

    def claim(self, start: int, end: int) -> None:
        """Claim ``[start, end)``, which overlaps no claim."""
        i = bisect.bisect_left(self._starts, start)
        self._starts.insert(i, start)
        self._ends.insert(i, end)


class Ranges:
    """Ranges, overlapping or not, that say in a search whether a span overlaps one of them."""

    def __init__(self, ranges: Iterable[tuple[int, int]]) -> None:
        ordered = sorted(ranges)
        self._starts = [start for start, _ in ordered]
        self._reach = list(itertools.accumulate((end for _, end in ordered), max))

    def overlaps(self, start: int, end: int) -> bool:
        """Whether ``[start, end)`` overlaps any of the ranges."""
        i = bisect.bisect_left(self._starts, end)  # the ranges that begin before ``end``
        return i > 0 and self._reach[i - 1] > start


def by_range(
    spans: Sequence[Detection], ranges: Sequence[tuple[int, int]]
) -> list[list[Detection]]:
    """For each of disjoint ``ranges``, the spans that overlap it, in the order of ``spans``."""
    order = sorted(range(len(ranges)), key=lambda i: ranges[i])
    starts = [ranges[i][0] for i in order]
    ends = [ranges[i][1] for i in order]
    groups: list[list[Detection]] = [[] for _ in ranges]
    for span in spans:
        i = bisect.bisect_right(ends, span.start)
        while i < len(order) and starts[i] < span.end:
            groups[order[i]].append(span)
            i += 1
    return groups
