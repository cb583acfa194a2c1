"""RedisThreadLocks against a real Redis: mutual exclusion per thread, across processes."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from bot.core.errors import StoreError, StoreUnavailable
from bot.core.keys import KeySpace
from bot.core.types import thread_id
from bot.state.client import open_redis
from bot.state.locks import RedisThreadLocks

pytestmark = pytest.mark.redis_cluster

TID = thread_id("slack", "T1", "C1", "1700000000.000100")
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def keys(redis_prefix: str) -> KeySpace:
    return KeySpace(prefix=redis_prefix)


@pytest.fixture
async def clients(redis_url: str) -> AsyncIterator[list[aioredis.Redis]]:
    made = [open_redis(redis_url, timeout=2) for _ in range(3)]
    yield made
    for client in made:
        await client.aclose()


def locks(client: aioredis.Redis, keys: KeySpace, ttl: float = 5, wait: float = 10):
    return RedisThreadLocks(client, keys, ttl_seconds=ttl, wait_seconds=wait)


def assert_no_overlap(spans: list[tuple[float, float]]) -> None:
    spans = sorted(spans)
    for (_, end), (start, _) in zip(spans, spans[1:], strict=False):
        assert start >= end, f"turns overlapped: {spans}"


async def test_holders_of_one_thread_never_overlap(clients, keys: KeySpace) -> None:
    instances = [locks(c, keys) for c in clients]  # three "replicas"
    spans: list[tuple[float, float]] = []

    async def turn(lk: RedisThreadLocks) -> None:
        async with lk.hold(TID):
            entered = time.monotonic()
            await asyncio.sleep(0.03)
            spans.append((entered, time.monotonic()))

    await asyncio.gather(*(turn(instances[i % 3]) for i in range(12)))
    assert len(spans) == 12
    assert_no_overlap(spans)


CHILD = """
import asyncio, sys, time
from bot.core.keys import KeySpace
from bot.state.locks import RedisThreadLocks
from bot.state.client import open_redis
from bot.core.types import parse_thread_id

async def main(url, prefix, tid):
    client = open_redis(url, timeout=2)
    lk = RedisThreadLocks(client, KeySpace(prefix), ttl_seconds=5, wait_seconds=20)
    for _ in range(4):
        async with lk.hold(parse_thread_id(tid)):
            entered = time.time()
            await asyncio.sleep(0.05)
            print(entered, time.time(), flush=True)
    await client.aclose()

asyncio.run(main(*sys.argv[1:]))
"""


async def test_holders_in_another_process_never_overlap(
    redis_url: str, clients, keys: KeySpace
) -> None:
    """This process and another take turns at one thread's lock, and their holds never overlap.

    The child prints each hold while it still holds the lock; after each line this process
    contends for the lock against that hold and the child's next one. (Contending in a loop of
    its own instead starved the child, whose waits back off, on a busy machine.)
    """
    lk = locks(clients[0], keys, wait=20)
    spans: list[tuple[float, float]] = []
    lines: list[bytes] = []
    child: asyncio.subprocess.Process | None = None
    try:
        async with lk.hold(TID):  # first: the child starts while this process holds the lock
            entered = time.time()
            child = await asyncio.create_subprocess_exec(
                sys.executable, "-c", CHILD, redis_url, keys.prefix, TID,
                cwd=REPO, stdout=asyncio.subprocess.PIPE,
            )  # fmt: skip
            await asyncio.sleep(0.02)
            spans.append((entered, time.time()))
        assert child.stdout is not None
        for _ in range(4):
            lines.append(await asyncio.wait_for(child.stdout.readline(), 30))
            async with lk.hold(TID):  # against the child's hold and its next one
                entered = time.time()
                await asyncio.sleep(0.02)
                spans.append((entered, time.time()))
        await asyncio.wait_for(child.wait(), 30)
    finally:
        if child is not None and child.returncode is None:
            child.kill()
            await child.wait()
    assert child.returncode == 0
    theirs = [tuple(map(float, line.split())) for line in lines]
    assert len(theirs) == 4
    assert min(spans)[0] < min(theirs)[0]
    assert max(e for _, e in spans) > max(theirs)[1]
    assert_no_overlap(spans + theirs)  # type: ignore[arg-type]


async def test_different_threads_run_concurrently(clients, keys: KeySpace) -> None:
    lk = locks(clients[0], keys)
    other = thread_id("discord", "G1", "42")

    inside = {TID: asyncio.Event(), other: asyncio.Event()}

    async def turn(tid, peer) -> None:
        async with lk.hold(tid):
            inside[tid].set()
            # both hold their locks at once, or this waits out its time and fails
            await asyncio.wait_for(inside[peer].wait(), timeout=30)

    await asyncio.gather(turn(TID, other), turn(other, TID))


async def test_lock_is_released_when_the_block_raises(
    clients, keys: KeySpace, redis_client: aioredis.Redis
) -> None:
    lk = locks(clients[0], keys, wait=0.2)
    with pytest.raises(RuntimeError, match="boom"):
        async with lk.hold(TID):
            raise RuntimeError("boom")
    assert await redis_client.exists(keys.thread(TID, "lock")) == 0
    async with lk.hold(TID):
        pass


async def test_live_holder_keeps_its_lock_past_the_ttl(clients, keys: KeySpace) -> None:
    # The rival waits three TTLs; the holder renews every third of one. The TTL leaves a
    # renewal a second's slack on a loaded machine (at 0.3 s, a late renewal lost the lock).
    holder = locks(clients[0], keys, ttl=1.5)
    rival = locks(clients[1], keys, ttl=1.5, wait=4.5)
    async with holder.hold(TID):
        with pytest.raises(StoreError, match="thread busy"):
            async with rival.hold(TID):
                pytest.fail("the lock was stolen from a live holder")
    async with rival.hold(TID):  # released on exit, so the rival gets it at once
        pass


async def test_crashed_holders_lock_expires(
    clients, keys: KeySpace, redis_client: aioredis.Redis
) -> None:
    """A lock nobody renews expires after its ttl and a waiter takes it then (its wait is a
    hundred times that ttl, so a busy machine does not make it give up first)."""
    key = keys.thread(TID, "lock")
    await redis_client.set(key, "crashed-token", px=300)
    lk = locks(clients[0], keys, wait=30)
    async with lk.hold(TID):
        assert await redis_client.get(key) not in (None, b"crashed-token")


async def test_wait_timeout_names_the_thread(clients, keys: KeySpace) -> None:
    """The waiter gives up after its own wait (0.2 s) while the thread is still busy; the
    bound is the default wait, as a holder renews its lock and nothing else would end it."""
    holder = locks(clients[0], keys)
    waiter = locks(clients[1], keys, wait=0.2)
    await clients[1].get(keys.thread(TID, "lock"))  # connected (a cluster's slots known) first
    async with holder.hold(TID):
        started = time.monotonic()
        with pytest.raises(StoreError) as info:
            async with waiter.hold(TID):
                pass
        assert time.monotonic() - started < 10
    assert type(info.value) is StoreError
    assert TID in str(info.value)


async def test_release_never_deletes_someone_elses_lock(
    clients, keys: KeySpace, redis_client: aioredis.Redis
) -> None:
    key = keys.thread(TID, "lock")
    lk = locks(clients[0], keys, ttl=5)
    async with lk.hold(TID):
        await redis_client.set(key, "someone-else", px=5000)  # as if ours had expired
    assert await redis_client.get(key) == b"someone-else"


async def test_redis_down_is_store_unavailable(redis_server, keys: KeySpace) -> None:
    client = open_redis(redis_server.url, timeout=1)
    lk = locks(client, keys)
    redis_server.stop()
    try:
        with pytest.raises(StoreUnavailable):
            async with lk.hold(TID):
                pass
    finally:
        await client.aclose()


async def test_waiters_in_one_process_are_served_in_order(clients, keys: KeySpace) -> None:
    lk = locks(clients[0], keys)
    order: list[int] = []

    async def turn(i: int) -> None:
        async with lk.hold(TID):
            order.append(i)
            await asyncio.sleep(0.01)

    async with lk.hold(TID):
        tasks = []
        for i in range(5):
            tasks.append(asyncio.create_task(turn(i)))
            await asyncio.sleep(0.01)
    await asyncio.gather(*tasks)
    assert order == [0, 1, 2, 3, 4]


async def test_a_holder_cancelled_twice_still_gives_its_lock_back_at_once(
    clients, keys: KeySpace
) -> None:
    lk = locks(clients[0], keys, ttl=60)
    entered = asyncio.Event()

    async def holder() -> None:
        async with lk.hold(TID):
            entered.set()
            await asyncio.Event().wait()

    task = asyncio.create_task(holder())
    await entered.wait()
    task.cancel()
    await asyncio.sleep(0)  # the holder is now giving the lock back...
    task.cancel()  # ...and is cancelled again (a drain's deadline, a second signal)
    with pytest.raises(asyncio.CancelledError):
        await task
    key = keys.thread(TID, "lock")
    deadline = time.monotonic() + 5  # far below the 60 s expiry
    while await clients[1].exists(key) and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    assert not await clients[1].exists(key)


class RenewalOutlivesCancel(aioredis.Redis):
    """A real client whose script calls finish even when cancelled meanwhile.

    In the three-replica test, under load, a holder's renewer was cancelled while a renewal
    was in flight and the cancellation was lost inside the client: the renewer lived on,
    renewing the lock for ever, and the thread's later events were never answered.
    """

    in_script: asyncio.Event

    async def evalsha(self, *args: object, **kwargs: object) -> object:  # type: ignore[override]
        self.in_script.set()
        call = asyncio.ensure_future(super().evalsha(*args, **kwargs))  # type: ignore[arg-type]
        try:
            return await asyncio.shield(call)
        except asyncio.CancelledError:  # lost here, as the library lost it
            return await call


async def test_lock_is_released_when_a_cancelled_renewal_finishes_anyway(
    redis_single_url: str, keys: KeySpace
) -> None:
    client = RenewalOutlivesCancel.from_url(redis_single_url)
    client.in_script = asyncio.Event()
    lk = locks(client, keys, ttl=0.3)
    key = keys.thread(TID, "lock")
    try:
        async with asyncio.timeout(5):  # far below "for ever"; a release takes milliseconds
            async with lk.hold(TID):
                client.in_script.clear()
                await client.in_script.wait()  # a renewal is in flight as the turn ends
        assert not await client.exists(key), "the lock outlived its holder"
    finally:
        await client.aclose()
