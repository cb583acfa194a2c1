"""Fetching an attached file's bytes from the platform, never more than the size limit.

Slack serves ``url_private_download`` to the bot token only (scope ``files:read``) and answers
a request without it with its sign-in page (HTML, status 200), which must not be taken for the
file; Discord's CDN URLs need no token. The bytes are read in chunks and the download stops as
soon as it passes the limit, whatever size the platform announced.

A URL is read the way the HTTP client reads it (yarl, aiohttp's parser), and one whose meaning
is in doubt names no host: a scheme other than http(s), credentials before an ``@``
(``http://files.slack.com@elsewhere/…`` is a request to elsewhere), or what the client refuses
to parse (a backslash in the host). Such a file is refused as one on another host.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from pathlib import Path

import aiohttp
from yarl import URL

from bot.core.attachments import Attachment, human_size
from bot.core.errors import AdapterError, FileRejected

_CHUNK = 64 * 1024
_TIMEOUT = aiohttp.ClientTimeout(total=120, sock_connect=15, sock_read=30)

SLACK_FILE_HOSTS = frozenset({"files.slack.com"})
"""Where Slack serves ``url_private_download``: the only host the bot token is sent to."""
DISCORD_FILE_HOSTS = frozenset({"cdn.discordapp.com", "media.discordapp.net"})


class HostedFiles:
    """The ``FileSource`` of one platform: files fetched only from the hosts it serves them on.

    The bot token (Slack; ``token`` gives the one of the workspace served now) goes with a
    request only to those hosts, whatever URL an event names; an attachment elsewhere is
    refused. The hosts are the platform's own, plus the host
    of a configured API URL (a proxy, or the fake servers of the tests).
    """

    def __init__(
        self,
        platform: str,
        hosts: Iterable[str],
        *,
        api_url: str | None,
        token: Callable[[], str | None] | None = None,
    ) -> None:
        self._platform = platform
        configured = _host(api_url) if api_url else None
        self._hosts = frozenset(hosts) | ({configured} if configured else set())
        self._token = token or (lambda: None)

    async def fetch(self, attachment: Attachment, *, position: int, max_bytes: int) -> bytes:
        """The file's bytes (``download``), from an allowed host only.

        Raises:
            FileRejected: not on the platform's file host, gone, or too large.
            AdapterError: the download failed.
        """
        if attachment.url and _host(attachment.url) not in self._hosts:  # None is in none
            raise FileRejected(
                f"File {position} is not on {self._platform.title()}'s file host, so I did not "
                "fetch it.",
                reason="file_unavailable",
            )
        async with aiohttp.ClientSession(timeout=_TIMEOUT) as session:
            return await download(
                session, attachment, position=position, max_bytes=max_bytes, token=self._token()
            )


class LocalFiles:
    """The console's ``FileSource``: files named by their path on this machine."""

    async def fetch(self, attachment: Attachment, *, position: int, max_bytes: int) -> bytes:
        """The file's bytes, refused past ``max_bytes`` before it is read.

        Raises:
            FileRejected: the file cannot be read, or is too large.
        """
        try:
            return await asyncio.to_thread(_read_local, Path(attachment.url), position, max_bytes)
        except OSError as exc:
            raise FileRejected(
                f"File {position} could not be read: {exc.strerror or type(exc).__name__}.",
                reason="file_unavailable",
            ) from exc


def _read_local(path: Path, position: int, max_bytes: int) -> bytes:
    if path.stat().st_size > max_bytes:
        raise _too_large(position, max_bytes)
    return path.read_bytes()


def _host(url: str) -> str | None:
    """The host (with a port, if one is written) that ``url`` is fetched from, lower-cased.

    ``None`` when the URL names no host beyond doubt: not http(s), credentials in it, or a URL
    the HTTP client cannot parse.
    """
    try:
        parsed = URL(url)
        port = parsed.explicit_port
    except ValueError:  # a backslash in the host, a port that is not a number, ...
        return None
    if parsed.scheme not in ("http", "https") or not parsed.host:
        return None
    if parsed.user is not None or parsed.password is not None:
        return None
    host = parsed.host.lower()
    return f"{host}:{port}" if port else host


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
        FileRejected: the file is gone (``file_unavailable``) or larger than ``max_bytes``
            (``file_too_large``), by its announced size (nothing fetched) or by what arrives.
        AdapterError: the platform refused or failed the download; the message names the
            file's position and the HTTP status, never its name or URL.
    """
    if not attachment.url:
        raise FileRejected(
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
    except (aiohttp.ClientError, ValueError) as exc:  # ValueError: a URL the client refused
        raise AdapterError(
            f"file {position} could not be downloaded: {type(exc).__name__}"
        ) from exc


def _too_large(position: int, max_bytes: int) -> FileRejected:
    return FileRejected(
        f"File {position} is larger than {human_size(max_bytes)}, the most I read.",
        reason="file_too_large",
    )
