"""The text of a file of a given kind, or the clear answer why it is not read."""

from __future__ import annotations

from bot.core.errors import InputRejected
from bot.files.kinds import IMAGE_KINDS, FileKind
from bot.files.text import decode


def text_of(kind: FileKind, data: bytes, position: int) -> str:
    """The text to redact from a file ``sniff`` took for ``kind``.

    Raises:
        InputRejected: a kind not read (yet), named with the file's position, never its name.
    """
    if kind == "text":
        return decode(data, position=position)
    if kind in IMAGE_KINDS:
        raise InputRejected(
            f"File {position} is an image; images are not read yet. "
            "Paste the text you need instead.",
            reason="unsupported_file",
        )
    if kind == "unknown":
        raise InputRejected(
            f"File {position} is not a kind I read (text, CSV, JSON, source code).",
            reason="unsupported_file",
        )
    raise InputRejected(
        f"File {position} is a {kind.upper()} document; documents are not read yet. "
        "Paste the text you need instead.",
        reason="unsupported_file",
    )
