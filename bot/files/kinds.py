"""A file's kind decided from its bytes (magic numbers), never from the name it was sent with."""

from __future__ import annotations

import io
import zipfile
from typing import Literal

FileKind = Literal["text", "pdf", "png", "jpeg", "gif", "webp", "docx", "xlsx", "pptx", "unknown"]

IMAGE_KINDS: frozenset[FileKind] = frozenset({"png", "jpeg", "gif", "webp"})
OFFICE_KINDS: frozenset[FileKind] = frozenset({"docx", "xlsx", "pptx"})

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
