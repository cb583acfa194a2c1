"""The text of a file of a given kind, or the clear answer why it is not read.

Text-like files are decoded here (``bot.files.text``); documents (PDF, docx, xlsx, pptx) and
images have readers of their own, which this module dispatches to by the sniffed kind.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.core.errors import FileRejected
from bot.files.kinds import IMAGE_KINDS, FileKind
from bot.files.limits import FileLimits
from bot.files.text import decode


@dataclass(frozen=True, slots=True)
class Extracted:
    """What a file says, as text to redact, and how many pages (sheets, slides) it had."""

    text: str
    pages: int = 1


def extract(kind: FileKind, data: bytes, position: int, limits: FileLimits) -> Extracted:
    """The text to redact from a file ``sniff`` took for ``kind``.

    Raises:
        FileRejected: a kind not read, too many pages, or unreadable; named with the file's
            position, never its name.
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
            f"File {position} is not a kind I read (text, CSV, JSON, source code).",
            reason="unsupported_file",
        )
    raise FileRejected(
        f"File {position} is a {kind.upper()} document; documents are not read yet. "
        "Paste the text you need instead.",
        reason="unsupported_file",
    )
