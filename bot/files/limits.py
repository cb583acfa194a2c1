"""What one message's files may bring and cost to read, and the answers past each limit.

Sizes, counts, pages and text are the limits a person meets; cells, paragraphs, shapes, XML
elements and pixels bound what a small file can make a reader build (an office file's
millions of empty cells, a dense screenshot); memory and seconds bound the process a file is
read in (``bot.files.confine``), whatever the file does. Every answer names the file by its
position, never by its name or content.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from bot.core.attachments import human_size
from bot.core.errors import FileRejected

MIB = 1024 * 1024


class FileSettings(Protocol):
    """The settings the limits are read from (``bot.config.settings.Settings``)."""

    files_max_bytes: int
    files_max_count: int
    files_max_pages: int
    files_max_chars: int
    files_max_cells: int
    files_max_paragraphs: int
    files_max_shapes: int
    files_max_elements: int
    files_max_pixels: int
    files_max_memory_mb: int
    files_max_seconds: float
    files_readers: int


@dataclass(frozen=True, slots=True)
class FileLimits:
    """The limits of one message's files.

    Attributes:
        max_bytes: the largest file read (default 20 MB).
        max_files: the most files read from one message (default 5).
        max_pages: the most pages (or sheets, or slides) read from one document (default 30).
        max_chars: the most characters of text taken from one file (default 100,000): the
            guardrail reads about 12 kB/s on a shared 2-core machine (tests/perf/bench_files),
            so a 20 MB text file would hold its thread for half an hour.
        max_cells: the most cells of a workbook (every sheet, empty cells too) or of a
            document's or presentation's tables.
        max_paragraphs: the most paragraphs of a Word document, empty ones too.
        max_shapes: the most shapes of a presentation (text boxes, pictures, tables, groups).
        max_elements: the most XML elements of an office file, all its parts together: what
            a library builds grows with them, whatever they are.
        max_pixels: the most pixels of the pictures read from one file (an image, or a PDF's
            scanned pictures together): OCR's memory and time grow with them.
        max_memory: the memory a file's reader process may take beyond what it starts with
            (its address-space ceiling, which Tesseract, run by it, inherits).
        max_seconds: the time one file's reading may take in its reader processes, OCR
            included.
        readers: files one service process reads at once; more wait for a free reader.
    """

    max_bytes: int = 20 * MIB
    max_files: int = 5
    max_pages: int = 30
    max_chars: int = 100_000
    max_cells: int = 500_000
    max_paragraphs: int = 100_000
    max_shapes: int = 10_000
    max_elements: int = 2_000_000
    max_pixels: int = 24_000_000
    max_memory: int = 512 * MIB
    max_seconds: float = 20.0
    readers: int = 2

    @classmethod
    def of(cls, settings: FileSettings) -> FileLimits:
        """The limits the service's settings give (``VEILBOT_FILES_MAX_*``)."""
        return cls(
            max_bytes=settings.files_max_bytes,
            max_files=settings.files_max_count,
            max_pages=settings.files_max_pages,
            max_chars=settings.files_max_chars,
            max_cells=settings.files_max_cells,
            max_paragraphs=settings.files_max_paragraphs,
            max_shapes=settings.files_max_shapes,
            max_elements=settings.files_max_elements,
            max_pixels=settings.files_max_pixels,
            max_memory=settings.files_max_memory_mb * MIB,
            max_seconds=settings.files_max_seconds,
            readers=settings.files_readers,
        )

    def check_count(self, count: int) -> None:
        """Raises FileRejected when one message brings more files than are read."""
        if count and not self.max_files:
            raise FileRejected(
                "Files are not read here; please paste the text you need.",
                reason="files_off",
            )
        if count > self.max_files:
            raise FileRejected(
                f"That message has {count} files; I read at most {self.max_files} at a time. "
                "Please send them in smaller groups.",
                reason="too_many_files",
            )

    def check_sizes(self, sizes: Sequence[int], *, first: int = 1) -> None:
        """Raises FileRejected naming the position of the first file past the size limit.

        The size is checked before the download when the platform announces it, and again on
        the bytes received. ``first``: the position of the first of ``sizes``.
        """
        for position, size in enumerate(sizes, start=first):
            if size > self.max_bytes:
                raise FileRejected(
                    f"File {position} is {human_size(size)}; I read files up to "
                    f"{human_size(self.max_bytes)}.",
                    reason="file_too_large",
                )

    def check_pages(self, position: int, pages: int) -> None:
        """Raises FileRejected when a document has more pages than are read."""
        if pages > self.max_pages:
            raise FileRejected(
                f"File {position} has {pages} pages; I read documents up to "
                f"{self.max_pages} pages.",
                reason="too_many_pages",
            )

    def check_chars(self, position: int, chars: int, *, complete: bool = True) -> None:
        """Raises FileRejected when a file holds more text than is read.

        A document's reader checks as it goes (``complete=False``) and stops at the limit
        rather than extracting all of a huge file, so the answer then says "more than".
        """
        if chars > self.max_chars:
            held = f"{chars:,}" if complete else f"more than {self.max_chars:,}"
            raise FileRejected(
                f"File {position} holds {held} characters of text; I read up to "
                f"{self.max_chars:,}. Please send the part you need.",
                reason="too_much_text",
            )

    def check_elements(self, position: int, what: Structure, count: int) -> None:
        """Raises FileRejected once an office file's count of ``what`` passes its cap.

        Counted while the file's XML is scanned, before any library builds it, so the answer
        says "more than".
        """
        cap = {
            "cells": self.max_cells,
            "paragraphs": self.max_paragraphs,
            "shapes": self.max_shapes,
            "XML elements": self.max_elements,
        }[what]
        if count > cap:
            raise FileRejected(
                f"File {position} has more than {cap:,} {what}; I read up to {cap:,} in one "
                "file. Please send a smaller file or the part you need.",
                reason="too_many_" + what.lower().replace(" ", "_"),
            )

    def check_pixels(self, position: int, pixels: int, *, image: bool) -> None:
        """Raises FileRejected when a file's pictures hold more pixels than are read.

        Checked on the sizes an image's header or a PDF's picture declares, before any is
        decoded. ``image``: the file is one image (else a document's scanned pictures).
        """
        if pixels > self.max_pixels:
            raise self.too_many_pixels(position, image=image)

    def too_many_pixels(self, position: int, *, image: bool) -> FileRejected:
        """The answer for a file past ``max_pixels`` (or a decompression bomb)."""
        most = f"{self.max_pixels / 1_000_000:g} megapixels"
        if image:
            message = f"File {position} is an image of more than {most}; please send a smaller one."
        else:
            message = (
                f"File {position} has more than {most} of scanned pictures; I read up to "
                f"{most} in one file. Please send the pages you need."
            )
        return FileRejected(message, reason="image_too_large")

    def too_slow(self, position: int) -> FileRejected:
        """The answer for a file whose reading ran out of time (``max_seconds``)."""
        return FileRejected(
            f"File {position} takes more than {self.max_seconds:g} s to read; I stop there. "
            "Please send a smaller file or the part you need.",
            reason="too_slow",
        )

    def too_big_to_read(self, position: int) -> FileRejected:
        """The answer for a file whose reading needed more memory than ``max_memory``."""
        return FileRejected(
            f"File {position} needs more than {self.max_memory // MIB:,} MB of memory to read; "
            "please send a smaller file or the part you need.",
            reason="too_much_memory",
        )


Structure = Literal["cells", "paragraphs", "shapes", "XML elements"]
"""What an office file is counted in before it is read (``FileLimits.check_elements``)."""
