"""Fetching an attached file's bytes from the platform, never more than the size limit.

Slack serves ``url_private_download`` to the bot token only (scope ``files:read``) and answers
a request without it with its sign-in page (HTML, status 200), which must not be taken for the
file; Discord's CDN URLs need no token. The bytes are read in chunks and the download stops as
soon as it passes the limit, whatever size the platform announced.
"""

from __future__ import annotations

import aiohttp

from bot.core.attachments import Attachment
from bot.core.errors import AdapterError, InputRejected

_CHUNK = 64 * 1024


async def download(
    session: aiohttp.ClientSession,
    attachment: Attachment,
    *,
    position: int,
    max_bytes: int,
    token: str | None = None,
) -> bytes:
    """The bytes of one attached file.

    Raises:
        InputRejected: the file is gone (``file_unavailable``) or larger than ``max_bytes``
            (``file_too_large``), by its announced size (nothing fetched) or by what arrives.
        AdapterError: the platform refused or failed the download; the message names the
            file's position and the HTTP status, never its name or URL.
    """
    if not attachment.url:
        raise InputRejected(
            f"File {position} was deleted or hidden before I could read it.",
            reason="file_unavailable",
        )
    if attachment.size > max_bytes:
        raise _too_large(position, max_bytes)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        async with session.get(attachment.url, headers=headers) as response:
            if response.status != 200 or (token and response.content_type == "text/html"):
                raise AdapterError(
                    f"file {position} could not be downloaded (HTTP {response.status}, "
                    f"{response.content_type}); does the app have the files:read scope?"
                )
            data = bytearray()
            async for chunk in response.content.iter_chunked(_CHUNK):
                data += chunk
                if len(data) > max_bytes:
                    raise _too_large(position, max_bytes)
            return bytes(data)
    except aiohttp.ClientError as exc:
        raise AdapterError(
            f"file {position} could not be downloaded: {type(exc).__name__}"
        ) from exc


def _too_large(position: int, max_bytes: int) -> InputRejected:
    return InputRejected(
        f"File {position} is larger than {max_bytes / (1024 * 1024):.1f} MB, the most I read.",
        reason="file_too_large",
    )
