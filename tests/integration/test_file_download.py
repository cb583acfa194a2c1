"""Attached files fetched from the fake Slack file host and Discord CDN (real aiohttp)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import aiohttp
import discord
import pytest

from adapters.discord.events import attachment_of
from adapters.downloads import SLACK_FILE_HOSTS, HostedFiles, download
from adapters.slack.events import files_of
from bot.core.attachments import Attachment
from bot.core.errors import AdapterError, InputRejected
from tests.fakes.discord_server import FakeDiscord
from tests.fakes.slack_server import FakeSlack

CSV = b"name,email\nJane Doe,jane.doe@example.org\n"


@pytest.fixture
async def slack() -> AsyncIterator[FakeSlack]:
    async with FakeSlack() as server:
        yield server


@pytest.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as client:
        yield client


async def test_a_shared_file_is_fetched_with_the_bot_token(slack, session):
    (attachment,) = files_of({"files": [slack.host_file("Jane Doe.csv", CSV)]})
    data = await download(session, attachment, position=1, max_bytes=1024, token=slack.bot_token)
    assert data == CSV
    assert slack.downloads == [(next(iter(slack.hosted)), f"Bearer {slack.bot_token}")]


async def test_slacks_sign_in_page_is_never_taken_for_the_file(slack, session):
    (attachment,) = files_of({"files": [slack.host_file("notes.txt", CSV)]})
    with pytest.raises(AdapterError, match="files:read") as caught:
        await download(session, attachment, position=2, max_bytes=1024, token="xoxb-revoked")
    assert "notes" not in str(caught.value)
    assert "127.0.0.1" not in str(caught.value), "the URL is not in the error"


async def test_an_announced_size_past_the_limit_is_refused_before_any_request(slack, session):
    (attachment,) = files_of({"files": [slack.host_file("big.log", b"x" * 5000)]})
    with pytest.raises(InputRejected, match="File 3 is larger than") as caught:
        await download(session, attachment, position=3, max_bytes=4096, token=slack.bot_token)
    assert caught.value.reason == "file_too_large"
    assert slack.downloads == []


async def test_bytes_past_the_limit_stop_the_download_whatever_size_was_announced(slack, session):
    (real,) = files_of({"files": [slack.host_file("big.log", b"x" * 300_000)]})
    understated = Attachment(name=real.name, url=real.url, size=10)
    with pytest.raises(InputRejected, match="File 1 is larger than"):
        await download(session, understated, position=1, max_bytes=100_000, token=slack.bot_token)


async def test_a_deleted_file_gets_a_clear_answer(session):
    (gone,) = files_of({"files": [{"id": "F9", "mode": "tombstone"}]})
    with pytest.raises(InputRejected, match="File 1 was deleted") as caught:
        await download(session, gone, position=1, max_bytes=1024, token="xoxb-test")
    assert caught.value.reason == "file_unavailable"


async def test_a_file_the_host_no_longer_has_is_an_adapter_error(slack, session):
    (attachment,) = files_of({"files": [slack.host_file("a.txt", CSV)]})
    slack.hosted.clear()
    with pytest.raises(AdapterError, match="HTTP 404"):
        await download(session, attachment, position=1, max_bytes=1024, token=slack.bot_token)


@pytest.mark.parametrize(
    "shape",
    [
        "http://files.slack.com@{host}/files-pri/{path}",  # credentials before the real host
        "http://{host}@{host}/files-pri/{path}",
        "http://user:pw@{host}/files-pri/{path}",
        "http://files.slack.com\\@{host}/files-pri/{path}",  # a backslash the client refuses
        "ftp://{host}/files-pri/{path}",
    ],
    ids=["slack-host-as-user", "own-host-as-user", "user-and-password", "backslash", "ftp"],
)
async def test_a_url_with_credentials_or_in_doubt_is_refused_as_a_file_elsewhere(slack, shape):
    (real,) = files_of({"files": [slack.host_file("notes.csv", CSV)]})
    host = f"127.0.0.1:{slack.port}"  # the configured API URL's host: an allowed one
    path = real.url.split("/files-pri/", 1)[1]
    tricky = Attachment(name=real.name, url=shape.format(host=host, path=path), size=real.size)
    token = slack.bot_token
    source = HostedFiles("slack", SLACK_FILE_HOSTS, api_url=slack.api_url, token=lambda: token)
    with pytest.raises(InputRejected) as caught:
        await source.fetch(tricky, position=2, max_bytes=1024)
    assert str(caught.value) == "File 2 is not on Slack's file host, so I did not fetch it."
    assert caught.value.reason == "file_unavailable"
    assert slack.downloads == []
    assert await source.fetch(real, position=1, max_bytes=1024) == CSV, "the file itself is"


class _NoHttp:
    """The one attribute discord.py's Attachment reads from its connection state."""

    http = None


async def _cdn_download(payload: dict[str, object], session: aiohttp.ClientSession) -> bytes:
    found = attachment_of(discord.Attachment(data=payload, state=_NoHttp()))  # type: ignore[arg-type]
    return await download(session, found, position=1, max_bytes=1024)


async def test_a_discord_attachment_is_fetched_from_the_cdn_without_a_token(session):
    fake = FakeDiscord()
    try:
        await fake.start()
        page = b"<!DOCTYPE html><html><body>my own page</body></html>"
        event = fake.message("see", files=(("Jane Doe.csv", CSV), ("page.html", page)))
        first, second = event["attachments"]
        assert await _cdn_download(first, session) == CSV
        assert await _cdn_download(second, session) == page, "an HTML file is a file on Discord"
        assert fake.cdn_requests == [first["id"], second["id"]]
    finally:
        await fake.stop()


async def test_a_discord_attachment_gone_from_the_cdn_is_an_adapter_error(session):
    fake = FakeDiscord()
    try:
        await fake.start()
        (payload,) = fake.message("see", files=(("a.txt", CSV),))["attachments"]
        fake.cdn.clear()
        with pytest.raises(AdapterError, match="HTTP 404"):
            await _cdn_download(payload, session)
    finally:
        await fake.stop()
