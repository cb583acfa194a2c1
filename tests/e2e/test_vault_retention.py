"""The vault keeps only what the kept history refers to: trimmed turns take their values along."""

from __future__ import annotations

import redis.asyncio as aioredis

from bot.core.types import thread_id
from tests.e2e.conftest import MakeApp, message, unique_thread
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fixtures.redis_commands import command_calls, command_delta
from tests.fixtures.services import RedisServer


async def test_a_long_thread_keeps_a_vault_as_small_as_its_history(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, redis_url: str
) -> None:
    app = await make_app(history_max_messages=4)
    thread = unique_thread()
    tid = thread_id("console", thread)
    vault_key = app.keys.thread(tid, "vault")
    sizes = []
    client = aioredis.Redis.from_url(redis_url)
    try:
        for i in range(1, 31):
            reply = await app.conversation.handle(
                message(f"Write to person{i}@example.com or +1 415 555 {1000 + i}.", thread)
            )
            assert reply is not None
            assert reply.ok
            assert f"person{i}@example.com" in reply.text
            sizes.append(await client.hlen(vault_key))
    finally:
        await client.aclose()

    # Two values per turn, two kept turns: four values of four fields each, and two counters.
    assert max(sizes[5:]) <= 18, sizes
    values = {v for _, v in (await app.vault.mapping(tid)).values()}
    assert values == {
        "person29@example.com",
        "+1 415 555 1029",
        "person30@example.com",
        "+1 415 555 1030",
    }
    # The kept turns still restore; a trimmed one is another thread's now.
    fake_anthropic.answer("<EMAIL_ADDRESS_29> then <EMAIL_ADDRESS_28>")
    reply = await app.conversation.handle(message("Which addresses?", thread))
    assert reply is not None
    assert reply.text == "person29@example.com then [redacted]"


async def test_a_placeholder_a_user_types_never_stands_for_the_threads_value(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    app = await make_app()
    thread = unique_thread()
    first = await app.conversation.handle(
        message("I'm Maria Gonzalez, mail maria.gonzalez@example.com.", thread)
    )
    assert first is not None
    assert "Maria Gonzalez" in first.text

    reply = await app.conversation.handle(
        message("who is <PERSON_1>? and what is EMAIL_ADDRESS_1 or [person_1]?", thread)
    )
    assert reply is not None
    assert reply.ok
    # The model's echo comes back as the author typed it, never as the thread's values.
    assert reply.text == "Noted: who is <PERSON_1>? and what is EMAIL_ADDRESS_1 or [person_1]?"
    sent = fake_anthropic.last_user_text(fake_anthropic.requests[-1].body)
    assert "PERSON_1" not in sent
    assert "EMAIL_ADDRESS_1" not in sent
    assert "<PLACEHOLDER_1>" in sent


async def test_retention_asks_redis_only_when_the_vault_holds_unused_values(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, redis_server: RedisServer
) -> None:
    """A turn whose kept history uses every value the vault holds has nothing to forget: no
    retention script and no second read of the history. A failed turn's values (never stored
    in the history) are still forgotten at the next turn that is saved."""
    app = await make_app(redis_url=redis_server.url)
    thread = unique_thread()
    tid = thread_id("console", thread)
    client = aioredis.Redis.from_url(redis_server.url)
    try:
        first = await app.conversation.handle(message("Mail jane.doe@example.com today.", thread))
        assert first is not None
        assert first.ok
        before = await command_calls(client)
        reply = await app.conversation.handle(message("Thanks, and what about tomorrow?", thread))
        assert reply is not None
        assert reply.ok
        used = command_delta(before, await command_calls(client))
        # The history is read once, by the turn: the append script does not read it back
        # (commandstats counts a script's own calls); the vault is never read whole, by the
        # turn or a retention script.
        assert used.get("lrange") == 1, used
        assert "hgetall" not in used, used

        fake_anthropic.fail(500, "api_error")
        failed = await app.conversation.handle(message("Call +1 415 555 0199 now.", thread))
        assert failed is not None
        assert not failed.ok
        assert "+1 415 555 0199" in {v for _, v in (await app.vault.mapping(tid)).values()}

        before = await command_calls(client)
        after = await app.conversation.handle(message("Never mind.", thread))
        assert after is not None
        assert after.ok
        # the failed turn's value waited in u: for this turn: forgetting it reads no more
        assert "hgetall" not in command_delta(before, await command_calls(client))
        values = {v for _, v in (await app.vault.mapping(tid)).values()}
        assert values == {"jane.doe@example.com"}
    finally:
        await client.aclose()
