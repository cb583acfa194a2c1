"""Discord edits: the edited text is redacted afresh, and a deletion after it withdraws both.

The real Discord adapter (discord.py on the fake gateway) and core on real Redis and Presidio.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from bot.config.settings import load_settings
from bot.core.types import thread_id
from tests.e2e.conftest import audit_dump
from tests.e2e.discord_harness import RunningBot, StartBot
from tests.e2e.test_guarded_turn import leaked
from tests.fakes.discord_server import BOT_ID, CHANNEL_ID, GUILD_ID, FakeDiscord
from tests.fixtures.services import redis_dump

MENTION = f"<@{BOT_ID}>"
OLD = f"{MENTION} I'm Maria Gonzalez, write to maria.gonzalez@example.com please."
NEW = f"{MENTION} I'm Maria Gonzalez, write to maria.new@example.org instead."
SEEDED = ["Maria Gonzalez", "maria.gonzalez@example.com", "maria.new@example.org"]


async def _values(bot: RunningBot, tid: str) -> set[str]:
    return {v for _, v in (await bot.app.vault.mapping(tid)).values()}  # type: ignore[arg-type]


async def _until_values(bot: RunningBot, tid: str, check: object) -> set[str]:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        found = await _values(bot, tid)
        if check(found):  # type: ignore[operator]
            return found
        await asyncio.sleep(0.02)
    return await _values(bot, tid)


@pytest.mark.parametrize("queue", [True, False], ids=["queue", "no-queue"])
async def test_an_edit_replaces_the_kept_text_and_a_delete_after_it_withdraws_both(
    start_bot: StartBot,
    fake_discord: FakeDiscord,
    redis_url: str,
    debug_logs: pytest.LogCaptureFixture,
    queue: bool,
) -> None:
    bot = await start_bot(queue_enabled=queue)
    msg = fake_discord.message(OLD, mentions=(BOT_ID,))
    thread = int(msg["id"])
    await bot.say(msg, channel=thread)
    tid = thread_id("discord", str(GUILD_ID), str(thread))
    assert "maria.gonzalez@example.com" in await _values(bot, tid)

    edit = {**msg, "content": NEW, "edited_timestamp": "2026-11-26T15:00:00.000000+00:00"}
    await fake_discord.dispatch("MESSAGE_UPDATE", edit)
    # the new value is placed first, then the old one withdrawn: wait for the edit's end
    kept = await _until_values(
        bot, tid, lambda v: "maria.new@example.org" in v and "maria.gonzalez@example.com" not in v
    )
    assert "maria.new@example.org" in kept
    assert "maria.gonzalez@example.com" not in kept
    history = await bot.app.history.load(tid)
    assert "<EMAIL_ADDRESS_2>" in history[0].text

    await fake_discord.dispatch(
        "MESSAGE_DELETE",
        {"id": msg["id"], "channel_id": str(CHANNEL_ID), "guild_id": str(GUILD_ID)},
    )
    assert await _until_values(bot, tid, lambda v: not v) == set()
    assert await bot.app.history.load(tid) == []
    # Nothing the service keeps or logs ever held a value of either version in clear.
    assert leaked(SEEDED, redis_dump(redis_url, bot.app.settings.redis_prefix)) == []
    assert leaked(SEEDED, await audit_dump(bot.app)) == []
    assert leaked(SEEDED, debug_logs.text) == []


async def test_a_message_deleted_in_a_thread_of_a_channel_with_its_own_policy_is_found(
    start_bot: StartBot, fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """The bot's thread takes its channel's scope, where links are personal data: the deleted
    message is found by its text redacted under that policy (the thread's id names the thread,
    not the channel whose scope it is), and it leaves the history and the vault."""
    link = "https://intranet.example.com/x"
    config = tmp_path / "veilbot.toml"
    config.write_text(
        f'[scopes."discord:{GUILD_ID}:{CHANNEL_ID}".guardrail]\nentities_on = ["URL"]\n',
        encoding="utf-8",
    )
    scopes = load_settings(config_file=config, _env_file=None).scopes
    bot = await start_bot(queue_enabled=False, scopes=scopes)
    msg = fake_discord.message(f"{MENTION} I'm Maria Gonzalez, see {link}", mentions=(BOT_ID,))
    thread = int(msg["id"])
    await bot.say(msg, channel=thread)
    tid = thread_id("discord", str(GUILD_ID), str(thread))
    assert "<URL_1>" in (await bot.app.history.load(tid))[0].text
    assert link in await _values(bot, tid)

    await fake_discord.dispatch(
        "MESSAGE_DELETE",
        {"id": msg["id"], "channel_id": str(CHANNEL_ID), "guild_id": str(GUILD_ID)},
    )
    assert await _until_values(bot, tid, lambda v: not v) == set()
    assert await bot.app.history.load(tid) == []
