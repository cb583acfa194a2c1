"""forget and purge on real Redis and real SQLite/PostgreSQL: exactly what they should, no more."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
import redis.asyncio as aioredis

from bot.audit.erasure import Eraser, pseudonym
from bot.audit.retention import purge_older_than, retention_running
from bot.audit.store import SqlAuditStore
from bot.audit.types import RunFilter, parse_user_ref
from bot.core.keys import KeySpace
from bot.core.types import ChatMessage, ThreadId
from bot.state.history import RedisHistoryStore
from bot.state.locks import RedisThreadLocks
from tests.fixtures.audit_db import run

pytestmark = pytest.mark.redis_cluster

ALICE = "slack:T1:UA"
BOB = "slack:T1:UB"
A1, A2, SHARED, B1 = (
    "slack:T1:C1:1.1",
    "slack:T1:C2:2.2",
    "slack:T1:C3:3.3",
    "slack:T1:C4:4.4",
)


@pytest.fixture
def history(redis_client: aioredis.Redis, redis_prefix: str) -> RedisHistoryStore:
    return RedisHistoryStore(
        redis_client, KeySpace(redis_prefix), ttl_seconds=3600, max_messages=50
    )


@pytest.fixture
def locks(redis_client: aioredis.Redis, redis_prefix: str) -> RedisThreadLocks:
    return RedisThreadLocks(redis_client, KeySpace(redis_prefix), ttl_seconds=5, wait_seconds=5)


async def populate(
    store: SqlAuditStore, history: RedisHistoryStore, redis: aioredis.Redis, prefix: str
) -> None:
    """Alice in A1, A2 and SHARED; Bob in SHARED and B1; each thread has history and vault."""
    turns = [
        (A1, "UA"),
        (A2, "UA"),
        (SHARED, "UA"),
        (SHARED, "UB"),
        (B1, "UB"),
        ("discord:G1:9", "UA"),
    ]  # same id on Discord: someone else
    for i, (tid, user) in enumerate(turns):
        platform = tid.split(":")[0]
        await store.record(
            run(
                minutes=i,
                thread_id=tid,
                user_id=user,
                platform=platform,
                workspace="T1" if platform == "slack" else "G1",
            )
        )
        await history.append(ThreadId(tid), [ChatMessage("user", "<PERSON_1>")])
        await redis.hset(KeySpace(prefix).thread(ThreadId(tid), "vault"), "k", "v")


async def keys_of(redis: aioredis.Redis, prefix: str) -> set[str]:
    return {k.decode() async for k in redis.scan_iter(match=f"{prefix}:*")}


async def test_forget_user_erases_their_threads_and_runs_only(
    audit_store: SqlAuditStore,
    history: RedisHistoryStore,
    locks: RedisThreadLocks,
    redis_client: aioredis.Redis,
    redis_prefix: str,
) -> None:
    await populate(audit_store, history, redis_client, redis_prefix)
    eraser = Eraser(audit_store, history, locks)
    counts = await eraser.forget_user(parse_user_ref(ALICE))
    assert (counts.threads, counts.redis_keys, counts.runs_deleted) == (3, 6, 3)
    keys = KeySpace(redis_prefix)
    left = await keys_of(redis_client, redis_prefix)
    assert left == {
        keys.thread(ThreadId(t), k) for t in (B1, "discord:G1:9") for k in ("history", "vault")
    }
    remaining = (await audit_store.list_runs(RunFilter())).runs
    assert sorted((r.thread_id, r.user_id) for r in remaining) == [
        ("discord:G1:9", "UA"),
        (SHARED, "UB"),
        (B1, "UB"),
    ]
    again = await eraser.forget_user(parse_user_ref(ALICE))
    assert (again.threads, again.redis_keys, again.runs_deleted) == (0, 0, 0)


async def test_forget_user_can_keep_runs_with_a_keyed_hash(
    audit_store: SqlAuditStore,
    history: RedisHistoryStore,
    locks: RedisThreadLocks,
    redis_client: aioredis.Redis,
    redis_prefix: str,
) -> None:
    await populate(audit_store, history, redis_client, redis_prefix)
    key = bytes(range(32))
    eraser = Eraser(audit_store, history, locks, pseudonym_key=key)
    counts = await eraser.forget_user(parse_user_ref(ALICE))
    assert (counts.runs_deleted, counts.runs_pseudonymized) == (0, 3)
    hashed = pseudonym(key, parse_user_ref(ALICE))
    assert hashed.startswith("hmac:")
    assert hashed != pseudonym(bytes(32), parse_user_ref(ALICE))
    assert await audit_store.count_runs(RunFilter(user_id=hashed)) == 3
    assert await audit_store.count_runs(RunFilter(platform="slack", user_id="UA")) == 0
    assert await audit_store.count_runs(RunFilter()) == 6
    assert (await eraser.forget_user(parse_user_ref(ALICE))).runs_pseudonymized == 0


async def test_forget_thread_erases_that_thread_only(
    audit_store: SqlAuditStore,
    history: RedisHistoryStore,
    locks: RedisThreadLocks,
    redis_client: aioredis.Redis,
    redis_prefix: str,
) -> None:
    await populate(audit_store, history, redis_client, redis_prefix)
    eraser = Eraser(audit_store, history, locks)
    counts = await eraser.forget_thread(SHARED)
    assert (counts.threads, counts.redis_keys, counts.runs_deleted) == (1, 2, 2)
    assert len(await keys_of(redis_client, redis_prefix)) == 8  # 5 threads x 2, minus SHARED
    assert await audit_store.count_runs(RunFilter(thread_id=SHARED)) == 0
    assert await audit_store.count_runs(RunFilter()) == 4
    again = await eraser.forget_thread(SHARED)
    assert (again.threads, again.redis_keys, again.runs_deleted) == (0, 0, 0)


async def test_purge_and_the_retention_task(audit_store: SqlAuditStore) -> None:
    now = datetime.now(UTC)
    old, fresh = run(started_at=now - timedelta(days=100)), run(started_at=now - timedelta(days=1))
    for r in (old, fresh):
        await audit_store.record(r)
    assert await purge_older_than(audit_store, timedelta(days=90)) == 1
    await audit_store.record(run(started_at=now - timedelta(days=40)))
    async with retention_running(audit_store, 30, interval_seconds=3600) as task:
        assert task is not None
        for _ in range(100):
            if await audit_store.count_runs(RunFilter()) == 1:
                break
            await asyncio.sleep(0.02)
    assert task.cancelled()
    assert [r.run_id for r in (await audit_store.list_runs(RunFilter())).runs] == [fresh.run_id]
    async with retention_running(audit_store, 0) as none:
        assert none is None
