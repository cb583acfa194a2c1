"""The Slack adapter's ``FileSource``: files fetched with the bot token from Slack's file host.

Slack names some files by id only (``file_access: check_file_info``: files shared from
Slack Connect); their URL and size come from ``files.info`` before the download.
"""

from __future__ import annotations

from dataclasses import replace

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from adapters.downloads import SLACK_FILE_HOSTS, HostedFiles
from bot.core.attachments import Attachment
from bot.core.errors import AdapterError, FileRejected


class SlackFiles:
    """Fetches a Slack message's files (``bot.core.attachments.FileSource``)."""

    def __init__(self, client: AsyncWebClient, *, api_url: str | None) -> None:
        self._client = client
        # the client's token when the file is fetched: in OAuth mode, the served workspace's
        self._hosted = HostedFiles(
            "slack", SLACK_FILE_HOSTS, api_url=api_url, token=lambda: client.token
        )

    async def fetch(self, attachment: Attachment, *, position: int, max_bytes: int) -> bytes:
        """The file's bytes; its URL asked of ``files.info`` first when Slack gave only its id.

        Raises:
            FileRejected: gone, not on Slack's file host, or too large.
            AdapterError: Slack refused or failed ``files.info`` or the download.
        """
        if not attachment.url and attachment.ref:
            attachment = await self._described(attachment, position)
        return await self._hosted.fetch(attachment, position=position, max_bytes=max_bytes)

    async def _described(self, attachment: Attachment, position: int) -> Attachment:
        try:
            response = await self._client.files_info(file=attachment.ref)
        except SlackApiError as exc:
            error = exc.response.get("error") if exc.response is not None else None
            if error in ("file_not_found", "file_deleted"):
                raise FileRejected(
                    f"File {position} was deleted or hidden before I could read it.",
                    reason="file_unavailable",
                ) from exc
            raise AdapterError(f"files.info for file {position} failed: {error}") from exc
        file = response.get("file") or {}
        return replace(
            attachment,
            url=str(file.get("url_private_download") or file.get("url_private") or ""),
            size=int(file.get("size") or 0),
        )
