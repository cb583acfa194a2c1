"""A file's kind decided from its bytes (magic numbers), never from the name it was sent with."""

from __future__ import annotations

import io
import zipfile
from typing import Literal

FileKind = Literal["text", "pdf", "png", "jpeg", "gif", "webp", "docx", "xlsx", "pptx", "unknown"]

IMAGE_KINDS: frozenset[FileKind] = frozenset({"png", "jpeg", "gif", "webp"})
OFFICE_KINDS: frozenset[FileKind] = frozenset({"docx", "xlsx", "pptx"})

LegacyKind = Literal["doc", "xls", "ppt", "encrypted"]
"""An office file in a compound file: an old binary format, or a password-protected one."""

_MAGIC: tuple[tuple[bytes, FileKind], ...] = (
    (b"%PDF-", "pdf"),
    (b"\x89PNG\r\n\x1a\n", "png"),
    (b"\xff\xd8\xff", "jpeg"),
    (b"GIF87a", "gif"),
    (b"GIF89a", "gif"),
)
_OFFICE_PARTS: tuple[tuple[str, FileKind], ...] = (
    ("word/", "docx"),
    ("xl/", "xlsx"),
    ("ppt/", "pptx"),
)
_COMPOUND_FILE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
"""The magic of an OLE2 compound file: the container of .doc, .xls and .ppt (Office 97-2003)."""
_LEGACY_STREAMS: tuple[tuple[str, LegacyKind], ...] = (
    ("EncryptedPackage", "encrypted"),  # a password-protected docx, xlsx or pptx
    ("WordDocument", "doc"),
    ("PowerPoint Document", "ppt"),
    ("Workbook", "xls"),
    ("Book", "xls"),  # Excel 5/95
)
_BINARY_SAMPLE = 8192
_BOMS = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")


def sniff(data: bytes) -> FileKind:
    """The kind of ``data`` from its first bytes: a renamed PDF is still a PDF."""
    for magic, kind in _MAGIC:
        if data.startswith(magic):
            return kind
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    if data.startswith(b"PK\x03\x04"):
        return _office(data)
    return "text" if _looks_textual(data) else "unknown"


def legacy_office(data: bytes) -> LegacyKind | None:
    """What an Office 97-2003 file (or an encrypted new one) is, by its main stream's name.

    Such files are compound files (``sniff`` calls them ``unknown``): a small file system whose
    directory names each stream in UTF-16, NUL-padded; Word's main stream is ``WordDocument``,
    Excel's ``Workbook``, PowerPoint's ``PowerPoint Document``. ``None`` for anything else.
    """
    if not data.startswith(_COMPOUND_FILE):
        return None
    for stream, kind in _LEGACY_STREAMS:
        if stream.encode("utf-16-le") + b"\x00\x00" in data:
            return kind
    return None


def _office(data: bytes) -> FileKind:
    """docx, xlsx or pptx by the parts the zip holds; any other zip is unknown."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = archive.namelist()
    except (zipfile.BadZipFile, ValueError):
        return "unknown"
    if "[Content_Types].xml" not in names:
        return "unknown"
    for prefix, kind in _OFFICE_PARTS:
        if any(name.startswith(prefix) for name in names):
            return kind
    return "unknown"


def _looks_textual(data: bytes) -> bool:
    """No NUL byte in the first 8 KiB (UTF-16 text announces itself with a BOM)."""
    sample = data[:_BINARY_SAMPLE]
    if sample.startswith(_BOMS):
        return True
    return b"\x00" not in sample
