"""Text-like files decoded to str, whatever their charset."""

from __future__ import annotations

import charset_normalizer

from bot.core.errors import InputRejected


def decode(data: bytes, *, position: int) -> str:
    """The text of a text-like file: UTF-8 when it is, else the charset detected.

    Raises:
        InputRejected: no charset decodes the bytes (``reason="unreadable_file"``).
    """
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    best = charset_normalizer.from_bytes(data).best()
    if best is None:
        raise InputRejected(
            f"File {position} looks like text but I could not tell its character encoding.",
            reason="unreadable_file",
        )
    return str(best)
