"""``open_redis``'s one-server client sends the commands of one turn of the event loop together.

What a caller sees must not change: its own reply or its own error, blocking reads that hold
nothing back. What the server sees changes: one connection for a burst, not one per command.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import pytest
import redis
from redis.exceptions import DataError, ResponseError

from bot.core.errors import StoreUnavailable
from bot.state.client import Pipelined, RedisClient, open_redis, store_errors
from tests.fixtures.services import RedisServer


@pytest.fixture
async def client(redis_url: str) -> AsyncIterator[RedisClient]:
    opened = open_redis(redis_url, timeout=30)
    yield opened
    await opened.aclose()


def _named(url: str, name: str) -> str:
    return f"{url}{'&' if '?' in url else '?'}client_name={name}"


def _connections(url: str, name: str) -> int:
    with redis.Redis.from_url(url) as admin:
        return sum(1 for c in admin.client_list() if c.get("name") == name)


async def test_a_burst_of_commands_shares_one_connection_and_each_gets_its_own_reply(
    redis_url: str, redis_prefix: str
) -> None:
    name = f"vb-{uuid.uuid4().hex[:8]}"
    client = open_redis(_named(redis_url, name), timeout=10)
    assert isinstance(client, Pipelined)
    try:
        await asyncio.gather(*(client.set(f"{redis_prefix}:k{i}", f"v{i}") for i in range(60)))
        got = await asyncio.gather(
            *(client.get(f"{redis_prefix}:k{i}") for i in range(60)),
            *(client.incr(f"{redis_prefix}:counter") for _ in range(40)),
            client.hset(f"{redis_prefix}:h", mapping={"a": "1", "b": "2"}),
        )
        assert got[:60] == [f"v{i}".encode() for i in range(60)]
        assert sorted(got[60:100]) == list(range(1, 41))  # each increment answered once
        assert got[100] == 2
        assert await client.hgetall(f"{redis_prefix}:h") == {b"a": b"1", b"b": b"2"}
        # without batching each of the 101 commands in flight at once takes a connection
        assert _connections(redis_url, name) == 1
    finally:
        await client.aclose()


async def test_a_command_that_fails_fails_alone(client: RedisClient, redis_prefix: str) -> None:
    await client.set(f"{redis_prefix}:s", "text")
    wrong, unencodable, right, incremented = await asyncio.gather(
        client.lpush(f"{redis_prefix}:s", "x"),  # WRONGTYPE: a string, not a list
        client.set(f"{redis_prefix}:o", object()),  # type: ignore[arg-type]  (redis-py refuses it)
        client.get(f"{redis_prefix}:s"),
        client.incr(f"{redis_prefix}:n"),
        return_exceptions=True,
    )
    assert isinstance(wrong, ResponseError)
    assert "WRONGTYPE" in str(wrong)
    assert isinstance(unencodable, DataError)
    assert (right, incremented) == (b"text", 1)
    assert await client.exists(f"{redis_prefix}:o") == 0


async def test_a_blocking_read_holds_back_no_other_command(
    client: RedisClient, redis_prefix: str
) -> None:
    waiting = asyncio.ensure_future(client.blpop([f"{redis_prefix}:list"], timeout=20))
    other = asyncio.ensure_future(client.set(f"{redis_prefix}:k", "1"))
    done, _ = await asyncio.wait({waiting, other}, return_when=asyncio.FIRST_COMPLETED)
    assert other in done
    assert not waiting.done()
    await client.rpush(f"{redis_prefix}:list", "item")
    assert tuple(await waiting) == (f"{redis_prefix}:list".encode(), b"item")


async def test_scripts_the_server_does_not_know_yet_are_loaded_from_a_batch(
    client: RedisClient, redis_prefix: str
) -> None:
    # a body of its own: no earlier run has loaded it on the session's server
    scripts = [
        client.register_script(f"-- {uuid.uuid4().hex}\nreturn ARGV[1] .. '{i}'") for i in range(5)
    ]
    got = await asyncio.gather(*(s(keys=[f"{redis_prefix}:k"], args=["v"]) for s in scripts))
    assert got == [f"v{i}".encode() for i in range(5)]


async def test_a_server_gone_fails_every_command_in_flight_as_unavailable_then_recovers(
    redis_server: RedisServer,
) -> None:
    client = open_redis(redis_server.url, timeout=5)
    try:
        await client.set("k", "1")
        redis_server.stop()

        async def read() -> bytes | None:
            async with store_errors("test read"):
                return await client.get("k")

        failed = await asyncio.gather(*(read() for _ in range(10)), return_exceptions=True)
        assert all(isinstance(f, StoreUnavailable) for f in failed)
        redis_server.start()
        assert await asyncio.gather(*(client.incr("n") for _ in range(10))) != []
        assert await client.get("n") == b"10"
    finally:
        await client.aclose()
