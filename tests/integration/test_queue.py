"""RedisTurnQueue against a real Redis: in order per thread, once each, nothing lost.

Several queues on one prefix play the replicas. A replica "dies" when its worker is cancelled
in the middle of an entry: its thread tokens stay in its pending list, unacked, as after a
SIGKILL (the process-level kill is in the three-replica end-to-end test).
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections import defaultdict
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack

import pytest
import redis
import redis.asyncio as aioredis

from bot.core.errors import StoreUnavailable
from bot.core.keys import KeySpace
from bot.core.types import QueuedEvent, ThreadId, thread_id
from bot.state.client import open_redis
from bot.state.queue import RedisTurnQueue, shard_of
from guardrails.vault.sealing import AesGcmSealer
from tests.fixtures.processes import until
from tests.fixtures.services import RedisServer, async_redis, free_port, sync_redis

SEALER = AesGcmSealer(b"k" * 32)
PII = ("Jane Doe", "jane.doe@example.com", "+1 415 555 0132")

pytestmark = [pytest.mark.timeout(60), pytest.mark.redis_cluster]


def tid(n: int) -> ThreadId:
    return thread_id("slack", "T1", "C1", f"1700000000.{n:06d}")


def body(thread: int, seq: int, text: str = "hello") -> bytes:
    return json.dumps({"thread": thread, "seq": seq, "text": text}).encode()


class Replicas:
    """Queues on one prefix, each with its own client and worker task; all stopped at exit."""

    def __init__(self, redis_url: str, prefix: str, stack: AsyncExitStack) -> None:
        self._url, self._keys, self._stack = redis_url, KeySpace(prefix), stack
        self.runs: dict[RedisTurnQueue, asyncio.Task[None]] = {}

    async def queue(self, name: str, **kwargs: object) -> RedisTurnQueue:
        client = open_redis(self._url, timeout=2)
        self._stack.push_async_callback(client.aclose)
        kwargs.setdefault("claim_idle_seconds", 1.0)
        return RedisTurnQueue(client, self._keys, sealer=SEALER, consumer=name, **kwargs)  # type: ignore[arg-type]

    def start(self, queue: RedisTurnQueue) -> None:
        self.runs[queue] = asyncio.create_task(queue.run())

    async def kill(self, queue: RedisTurnQueue) -> None:
        """Stop a worker without acking what it holds (as a SIGKILL would)."""
        task = self.runs.pop(queue)
        task.cancel()
        await asyncio.wait([task], timeout=10)
        assert task.done()

    async def close(self) -> None:
        for queue in self.runs:
            queue.stop()
        tasks = list(self.runs.values())
        if tasks:
            _, late = await asyncio.wait(tasks, timeout=15)
            for task in late:
                task.cancel()
            await asyncio.wait(tasks, timeout=5)


@pytest.fixture
async def replicas(redis_url: str, redis_prefix: str) -> AsyncIterator[Replicas]:
    async with AsyncExitStack() as stack:
        made = Replicas(redis_url, redis_prefix, stack)
        try:
            yield made
        finally:
            await made.close()


async def test_a_retried_delivery_is_queued_once(replicas: Replicas) -> None:
    queue = await replicas.queue("a")
    assert await queue.put("slack", "T1:C1:1.000001", tid(1), body(1, 1))
    assert not await queue.put("slack", "T1:C1:1.000001", tid(1), body(1, 1))
    worked: list[QueuedEvent] = []

    async def handler(event: QueuedEvent) -> None:
        worked.append(event)

    queue.register("slack", handler)
    replicas.start(queue)
    assert await queue.idle(20)
    assert [(e.event_id, e.attempt) for e in worked] == [("T1:C1:1.000001", 1)]


async def test_one_worker_works_every_platform_it_registered(replicas: Replicas) -> None:
    """One read covers both platforms' streams (in a cluster: one slot, one node)."""
    queue = await replicas.queue("a")
    worked: list[tuple[str, str]] = []

    async def handler(event: QueuedEvent) -> None:
        worked.append((event.platform, event.event_id))

    queue.register("slack", handler)
    queue.register("discord", handler)
    assert await queue.put("slack", "T1:C1:1.000001", tid(1), body(1, 1))
    assert await queue.put("discord", "1180000000000000001", thread_id("discord", "G1", "42"), b"")
    replicas.start(queue)
    assert await queue.idle(20)
    assert sorted(worked) == [("discord", "1180000000000000001"), ("slack", "T1:C1:1.000001")]


async def test_an_entry_waits_to_begin_while_this_process_is_acking(replicas: Replicas) -> None:
    """A burst of deliveries: their acks (which Slack times out after 3 s) go before the turns
    they queue, for ``acks_first_seconds`` at most."""
    queue = await replicas.queue("a", acks_first_seconds=1.0)
    begun: list[float] = []

    async def handler(event: QueuedEvent) -> None:
        begun.append(time.monotonic())

    queue.register("slack", handler)
    replicas.start(queue)
    with queue.acking():  # an ack that never ends: the entry waits the whole second
        put_at = time.monotonic()
        assert await queue.put("slack", "T1:C1:1.000001", tid(1), body(1, 1))
        await until(lambda: bool(begun), "the entry, once the wait is over", within=30.0)
    assert begun[0] - put_at >= 1.0


async def test_an_entry_begins_as_soon_as_the_acks_are_done(replicas: Replicas) -> None:
    queue = await replicas.queue("a", acks_first_seconds=600.0)
    begun: list[QueuedEvent] = []

    async def handler(event: QueuedEvent) -> None:
        begun.append(event)

    queue.register("slack", handler)
    replicas.start(queue)
    with queue.acking(), queue.acking():  # two deliveries being acked
        assert await queue.put("slack", "T1:C1:1.000001", tid(1), body(1, 1))
        await until(lambda: queue.in_flight == 1, "the worker took the thread", within=30.0)
    await until(lambda: bool(begun), "the entry, well before the 600 s", within=30.0)
    assert [e.event_id for e in begun] == ["T1:C1:1.000001"]


async def test_three_replicas_answer_each_event_once_and_each_thread_in_order(
    replicas: Replicas,
) -> None:
    threads, per_thread = 12, 15
    queues = [await replicas.queue(name, workers=4) for name in "abc"]
    seen: dict[int, list[int]] = defaultdict(list)
    running: set[int] = set()
    overlaps: list[int] = []

    def handler_for(name: str) -> Callable[[QueuedEvent], object]:
        async def handler(event: QueuedEvent) -> None:
            data = json.loads(event.body)
            if data["thread"] in running:
                overlaps.append(data["thread"])
            running.add(data["thread"])
            await asyncio.sleep(0.002 * (data["seq"] % 3))
            seen[data["thread"]].append(data["seq"])
            running.discard(data["thread"])

        return handler

    for name, queue in zip("abc", queues, strict=True):
        queue.register("slack", handler_for(name))  # type: ignore[arg-type]
        replicas.start(queue)
    # Every event is put three times, through different replicas, as Slack retries do.
    puts = [
        queues[(t + s + k) % 3].put("slack", f"T1:C{t}:{s}", tid(t), body(t, s))
        for s in range(per_thread)
        for t in range(threads)
        for k in range(3)
    ]
    results = [await p for p in puts]  # in order: a thread's events are put in order
    assert sum(results) == threads * per_thread
    await until(
        lambda: sum(map(len, seen.values())) >= threads * per_thread, "all answered", within=30.0
    )
    assert await queues[0].idle(20)
    assert overlaps == []
    assert {t: seen[t] for t in range(threads)} == {
        t: list(range(per_thread)) for t in range(threads)
    }


async def test_a_dead_replicas_threads_are_claimed_and_answered_in_order(
    replicas: Replicas,
) -> None:
    dying = await replicas.queue("dying")
    stuck = asyncio.Event()
    worked: list[tuple[str, int, int]] = []

    async def hangs(event: QueuedEvent) -> None:
        stuck.set()
        await asyncio.Event().wait()  # it dies in the middle of the turn

    dying.register("slack", hangs)
    for seq in range(3):
        await dying.put("slack", f"T1:C1:{seq}", tid(1), body(1, seq))
    replicas.start(dying)
    await asyncio.wait_for(stuck.wait(), 10)
    await replicas.kill(dying)

    survivor = await replicas.queue("survivor", claim_idle_seconds=0.5)

    async def answers(event: QueuedEvent) -> None:
        worked.append(("survivor", json.loads(event.body)["seq"], event.attempt))

    survivor.register("slack", answers)
    replicas.start(survivor)
    await until(lambda: len(worked) == 3, "the claimed thread answered", within=30.0)
    # The entry the dead replica began comes back marked as a second attempt (it may have
    # answered already); the others are first attempts; the order is kept.
    assert worked == [("survivor", 0, 2), ("survivor", 1, 1), ("survivor", 2, 1)]
    assert await survivor.idle(10)


async def test_a_long_turn_is_not_taken_from_a_live_replica(replicas: Replicas) -> None:
    owner = await replicas.queue("owner", claim_idle_seconds=0.6)
    other = await replicas.queue("other", claim_idle_seconds=0.6)
    worked: list[tuple[str, int]] = []

    def handler_for(name: str, seconds: float) -> Callable[[QueuedEvent], object]:
        async def handler(event: QueuedEvent) -> None:
            worked.append((name, event.attempt))
            await asyncio.sleep(seconds)

        return handler

    owner.register("slack", handler_for("owner", 2.5))  # type: ignore[arg-type]
    other.register("slack", handler_for("other", 0))  # type: ignore[arg-type]
    await owner.put("slack", "T1:C1:1", tid(1), body(1, 1))
    replicas.start(owner)
    await until(lambda: bool(worked), "the owner began", within=30.0)
    replicas.start(other)
    assert await owner.idle(20)
    assert worked == [("owner", 1)]


async def test_a_drain_finishes_the_entry_in_flight_and_leaves_the_rest_to_others(
    replicas: Replicas,
) -> None:
    draining = await replicas.queue("draining", claim_idle_seconds=0.5)
    began, release = asyncio.Event(), asyncio.Event()
    worked: list[tuple[str, int, int]] = []

    async def slow(event: QueuedEvent) -> None:
        began.set()
        await release.wait()
        worked.append(("draining", json.loads(event.body)["seq"], event.attempt))

    draining.register("slack", slow)
    for seq in range(3):
        await draining.put("slack", f"T1:C1:{seq}", tid(1), body(1, seq))
    replicas.start(draining)
    await asyncio.wait_for(began.wait(), 10)
    drain = asyncio.create_task(draining.drain(10))
    await asyncio.sleep(0.1)
    assert not drain.done()  # it waits for the entry in flight
    release.set()
    await asyncio.wait_for(drain, 10)
    await asyncio.wait_for(replicas.runs.pop(draining), 10)
    assert worked == [("draining", 0, 1)]

    other = await replicas.queue("other", claim_idle_seconds=0.5)

    async def answers(event: QueuedEvent) -> None:
        worked.append(("other", json.loads(event.body)["seq"], event.attempt))

    other.register("slack", answers)
    replicas.start(other)
    await until(lambda: len(worked) == 3, "the rest answered elsewhere", within=30.0)
    assert worked[1:] == [("other", 1, 1), ("other", 2, 1)]


async def _everything_under(client: aioredis.Redis | aioredis.RedisCluster, prefix: str) -> bytes:
    dump = b""
    async for key in client.scan_iter(match=f"{prefix}:*", count=500):
        kind = (await client.type(key)).decode()
        if kind == "string":
            dump += await client.get(key) or b""
        elif kind == "hash":
            for field, value in (await client.hgetall(key)).items():
                dump += field + value
        elif kind == "list":
            dump += b"".join(await client.lrange(key, 0, -1))
        elif kind == "stream":
            for _, fields in await client.xrange(key):
                dump += b"".join(k + v for k, v in fields.items())
        dump += key
    return dump


async def test_queued_events_hold_no_personal_data_and_are_deleted_once_answered(
    replicas: Replicas, redis_url: str, redis_prefix: str
) -> None:
    queue = await replicas.queue("a")
    text = f"I am {PII[0]}, mail {PII[1]} or call {PII[2]}"
    await queue.put("slack", "T1:C1:1", tid(1), body(1, 1, text))
    client = async_redis(redis_url)
    try:
        stored = await _everything_under(client, redis_prefix)
        assert stored  # the entry is there, sealed
        for value in PII:
            assert value.encode() not in stored
        got: list[str] = []

        async def handler(event: QueuedEvent) -> None:
            got.append(json.loads(event.body)["text"])

        queue.register("slack", handler)
        replicas.start(queue)
        assert await queue.idle(20)
        assert got == [text]
        left = {k.decode() async for k in client.scan_iter(match=f"{redis_prefix}:*")}
        # Only the delivery's dedupe mark (it expires), the shard count and empty streams stay:
        # the entry's own shard's, and any other shard's whose reader has made its group by now
        # (each reader makes its own when it starts, so how many is a matter of timing).
        keys, tags = KeySpace(redis_prefix), await queue.shards()
        shard = tags[shard_of(tid(1), len(tags))]
        mark = keys.queue("seen:slack:T1:C1:1", shard)
        streams = {keys.queue("tokens:slack", tag) for tag in tags}
        assert left - streams == {mark, keys.queue("shards")}
        assert keys.queue("tokens:slack", shard) in left
        for stream in left & streams:
            assert await client.xlen(stream) == 0
    finally:
        await client.aclose()


async def test_a_put_while_redis_is_down_raises_store_unavailable(redis_prefix: str) -> None:
    client = open_redis(f"redis://127.0.0.1:{free_port()}", timeout=0.5)
    try:
        queue = RedisTurnQueue(client, KeySpace(redis_prefix), sealer=SEALER)
        with pytest.raises(StoreUnavailable):
            await queue.put("slack", "T1:C1:1", tid(1), body(1, 1))
    finally:
        await client.aclose()


async def test_a_dead_replicas_thread_is_found_behind_many_live_ones(replicas: Replicas) -> None:
    # One XAUTOCLAIM call looks at no more than 10 x COUNT pending tokens: a claimer with one
    # free worker must go on scanning where it stopped, not start over at the head each time.
    live, release = 30, asyncio.Event()
    busy = await replicas.queue("busy", workers=live, claim_idle_seconds=0.5)

    async def holds(event: QueuedEvent) -> None:
        await release.wait()

    busy.register("slack", holds)
    for t in range(live):
        await busy.put("slack", f"T1:C{t}:1", tid(t), body(t, 1))
    replicas.start(busy)
    await until(lambda: busy.in_flight == live, "the live threads taken", within=30.0)

    dying = await replicas.queue("dying", workers=1)
    stuck = asyncio.Event()

    async def hangs(event: QueuedEvent) -> None:
        stuck.set()
        await asyncio.Event().wait()

    dying.register("slack", hangs)
    await dying.put("slack", "T1:C99:1", tid(99), body(99, 1))
    replicas.start(dying)
    await asyncio.wait_for(stuck.wait(), 10)
    await replicas.kill(dying)

    survivor = await replicas.queue("survivor", workers=1, claim_idle_seconds=0.5)
    worked: list[int] = []

    async def answers(event: QueuedEvent) -> None:
        worked.append(json.loads(event.body)["thread"])

    survivor.register("slack", answers)
    replicas.start(survivor)
    try:
        await until(lambda: worked == [99], "the dead replica's thread answered", within=20)
    finally:
        release.set()


async def test_a_worker_whose_thread_was_taken_while_it_stalled_is_told_before_answering(
    replicas: Replicas, redis_client: aioredis.Redis
) -> None:
    # Found by tests/e2e/test_replicas.py: a replica's loop stalled past the claim idle in a
    # burst, another claimed the thread and both posted the answer.
    owner = await replicas.queue("owner", claim_idle_seconds=30)
    began, claimed = asyncio.Event(), asyncio.Event()
    seen: list[tuple[bool, bool]] = []

    async def handler(event: QueuedEvent) -> None:
        assert event.still_mine is not None
        before = await event.still_mine()
        began.set()
        await claimed.wait()
        seen.append((before, await event.still_mine()))

    owner.register("slack", handler)
    await owner.put("slack", "T1:C1:1", tid(1), body(1, 1))
    replicas.start(owner)
    await until(lambda: began.is_set(), "the owner began", within=30.0)
    # what another replica's XAUTOCLAIM does once the owner's token looks idle
    tags = await owner.shards()
    stream = owner.stream("slack", tags[shard_of(tid(1), len(tags))])
    await redis_client.xautoclaim(stream, "workers", "other", 0, "0-0")
    claimed.set()
    await until(lambda: bool(seen), "the owner asked again", within=30.0)
    assert seen == [(True, False)]


async def _script_calls(client: aioredis.Redis) -> int:
    stats = await client.info("commandstats")
    return sum(
        int(stats.get(f"cmdstat_{name}", {}).get("calls", 0)) for name in ("evalsha", "eval")
    )


async def test_puts_made_at_once_share_round_trips_and_each_learns_its_own_outcome(
    redis_server: RedisServer,
) -> None:
    client = open_redis(redis_server.url, timeout=5)
    try:
        keys = KeySpace("batch")
        queue = RedisTurnQueue(client, keys, sealer=SEALER)
        before = await _script_calls(client)
        events = [(t, s) for t in range(50) for s in range(5)]
        # every event twice at once, as a Slack retry can come while the first is in flight
        results = await asyncio.gather(
            *(
                queue.put("slack", f"T1:C1:{t}.{s}", tid(t), body(t, s))
                for t, s in events
                for _ in range(2)
            )
        )
        calls = await _script_calls(client) - before
        assert [results[2 * i] + results[2 * i + 1] for i in range(len(events))] == [1] * 250
        assert calls <= 10, calls  # 500 puts: a few batches, not a round trip each
        for t in range(50):  # a thread's events wait in the order they were put
            entries = await client.lrange(keys.queue(f"thread:{tid(t)}"), 0, -1)
            assert entries == [f"slack:T1:C1:{t}.{s}".encode() for s in range(5)]
    finally:
        await client.aclose()


async def test_puts_waiting_together_all_fail_when_redis_is_down(redis_prefix: str) -> None:
    client = open_redis(f"redis://127.0.0.1:{free_port()}", timeout=0.5)
    try:
        queue = RedisTurnQueue(client, KeySpace(redis_prefix), sealer=SEALER)
        puts = [queue.put("slack", f"T1:C1:{n}", tid(n), body(n, 1)) for n in range(30)]
        results = await asyncio.gather(*puts, return_exceptions=True)
        assert all(isinstance(r, StoreUnavailable) for r in results), results
        assert len({id(r) for r in results}) == 30  # each its own error (and traceback)
    finally:
        await client.aclose()


def _getkeys_calls(url: str) -> int:
    nodes = sync_redis(url)
    assert isinstance(nodes, redis.RedisCluster)
    try:
        stats = [n.redis_connection.info("commandstats") for n in nodes.get_primaries()]
        return sum(int(s.get("cmdstat_command|getkeys", {}).get("calls", 0)) for s in stats)
    finally:
        nodes.close()


async def test_a_queue_read_on_a_cluster_is_one_round_trip(redis_cluster_url: str) -> None:
    """The worker reads the queue every half second per replica: routing a read must not cost
    a question to a node first (redis-py asks ``COMMAND GETKEYS`` for a stream read)."""
    client = open_redis(redis_cluster_url, timeout=5)
    stream = KeySpace(f"vbtest-{uuid.uuid4().hex[:12]}").queue("tokens:slack")
    try:
        await client.xgroup_create(stream, "workers", id="0", mkstream=True)
        before = _getkeys_calls(redis_cluster_url)
        for _ in range(3):
            assert await client.xreadgroup("workers", "a", {stream: ">"}, count=1, block=1) == []
        assert _getkeys_calls(redis_cluster_url) == before
    finally:
        await client.delete(stream)
        await client.aclose()


def _queue_keys_by_master(url: str, prefix: str) -> list[set[str]]:
    """The queue keys each master of the cluster holds."""
    nodes = sync_redis(url)
    assert isinstance(nodes, redis.RedisCluster)
    try:
        pattern = KeySpace(prefix).queue_everywhere("*")
        return [
            {k.decode() for k in node.redis_connection.scan_iter(match=pattern, count=500)}
            for node in nodes.get_primaries()
        ]
    finally:
        nodes.close()


async def test_the_queue_spreads_over_every_master_and_survives_a_killed_replica(
    redis_cluster_url: str,
) -> None:
    """One shard per master by default: every master carries queue keys, and three replicas
    (one killed in the middle of a turn, as by SIGKILL) answer each event once, in order."""
    prefix = f"vbtest-{uuid.uuid4().hex[:12]}"
    threads, per_thread = 24, 4
    seen: dict[int, list[int]] = defaultdict(list)
    stuck = asyncio.Event()
    async with AsyncExitStack() as stack:
        made = Replicas(redis_cluster_url, prefix, stack)
        try:
            queues = [await made.queue(name, workers=4, claim_idle_seconds=0.5) for name in "abc"]
            assert len(await queues[0].shards()) == 3
            for t in range(threads):
                for s in range(per_thread):
                    assert await queues[(t + s) % 3].put(
                        "slack", f"T1:C{t}:{s}", tid(t), body(t, s)
                    )
            masters = _queue_keys_by_master(redis_cluster_url, prefix)
            assert len(masters) == 3
            assert all(keys for keys in masters)  # every master carries a part of the queue

            async def dies(event: QueuedEvent) -> None:
                stuck.set()
                await asyncio.Event().wait()  # killed in the middle of the turn

            async def answers(event: QueuedEvent) -> None:
                data = json.loads(event.body)
                seen[data["thread"]].append(data["seq"])

            queues[0].register("slack", dies)
            made.start(queues[0])
            await asyncio.wait_for(stuck.wait(), 10)
            await made.kill(queues[0])
            for queue in queues[1:]:
                queue.register("slack", answers)
                made.start(queue)
            await until(
                lambda: sum(map(len, seen.values())) >= threads * per_thread,
                "every event answered",
                within=30.0,
            )
            assert await queues[1].idle(20)
            # The killed replica held one thread: its first entry comes back to a survivor.
            assert {t: seen[t] for t in range(threads)} == {
                t: list(range(per_thread)) for t in range(threads)
            }
        finally:
            await made.close()
            cleanup = async_redis(redis_cluster_url)
            try:
                async for key in cleanup.scan_iter(match=f"{prefix}:*", count=500):
                    await cleanup.delete(key)
            finally:
                await cleanup.aclose()


async def test_every_replica_uses_the_shard_count_the_first_one_recorded(
    replicas: Replicas,
) -> None:
    first = await replicas.queue("first", shards=4)
    later = await replicas.queue("later", shards=2)
    assert len(await first.shards()) == 4
    assert await later.shards() == await first.shards()
    worked: list[int] = []

    async def handler(event: QueuedEvent) -> None:
        worked.append(json.loads(event.body)["seq"])

    for seq in range(6):
        await (first if seq % 2 else later).put("slack", f"T1:C1:{seq}", tid(1), body(1, seq))
    later.register("slack", handler)
    replicas.start(later)
    assert await later.idle(20)
    assert worked == list(range(6))
