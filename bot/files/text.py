"""Text-like files decoded to str, whatever their charset."""

from __future__ import annotations

import charset_normalizer

from bot.core.errors import FileRejected

_WESTERN_LOOKALIKES = frozenset(
    {"cp1250", "cp1254", "cp1257", "cp775", "cp850", "cp852", "cp437", "hp_roman8", "latin_1"}
    | {"iso8859_2", "iso8859_13", "iso8859_15", "mac_roman", "mac_latin2", "cp1252"}
)
"""Latin codepages the detector cannot tell apart on a short sample (``Zoë`` read as ``Zoė``)."""


def decode(data: bytes, *, position: int) -> str:
    """The text of a text-like file: UTF-8 when it is, else the charset detected.

    When the detector only narrows it to a Latin single-byte codepage, Windows-1252 (the
    commonest legacy one, and the one spreadsheets export) is taken if it decodes the bytes.

    Raises:
        FileRejected: no charset decodes the bytes (``reason="unreadable_file"``).
    """
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    best = charset_normalizer.from_bytes(data).best()
    if best is None:
        raise FileRejected(
            f"File {position} looks like text but I could not tell its character encoding.",
            reason="unreadable_file",
        )
    if best.encoding in _WESTERN_LOOKALIKES:
        try:
            return data.decode("cp1252")
        except UnicodeDecodeError:
            pass
    return str(best)
