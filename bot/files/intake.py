"""A message's files redacted with the thread's vault into text blocks for the model.

The name and the text of each file go through the same guardrail as the message, so a value
seen in both gets the same placeholder. What leaves this module holds placeholders only: the
blocks the model receives (and history keeps), the painted images that go with this turn only
(``bot.files.images``), and the audit's facts (kind, size, pages, entity counts; never content
or the raw name).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bot.core.errors import InputRejected
from bot.core.ports import Guardrail
from bot.core.scopes import ImagePolicy
from bot.core.types import ImagePart, Platform, Redaction, ThreadId
from bot.files.extract import extract
from bot.files.kinds import IMAGE_KINDS, FileKind, sniff
from bot.files.limits import FileLimits

if TYPE_CHECKING:
    from bot.files.images import RedactedImage


@dataclass(frozen=True, slots=True)
class IncomingFile:
    """One file as the adapter downloaded it: the name the user gave and its bytes."""

    name: str
    data: bytes


@dataclass(frozen=True, slots=True)
class FileFact:
    """What the audit records about one file."""

    kind: FileKind
    size: int
    pages: int
    entities: dict[str, int]


@dataclass(frozen=True, slots=True)
class FileIntake:
    """A message's files, redacted: one text block per file, the painted images, the audit's facts.

    ``images`` go with this turn's user message only (``ModelRequest.images``); the history
    keeps the blocks, which hold each image's redacted text.
    """

    blocks: tuple[str, ...] = ()
    facts: tuple[FileFact, ...] = ()
    entities: dict[str, int] = field(default_factory=dict)
    images: tuple[ImagePart, ...] = ()

    def as_text(self) -> str:
        """The blocks joined, to follow the message's own text."""
        return "\n\n".join(self.blocks)


async def redact_files(
    guardrail: Guardrail,
    thread_id: ThreadId,
    files: Sequence[IncomingFile],
    *,
    platform: Platform,
    limits: FileLimits,
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
        images: ``redacted`` sends an image painted over beside its redacted text,
            ``text-only`` only the text, ``off`` refuses images.
        tesseract: the Tesseract command that reads images.

    Raises:
        InputRejected: too many files, one too large, of a kind not read, or unreadable, an
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
            return await guardrail.anonymize(thread_id, text, platform=platform)

        if kind in IMAGE_KINDS:
            image = await _image_reader()(
                incoming.data, position, redact_text, policy=images, tesseract=tesseract
            )
            body, text, pages = image.redaction, image.text, 1
            parts += [image.image] if image.image is not None else []
            name = await guardrail.anonymize(thread_id, incoming.name, platform=platform)
        else:
            extracted = extract(kind, incoming.data, position, limits)
            limits.check_chars(position, len(extracted.text))
            name = await guardrail.anonymize(thread_id, incoming.name, platform=platform)
            body = await redact_text(extracted.text)
            text, pages = body.text, extracted.pages
        counts = Counter(name.counts()) + Counter(body.counts())
        blocks.append(f'<file name="{name.text}">\n{text}\n</file>')
        size = len(incoming.data)
        facts.append(FileFact(kind=kind, size=size, pages=pages, entities=dict(counts)))
        total += counts
    return FileIntake(
        blocks=tuple(blocks), facts=tuple(facts), entities=dict(total), images=tuple(parts)
    )


def _image_reader() -> Callable[..., Awaitable[RedactedImage]]:
    """``bot.files.images.redact_image``, imported when an image comes.

    The image readers (Pillow, pytesseract, OpenCV) are the ``files`` extra: an install
    without them still reads text files, and answers an image with what to install.
    """
    try:
        from bot.files.images import redact_image
    except ImportError as exc:
        raise InputRejected(
            "Images cannot be read here: this install lacks the image readers. An admin can "
            "add them: pip install 'veilbot[files]' and apt-get install tesseract-ocr; "
            "text files still work.",
            reason="ocr_missing",
        ) from exc
    return redact_image
