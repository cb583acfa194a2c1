"""An old thread's turn does the work of what it adds, not of the whole thread.

Counted, not timed: how many vault values a turn unseals and how many kept texts it reads
for placeholders, at the start of a thread and once its history is full and trimming. Each
turn brings a new e-mail address, so the vault and the history grow with the thread; a turn
that unsealed the whole vault or re-read every kept text would count the thread's age.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest
import redis.asyncio as aioredis

import guardrails.presidio
from bot.core.types import TurnStatus
from guardrails.vault.store import RedisVault
from tests.e2e.conftest import MakeApp, message, unique_thread
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fixtures.redis_commands import command_calls, command_delta
from tests.fixtures.services import RedisServer

KEPT = 30
"""Messages the thread keeps: from turn 16 on every turn trims the oldest exchange."""


def _counting(counts: dict[str, int], name: str, real: Callable[..., Any]) -> Callable[..., Any]:
    def counted(*args: Any) -> Any:
        counts[name] += 1
        return real(*args)

    return counted


async def test_an_old_threads_turn_unseals_and_reads_no_more_than_a_young_ones(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = await make_app(history_max_messages=KEPT)
    counts = {"unseal": 0, "read": 0}
    monkeypatch.setattr(RedisVault, "unseal", _counting(counts, "unseal", RedisVault.unseal))
    reader = guardrails.presidio._read_refs
    monkeypatch.setattr(guardrails.presidio, "_read_refs", _counting(counts, "read", reader))
    thread, run = unique_thread(), uuid.uuid4().hex[:8]
    per_turn: list[dict[str, int]] = []
    for i in range(1, 61):
        before = dict(counts)
        # the fake model echoes the question: each answer restores this turn's address
        reply = await app.conversation.handle(
            message(f"Please mail ops{i}.{run}@example.com about ticket {i}.", thread)
        )
        assert reply is not None
        assert reply.status is TurnStatus.OK
        assert f"ops{i}.{run}@example.com" in reply.text
        per_turn.append({k: counts[k] - before[k] for k in counts})

    vault = await app.vault.mapping(message("", thread).thread_id)
    assert len(vault) >= KEPT // 2  # the thread kept many values: a whole-vault turn would show
    young, old = per_turn[1:5], per_turn[40:]
    assert max(t["unseal"] for t in old) <= max(t["unseal"] for t in young) <= 2
    assert max(t["read"] for t in old) <= max(t["read"] for t in young) <= 3
    assert fake_anthropic.requests  # the turns did reach the model


async def test_an_old_threads_retention_asks_redis_for_what_it_drops_not_the_whole_vault(
    make_app: MakeApp, redis_server: RedisServer
) -> None:
    """Once trimming starts every turn drops a value; the script that drops it touches that
    value's fields, so an old turn runs as many Redis commands as the first trimming one."""
    app = await make_app(history_max_messages=KEPT, redis_url=redis_server.url)
    thread, run = unique_thread(), uuid.uuid4().hex[:8]
    client = aioredis.Redis.from_url(redis_server.url)
    per_turn: list[dict[str, int]] = []
    try:
        for i in range(1, 61):
            before = await command_calls(client)
            reply = await app.conversation.handle(
                message(f"Please mail ops{i}.{run}@example.com about ticket {i}.", thread)
            )
            assert reply is not None
            assert reply.status is TurnStatus.OK
            per_turn.append(command_delta(before, await command_calls(client)))
    finally:
        await client.aclose()

    vault = await app.vault.mapping(message("", thread).thread_id)
    assert KEPT // 2 <= len(vault) <= KEPT  # the vault is as large as the kept history
    trimming, old = per_turn[KEPT // 2 + 1], per_turn[40:]
    assert trimming.get("hdel", 0) >= 1  # that turn forgot the trimmed turn's address
    assert not any("hgetall" in t for t in per_turn)  # the vault is never read whole
    assert all(t == trimming for t in old), (trimming, old)
