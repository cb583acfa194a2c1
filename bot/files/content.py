"""One file's content redacted: its text, and its pictures read by OCR, in the file's order.

The turn (``bot.files.intake``, with the thread's vault) and ``veilbot redact FILE`` (with the
stateless redactor) read a file the same way, so what an admin checks offline is what the
model would be sent: the kind decided from the bytes and the text extracted in a confined
reader process (``bot.files.confine``), every text part and every picture's OCR'd text
(marked as OCR'd, so the guardrail allows for OCR's slips) through the given redaction,
within one ``max_chars`` for the whole file, and the pictures painted or withheld by the
image policy.
A PDF's scanned pages are read where they stand among its text pages, each under a line that
says the page was scanned, so neither the model nor the person loses a page silently.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from bot.core.attachments import ImagePart
from bot.core.errors import FileRejected
from bot.core.scopes import ImagePolicy
from bot.core.types import Redaction
from bot.files.confine import Deadline, Readers
from bot.files.extract import sniffed
from bot.files.extracted import Scan
from bot.files.kinds import IMAGE_KINDS, FileKind
from bot.files.limits import FileLimits

if TYPE_CHECKING:
    from bot.files.images import RedactedImage


class RedactText(Protocol):
    """The redaction of one text: the thread's vault in a turn, one file's numbering offline.

    ``ocr``: the text was read from a picture by OCR, so the guardrail reads it with OCR's
    slips in mind (``guardrails.rules.ocr``); typed text is read as written.
    """

    def __call__(self, text: str, *, ocr: bool = False) -> Awaitable[Redaction]:
        """The redaction of ``text``."""
        ...


@dataclass(frozen=True, slots=True)
class RedactedContent:
    """A file's content as the model may see it; placeholders only.

    Attributes:
        kind: what the bytes are (``sniff``).
        text: the text parts and the pictures' OCR'd text, redacted, in the file's order.
        images: the pictures painted over (none where the policy is ``text-only``, nor a
            picture most of which would be painted).
        pages: the file's pages (sheets, slides); a scanned page of several strips is one.
        counts: entities found, by type.
        pictures: the pictures read by OCR (sent or not).
        faces: faces hidden (their whole heads) in the pictures.
    """

    kind: FileKind
    text: str
    images: tuple[ImagePart, ...]
    pages: int
    counts: dict[str, int]
    pictures: int
    faces: int


async def redact_content(
    data: bytes,
    position: int,
    redact_text: RedactText,
    *,
    limits: FileLimits,
    images: ImagePolicy,
    tesseract: str,
    readers: Readers | None = None,
) -> RedactedContent:
    """A file's text and pictures through ``redact_text``; pictures painted by ``images``.

    The file is read in confined reader processes (``readers``; by default ones of this
    call's own), within one deadline for the whole file.

    Raises:
        FileRejected: a kind not read, past a limit (pages, cells, paragraphs, shapes,
            elements, pixels, characters of text and OCR together, the reader's time or
            memory), unreadable, pictures where images are ``off``, or Tesseract or the image
            readers missing; the file is named by ``position`` only.
        GuardrailError: detection could not run; nothing may be sent to the model.
    """
    readers = readers or Readers(limits)
    deadline = Deadline(position, limits.max_seconds)
    kind, extracted = await readers.run(deadline, sniffed, data, position, limits)
    scans = [part for part in extracted.parts if isinstance(part, Scan)]
    if scans and images == "off":
        raise images_off(position, kind)
    spent = 0

    async def counted(text: str, *, ocr: bool = False) -> Redaction:
        nonlocal spent  # the file's text layer and its OCR'd text share one limit
        spent += len(text)
        limits.check_chars(position, spent)
        return await redact_text(text, ocr=ocr)

    out = _Collected()
    for part in extracted.parts:
        if isinstance(part, str):
            out.add_text(await counted(part))
        else:
            await _read_scan(
                part, deadline, counted, out, readers, images=images, tesseract=tesseract
            )
    pictures = sum(len(scan.images) for scan in scans)
    return RedactedContent(
        kind, out.text(), tuple(out.images), extracted.pages, dict(out.counts), pictures, out.faces
    )


async def _read_scan(
    scan: Scan,
    deadline: Deadline,
    redact_text: RedactText,
    out: _Collected,
    readers: Readers,
    *,
    images: ImagePolicy,
    tesseract: str,
) -> None:
    """A scan's pictures OCR'd, redacted and painted (or withheld), under its page's note."""
    out.add_note(_scan_note(scan))

    async def redact_ocr(text: str) -> Redaction:
        return await redact_text(text, ocr=True)

    for picture in scan.images:
        redact_image = _image_reader()
        read = await redact_image(
            picture, deadline, redact_ocr, readers=readers, policy=images, tesseract=tesseract
        )
        out.add_image(read)


class _Collected:
    """What the parts of one file gave, in order."""

    def __init__(self) -> None:
        self.pieces: list[str] = []
        self.images: list[ImagePart] = []
        self.counts: Counter[str] = Counter()
        self.faces = 0

    def add_text(self, redaction: Redaction) -> None:
        self.pieces.append(redaction.text)
        self.counts.update(redaction.counts())

    def add_note(self, note: str | None) -> None:
        if note:
            self.pieces.append(note)

    def add_image(self, read: RedactedImage) -> None:
        self.pieces.append(read.text)  # the redacted OCR text, with the image's own note
        self.counts.update(read.redaction.counts())
        if read.image is not None:
            self.images.append(read.image)
        self.faces += read.faces

    def text(self) -> str:
        return "\n\n".join(self.pieces)


def _scan_note(scan: Scan) -> str | None:
    """The line that heads a PDF's scanned page: it was read by OCR, or could not be."""
    if scan.page is None:  # an image file: its block says what it is
        return None
    lines = [f"[page {scan.page} is scanned: its text was read by OCR]"] if scan.images else []
    if scan.undecoded:
        pictures = "picture" if scan.undecoded == 1 else "pictures"
        lines.append(
            f"[page {scan.page}: {scan.undecoded} scanned {pictures} in a format I cannot "
            "decode; not read]"
        )
    return "\n".join(lines)


def images_off(position: int, kind: FileKind) -> FileRejected:
    """The answer for a file with pictures where an admin turned images off."""
    what = "is an image" if kind in IMAGE_KINDS else "has scanned pages (pictures of text)"
    return FileRejected(
        f"File {position} {what}; images are not read here (an admin turned them off). "
        "Paste the text you need instead.",
        reason="images_off",
    )


def _image_reader() -> Callable[..., Awaitable[RedactedImage]]:
    """``bot.files.images.redact_image``, imported when a picture comes.

    The image readers (Pillow, pytesseract, OpenCV) are the ``files`` extra: an install
    without them still reads text files, and answers a picture with what to install.
    """
    try:
        from bot.files.images import redact_image
    except ImportError as exc:
        raise FileRejected(
            "Images cannot be read here: this install lacks the image readers. An admin can "
            "add them: pip install 'veilbot[files]' and apt-get install tesseract-ocr; "
            "text files still work.",
            reason="ocr_missing",
        ) from exc
    return redact_image
