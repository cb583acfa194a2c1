"""Faces in an image found with OpenCV's cascades, and the whole head around each hidden.

A face is searched by the frontal-face cascade and by the profile cascade facing either way
(it is trained on faces turned one way, so the mirrored image gives the other). A cascade's
box holds the eyes, nose and mouth only; hair, ears, chin and the head's outline, which
identify someone as well, lie around it, so each box is grown to the head
(``HEAD_GROWTH``) and filled solid: a pixelated face keeps its outline and hair, and a
detector still finds a face in it.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray
from PIL import Image, ImageDraw

from bot.files.ocr import Box

FACE_SEARCH_SIDE = 960
"""Faces are searched at most this large (the long side): a Full HD search took 1 s, this 0.25."""
PROFILE_STEP = 1.2
"""The profile cascade's scale step: it costs three times the frontal one's at 1.1 (1.1 s on a
512 px photo on a busy 2-core machine); at 1.2 it takes half that and still finds the
cameraman's profile, at 1.3 it does not."""
HEAD_GROWTH = (0.35, 0.6, 0.35, 0.4)
"""How far a head reaches beyond a face's box (left, top, right, bottom), in the box's side.
Measured on scikit-image's astronaut (frontal) and cameraman (profile): hair 0.54 above the
frontal box and 0.37 above the profile's, the chin 0.2 below, hair and the back of the head
0.15-0.3 to the sides; the rest is margin for a box that sits off the face."""
Ink = int | tuple[int, int, int]
"""A colour to paint with: a grey level, or RGB."""
HEAD_FILL: Ink = (128, 128, 128)
"""A head is filled with one flat grey: no shape, shade or colour of it remains."""


def _cascade(name: str) -> cv2.CascadeClassifier:
    return cv2.CascadeClassifier(f"{cv2.data.haarcascades}{name}")  # type: ignore[attr-defined]


_FRONTAL = _cascade("haarcascade_frontalface_default.xml")
_PROFILE = _cascade("haarcascade_profileface.xml")


def find_heads(image: Image.Image, text: NDArray[np.bool_] | None = None) -> list[Box]:
    """The box of every head in ``image`` whose face a cascade finds (left, top, right, bottom).

    Faces are searched on a copy at most ``FACE_SEARCH_SIDE`` pixels on its long side (a
    face smaller than 24 px there is too small to identify anyone). Overlapping heads (one
    face found frontal and in profile) are one.

    ``text``: the pixels of the image's lines of text (``TextLines.strokes``), filled flat
    before the search. A line of text is no face (``bot.files.ocr`` tells them apart), but
    its strokes pass a cascade's first stages, where flat paper fails at once: a 1280x720
    screenshot in 12 px text took 0.81 s of CPU to search, 0.09 s with its lines filled.
    """
    shrink = min(1.0, FACE_SEARCH_SIDE / max(image.size))
    gray = image if image.mode == "L" else image.convert("L")
    if text is not None and text.any():
        flat = np.array(gray)  # a copy: the caller's image is read by OCR too
        flat[text] = int(np.median(flat))
        gray = Image.fromarray(flat)
    if shrink < 1.0:
        size = (round(image.width * shrink), round(image.height * shrink))
        gray = gray.resize(size, Image.Resampling.BILINEAR)
    pixels = np.asarray(gray)
    faces = _search(_FRONTAL, pixels, 1.1) + _search(_PROFILE, pixels, PROFILE_STEP)
    width = pixels.shape[1]
    mirrored = _search(_PROFILE, pixels[:, ::-1], PROFILE_STEP)
    faces += [(width - x - w, y, w, h) for x, y, w, h in mirrored]
    heads = [_head(face, 1 / shrink, image.size) for face in faces]
    return _merged(heads)


def hide_heads(image: Image.Image, heads: list[Box], fill: Ink = HEAD_FILL) -> None:
    """Fill each head of ``image`` with ``fill`` (``HEAD_FILL``), in place."""
    draw = ImageDraw.Draw(image)
    for head in heads:
        draw.rectangle(head, fill=fill)


def _search(
    cascade: cv2.CascadeClassifier, pixels: np.ndarray, step: float
) -> list[tuple[int, int, int, int]]:
    found = cascade.detectMultiScale(
        np.ascontiguousarray(pixels), scaleFactor=step, minNeighbors=5, minSize=(24, 24)
    )
    return [tuple(int(v) for v in box) for box in found]  # type: ignore[misc]


def _head(face: tuple[int, int, int, int], scale: float, size: tuple[int, int]) -> Box:
    """A face's box (x, y, w, h at the search's size) grown to its head, in the image's pixels."""
    x, y, w, h = face
    left, top, right, bottom = HEAD_GROWTH
    return (
        max(round((x - left * w) * scale), 0),
        max(round((y - top * h) * scale), 0),
        min(round((x + w + right * w) * scale), size[0]),
        min(round((y + h + bottom * h) * scale), size[1]),
    )


def _merged(boxes: list[Box]) -> list[Box]:
    """``boxes`` with every overlapping pair replaced by the box around both, until none overlap."""
    merged: list[Box] = []
    for box in boxes:
        while (other := next((m for m in merged if _overlap(m, box)), None)) is not None:
            merged.remove(other)
            box = (
                min(box[0], other[0]),
                min(box[1], other[1]),
                max(box[2], other[2]),
                max(box[3], other[3]),
            )
        merged.append(box)
    return merged


def _overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
