"""The text of Word, Excel and PowerPoint files (docx, xlsx, pptx), zip bombs refused first.

An office file is a zip of XML parts, and the libraries unpack whole parts into memory. So the
sizes the zip declares are checked before any library opens it: Python's zipfile never inflates
a part past its declared size (a part that claims less than it holds fails its CRC check), so
the declared total bounds what opening the file can cost.

Text comes out in reading order, one line per paragraph, table row (cells tab-separated), sheet
row or text frame, and counts against ``max_chars`` as it is read.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Iterable, Iterator
from datetime import date, datetime, time
from typing import Any

import docx
import openpyxl  # type: ignore[import-untyped]
import pptx
from docx.blkcntnr import BlockItemContainer
from docx.document import Document as DocxDocument
from docx.section import Section, _Footer, _Header
from docx.table import Table as DocxTable
from docx.text.paragraph import Paragraph
from pptx.shapes.group import GroupShape

from bot.core.errors import FileRejected
from bot.files.budget import Extracted, TextBudget
from bot.files.limits import MIB, FileLimits

UNPACKED_PER_CHAR = 200
"""Bytes of XML an office file may unpack to per character of text read (``max_chars``).

A spreadsheet cell, the costliest case, wraps a value in ~100 bytes of XML; media inside the
file are stored already compressed, so they unpack to about their own size (``max_bytes``).
"""
EXCEL_MAX_ROWS = 1_048_576
"""Rows a workbook may run to, counting empty ones: Excel's own limit for one sheet."""
_APP_PAGES = re.compile(rb"<(?:\w+:)?Pages>(\d+)</(?:\w+:)?Pages>")


def check_unpacked(data: bytes, position: int, limits: FileLimits) -> bytes | None:
    """Refuse an office file whose parts unpack to more than any document this size holds.

    Returns:
        the ``docProps/app.xml`` part (where Word records the page count), if the file has one.

    Raises:
        FileRejected: ``reason="zip_bomb"``, before anything is inflated.
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
        names = {info.filename for info in infos}
        return archive.read("docProps/app.xml") if "docProps/app.xml" in names else None


def read_docx(data: bytes, position: int, limits: FileLimits) -> Extracted:
    """Paragraphs and tables of the body, then every header and footer."""
    app = check_unpacked(data, position, limits)
    found = _APP_PAGES.search(app or b"")
    pages = max(1, int(found.group(1))) if found else 1
    limits.check_pages(position, pages)
    document = docx.Document(io.BytesIO(data))
    budget = TextBudget(position, limits)
    _docx_blocks(document, budget)
    for section in document.sections:
        for part in _headers_and_footers(section):
            if not part.is_linked_to_previous:  # a linked one repeats the previous section's
                _docx_blocks(part, budget)
    return Extracted.of_text(budget.text(), pages=pages)


def _headers_and_footers(section: Section) -> tuple[_Header | _Footer, ...]:
    return (
        section.header,
        section.first_page_header,
        section.even_page_header,
        section.footer,
        section.first_page_footer,
        section.even_page_footer,
    )


def _docx_blocks(container: DocxDocument | BlockItemContainer, budget: TextBudget) -> None:
    for block in container.iter_inner_content():
        if isinstance(block, Paragraph):
            if block.text:
                budget.add(block.text)
        elif isinstance(block, DocxTable):
            _docx_table(block, budget)


def _docx_table(table: DocxTable, budget: TextBudget) -> None:
    """One line per row; a merged cell (listed once per grid column it spans) is taken once."""
    for row in table.rows:
        cells = list({id(cell._tc): cell for cell in row.cells}.values())
        line = "\t".join(_one_line(cell.text) for cell in cells)
        if line.strip():
            budget.add(line)
        for cell in cells:
            for nested in cell.tables:
                _docx_table(nested, budget)


def read_xlsx(data: bytes, position: int, limits: FileLimits) -> Extracted:
    """Every sheet under a ``# name`` heading, one tab-separated line per non-empty row."""
    check_unpacked(data, position, limits)
    book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    try:
        limits.check_pages(position, len(book.sheetnames))
        budget = TextBudget(position, limits)
        rows_left = EXCEL_MAX_ROWS
        for sheet in book.worksheets:
            budget.add(f"# {sheet.title}")
            # The stored dimension can claim a million columns for one cell; read what is there.
            sheet.reset_dimensions()
            for row in sheet.iter_rows(values_only=True):
                rows_left -= 1
                if rows_left < 0:
                    raise FileRejected(
                        f"File {position} runs past {EXCEL_MAX_ROWS:,} rows; "
                        "I read workbooks up to that. Please send the part you need.",
                        reason="too_much_text",
                    )
                line = "\t".join(_cell(value) for value in row).rstrip("\t")
                if line.strip():
                    budget.add(line)
        return Extracted.of_text(budget.text(), pages=len(book.sheetnames))
    finally:
        book.close()


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    return _one_line(str(value))


def read_pptx(data: bytes, position: int, limits: FileLimits) -> Extracted:
    """Every slide's text frames and tables (in groups too), then its speaker notes."""
    check_unpacked(data, position, limits)
    deck = pptx.Presentation(io.BytesIO(data))
    slides = len(deck.slides)
    limits.check_pages(position, slides)
    budget = TextBudget(position, limits)
    for number, slide in enumerate(deck.slides, start=1):
        budget.add(f"# Slide {number}")
        for line in _shape_lines(slide.shapes):
            budget.add(line)
        if slide.has_notes_slide and slide.notes_slide.notes_text_frame is not None:
            notes = slide.notes_slide.notes_text_frame.text
            if notes.strip():
                budget.add(f"Notes: {notes}")
    return Extracted.of_text(budget.text(), pages=slides)


def _shape_lines(shapes: Iterable[Any]) -> Iterator[str]:
    for shape in shapes:
        if isinstance(shape, GroupShape):
            yield from _shape_lines(shape.shapes)
        elif shape.has_text_frame and shape.text_frame.text.strip():
            yield shape.text_frame.text
        elif shape.has_table:
            for row in shape.table.rows:
                line = "\t".join(_one_line(cell.text) for cell in row.cells)
                if line.strip():
                    yield line


def _one_line(text: str) -> str:
    """A cell's own line breaks and tabs as spaces, so one row stays one line."""
    return " ".join(text.split())
