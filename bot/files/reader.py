"""The turn's ``FileReader``: attachments fetched, then redacted with the thread's vault.

Fetching reads no thread state, so the turn begins it before it takes the thread's lock and the
downloads overlap the wait; the redaction needs the vault and runs under the lock, before the
message's own text is placed, so the answer's restorer knows the files' placeholders too.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from bot.core.attachments import FileIntake, IncomingFile
from bot.core.errors import AdapterError, FileRejected
from bot.core.logsafe import log_failure
from bot.core.ports import Guardrail
from bot.core.scopes import ImagePolicy, PolicyOverride
from bot.core.types import InboundMessage, Platform, ThreadId
from bot.files.confine import Readers
from bot.files.intake import redact_files
from bot.files.limits import FileLimits

log = logging.getLogger(__name__)


class FilesReader:
    """Reads a message's files for the turn (``bot.core.ports.FileReader``)."""

    def __init__(self, guardrail: Guardrail, limits: FileLimits, *, tesseract: str) -> None:
        self._guardrail = guardrail
        self._limits = limits
        self._tesseract = tesseract
        self._readers = Readers(limits)  # the service's files share its reader processes

    async def fetch(self, message: InboundMessage) -> list[IncomingFile]:
        """Every attachment's bytes, all downloads at once.

        Raises:
            FileRejected: too many files, one too large or gone, or a download failed (the
                reason is logged: HTTP status and the file's position, never its name or URL).
        """
        attachments = message.files
        self._limits.check_count(len(attachments))
        self._limits.check_sizes([a.size for a in attachments])
        source = message.file_source
        if source is None:
            raise FileRejected(
                "I can't fetch files from here; please paste the text you need.",
                reason="file_unavailable",
            )
        downloads = [
            asyncio.ensure_future(source.fetch(a, position=i, max_bytes=self._limits.max_bytes))
            for i, a in enumerate(attachments, start=1)
        ]
        try:
            data = await asyncio.gather(*downloads)
        except AdapterError as exc:
            log_failure(log, "file download failed thread=%s", exc, message.thread_id)
            raise FileRejected(
                f"I couldn't download the {_files(len(attachments))} from "
                f"{message.platform.title()}; please try again, or paste the text you need.",
                reason="file_unavailable",
            ) from exc
        finally:
            for download in downloads:  # one file failed: the others are not needed
                download.cancel()
        return [IncomingFile(a.name, d) for a, d in zip(attachments, data, strict=True)]

    async def redact(
        self,
        thread_id: ThreadId,
        files: Sequence[IncomingFile],
        *,
        platform: Platform,
        policy: PolicyOverride | None,
        images: ImagePolicy,
    ) -> FileIntake:
        """Every file's name and content through the guardrail (``redact_files``)."""
        return await redact_files(
            self._guardrail,
            thread_id,
            files,
            platform=platform,
            limits=self._limits,
            policy=policy,
            images=images,
            tesseract=self._tesseract,
            readers=self._readers,
        )


def _files(count: int) -> str:
    return "file" if count == 1 else "files"
