"""An image redacted for the model: its text read and redacted, those words painted, faces blurred.

The image is decoded with Pillow (png, jpeg, webp, the first frame of a gif) and rebuilt from
its pixels alone, so EXIF (GPS position, camera, owner), ICC profiles and text chunks never
leave. Its text is read by Tesseract (``bot.files.ocr``) and goes through the guardrail as one
text, with the thread's vault; every word of every finding is painted over solid, and faces
(OpenCV's frontal-face cascade) are pixelated. When the reading is unsure the image is not
sent at all: only its redacted text, with a line that says why (fail closed).

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

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageOps, UnidentifiedImageError

from bot.core.attachments import ImagePart
from bot.core.errors import FileRejected
from bot.core.scopes import ImagePolicy
from bot.core.types import Redaction
from bot.files.confine import Deadline, Readers
from bot.files.limits import FileLimits
from bot.files.ocr import Reading, check_tesseract, read

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
    """What a reader process saw in an image: its text with the words' boxes, and its faces."""

    reading: Reading
    faces: tuple[Box, ...]


def look(data: bytes, position: int, limits: FileLimits, tesseract: str, *, faces: bool) -> Look:
    """Decode an image, read its text with Tesseract and, with ``faces``, find its faces.

    Runs in a reader process (``Readers.run``). Faces are searched while Tesseract (another
    process) reads.
    """
    gray = decode(data, position, limits).convert("L")  # all either needs; 1 byte a pixel
    with ThreadPoolExecutor(max_workers=1) as beside:
        found = beside.submit(find_faces, gray) if faces else None
        reading = read(gray, tesseract)
        boxes = tuple(found.result()) if found is not None else ()
    return Look(reading, boxes)


def paint(
    data: bytes, position: int, limits: FileLimits, words: list[Box], faces: list[Box]
) -> bytes:
    """The PNG of the image with ``words`` painted solid and ``faces`` pixelated.

    Runs in a reader process (``Readers.run``), which decodes the image again.
    """
    painted = decode(data, position, limits)
    draw = ImageDraw.Draw(painted)
    m = PAINT_MARGIN
    for left, top, right, bottom in words:
        draw.rectangle((left - m, top - m, right + m, bottom + m), fill=(0, 0, 0))
    pixelate(painted, faces)
    out = io.BytesIO()
    painted.save(out, format="PNG", optimize=False)
    return out.getvalue()


async def redact_image(
    data: bytes,
    deadline: Deadline,
    redact_text: RedactText,
    *,
    readers: Readers,
    policy: ImagePolicy = "redacted",
    tesseract: str = "tesseract",
) -> RedactedImage:
    """An image's redacted text, and the image with its findings painted and faces blurred.

    ``policy="text-only"`` reads and redacts the text and sends no image. Decoding, OCR,
    the face search and painting run in reader processes (``readers``), within the file's
    ``deadline``; the guardrail runs here, as for any text.

    Raises:
        FileRejected: the policy is ``off``, Tesseract is missing, or the image is unreadable,
            too large, or past the reader's time or memory.
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
    if policy != "redacted" or reading.unsure is not None:
        note = _withheld_note(reading, policy)
        return RedactedImage(_text(redaction, note), None, redaction, 0)
    words = [box for start, end in redaction.spans for box in reading.boxes_of(start, end)]
    faces = list(seen.faces)
    png = await readers.run(deadline, paint, data, position, limits, words, faces)
    return RedactedImage(_text(redaction, None), ImagePart("image/png", png), redaction, len(faces))


def _withheld_note(reading: Reading, policy: ImagePolicy) -> str:
    if policy == "text-only":
        return "[image not sent: only its text, redacted, is shared here]"
    return f"[image not sent: {reading.unsure}, so only its text, redacted, is shared]"


def _text(redaction: Redaction, note: str | None) -> str:
    body = redaction.text if redaction.text.strip() else "[no text found in the image]"
    return f"{note}\n{body}" if note else body


def find_faces(image: Image.Image) -> list[Box]:
    """The box of every frontal face in ``image`` (left, top, right, bottom).

    Faces are searched on a copy at most ``FACE_SEARCH_SIDE`` pixels on its long side (a
    face smaller than 24 px there is too small to identify anyone).
    """
    shrink = min(1.0, FACE_SEARCH_SIDE / max(image.size))
    gray = image if image.mode == "L" else image.convert("L")
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
