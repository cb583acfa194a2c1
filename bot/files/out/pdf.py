"""PDFs written back as PDFs: each page rendered, its values painted over, the kept text on it.

PDF text cannot be replaced in place the way a docx run can: a content stream draws glyphs
by font codes, often a subset with no way back to characters, and a value's glyphs can sit in
several operations. So a redacted PDF is drawn afresh (PDFium, through pypdfium2):

- the reader process lists each page's text layer, one unit per page, one character for each
  of PDFium's character indices (so a finding's offsets are its characters' boxes);
- the writer renders each page at ``DPI`` with annotations and form fields left out, paints a
  black box over the characters of every finding, and puts the picture (JPEG) on a new page
  of the same size and rotation; over it goes an invisible text layer (render mode 3, as OCR
  tools write) of the page's kept text, one line at a time where the line stood, with the
  placeholders in place of the values, so the output can still be searched and copied.

Nothing of the original document is carried over but the pictures of its pages: no content
stream, font, annotation, form, attachment or metadata, which could hold values the text
layer does not show. A page without a text layer (a scan) would need OCR's boxes: such a PDF
is not written as a PDF (``scanned`` says so) and its redacted text is written instead.
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


def scanned(document: Any, texts: Sequence[str]) -> bool:
    """Whether a page has pictures and no text layer: its words are only in pixels."""
    for page, text in zip(document, texts, strict=True):
        if not text.strip() and any(True for _ in page.get_objects([pdfium_c.FPDF_PAGEOBJ_IMAGE])):
            return True
    return False


def rewritten(
    data: bytes, position: int, limits: FileLimits, edits: Mapping[int, Sequence[Edit]]
) -> bytes:
    """A new PDF of the pages drawn with each page's edits (by page number, from 0) painted."""
    source = opened(data, position, limits)
    texts = page_texts(source)
    out = pdfium.PdfDocument.new()
    for number, (page, text) in enumerate(zip(source, texts, strict=True)):
        page_edits = edits.get(number, ())
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
