"""An uninstalled workspace's queued entries, dropped at once on a real Redis.

The entry a worker holds is told it was withdrawn; the entries waiting behind it, in its
thread and in the workspace's other threads, are never handed to a worker; another
workspace's entries are answered as usual; nothing sealed stays behind.
"""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio as aioredis

from bot.core.keys import KeySpace
from bot.core.types import QueuedEvent, ThreadId, thread_id
from bot.state.queue import RedisTurnQueue, shard_of
from bot.state.queue_drop import DroppedEntry, drop_workspace
from tests.integration.test_queue import Replicas, body, replicas, tid, until  # noqa: F401

pytestmark = [pytest.mark.timeout(60), pytest.mark.redis_cluster]


async def _queued(client: aioredis.Redis, keys: KeySpace, queue: RedisTurnQueue) -> list[bytes]:
    """The entries queued in every shard."""
    return [
        e for tag in await queue.shards() for e in await client.hkeys(keys.queue("payloads", tag))
    ]


def other_tid() -> ThreadId:
    return thread_id("slack", "T2", "C1", "1700000000.000001")


async def test_a_workspaces_entries_are_dropped_and_the_one_in_flight_is_withdrawn(
    replicas: Replicas,  # noqa: F811
    redis_client: aioredis.Redis,
    redis_prefix: str,
) -> None:
    queue = await replicas.queue("a", workers=1)  # one thread at a time: the rest stay queued
    keys = KeySpace(redis_prefix)
    began, dropped = asyncio.Event(), asyncio.Event()
    handled: list[str] = []
    told: list[tuple[bool, bool]] = []

    async def handler(event: QueuedEvent) -> None:
        handled.append(event.event_id)
        # The workspace's first entry to begin, of either thread: threads on other shards are
        # read in no set order, only a thread's own entries are kept in order.
        if event.event_id.startswith("T1:"):
            assert event.withdrawn is not None
            before = await event.withdrawn()
            began.set()
            await dropped.wait()
            told.append((before, await event.withdrawn()))

    queue.register("slack", handler)
    await queue.put("slack", "T1:C1:1.1", tid(1), body(1, 1, "I am Jane Doe"))
    await queue.put("slack", "T1:C1:1.2", tid(1), body(1, 2, "jane.doe@example.com"))
    await queue.put("slack", "T1:C1:2.1", tid(2), body(2, 1, "+1 415 555 0132"))
    await queue.put("slack", "T2:C1:1.1", other_tid(), body(3, 1))
    replicas.start(queue)
    await until(began.is_set, "the worker began the first entry")

    gone = await drop_workspace(redis_client, keys, "slack", "T1")
    assert sorted(gone, key=lambda d: d.event_id) == [
        DroppedEntry("slack", "T1:C1:1.1", tid(1)),
        DroppedEntry("slack", "T1:C1:1.2", tid(1)),
        DroppedEntry("slack", "T1:C1:2.1", tid(2)),
    ]
    left = await _queued(redis_client, keys, queue)
    assert left == [b"slack:T2:C1:1.1"]  # the sealed text of the three is gone already
    dropped.set()

    assert await queue.idle(20)
    assert told == [(False, True)]
    began_first = [e for e in handled if e.startswith("T1:")]
    assert began_first in (["T1:C1:1.1"], ["T1:C1:2.1"])  # never 1.2 before 1.1
    # the waiting ones never reached a worker; the other workspace's was answered
    assert sorted(handled) == sorted([*began_first, "T2:C1:1.1"])
    tags = await queue.shards()
    for thread in (tid(1), tid(2)):
        shard = tags[shard_of(thread, len(tags))]
        assert not await redis_client.exists(keys.queue(f"thread:{thread}", shard))
    assert await drop_workspace(redis_client, keys, "slack", "T1") == []  # nothing left


async def test_a_workspace_id_with_glob_characters_drops_only_its_own(
    replicas: Replicas,  # noqa: F811
    redis_client: aioredis.Redis,
    redis_prefix: str,
) -> None:
    queue = await replicas.queue("a")
    await queue.put("slack", "T1:C1:1.1", tid(1), body(1, 1))
    keys = KeySpace(redis_prefix)
    assert await drop_workspace(redis_client, keys, "slack", "T*") == []
    assert len(await _queued(redis_client, keys, queue)) == 1
