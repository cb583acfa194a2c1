"""What a file of a given kind says (text, and pictures for OCR), or the clear answer why not.

Text-like files are decoded here (``bot.files.text``); documents (PDF, docx, xlsx, pptx) have a
reader of their own (``bot.files.documents``), which this module dispatches to by the sniffed
kind; an image is one ``Scan`` for the image reader (``bot.files.images``).
"""

from __future__ import annotations

from bot.core.errors import FileRejected
from bot.files.documents import read_document
from bot.files.extracted import Extracted, Scan
from bot.files.kinds import IMAGE_KINDS, FileKind, legacy_office, sniff
from bot.files.limits import FileLimits
from bot.files.text import decode

__all__ = ["Extracted", "Scan", "extract", "sniffed"]


def sniffed(data: bytes, position: int, limits: FileLimits) -> tuple[FileKind, Extracted]:
    """The kind of a file's bytes (``sniff``) and what ``extract`` reads of it.

    The reader process's task (``bot.files.confine``): sniffing opens an office file's zip
    directory, which a hostile file can make huge, so it runs there too.
    """
    kind = sniff(data)
    return kind, extract(kind, data, position, limits)


def extract(kind: FileKind, data: bytes, position: int, limits: FileLimits) -> Extracted:
    """The text to redact and the pictures to OCR of a file ``sniff`` took for ``kind``.

    Raises:
        FileRejected: a kind not read (an old Office format: with what to do instead), too
            many pages, too much text, password-protected, or unreadable; named with the
            file's position, never its name.
    """
    if kind == "text":
        text = decode(data, position=position)
        limits.check_chars(position, len(text))  # refused here, not carried out whole
        return Extracted.of_text(text)
    if kind in IMAGE_KINDS:
        return Extracted((Scan((data,)),))
    if kind == "unknown":
        raise _not_read(data, position)
    return read_document(kind, data, position, limits)


_OLD_FORMATS = {
    "doc": ("Word 97-2003 document (.doc)", "Word Document (.docx)"),
    "xls": ("Excel 97-2003 workbook (.xls)", "Excel Workbook (.xlsx)"),
    "ppt": ("PowerPoint 97-2003 presentation (.ppt)", "PowerPoint Presentation (.pptx)"),
}


def _not_read(data: bytes, position: int) -> FileRejected:
    """The answer for a file of a kind not read: for an old Office file, what to do instead."""
    legacy = legacy_office(data)
    if legacy == "encrypted":
        return FileRejected(
            f"File {position} is a password-protected Office document; I cannot open it. "
            "Send a copy without the password, or paste the text you need.",
            reason="password_protected",
        )
    if legacy is not None:
        old, new = _OLD_FORMATS[legacy]
        return FileRejected(
            f"File {position} is an old-format {old}, which I do not read. Open it and use "
            f"File > Save As > {new} or PDF, then send that copy.",
            reason="old_office_format",
        )
    return FileRejected(
        f"File {position} is not a kind I read (text, CSV, JSON, source code, PDF, "
        "Word .docx, Excel .xlsx, PowerPoint .pptx, images).",
        reason="unsupported_file",
    )
