"""Removing the bot from a Discord server erases what veilbot holds of that server.

As Slack's uninstall erases a workspace: the server's threads (history and vault) and its
queued turns go at once and the admin action log records it; a server that is merely
unavailable (an outage: ``GUILD_DELETE`` with ``unavailable``) keeps everything. The whole
``veilbot run`` service on the fake Discord gateway, real Redis and SQL.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from bot.app import App
from bot.service import running
from tests.e2e.conftest import MakeApp
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fakes.discord_server import BOT_ID, GUILD_ID, FakeDiscord

DM_CHANNEL = 650000000000000077


async def polled(check: Callable[[], Awaitable[bool]], what: str, within: float = 30.0) -> None:
    deadline = time.monotonic() + within
    while not await check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


async def keys_of(app: App, scope: str) -> list[bytes]:
    """The Redis keys of one Discord server's (or the DMs') threads and counters."""
    prefix = app.settings.redis_prefix
    found: list[bytes] = []
    for pattern in (f"{prefix}:{{discord:{scope}:*", f"{prefix}:{{rate:discord:{scope}}}:*"):
        found += [k async for k in app.redis.scan_iter(match=pattern, count=500)]
    return found


async def erasures(app: App) -> list[str]:
    return [a.target for a in await app.audit.recent_actions() if a.action == "erase_workspace"]


async def test_removing_the_bot_from_a_server_erases_the_server_and_only_it(
    make_app: MakeApp, fake_discord: FakeDiscord, fake_anthropic: FakeAnthropic
) -> None:
    app = await make_app(
        discord_token="test-token",
        discord_api_url=fake_discord.api_url,
        discord_gateway_url=fake_discord.gateway_url,
    )
    async with running(app, ["discord"]) as service:
        async with asyncio.timeout(30):
            await service.adapters[0].ready.wait()  # type: ignore[attr-defined]
        server = fake_discord.message(f"<@{BOT_ID}> I'm Maria Gonzalez", mentions=(BOT_ID,))
        await fake_discord.dispatch("MESSAGE_CREATE", server)
        direct = fake_discord.message("I'm Maria Gonzalez", channel=DM_CHANNEL, guild=None)
        await fake_discord.dispatch("MESSAGE_CREATE", direct)

        async def both_answered() -> bool:
            return len(fake_discord.posts()) >= 2 and bool(await keys_of(app, str(GUILD_ID)))

        await polled(both_answered, "both messages answered")
        assert await keys_of(app, "dm")

        # An outage: the server is unavailable for a while, nothing is erased.
        outage = {"id": str(GUILD_ID), "unavailable": True}
        await fake_discord.dispatch("GUILD_DELETE", outage)
        # Then the bot is removed from it (or the server is deleted).
        await fake_discord.dispatch("GUILD_DELETE", {"id": str(GUILD_ID)})

        async def erased() -> bool:
            return f"discord:{GUILD_ID}" in await erasures(app)

        await polled(erased, "the server's erasure in the admin action log")
        assert await erasures(app) == [f"discord:{GUILD_ID}"]  # once: the outage erased nothing
        assert await keys_of(app, str(GUILD_ID)) == []
        assert await keys_of(app, "dm")  # direct messages are no server's
