"""A message's files redacted with the thread's vault into text blocks (and images) for the model.

The name and the text of each file go through the same guardrail as the message, so a value
seen in both gets the same placeholder. An image's OCR'd text is redacted the same way and the
image goes with its findings painted over (``bot.files.images``). What leaves this module holds
placeholders only: the blocks the model receives (and history keeps), the painted images (this
turn only) and the audit's facts (kind, size, pages, entity counts; never content or the raw
name).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING

from bot.core.attachments import FileFact, FileIntake, ImagePart, IncomingFile
from bot.core.errors import FileRejected
from bot.core.ports import Guardrail
from bot.core.scopes import ImagePolicy, PolicyOverride
from bot.core.types import Platform, Redaction, ThreadId
from bot.files.documents import pdf_page_images
from bot.files.extract import extract
from bot.files.kinds import IMAGE_KINDS, sniff
from bot.files.limits import FileLimits

if TYPE_CHECKING:
    from bot.files.images import RedactedImage


async def redact_files(
    guardrail: Guardrail,
    thread_id: ThreadId,
    files: Sequence[IncomingFile],
    *,
    platform: Platform,
    limits: FileLimits,
    policy: PolicyOverride | None = None,
    images: ImagePolicy = "redacted",
    tesseract: str = "tesseract",
) -> FileIntake:
    """Every file's name and text redacted with the thread's vault; images painted.

    Args:
        guardrail: the guardrail whose thread vault gives the placeholders.
        thread_id: the thread the files were sent in.
        files: the message's files, in the order the user sent them.
        platform: where they were sent (markup rules of the detection).
        limits: the count, size, page and text limits.
        policy: the scope's changes to the guardrail policy (``None``: the service's).
        images: ``redacted`` sends an image painted over beside its redacted text,
            ``text-only`` only the text, ``off`` refuses images.
        tesseract: the Tesseract command that reads images.

    Extraction (decoding, parsing a document) runs in a thread, off the event loop.

    Raises:
        FileRejected: too many files, one too large, of a kind not read, or unreadable, an
            image where images are off or Tesseract is missing; the message names the file
            by its position, never by its name.
        GuardrailError: detection could not run; nothing may be sent to the model.
    """
    limits.check_count(len(files))
    limits.check_sizes([len(f.data) for f in files])
    blocks: list[str] = []
    facts: list[FileFact] = []
    parts: list[ImagePart] = []
    total: Counter[str] = Counter()
    for position, incoming in enumerate(files, start=1):
        kind = sniff(incoming.data)

        async def redact_text(text: str, position: int = position) -> Redaction:
            limits.check_chars(position, len(text))
            return await guardrail.anonymize(thread_id, text, platform=platform, policy=policy)

        if kind in IMAGE_KINDS:
            scans = [incoming.data]
        else:
            try:
                extracted = await asyncio.to_thread(extract, kind, incoming.data, position, limits)
                scans = []
            except FileRejected as exc:
                if exc.reason != "scanned_pdf":
                    raise
                scans = await asyncio.to_thread(
                    pdf_page_images, incoming.data, limits, position=position
                )
        if scans:  # an image, or a scanned PDF's pages: OCR'd and painted one by one
            read = [
                await _image_reader()(
                    scan, position, redact_text, policy=images, tesseract=tesseract
                )
                for scan in scans
            ]
            text, pages = "\n\n".join(image.text for image in read), len(read)
            counts = sum((Counter(image.redaction.counts()) for image in read), Counter())
            parts += [image.image for image in read if image.image is not None]
        else:
            body = await redact_text(extracted.text)
            text, pages, counts = body.text, extracted.pages, Counter(body.counts())
        name = await guardrail.anonymize(thread_id, incoming.name, platform=platform, policy=policy)
        counts += Counter(name.counts())
        blocks.append(f'<file name="{_attribute(name.text)}">\n{text}\n</file>')
        size = len(incoming.data)
        facts.append(FileFact(kind=kind, size=size, pages=pages, entities=dict(counts)))
        total += counts
    return FileIntake(
        blocks=tuple(blocks), facts=tuple(facts), entities=dict(total), images=tuple(parts)
    )


def _attribute(name: str) -> str:
    """A redacted file name fit to stand in the block's quoted attribute.

    A quote or a line break in the name cannot end the attribute or the block early, so a name
    cannot pose as the message's own text.
    """
    return name.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ").replace("\r", " ")


def _image_reader() -> Callable[..., Awaitable[RedactedImage]]:
    """``bot.files.images.redact_image``, imported when an image comes.

    The image readers (Pillow, pytesseract, OpenCV) are the ``files`` extra: an install
    without them still reads text files, and answers an image with what to install.
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
