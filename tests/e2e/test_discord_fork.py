"""``/fork`` on Discord: a new thread, started in the same channel, with the kept turns."""

from __future__ import annotations

from typing import Any

from adapters.discord.fork import FORK_NOT_HERE
from bot.core.types import thread_id
from tests.e2e.discord_harness import RunningBot, StartBot
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fakes.discord_server import ALICE_ID, BOT_ID, CHANNEL_ID, GUILD_ID, FakeDiscord

MENTION = f"<@{BOT_ID}>"
MARIA_MAIL, PHONE = "maria.gonzalez@example.com", "+1 415 555 0199"


async def _conversation(bot: RunningBot, fake_discord: FakeDiscord) -> int:
    first = fake_discord.message(f"{MENTION} Write to {MARIA_MAIL} please.", mentions=(BOT_ID,))
    thread = int(first["id"])
    await bot.say(first, channel=thread)
    await bot.say(fake_discord.message(f"And call {PHONE}.", channel=thread), channel=thread)
    await bot.settle()
    return thread


async def _fork(
    bot: RunningBot, fake_discord: FakeDiscord, thread: int, options: list[dict[str, Any]]
) -> str:
    before = len(fake_discord.followups())
    await fake_discord.dispatch(
        "INTERACTION_CREATE", fake_discord.slash("fork", channel=thread, options=options)
    )
    await bot.until(lambda: len(fake_discord.followups()) > before)
    reply = fake_discord.followups()[-1].body
    assert reply["flags"] & 64  # only the caller sees it
    return str(reply["content"])


async def test_fork_starts_a_thread_with_the_last_turn_and_its_values_only(
    start_bot: StartBot, fake_discord: FakeDiscord, fake_anthropic: FakeAnthropic
) -> None:
    bot = await start_bot()
    thread = await _conversation(bot, fake_discord)
    source = thread_id("discord", str(GUILD_ID), str(thread))
    kept = (await bot.app.history.load(source))[2:]

    said = await _fork(bot, fake_discord, thread, [{"type": 4, "name": "last_n", "value": 1}])

    assert said.startswith("Forked: 1 turns")
    opener = fake_discord.posts(CHANNEL_ID)[-1].body
    assert f"<#{thread}>" in opener["content"]
    made = fake_discord.of("POST", "/threads")[-1]
    new = int(made.path.split("/")[-2])  # the fork's thread starts from its opening message
    fork = thread_id("discord", str(GUILD_ID), str(new))
    assert await bot.app.history.load(fork) == kept
    assert {v for _, v in (await bot.app.vault.mapping(fork)).values()} == {PHONE}

    fake_anthropic.answer("Calling <PHONE_NUMBER_1>, not <EMAIL_ADDRESS_1>.")
    posts = await bot.say(fake_discord.message("What now?", channel=new), channel=new)
    assert posts[-1].body["content"] == f"Calling {PHONE}, not [redacted]."
    sent = fake_anthropic.requests[-1].body
    assert len(sent["messages"]) == 3
    assert PHONE not in str(sent)
    assert MARIA_MAIL not in str(sent)


async def test_bad_forks_are_refused_and_leave_no_thread(
    start_bot: StartBot, fake_discord: FakeDiscord
) -> None:
    bot = await start_bot()
    thread = await _conversation(bot, fake_discord)
    k, n = {"type": 4, "name": "first_k", "value": 1}, {"type": 4, "name": "last_n", "value": 5}

    both = await _fork(bot, fake_discord, thread, [k, n])
    none = await _fork(bot, fake_discord, thread, [])
    beyond = await _fork(bot, fake_discord, thread, [n])
    negative = await _fork(bot, fake_discord, thread, [{**k, "value": -1}])

    assert "not both" in both
    assert "not both (and not neither)" in none
    assert "has 2 turns kept; last_n=5" in beyond
    assert "at least 1" in negative
    # The refused fork's thread and opening message were deleted again.
    made = fake_discord.of("POST", "/threads")
    assert len(made) == 2  # the conversation's own thread, and the refused fork's
    new = int(made[-1].path.split("/")[-2])
    assert fake_discord.of("DELETE", f"/channels/{new}")
    assert not await bot.app.history.exists(thread_id("discord", str(GUILD_ID), str(new)))


async def test_fork_in_a_dm_is_refused(start_bot: StartBot, fake_discord: FakeDiscord) -> None:
    bot = await start_bot()
    await bot.ready()
    await fake_discord.dispatch(
        "INTERACTION_CREATE",
        fake_discord.slash(
            "fork", channel=555, guild=None, options=[{"type": 4, "name": "last_n", "value": 1}]
        ),
    )
    await bot.until(lambda: bool(fake_discord.followups()))
    assert fake_discord.followups()[-1].body["content"] == FORK_NOT_HERE


async def test_fork_in_a_private_thread_is_refused(
    start_bot: StartBot, fake_discord: FakeDiscord
) -> None:
    bot = await start_bot()
    await bot.ready()
    private = fake_discord.add_thread(fake_discord.next_id(), owner=ALICE_ID)
    private["type"] = 12  # a private thread: its fork, a public thread, would show it to more

    await fake_discord.dispatch(
        "INTERACTION_CREATE",
        fake_discord.slash(
            "fork", channel=int(private["id"]), options=[{"type": 4, "name": "last_n", "value": 1}]
        ),
    )
    await bot.until(lambda: bool(fake_discord.followups()))

    assert fake_discord.followups()[-1].body["content"] == FORK_NOT_HERE
    assert not fake_discord.of("POST", "/threads")
