"""An office file's XML counted before any library builds it: cells, paragraphs, shapes, elements.

python-docx and python-pptx build the whole tree of every part when they open a file, and
openpyxl builds each spreadsheet row whole; what they cost grows with the elements, not with
the bytes, and empty elements deflate to almost nothing (14 million empty cells fit in 59 KB).
So every XML part of the zip is streamed through a parser that builds nothing and only counts,
and the file is refused at the first cap it passes (``FileLimits.check_elements``):

- a workbook's cells: every row as wide as its last cell (openpyxl fills the gaps), and no
  row past Excel's own 16,384 columns; a document's or a slide's table cells count too;
- a Word document's paragraphs, wherever they are (body, headers, notes, text boxes);
- a presentation's shapes, on slides, layouts, masters and notes;
- every element of every part, whatever it is.

Counting stops at the cap, so a hostile file costs at most one cap's worth of parsing. A part
that is not XML (a picture) is skipped; one that breaks off is counted as far as it goes and
left to the reader, whose memory and time are bounded anyway (``bot.files.confine``).
"""

from __future__ import annotations

import zipfile
from typing import Any

from lxml import etree  # type: ignore[import-untyped]

from bot.core.errors import FileRejected
from bot.files.kinds import FileKind
from bot.files.limits import FileLimits, Structure

EXCEL_MAX_COLUMNS = 16_384
"""Columns a worksheet row may run to: Excel's own limit (column XFD)."""

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_S = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
_A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
_UNITS: dict[FileKind, tuple[Structure, frozenset[str]]] = {
    "docx": ("paragraphs", frozenset({f"{_W}p"})),
    "pptx": (
        "shapes",
        frozenset(f"{_P}{tag}" for tag in ("sp", "pic", "graphicFrame", "grpSp", "cxnSp")),
    ),
}
_TABLE_CELLS = frozenset({f"{_W}tc", f"{_A}tc"})
_CHUNK = 64 * 1024
_XML_START = (b"<", b"\xef\xbb\xbf<", b"\xff\xfe<", b"\xfe\xff\x00<")


def check_structure(
    archive: zipfile.ZipFile, kind: FileKind, position: int, limits: FileLimits
) -> None:
    """Refuse an office file past a cap on its cells, paragraphs, shapes or elements.

    Raises:
        FileRejected: ``too_many_cells``, ``too_many_paragraphs``, ``too_many_shapes`` or
            ``too_many_xml_elements``, naming the file by its position.
    """
    counter = _Counter(kind, position, limits)
    for info in archive.infolist():
        if not info.is_dir():
            counter.element()  # a part costs its reader as an element does, empty or not
            _scan(archive, info, counter)


def _scan(archive: zipfile.ZipFile, info: zipfile.ZipInfo, counter: _Counter) -> None:
    """Stream one part through ``counter``; a part that is not XML is skipped."""
    with archive.open(info) as part:
        chunk = part.read(_CHUNK)
        if not chunk.lstrip(b" \t\r\n").startswith(_XML_START):
            return
        parser = etree.XMLParser(
            target=counter, resolve_entities=False, no_network=True, load_dtd=False
        )
        try:
            while chunk:
                parser.feed(chunk)
                chunk = part.read(_CHUNK)
            parser.close()
        except etree.XMLSyntaxError:
            return  # counted as far as it goes; its reader decides what the rest means
        finally:
            counter.end_part()


class _Counter:
    """An lxml parser target that builds nothing: it counts, and raises at a cap."""

    def __init__(self, kind: FileKind, position: int, limits: FileLimits) -> None:
        self._position = position
        self._limits = limits
        self._sheet = kind == "xlsx"
        self._unit, self._unit_tags = _UNITS.get(kind, ("cells", frozenset()))
        self._unit_cap = limits.max_shapes if self._unit == "shapes" else limits.max_paragraphs
        self._elements = self._units = self._cells = 0
        self._row_width = 0  # the current worksheet row's columns, so far

    def element(self) -> None:
        """Count one element (or part) against ``max_elements``."""
        self._elements += 1
        if self._elements > self._limits.max_elements:
            self._limits.check_elements(self._position, "XML elements", self._elements)

    def start(self, tag: str, attrib: Any) -> None:
        """Count an opening tag (the parser calls this)."""
        self.element()
        if tag in self._unit_tags:
            self._units += 1
            if self._units > self._unit_cap:
                self._limits.check_elements(self._position, self._unit, self._units)
        elif tag in _TABLE_CELLS:
            self._add_cells(1)
        elif self._sheet and tag == f"{_S}c":
            self._sheet_cell(attrib.get("r"))
        elif self._sheet and tag == f"{_S}row":
            self._row_width = 0

    def end_part(self) -> None:
        """The part ended (or broke off): a row left open there counts no further."""
        self._row_width = 0

    def close(self) -> None:
        """The parser is done with the part."""

    def _sheet_cell(self, ref: str | None) -> None:
        """A worksheet cell: its row is as wide as its column, or one more than before."""
        column = _column(ref) if ref else 0
        width = max(self._row_width + 1, column)
        if width > EXCEL_MAX_COLUMNS:
            raise FileRejected(
                f"File {self._position} has a row past Excel's {EXCEL_MAX_COLUMNS:,} columns; "
                "I do not read it. Please send the part you need.",
                reason="too_many_cells",
            )
        self._add_cells(width - self._row_width)
        self._row_width = width

    def _add_cells(self, count: int) -> None:
        self._cells += count
        if self._cells > self._limits.max_cells:
            self._limits.check_elements(self._position, "cells", self._cells)


def _column(ref: str) -> int:
    """The column number of a cell reference (``B7``: 2, ``XFD1``: 16,384); 0 if it has none."""
    number = 0
    for char in ref:
        if not "A" <= char <= "Z":
            break
        number = number * 26 + ord(char) - 64
    return number
