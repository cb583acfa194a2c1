"""``veilbot redact FILE [--out PATH]``: one file as the model would receive it, offline.

The file is read as a turn reads it (``bot.files.content``): text and documents, images and a
PDF's scanned pages by OCR, under the service's image policy (``VEILBOT_FILES_IMAGES``). The
placeholders are numbered across the whole file, so ``<PERSON_1>`` on a scanned page is the
``<PERSON_1>`` of the typed one. The redacted text goes to stdout, or PATH; for an image file
PATH receives the painted PNG instead and the text stays on stdout. stderr says what was done
with the pictures and the entity counts, never a value. A file that is not read (an empty one
too: there is nothing to check) gets one line and exit status 2, and nothing is written.
"""

from __future__ import annotations

import asyncio
import sys
from collections import Counter
from pathlib import Path

from bot.app import build_redactor
from bot.core.errors import GuardrailError, InputRejected
from bot.core.scopes import ImagePolicy
from bot.core.types import EntityRef, Redaction
from bot.files.content import RedactedContent, redact_content
from bot.files.kinds import IMAGE_KINDS
from bot.files.limits import FileLimits
from bot.settings import Settings
from guardrails.redact import Numbering, Redactor


def redact_file(settings: Settings, path: Path, out: Path | None) -> int:
    """Redact one file to ``out`` (else stdout); what was done and the counts on stderr.

    Returns 0, or 2 when the file cannot be read, is empty, is past a limit, of a kind not
    read, or has pictures where images are ``off``.
    """
    try:
        data = path.read_bytes()
        if not data:
            print("veilbot: the file is empty; there is nothing to redact", file=sys.stderr)
            return 2
        limits = FileLimits.of(settings)
        limits.check_sizes([len(data)])
        content = asyncio.run(_redacted(settings, data, limits))
    except OSError as exc:
        print(f"veilbot: cannot read the file: {exc.strerror}", file=sys.stderr)
        return 2
    except InputRejected as exc:
        print(f"veilbot: {_refusal(exc)}", file=sys.stderr)
        return 2
    except GuardrailError as exc:
        print(f"veilbot: {exc}", file=sys.stderr)
        return 2
    try:
        _write(content, out)
    except OSError as exc:
        print(f"veilbot: cannot write the result: {exc.strerror}", file=sys.stderr)
        return 2
    if content.pictures:
        print(f"veilbot: {_pictures_done(content, settings.files_images, out)}", file=sys.stderr)
    print_counts(Counter(content.counts), faces=content.faces)
    return 0


async def _redacted(settings: Settings, data: bytes, limits: FileLimits) -> RedactedContent:
    """The file's content through the guardrail's detection, numbered across the file.

    The detection (spaCy) loads at the first text, after the file was read: a file that is
    not read is answered at once.
    """
    redactors: list[Redactor] = []
    numbering = Numbering()

    async def redact_text(text: str, *, ocr: bool = False) -> Redaction:
        if not redactors:
            redactors.append(build_redactor(settings))
        found = redactors[0].redact(text, "console", numbering, ocr=ocr)
        entities = tuple(EntityRef(e.type, e.placeholder) for e in found.entities)
        return Redaction(found.text, entities, tuple((e.start, e.end) for e in found.entities))

    return await redact_content(
        data,
        1,
        redact_text,
        limits=limits,
        images=settings.files_images,
        tesseract=settings.files_tesseract,
    )


def _write(content: RedactedContent, out: Path | None) -> None:
    """The text to stdout or ``out``; an image file's painted PNG to ``out``, its text to stdout."""
    if content.kind in IMAGE_KINDS:
        sys.stdout.write(content.text + "\n")
        if out is not None and content.images:
            out.write_bytes(content.images[0].data)
    elif out is None:
        sys.stdout.write(content.text)
    else:
        out.write_text(content.text, encoding="utf-8")


def _pictures_done(content: RedactedContent, policy: ImagePolicy, out: Path | None) -> str:
    """One line on what became of the file's pictures, naming the setting that decided it."""
    setting = f"VEILBOT_FILES_IMAGES={policy}"
    if policy == "text-only":
        return f"{setting}: only the text of the pictures, redacted; no image written"
    painted, read = len(content.images), content.pictures
    withheld = f"; {read - painted} withheld (unsure OCR: text only)" if painted < read else ""
    if content.kind in IMAGE_KINDS:
        done = f"wrote the painted image to {out}" if out and painted else "no image written"
        hint = " (--out PATH writes it)" if painted and out is None else ""
        return f"{setting}: {done}{hint}{withheld}"
    return (
        f"{setting}: {read} scanned-page picture{'s' if read != 1 else ''} read by OCR; "
        f"{painted} would go to the model painted over (not written){withheld}"
    )


def _refusal(exc: InputRejected) -> str:
    """The refusal's line; where images are off, naming the setting an admin would change."""
    if exc.reason == "images_off":
        return f"{exc} (VEILBOT_FILES_IMAGES=off; nothing written)"
    return str(exc)


def print_counts(counts: Counter[str], faces: int = 0) -> None:
    """Entity counts (and blurred faces) on stderr; never a value."""
    summary = ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items())) or "nothing"
    blurred = f"; blurred {faces} face{'s' if faces != 1 else ''}" if faces else ""
    print(f"veilbot: redacted {summary}{blurred}", file=sys.stderr)
