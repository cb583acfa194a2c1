"""A file redacted into a file of its own kind: the service's side of the two phases.

A reader process lists the file's units (``bot.files.out.units.listed``); they go through the
given redaction here in batches of ``BATCH`` (one NER pass each), each under its heading, with
one numbering for the whole file (the caller's ``redact_texts``), and equal units under equal
headings are redacted once. A PDF's scanned pages are drawn by a reader and each picture
goes through the image path (the caller's ``read_scan``: OCR, values and unread text
painted, heads hidden). A second reader process writes the file with the placeholders in
place and the painted pages. The readers share the file's one deadline, and its units and
OCR'd text its one text limit, as a turn's reading does.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from bot.core.types import Redaction
from bot.files.confine import Deadline, Readers
from bot.files.kinds import FileKind
from bot.files.out.splice import Edit
from bot.files.out.units import Form, Listing, listed, written

if TYPE_CHECKING:
    from bot.files.images import RedactedImage

BATCH = 64
"""Units redacted together: one NER pass for all of them costs a third of one each."""


class RedactTexts(Protocol):
    """The redaction of units' texts under their headings, in order, with one numbering."""

    def __call__(self, units: Sequence[tuple[str, str | None]]) -> Awaitable[list[Redaction]]:
        """The redaction of each ``(text, heading)``."""
        ...


class ReadScan(Protocol):
    """A scanned page's picture (PNG) read, redacted and painted by the image path."""

    def __call__(self, picture: bytes) -> Awaitable[RedactedImage]:
        """The page as the image path leaves it."""
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
        scans: a PDF's scanned pages, read by OCR.
        withheld: those of them written blank (most of the page would be painted).
        faces: heads hidden on them.
    """

    kind: FileKind
    form: Form
    data: bytes
    pages: int
    units: int
    counts: dict[str, int]
    scans: int = 0
    withheld: int = 0
    faces: int = 0


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
    read_scan: ReadScan | None = None,
) -> RedactedFile:
    """The listed file written back with each unit's values replaced (``listing.form`` set).

    ``read_scan`` reads a PDF's scanned pages; a listing with some needs it.

    Raises:
        FileRejected: its writer ran past the file's time or memory, or failed; its scanned
            pages past the pixel or text limit, or unreadable by OCR.
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
    scans: dict[int, bytes | None] = {}
    faces = 0
    if listing.scans:
        if read_scan is None:
            raise ValueError("a PDF with scanned pages needs read_scan")
        from bot.files.out.pdf import page_pictures

        spent = sum(len(unit.text) for unit in listing.units)
        pictures = await readers.run(
            deadline, page_pictures, data, position, readers.limits, listing.scans
        )
        for number, picture in zip(listing.scans, pictures, strict=True):
            read = await read_scan(picture)
            spent += len(read.redaction.text)
            readers.limits.check_chars(position, spent)
            counts.update(read.redaction.counts())
            scans[number] = read.image.data if read.image is not None else None
            faces += read.faces
    out = (
        await readers.run(
            deadline, written, data, position, readers.limits, listing.form, edits, scans
        )
        if edits or scans
        else data
    )
    return RedactedFile(
        listing.kind,
        listing.form,
        out,
        listing.pages,
        len(listing.units),
        dict(counts),
        len(scans),
        sum(1 for painted in scans.values() if painted is None),
        faces,
    )
