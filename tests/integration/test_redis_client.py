"""``open_redis`` against a real Redis and a real Redis Cluster: bursts, outages, seeds."""

from __future__ import annotations

import asyncio
import importlib.metadata
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from redis.crc import key_slot

from bot.config.settings import load_settings
from bot.core.errors import StoreUnavailable
from bot.core.keys import KeySpace
from bot.core.types import ThreadId, thread_id
from bot.state.client import open_redis
from bot.state.history import RedisHistoryStore
from bot.stores import Stores, build_stores
from guardrails.vault.store import RedisVault
from tests.fixtures.guardrail import TEST_VAULT_KEY
from tests.fixtures.redis_cluster import RedisClusterServer, slot_ranges
from tests.fixtures.services import free_port

pytestmark = pytest.mark.redis_cluster


async def test_new_connections_do_not_look_up_package_metadata(
    redis_url: str, redis_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Unless told its version, redis-py reads it from the package metadata for every new
    connection: a scan of ``sys.path`` on the event loop, and a burst opens dozens at once."""
    looked_up: list[str] = []
    real = importlib.metadata.version

    def version(name: str) -> Any:
        looked_up.append(name)
        return real(name)

    monkeypatch.setattr(importlib.metadata, "version", version)
    client = open_redis(redis_url, timeout=5)
    try:
        # each BLPOP holds its connection until the server's timeout: 20 connections at once
        empty = f"{redis_prefix}:never-pushed"
        got = await asyncio.gather(*(client.blpop([empty], timeout=0.2) for _ in range(20)))
        assert got == [None] * 20
        assert await client.ping() is True
    finally:
        await client.aclose()
    assert looked_up == []


async def test_a_burst_beyond_the_pool_waits_for_a_connection(
    redis_url: str, redis_prefix: str
) -> None:
    """More commands at once than the pool has connections: each waits its turn, none fails."""
    client = open_redis(redis_url, timeout=10, max_connections=4)
    try:
        # each BLPOP holds its connection for 0.1 s: 40 of them through 4 connections
        empty = f"{redis_prefix}:{{burst}}:never-pushed"
        got = await asyncio.gather(*(client.blpop([empty], timeout=0.1) for _ in range(40)))
        assert got == [None] * 40
    finally:
        await client.aclose()


async def test_a_cluster_clients_first_burst_is_answered_in_full(redis_cluster_url: str) -> None:
    """A replica's first commands come all at once (a queue of deliveries at start): every one
    must reach the node that holds its key, not fail on the way."""
    for _ in range(5):  # a fresh client each time: the first burst is the one at risk
        client = open_redis(redis_cluster_url, timeout=5)
        try:
            keys = [f"vbtest-{uuid.uuid4().hex}:{{t{i}}}:event" for i in range(60)]
            got = await asyncio.gather(*(client.set(k, b"1", nx=True, ex=60) for k in keys))
            assert got == [True] * 60
        finally:
            await client.aclose()


async def test_an_unreachable_cluster_is_store_unavailable_at_once() -> None:
    client = open_redis(f"redis+cluster://127.0.0.1:{free_port()}", timeout=0.5)
    history = RedisHistoryStore(client, KeySpace(), ttl_seconds=60, max_messages=4)
    vault = RedisVault(client, KeySpace(), key=TEST_VAULT_KEY, ttl_seconds=60)
    tid = thread_id("slack", "T1", "C1", "1.1")
    try:
        for call in (history.load(tid), vault.assign(tid, [("PERSON", "Jane Doe")])):
            started = time.monotonic()
            with pytest.raises(StoreUnavailable):
                await call
            assert time.monotonic() - started < 3
    finally:
        await client.aclose()


async def test_a_dead_seed_is_passed_over_for_a_live_one(redis_cluster_url: str) -> None:
    live = redis_cluster_url.removeprefix("redis+cluster://")
    client = open_redis(f"redis+cluster://127.0.0.1:{free_port()},{live}", timeout=2)
    try:
        assert await client.set(f"vbtest-{uuid.uuid4().hex}:k", b"1", ex=60) is True
    finally:
        await client.aclose()


async def test_a_cluster_with_a_primary_down_is_not_ready_and_fails_its_threads_fast(
    redis_cluster: RedisClusterServer, tmp_path: Path
) -> None:
    """Readiness asks every primary (each holds some threads); a turn whose thread lives on
    the stopped one fails at once, as on a single server that is down; back, all is well."""
    settings = load_settings(
        data_dir=tmp_path, redis_url=redis_cluster.url, store_timeout_seconds=0.5
    )
    async with build_stores(settings) as stores:
        assert await stores.readiness() == {"redis": True, "database": True}
        slots = slot_ranges(redis_cluster.masters)[1]
        tid = next(t for t in _threads() if key_slot(_history_key(stores, t)) in slots)
        redis_cluster.stop_node(1)
        assert (await stores.readiness())["redis"] is False
        started = time.monotonic()
        with pytest.raises(StoreUnavailable):
            await stores.history.load(tid)
        assert time.monotonic() - started < 3
        redis_cluster.restart_node(1)
        assert await stores.readiness() == {"redis": True, "database": True}
        assert await stores.history.load(tid) == []


def _threads() -> Iterator[ThreadId]:
    for n in range(10_000):
        yield thread_id("slack", "T1", "C1", f"1700000000.{n:06d}")


def _history_key(stores: Stores, tid: ThreadId) -> bytes:
    return stores.keys.thread(tid, "history").encode()
