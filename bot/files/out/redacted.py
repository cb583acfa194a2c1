"""A file redacted into a file of its own kind: the service's side of the two phases.

A reader process lists the file's units (``bot.files.out.units.listed``); they go through the
given redaction here in batches of ``BATCH`` (one NER pass each), each under its heading, with
one numbering for the whole file (the caller's ``redact_texts``), and equal units under equal
headings are redacted once; a second reader process writes the file with the placeholders in
place. The readers share the file's
one deadline, and its units its one text limit, as a turn's reading does.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from typing import Protocol

from bot.core.types import Redaction
from bot.files.confine import Deadline, Readers
from bot.files.kinds import FileKind
from bot.files.out.splice import Edit
from bot.files.out.units import Form, Listing, listed, written

BATCH = 64
"""Units redacted together: one NER pass for all of them costs a third of one each."""


class RedactTexts(Protocol):
    """The redaction of units' texts under their headings, in order, with one numbering."""

    def __call__(self, units: Sequence[tuple[str, str | None]]) -> Awaitable[list[Redaction]]:
        """The redaction of each ``(text, heading)``."""
        ...


@dataclass(frozen=True, slots=True)
class RedactedFile:
    """A file written back as its own kind with placeholders in place of its values.

    Attributes:
        kind: what the bytes are (``sniff``).
        form: how it was written back (``csv`` for a text table).
        data: the redacted file's bytes.
        pages: its pages (sheets, slides).
        units: the texts it was read in (paragraphs, cells, fields, properties).
        counts: entities found, by type.
    """

    kind: FileKind
    form: Form
    data: bytes
    pages: int
    units: int
    counts: dict[str, int]


async def list_units(
    data: bytes, position: int, suffix: str, readers: Readers, deadline: Deadline
) -> Listing:
    """What the file is and, for a kind written back as itself, its units (in a reader)."""
    return await readers.run(deadline, listed, data, position, readers.limits, suffix)


async def redact_units(
    data: bytes,
    position: int,
    listing: Listing,
    redact_texts: RedactTexts,
    readers: Readers,
    deadline: Deadline,
) -> RedactedFile:
    """The listed file written back with each unit's values replaced (``listing.form`` set).

    Raises:
        FileRejected: its writer ran past the file's time or memory, or failed.
        GuardrailError: detection could not run; nothing is written.
    """
    assert listing.form is not None  # noqa: S101  (the caller dispatches on it)
    keys = list(dict.fromkeys((u.text, u.context) for u in listing.units if u.text.strip()))
    done: dict[tuple[str, str | None], Redaction] = {}
    for start in range(0, len(keys), BATCH):
        batch = keys[start : start + BATCH]
        done.update(zip(batch, await redact_texts(batch), strict=True))
    edits: dict[int, tuple[Edit, ...]] = {}
    counts: Counter[str] = Counter()
    for number, unit in enumerate(listing.units):
        if not unit.text.strip():
            continue  # a blank page of a PDF
        redaction = done[(unit.text, unit.context)]
        counts.update(redaction.counts())
        if redaction.entities:
            edits[number] = tuple(
                (start, end, entity.placeholder)
                for (start, end), entity in zip(redaction.spans, redaction.entities, strict=True)
            )
    out = (
        await readers.run(deadline, written, data, position, readers.limits, listing.form, edits)
        if edits
        else data
    )
    return RedactedFile(
        listing.kind, listing.form, out, listing.pages, len(listing.units), dict(counts)
    )
