"""Discord messages go through the turn queue: queued on arrival, answered once, by any replica.

Discord never redelivers a gateway message, so a replica that stops (or dies) between receiving
a message and answering it must leave it in the queue for another. Replicas are Discord
adapters on real apps sharing one Redis prefix and one database, against one fake Discord.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace

import pytest

from adapters.discord.events import MessageFacts, Trigger
from adapters.discord.queued import QueuedMessage
from bot.core.keys import KeySpace
from bot.core.types import QueuedEvent, thread_id
from tests.e2e.discord_harness import RunningBot, StartBot
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fakes.discord_server import BOT_ID, CHANNEL_ID, GUILD_ID, FakeDiscord
from tests.fixtures.services import RedisServer, async_redis

MENTION = f"<@{BOT_ID}>"
SEEDED = ("Maria Gonzalez", "maria.gonzalez@example.com")


async def polled(check: Callable[[], Awaitable[bool]], what: str, within: float = 30.0) -> None:
    deadline = time.monotonic() + within
    while not await check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


async def queued_payloads(bot: RunningBot, redis_url: str) -> dict[bytes, bytes]:
    client = async_redis(redis_url)
    try:
        pattern = KeySpace(bot.app.settings.redis_prefix).queue_everywhere("payloads")
        found: dict[bytes, bytes] = {}
        async for key in client.scan_iter(match=pattern, count=500):
            found.update(await client.hgetall(key))
        return found
    finally:
        await client.aclose()


@pytest.mark.timeout(120)
@pytest.mark.redis_cluster
async def test_a_message_queued_by_a_replica_that_stops_is_answered_once_by_another(
    start_bot: StartBot, fake_discord: FakeDiscord, fake_anthropic: FakeAnthropic, redis_url: str
) -> None:
    first = await start_bot(worker=False)  # it stops before its worker gets to the message
    msg = fake_discord.message(f"{MENTION} Hi, I'm {SEEDED[0]}", mentions=(BOT_ID,))
    await fake_discord.dispatch("MESSAGE_CREATE", msg)

    async def queued() -> bool:
        return len(await queued_payloads(first, redis_url)) == 1

    await polled(queued, "the message in the queue")
    await first.stop()
    assert fake_discord.posts() == []
    assert fake_anthropic.requests == []

    second = await start_bot(queue_claim_idle_seconds=0.5)
    thread = int(msg["id"])  # a thread started from the message has its id
    await second.until(lambda: len(fake_discord.created(thread)) == 1)
    await second.settle()
    (answer,) = fake_discord.created(thread)
    assert SEEDED[0] in answer["content"]  # restored for the user
    assert len(fake_discord.of("POST", f"/channels/{CHANNEL_ID}/messages/{thread}/threads")) == 1
    (post,) = fake_discord.posts()
    # Discord itself creates no second message with this nonce for a few minutes.
    assert (post.body["nonce"], post.body["enforce_nonce"]) == (msg["id"], True)
    assert len(fake_anthropic.requests) == 1


@pytest.mark.timeout(120)
@pytest.mark.parametrize("mode", ["thread", "inline"])
async def test_a_message_answered_before_its_worker_died_is_not_answered_again(
    start_bot: StartBot, fake_discord: FakeDiscord, fake_anthropic: FakeAnthropic, mode: str
) -> None:
    bot = await start_bot(discord_reply_mode=mode)
    msg = fake_discord.message(f"{MENTION} what is a vault?", mentions=(BOT_ID,))
    where = int(msg["id"]) if mode == "thread" else CHANNEL_ID
    await bot.say(msg, channel=where)
    await bot.settle()
    assert len(fake_discord.created(where)) == 1
    # The worker died after posting, before the entry was marked done: the entry comes back
    # to another worker as a second attempt.
    facts_msg = QueuedMessage(
        facts=_facts(msg),
        trigger=Trigger.CHANNEL_MENTION.value,
        channel=where,
        bot_id=BOT_ID,
        mode=mode,
    )
    tid = thread_id("discord", str(GUILD_ID), str(where))
    again = QueuedEvent("discord", msg["id"], tid, facts_msg.to_bytes(), 2)
    assert bot.app.queue is not None
    await bot.app.queue._handlers["discord"](again)
    assert len(fake_discord.created(where)) == 1
    assert len(fake_anthropic.requests) == 1


@pytest.mark.timeout(120)
async def test_a_second_attempt_at_a_message_never_answered_answers_it(
    start_bot: StartBot, fake_discord: FakeDiscord, fake_anthropic: FakeAnthropic
) -> None:
    bot = await start_bot(discord_reply_mode="inline")
    msg = fake_discord.message(f"{MENTION} is anyone there?", mentions=(BOT_ID,))
    queued = QueuedMessage(_facts(msg), Trigger.CHANNEL_MENTION.value, CHANNEL_ID, BOT_ID, "inline")
    tid = thread_id("discord", str(GUILD_ID), str(CHANNEL_ID))
    assert bot.app.queue is not None
    # The earlier worker died before posting anything: the second attempt answers.
    await bot.app.queue._handlers["discord"](
        QueuedEvent("discord", msg["id"], tid, queued.to_bytes(), 2)
    )
    (answer,) = fake_discord.created(CHANNEL_ID)
    assert answer["message_reference"]["message_id"] == msg["id"]
    assert len(fake_anthropic.requests) == 1


@pytest.mark.timeout(120)
async def test_a_deletion_during_the_turn_is_worked_after_it_through_the_queue(
    start_bot: StartBot, fake_discord: FakeDiscord, fake_anthropic: FakeAnthropic, redis_url: str
) -> None:
    bot = await start_bot()
    fake_anthropic.hold()
    try:
        msg = fake_discord.message(
            f"{MENTION} Hi, I'm {SEEDED[0]}, mail {SEEDED[1]}", mentions=(BOT_ID,)
        )
        thread = int(msg["id"])
        await fake_discord.dispatch("MESSAGE_CREATE", msg)
        await bot.until(lambda: len(fake_anthropic.requests) == 1)
        await fake_discord.dispatch(
            "MESSAGE_DELETE",
            {"id": msg["id"], "channel_id": str(CHANNEL_ID), "guild_id": str(GUILD_ID)},
        )

        async def deletion_queued() -> bool:
            return len(await queued_payloads(bot, redis_url)) == 2

        await polled(deletion_queued, "the deletion queued behind the turn")
        fake_anthropic.release()
        await bot.until(lambda: len(fake_discord.created(thread)) == 1)
        await bot.settle()
    finally:
        fake_anthropic.release()
    tid = thread_id("discord", str(GUILD_ID), str(thread))
    assert await bot.app.history.load(tid) == []  # the deletion came after the answer
    assert await bot.app.vault.mapping(tid) == {}


@pytest.mark.timeout(120)
async def test_queued_discord_messages_rest_sealed_in_redis(
    start_bot: StartBot, fake_discord: FakeDiscord, fake_anthropic: FakeAnthropic, redis_url: str
) -> None:
    bot = await start_bot()
    dm = 650000000000000011
    fake_anthropic.hold()
    try:
        first = fake_discord.message(f"Hi, I'm {SEEDED[0]}", channel=dm, guild=None)
        later = fake_discord.message(f"and mail {SEEDED[1]}", channel=dm, guild=None)
        await fake_discord.dispatch("MESSAGE_CREATE", first)
        await bot.until(lambda: len(fake_anthropic.requests) == 1)
        await fake_discord.dispatch("MESSAGE_CREATE", later)  # waits behind the first

        async def both_queued() -> bool:
            return len(await queued_payloads(bot, redis_url)) == 2

        await polled(both_queued, "both messages in the queue")
        stored = b"".join(k + v for k, v in (await queued_payloads(bot, redis_url)).items())
        for value in SEEDED:
            assert value.encode() not in stored
        fake_anthropic.release()
        await bot.until(lambda: len(fake_discord.created(dm)) == 2)
        await bot.settle()
    finally:
        fake_anthropic.release()
    assert [m["content"] for m in fake_discord.created(dm)] == [
        f"Noted: Hi, I'm {SEEDED[0]}",
        f"Noted: and mail {SEEDED[1]}",
    ]


def _facts(msg: dict[str, object]) -> MessageFacts:
    """The facts the adapter reads from a fake Discord message payload."""
    mentions = msg["mentions"]
    assert isinstance(mentions, list)
    return MessageFacts(
        message_id=int(str(msg["id"])),
        channel_id=int(str(msg["channel_id"])),
        guild_id=GUILD_ID,
        author_id=int(str(msg["author"]["id"])),  # type: ignore[index]
        author_is_bot=False,
        answerable_type=True,
        content=str(msg["content"]),
        mention_ids=tuple(int(u["id"]) for u in mentions),
    )


@pytest.mark.timeout(120)
async def test_the_answer_to_an_earlier_message_posted_later_does_not_count_as_this_ones(
    start_bot: StartBot, fake_discord: FakeDiscord, fake_anthropic: FakeAnthropic
) -> None:
    bot = await start_bot()
    dm = 650000000000000012
    # X arrives while A's turn is in flight, so A's answer is posted after X; then the worker
    # dies before answering X, and X comes back as a second attempt.
    earlier = fake_discord.message("what is a vault?", channel=dm, guild=None)
    unanswered = fake_discord.message("and a placeholder?", channel=dm, guild=None)
    await bot.say(earlier, channel=dm)
    await bot.settle()
    (first,) = fake_discord.created(dm)
    assert int(first["id"]) > int(unanswered["id"])
    assert first["message_reference"]["message_id"] == earlier["id"]  # answers reply, silently
    assert not fake_discord.posts(dm)[0].body["allowed_mentions"].get("replied_user")
    facts = replace(_facts(unanswered), guild_id=None)
    queued = QueuedMessage(facts, Trigger.DIRECT.value, dm, BOT_ID, "thread")
    tid = thread_id("discord", "dm", str(dm))
    assert bot.app.queue is not None
    await bot.app.queue._handlers["discord"](
        QueuedEvent("discord", unanswered["id"], tid, queued.to_bytes(), 2)
    )
    assert [m["content"] for m in fake_discord.created(dm)] == [
        "Noted: what is a vault?",
        "Noted: and a placeholder?",
    ]
    assert len(fake_anthropic.requests) == 2


@pytest.mark.timeout(120)
async def test_a_message_redis_did_not_take_is_answered_by_the_replica_that_received_it(
    start_bot: StartBot,
    fake_discord: FakeDiscord,
    redis_server: RedisServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    bot = await start_bot(redis_url=redis_server.url)
    dm = 650000000000000013
    redis_server.stop()
    try:
        msg = fake_discord.message(f"Hi, I'm {SEEDED[0]}", channel=dm, guild=None)
        await fake_discord.dispatch("MESSAGE_CREATE", msg)
        # Discord never sends it again: the user is told something rather than nothing.
        await bot.until(lambda: len(fake_discord.created(dm)) == 1)
    finally:
        redis_server.start()
    assert "not queued, worked here" in caplog.text
    assert SEEDED[0] not in caplog.text
