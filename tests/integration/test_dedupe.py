"""RedisEventDedupe against a real Redis."""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio as aioredis

from bot.core.errors import StoreUnavailable
from bot.core.keys import KeySpace
from bot.state.client import open_redis
from bot.state.dedupe import RedisEventDedupe

pytestmark = pytest.mark.redis_cluster


@pytest.fixture
def keys(redis_prefix: str) -> KeySpace:
    return KeySpace(prefix=redis_prefix)


async def test_first_delivery_then_duplicates(redis_client: aioredis.Redis, keys: KeySpace) -> None:
    dedupe = RedisEventDedupe(redis_client, keys, ttl_seconds=3600)
    assert await dedupe.first_delivery("slack", "Ev1") is True
    assert await dedupe.first_delivery("slack", "Ev1") is False
    assert await dedupe.first_delivery("slack", "Ev2") is True
    assert await dedupe.first_delivery("discord", "Ev1") is True  # platforms are separate
    assert 3590 <= await redis_client.ttl(keys.event("slack", "Ev1")) <= 3600


async def test_concurrent_redeliveries_are_answered_once(
    redis_client: aioredis.Redis, keys: KeySpace
) -> None:
    dedupe = RedisEventDedupe(redis_client, keys, ttl_seconds=60)
    results = await asyncio.gather(*(dedupe.first_delivery("slack", "Ev9") for _ in range(10)))
    assert results.count(True) == 1


async def test_forgotten_after_the_ttl(redis_client: aioredis.Redis, keys: KeySpace) -> None:
    dedupe = RedisEventDedupe(redis_client, keys, ttl_seconds=1)
    assert await dedupe.first_delivery("slack", "Ev3") is True
    await asyncio.sleep(1.2)
    assert await dedupe.first_delivery("slack", "Ev3") is True


async def test_redis_down_is_store_unavailable(redis_server, keys: KeySpace) -> None:
    client = open_redis(redis_server.url, timeout=1)
    redis_server.stop()
    try:
        with pytest.raises(StoreUnavailable, match="dedupe"):
            await RedisEventDedupe(client, keys, ttl_seconds=60).first_delivery("slack", "Ev1")
    finally:
        await client.aclose()
