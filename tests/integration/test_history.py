"""RedisHistoryStore against a real Redis."""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncIterator

import pytest
import redis
import redis.asyncio as aioredis
from redis.crc import key_slot

from bot.core.errors import StoreUnavailable
from bot.core.keys import KeySpace
from bot.core.types import ChatMessage, thread_id
from bot.state.client import open_redis
from bot.state.history import RedisHistoryStore
from tests.fixtures.redis_cluster import RedisClusterServer
from tests.fixtures.redis_commands import command_calls, command_delta
from tests.fixtures.services import sync_redis

pytestmark = pytest.mark.redis_cluster

TID = thread_id("slack", "T1", "C1", "1700000000.000100")


def u(text: str) -> ChatMessage:
    return ChatMessage("user", text)


def a(text: str) -> ChatMessage:
    return ChatMessage("assistant", text)


@pytest.fixture
def keys(redis_prefix: str) -> KeySpace:
    return KeySpace(prefix=redis_prefix)


@pytest.fixture
def store(redis_client: aioredis.Redis, keys: KeySpace) -> RedisHistoryStore:
    return RedisHistoryStore(redis_client, keys, ttl_seconds=3600, max_messages=6)


async def test_round_trip_keeps_order_and_text(store: RedisHistoryStore) -> None:
    assert await store.load(TID) == []
    await store.append(TID, [u("Hi <PERSON_1>, Grüße 🙂"), a("Hello <PERSON_1>\nline two")])
    await store.append(TID, [u('and "quotes" {json}'), a("ok")])
    assert await store.load(TID) == [
        u("Hi <PERSON_1>, Grüße 🙂"),
        a("Hello <PERSON_1>\nline two"),
        u('and "quotes" {json}'),
        a("ok"),
    ]


async def test_threads_are_separate(store: RedisHistoryStore) -> None:
    other = thread_id("discord", "G1", "42")
    await store.append(TID, [u("one"), a("two")])
    assert await store.load(other) == []


async def test_append_trims_to_the_newest_messages(store: RedisHistoryStore) -> None:
    for i in range(5):
        await store.append(TID, [u(f"q{i}"), a(f"a{i}")])
    history = await store.load(TID)
    assert [m.text for m in history] == ["q2", "a2", "q3", "a3", "q4", "a4"]


async def test_trim_never_leaves_an_assistant_message_first(
    redis_client: aioredis.Redis, keys: KeySpace
) -> None:
    store = RedisHistoryStore(redis_client, keys, ttl_seconds=3600, max_messages=3)
    await store.append(TID, [u("q0"), a("a0")])
    await store.append(TID, [u("q1"), a("a1")])
    history = await store.load(TID)
    assert history == [u("q1"), a("a1")]


async def test_append_returns_what_the_thread_keeps_after_the_write(
    redis_client: aioredis.Redis, keys: KeySpace
) -> None:
    store = RedisHistoryStore(redis_client, keys, ttl_seconds=3600, max_messages=3)
    assert await store.append(TID, [u("q0"), a("a0")]) == [u("q0"), a("a0")]
    kept = await store.append(TID, [u("q1"), a("a1")])
    assert kept == [u("q1"), a("a1")]
    assert kept == await store.load(TID)


async def test_append_after_a_load_returns_what_load_reads_without_reading_it_back(
    private_client: aioredis.Redis, keys: KeySpace
) -> None:
    """An old thread's turn passes the history it read: the write returns the same kept
    messages as a second read would, trimmed ones (and an answer left first) gone, and reads
    no message back."""
    store = RedisHistoryStore(private_client, keys, ttl_seconds=60, max_messages=5)
    for i in range(6):
        loaded = await store.load(TID)
        before = await command_calls(private_client)
        kept = await store.append(TID, [u(f"q{i}"), a(f"a{i}")], after=loaded)
        assert "lrange" not in command_delta(before, await command_calls(private_client))
        assert kept == await store.load(TID)
    assert [m.text for m in kept] == ["q4", "a4", "q5", "a5"]


async def test_append_after_a_stale_load_reads_the_history_back(
    private_client: aioredis.Redis, keys: KeySpace
) -> None:
    """When the list changed since the caller's read (it expired, another writer), the write
    does not trust that read: it returns what Redis holds."""
    store = RedisHistoryStore(private_client, keys, ttl_seconds=60, max_messages=6)
    await store.append(TID, [u("q0"), a("a0")])
    stale = await store.load(TID)
    await store.append(TID, [u("q1"), a("a1")])
    kept = await store.append(TID, [u("q2"), a("a2")], after=stale)
    assert [m.text for m in kept] == ["q0", "a0", "q1", "a1", "q2", "a2"]
    await store.erase(TID)
    assert await store.append(TID, [u("q3"), a("a3")], after=stale) == [u("q3"), a("a3")]


async def test_append_sets_ttl_and_refreshes_the_vault_ttl(
    store: RedisHistoryStore, redis_client: aioredis.Redis, keys: KeySpace
) -> None:
    vault = keys.thread(TID, "vault")
    await redis_client.hset(vault, "h1", "encrypted")
    await redis_client.expire(vault, 5)
    await store.append(TID, [u("q"), a("a")])
    assert 3590 <= await redis_client.ttl(keys.thread(TID, "history")) <= 3600
    assert 3590 <= await redis_client.ttl(vault) <= 3600


@pytest.fixture
async def private_client(redis_server) -> AsyncIterator[aioredis.Redis]:
    client = open_redis(redis_server.url, timeout=1)
    yield client
    await client.aclose()


async def test_append_is_one_script_call(private_client: aioredis.Redis, keys: KeySpace) -> None:
    store = RedisHistoryStore(private_client, keys, ttl_seconds=60, max_messages=4)
    await store.append(TID, [u("warm"), a("up")])  # loads the script once
    before = await command_calls(private_client)
    await store.append(TID, [u("q"), a("a")])
    delta = command_delta(before, await command_calls(private_client))
    # One EVALSHA from the client; the rest ran inside it (commandstats counts them too).
    assert delta["evalsha"] == 1
    assert delta["rpush"] == 2
    assert not {"multi", "exec", "eval", "script"} & set(delta)


async def test_load_is_one_round_trip(private_client: aioredis.Redis, keys: KeySpace) -> None:
    store = RedisHistoryStore(private_client, keys, ttl_seconds=60, max_messages=4)
    await store.append(TID, [u("q"), a("a")])
    before = await command_calls(private_client)
    assert len(await store.load(TID)) == 2
    assert command_delta(before, await command_calls(private_client)) == {"lrange": 1}


async def test_erase_removes_history_and_vault(
    store: RedisHistoryStore, redis_client: aioredis.Redis, keys: KeySpace
) -> None:
    await redis_client.hset(keys.thread(TID, "vault"), "h1", "encrypted")
    await store.append(TID, [u("q"), a("a")])
    assert await store.erase(TID) == 2
    assert await redis_client.exists(*keys.thread_keys(TID)) == 0
    assert await store.load(TID) == []
    assert await store.erase(TID) == 0


async def test_remove_user_message_and_its_answer(store: RedisHistoryStore) -> None:
    await store.append(TID, [u("first <PERSON_1>"), a("answer one")])
    await store.append(TID, [u("second"), a("answer two")])
    await store.append(TID, [u("third")])
    assert await store.remove_user_message(TID, "first <PERSON_1>") == 2
    assert await store.load(TID) == [u("second"), a("answer two"), u("third")]
    assert await store.remove_user_message(TID, "third") == 1
    assert await store.remove_user_message(TID, "answer two") == 0  # not a user message
    assert await store.remove_user_message(TID, "nowhere") == 0
    assert await store.load(TID) == [u("second"), a("answer two")]


async def test_remove_user_message_takes_the_newest_duplicate(store: RedisHistoryStore) -> None:
    await store.append(TID, [u("same"), a("old answer"), u("same"), a("new answer")])
    assert await store.remove_user_message(TID, "same") == 2
    assert await store.load(TID) == [u("same"), a("old answer")]


async def test_a_message_that_carried_files_is_found_by_its_own_text(
    store: RedisHistoryStore,
) -> None:
    """Slack and Discord send a deletion or an edit with the message's text, not its files."""
    files = '<file name="<PERSON_1>.csv">\nname,email\n<PERSON_1>,<EMAIL_ADDRESS_1>\n</file>'
    await store.append(TID, [u("see <PERSON_1>\n\n" + files), a("answer")])
    await store.append(TID, [u("see <PERSON_1> again"), a("answer two")])
    assert await store.replace_user_message(TID, "see <PERSON_1>", "look at it") == 1
    assert (await store.load(TID))[0] == u("look at it\n\n" + files), "the files stay"
    assert await store.remove_user_message(TID, "look") == 0, "a prefix alone is not the message"
    assert await store.remove_user_message(TID, "look at it") == 2
    assert await store.load(TID) == [u("see <PERSON_1> again"), a("answer two")]


async def test_redis_down_fails_fast_and_recovers(
    redis_server, private_client: aioredis.Redis, keys: KeySpace
) -> None:
    client = private_client
    store = RedisHistoryStore(client, keys, ttl_seconds=60, max_messages=4)
    await store.append(TID, [u("q"), a("a")])
    redis_server.stop()
    for call in (store.load(TID), store.append(TID, [u("x")]), store.erase(TID)):
        started = time.monotonic()
        with pytest.raises(StoreUnavailable) as info:
            await call
        assert time.monotonic() - started < 3
        assert "history" in str(info.value)
    redis_server.start()
    assert await store.load(TID) == []  # the private server keeps no data
    await store.append(TID, [u("back")])
    assert await store.load(TID) == [u("back")]


async def test_exists_tells_whether_a_thread_has_history(store: RedisHistoryStore) -> None:
    tid = thread_id("console", "exists-check")
    assert not await store.exists(tid)
    await store.append(tid, [ChatMessage("user", "hi"), ChatMessage("assistant", "hello")])
    assert await store.exists(tid)
    await store.erase(tid)
    assert not await store.exists(tid)


async def test_on_a_cluster_threads_spread_over_the_nodes_each_thread_on_one(
    redis_cluster_url: str,
) -> None:
    """What makes a cluster worth running: threads' data on every node, and each thread's
    history and vault on the same node, so one script or DEL covers both."""
    keys = KeySpace(f"vbtest-{uuid.uuid4().hex[:12]}")
    client = open_redis(redis_cluster_url, timeout=5)
    nodes = sync_redis(redis_cluster_url)
    assert isinstance(nodes, redis.RedisCluster)
    store = RedisHistoryStore(client, keys, ttl_seconds=60, max_messages=6)
    threads = [thread_id("slack", "T1", "C1", f"1700000000.{n:06d}") for n in range(30)]
    try:
        for tid in threads:
            await client.hset(keys.thread(tid, "vault"), "p:<PERSON_1>", "sealed")
            await store.append(tid, [u("q <PERSON_1>"), a("a")])
        held = {
            node.name: {k.decode() for k in node.redis_connection.keys(f"{keys.prefix}:*")}
            for node in nodes.get_primaries()
        }
        assert all(held.values()), "a primary holds no thread"
        for tid in threads:
            (home,) = [name for name, found in held.items() if keys.thread(tid, "history") in found]
            assert keys.thread(tid, "vault") in held[home]
        assert [await store.erase(tid) for tid in threads] == [2] * len(threads)
        assert all(not n.redis_connection.keys(f"{keys.prefix}:*") for n in nodes.get_primaries())
    finally:
        await client.aclose()
        nodes.close()


async def test_a_thread_whose_slot_moves_to_another_node_is_followed_there(
    redis_cluster: RedisClusterServer,
) -> None:
    """A resharding (scaling a cluster out, a managed service rebalancing) moves slots while
    the service runs: the next write and read of a moved thread go to its new node."""
    keys = KeySpace("vbtest-reshard")
    client = open_redis(redis_cluster.url, timeout=2)
    store = RedisHistoryStore(client, keys, ttl_seconds=60, max_messages=10)
    try:
        await client.hset(keys.thread(TID, "vault"), "p:<PERSON_1>", "sealed")
        await store.append(TID, [u("q1 <PERSON_1>"), a("a1")])
        slot = int(key_slot(keys.thread(TID, "history").encode()))
        before = redis_cluster.owner(slot)
        redis_cluster.move_slot(slot, to=(before + 1) % redis_cluster.masters)
        assert redis_cluster.owner(slot) != before
        kept = await store.append(TID, [u("q2"), a("a2")])  # the old node answers MOVED
        assert [m.text for m in kept] == ["q1 <PERSON_1>", "a1", "q2", "a2"]
        assert await client.hget(keys.thread(TID, "vault"), "p:<PERSON_1>") == b"sealed"
        assert await store.erase(TID) == 2
    finally:
        await client.aclose()
