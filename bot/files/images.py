"""An image redacted for the model: its text read and redacted, those words painted, faces blurred.

The image is decoded with Pillow (png, jpeg, webp, the first frame of a gif) and rebuilt from
its pixels alone, so EXIF (GPS position, camera, owner), ICC profiles and text chunks never
leave. Its text is read by Tesseract (``bot.files.ocr``) and goes through the guardrail as one
text, with the thread's vault; every word of every finding is painted over solid, and faces
(OpenCV's frontal-face cascade) are pixelated. When the reading is unsure the image is not
sent at all: only its redacted text, with a line that says why (fail closed).
"""

from __future__ import annotations

import asyncio
import io
import warnings
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageOps, UnidentifiedImageError

from bot.core.attachments import ImagePart
from bot.core.errors import FileRejected
from bot.core.scopes import ImagePolicy
from bot.core.types import Redaction
from bot.files.ocr import Reading, check_tesseract, read

MAX_PIXELS = 40_000_000
"""The largest image read (a 40-megapixel photo); Pillow's bomb check stops far larger ones."""
FACE_SEARCH_SIDE = 960
"""Faces are searched at most this large (the long side): a Full HD search took 1 s, this 0.25."""
PAINT_MARGIN = 2
"""Pixels painted around each word's box: anti-aliased edges of a glyph lie just outside it."""
_FACES = cv2.CascadeClassifier(
    f"{cv2.data.haarcascades}haarcascade_frontalface_default.xml"  # type: ignore[attr-defined]
)

Box = tuple[int, int, int, int]
"""A region of an image: left, top, right, bottom."""

RedactText = Callable[[str], Awaitable[Redaction]]
"""The guardrail's redaction of one text (with the thread's vault), with the spans it replaced."""


@dataclass(frozen=True, slots=True)
class RedactedImage:
    """An image as the model may see it.

    Attributes:
        text: the image's OCR text with placeholders, and a note when the image is withheld.
        image: the painted PNG, or ``None`` when only the text goes (policy or unsure OCR).
        redaction: the guardrail's result for the OCR text (entity counts for the audit).
        faces: how many faces were blurred.
    """

    text: str
    image: ImagePart | None
    redaction: Redaction
    faces: int


def decode(data: bytes, position: int) -> Image.Image:
    """The pixels of an image file as RGB, turned upright by its EXIF orientation, nothing else.

    Raises:
        FileRejected: not decodable, or too many pixels (a decompression bomb).
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as opened:
                if opened.width * opened.height > MAX_PIXELS:
                    raise _too_large(position)
                upright = ImageOps.exif_transpose(opened)
                pixels = upright.convert("RGB")
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise _too_large(position) from exc
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError) as exc:
        raise FileRejected(
            f"File {position} looks like an image but I could not decode it.",
            reason="unreadable_file",
        ) from exc
    # A new image from the pixels alone: no EXIF, ICC profile or text chunk goes along.
    return Image.frombytes("RGB", pixels.size, pixels.tobytes())


def _too_large(position: int) -> FileRejected:
    return FileRejected(
        f"File {position} is an image of more than {MAX_PIXELS // 1_000_000} megapixels; "
        "please send a smaller one.",
        reason="image_too_large",
    )


async def redact_image(
    data: bytes,
    position: int,
    redact_text: RedactText,
    *,
    policy: ImagePolicy = "redacted",
    tesseract: str = "tesseract",
) -> RedactedImage:
    """An image's redacted text, and the image with its findings painted and faces blurred.

    ``policy="text-only"`` reads and redacts the text and sends no image. OCR and painting run
    in a worker thread (CPU bound); the guardrail runs on the loop as for any text.

    Raises:
        FileRejected: the policy is ``off``, Tesseract is missing, or the image is unreadable
            or too large.
        GuardrailError: detection could not run; nothing may be sent to the model.
    """
    if policy == "off":
        raise FileRejected(
            f"File {position} is an image; images are not read here (an admin turned them "
            "off). Paste the text you need instead.",
            reason="images_off",
        )
    image = await asyncio.to_thread(decode, data, position)
    check_tesseract(tesseract)
    # Faces are searched while Tesseract reads (another process, the other core).
    faces = (
        asyncio.ensure_future(asyncio.to_thread(find_faces, image))
        if policy == "redacted"
        else None
    )
    try:
        reading = await asyncio.to_thread(read, image, tesseract)
        redaction = await redact_text(reading.text)
    except BaseException:
        if faces is not None:
            await asyncio.gather(faces, return_exceptions=True)
        raise
    if faces is None or reading.unsure is not None:
        if faces is not None:
            await asyncio.gather(faces, return_exceptions=True)
        note = _withheld_note(reading, policy)
        return RedactedImage(_text(redaction, note), None, redaction, 0)
    boxes = await faces
    png = await asyncio.to_thread(_paint, image, reading, redaction, boxes)
    return RedactedImage(_text(redaction, None), ImagePart("image/png", png), redaction, len(boxes))


def _withheld_note(reading: Reading, policy: ImagePolicy) -> str:
    if policy == "text-only":
        return "[image not sent: only its text, redacted, is shared here]"
    return f"[image not sent: {reading.unsure}, so only its text, redacted, is shared]"


def _text(redaction: Redaction, note: str | None) -> str:
    body = redaction.text if redaction.text.strip() else "[no text found in the image]"
    return f"{note}\n{body}" if note else body


def _paint(image: Image.Image, reading: Reading, redaction: Redaction, faces: list[Box]) -> bytes:
    """The PNG of ``image`` with every finding's words painted and the ``faces`` pixelated."""
    painted = image.copy()
    draw = ImageDraw.Draw(painted)
    for start, end in redaction.spans:
        for left, top, right, bottom in reading.boxes_of(start, end):
            m = PAINT_MARGIN
            draw.rectangle((left - m, top - m, right + m, bottom + m), fill=(0, 0, 0))
    pixelate(painted, faces)
    out = io.BytesIO()
    painted.save(out, format="PNG", optimize=False)
    return out.getvalue()


def find_faces(image: Image.Image) -> list[Box]:
    """The box of every frontal face in ``image`` (left, top, right, bottom).

    Faces are searched on a copy at most ``FACE_SEARCH_SIDE`` pixels on its long side (a
    face smaller than 24 px there is too small to identify anyone).
    """
    shrink = min(1.0, FACE_SEARCH_SIDE / max(image.size))
    gray = image.convert("L")
    if shrink < 1.0:
        size = (round(image.width * shrink), round(image.height * shrink))
        gray = gray.resize(size, Image.Resampling.BILINEAR)
    found = _FACES.detectMultiScale(
        np.asarray(gray), scaleFactor=1.1, minNeighbors=5, minSize=(24, 24)
    )
    return [
        (round(x / shrink), round(y / shrink), round((x + w) / shrink), round((y + h) / shrink))
        for x, y, w, h in (tuple(int(v) for v in box) for box in found)
    ]


def pixelate(image: Image.Image, boxes: list[Box]) -> None:
    """Pixelate each box of ``image`` in place.

    Each shrinks to 6x6 cells and is scaled back smoothly: a plain blur can be partly
    undone, 36 cells identify nobody.
    """
    for left, top, right, bottom in boxes:
        face = image.crop((left, top, right, bottom))
        mosaic = face.resize((6, 6), Image.Resampling.BILINEAR).resize(face.size)
        image.paste(mosaic, (left, top))
