"""Labelled cases from outside sources, in veilbot's types, with a fixed split (pure).

A ``Case`` is one text with the values a source labels in it (``Label``) and the spans it says
are not personal (``Keep``: organizations, or a negative test whose expected result is no
finding). Every case carries where it came from (``Origin``: repository or package, commit or
version, file, test id) so a figure can be traced back to the line that made it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

TYPE_MAP = {
    "STREET_ADDRESS": "LOCATION",
    "ADDRESS": "LOCATION",
    "GPE": "LOCATION",
    "CITY": "LOCATION",
    "COUNTRY": "LOCATION",
    "STATE": "LOCATION",
    "ZIP_CODE": "LOCATION",
    "ZIPCODE": "LOCATION",
    "POSTAL_CODE": "LOCATION",
    "UK_POSTCODE": "LOCATION",
    "PO_BOX": "LOCATION",
    "NAME": "PERSON",
    "PER": "PERSON",
    "EMAIL": "EMAIL_ADDRESS",
    "PHONE": "PHONE_NUMBER",
    "PHONE_NUMBER_ZH": "PHONE_NUMBER",
    "PHONE_NUMBER_WITH_EXT": "PHONE_NUMBER",
    "SOCIAL_SECURITY_NUMBER": "US_SSN",
    "SSN": "US_SSN",
    "US_DRIVER_LICENSE": "DRIVER_LICENSE",
    "DRIVERS_LICENCE": "DRIVER_LICENSE",
    "BTC_ADDRESS": "CRYPTO",
    "IBAN": "IBAN_CODE",
    "IP": "IP_ADDRESS",
    "DATE": "DATE_TIME",
    "SKYPE": "USERNAME",
}
"""Source type names -> veilbot's; a name not listed is kept as it is."""

SCORED_TYPES = frozenset(
    {
        "PERSON",
        "LOCATION",
        "PHONE_NUMBER",
        "EMAIL_ADDRESS",
        "CREDIT_CARD",
        "IBAN_CODE",
        "US_SSN",
        "IP_ADDRESS",
        "CRYPTO",
        "DRIVER_LICENSE",
        "US_PASSPORT",
        "US_BANK_NUMBER",
        "DATE_OF_BIRTH",
        "USER",
        "USERNAME",
        "PASSWORD",
        "SECRET",
        "ID_NUMBER",
    }
)
"""The types veilbot's policy redacts: their values make the overall recall."""

MAIN_TYPES = (
    "PERSON",
    "LOCATION",
    "PHONE_NUMBER",
    "EMAIL_ADDRESS",
    "CREDIT_CARD",
    "US_SSN",
    "IP_ADDRESS",
)
"""The types the outside measurement named; each gets a line in every table."""

OFF_TYPES = frozenset({"URL", "DOMAIN_NAME", "DATE_TIME", "NRP", "ORGANIZATION"})
"""Types the policy turns off: left out of recall, and detections of them out of precision."""


def veilbot_type(name: str) -> str:
    """A source's type name in veilbot's vocabulary (unknown names kept, upper-cased)."""
    upper = name.upper().removesuffix("_RE")
    return TYPE_MAP.get(upper, upper)


@dataclass(frozen=True)
class Origin:
    """Where a case comes from: ``repo`` (or package), ``commit`` (or version), file, test."""

    repo: str
    commit: str
    file: str
    test: str


@dataclass(frozen=True)
class Label:
    """A labelled value: veilbot type, span (end exclusive), the text of the span.

    ``weak``: the source itself expects only a very low score for it (a bare nine-digit
    number as a passport); such values are counted on their own line, not in the overall.
    """

    type: str
    start: int
    end: int
    value: str
    weak: bool = False


@dataclass(frozen=True)
class Keep:
    """A span the source says is not personal data: a detection on it is over-redaction."""

    kind: str
    start: int
    end: int
    value: str


@dataclass(frozen=True)
class Case:
    """One labelled text.

    ``complete``: the types for which every value in the text is labelled (``None``: all
    types). Only detections of those types count against span precision. ``fixed_split``:
    the part of its corpus the source itself puts the text in (``train``, ``dev``, ``test``);
    ``None`` for sources without their own split.
    """

    source: str
    id: str
    origin: Origin
    text: str
    labels: tuple[Label, ...] = ()
    keeps: tuple[Keep, ...] = ()
    platform: str = "console"
    complete: frozenset[str] | None = None
    tags: tuple[str, ...] = field(default=())
    fixed_split: str | None = None

    @property
    def split(self) -> str:
        """The source's own split if it has one, else ``dev`` or ``test`` by the case id.

        ``train`` cases are what veilbot's entity model learns from: never scored, never shown.
        """
        return self.fixed_split or split_of(self.id)


def split_of(case_id: str) -> str:
    """The split of a case id: a hash, so it never changes and needs no list kept anywhere."""
    digest = hashlib.sha256(case_id.encode("utf-8")).digest()
    return "dev" if digest[0] % 2 == 0 else "test"


def label(kind: str, text: str, start: int, end: int, *, weak: bool = False) -> Label:
    """A ``Label`` of a source type name over ``text[start:end]`` (whitespace trimmed)."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return Label(veilbot_type(kind), start, end, text[start:end], weak)


def keep(kind: str, text: str, start: int, end: int) -> Keep:
    """A ``Keep`` over ``text[start:end]``."""
    return Keep(kind, start, end, text[start:end])


def merge_labels(labels: list[Label]) -> tuple[Label, ...]:
    """Distinct labels in reading order; one inside another of the same type is dropped.

    A weak label that another source configuration gives as a normal one becomes normal.
    """
    best: dict[tuple[str, int, int], Label] = {}
    for item in labels:
        key = (item.type, item.start, item.end)
        if key not in best or best[key].weak and not item.weak:
            best[key] = item
    kept = [
        item
        for item in best.values()
        if not any(
            o is not item
            and o.type == item.type
            and o.start <= item.start
            and item.end <= o.end
            and (o.end - o.start) > (item.end - item.start)
            for o in best.values()
        )
    ]
    return tuple(sorted(kept, key=lambda i: (i.start, i.end, i.type)))
