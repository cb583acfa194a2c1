"""A thread's values as its people see them, however old the thread and whatever its vault's age.

Real composition root, Redis, SQLite and Presidio; the model is the fake Messages API, which
echoes the question unless scripted. A turn looks its values up by HMAC and fetches only the
values of its model context, so these pin what a person would notice if that went wrong: a
value keeps its placeholder and comes back restored at turn 300, a key rotation in progress
and a vault written before the lookups were listed change nothing, Redis never holds a value
in clear, and a placeholder of another thread is never filled.
"""

from __future__ import annotations

import base64
import uuid

import pytest
import redis.asyncio as aioredis

from bot.core.keys import KeySpace
from bot.core.types import TurnStatus, thread_id
from guardrails.restore.placeholders import NEUTRAL
from tests.e2e.conftest import MakeApp, message, unique_thread
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fixtures.services import redis_dump

MARIA = "maria.gonzalez@example.com"
OLD, NEW = (base64.b64encode(bytes([n]) * 32).decode() for n in (21, 22))


class _Shown:
    """A reply sink noting what the person saw as it streamed."""

    def __init__(self) -> None:
        self.deltas: list[str] = []

    async def delta(self, text: str) -> None:
        self.deltas.append(text)


async def test_a_value_of_the_first_turn_keeps_its_placeholder_and_is_restored_at_turn_300(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, redis_url: str
) -> None:
    """Every turn brings a new address, so the vault holds some hundred values by the end;
    Maria's address, mentioned again every 80 turns so the kept history still holds it, is
    found by its lookup each time, never by reading the vault."""
    app = await make_app()
    thread, run = unique_thread(), uuid.uuid4().hex[:8]
    first = await app.conversation.handle(message(f"Hi, mail Maria at {MARIA} please.", thread))
    assert first is not None
    assert first.ok
    sent = fake_anthropic.last_user_text(fake_anthropic.requests[-1].body)
    assert "<EMAIL_ADDRESS_1>" in sent
    for i in range(2, 300):
        again = f" Also copy {MARIA}." if i % 80 == 0 else ""
        reply = await app.conversation.handle(
            message(f"Ticket {i}: write to ops{i}.{run}@example.com.{again}", thread)
        )
        assert reply is not None
        assert reply.status is TurnStatus.OK, reply.text

    shown = _Shown()
    last = await app.conversation.handle(message(f"Is {MARIA.upper()} still right?", thread), shown)

    assert last is not None
    assert last.ok
    sent = fake_anthropic.last_user_text(fake_anthropic.requests[-1].body)
    assert "Is <EMAIL_ADDRESS_1> still right?" in sent
    assert MARIA in "".join(shown.deltas)  # restored as it streamed, as first written
    tid = thread_id("console", thread)
    assert len(await app.vault.mapping(tid)) >= 90
    kept = redis_dump(redis_url, app.settings.redis_prefix).casefold()
    for value in (MARIA, f"ops299.{run}", f"ops2.{run}", "maria"):
        assert value not in kept


async def test_a_placeholder_of_another_thread_is_never_restored(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    """The model names a placeholder only another thread issued: the person sees it neutral,
    streamed or not, never the other thread's value."""
    app = await make_app()
    other, mine = unique_thread(), unique_thread()
    await app.conversation.handle(message("Mail alice@example.com or bob@example.com.", other))
    await app.conversation.handle(message("Mail carol@example.com today.", mine))

    for sink in (None, _Shown()):
        fake_anthropic.answer("Write to <EMAIL_ADDRESS_1> and <EMAIL_ADDRESS_2>.")
        reply = await app.conversation.handle(message("Who should I write to?", mine), sink)
        assert reply is not None
        assert reply.ok
        assert reply.text == f"Write to carol@example.com and {NEUTRAL}."
        if sink is not None:
            assert "".join(sink.deltas) == reply.text
        assert "bob@example.com" not in reply.text


async def test_a_thread_goes_on_while_its_key_is_rotated(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, redis_url: str
) -> None:
    """Written under the old key; with the new key current and the old one previous (the
    rotation not run yet), the same value keeps its placeholder and is restored."""
    thread = unique_thread()
    before = await make_app(vault_key=OLD)
    await before.conversation.handle(message(f"Hi, I'm Maria Gonzalez: {MARIA}.", thread))

    after = await make_app(vault_key=NEW, vault_previous_keys=OLD)
    reply = await after.conversation.handle(
        message(f"Maria Gonzalez again: did you get {MARIA}?", thread)
    )

    assert reply is not None
    assert reply.ok
    sent = fake_anthropic.last_user_text(fake_anthropic.requests[-1].body)
    assert "<PERSON_1> again: did you get <EMAIL_ADDRESS_1>?" in sent
    assert f"Maria Gonzalez again: did you get {MARIA}?" in reply.text


@pytest.mark.parametrize("fields", [("h:", "k:", "v:"), ("k:", "v:")])
async def test_a_vault_written_before_its_values_were_listed_is_found_and_listed(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, redis_url: str, fields: tuple[str, ...]
) -> None:
    """A vault from before: its values without the lookup (``h:``) or the list (``k:``) a turn
    now relies on. The next turn finds the value all the same, and lists the vault."""
    app = await make_app()
    thread = unique_thread()
    await app.conversation.handle(message(f"Mail {MARIA} about the invoice.", thread))
    key = KeySpace(app.settings.redis_prefix).thread(thread_id("console", thread), "vault")
    client = aioredis.Redis.from_url(redis_url)
    try:
        old = [n for n in await client.hkeys(key) if n.decode().startswith(fields)]
        assert old
        await client.hdel(key, *old)

        reply = await app.conversation.handle(message(f"Did {MARIA} answer?", thread))

        assert reply is not None
        assert reply.ok
        sent = fake_anthropic.last_user_text(fake_anthropic.requests[-1].body)
        assert "Did <EMAIL_ADDRESS_1> answer?" in sent
        assert f"Did {MARIA} answer?" in reply.text
        names = {n.decode() for n in await client.hkeys(key)}
        assert {"v:", "k:<EMAIL_ADDRESS_1>"} <= names
        assert any(n.startswith("h:") for n in names)
    finally:
        await client.aclose()
