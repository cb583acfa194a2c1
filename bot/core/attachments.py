"""Files attached to a message: what the adapter read from the event, and what the turn keeps.

The name is the user's and may hold personal data: it is never logged, and reaches the model
only after the guardrail. An adapter gives each message with files a ``FileSource`` that
fetches the bytes (Slack with the bot token, only from Slack's file host; Discord's CDN without
one); the turn hands them to its ``FileReader`` (``bot.core.ports``; ``bot.files.reader``),
which extracts and redacts them with the thread's vault into a ``FileIntake``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Protocol

FILES_SEPARATOR = '\n\n<file name="'
"""What follows a message's own text where the blocks of its files begin (``FileIntake.after``)."""


@dataclass(frozen=True, slots=True)
class Attachment:
    """One attached file.

    Attributes:
        name: the file name the user gave. Never logged.
        url: where the bytes are fetched (Slack ``url_private_download``, which needs the bot
            token; Discord's CDN URL); empty when the platform offers none (a deleted file).
        size: the size the platform announces, checked against the limit before the download.
        ref: the platform's id of a file whose URL must be asked for first (Slack sends only
            the id, ``file_access: check_file_info``, for files from Slack Connect).
    """

    name: str = field(repr=False)
    url: str = field(repr=False)
    size: int
    ref: str = ""


@dataclass(frozen=True, slots=True)
class ImagePart:
    """An image the model sees beside the newest user message, its detected values painted over.

    Only a file's redacted image travels this way; it is never kept (the history holds the
    file's redacted OCR text instead).
    """

    media_type: str
    """``image/png``, ``image/jpeg``, ``image/gif`` or ``image/webp``."""
    data: bytes = field(repr=False)


def human_size(size: int) -> str:
    """A file size as people read it: ``640 bytes``, ``12.5 KB``, ``20.0 MB``."""
    if size < 1024:
        return f"{size} bytes"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.1f} MB"


class FileSource(Protocol):
    """Fetches the bytes of a message's attachments from the platform that announced them."""

    async def fetch(self, attachment: Attachment, *, position: int, max_bytes: int) -> bytes:
        """The file's bytes, never more than ``max_bytes``.

        Raises:
            InputRejected: the file is gone or too large (``position`` names it).
            AdapterError: the platform refused or failed the download.
        """
        ...


@dataclass(frozen=True, slots=True)
class IncomingFile:
    """One file as it was downloaded: the name the user gave and its bytes. Never logged."""

    name: str = field(repr=False)
    data: bytes = field(repr=False)


@dataclass(frozen=True, slots=True)
class FileFact:
    """What the audit records about one file: never its content or its name."""

    kind: str
    size: int
    pages: int
    entities: dict[str, int]

    def as_json(self) -> dict[str, object]:
        """The fact as the audit record's metadata keeps it."""
        return {
            "kind": self.kind,
            "size": self.size,
            "pages": self.pages,
            "entities": self.entities,
        }


@dataclass(frozen=True, slots=True)
class FileIntake:
    """A message's files, redacted: one text block per file, images, and the audit's facts."""

    blocks: tuple[str, ...] = ()
    facts: tuple[FileFact, ...] = ()
    entities: dict[str, int] = field(default_factory=dict)
    images: tuple[ImagePart, ...] = ()

    def as_text(self) -> str:
        """The blocks joined, to follow the message's own text."""
        return "\n\n".join(self.blocks)

    def after(self, text: str) -> str:
        """The message's redacted ``text`` followed by the files' blocks: what the model reads."""
        return "\n\n".join(part for part in (text, *self.blocks) if part)  # FILES_SEPARATOR

    def counts_with(self, counts: dict[str, int]) -> dict[str, int]:
        """The entity counts of the message's text and of its files together."""
        return dict(Counter(counts) + Counter(self.entities))
