"""The text of PDF and office documents, read within the file limits.

Every reader counts pages (PDF pages, sheets, slides) before it reads any text and refuses a
document past ``max_pages`` there, then stops as soon as the text passes ``max_chars``, so a
huge document costs no more than the limit. Office files are zips and are checked against zip
bombs before they are opened (``bot.files.office``). A file that fails to parse gets an answer
naming its position only: a parser's message can quote the document.

A PDF without a text layer is a scan: its text is in images, which ``pdf_page_images`` pulls
out for a reader of images (OCR) to take; until one is wired in, such a PDF is refused.
"""

from __future__ import annotations

import io

from pypdf import PasswordType, PdfReader

from bot.core.errors import FileRejected
from bot.files.budget import Extracted, TextBudget, unreadable
from bot.files.kinds import FileKind
from bot.files.limits import FileLimits
from bot.files.office import read_docx, read_pptx, read_xlsx

IMAGES_PER_PAGE = 4
"""Images a scanned page may hold on average: one scan, or a few strips of one."""


def read_document(kind: FileKind, data: bytes, position: int, limits: FileLimits) -> Extracted:
    """The text of a PDF, docx, xlsx or pptx file and its page (sheet, slide) count.

    Raises:
        FileRejected: too many pages, too much text, password-protected, a scanned PDF, a zip
            bomb, or a file that fails to parse; named by position, never by name or content.
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


def pdf_page_images(data: bytes, limits: FileLimits, *, position: int = 1) -> list[bytes]:
    """The images a PDF's pages hold, as PNG, in page order: what a scanned PDF is made of.

    A scanner stores each page as one image (some as a few strips), so OCR of these gives the
    scan's text. The page count is checked first, like every document's, and a PDF with more
    than ``IMAGES_PER_PAGE`` images a page on average is refused before it costs more.

    Raises:
        FileRejected: too many pages or images, password-protected, or a file that fails to
            parse.
    """
    with unreadable(position, "pdf"):
        reader = _open_pdf(data, position, limits)
        most = IMAGES_PER_PAGE * len(reader.pages)
        images: list[bytes] = []
        for page in reader.pages:
            for embedded in page.images:
                if embedded.image is None:  # a format Pillow cannot decode: no page to read
                    continue
                if len(images) == most:
                    raise FileRejected(
                        f"File {position} holds more than {most} images; I read scanned "
                        f"documents of up to {IMAGES_PER_PAGE} images a page.",
                        reason="too_many_images",
                    )
                png = io.BytesIO()
                embedded.image.save(png, format="PNG")
                images.append(png.getvalue())
        return images


def _read_pdf(data: bytes, position: int, limits: FileLimits) -> Extracted:
    reader = _open_pdf(data, position, limits)
    budget = TextBudget(position, limits)
    for page in reader.pages:
        budget.add(page.extract_text())
    text = budget.text()
    if not text.strip():
        raise FileRejected(
            f"File {position} is a PDF with no text layer (a scan, or pages of images); "
            "in a chat its pages are read by OCR, like images.",
            reason="scanned_pdf",
        )
    return Extracted(text, pages=len(reader.pages))


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
