"""The turn queue in Redis: acked platform events that any replica answers, each once, in order.

An adapter ``put``s an event before it acks it to the platform; a worker in any process works
it later. The queue is split in shards so that on a Redis Cluster every master carries a part
of it: a thread always goes to the same shard (a hash of its id), so its events stay in order,
and each shard's keys share one hash tag (``KeySpace.queue``; ``shard_tags`` chooses tags
whose slots lie in different parts of the slot range, so the shards land on different
masters). The shard count is the cluster's master count unless set (``VEILBOT_QUEUE_SHARDS``;
1 on a single server), and the first process to use a Redis records it there: every replica
then uses the recorded count, whatever its own setting (one that differs is logged), since a
thread hashed to two different shards could be worked by two workers at once. Keys of one
shard::

    seen:<platform>:<event>  SET NX EX   a delivery queued once (platform retries dropped)
    payloads                 hash        entry -> the event, sealed (``Sealer``: AES-GCM)
    attempts                 hash        entry -> how many workers began it
    thread:<thread id>       list        the thread's entries, oldest first
    scheduled                hash        thread id -> 1 while a token names the thread
    tokens:<platform>        stream      one token per scheduled thread; consumer group
                                         ``workers`` (a process reads its platforms' only)

Ordering without waiting: ``put`` is one Lua step that appends the entry to its thread's list
and adds a token to the stream only if the thread has none. The worker that reads a token
(``XREADGROUP``) works that thread's list head by head; only the token's holder works a thread,
so a thread's events are answered in order and no worker waits for another. When the list is
empty the token is acked and deleted in the same step that pops the last entry (a ``put``
racing it adds a new token); after ``_FAIR_ENTRIES`` entries a busy thread's token goes to the
back of the stream so other threads get their turn.

Acks first (``bot.state.acks``): while this process is acking platform deliveries
(``acking``, held by the Slack adapter for each), an entry waits up to
``acks_first_seconds`` before it begins.

A worker reads every shard (one reader per shard, each blocking on its own streams, so a
busy shard never delays another's), and claims idle tokens shard by shard.

A replica that dies holds its tokens in the group's pending list; live workers take them with
``XAUTOCLAIM`` once idle for ``claim_idle`` seconds and go on at the thread's list head. A live
worker touches the tokens it holds (``XCLAIM ... JUSTID`` in Lua, only while it still owns
them) every third of ``claim_idle``, so a long turn is never taken from it. An entry begun
before is handed over with ``attempt > 1``: the adapter checks whether the earlier attempt
answered already.

Uninstalling (``bot.state.queue_drop``): a workspace's entries are deleted at once; a worker
holding one finds its payload gone (``QueuedEvent.withdrawn``) and stops the turn.

Stopping (``drain``): read no more tokens, let the entries in flight finish, leave the rest of
each thread pending for the other replicas. Loops stop on an event, not on cancellation alone
(redis-py can lose a cancellation under ``asyncio.wait_for``: CPython gh-86296).
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import socket
import zlib
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

from redis.asyncio.cluster import RedisCluster
from redis.crc import REDIS_CLUSTER_HASH_SLOTS, key_slot

from bot.core.errors import StoreError, StoreUnavailable
from bot.core.keys import KeySpace
from bot.core.logsafe import log_failure
from bot.core.metrics import NO_METRICS
from bot.core.ports import Metrics, QueueHandler, Sealer
from bot.core.types import QueuedEvent, ThreadId
from bot.state import queue_lua
from bot.state.acks import AckGate, Yielding
from bot.state.client import RedisClient, store_errors

logger = logging.getLogger(__name__)

GROUP = "workers"
_FAIR_ENTRIES = 8
"""Entries one token holder works before its thread goes to the back of the stream."""
_PUT_BATCH = 100
"""Most puts sent in one Lua call (one call keeps Redis busy for well under a millisecond)."""
_CANCEL_GRACE_SECONDS = 10.0
"""When ``run`` is cancelled without a drain first: how long entries in flight get."""


def shard_tags(count: int) -> tuple[str, ...]:
    """The hash tags of ``count`` shards, each in its own ``1/count`` of the slot range.

    The first is ``queue`` (a queue of one shard keeps its old key names); the others are
    found by trying suffixes, so every process computes the same tags. A cluster made by
    ``redis-cli --cluster create`` (or resharded evenly) gives each master a contiguous
    part of the range: with one shard per master, every master gets one.
    """
    if count < 1:
        raise ValueError("a queue has at least one shard")

    def part(tag: str) -> int:
        return key_slot(tag.encode()) * count // REDIS_CLUSTER_HASH_SLOTS

    tags = ["queue"]
    free = [p for p in range(count) if p != part("queue")]
    for shard, wanted in enumerate(free, start=1):
        tags.append(
            next(tag for n in range(100_000) if part(tag := f"queue:{shard}:{n}") == wanted)
        )
    return tuple(tags)


def shard_of(thread: ThreadId, count: int) -> int:
    """The shard a thread's events go to: the same in every process, for every event."""
    return zlib.crc32(thread.encode()) % count


def default_replica_id() -> str:
    """``hostname-pid-random``: unique per process, readable in ``XINFO CONSUMERS``."""
    return f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(3)}"


@dataclass(slots=True)
class _Put:
    """A put waiting for its batch: the entry, sealed, and where its outcome goes."""

    entry: str
    thread: ThreadId
    sealed: bytes
    done: asyncio.Future[bool]


def _fail(done: asyncio.Future[bool], exc: StoreError) -> None:
    """Fail one waiting put with its own copy of ``exc`` (a shared one would share tracebacks)."""
    if not done.done():
        copy = type(exc)(str(exc))
        copy.__cause__ = exc.__cause__
        done.set_exception(copy)


@dataclass(slots=True)
class _Held:
    """A thread token this process works."""

    stream: str
    token: str
    thread: ThreadId
    shard: str
    slots: asyncio.Semaphore | None = field(default=None, repr=False)
    """The workers it took one of (a claimed thread takes none)."""
    lost: bool = False
    task: asyncio.Task[None] | None = field(default=None, repr=False)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class RedisTurnQueue:
    """``TurnQueue`` on Redis streams with a consumer group (one per platform), and its worker.

    ``run`` works the queue until ``drain`` (or ``stop``); the composition root runs it in
    ``veilbot run``. Adapters ``put`` and ``register``; a process works only the platforms it
    registered (a Discord-only replica never takes a Slack thread).

    Args:
        redis: the client (see ``bot.state.client.open_redis``).
        keys: key names.
        sealer: encrypts payloads for Redis (``guardrails.vault.sealing.AesGcmSealer``).
        consumer: this process's consumer name (``VEILBOT_REPLICA_ID``).
        claim_idle_seconds: how long a token may sit untouched before another worker takes it.
        workers: threads worked at once.
        dedupe_ttl_seconds: how long a queued delivery is remembered (platform retries).
        block_seconds: how long one read waits for new tokens (below the client's timeout).
        acks_first_seconds: how long an entry waits to begin while this process is acking
            (``acking``), and the longest ``yielding`` is paused at a time; 0 begins at once.
        yielding: running work paused while this process acks a burst (detection processes).
        metrics: counts puts, duplicates dropped, claims, redeliveries; the depth.
        shards: the shard count to record if none is recorded yet; ``None``: the cluster's
            master count (1 on a single server).
    """

    def __init__(
        self,
        redis: RedisClient,
        keys: KeySpace,
        *,
        sealer: Sealer,
        consumer: str | None = None,
        claim_idle_seconds: float = 30.0,
        workers: int = 32,
        dedupe_ttl_seconds: int = 3600,
        block_seconds: float = 0.5,
        acks_first_seconds: float = 0.25,
        yielding: Sequence[Yielding] = (),
        metrics: Metrics = NO_METRICS,
        shards: int | None = None,
    ) -> None:
        if claim_idle_seconds <= 0 or workers < 0 or dedupe_ttl_seconds < 1:
            raise ValueError("claim idle and dedupe ttl must be positive, workers not negative")
        if shards is not None and shards < 1:
            raise ValueError("a queue has at least one shard")
        self._wanted_shards = shards
        self._tags: tuple[str, ...] = ()
        self._layout_lock = asyncio.Lock()
        self._redis, self._keys, self._sealer = redis, keys, sealer
        self.consumer = consumer or default_replica_id()
        self._claim_idle = claim_idle_seconds
        self._workers = workers
        self._ttl = dedupe_ttl_seconds
        self._block_ms = max(1, int(block_seconds * 1000))
        self._metrics = metrics
        self._acks = AckGate(acks_first_seconds, yielding)
        self._put = redis.register_script(queue_lua.PUT)
        self._begin = redis.register_script(queue_lua.BEGIN)
        self._done = redis.register_script(queue_lua.DONE)
        self._touch = redis.register_script(queue_lua.TOUCH)
        self._withdrawn_lua = redis.register_script(queue_lua.WITHDRAWN)
        self._handlers: dict[str, QueueHandler] = {}
        self._puts: list[_Put] = []
        self._putter: asyncio.Task[None] | None = None
        self._held: dict[tuple[str, str], _Held] = {}
        self._stopping = asyncio.Event()
        self._finished = asyncio.Event()
        self._slots = asyncio.Semaphore(max(1, workers))
        self._grouped: set[str] = set()
        self._cancelled = False
        self._cursors: dict[str, str] = {}

    def stream(self, platform: str, shard: str = "queue") -> str:
        """The token stream of one platform's threads in one shard."""
        return self._keys.queue(f"tokens:{platform}", shard)

    async def shards(self) -> tuple[str, ...]:
        """The shards' hash tags, by the count recorded in Redis (recorded here if none is).

        Raises:
            StoreError: Redis failed (asked again at the next call).
        """
        if self._tags:
            return self._tags
        async with self._layout_lock:
            if not self._tags:
                self._tags = shard_tags(await self._recorded_count())
        return self._tags

    async def _recorded_count(self) -> int:
        key = self._keys.queue("shards")
        async with store_errors("queue shards"):
            wanted = self._wanted_shards or await self._masters()
            await self._redis.set(key, str(wanted), nx=True)
            recorded = await self._redis.get(key)
        count = int(_text(recorded)) if recorded is not None else wanted
        if self._wanted_shards is not None and count != self._wanted_shards:
            logger.warning(
                "queue: %d shards asked for, but this Redis records %d: using %d (the count "
                "changes only with the queue empty and %s deleted)",
                self._wanted_shards,
                count,
                count,
                key,
            )
        return max(1, count)

    async def _masters(self) -> int:
        """How many masters the cluster has (1 for a single server)."""
        if isinstance(self._redis, RedisCluster):
            await self._redis.initialize()  # learns the slots' nodes (once)
            return max(1, len(self._redis.get_primaries()))
        return 1

    # producing ---------------------------------------------------------------------------
    def register(self, platform: str, handler: QueueHandler) -> None:
        """Work ``platform``'s entries with ``handler`` (``run`` reads only those platforms)."""
        self._handlers[platform] = handler

    async def put(self, platform: str, event_id: str, thread_id: ThreadId, body: bytes) -> bool:
        """Queue an event (sealed); ``False`` when this delivery was queued before.

        Puts made while an earlier batch is on its way to Redis go together in the next one
        (group commit: one Lua call for up to ``_PUT_BATCH`` events), so a burst of acks
        costs a round trip per batch, not per event.

        Raises:
            StoreUnavailable: Redis cannot be reached: the event is not queued.
            StoreError: Redis refused the write.
        """
        entry = f"{platform}:{event_id}"
        done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._puts.append(_Put(entry, thread_id, self._sealer.seal(entry, body), done))
        if self._putter is None or self._putter.done():
            self._putter = asyncio.create_task(self._put_batches(), name="veilbot-queue-put")
        queued = await done
        if queued:
            self._metrics.queue_event("put")
        else:
            self._metrics.duplicate_dropped(platform)
        return queued

    def acking(self) -> AbstractContextManager[None]:
        """Hold while acking a delivery: entries wait (up to ``acks_first_seconds``) to begin."""
        return self._acks.acking()

    async def _put_batches(self) -> None:
        """Send the waiting puts in batches until none waits; each put learns its outcome."""
        while self._puts:
            batch, self._puts = self._puts[:_PUT_BATCH], self._puts[_PUT_BATCH:]
            try:
                got = await self._put_batch(batch)
            except StoreError as exc:
                for put in batch:
                    _fail(put.done, exc)
                continue
            except BaseException:  # cancelled (the loop is closing): nobody waits forever
                for put in batch + self._puts:
                    _fail(put.done, StoreUnavailable("queue put: cancelled"))
                self._puts = []
                raise
            for put, queued in zip(batch, got, strict=True):
                if not put.done.done():
                    put.done.set_result(bool(int(queued)))

    async def _put_batch(self, batch: list[_Put]) -> list[Any]:
        """One Lua call per shard the batch's threads go to, at once; outcomes in order."""
        tags = await self.shards()
        by_shard: dict[str, list[int]] = {}
        for i, put in enumerate(batch):
            by_shard.setdefault(tags[shard_of(put.thread, len(tags))], []).append(i)
        got: list[Any] = [0] * len(batch)
        calls = [self._put_shard(tag, [batch[i] for i in idx]) for tag, idx in by_shard.items()]
        async with store_errors(f"queue put ({len(batch)} events)"):
            results = await asyncio.gather(*calls)
        for idx, outcome in zip(by_shard.values(), results, strict=True):
            for i, queued in zip(idx, outcome, strict=True):
                got[i] = queued
        return got

    async def _put_shard(self, tag: str, puts: list[_Put]) -> list[Any]:
        keys = [self._keys.queue("payloads", tag), self._keys.queue("scheduled", tag)]
        args: list[str | bytes] = [str(self._ttl)]
        for put in puts:
            platform = put.entry.partition(":")[0]
            keys += [
                self._keys.queue(f"seen:{put.entry}", tag),
                self._keys.queue(f"thread:{put.thread}", tag),
                self.stream(platform, tag),
            ]
            args += [put.entry, put.sealed, put.thread]
        return list(await self._put(keys=keys, args=args))

    # the worker's life -------------------------------------------------------------------
    async def run(self) -> None:
        """Work the registered platforms' entries until ``drain`` or ``stop``.

        Returns once nothing is in flight. Cancelled, it cancels what is in flight at once:
        those entries stay queued and are claimed again after the claim idle. With no workers
        (an ingress replica: it only acks and puts) it returns at once.
        """
        self._stopping.clear()
        self._finished.clear()
        self._cancelled = False
        if not self._handlers or self._workers == 0:
            return
        self._slots = asyncio.Semaphore(self._workers)
        tags = await self._layout_when_ready()
        platforms = sorted(self._handlers)
        streams = {tag: [self.stream(p, tag) for p in platforms] for tag in tags}
        keeper = asyncio.create_task(self._keep_fresh(), name="veilbot-queue-touch")
        claimer = asyncio.create_task(self._claim_loop(streams), name="veilbot-queue-claim")
        readers = [
            asyncio.create_task(self._read_loop(names, tag), name="veilbot-queue-read")
            for tag, names in streams.items()
        ]
        try:
            # Shielded: a cancellation reaches the readers through ``_stopping`` as well as
            # their own cancel, since on Python 3.11 a redis-py command can swallow a cancel
            # (``asyncio.wait_for`` returns a result that came at the same moment); the
            # reader then ends after its current read instead of reading on.
            await asyncio.shield(asyncio.gather(*readers))
        except asyncio.CancelledError:
            self._stopping.set()
            self._cancelled = True
            for reader in readers:
                reader.cancel()
            for held in self._held.values():
                if held.task is not None:
                    held.task.cancel()
            raise
        finally:
            self._stopping.set()
            await asyncio.gather(*readers, return_exceptions=True)
            await asyncio.shield(self._settled(_CANCEL_GRACE_SECONDS))
            self._finished.set()  # the event, not a cancellation, ends the helpers
            await asyncio.gather(keeper, claimer, return_exceptions=True)

    async def _layout_when_ready(self) -> tuple[str, ...]:
        """The shards' tags, asked again every second while Redis cannot answer (or stopped)."""
        while True:
            try:
                return await self.shards()
            except StoreError as exc:
                if self._stopping.is_set():
                    return ()
                logger.warning("queue: shard count not read: %s", exc)
                await self._pause(1.0)

    def stop(self) -> None:
        """Read no more entries (``run`` returns once those in flight are done)."""
        self._stopping.set()

    async def drain(self, timeout: float) -> None:  # noqa: ASYNC109  (the shared contract)
        """Read no more; wait up to ``timeout`` s for the entries in flight, cancel the rest.

        A thread's later entries stay queued: another replica claims them.
        """
        self.stop()
        late = await self._settled(timeout)
        if late:
            logger.warning("queue: %d thread(s) not done in %gs were cancelled", late, timeout)

    async def idle(self, timeout: float) -> bool:  # noqa: ASYNC109  (tests, benchmarks)
        """Wait up to ``timeout`` s until the queue holds no entry at all; whether it did."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline:
            depth = await self._depth()
            if depth == 0 and not self._held:
                return True
            await asyncio.sleep(0.01)
        return False

    async def _depth(self) -> int:
        """Entries queued in every shard."""
        tags = await self.shards()
        async with store_errors("queue depth"):
            depths = [await self._redis.hlen(self._keys.queue("payloads", t)) for t in tags]
        return sum(int(d) for d in depths)

    @property
    def acks_in_flight(self) -> int:
        """Deliveries this process is acking now (``acking``)."""
        return self._acks.under_way

    @property
    def in_flight(self) -> int:
        """Threads this process works now."""
        return len(self._held)

    async def _settled(self, within: float | None) -> int:
        """Wait for the thread tasks (cancel those left after ``within`` s); how many were."""
        tasks = [h.task for h in self._held.values() if h.task is not None]
        if not tasks:
            return 0
        _, late = await asyncio.wait(tasks, timeout=within)
        for task in late:
            task.cancel()
        if late:
            await asyncio.wait(late, timeout=5.0)
        return len(late)

    async def _ensure_group(self, stream: str) -> None:
        try:
            async with store_errors("queue group"):
                await self._redis.xgroup_create(stream, GROUP, id="0", mkstream=True)
        except StoreError as exc:
            if "BUSYGROUP" not in str(exc.__cause__):
                raise
        self._grouped.add(stream)

    async def _pause(self, seconds: float) -> None:
        """Sleep, or less when stopping."""
        try:
            async with asyncio.timeout(seconds):
                await self._stopping.wait()
        except TimeoutError:
            pass

    # reading and claiming ----------------------------------------------------------------
    async def _read_loop(self, streams: list[str], shard: str) -> None:
        """Read one shard's streams for as many tokens as its share of the free workers."""
        while not self._stopping.is_set():
            if not self._grouped.issuperset(streams):
                try:
                    for name in streams:
                        await self._ensure_group(name)
                except StoreError as exc:
                    logger.warning("queue: consumer group not ready: %s", exc)
                    await self._pause(1.0)
                    continue
            slots = self._slots
            if not await self._slot(slots):
                continue
            # The shards' readers take free workers in turn (first come, first served: no
            # shard starves when there are fewer workers than shards), each its share.
            want = 1
            share = (self._workers - len(self._held)) // len(self._tags)
            while want < share and not slots.locked():
                await slots.acquire()  # free: returns at once
                want += 1
            try:
                read = await self._read(streams, want)
            except BaseException:
                for _ in range(want):
                    slots.release()
                raise
            started = 0
            found: Any
            for found in read or []:
                for token, fields in found[1]:
                    if started < want and self._start(_text(found[0]), token, fields, shard, slots):
                        started += 1
            for _ in range(want - started):
                slots.release()

    async def _read(self, streams: list[str], count: int) -> Any:
        """Up to ``count`` new tokens of the streams, waiting up to the block time.

        ``None`` when the read failed (after a pause) or the group is gone.
        """
        try:
            async with store_errors("queue read"):
                return await self._redis.xreadgroup(
                    GROUP,
                    self.consumer,
                    dict.fromkeys(streams, ">"),
                    count=count,
                    block=self._block_ms,
                )
        except StoreError as exc:
            if "NOGROUP" in str(exc.__cause__):  # the stream is gone (Redis lost its data)
                self._grouped.clear()
                return None
            logger.warning("queue: read failed: %s", exc)
            await self._pause(1.0)
            return None

    async def _slot(self, slots: asyncio.Semaphore) -> bool:
        """Wait for a free worker (or stopping); whether one was taken."""
        taking = asyncio.ensure_future(slots.acquire())
        stopping = asyncio.ensure_future(self._stopping.wait())
        try:
            await asyncio.wait({taking, stopping}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopping.cancel()
            if not taking.done():
                taking.cancel()
        if taking.done() and not taking.cancelled():
            if not self._stopping.is_set():
                return True
            slots.release()
        return False

    def _start(
        self,
        stream: str,
        token: Any,
        fields: dict[Any, Any] | None,
        shard: str,
        slots: asyncio.Semaphore | None = None,
    ) -> bool:
        """Work a thread whose token was read (with a worker ``slots`` gave) or claimed."""
        token_id = _text(token)
        raw = (fields or {}).get(b"t") or (fields or {}).get("t")
        if (stream, token_id) in self._held or raw is None or self._stopping.is_set():
            return False  # stopping: a read that came back late leaves its token to be claimed
        thread = ThreadId(_text(raw))
        held = self._held[stream, token_id] = _Held(stream, token_id, thread, shard, slots)
        held.task = asyncio.create_task(self._work(held), name="veilbot-queue-thread")
        return True

    async def _claim_loop(self, streams: dict[str, list[str]]) -> None:
        """Take tokens a dead replica left idle, shard by shard; keep the depth gauge current."""
        interval = max(0.1, min(self._claim_idle / 3, 5.0))
        while not self._stopping.is_set():
            await self._pause(interval)
            if self._stopping.is_set():
                return
            try:
                self._metrics.queue_depth(await self._depth())
                for shard, names in streams.items():
                    for name in names:
                        await self._claim_once(name, shard)
            except StoreError as exc:
                logger.warning("queue: claim failed: %s", exc)

    async def _claim_once(self, stream: str, shard: str) -> None:
        async with store_errors("queue claim"):
            free = self._workers - len(self._held)  # a blocked read's share is no thread
            if free <= 0:
                return
            # From where the last scan stopped: one call looks at no more than 10 x count
            # pending tokens, and the idle ones may sit behind many live ones.
            claimed = await self._redis.xautoclaim(
                stream,
                GROUP,
                self.consumer,
                min_idle_time=int(self._claim_idle * 1000),
                start_id=self._cursors.get(stream, "0-0"),
                count=free,
            )
        self._cursors[stream] = _text(claimed[0])
        taken = [t for t in claimed[1] if t and t[1] is not None]
        if taken:
            logger.info("queue: claimed %d idle thread(s) from stopped workers", len(taken))
            self._metrics.queue_event("claimed", len(taken))
        for token, fields in taken:
            self._start(stream, token, fields, shard)

    async def _keep_fresh(self) -> None:
        """Touch the tokens in flight every third of the claim idle, until ``run`` ends."""
        interval = self._claim_idle / 3
        while not self._finished.is_set():
            try:
                async with asyncio.timeout(interval):
                    await self._finished.wait()
                return
            except TimeoutError:
                pass
            for stream in {h.stream for h in self._held.values()}:
                await self._touch_held(stream)

    async def _touch_held(self, stream: str) -> None:
        held = [token for (name, token) in self._held if name == stream]
        try:
            async with store_errors("queue touch"):
                lost = await self._touch(keys=[stream], args=[GROUP, self.consumer, *held])
        except StoreError as exc:
            logger.warning("queue: touch failed: %s", exc)
            return
        for token in lost or []:
            mine = self._held.get((stream, _text(token)))
            if mine is not None:
                mine.lost = True
                logger.error("queue: a thread's token was taken while in flight (%s)", mine.thread)

    # working a thread --------------------------------------------------------------------
    async def _work(self, held: _Held) -> None:
        """Work one thread's entries in order, while this worker owns its token."""
        try:
            worked = 0
            while not self._stopping.is_set() and not held.lost:
                if not await self._step(held, fair=worked + 1 >= _FAIR_ENTRIES):
                    return
                worked += 1
        except StoreError as exc:  # the token stays pending: claimed again after the idle
            logger.warning("queue: thread %s paused: %s", held.thread, exc)
        except Exception as exc:  # noqa: BLE001  (one bad entry must not stop the worker)
            log_failure(logger, "queue: thread %s failed", exc, held.thread)
        finally:
            del self._held[held.stream, held.token]
            if held.slots is not None:
                held.slots.release()

    async def _step(self, held: _Held, *, fair: bool) -> bool:
        """Work the thread's head entry; whether to go on with the next one."""
        await self._acks.wait(self._stopping)
        if self._stopping.is_set():  # stopped while waiting: the entry was not begun here
            return False
        tid, shard = held.thread, held.shard
        keys = [held.stream] + [
            self._keys.queue(kind, shard)
            for kind in (f"thread:{tid}", "payloads", "attempts", "scheduled")
        ]
        async with store_errors(f"queue begin {tid}"):
            got = await self._begin(keys=keys, args=[GROUP, held.token, self.consumer, tid])
        if int(got[0]) <= 0:
            return False
        entry, attempt = _text(got[1]), int(got[2])
        if self._cancelled:  # a cancellation redis-py lost (gh-86296): the entry is not begun
            return False
        if len(got) > 3 and got[3] is not None:
            await self._handle(held, entry, attempt, got[3])
        else:
            logger.warning("queue: entry without payload dropped thread=%s", tid)
        async with store_errors(f"queue done {tid}"):
            state = await self._done(
                keys=keys,
                args=[GROUP, held.token, self.consumer, tid, entry, "1" if fair else "0"],
            )
        return int(state) == 1

    async def _handle(self, held: _Held, entry: str, attempt: int, sealed: bytes) -> None:
        platform, _, event_id = entry.partition(":")
        tid = held.thread
        handler = self._handlers.get(platform)
        if handler is None:  # not possible: only registered platforms' streams are read
            logger.error("queue: no handler for %s entries; entry dropped", platform)
            return
        if attempt > 1:
            self._metrics.queue_event("redelivered")
        try:
            body = self._sealer.open(entry, sealed)
        except StoreError as exc:
            logger.error("queue: %s; dropped", exc)
            return
        await handler(
            QueuedEvent(
                platform,
                event_id,
                tid,
                body,
                attempt,
                still_mine=lambda: self._still_mine(held),
                withdrawn=lambda: self._withdrawn(held, entry),
            )
        )

    async def _withdrawn(self, held: _Held, entry: str) -> bool:
        """Whether the entry was dropped while it ran (``bot.state.queue_drop``).

        Its token still ours, its payload gone: one Lua step. Unsure (Redis down): no, as
        ``_still_mine`` answers.
        """
        args = [GROUP, held.token, self.consumer, entry]
        try:
            async with store_errors("queue withdrawn"):
                keys = [held.stream, self._keys.queue("payloads", held.shard)]
                return int(await self._withdrawn_lua(keys=keys, args=args)) == 1
        except StoreError as exc:
            logger.warning("queue: withdrawn check failed: %s", exc)
            return False

    async def _still_mine(self, held: _Held) -> bool:
        """Whether this consumer still holds the thread's token (one ``XPENDING``).

        A worker whose event loop stalled past the claim idle may have lost it: the new
        holder answers the entry, so this one must not post as well. Unsure (Redis down):
        yes, since a duplicate answer is better than none.
        """
        if held.lost:
            return False
        try:
            async with store_errors("queue owner"):
                found = await self._redis.xpending_range(
                    held.stream, GROUP, min=held.token, max=held.token, count=1
                )
        except StoreError as exc:
            logger.warning("queue: owner check failed: %s", exc)
            return True
        mine = bool(found) and _text(found[0]["consumer"]) == self.consumer
        if not mine:
            held.lost = True
            logger.error("queue: a thread's token was taken while in flight (%s)", held.thread)
        return mine
