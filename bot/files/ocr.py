"""An image's words read by Tesseract, joined into text with a map from characters to boxes.

The guardrail reads the text like any message; the map says which pixels each finding came
from, so the redactor paints exactly those words. The reading also says where it may have
missed a value: words read with low confidence, and text-like regions that no word was read
from (rotated text, handwriting, a font Tesseract does not know). Those are painted too,
since a value nobody read cannot be found in the text; when the words are read with low
confidence on the whole, none of them is trusted and every text-like region is painted.

Text is read at its own size when its letters are tall enough for Tesseract, and at twice
its size when they are small: upscaling costs a third more time and adds nothing to large
text.
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

READ_AS_IS_LETTERS = 13
"""Text whose letters' outlines are at least this tall (px, median) is read at its own size,
smaller text at twice its size (up to ``CLOSE_LOOK_PIXELS``). Screenshots in Pillow's
bundled font gave the same findings at 1x as at 2x from 14 px text (letters 12-13 px, by
the words) up; at 12-13 px (letters 11-12 px) 1x misread a card's digits, which the detector
then missed. The pixel of margin goes to reading closely: 14 px text costs a third more,
12 px text is read right."""
CLOSE_LOOK_PIXELS = 1920 * 1080
"""Only images up to Full HD are read, or searched for text-like regions, at twice their
size: four times the pixels of a larger one take more memory and time than a reader has
(24 MP at 2x is 96 MP). Small text in a larger image is read at its size, and what is read
with low confidence is painted. The search at twice the size runs in images read so, and in
images where no line was seen: at their own size rotated text of 8-14 px went unseen (and
unread by Tesseract), at twice it was found."""
WORD_MIN_CONFIDENCE = 60.0
"""A word read with less confidence (0-100) is painted: printed screen text reads at 60-96,
misread words (a card read as "care ann davai", an address run together) at 0-58."""
MIN_MEAN_CONFIDENCE = 70.0
"""Below this mean word confidence no word is trusted and every text-like region is painted:
printed text reads at 85-95 on average; upside-down or noisy text far lower, and some of its
garbage words high."""
_TSV = {"output_type": pytesseract.Output.DICT, "config": "--psm 3"}

# Tesseract's OpenMP threads spin for their share of the CPU: on a busy 2-core machine one
# Full HD screenshot took 9-12 s with them and 2.2 s with one (tests/perf/bench_images).
# pytesseract passes the process's environment to Tesseract; an operator's own value wins.
os.environ.setdefault("OMP_THREAD_LIMIT", "1")

Box = tuple[int, int, int, int]
"""A region of an image: left, top, right, bottom."""
Quad = tuple[tuple[int, int], ...]
"""A region of an image as the corners of a (maybe rotated) rectangle."""


@dataclass(frozen=True, slots=True)
class Word:
    """One word read: its offsets in the text, its box in the image (left, top, right, bottom)."""

    start: int
    end: int
    box: Box


@dataclass(frozen=True, slots=True)
class Reading:
    """What OCR read from an image.

    Attributes:
        text: the words read, joined.
        words: each word's offsets in ``text`` and box in the image.
        unread: regions whose text may not be in ``text`` as printed (words read with low
            confidence, text-like regions no word was read from), to be painted.
        scale: the size the image was read at (1 or 2).
    """

    text: str
    words: tuple[Word, ...]
    unread: tuple[Quad, ...]
    scale: int = 1

    def boxes_of(self, start: int, end: int) -> list[Box]:
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


def read(
    image: Image.Image, command: str = "tesseract", *, lines: TextLines | None = None
) -> Reading:
    """OCR ``image`` (RGB, or already grey) with the Tesseract ``command`` into text and boxes.

    Boxes are in the image's own pixels.
    Words of a line are joined by spaces, lines by a newline and blocks by a blank line, so
    the detector sees a card or a phone split into groups as one value and no sentence runs
    into the next block's.

    ``lines``: ``text_lines`` of the same image, when the caller has them already.

    Raises:
        FileRejected: Tesseract failed (``ocr_failed``); nothing of the image may go.
    """
    gray = image if image.mode == "L" else image.convert("L")
    regions = lines if lines is not None else text_lines(gray)
    scale = 2 if 0 < regions.letters < READ_AS_IS_LETTERS and _small(gray) else 1
    doubled = None
    if scale > 1:
        doubled = gray.resize((gray.width * 2, gray.height * 2), Image.Resampling.LANCZOS)
    pytesseract.pytesseract.tesseract_cmd = command  # pytesseract reads only this global
    # Small text is looked for at twice the size while Tesseract (another process) reads:
    # OpenCV releases the GIL, so the second core does it instead of adding to the wait.
    with ThreadPoolExecutor(max_workers=1) as beside:
        closer = None if doubled is None else beside.submit(_text_regions, np.asarray(doubled))
        try:
            data = pytesseract.image_to_data(gray if doubled is None else doubled, **_TSV)
        except (pytesseract.TesseractError, OSError) as exc:
            raise FileRejected("Tesseract could not read the image.", reason="ocr_failed") from exc
        text, words, confidences = _join(data, scale)
        if closer is not None:
            regions = _with_closer(regions, closer.result())
    if closer is None and not regions.letters and _small(gray):
        # No line seen: none there, or text too small (or turned) to be seen at this size,
        # which Tesseract may not read either. At twice the size it is seen; so are some of
        # a photo's textures (wood grain, fur), which are painted too: recall first.
        doubled = gray.resize((gray.width * 2, gray.height * 2), Image.Resampling.LANCZOS)
        regions = _with_closer(regions, _text_regions(np.asarray(doubled)))
    trusted = bool(confidences) and sum(confidences) / len(confidences) >= MIN_MEAN_CONFIDENCE
    limit = WORD_MIN_CONFIDENCE if trusted else 101.0  # not trusted: every word is doubtful
    doubtful = [_corners(w.box) for w, c in zip(words, confidences, strict=True) if c < limit]
    covered = [w.box for w in words] if trusted else []
    unread = doubtful + _unread_regions(regions, covered)
    return Reading(text, tuple(words), tuple(unread), scale)


def _small(gray: Image.Image) -> bool:
    return gray.width * gray.height <= CLOSE_LOOK_PIXELS


def text_lines(gray: Image.Image) -> TextLines:
    """The pixels of ``gray`` (a grey image) that look like lines of text, and their size."""
    return _text_regions(np.asarray(gray))


def _with_closer(regions: TextLines, closer: TextLines) -> TextLines:
    """``regions`` with what ``_text_regions`` found at twice the size, brought to this size.

    At its own size small text (rotated 10-14 px text, words run together by the outline)
    is missed; at twice the size it is found.
    """
    height, width = regions.mask.shape
    small = closer.mask.reshape(height, 2, width, 2).any(axis=(1, 3))  # a pixel if any of 4
    letters = regions.letters or closer.letters / 2
    reach = max(regions.reach, -(-closer.reach // 2))
    return TextLines(regions.mask | small, letters, reach)


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


def _corners(box: Box) -> Quad:
    left, top, right, bottom = box
    return ((left, top), (right, top), (right, bottom), (left, bottom))


def _unread_regions(regions: TextLines, read: list[Box]) -> list[Quad]:
    """The text-like regions (``_text_regions``) that no word of ``read`` covers.

    A word covers its box and the mask's reach around it. What a word's box leaves of its
    line's mask (a sliver along its edge) is no region: a region must be at least half a
    letter thick and two letters long.
    """
    if not regions.mask.any():
        return []
    rest = regions.mask.copy()
    letters = regions.letters or _SMALLEST_LETTER  # too few letters to size: the smallest
    m = regions.reach
    for left, top, right, bottom in read:
        rest[max(top - m, 0) : bottom + m, max(left - m, 0) : right + m] = False
    count, labels, stats, _ = cv2.connectedComponentsWithStats(
        rest.astype(np.uint8), connectivity=8
    )
    found = []
    for region in range(1, count):
        left, top, width, height = (int(v) for v in stats[region][:4])
        if width * width + height * height < 4 * letters * letters:  # its diagonal: too short
            continue
        inside = labels[top : top + height, left : left + width] == region
        rect = cv2.minAreaRect(cv2.findNonZero(inside.astype(np.uint8)))
        (_, _), (side_a, side_b), _ = rect
        if min(side_a, side_b) < letters / 2 or max(side_a, side_b) < 2 * letters:
            continue
        corners = cv2.boxPoints(rect) + (left, top)
        found.append(tuple((round(float(x)), round(float(y))) for x, y in corners))
    return found


@dataclass(frozen=True, slots=True)
class TextLines:
    """Text-like pixels, their letters' median height, and the mask's reach beyond them.

    ``letters`` is 0 when too few letters lie in lines to size them (a photo's stray "line").
    """

    mask: NDArray[np.bool_]
    letters: float
    reach: int

    def strokes(self) -> NDArray[np.bool_]:
        """The lines without the reach the mask was grown by.

        The letters and the gaps between them, none of the paper around them.
        """
        side = 2 * self.reach - 1
        kernel = np.ones((side, side), np.uint8)
        return cv2.erode(self.mask.astype(np.uint8), kernel).astype(np.bool_)


def _text_regions(gray: NDArray[np.uint8]) -> TextLines:
    """The pixels that look like lines of text, at any angle.

    Strokes (the morphological gradient, Otsu's threshold) are split into letter-sized
    pieces (a piece as wide as several letters counts as several); pieces closer than a
    word space (``_WORD_SPACE`` of the letters' median height) merge into runs, and a run of
    at least ``_LETTERS_IN_A_LINE`` letters that is long and thin (its rotated bounding
    rectangle at least 2.5 times as long as thick, and at most two letters and the
    merging's reach thick) is a line of text. A face, an icon or a border is one or a few
    pieces, never a run; a textured patch of a photo is a run too thick for its pieces.
    """
    gradient = cv2.morphologyEx(gray, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8))
    _, strokes = cv2.threshold(gradient, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    count, labels, stats, centroids = cv2.connectedComponentsWithStats(strokes, connectivity=8)
    del gradient, strokes
    widths, heights = stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT]
    letter = (heights >= _SMALLEST_LETTER) & (heights <= 150) & (widths <= _WIDEST * heights)
    letter[0] = False
    letters = letter.astype(np.uint8)[labels]  # one byte a pixel, and no bool copy first
    del labels  # four bytes a pixel: gone before the runs' own labels come
    size = float(np.median(heights[letter])) if letter.any() else 0.0
    side = max(5, round(_WORD_SPACE * size)) | 1
    runs = cv2.dilate(letters, np.ones((side, side), np.uint8))
    run_count, run_labels, boxes, _ = cv2.connectedComponentsWithStats(runs, connectivity=8)
    where = centroids[letter].astype(int)
    run_of_letter = run_labels[where[:, 1], where[:, 0]]
    # Letters that touch (a card's "1111") are one piece: a piece counts as many letters as
    # it is half its height wide, so a line of digit groups is a line too.
    count_as = np.maximum(widths[letter] // np.maximum(heights[letter] // 2, 1), 1)
    per_run = np.bincount(run_of_letter, weights=count_as, minlength=run_count)
    pieces = np.bincount(run_of_letter, minlength=run_count)
    tall = np.bincount(run_of_letter, weights=heights[letter], minlength=run_count)
    height = tall / np.maximum(pieces, 1)  # a run's mean piece height, in one pass
    in_line = np.zeros(run_count, dtype=np.bool_)
    for run in np.flatnonzero(per_run >= _LETTERS_IN_A_LINE):
        in_line[run] = run > 0 and _thin(run_labels, boxes[run], int(run), 2 * height[run] + side)
    mask: NDArray[np.bool_] = in_line[run_labels]  # np.isin would sort a copy of every label
    in_lines = heights[letter][in_line[run_of_letter]]
    # A few letters (one stray "line" in a photo) do not make an image's text worth reading
    # at twice its size; if they are text, OCR reads them with low confidence, and they are
    # painted.
    sized = in_lines.size >= 2 * _LETTERS_IN_A_LINE
    return TextLines(mask, float(np.median(in_lines)) if sized else 0.0, side // 2 + 1)


def _thin(labels: cv2.typing.MatLike, box: cv2.typing.MatLike, run: int, thickest: float) -> bool:
    """Whether ``run`` is long and thin: 2.5 times as long as thick, and at most ``thickest``."""
    left, top, width, height, area = (int(v) for v in box[:5])
    if area > (width * width + height * height) ** 0.5 * thickest:
        return False  # more pixels than a band that thick along its diagonal: a block
    inside = labels[top : top + height, left : left + width] == run
    (_, _), (side_a, side_b), _ = cv2.minAreaRect(cv2.findNonZero(inside.astype(np.uint8)))
    thick = max(min(side_a, side_b), 1.0)
    return max(side_a, side_b) >= 2.5 * thick and thick <= thickest


_LETTERS_IN_A_LINE = 6
_SMALLEST_LETTER = 6
_WORD_SPACE = 0.5
"""Pieces closer than this share of the letters' height are one run: a word space in screen
fonts is 0.3-0.5 of it, the gap between lines 0.6 and more (at 0.7, 12 px lines 1.8 apart
ran into one block; with the former fixed 9 px, Pillow's font at 26 px split a card's digit
groups into runs of 4)."""
_WIDEST = 30
"""A piece up to this many times as wide as tall is letters: small text's outlines run a
whole word together ("maria.oliveira@example.org" is one piece at 12 px), which a limit of 3
left out of every line."""
