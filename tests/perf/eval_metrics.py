"""Scoring of redacted corpus messages: leaks, partial leaks and over-redaction (pure).

A labelled value *leaks* when it reaches the model verbatim or lightly normalized: the same
text up to case, spacing and invisible characters; the same letters and digits without
punctuation (values of 6+ such characters); or the same digits (values of 7+ digits) inside
one number of the redacted text. Placeholders (``<PASSWORD_1>``, Presidio's ``<PERSON>``) are
not read as text: the value "password" does not leak through ``<PASSWORD_1>``. It *partly
leaks* when it does not leak but part of its span survives redaction: a word of 4+ letters or
a run of 4+ digits (a surname, the last digits).
A harmless token is *over-redacted* when a detection overlaps it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

INVISIBLE = re.compile(r"[\u200b-\u200d\u2060\ufeff]")
NUMBER_RE = re.compile(r"\d[\d \t\n.\-()/+]*\d")
PART_RE = re.compile(r"[^\W\d_]{4,}|\d{4,}")
PLACEHOLDER_RE = re.compile(r"<[A-Z][A-Z0-9_]*>")


def _fold(text: str) -> str:
    return " ".join(INVISIBLE.sub("", text).casefold().split())


def _alnum(text: str) -> str:
    return re.sub(r"[\W_]", "", INVISIBLE.sub("", text).casefold())


def _digits(text: str) -> str:
    return re.sub(r"\D", "", text)


def leaks(value: str, sent: str) -> bool:
    """Whether ``value`` reaches the model in ``sent`` verbatim or lightly normalized."""
    sent = PLACEHOLDER_RE.sub(" ", sent)
    folded = _fold(value)
    if folded and re.search(rf"(?<!\w){re.escape(folded)}(?!\w)", _fold(sent)):
        return True
    compact = _alnum(value)
    if len(compact) >= 6 and compact in _alnum(sent):
        return True
    digits = _digits(value)
    return len(digits) >= 7 and any(digits in _digits(n) for n in NUMBER_RE.findall(sent))


def uncovered(start: int, end: int, covered: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """The parts of ``[start, end)`` that no covered range overlaps."""
    parts, position = [], start
    for c_start, c_end in sorted(covered):
        if c_end <= position or c_start >= end:
            continue
        if c_start > position:
            parts.append((position, c_start))
        position = max(position, c_end)
    if position < end:
        parts.append((position, end))
    return parts


def partly_leaks(text: str, start: int, end: int, covered: Sequence[tuple[int, int]]) -> bool:
    """Whether a word of 4+ letters or 4+ digits of the span survives redaction."""
    rest = uncovered(start, end, covered)
    if rest == [(start, end)]:
        return False  # nothing of it was redacted: that is a full leak, not a partial one
    return any(PART_RE.search(INVISIBLE.sub("", text[a:b])) for a, b in rest)


@dataclass
class Tally:
    """Counts per group (overall, per type, per platform, per hard-case tag)."""

    total: Counter[str] = field(default_factory=Counter)
    hits: Counter[str] = field(default_factory=Counter)

    def add(self, groups: Iterable[str], hit: bool) -> None:
        """Count one item in each group."""
        for group in groups:
            self.total[group] += 1
            self.hits[group] += int(hit)

    def rate(self, group: str) -> float:
        """Share of hits in a group (0 when empty)."""
        return self.hits[group] / self.total[group] if self.total[group] else 0.0


@dataclass
class CorpusScore:
    """Leak, partial-leak and over-redaction tallies of a corpus run."""

    leak: Tally = field(default_factory=Tally)
    partial: Tally = field(default_factory=Tally)
    over: Tally = field(default_factory=Tally)

    def add_message(
        self, message: dict[str, Any], sent: str, covered: list[tuple[int, int]]
    ) -> None:
        """Score one message given the redacted text and the original ranges it replaced."""
        platform = message["platform"]
        for item in message["pii"]:
            groups = ["all", f"type:{item['type']}", f"platform:{platform}"]
            groups += [f"hard:{tag}" for tag in message["hard"]]
            leaked = leaks(item["value"], sent) or not any(
                s < item["end"] and item["start"] < e for s, e in covered
            )
            self.leak.add(groups, leaked)
            partial = not leaked and partly_leaks(
                message["text"], item["start"], item["end"], covered
            )
            self.partial.add(groups, partial)
        for item in message["keep"]:
            hit = any(s < item["end"] and item["start"] < e for s, e in covered)
            self.over.add(["all", f"kind:{item['kind']}", f"platform:{platform}"], hit)
