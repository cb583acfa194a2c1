"""An image's words read by Tesseract, joined into text with a map from characters to boxes.

The guardrail reads the text like any message; the map says which pixels each finding came
from, so the redactor paints exactly those words. The reading also says how sure it is: a
screenshot read with low confidence, or with text-like regions that no word was read from
(rotated text, handwriting, a font Tesseract does not know), must not be sent as an image,
since a value nobody read cannot be painted over.
"""

from __future__ import annotations

import functools
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import cv2
import numpy as np
import pytesseract
from numpy.typing import NDArray
from PIL import Image

from bot.core.errors import FileRejected

UPSCALE_UP_TO_PIXELS = 1920 * 1080
"""Images up to Full HD are read at twice their size: Tesseract misreads 14-16 px screen text
at 1x (a card's spaces dropped, ``+1415`` for ``+1 415``), which the detector then misses."""
MIN_MEAN_CONFIDENCE = 70.0
"""Below this mean word confidence (0-100) the reading is unsure: printed screen text reads
at 85-95 at the scale above; noise, handwriting and rotated text read far lower."""
MAX_UNREAD_SHARE = 0.25
"""Above this share of the text-like area outside every word read, the reading is unsure."""
_TSV = {"output_type": pytesseract.Output.DICT, "config": "--psm 3"}

# Tesseract's OpenMP threads spin for their share of the CPU: on a busy 2-core machine one
# Full HD screenshot took 9-12 s with them and 2.2 s with one (tests/perf/bench_images).
# pytesseract passes the process's environment to Tesseract; an operator's own value wins.
os.environ.setdefault("OMP_THREAD_LIMIT", "1")


@dataclass(frozen=True, slots=True)
class Word:
    """One word read: its offsets in the text, its box in the image (left, top, right, bottom)."""

    start: int
    end: int
    box: tuple[int, int, int, int]


@dataclass(frozen=True, slots=True)
class Reading:
    """What OCR read from an image: the text, its words' boxes, and why it is unsure (if so)."""

    text: str
    words: tuple[Word, ...]
    unsure: str | None

    def boxes_of(self, start: int, end: int) -> list[tuple[int, int, int, int]]:
        """The boxes of every word that overlaps ``text[start:end]`` (a finding's span)."""
        return [w.box for w in self.words if w.start < end and start < w.end]


def check_tesseract(command: str) -> None:
    """Raises FileRejected with one line to act on when Tesseract cannot run."""
    if not _tesseract_runs(command):
        raise FileRejected(
            "Images cannot be read here: Tesseract OCR is not installed. An admin can "
            "install it (Debian/Ubuntu: apt-get install tesseract-ocr); text files and "
            "documents still work.",
            reason="ocr_missing",
        )


@functools.cache
def _tesseract_runs(command: str) -> bool:
    """Whether ``command --version`` runs (asked once per command: it spawns a process)."""
    try:
        subprocess.run(  # noqa: S603 - the operator's own setting, no shell
            [command, "--version"], capture_output=True, timeout=30, check=True
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return True


def read(image: Image.Image, command: str = "tesseract") -> Reading:
    """OCR ``image`` (RGB, or already grey) with the Tesseract ``command`` into text and boxes.

    Boxes are in the image's own pixels.
    Words of a line are joined by spaces, lines by a newline and blocks by a blank line, so
    the detector sees a card or a phone split into groups as one value and no sentence runs
    into the next block's.
    """
    scale = 2 if image.width * image.height <= UPSCALE_UP_TO_PIXELS else 1
    gray = image if image.mode == "L" else image.convert("L")
    if scale > 1:
        gray = gray.resize((gray.width * scale, gray.height * scale), Image.Resampling.LANCZOS)
    pytesseract.pytesseract.tesseract_cmd = command  # pytesseract reads only this global
    # The text-region mask is found while Tesseract (another process) reads: OpenCV
    # releases the GIL, so the second core does it instead of adding to the wait.
    with ThreadPoolExecutor(max_workers=1) as beside:
        regions = beside.submit(_text_regions, np.asarray(gray))
        try:
            data = pytesseract.image_to_data(gray, **_TSV)
        except (pytesseract.TesseractError, OSError) as exc:
            raise FileRejected("Tesseract could not read the image.", reason="ocr_failed") from exc
        mask = regions.result()
    text, words, confidences = _join(data, scale)
    return Reading(text, tuple(words), _unsure(mask, data, confidences))


def _join(data: dict[str, list[object]], scale: int) -> tuple[str, list[Word], list[float]]:
    """The words of Tesseract's table joined into text, each with its box and offsets."""
    pieces: list[str] = []
    words: list[Word] = []
    confidences: list[float] = []
    length = 0
    last_line: tuple[object, ...] | None = None
    for i, raw in enumerate(data["text"]):
        token = str(raw).strip()
        if not token:
            continue
        line = (data["block_num"][i], data["par_num"][i], data["line_num"][i])
        if last_line is not None:
            sep = " " if line == last_line else "\n" if line[0] == last_line[0] else "\n\n"
            pieces.append(sep)
            length += len(sep)
        last_line = line
        left, top = int(str(data["left"][i])), int(str(data["top"][i]))
        right, bottom = left + int(str(data["width"][i])), top + int(str(data["height"][i]))
        box = (left // scale, top // scale, -(-right // scale), -(-bottom // scale))
        words.append(Word(length, length + len(token), box))
        pieces.append(token)
        length += len(token)
        confidences.append(float(str(data["conf"][i])))
    return "".join(pieces), words, confidences


def _unsure(
    regions: NDArray[np.bool_], data: dict[str, list[object]], confidences: list[float]
) -> str | None:
    """Why the reading cannot be trusted to have found every word, or ``None``."""
    if confidences and sum(confidences) / len(confidences) < MIN_MEAN_CONFIDENCE:
        return "the text was read with low confidence"
    if regions.any():
        read_mask = np.zeros_like(regions)
        for i, raw in enumerate(data["text"]):
            if str(raw).strip():
                left, top = int(str(data["left"][i])), int(str(data["top"][i]))
                width, height = int(str(data["width"][i])), int(str(data["height"][i]))
                read_mask[top : top + height, left : left + width] = True
        unread = np.count_nonzero(regions & ~read_mask) / np.count_nonzero(regions)
        if unread > MAX_UNREAD_SHARE:
            return "parts of it look like text that could not be read (rotated or handwritten?)"
    return None


def _text_regions(gray: NDArray[np.uint8]) -> NDArray[np.bool_]:
    """A mask of the pixels that look like lines of text, at any angle.

    Strokes (the morphological gradient, Otsu's threshold) are split into letter-sized
    pieces; pieces close to each other merge into runs, and a run of at least
    ``_LETTERS_IN_A_LINE`` letters that is long and thin (its rotated bounding rectangle)
    is a line of text. A face, an icon or a border is one or a few pieces, never a run.
    """
    gradient = cv2.morphologyEx(gray, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8))
    _, strokes = cv2.threshold(gradient, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    count, labels, stats, centroids = cv2.connectedComponentsWithStats(strokes, connectivity=8)
    del gradient, strokes
    widths, heights = stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT]
    letter = (heights >= 6) & (heights <= 150) & (widths <= 3 * heights)
    letter[0] = False
    letters = letter.astype(np.uint8)[labels]  # one byte a pixel, and no bool copy first
    del labels  # four bytes a pixel: gone before the runs' own labels come
    runs = cv2.dilate(letters, np.ones((9, 9), np.uint8))
    run_count, run_labels, boxes, _ = cv2.connectedComponentsWithStats(runs, connectivity=8)
    where = centroids[letter].astype(int)
    per_run = np.bincount(run_labels[where[:, 1], where[:, 0]], minlength=run_count)
    lines = []
    for run in np.flatnonzero(per_run >= _LETTERS_IN_A_LINE):
        left, top, width, height = (int(v) for v in boxes[run][:4])
        inside = run_labels[top : top + height, left : left + width] == run
        (_, _), (side_a, side_b), _ = cv2.minAreaRect(cv2.findNonZero(inside.astype(np.uint8)))
        if run and max(side_a, side_b) >= 2.5 * max(min(side_a, side_b), 1.0):
            lines.append(run)
    in_line = np.zeros(run_count, dtype=np.bool_)
    in_line[lines] = True
    mask: NDArray[np.bool_] = in_line[run_labels]  # np.isin would sort a copy of every label
    return mask


_LETTERS_IN_A_LINE = 6
