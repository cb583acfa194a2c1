"""What a reader returns, the text allowance it fills, the answer for a file that fails to parse.

The readers share these so each stops at the same limit with the same answer: a huge document
is refused as soon as its text passes ``max_chars``, not after all of it was extracted.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from bot.core.errors import FileRejected
from bot.files.limits import FileLimits


@dataclass(frozen=True, slots=True)
class Scan:
    """Pictures of text to read by OCR: an image file, or a PDF page with no text layer.

    Attributes:
        images: the pictures, in order (a scanner may store one page as a few strips).
        page: the PDF page they make up; ``None`` for an image file.
        undecoded: pictures of the page in a format Pillow cannot decode (JBIG2, say).
    """

    images: tuple[bytes, ...] = field(repr=False)
    page: int | None = None
    undecoded: int = 0


@dataclass(frozen=True, slots=True)
class Extracted:
    """What a file says, in reading order, and how many pages (sheets, slides) it had.

    Attributes:
        parts: text to redact, and scans to read by OCR, in the order the file has them (a
            PDF's text pages, then a scanned page, then more text pages, ...).
        pages: the file's pages, sheets or slides; a page drawn from several pictures is one.
    """

    parts: tuple[str | Scan, ...]
    pages: int = 1

    @classmethod
    def of_text(cls, text: str, pages: int = 1) -> Extracted:
        """A file that is all text."""
        return cls((text,), pages)

    @property
    def text(self) -> str:
        """The text parts joined: all of a file that has no scan."""
        return "\n".join(part for part in self.parts if isinstance(part, str))


class TextAllowance:
    """Lines of one document's text, refused (``too_much_text``) once they pass the limit."""

    def __init__(self, position: int, limits: FileLimits) -> None:
        self._position = position
        self._limits = limits
        self._lines: list[str] = []
        self._chars = -1  # the first line adds no separator

    def add(self, line: str) -> None:
        """Keep ``line``; raises FileRejected as soon as the text is over the limit."""
        self._lines.append(line)
        self._chars += len(line) + 1
        self._limits.check_chars(self._position, self._chars, complete=False)

    def text(self) -> str:
        """The lines kept, one per line."""
        return "\n".join(self._lines)

    def take(self) -> str:
        """The lines kept so far, then forgotten; their characters still count against the limit."""
        text, self._lines = self.text(), []
        return text


@contextmanager
def unreadable(position: int, kind: str) -> Iterator[None]:
    """Turn a parser's failure into a clear answer naming the file's position only.

    A parser's exception text can quote the document (a bad cell, a font name, a part's
    content), so it is dropped (``from None``) rather than chained where a log could print it.
    """
    try:
        yield
    except (FileRejected, MemoryError):  # the reader process answers running out of memory
        raise
    except Exception:
        raise FileRejected(
            f"File {position} looks like a {kind.upper()} document but I could not read it; "
            "it may be damaged. Try saving it again, or paste the text you need.",
            reason="unreadable_file",
        ) from None
