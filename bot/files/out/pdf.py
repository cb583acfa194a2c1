"""PDFs written back as PDFs: each page rendered, its values painted over, the kept text on it.

PDF text cannot be replaced in place the way a docx run can: a content stream draws glyphs
by font codes, often a subset with no way back to characters, and a value's glyphs can sit in
several operations. So a redacted PDF is drawn afresh (PDFium, through pypdfium2):

- the reader process lists each page's text layer, one character for each of PDFium's
  character indices (so a finding's offsets are its characters' boxes), in units
  (``page_units``): a line whose characters stand apart by more than ``CELL_GAP`` font sizes
  is a table row, each of its cells a unit under the header cell above it (the first row of
  its table), so no finding runs from one cell into the next; runs of other lines are a
  unit each, so a name wrapped over two lines is still read whole; a turn reads the same
  rows as pipe-table rows (``page_reading``);
- the writer renders each page at ``DPI`` with annotations and form fields left out, paints a
  black box over the characters of every finding, and puts the picture (JPEG) on a new page
  of the same size and rotation; over it goes an invisible text layer (render mode 3, as OCR
  tools write) of the page's kept text, one line at a time where the line stood, with the
  placeholders in place of the values, so the output can still be searched and copied.

A page without a text layer (a scan: ``scanned_pages``) is drawn at ``SCAN_DPI`` as it is
shown (its rotation applied) by ``page_pictures``, and that picture goes through the image
path (``bot.files.images``: OCR, the values and what OCR could not vouch for painted, heads
hidden); the painted picture is the new page, with no text layer. A page the image path
withholds (most of it would be painted) comes out blank but for a line saying so.

Nothing of the original document is carried over but the pictures of its pages: no content
stream, font, annotation, form, attachment or metadata, which could hold values the text
layer does not show.
"""

from __future__ import annotations

import ctypes
import io
from collections.abc import Mapping, Sequence
from typing import Any

import pypdfium2 as pdfium  # type: ignore[import-untyped]
import pypdfium2.raw as pdfium_c  # type: ignore[import-untyped]
from PIL import Image, ImageDraw

from bot.core.errors import FileRejected
from bot.files.limits import FileLimits
from bot.files.out.splice import Edit, spliced

DPI = 150
"""The resolution pages are drawn at: text of 8 points and more stays readable."""
_SCALE = DPI / 72
_PAD = 1.0
"""Points a painted box reaches past a character's own box, so no edge of a glyph shows."""
CELL_GAP = 1.5
"""Font sizes of blank between two characters of a line that part two cells of a table (a
word space is a quarter of one, a justified line's widest well under one)."""
SCAN_DPI = 200
"""The resolution a scanned page is drawn at for OCR: 10-point text is 28 pixels high."""
_JPEG_QUALITY = 85
_FONT = b"Helvetica"
_LINE_BREAKS = "\r\n"


def opened(data: bytes, position: int, limits: FileLimits) -> Any:
    """The PDF opened by PDFium (a merely restricted PDF opens), its pages checked."""
    try:
        document = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        if "password" in str(exc).lower():
            raise FileRejected(
                f"File {position} is a password-protected PDF; I cannot open it. "
                "Send a copy without the password, or paste the text you need.",
                reason="password_protected",
            ) from None
        raise
    limits.check_pages(position, len(document))
    return document


def page_texts(document: Any) -> list[str]:
    """Each page's text, one character per PDFium character index (a line break's CR a space)."""
    texts = []
    for page in document:
        textpage = page.get_textpage()
        count = textpage.count_chars()
        chars = (chr(pdfium_c.FPDFText_GetUnicode(textpage.raw, i)) for i in range(count))
        texts.append("".join(" " if c == "\r" else c for c in chars))
    return texts


Span = tuple[int, int]
PageUnit = tuple[int, int, int, str | None]
"""``(page, start, end, heading)``: a unit's place in its page's text, and its column header."""


def page_units(document: Any, texts: Sequence[str]) -> list[PageUnit]:
    """The units of the pages' text layers, in order (see the module's docstring)."""
    units: list[PageUnit] = []
    for number, (page, text) in enumerate(zip(document, texts, strict=True)):
        if not text.strip():
            continue
        textpage = page.get_textpage()
        prose: list[Span] = []
        header: list[Span] = []
        for row in _rows(textpage, text):
            if len(row) < 2:
                header = []
                prose.extend(row)
                continue
            if prose:
                units.append((number, prose[0][0], prose[-1][1], None))
                prose = []
            for start, end in row:
                heading = _heading(textpage, text, header, start, end) if header else None
                units.append((number, start, end, heading))
            header = header or row
        if prose:
            units.append((number, prose[0][0], prose[-1][1], None))
    return units


def page_reading(document: Any, texts: Sequence[str]) -> list[str]:
    """Each page's text as a turn reads it: a line a line, a table row as a pipe-table row.

    The cells of a row (``_rows``) are set between bars (``| Oak desk | Lyon | 2 |``), the
    first row of a table being its header, so the model reads the table as one and detection
    reads each cell on its own, under its column's header (``guardrails.text.fields``);
    other lines are kept as they are.
    """
    pages = []
    for page, text in zip(document, texts, strict=True):
        if not text.strip():
            pages.append("")
            continue
        lines = []
        for row in _rows(page.get_textpage(), text):
            cells = [" ".join(text[a:b].split()) for a, b in row]
            lines.append(f"| {' | '.join(cells)} |" if len(cells) > 1 else cells[0])
        pages.append("\n".join(lines))
    return pages


def _rows(textpage: Any, text: str) -> list[list[Span]]:
    """Each line's cells: its characters' runs parted by more than ``CELL_GAP`` font sizes."""
    rows = []
    for start, line in zip(*reversed(_lines(text)), strict=True):
        cells: list[Span] = []
        right = None
        for index in range(start, start + len(line)):
            if text[index].isspace():
                continue
            x0, _, x1, _ = textpage.get_charbox(index)
            size = max(1.0, pdfium_c.FPDFText_GetFontSize(textpage.raw, index))
            if right is None or x0 - right > CELL_GAP * size:
                cells.append((index, index + 1))
            else:
                cells[-1] = (cells[-1][0], index + 1)
            right = max(x1, right) if right is not None and x0 - right <= CELL_GAP * size else x1
        if cells:
            rows.append(cells)
    return rows


def _heading(textpage: Any, text: str, header: list[Span], start: int, end: int) -> str | None:
    """The header cell over most of the cell's width, if any."""
    left, right = textpage.get_charbox(start)[0], textpage.get_charbox(end - 1)[2]
    best, overlap = None, 0.0
    for a, b in header:
        shared = min(right, textpage.get_charbox(b - 1)[2]) - max(left, textpage.get_charbox(a)[0])
        if shared > overlap:
            best, overlap = text[a:b], shared
    return best


def scanned_pages(document: Any, texts: Sequence[str]) -> tuple[int, ...]:
    """The pages (from 0) with pictures and no text layer: their words are only in pixels."""
    return tuple(
        number
        for number, (page, text) in enumerate(zip(document, texts, strict=True))
        if not text.strip() and any(True for _ in page.get_objects([pdfium_c.FPDF_PAGEOBJ_IMAGE]))
    )


def page_pictures(
    data: bytes, position: int, limits: FileLimits, pages: Sequence[int]
) -> list[bytes]:
    """``pages`` drawn at ``SCAN_DPI`` as they are shown, as PNG (a reader's task).

    Raises:
        FileRejected: the pictures together hold more than ``limits.max_pixels``, checked on
            the pages' sizes before any is drawn.
    """
    source = opened(data, position, limits)
    scale = SCAN_DPI / 72
    pixels = 0
    for number in pages:
        width, height = source[number].get_size()
        pixels += round(width * scale) * round(height * scale)
    limits.check_pixels(position, pixels, image=False)
    pictures = []
    for number in pages:
        drawn = source[number].render(scale=scale, may_draw_forms=False, draw_annots=False)
        png = io.BytesIO()
        drawn.to_pil().save(png, format="PNG", compress_level=1)
        pictures.append(png.getvalue())
    return pictures


def rewritten(
    data: bytes,
    position: int,
    limits: FileLimits,
    edits: Mapping[int, Sequence[Edit]],
    scans: Mapping[int, bytes | None] | None = None,
) -> bytes:
    """A new PDF of the pages drawn with each page's edits (by page number, from 0) painted.

    ``edits`` are by unit (``page_units``); ``scans``: the scanned pages (by number) as the
    image path painted them (PNG), or ``None`` for one it withheld.
    """
    source = opened(data, position, limits)
    texts = page_texts(source)
    scans = scans or {}
    by_page: dict[int, list[Edit]] = {}
    for unit, (number, start, _, _) in enumerate(page_units(source, texts)):
        by_page.setdefault(number, []).extend(
            (start + a, start + b, p) for a, b, p in edits.get(unit, ())
        )
    out = pdfium.PdfDocument.new()
    for number, (page, text) in enumerate(zip(source, texts, strict=True)):
        if number in scans:
            _scanned_page(out, page, number, scans[number])
            continue
        page_edits = by_page.get(number, ())
        rotation = page.get_rotation()
        page.set_rotation(0)
        left, bottom, right, top = page.get_cropbox()
        picture = page.render(scale=_SCALE, may_draw_forms=False, draw_annots=False).to_pil()
        _paint(picture, page.get_textpage(), page_edits, (left, top))
        target = out.new_page(right - left, top - bottom)
        _draw(out, target, picture, right - left, top - bottom)
        _text_layer(out, target, page.get_textpage(), text, page_edits, (left, bottom))
        target.gen_content()
        target.set_rotation(rotation)
    written = io.BytesIO()
    out.save(written)
    return written.getvalue()


def _scanned_page(document: Any, page: Any, number: int, painted: bytes | None) -> None:
    """A scanned page as the image path painted it, the size it is shown at, upright.

    A page it withheld is blank but for a line saying why.
    """
    width, height = page.get_size()  # as shown: a page turned by 90 degrees is wider
    target = document.new_page(width, height)
    if painted is None:
        _visible_line(
            document,
            target,
            f"[page {number + 1} withheld: most of it could not be read safely]",
            (36.0, height - 48.0),
        )
    else:
        with Image.open(io.BytesIO(painted)) as picture:
            _draw(document, target, picture, width, height)
    target.gen_content()


def _visible_line(document: Any, page: Any, line: str, at: tuple[float, float]) -> None:
    obj = pdfium_c.FPDFPageObj_NewTextObj(document.raw, _FONT, ctypes.c_float(12))
    wide = ctypes.create_string_buffer((line + "\x00").encode("utf-16-le"))
    pdfium_c.FPDFText_SetText(obj, ctypes.cast(wide, ctypes.POINTER(pdfium_c.FPDF_WCHAR)))
    pdfium_c.FPDFPageObj_Transform(obj, 1, 0, 0, 1, *at)
    pdfium_c.FPDFPage_InsertObject(page.raw, obj)


def _paint(
    picture: Image.Image, textpage: Any, edits: Sequence[Edit], origin: tuple[float, float]
) -> None:
    """A black box over each finding, one per line it runs over.

    The box joins its characters' loose boxes (the font's full height), so no edge of a glyph
    and no gap between two shows.
    """
    left, top = origin
    draw = ImageDraw.Draw(picture)
    for start, end, _ in edits:
        for x0, y0, x1, y1 in _line_boxes(textpage, start, end):
            draw.rectangle(
                (
                    (x0 - left - _PAD) * _SCALE,
                    (top - y1 - _PAD) * _SCALE,
                    (x1 - left + _PAD) * _SCALE,
                    (top - y0 + _PAD) * _SCALE,
                ),
                fill="black",
            )


def _line_boxes(textpage: Any, start: int, end: int) -> list[tuple[float, float, float, float]]:
    """The boxes of characters ``start`` to ``end``, joined while they stand on one line."""
    boxes: list[list[float]] = []
    for index in range(start, end):
        x0, y0, x1, y1 = textpage.get_charbox(index, loose=True)
        if x1 <= x0 or y1 <= y0:
            continue  # a generated character (a line break): no box
        last = boxes[-1] if boxes else None
        if last is not None and y0 < last[3] and y1 > last[1] and x0 >= last[0] - 1:
            last[:] = [min(last[0], x0), min(last[1], y0), max(last[2], x1), max(last[3], y1)]
        else:
            boxes.append([x0, y0, x1, y1])
    return [(a, b, c, d) for a, b, c, d in boxes]


def _draw(document: Any, page: Any, picture: Image.Image, width: float, height: float) -> None:
    """The painted picture of the page, filling the new page, as a JPEG."""
    jpeg = io.BytesIO()
    picture.convert("RGB").save(jpeg, format="JPEG", quality=_JPEG_QUALITY)
    jpeg.seek(0)
    image = pdfium.PdfImage.new(document)
    image.load_jpeg(jpeg, inline=False, autoclose=False)
    image.set_matrix(pdfium.PdfMatrix().scale(width, height))
    page.insert_obj(image)


def _text_layer(
    document: Any,
    page: Any,
    textpage: Any,
    text: str,
    edits: Sequence[Edit],
    origin: tuple[float, float],
) -> None:
    """The kept text, invisible, one line at a time at the line's first character."""
    lines, starts = _lines(text)
    kept = spliced(lines, [False] * len(lines), edits)
    left, bottom = origin
    for line, start, new in zip(lines, starts, kept, strict=True):
        first = next((i for i, c in enumerate(line) if not c.isspace()), None)
        if first is None or not new.strip():
            continue
        x0, y0, _, _ = textpage.get_charbox(start + first)
        size = max(1.0, pdfium_c.FPDFText_GetFontSize(textpage.raw, start + first))
        obj = pdfium_c.FPDFPageObj_NewTextObj(document.raw, _FONT, ctypes.c_float(size))
        wide = ctypes.create_string_buffer((new.strip() + "\x00").encode("utf-16-le"))
        pdfium_c.FPDFText_SetText(obj, ctypes.cast(wide, ctypes.POINTER(pdfium_c.FPDF_WCHAR)))
        pdfium_c.FPDFTextObj_SetTextRenderMode(obj, pdfium_c.FPDF_TEXTRENDERMODE_INVISIBLE)
        pdfium_c.FPDFPageObj_Transform(obj, 1, 0, 0, 1, x0 - left, y0 - bottom)
        pdfium_c.FPDFPage_InsertObject(page.raw, obj)


def _lines(text: str) -> tuple[list[str], list[int]]:
    """The page's text cut after each line break, and where each piece starts."""
    lines, starts, start = [], [], 0
    for index, char in enumerate(text):
        if char == "\n":
            lines.append(text[start : index + 1])
            starts.append(start)
            start = index + 1
    lines.append(text[start:])
    starts.append(start)
    return lines, starts
