"""An edited question is answered again on Discord: the bot's answer is edited in place."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import pytest

from bot.core.types import ChatMessage, thread_id
from tests.e2e.discord_harness import RunningBot, StartBot
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fakes.discord_server import BOT_ID, GUILD_ID, FakeDiscord

MENTION = f"<@{BOT_ID}>"
EDITED_AT = "2026-11-26T15:00:00.000000+00:00"


async def _two_turns(bot: RunningBot, fake_discord: FakeDiscord) -> tuple[int, dict[str, object]]:
    first = fake_discord.message(
        f"{MENTION} Write to maria.gonzalez@example.com about the invoice.", mentions=(BOT_ID,)
    )
    thread = int(first["id"])
    await bot.say(first, channel=thread)
    second = fake_discord.message("Is the 12th of May fine?", channel=thread)
    await bot.say(second, channel=thread)
    await bot.settle()
    return thread, second


@pytest.mark.parametrize("queue", [True, False], ids=["queue", "no-queue"])
async def test_editing_the_last_question_edits_its_answer_and_replaces_the_turn(
    start_bot: StartBot, fake_discord: FakeDiscord, fake_anthropic: FakeAnthropic, queue: bool
) -> None:
    bot = await start_bot(queue_enabled=queue)
    thread, second = await _two_turns(bot, fake_discord)
    tid = thread_id("discord", str(GUILD_ID), str(thread))
    before = fake_discord.shown(thread)
    asked = len(fake_anthropic.requests)

    fake_anthropic.answer("Yes, I will mail <EMAIL_ADDRESS_1> on the 14th.")
    edit = {**second, "content": "Is the 14th of May fine?", "edited_timestamp": EDITED_AT}
    await fake_discord.dispatch("MESSAGE_UPDATE", edit)
    await bot.until(lambda: bool(fake_discord.of("PATCH", f"/channels/{thread}/messages/")))
    await bot.settle()

    # What people see: the second answer edited in place, no new message.
    shown = fake_discord.shown(thread)
    assert len(shown) == len(before) == 2
    assert shown[0] == before[0]
    assert shown[1] == "Yes, I will mail maria.gonzalez@example.com on the 14th."
    assert len(fake_anthropic.requests) == asked + 1
    sent = fake_anthropic.requests[-1].body["messages"]
    assert len(sent) == 3
    assert "12th" not in str(sent)
    history = await bot.app.history.load(tid)
    assert [m.role for m in history] == ["user", "assistant"] * 2
    assert history[2].text == "Is the 14th of May fine?"
    assert history[3].text == "Yes, I will mail <EMAIL_ADDRESS_1> on the 14th."


async def test_editing_an_older_question_keeps_its_answer(
    start_bot: StartBot, fake_discord: FakeDiscord, fake_anthropic: FakeAnthropic
) -> None:
    bot = await start_bot(queue_enabled=True)
    first = fake_discord.message(
        f"{MENTION} Write to maria.gonzalez@example.com about the invoice.", mentions=(BOT_ID,)
    )
    thread = int(first["id"])
    await bot.say(first, channel=thread)
    await bot.say(fake_discord.message("Is the 12th fine?", channel=thread), channel=thread)
    await bot.settle()
    tid = thread_id("discord", str(GUILD_ID), str(thread))
    shown, asked = fake_discord.shown(thread), len(fake_anthropic.requests)

    edit = {
        **first,
        "content": f"{MENTION} Write to john.smith@example.org instead.",
        "edited_timestamp": EDITED_AT,
    }
    await fake_discord.dispatch("MESSAGE_UPDATE", edit)
    history = await _history_once(bot, tid, lambda h: "instead" in h[0].text)

    assert len(fake_anthropic.requests) == asked
    assert fake_discord.shown(thread) == shown
    assert not fake_discord.of("PATCH", f"/channels/{thread}/messages/")
    assert len(history) == 4
    assert history[0].text == "Write to <EMAIL_ADDRESS_2> instead."


async def _history_once(
    bot: RunningBot, tid: str, done: Callable[[list[ChatMessage]], bool]
) -> list[ChatMessage]:
    """The thread's history once ``done`` holds of it (the edit worked), polled for 30 s."""
    deadline = time.monotonic() + 30
    while True:
        history = await bot.app.history.load(tid)  # type: ignore[arg-type]
        if done(history) or time.monotonic() > deadline:
            return history
        await asyncio.sleep(0.02)


async def test_an_edit_while_the_answer_is_being_written_replaces_it_once_it_is_done(
    start_bot: StartBot, fake_discord: FakeDiscord, fake_anthropic: FakeAnthropic
) -> None:
    bot = await start_bot(queue_enabled=True)
    first = fake_discord.message(f"{MENTION} Is the 12th of May fine?", mentions=(BOT_ID,))
    thread = int(first["id"])
    tid = thread_id("discord", str(GUILD_ID), str(thread))
    fake_anthropic.hold()
    await fake_discord.dispatch("MESSAGE_CREATE", first)
    await bot.until(lambda: len(fake_anthropic.requests) == 1)
    edit = {
        **first,
        "content": f"{MENTION} Is the 14th of May fine?",
        "edited_timestamp": EDITED_AT,
    }
    await fake_discord.dispatch("MESSAGE_UPDATE", edit)
    fake_anthropic.release()
    await bot.until(lambda: len(fake_anthropic.requests) == 2)
    await bot.until(lambda: any("14th" in s for s in fake_discord.shown(thread)))
    await bot.settle()

    (answer,) = fake_discord.shown(thread)
    assert "14th" in answer
    assert "12th" not in answer
    history = await bot.app.history.load(tid)
    assert [m.role for m in history] == ["user", "assistant"]
    assert "14th" in history[0].text


async def test_a_long_answer_edited_into_a_short_one_leaves_none_of_its_old_parts(
    start_bot: StartBot, fake_discord: FakeDiscord, fake_anthropic: FakeAnthropic
) -> None:
    bot = await start_bot()
    fake_anthropic.answer(" ".join(["The invoice lists every item we shipped."] * 120))
    first = fake_discord.message(f"{MENTION} Tell me about the invoice.", mentions=(BOT_ID,))
    thread = int(first["id"])
    await bot.say(first, channel=thread)
    await bot.settle()
    assert len(fake_discord.shown(thread)) >= 3, "a long answer, in parts"

    fake_anthropic.answer("It is paid.")
    edit = {**first, "content": f"{MENTION} Is the invoice paid?", "edited_timestamp": EDITED_AT}
    await fake_discord.dispatch("MESSAGE_UPDATE", edit)
    await bot.until(lambda: fake_discord.shown(thread) == ["It is paid."])
