"""Discord ``/settings``: an admin sees the channel's effective settings, others one line.

The real Discord adapter (discord.py, the real command tree) on the fake gateway and REST API.
In a thread the bot opened, the settings are its channel's.
"""

from __future__ import annotations

from pathlib import Path

from adapters.discord.commands import SETTINGS_ADMINS_ONLY
from bot.config.settings import load_settings
from tests.e2e.discord_harness import StartBot
from tests.fakes.discord_server import (
    AUDITOR_ROLE_ID,
    BOB_ID,
    BOT_ID,
    CHANNEL_ID,
    GUILD_ID,
    FakeDiscord,
)

CONFIG = f"""\
[scopes."discord:{GUILD_ID}"]
max_tokens = 400

[scopes."discord:{GUILD_ID}:{CHANNEL_ID}"]
model = "claude-haiku-4-5"
streaming = false
"""


async def test_an_admin_sees_the_channel_s_settings_and_a_member_gets_one_line(
    start_bot: StartBot, fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    path = tmp_path / "veilbot.toml"
    path.write_text(CONFIG, encoding="utf-8")
    scopes = load_settings(config_file=path, _env_file=None).scopes
    bot = await start_bot(admin_discord_roles=str(AUDITOR_ROLE_ID), scopes=scopes)
    msg = fake_discord.message(f"<@{BOT_ID}> hello", mentions=(BOT_ID,))
    thread = int(msg["id"])
    await bot.say(msg, channel=thread)

    asks = [
        fake_discord.slash("settings", channel=thread, author=BOB_ID, roles=(AUDITOR_ROLE_ID,)),
        fake_discord.slash("settings", channel=CHANNEL_ID, author=BOB_ID),
    ]
    for n, ask in enumerate(asks, start=1):
        await fake_discord.dispatch("INTERACTION_CREATE", ask)
        await bot.until(lambda n=n: len(fake_discord.of("POST", "/interactions/")) == n)
    shown, refused = (r.body["data"] for r in fake_discord.of("POST", "/interactions/"))

    assert shown["flags"] & 64  # ephemeral
    lines = shown["content"].splitlines()
    assert f"discord:{GUILD_ID}:{thread}" in lines[0]
    assert f"• model: claude-haiku-4-5  (from discord:{GUILD_ID}:{CHANNEL_ID})" in lines
    assert f"• streaming: off  (from discord:{GUILD_ID}:{CHANNEL_ID})" in lines
    assert f"• max_tokens: 400  (from discord:{GUILD_ID})" in lines
    assert "• follow_ups: on  (from service)" in lines
    assert refused["content"] == SETTINGS_ADMINS_ONLY
    assert refused["flags"] & 64
