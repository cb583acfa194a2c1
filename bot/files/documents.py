"""The text of PDF and office documents, read within the file limits.

Every reader counts pages (PDF pages, sheets, slides) before it reads any text and refuses a
document past ``max_pages`` there, then stops as soon as the text passes ``max_chars``, so a
huge document costs no more than the limit. Office files are zips and are checked against zip
bombs before they are opened (``bot.files.office``). A file that fails to parse gets an answer
naming its position only: a parser's message can quote the document.

A PDF page without a text layer is a scan: its text is in pictures, which come out as a
``Scan`` part, in page order among the text, for the image reader (OCR) to take.
"""

from __future__ import annotations

import io
import math
from typing import Any

from PIL import Image
from pypdf import PageObject, PasswordType, PdfReader

from bot.core.errors import FileRejected
from bot.files.extracted import Extracted, Scan, TextAllowance, unreadable
from bot.files.kinds import FileKind
from bot.files.limits import FileLimits
from bot.files.office import read_pptx, read_xlsx
from bot.files.out import pdf
from bot.files.word import read_docx

IMAGES_PER_PAGE = 4
"""Images a scanned page may hold on average: one scan, or a few strips of one."""


def read_document(kind: FileKind, data: bytes, position: int, limits: FileLimits) -> Extracted:
    """The text of a PDF, docx, xlsx or pptx file and its page (sheet, slide) count.

    Raises:
        FileRejected: too many pages, too much text, too many pictures, password-protected,
            a zip bomb, or a file that fails to parse; named by position, never by name or
            content.
    """
    with unreadable(position, kind):
        if kind == "pdf":
            return _read_pdf(data, position, limits)
        if kind == "docx":
            return read_docx(data, position, limits)
        if kind == "xlsx":
            return read_xlsx(data, position, limits)
        if kind == "pptx":
            return read_pptx(data, position, limits)
    raise ValueError(f"not a document kind: {kind}")


def _read_pdf(data: bytes, position: int, limits: FileLimits) -> Extracted:
    """Each page's text layer; a page without one is a scan, whose pictures OCR will read.

    The text is PDFium's, in lines, a table's rows (cells drawn apart, with no separator in
    the text but the gap) as pipe-table rows (``bot.files.out.pdf.page_reading``): pypdf
    gives such a table one cell a line, which neither the model nor detection can read as a
    table. pypdf finds the pictures of scanned pages.

    A PDF may mix both (a typed letter with a signed, scanned page): the parts keep the
    pages' order. More than ``IMAGES_PER_PAGE`` pictures a page on average is refused before
    they cost more.
    """
    reader = _open_pdf(data, position, limits)
    document = pdf.opened(data, position, limits)
    allowance = TextAllowance(position, limits)
    parts: list[str | Scan] = []
    pictures = _Pictures(position, IMAGES_PER_PAGE * len(reader.pages), limits)
    texts = pdf.page_texts(document)
    for number, (page, text) in enumerate(
        zip(reader.pages, pdf.page_reading(document, texts), strict=True), start=1
    ):
        if text.strip():
            allowance.add(text)
            continue
        placed = _Placed()
        page.extract_text(visitor_operand_before=placed.visit)  # where it draws its pictures
        scan = pictures.of_page(page, number, placed)
        if scan is not None:
            if written := allowance.take():
                parts.append(written)
            parts.append(scan)
    if written := allowance.take():
        parts.append(written)
    return Extracted(tuple(parts), pages=len(reader.pages))


class _Placed:
    """Where a page draws each picture, seen while its text is extracted (the same pass).

    A page's pictures are listed in no useful order (reportlab sorts them by a hash); the
    strips of a scanned page are read top to bottom, then left to right, as they are placed.
    """

    def __init__(self) -> None:
        self._where: dict[str, tuple[float, float]] = {}

    def visit(self, operator: bytes, operands: list[Any], matrix: list[float], _: Any) -> None:
        """Note a ``Do`` (draw a picture) in the content stream: pypdf calls this per operation."""
        if operator == b"Do" and operands:
            self._where.setdefault(str(operands[0]), (-float(matrix[5]), float(matrix[4])))

    def order(self, name: object) -> tuple[float, float]:
        """The sort key of a picture: top to bottom, left to right; unseen ones last."""
        return self._where.get(name, _UNSEEN) if isinstance(name, str) else _UNSEEN


_UNSEEN = (math.inf, math.inf)


class _Pictures:
    """The pictures of a PDF's scanned pages, as PNG, counted against the file's share.

    Their pixels count against ``max_pixels`` by the size each declares, before it is decoded.
    """

    def __init__(self, position: int, most: int, limits: FileLimits) -> None:
        self._position = position
        self._most = most
        self._limits = limits
        self._taken = 0
        self._pixels = 0

    def of_page(self, page: PageObject, number: int, placed: _Placed) -> Scan | None:
        """The page's pictures in reading order; ``None`` for a blank page."""
        images: list[bytes] = []
        undecoded = 0
        for name in sorted(page.images.keys(), key=placed.order):
            declared = _declared_pixels(page, name)
            if declared is not None:
                self._count(declared)
            picture = _decoded(page, name)
            if picture is None:
                undecoded += 1
                continue
            if declared is None:  # a size only its decoding tells
                self._count(picture.width * picture.height)
            if self._taken == self._most:
                raise FileRejected(
                    f"File {self._position} holds more than {self._most} images; I read "
                    f"scanned documents of up to {IMAGES_PER_PAGE} images a page.",
                    reason="too_many_images",
                )
            self._taken += 1
            png = io.BytesIO()
            picture.save(png, format="PNG")
            images.append(png.getvalue())
        if not images and not undecoded:
            return None
        return Scan(tuple(images), page=number, undecoded=undecoded)

    def _count(self, pixels: int) -> None:
        self._pixels += pixels
        self._limits.check_pixels(self._position, self._pixels, image=False)


def _declared_pixels(page: PageObject, name: str | list[str]) -> int | None:
    """The width times the height a picture of the page declares, read without decoding it.

    ``name`` is pypdf's key: a name in the page's resources, or a path through the forms that
    hold one. ``None`` for an inline picture (decoded with the page's text already) or a
    picture whose size cannot be read this way: its decoding tells.
    """
    path = [name] if isinstance(name, str) else list(name)
    holder: Any = page
    try:
        for step in path:
            holder = holder["/Resources"]["/XObject"][step].get_object()
        return int(holder["/Width"]) * int(holder["/Height"])
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def _decoded(page: PageObject, name: Any) -> Image.Image | None:
    """A picture of the page, or ``None`` when it cannot be decoded.

    Scanners often compress with JBIG2, which pypdf decodes only with the ``jbig2dec``
    program; without it (or for a broken stream) that picture is told as not read, and the
    rest of the document is still read.
    """
    try:
        picture: Image.Image | None = page.images[name].image
    except MemoryError:  # the reader process answers it
        raise
    except Exception:  # any decoder's failure costs this picture only, and is said
        return None
    return picture


def _open_pdf(data: bytes, position: int, limits: FileLimits) -> PdfReader:
    """A PDF opened (with the empty password a merely restricted PDF has) and its pages checked."""
    reader = PdfReader(io.BytesIO(data))
    if reader.is_encrypted and reader.decrypt("") == PasswordType.NOT_DECRYPTED:
        raise FileRejected(
            f"File {position} is a password-protected PDF; I cannot open it. "
            "Send a copy without the password, or paste the text you need.",
            reason="password_protected",
        )
    limits.check_pages(position, len(reader.pages))
    return reader
