"""Excel workbooks (xlsx) redacted cell by cell through openpyxl, every sheet, formats kept.

Each cell with a value is a unit, read under its column's header (the sheet's first row);
a cell a value was found in becomes the redacted text, every other cell keeps its value and
type. Also units: each sheet's name and its printed headers and footers, each note on a cell
(and its author), each cell's hyperlink target (a ``mailto:`` address) and the document
properties (author, last modified by, title, subject, description, keywords, category).
openpyxl rewrites the package from its model: the shared strings are written afresh (no
old string is left in the file), and what it does not model (pictures, charts, threaded
comments) is not carried into the output.
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Mapping, Sequence
from datetime import date, datetime, time
from typing import Any

import openpyxl  # type: ignore[import-untyped]

from bot.files.out.splice import Edit, spliced

_PERSON = "Full name"
_PROPERTIES = {
    "creator": _PERSON,
    "lastModifiedBy": _PERSON,
    **dict.fromkeys("title subject description keywords category".split()),
}


class _Unit:
    """One unit: how to read and write its text, and the heading it sits under."""

    def __init__(self, owner: Any, attribute: str, context: str | None = None) -> None:
        self.owner = owner
        self.attribute = attribute
        self.context = context

    @property
    def text(self) -> str:
        return _text(getattr(self.owner, self.attribute))

    def apply(self, edits: Sequence[Edit]) -> None:
        (new,) = spliced([self.text], [False], edits)
        setattr(self.owner, self.attribute, new)


def opened(data: bytes) -> Any:
    """The workbook as openpyxl models it (formulas as written, not their cached values)."""
    return openpyxl.load_workbook(io.BytesIO(data), rich_text=False)


def workbook_units(book: Any) -> Iterator[_Unit]:
    """Every unit of the workbook, in a fixed order; blank ones left out."""
    for unit in _all_units(book):
        if unit.text.strip():
            yield unit


def rewritten(data: bytes, edits: Mapping[int, Sequence[Edit]]) -> bytes:
    """The workbook with each unit's edits (by its place in ``workbook_units``) made."""
    book = opened(data)
    for number, unit in enumerate(list(workbook_units(book))):
        if number in edits:
            unit.apply(edits[number])
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _all_units(book: Any) -> Iterator[_Unit]:
    for name, context in _PROPERTIES.items():
        yield _Unit(book.properties, name, context)
    for sheet in book.worksheets:
        yield _Unit(sheet, "title")
        yield from _printed(sheet)
        header: dict[int, str] = {}
        header_row: int | None = None  # the sheet's first row with a value
        for row in sheet.iter_rows():
            for cell in row:
                if cell.value is None and cell.comment is None:
                    continue
                if header_row is None:
                    header_row = cell.row
                if cell.row == header_row:
                    header[cell.column] = _text(cell.value)
                context = None if cell.row == header_row else header.get(cell.column) or None
                yield _Unit(cell, "value", context)
                if cell.comment is not None:
                    yield _Unit(cell.comment, "text", context)
                    yield _Unit(cell.comment, "author", _PERSON)
                if cell.hyperlink is not None:
                    yield _Unit(cell.hyperlink, "target", context)
                    yield _Unit(cell.hyperlink, "display", context)


_HEADERS_FOOTERS = tuple(
    f"{page}{part}" for page in ("odd", "even", "first") for part in ("Header", "Footer")
)


def _printed(sheet: Any) -> Iterator[_Unit]:
    """The left, centre and right parts of a sheet's printed headers and footers."""
    for name in _HEADERS_FOOTERS:
        printed = getattr(sheet, name, None)
        for part in ("left", "center", "right"):
            holder = getattr(printed, part, None) if printed is not None else None
            if holder is not None:
                yield _Unit(holder, "text")


def _text(value: object) -> str:
    """A value as its cell shows it: a whole number without ``.0``, a date as ISO 8601.

    Excel keeps dates as date-times: one at midnight is a date (``1985-03-14``, which a
    "Date of birth" header types; ``1985-03-14T00:00:00`` is no date of birth's shape).
    """
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, datetime) and value.time() == time(0):
        return value.date().isoformat()
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    return str(value)
