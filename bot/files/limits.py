"""How many files, how large and how many pages one message may bring, and the answers past them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from bot.core.attachments import human_size
from bot.core.errors import FileRejected

MIB = 1024 * 1024


class FileSettings(Protocol):
    """The settings the limits are read from (``bot.settings.Settings``)."""

    files_max_bytes: int
    files_max_count: int
    files_max_pages: int
    files_max_chars: int


@dataclass(frozen=True, slots=True)
class FileLimits:
    """The limits of one message's files.

    Attributes:
        max_bytes: the largest file read (default 20 MB).
        max_files: the most files read from one message (default 5).
        max_pages: the most pages (or sheets, or slides) read from one document (default 30).
        max_chars: the most characters of text taken from one file (default 100,000): the
            guardrail reads about 12 kB/s on a shared 2-core machine (tests/perf/bench_files),
            so a 20 MB text file would hold its thread for half an hour.
    """

    max_bytes: int = 20 * MIB
    max_files: int = 5
    max_pages: int = 30
    max_chars: int = 100_000

    @classmethod
    def of(cls, settings: FileSettings) -> FileLimits:
        """The limits the service's settings give (``VEILBOT_FILES_MAX_*``)."""
        return cls(
            max_bytes=settings.files_max_bytes,
            max_files=settings.files_max_count,
            max_pages=settings.files_max_pages,
            max_chars=settings.files_max_chars,
        )

    def check_count(self, count: int) -> None:
        """Raises FileRejected when one message brings more files than are read."""
        if count and not self.max_files:
            raise FileRejected(
                "Files are not read here; please paste the text you need.",
                reason="files_off",
            )
        if count > self.max_files:
            raise FileRejected(
                f"That message has {count} files; I read at most {self.max_files} at a time. "
                "Please send them in smaller groups.",
                reason="too_many_files",
            )

    def check_sizes(self, sizes: Sequence[int]) -> None:
        """Raises FileRejected naming the position of the first file past the size limit.

        The size is checked before the download when the platform announces it, and again on
        the bytes received.
        """
        for position, size in enumerate(sizes, start=1):
            if size > self.max_bytes:
                raise FileRejected(
                    f"File {position} is {human_size(size)}; I read files up to "
                    f"{human_size(self.max_bytes)}.",
                    reason="file_too_large",
                )

    def check_pages(self, position: int, pages: int) -> None:
        """Raises FileRejected when a document has more pages than are read."""
        if pages > self.max_pages:
            raise FileRejected(
                f"File {position} has {pages} pages; I read documents up to "
                f"{self.max_pages} pages.",
                reason="too_many_pages",
            )

    def check_chars(self, position: int, chars: int, *, complete: bool = True) -> None:
        """Raises FileRejected when a file holds more text than is read.

        A document's reader checks as it goes (``complete=False``) and stops at the limit
        rather than extracting all of a huge file, so the answer then says "more than".
        """
        if chars > self.max_chars:
            held = f"{chars:,}" if complete else f"more than {self.max_chars:,}"
            raise FileRejected(
                f"File {position} holds {held} characters of text; I read up to "
                f"{self.max_chars:,}. Please send the part you need.",
                reason="too_much_text",
            )
