"""One file redacted offline: as the model would receive it, or written back as its own kind.

The file is read as a turn reads it (``bot.files.content``): text and documents, images and a
PDF's scanned pages by OCR, under the service's image policy (``VEILBOT_FILES_IMAGES``). The
placeholders are numbered across the whole file, so ``<PERSON_1>`` on a scanned page is the
``<PERSON_1>`` of the typed one.

Without an output path the redacted text is the result (stdout, or a JSON object's ``text``).
With one, the output is a file of the input's kind (``bot.files.out``): a docx, xlsx or pptx
with the values replaced where they stand, a CSV or TSV with the same fields, a PDF drawn
afresh with the values painted over (its scanned pages read by OCR and painted as an image
is); an image is the painted PNG (its text stays on stdout); other text, a PDF with scanned
pages where images are ``text-only``, and any file whose output path ends in ``.txt`` or
``.md`` (what the model would read) are written as text.
Text is never written to a path that names another kind: ``scan.pdf`` becomes
``scan.pdf.txt`` (``output_path``).
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from bot.app import Redactors
from bot.config.settings import Settings
from bot.core.errors import FileRejected
from bot.core.scopes import ImagePolicy
from bot.core.types import EntityRef, Redaction
from bot.files.confine import Deadline, Readers
from bot.files.content import RedactedContent, images_off, redact_content
from bot.files.kinds import IMAGE_KINDS, FileKind
from bot.files.out.redacted import list_units, redact_units
from guardrails.redact import Numbering, Redacted, Redactor

if TYPE_CHECKING:
    from bot.files.images import RedactedImage

TEXT_SUFFIXES = (".txt", ".md", ".text")
"""An output path ending so asks for the text the model would read, whatever the input."""


@dataclass(slots=True)
class FileDone:
    """What became of one file: never a value, only kinds, counts and paths.

    Attributes:
        kind: what the bytes are (``sniff``); ``None`` when they were never read.
        written_as: the output's kind: ``docx``, ``xlsx``, ``pptx``, ``csv``, ``tsv``,
            ``pdf``, ``text`` or ``png``; ``None`` when nothing was written.
        text: the redacted text, when that is the result and no path was given.
        counts: entities found, by type.
        pictures: a line on what became of the file's pictures, if it had any.
        faces: faces hidden (the whole head painted over).
        out: where the output was written.
    """

    kind: FileKind | None = None
    written_as: str | None = None
    text: str | None = None
    counts: Counter[str] = field(default_factory=Counter)
    pictures: str | None = None
    faces: int = 0
    out: Path | None = None


class Guard:
    """The guardrail's detection, loaded at the first text and shared by every file.

    ``languages``: those the files may be written in besides English (``--languages``): a
    text, or a document's texts together, is read with the entity model and rules of the
    language it is identified as (``bot.app.Redactors``).
    """

    def __init__(self, settings: Settings, languages: Sequence[str] = ()) -> None:
        self._redactors = Redactors(settings, languages)

    @property
    def redactor(self) -> Redactor:
        """The English redactor (spaCy loads here, once)."""
        return self._redactors.of("")

    def redact(
        self, numbering: Numbering, text: str, *, ocr: bool = False, context: str | None = None
    ) -> Redaction:
        """``text`` redacted with ``numbering`` (one file's), under ``context`` if any."""
        redactor = self._redactors.of(text)
        return _redaction(redactor.redact(text, "console", numbering, ocr=ocr, context=context))

    def redact_many(
        self, numbering: Numbering, units: Sequence[tuple[str, str | None]]
    ) -> list[Redaction]:
        """Each ``(text, heading)`` redacted with ``numbering``, one NER pass for them all.

        They are read in one language: the one their text together is identified as.
        """
        redactor = self._redactors.of("\n".join(text for text, _ in units))
        return [_redaction(r) for r in redactor.redact_many(units, "console", numbering)]


def _redaction(found: Redacted) -> Redaction:
    entities = tuple(EntityRef(e.type, e.placeholder) for e in found.entities)
    return Redaction(found.text, entities, tuple((e.start, e.end) for e in found.entities))


async def redact_one(
    settings: Settings,
    guard: Guard,
    readers: Readers,
    data: bytes,
    position: int,
    suffix: str,
    out: Path | None,
) -> tuple[FileDone, bytes | None]:
    """One file redacted: what became of it, and the bytes to write to ``out`` (if any).

    Raises:
        FileRejected: the file is empty, past a limit, of a kind not read, or unreadable.
        GuardrailError: detection could not run; nothing is written.
    """
    if not data:
        raise FileRejected("the file is empty; there is nothing to redact", reason="empty_file")
    readers.limits.check_sizes([len(data)], first=position)
    numbering = Numbering()

    async def redact_text(text: str, *, ocr: bool = False) -> Redaction:
        return guard.redact(numbering, text, ocr=ocr)

    async def redact_texts(units: Sequence[tuple[str, str | None]]) -> list[Redaction]:
        return guard.redact_many(numbering, units)

    if out is not None and out.suffix.lower() not in TEXT_SUFFIXES:
        deadline = Deadline(position, readers.limits.max_seconds)
        listing = await list_units(data, position, suffix, readers, deadline)
        if listing.scans and settings.files_images == "off":
            raise images_off(position, listing.kind)
        if listing.form is not None and (not listing.scans or settings.files_images == "redacted"):

            async def read_scan(picture: bytes) -> RedactedImage:
                from bot.files.images import redact_image

                async def redact_ocr(text: str) -> Redaction:
                    return await redact_text(text, ocr=True)

                return await redact_image(
                    picture, deadline, redact_ocr, readers=readers,
                    tesseract=settings.files_tesseract,
                )  # fmt: skip

            done = await redact_units(
                data, position, listing, redact_texts, readers, deadline, read_scan
            )
            written = FileDone(done.kind, done.form, counts=Counter(done.counts), faces=done.faces)
            if done.scans:
                written.pictures = _scans_done(done.scans, done.withheld)
            return written, done.data
    content = await redact_content(
        data,
        position,
        redact_text,
        limits=readers.limits,
        images=settings.files_images,
        tesseract=settings.files_tesseract,
        readers=readers,
    )
    return _text_done(content, settings.files_images, out)


def _text_done(
    content: RedactedContent, policy: ImagePolicy, out: Path | None
) -> tuple[FileDone, bytes | None]:
    """The text (and an image's painted PNG) of a file read as the model reads it."""
    done = FileDone(content.kind, counts=Counter(content.counts), faces=content.faces)
    data: bytes | None = None
    if content.kind in IMAGE_KINDS:
        done.text = content.text
        if out is not None and content.images:
            done.written_as, data = "png", content.images[0].data
    elif out is None:
        done.text = content.text
    else:
        done.written_as, data = "text", content.text.encode("utf-8")
    if content.pictures:
        done.pictures = _pictures_done(content, policy, out)
    return done, data


def _scans_done(scans: int, withheld: int) -> str:
    """One line on a PDF's scanned pages written back as painted pictures."""
    pages = f"{scans} scanned page{'s' if scans != 1 else ''}"
    kept = f"; {withheld} written blank (most of it would be painted over)" if withheld else ""
    return f"VEILBOT_FILES_IMAGES=redacted: {pages} read by OCR and painted into the PDF{kept}"


def _pictures_done(content: RedactedContent, policy: ImagePolicy, out: Path | None) -> str:
    """One line on what became of the file's pictures, naming the setting that decided it."""
    setting = f"VEILBOT_FILES_IMAGES={policy}"
    if policy == "text-only":
        return f"{setting}: only the text of the pictures, redacted; no image written"
    painted, read = len(content.images), content.pictures
    withheld = (
        f"; {read - painted} withheld (most of it would be painted over: text only)"
        if painted < read
        else ""
    )
    if content.kind in IMAGE_KINDS:
        done = f"wrote the painted image to {out}" if out and painted else "no image written"
        hint = " (--out PATH writes it)" if painted and out is None else ""
        return f"{setting}: {done}{hint}{withheld}"
    return (
        f"{setting}: {read} scanned-page picture{'s' if read != 1 else ''} read by OCR; "
        f"{painted} would go to the model painted over (not written){withheld}"
    )


def output_path(out: Path, done: FileDone) -> Path:
    """Where ``done`` is written: ``out``, or ``out`` and ``.txt`` for text of another kind.

    A PDF's text never goes to ``report.pdf``: it goes to ``report.pdf.txt``.
    """
    named = out.suffix.lower() not in (*TEXT_SUFFIXES, "")
    if done.written_as == "text" and done.kind != "text" and named:
        return out.with_name(out.name + ".txt")
    return out


def refusal(exc: FileRejected | Exception) -> str:
    """A refusal's line; where images are off, naming the setting an admin would change."""
    if isinstance(exc, FileRejected) and exc.reason == "images_off":
        return f"{exc} (VEILBOT_FILES_IMAGES=off; nothing written)"
    return str(exc)


def counts_line(counts: Counter[str], faces: int = 0) -> str:
    """Entity counts (and hidden faces); never a value."""
    summary = ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items())) or "nothing"
    hidden = f"; hid {faces} face{'s' if faces != 1 else ''}" if faces else ""
    return f"redacted {summary}{hidden}"


def print_counts(counts: Counter[str], faces: int = 0) -> None:
    """Entity counts (and hidden faces) on stderr; never a value."""
    print(f"veilbot: {counts_line(counts, faces)}", file=sys.stderr)
