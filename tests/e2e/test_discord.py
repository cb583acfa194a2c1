"""Discord end to end: the real discord.py client against a fake Discord (REST + gateway),
with the real composition root: real Redis, real Presidio and the fake Anthropic server.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time

import pytest
import redis.asyncio as aioredis

from adapters.discord.commands import FORGOTTEN, HELP_TEXT
from adapters.discord.events import DISCORD_LIMIT
from bot.core.errors import AdapterError
from bot.core.types import thread_id
from bot.service import build_adapters
from tests.e2e.conftest import MakeApp
from tests.e2e.discord_harness import StartBot
from tests.e2e.test_guarded_turn import leaked
from tests.fakes.anthropic_server import FakeAnthropic, last_user_text
from tests.fakes.discord_server import (
    ALICE_ID,
    BOB_ID,
    BOT_ID,
    CHANNEL_ID,
    GUILD_ID,
    OTHER_BOT_ID,
    FakeDiscord,
    Request,
)
from tests.fixtures.processes import until

MENTION = f"<@{BOT_ID}>"
SEEDED = ["Maria Gonzalez", "maria.gonzalez@example.com", "+1 415 555 0123"]
PII_TEXT = (
    f"{MENTION} Hi, I'm Maria Gonzalez: write to maria.gonzalez@example.com "
    "or call me on +1 415 555 0123."
)


def contents(posts: list[Request]) -> str:
    return "\n".join(p.body["content"] for p in posts)


async def test_a_mention_opens_a_thread_and_the_answer_restores_what_the_model_never_saw(
    start_bot: StartBot, fake_discord: FakeDiscord, fake_anthropic: FakeAnthropic
) -> None:
    bot = await start_bot()
    msg = fake_discord.message(PII_TEXT, mentions=(BOT_ID,))
    posts = await bot.say(msg, channel=int(msg["id"]))  # the thread has the message's id

    created = fake_discord.of("POST", f"/channels/{CHANNEL_ID}/messages/{msg['id']}/threads")
    assert len(created) == 1
    assert created[0].body["name"]
    assert len(posts) == 1
    assert leaked(SEEDED, posts[0].body["content"]) == SEEDED  # the user sees real values
    assert fake_discord.of("POST", f"/channels/{msg['id']}/typing")  # typing while generating
    sent = fake_anthropic.all_text_sent()
    assert leaked(SEEDED, sent) == []
    assert MENTION not in sent  # the bot's own mention was removed before the guardrail
    assert posts[0].body["allowed_mentions"]["parse"] == []
    assert fake_discord.identifies[0]["intents"] & (1 << 15)  # message content requested


async def test_members_follow_up_in_the_thread_without_mentioning_the_bot(
    start_bot: StartBot, fake_discord: FakeDiscord, fake_anthropic: FakeAnthropic
) -> None:
    bot = await start_bot()
    first = fake_discord.message(f"{MENTION} what is a vault?", mentions=(BOT_ID,))
    thread = int(first["id"])
    await bot.say(first, channel=thread)

    follow = fake_discord.message("and how long is it kept?", author=BOB_ID, channel=thread)
    posts = await bot.say(follow, channel=thread)

    assert "how long is it kept" in contents(posts)
    assert len(fake_anthropic.requests) == 2
    # the second turn carried the first one: one conversation per thread
    assert len(fake_anthropic.requests[1].body["messages"]) == 3


async def test_a_thread_the_bot_was_mentioned_in_is_followed_without_a_mention(
    start_bot: StartBot, fake_discord: FakeDiscord
) -> None:
    bot = await start_bot()
    side = 700000000000000077
    await fake_discord.dispatch("THREAD_CREATE", fake_discord.add_thread(side, owner=ALICE_ID))
    await bot.say(
        fake_discord.message("nobody asked the bot", channel=side, mentions=()),
        channel=side,
        answers=0,
    )
    await bot.say(
        fake_discord.message(f"{MENTION} now I ask", channel=side, mentions=(BOT_ID,)), channel=side
    )
    posts = await bot.say(fake_discord.message("and again", channel=side), channel=side)
    assert contents(posts).startswith("Noted: and again")
    assert not any("nobody asked" in p.body["content"] for p in fake_discord.posts(side))


async def test_direct_messages_are_answered(start_bot: StartBot, fake_discord: FakeDiscord) -> None:
    bot = await start_bot()
    dm_channel = 650000000000000001
    posts = await bot.say(
        fake_discord.message("hello in private", channel=dm_channel, guild=None),
        channel=dm_channel,
    )
    assert contents(posts) == "Noted: hello in private"
    assert not fake_discord.of("POST", "/threads")


async def test_a_long_answer_with_code_is_split_under_the_limit_and_fences_stay_balanced(
    start_bot: StartBot, fake_discord: FakeDiscord, fake_anthropic: FakeAnthropic
) -> None:
    code = "\n".join(f"    total += price[{i}] * quantity[{i}]" for i in range(140))
    answer = "Here is the loop:\n\n```python\n" + code + "\n```\n\n" + "Done. " * 60
    assert len(answer) > 5000
    fake_anthropic.answer(answer)
    bot = await start_bot()
    msg = fake_discord.message(f"{MENTION} write the loop", mentions=(BOT_ID,))
    thread = int(msg["id"])
    await fake_discord.dispatch("MESSAGE_CREATE", msg)
    await bot.until(lambda: "Done." in contents(fake_discord.posts(thread)))

    posts = [p.body["content"] for p in fake_discord.posts(thread)]
    assert len(posts) >= 3
    assert all(len(p) <= DISCORD_LIMIT for p in posts)
    assert all(len(re.findall(r"^```", p, re.MULTILINE)) % 2 == 0 for p in posts)
    assert posts[1].startswith("```python\n")
    code_lines = [ln for p in posts for ln in p.splitlines() if ln.startswith("    total")]
    assert code_lines == code.splitlines()


async def test_everyone_in_the_answer_pings_nobody_and_only_asked_users_may_be_pinged(
    start_bot: StartBot, fake_discord: FakeDiscord, fake_anthropic: FakeAnthropic
) -> None:
    # The model shouts @everyone/@here, names a role, and mentions a user nobody asked about.
    fake_anthropic.responder = lambda body: (
        f"@everyone @here <@&{GUILD_ID}> <@{ALICE_ID}> {last_user_text(body)}"
    )
    bot = await start_bot()
    msg = fake_discord.message(
        f"{MENTION} tell <@{BOB_ID}> hi", author=ALICE_ID, mentions=(BOT_ID, BOB_ID)
    )
    posts = await bot.say(msg, channel=int(msg["id"]))

    body = posts[0].body
    assert body["content"].startswith("@everyone @here")
    assert f"<@{BOB_ID}>" in body["content"]  # the asker's mention renders
    assert body["allowed_mentions"] == {"parse": [], "users": [BOB_ID]}


async def test_other_bots_are_ignored(
    start_bot: StartBot, fake_discord: FakeDiscord, fake_anthropic: FakeAnthropic
) -> None:
    bot = await start_bot()
    await fake_discord.dispatch(
        "MESSAGE_CREATE",
        fake_discord.message(f"{MENTION} I am a bot", author=OTHER_BOT_ID, mentions=(BOT_ID,)),
    )
    human = fake_discord.message(f"{MENTION} I am human", mentions=(BOT_ID,))
    await bot.say(human, channel=int(human["id"]))
    assert len(fake_anthropic.requests) == 1
    assert "I am a bot" not in fake_anthropic.all_text_sent()
    assert len(fake_discord.of("POST", "/threads")) == 1


async def test_forget_erases_the_threads_keys(
    start_bot: StartBot, fake_discord: FakeDiscord, redis_url: str
) -> None:
    bot = await start_bot()
    msg = fake_discord.message(PII_TEXT, mentions=(BOT_ID,))
    thread = int(msg["id"])
    await bot.say(msg, channel=thread)
    tid = f"discord:{GUILD_ID}:{thread}"
    keys = bot.app.keys.thread_keys(tid)  # type: ignore[arg-type]
    client = aioredis.Redis.from_url(redis_url)
    try:
        assert await client.exists(*keys) == 2

        await fake_discord.dispatch(
            "INTERACTION_CREATE", fake_discord.slash("forget", channel=thread)
        )
        await bot.until(lambda: bool(fake_discord.of("POST", "/interactions/")))
        assert await client.exists(*keys) == 0
    finally:
        await client.aclose()
    reply = fake_discord.of("POST", "/interactions/")[0].body
    assert reply["data"]["content"] == FORGOTTEN
    assert reply["data"]["flags"] & 64  # ephemeral: only the caller sees it


async def test_slash_commands_are_synced_to_the_configured_guild_and_help_answers(
    start_bot: StartBot, fake_discord: FakeDiscord
) -> None:
    bot = await start_bot(discord_guild_id=GUILD_ID)
    synced = fake_discord.of("PUT", f"/guilds/{GUILD_ID}/commands")
    assert {c["name"] for c in synced[0].body} == {
        "forget",
        "fork",
        "help",
        "audit",
        "settings",
        "budget",
    }
    (audit,) = [c for c in synced[0].body if c["name"] == "audit"]
    (export,) = audit["options"]
    assert export["name"] == "export"
    assert {o["name"] for o in export["options"]} == {"since", "thread", "channel", "user"}

    await fake_discord.dispatch(
        "INTERACTION_CREATE", fake_discord.slash("help", channel=CHANNEL_ID)
    )
    await bot.until(lambda: bool(fake_discord.of("POST", "/interactions/")))
    assert fake_discord.of("POST", "/interactions/")[0].body["data"]["content"] == HELP_TEXT


async def test_a_message_redelivered_after_resume_is_answered_once(
    start_bot: StartBot, fake_discord: FakeDiscord, fake_anthropic: FakeAnthropic
) -> None:
    bot = await start_bot()
    msg = fake_discord.message(f"{MENTION} only once please", mentions=(BOT_ID,))
    thread = int(msg["id"])
    await bot.say(msg, channel=thread)

    await fake_discord.reconnect_and_redeliver("MESSAGE_CREATE", msg)
    after = fake_discord.message("next", channel=thread)
    await bot.say(after, channel=thread)  # processed after the replay

    assert fake_discord.resumes[0]["session_id"] == "fake-session"
    assert len(fake_anthropic.requests) == 2  # the replayed message reached the model once
    assert [p.body["content"] for p in fake_discord.posts(thread)] == [
        "Noted: only once please",
        "Noted: next",
    ]


async def test_a_refused_message_content_intent_stops_with_where_to_enable_it(
    make_app: MakeApp, fake_discord: FakeDiscord
) -> None:
    fake_discord.identify_close_code = 4014
    app = await make_app(
        discord_token="test-token",
        discord_api_url=fake_discord.api_url,
        discord_gateway_url=fake_discord.gateway_url,
    )
    (adapter,) = build_adapters(app, ["discord"])
    with pytest.raises(AdapterError, match="Privileged Gateway Intents -> Message Content"):
        async with asyncio.timeout(30):
            await adapter.run()


async def test_inline_mode_replies_in_the_channel(
    start_bot: StartBot, fake_discord: FakeDiscord
) -> None:
    bot = await start_bot(discord_reply_mode="inline")
    msg = fake_discord.message(f"{MENTION} inline please", mentions=(BOT_ID,))
    posts = await bot.say(msg, channel=CHANNEL_ID)
    assert posts[0].body["message_reference"]["message_id"] == int(msg["id"])
    assert posts[0].body["allowed_mentions"] == {"parse": [], "users": [], "replied_user": True}
    assert not fake_discord.of("POST", "/threads")


async def test_progressive_edits_end_with_the_whole_answer(
    start_bot: StartBot, fake_discord: FakeDiscord
) -> None:
    bot = await start_bot(discord_progressive_edits=True)
    dm = 650000000000000003
    await fake_discord.dispatch(
        "MESSAGE_CREATE", fake_discord.message("stream this " * 20, channel=dm, guild=None)
    )
    final = "Noted: " + ("stream this " * 20).strip()
    await bot.until(
        lambda: final in [r.body["content"] for r in fake_discord.posts(dm) + fake_discord.edits()]
    )
    assert len(fake_discord.posts(dm)) == 1
    assert all("allowed_mentions" in r.body for r in fake_discord.posts(dm) + fake_discord.edits())


async def test_an_auto_sharded_bot_identifies_with_its_shard(
    start_bot: StartBot, fake_discord: FakeDiscord
) -> None:
    bot = await start_bot(discord_shard_count=1, discord_shard_ids="0")
    assert fake_discord.identifies[0]["shard"] == [0, 1]
    dm = 650000000000000004
    posts = await bot.say(fake_discord.message("sharded hi", channel=dm, guild=None), channel=dm)
    assert contents(posts) == "Noted: sharded hi"


async def test_deleting_a_message_withdraws_it_and_the_values_only_it_introduced(
    start_bot: StartBot, fake_discord: FakeDiscord
) -> None:
    bot = await start_bot()
    msg = fake_discord.message(PII_TEXT, mentions=(BOT_ID,))
    thread = int(msg["id"])
    await bot.say(msg, channel=thread)
    tid = thread_id("discord", str(GUILD_ID), str(thread))
    assert len(await bot.app.history.load(tid)) == 2

    await fake_discord.dispatch(
        "MESSAGE_DELETE",
        {"id": msg["id"], "channel_id": str(CHANNEL_ID), "guild_id": str(GUILD_ID)},
    )
    deadline = time.monotonic() + 60
    while await bot.app.vault.mapping(tid) and time.monotonic() < deadline:
        await asyncio.sleep(0.01)  # the history goes first, then the values
    assert await bot.app.history.load(tid) == []
    assert await bot.app.vault.mapping(tid) == {}


async def test_a_drain_lets_the_turn_in_flight_answer_and_answers_no_new_message(
    start_bot: StartBot,
    fake_discord: FakeDiscord,
    fake_anthropic: FakeAnthropic,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="adapters.discord.handler")
    # The in-process path (no queue): with the queue, a message arriving while this replica
    # stops is queued for another (tests/e2e/test_discord_queue.py).
    bot = await start_bot(queue_enabled=False)
    fake_anthropic.hold()
    try:
        first = fake_discord.message(f"{MENTION} what is a vault?", mentions=(BOT_ID,))
        await fake_discord.dispatch("MESSAGE_CREATE", first)
        await until(lambda: len(fake_anthropic.requests) == 1, "the model call", within=30.0)
        drain = asyncio.create_task(bot.adapter.drain(30))
        second = fake_discord.message(f"{MENTION} and one more?", mentions=(BOT_ID,))
        await fake_discord.dispatch("MESSAGE_CREATE", second)
        await until(lambda: "arrived while stopping" in caplog.text, "the refusal", within=30.0)
        fake_anthropic.release()
        await asyncio.wait_for(drain, 30)
    finally:
        fake_anthropic.release()
    assert len(fake_discord.posts(int(first["id"]))) == 1  # the answer in flight was posted
    assert fake_discord.posts(int(second["id"])) == []
    assert len(fake_anthropic.requests) == 1
