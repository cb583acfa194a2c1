"""The vault keeps only what the kept history refers to: trimmed turns take their values along."""

from __future__ import annotations

import redis.asyncio as aioredis

from bot.core.types import thread_id
from tests.e2e.conftest import MakeApp, message, unique_thread
from tests.fakes.anthropic_server import FakeAnthropic


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

    # Two values per turn, two kept turns: four values of three fields each, and two counters.
    assert max(sizes[5:]) <= 14, sizes
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
