"""An image redacted for the model: its text read and redacted, those words painted, heads hidden.

The image is decoded with Pillow (png, jpeg, webp, the first frame of a gif) and rebuilt from
its pixels alone, so EXIF (GPS position, camera, owner), ICC profiles and text chunks never
leave. Its text is read by Tesseract (``bot.files.ocr``) and goes through the guardrail as one
text, with the thread's vault. Painted over solid: every word of every finding, and what OCR
could not vouch for (words read with low confidence, text-like regions no word was read
from), since a value there could not be found; each head around a face
(``bot.files.faces``) is filled grey. The text the model gets says what was painted, never
what. Only when most of the image would be painted is it withheld, with a line saying why:
then only its redacted text goes.

The pixels are never handled in the service: ``look`` (decode, OCR, faces) and ``paint`` run
each in a confined reader process (``bot.files.confine``), which decodes the file again; the
service keeps only the file's bytes, the text read with its words' boxes, and the painted PNG.
An image with more pixels than ``max_pixels`` is refused on its header, before it is decoded.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageDraw, ImageOps, UnidentifiedImageError

from bot.core.attachments import ImagePart
from bot.core.errors import FileRejected
from bot.core.scopes import ImagePolicy
from bot.core.types import Redaction
from bot.files.confine import Deadline, Readers
from bot.files.faces import Ink, find_heads, hide_heads
from bot.files.limits import FileLimits
from bot.files.ocr import Box, Quad, Reading, check_tesseract, read, text_lines

PAINT_MARGIN = 2
"""Pixels painted around each word's box: anti-aliased edges of a glyph lie just outside it."""
MAX_PAINTED_SHARE = 0.5
"""An image more than this share of which would be painted is withheld: what is left of it
shows nothing, and the reading behind it was mostly unsure."""

_TEXT_ONLY = "[image not sent: only its text, redacted, is shared here]"
_MOSTLY_PAINTED = (
    "[image not sent: most of it would be painted over, so only its text, redacted, is shared]"
)

RedactText = Callable[[str], Awaitable[Redaction]]
"""The guardrail's redaction of one text (with the thread's vault), with the spans it replaced."""


@dataclass(frozen=True, slots=True)
class RedactedImage:
    """An image as the model may see it.

    Attributes:
        text: the image's OCR text with placeholders, under a line that says what was
            painted, or why the image is withheld.
        image: the painted PNG, or ``None`` when only the text goes (policy, or most of the
            image would be painted).
        redaction: the guardrail's result for the OCR text (entity counts for the audit).
        faces: how many heads were hidden.
    """

    text: str
    image: ImagePart | None
    redaction: Redaction
    faces: int


def decode(data: bytes, position: int, limits: FileLimits) -> Image.Image:
    """The pixels of an image file as RGB, turned upright by its EXIF orientation, nothing else.

    Raises:
        FileRejected: not decodable, or more pixels than ``limits.max_pixels`` (checked on
            the header, before decoding; Pillow's own bomb check stops far larger ones).
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as opened:
                limits.check_pixels(position, opened.width * opened.height, image=True)
                ImageOps.exif_transpose(opened, in_place=True)  # no copy when it is upright
                pixels = opened if opened.mode == "RGB" else opened.convert("RGB")
                # A new image of the pixels alone: no EXIF, ICC profile or text chunk goes along.
                clean = Image.new("RGB", pixels.size)
                clean.paste(pixels)
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise limits.too_many_pixels(position, image=True) from exc
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError) as exc:
        raise FileRejected(
            f"File {position} looks like an image but I could not decode it.",
            reason="unreadable_file",
        ) from exc
    return clean


@dataclass(frozen=True, slots=True)
class Look:
    """What a reader process saw in an image: its text with the words' boxes, and its heads."""

    reading: Reading
    heads: tuple[Box, ...]


def look(data: bytes, position: int, limits: FileLimits, tesseract: str, *, faces: bool) -> Look:
    """Decode an image, read its text with Tesseract and, with ``faces``, find its heads.

    Runs in a reader process (``Readers.run``). The text's lines are found first (they size
    the OCR and are left out of the face search); faces are then searched while Tesseract
    (another process) reads.
    """
    gray = decode(data, position, limits).convert("L")  # all either needs; 1 byte a pixel
    lines = text_lines(gray)
    # Only where the image has text (a screenshot, a form) are its lines filled before the
    # face search: a photo's stray "line" (wood grain, hair) is left as it is.
    text = lines.strokes() if faces and lines.letters else None
    with ThreadPoolExecutor(max_workers=1) as beside:
        found = beside.submit(find_heads, gray, text) if faces else None
        reading = read(gray, tesseract, lines=lines)
        heads = tuple(found.result()) if found is not None else ()
    return Look(reading, heads)


def paint(
    data: bytes,
    position: int,
    limits: FileLimits,
    words: list[Box],
    unread: list[Quad],
    heads: list[Box],
) -> bytes | None:
    """The PNG of the image with ``words`` and ``unread`` painted black and ``heads`` grey.

    ``None`` when more than ``MAX_PAINTED_SHARE`` of the image would be painted. Runs in a
    reader process (``Readers.run``), which decodes the image again.
    """
    painted = decode(data, position, limits)
    cover = Image.new("1", painted.size)  # what is painted, to measure it
    _paint_text(ImageDraw.Draw(painted), words, unread, (0, 0, 0))
    _paint_text(ImageDraw.Draw(cover), words, unread, 1)
    hide_heads(painted, heads)
    hide_heads(cover, heads, fill=1)
    share = np.count_nonzero(np.asarray(cover)) / (cover.width * cover.height)
    if share > MAX_PAINTED_SHARE:
        return None
    out = io.BytesIO()
    # level 1: a Full HD screenshot 31 ms instead of 42, a photo 20 instead of 68, for 10-15 %
    painted.save(out, format="PNG", compress_level=1)
    return out.getvalue()


def _paint_text(draw: ImageDraw.ImageDraw, words: list[Box], unread: list[Quad], ink: Ink) -> None:
    m = PAINT_MARGIN
    for left, top, right, bottom in words:
        draw.rectangle((left - m, top - m, right + m, bottom + m), fill=ink)
    for corners in unread:
        draw.polygon(corners, fill=ink, outline=ink, width=2 * m + 1)


async def redact_image(
    data: bytes,
    deadline: Deadline,
    redact_text: RedactText,
    *,
    readers: Readers,
    policy: ImagePolicy = "redacted",
    tesseract: str = "tesseract",
) -> RedactedImage:
    """An image's redacted text, and the image with its findings and unread text painted.

    ``policy="text-only"`` reads and redacts the text and sends no image. Decoding, OCR,
    the face search and painting run in reader processes (``readers``), within the file's
    ``deadline``; the guardrail runs here, as for any text.

    Raises:
        FileRejected: the policy is ``off``, Tesseract is missing or failed, or the image is
            unreadable, too large, or past the reader's time or memory.
        GuardrailError: detection could not run; nothing may be sent to the model.
    """
    position = deadline.position
    if policy == "off":
        raise FileRejected(
            f"File {position} is an image; images are not read here (an admin turned them "
            "off). Paste the text you need instead.",
            reason="images_off",
        )
    check_tesseract(tesseract)
    limits = readers.limits
    seen = await readers.run(
        deadline, look, data, position, limits, tesseract, faces=policy == "redacted"
    )
    reading = seen.reading
    redaction = await redact_text(reading.text)
    if policy != "redacted":
        return RedactedImage(_text(redaction, _TEXT_ONLY), None, redaction, 0)
    words = [box for start, end in redaction.spans for box in reading.boxes_of(start, end)]
    heads = list(seen.heads)
    painted = [_grown(box, PAINT_MARGIN) for box in words] + heads
    unread = [quad for quad in reading.unread if not any(_within(quad, b) for b in painted)]
    png = await readers.run(deadline, paint, data, position, limits, words, unread, heads)
    if png is None:
        return RedactedImage(_text(redaction, _MOSTLY_PAINTED), None, redaction, 0)
    note = _painted_note(len(redaction.spans), len(unread), len(heads))
    return RedactedImage(_text(redaction, note), ImagePart("image/png", png), redaction, len(heads))


def _grown(box: Box, margin: int) -> Box:
    return (box[0] - margin, box[1] - margin, box[2] + margin, box[3] + margin)


def _within(quad: Quad, box: Box) -> bool:
    """Whether ``quad`` lies inside ``box`` (a value's or a head's paint covers it anyway)."""
    return all(box[0] <= x <= box[2] and box[1] <= y <= box[3] for x, y in quad)


def _painted_note(values: int, unread: int, heads: int) -> str | None:
    """The line that says what of a sent image was painted over: how many, never what."""
    parts = [
        f"{count} {what}{'' if count == 1 else 's'}"
        for count, what in ((values, "value"), (unread, "unreadable text region"), (heads, "face"))
        if count
    ]
    if not parts:
        return None
    listed = parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"
    return f"[image sent with {listed} painted over]"


def _text(redaction: Redaction, note: str | None) -> str:
    body = redaction.text if redaction.text.strip() else "[no text found in the image]"
    return f"{note}\n{body}" if note else body
