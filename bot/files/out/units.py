"""The two tasks of a reader process for a file written back as its kind: list, then write.

``listed`` sniffs the kind, checks the file as the readers do (size unpacked, cells,
paragraphs, shapes, elements, pages, text) and gives its text units; ``written`` gives the
file again with the placeholders of each unit made in place. Both run in a confined reader
process (``bot.files.confine``) and enumerate the units the same way, so a unit is named by
its place in the list (a PDF's units are its text layer's table cells and runs of other
lines, ``pdf.page_units``; its scanned pages are listed in ``scans``, for the image path to
read and paint). A kind not written back (an
image, plain text, a PDF where pypdfium2 is not installed) is listed with no units; the
caller reads it as the model would.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from bot.files.extracted import unreadable
from bot.files.kinds import FileKind, sniff
from bot.files.limits import FileLimits
from bot.files.office import check_package
from bot.files.out import csvtable, workbook, xmlparts
from bot.files.out.splice import Edit
from bot.files.text import decode

Form = Literal["docx", "xlsx", "pptx", "csv", "tsv", "pdf"]
"""The kinds written back as themselves: the office files, text tables by their name, PDFs
(``bot.files.out.pdf``)."""
TABLE_SUFFIXES = (".csv", ".tsv")


@dataclass(frozen=True, slots=True)
class Unit:
    """A text of the file redacted on its own: a paragraph, a cell, a field, a property.

    Attributes:
        text: the unit's text.
        context: the heading it sits under (a column header, a property's name), if any.
    """

    text: str
    context: str | None = None


@dataclass(frozen=True, slots=True)
class Listing:
    """A file's kind, its form when it is written back as itself, and its units.

    ``scans``: a PDF's pages (from 0) with no text layer but pictures, read by OCR.
    """

    kind: FileKind
    form: Form | None = None
    units: tuple[Unit, ...] = ()
    pages: int = 1
    scans: tuple[int, ...] = ()


def listed(data: bytes, position: int, limits: FileLimits, suffix: str) -> Listing:
    """The kind of ``data`` and, for a kind written back, its units (the reader's task).

    ``suffix``: the file name's, which tells a text table (``.csv``, ``.tsv``) from text.

    Raises:
        FileRejected: past a limit, or unreadable; named by ``position`` only.
    """
    kind = sniff(data)
    form = _form(kind, suffix)
    if form is None:
        return Listing(kind)
    with unreadable(position, kind):
        if form == "pdf":
            return _pdf_listing(data, position, limits)
        units, pages = _units(form, data, position, limits)
    spent = 0
    for unit in units:
        spent += len(unit.text)
        limits.check_chars(position, spent, complete=False)
    return Listing(kind, form, tuple(units), pages)


def written(
    data: bytes,
    position: int,
    limits: FileLimits,
    form: Form,
    edits: Mapping[int, Sequence[Edit]],
    scans: Mapping[int, bytes | None] | None = None,
) -> bytes:
    """``data`` with each unit's edits (by its place in ``listed``'s units) made in place.

    ``scans``: a PDF's scanned pages as the image path painted them (``pdf.rewritten``).
    """
    with unreadable(position, form):
        if form == "pdf":
            from bot.files.out import pdf

            return pdf.rewritten(data, position, limits, edits, scans)
        if form in ("csv", "tsv"):
            text = decode(data, position=position)
            table = list(csvtable.fields(text, csvtable.delimiter(text, f".{form}")))
            kept = [index for index, f in enumerate(table) if f.value.strip()]
            by_field = {kept[number]: list(e) for number, e in edits.items()}
            return csvtable.edited(text, table, by_field).encode("utf-8")
        if form == "xlsx":
            return workbook.rewritten(data, edits)
        return xmlparts.rewritten(data, form, edits)


def _form(kind: FileKind, suffix: str) -> Form | None:
    if kind in ("docx", "xlsx", "pptx", "pdf"):
        return kind
    if kind == "text" and suffix.lower() in TABLE_SUFFIXES:
        return "tsv" if suffix.lower() == ".tsv" else "csv"
    return None


def _units(form: Form, data: bytes, position: int, limits: FileLimits) -> tuple[list[Unit], int]:
    """A file's units and pages (sheets, slides), after the checks its reader makes."""
    if form == "csv" or form == "tsv":  # == narrows the Literal for mypy; "in" does not
        text = decode(data, position=position)
        limits.check_chars(position, len(text))
        table = list(csvtable.fields(text, csvtable.delimiter(text, f".{form}")))
        headers = csvtable.headers(table)
        return [
            Unit(f.value, headers.get(f.column) if f.row else None)
            for f in table
            if f.value.strip()
        ], 1
    check_package(data, form, position, limits)
    if form == "xlsx":
        book = workbook.opened(data)
        limits.check_pages(position, len(book.worksheets))
        units = [Unit(u.text, u.context) for u in workbook.workbook_units(book)]
        return units, len(book.worksheets)
    pages = _slides(data) if form == "pptx" else 1
    limits.check_pages(position, pages)
    return [Unit(text, context) for text, context in xmlparts.package_units(data, form)], pages


def _pdf_listing(data: bytes, position: int, limits: FileLimits) -> Listing:
    """A PDF's pages as units, its scanned ones named; no units without pypdfium2."""
    try:
        from bot.files.out import pdf
    except ImportError:  # the ``files`` extra: its text is written instead
        return Listing("pdf")
    document = pdf.opened(data, position, limits)
    texts = pdf.page_texts(document)
    limits.check_chars(position, sum(len(text) for text in texts))
    scans = pdf.scanned_pages(document, texts)
    units = tuple(
        Unit(texts[page][start:end], heading)
        for page, start, end, heading in pdf.page_units(document, texts)
    )
    return Listing("pdf", "pdf", units, len(texts), scans)


def _slides(data: bytes) -> int:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return sum(
            1
            for name in archive.namelist()
            if name.startswith("ppt/slides/slide") and name.endswith(".xml")
        )
