"""The text of Word, Excel and PowerPoint files (docx, xlsx, pptx), zip bombs refused first.

An office file is a zip of XML parts, and the libraries unpack whole parts into memory. So the
sizes the zip declares are checked before any library opens it: Python's zipfile never inflates
a part past its declared size (a part that claims less than it holds fails its CRC check), so
the declared total bounds what the bytes can cost. What the XML describes (millions of empty
cells in a few kilobytes) is counted next, before any library builds it (``bot.files.structure``).

Text comes out in reading order, one line per paragraph, table row (cells tab-separated), sheet
row or text frame, and counts against ``max_chars`` as it is read.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterable, Iterator
from datetime import date, datetime, time
from typing import Any

import openpyxl  # type: ignore[import-untyped]
import pptx
from pptx.shapes.group import GroupShape

from bot.core.errors import FileRejected
from bot.files.annotations import comment_authors, sheet_notes, slide_comments
from bot.files.extracted import Extracted, TextAllowance
from bot.files.kinds import FileKind
from bot.files.limits import MIB, FileLimits
from bot.files.structure import check_structure

UNPACKED_PER_CHAR = 200
"""Bytes of XML an office file may unpack to per character of text read (``max_chars``).

A spreadsheet cell, the costliest case, wraps a value in ~100 bytes of XML; media inside the
file are stored already compressed, so they unpack to about their own size (``max_bytes``).
"""
EXCEL_MAX_ROWS = 1_048_576
"""Rows a workbook may run to, counting empty ones: Excel's own limit for one sheet."""


def check_package(data: bytes, kind: FileKind, position: int, limits: FileLimits) -> bytes | None:
    """Refuse an office file too big unpacked, or whose XML describes too much.

    Too big: its parts unpack to more than any document this size holds. Too much: its XML
    passes a cap on cells, paragraphs, shapes or elements (``bot.files.structure``).

    Returns:
        the ``docProps/app.xml`` part (where Word records the page count), if the file has one.

    Raises:
        FileRejected: ``reason="zip_bomb"``, before anything is inflated; ``too_many_…``
            while the XML is counted, before any library builds it.
    """
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        infos = archive.infolist()
        declared = sum(info.file_size for info in infos)
        cap = 2 * limits.max_bytes + UNPACKED_PER_CHAR * limits.max_chars
        if declared > cap:
            raise FileRejected(
                f"File {position} unpacks to {declared / MIB:,.0f} MB, more than a document "
                f"of its kind holds (up to {cap / MIB:,.0f} MB); I do not open it.",
                reason="zip_bomb",
            )
        check_structure(archive, kind, position, limits)
        names = {info.filename for info in infos}
        return archive.read("docProps/app.xml") if "docProps/app.xml" in names else None


def read_xlsx(data: bytes, position: int, limits: FileLimits) -> Extracted:
    """Every sheet under ``# name``: a tab-separated line per non-empty row, then its notes."""
    check_package(data, "xlsx", position, limits)
    book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    try:
        limits.check_pages(position, len(book.sheetnames))
        allowance = TextAllowance(position, limits)
        rows = _RowCount(position)
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for sheet in book.worksheets:
                allowance.add(f"# {sheet.title}")
                for line in _sheet_lines(sheet, rows):
                    allowance.add(line)
                # the sheet's part in the zip: openpyxl keeps it, without a public name
                for line in sheet_notes(archive, sheet._worksheet_path):
                    allowance.add(line)
        return Extracted.of_text(allowance.text(), pages=len(book.sheetnames))
    finally:
        book.close()


class _RowCount:
    """Rows read across a workbook, refused past ``EXCEL_MAX_ROWS`` (empty ones count)."""

    def __init__(self, position: int) -> None:
        self._position = position
        self._left = EXCEL_MAX_ROWS

    def take(self) -> None:
        self._left -= 1
        if self._left < 0:
            raise FileRejected(
                f"File {self._position} runs past {EXCEL_MAX_ROWS:,} rows; "
                "I read workbooks up to that. Please send the part you need.",
                reason="too_much_text",
            )


def _sheet_lines(sheet: Any, rows: _RowCount) -> Iterator[str]:
    # The stored dimension can claim a million columns for one cell; read what is there.
    sheet.reset_dimensions()
    for row in sheet.iter_rows(values_only=True):
        rows.take()
        line = "\t".join(_cell(value) for value in row).rstrip("\t")
        if line.strip():
            yield line


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    return one_line(str(value))


def read_pptx(data: bytes, position: int, limits: FileLimits) -> Extracted:
    """Every slide's text frames and tables (in groups too), speaker notes, then comments."""
    check_package(data, "pptx", position, limits)
    deck = pptx.Presentation(io.BytesIO(data))
    slides = len(deck.slides)
    limits.check_pages(position, slides)
    allowance = TextAllowance(position, limits)
    authors = comment_authors(deck.part)
    for number, slide in enumerate(deck.slides, start=1):
        allowance.add(f"# Slide {number}")
        for line in _shape_lines(slide.shapes):
            allowance.add(line)
        if slide.has_notes_slide and slide.notes_slide.notes_text_frame is not None:
            notes = slide.notes_slide.notes_text_frame.text
            if notes.strip():
                allowance.add(f"Notes: {notes}")
        for line in slide_comments(slide.part, authors):
            allowance.add(line)
    return Extracted.of_text(allowance.text(), pages=slides)


def _shape_lines(shapes: Iterable[Any]) -> Iterator[str]:
    for shape in shapes:
        if isinstance(shape, GroupShape):
            yield from _shape_lines(shape.shapes)
        elif shape.has_text_frame and shape.text_frame.text.strip():
            yield shape.text_frame.text
        elif shape.has_table:
            for row in shape.table.rows:
                line = "\t".join(one_line(cell.text) for cell in row.cells)
                if line.strip():
                    yield line


def one_line(text: str) -> str:
    """A cell's own line breaks and tabs as spaces, so one row stays one line."""
    return " ".join(text.split())
