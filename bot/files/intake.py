"""A message's files redacted with the thread's vault into text blocks (and images) for the model.

The name and the content of each file (``bot.files.content``: text, and pictures read by OCR)
go through the same guardrail as the message, so a value seen in both gets the same
placeholder. An image's (or a scanned page's) OCR'd text is redacted the same way and the
picture goes with its findings painted over (``bot.files.images``). What leaves this module holds
placeholders only: the blocks the model receives (and history keeps), the painted images (this
turn only) and the audit's facts (kind, size, pages, entity counts; never content or the raw
name).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from bot.core.attachments import FileFact, FileIntake, ImagePart, IncomingFile
from bot.core.ports import Guardrail
from bot.core.scopes import ImagePolicy, PolicyOverride
from bot.core.types import Platform, Redaction, ThreadId
from bot.files.confine import Readers
from bot.files.content import redact_content
from bot.files.limits import FileLimits


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
    readers: Readers | None = None,
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
        readers: the reader processes the files are read in (``bot.files.confine``; by
            default ones of this call's own).

    Reading (parsing a document, decoding and OCR) runs in confined reader processes, under
    the limits' memory and time; never in this process.

    Raises:
        FileRejected: too many files, one too large, of a kind not read, or unreadable, an
            image where images are off or Tesseract is missing; the message names the file
            by its position, never by its name.
        GuardrailError: detection could not run; nothing may be sent to the model.
    """
    limits.check_count(len(files))
    limits.check_sizes([len(f.data) for f in files])
    readers = readers or Readers(limits)
    blocks: list[str] = []
    facts: list[FileFact] = []
    parts: list[ImagePart] = []
    total: Counter[str] = Counter()
    for position, incoming in enumerate(files, start=1):

        async def redact_text(text: str, *, ocr: bool = False) -> Redaction:
            return await guardrail.anonymize(
                thread_id, text, platform=platform, policy=policy, ocr=ocr
            )

        content = await redact_content(
            incoming.data,
            position,
            redact_text,
            limits=limits,
            images=images,
            tesseract=tesseract,
            readers=readers,
        )
        name = await redact_text(incoming.name)
        counts = Counter(content.counts) + Counter(name.counts())
        blocks.append(f'<file name="{_attribute(name.text)}">\n{content.text}\n</file>')
        size = len(incoming.data)
        facts.append(FileFact(content.kind, size, content.pages, dict(counts)))
        parts += content.images
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
