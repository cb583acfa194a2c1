"""Who may erase a Discord conversation with ``/forget``: its participants or an admin.

The real Discord adapter (discord.py, the real command tree) on the fake gateway and REST
API, which knows a thread's members as Discord does (whoever wrote in it).
"""

from __future__ import annotations

import redis.asyncio as aioredis

from adapters.discord.commands import ERASE_REFUSAL, FORGOTTEN
from tests.e2e.discord_harness import StartBot
from tests.fakes.discord_server import AUDITOR_ROLE_ID, BOB_ID, BOT_ID, GUILD_ID, FakeDiscord

MENTION = f"<@{BOT_ID}>"


async def test_a_member_outside_the_thread_is_refused_and_an_admin_role_is_not(
    start_bot: StartBot, fake_discord: FakeDiscord, redis_url: str
) -> None:
    bot = await start_bot(admin_discord_roles=str(AUDITOR_ROLE_ID))
    msg = fake_discord.message(
        f"{MENTION} I'm Maria Gonzalez, call +1 415 555 0123", mentions=(BOT_ID,)
    )
    thread = int(msg["id"])
    await bot.say(msg, channel=thread)
    tid = f"discord:{GUILD_ID}:{thread}"
    keys = bot.app.keys.thread_keys(tid)  # type: ignore[arg-type]
    client = aioredis.Redis.from_url(redis_url)
    try:
        await fake_discord.dispatch(
            "INTERACTION_CREATE", fake_discord.slash("forget", channel=thread, author=BOB_ID)
        )
        await bot.until(lambda: bool(fake_discord.of("POST", "/interactions/")))
        refused = fake_discord.of("POST", "/interactions/")[0].body
        assert refused["data"]["content"] == ERASE_REFUSAL
        assert refused["data"]["flags"] & 64  # ephemeral
        assert await client.exists(*keys) == 2

        as_admin = fake_discord.slash(
            "forget", channel=thread, author=BOB_ID, roles=(AUDITOR_ROLE_ID,)
        )
        await fake_discord.dispatch("INTERACTION_CREATE", as_admin)
        await bot.until(lambda: len(fake_discord.of("POST", "/interactions/")) == 2)
        done = fake_discord.of("POST", "/interactions/")[1].body
        assert done["data"]["content"] == FORGOTTEN
        assert await client.exists(*keys) == 0
    finally:
        await client.aclose()
    decisions = [
        (a.actor, a.target, a.outcome["allowed"], a.outcome["as"])
        for a in await bot.app.audit.recent_actions()
        if a.action == "erase_thread"
    ]
    assert decisions == [
        (f"discord:{BOB_ID}", tid, True, "admin"),
        (f"discord:{BOB_ID}", tid, False, "none"),
    ]
