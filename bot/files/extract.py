"""The text of a file of a given kind, or the clear answer why it is not read.

Text-like files are decoded here (``bot.files.text``); documents (PDF, docx, xlsx, pptx) have a
reader of their own (``bot.files.documents``), and images one to come, which this module
dispatches to by the sniffed kind.
"""

from __future__ import annotations

from bot.core.errors import FileRejected
from bot.files.budget import Extracted
from bot.files.documents import read_document
from bot.files.kinds import IMAGE_KINDS, FileKind
from bot.files.limits import FileLimits
from bot.files.text import decode

__all__ = ["Extracted", "extract"]


def extract(kind: FileKind, data: bytes, position: int, limits: FileLimits) -> Extracted:
    """The text to redact from a file ``sniff`` took for ``kind``.

    Raises:
        FileRejected: a kind not read, too many pages, too much text, password-protected,
            scanned, or unreadable; named with the file's position, never its name.
    """
    if kind == "text":
        return Extracted(decode(data, position=position))
    if kind in IMAGE_KINDS:
        raise FileRejected(
            f"File {position} is an image; images are not read yet. "
            "Paste the text you need instead.",
            reason="unsupported_file",
        )
    if kind == "unknown":
        raise FileRejected(
            f"File {position} is not a kind I read (text, CSV, JSON, source code, PDF, "
            "Word, Excel, PowerPoint).",
            reason="unsupported_file",
        )
    return read_document(kind, data, position, limits)
