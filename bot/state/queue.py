"""The turn queue in Redis: acked platform events that any replica answers, each once, in order.

An adapter ``put``s an event before it acks it to the platform; a worker in any process works
it later. Keys (all under one ``{queue}`` hash tag, ``KeySpace.queue``)::

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
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

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
    ) -> None:
        if claim_idle_seconds <= 0 or workers < 0 or dedupe_ttl_seconds < 1:
            raise ValueError("claim idle and dedupe ttl must be positive, workers not negative")
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
        self._freed = asyncio.Event()
        self._grouped: set[str] = set()
        self._cursors: dict[str, str] = {}

    def stream(self, platform: str) -> str:
        """The token stream of one platform's threads."""
        return self._keys.queue(f"tokens:{platform}")

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
        q = self._keys.queue
        keys = [q("payloads"), q("scheduled")]
        args: list[str | bytes] = [str(self._ttl)]
        for put in batch:
            platform = put.entry.partition(":")[0]
            keys += [q(f"seen:{put.entry}"), q(f"thread:{put.thread}"), self.stream(platform)]
            args += [put.entry, put.sealed, put.thread]
        async with store_errors(f"queue put ({len(batch)} events)"):
            got = await self._put(keys=keys, args=args)
        return list(got)

    # the worker's life -------------------------------------------------------------------
    async def run(self) -> None:
        """Work the registered platforms' entries until ``drain`` or ``stop``.

        Returns once nothing is in flight. Cancelled, it cancels what is in flight at once:
        those entries stay queued and are claimed again after the claim idle. With no workers
        (an ingress replica: it only acks and puts) it returns at once.
        """
        self._stopping.clear()
        self._finished.clear()
        streams = [self.stream(p) for p in sorted(self._handlers)]
        if not streams or self._workers == 0:
            return
        keeper = asyncio.create_task(self._keep_fresh(), name="veilbot-queue-touch")
        claimer = asyncio.create_task(self._claim_loop(streams), name="veilbot-queue-claim")
        try:
            await self._read_loop(streams)
        except asyncio.CancelledError:
            self._stopping.set()
            for held in self._held.values():
                if held.task is not None:
                    held.task.cancel()
            raise
        finally:
            self._stopping.set()
            await asyncio.shield(self._settled(_CANCEL_GRACE_SECONDS))
            self._finished.set()  # the event, not a cancellation, ends the helpers
            await asyncio.gather(keeper, claimer, return_exceptions=True)

    def stop(self) -> None:
        """Read no more entries (``run`` returns once those in flight are done)."""
        self._stopping.set()
        self._freed.set()

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
            async with store_errors("queue depth"):
                depth = await self._redis.hlen(self._keys.queue("payloads"))
            if depth == 0 and not self._held:
                return True
            await asyncio.sleep(0.01)
        return False

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
    async def _read_loop(self, streams: list[str]) -> None:
        while not self._stopping.is_set():
            if not self._grouped.issuperset(streams):
                try:
                    for name in streams:
                        await self._ensure_group(name)
                except StoreError as exc:
                    logger.warning("queue: consumer group not ready: %s", exc)
                    await self._pause(1.0)
                    continue
            free = self._workers - len(self._held)
            if free <= 0:
                self._freed.clear()
                try:
                    async with asyncio.timeout(1.0):
                        await self._freed.wait()
                except TimeoutError:
                    pass
                continue
            try:
                async with store_errors("queue read"):
                    read = await self._redis.xreadgroup(
                        GROUP,
                        self.consumer,
                        dict.fromkeys(streams, ">"),
                        count=free,
                        block=self._block_ms,
                    )
            except StoreError as exc:
                if "NOGROUP" in str(exc.__cause__):  # the stream is gone (Redis lost its data)
                    self._grouped.clear()
                    continue
                logger.warning("queue: read failed: %s", exc)
                await self._pause(1.0)
                continue
            found: Any
            for found in read or []:
                for token, fields in found[1]:
                    self._start(_text(found[0]), token, fields)

    def _start(self, stream: str, token: Any, fields: dict[Any, Any] | None) -> None:
        token_id = _text(token)
        raw = (fields or {}).get(b"t") or (fields or {}).get("t")
        if (stream, token_id) in self._held or raw is None:
            return
        held = self._held[stream, token_id] = _Held(stream, token_id, ThreadId(_text(raw)))
        held.task = asyncio.create_task(self._work(held), name="veilbot-queue-thread")

    async def _claim_loop(self, streams: list[str]) -> None:
        """Take tokens a dead replica left idle; keep the depth gauge current."""
        interval = max(0.1, min(self._claim_idle / 3, 5.0))
        while not self._stopping.is_set():
            await self._pause(interval)
            if self._stopping.is_set():
                return
            try:
                for name in streams:
                    await self._claim_once(name)
            except StoreError as exc:
                logger.warning("queue: claim failed: %s", exc)

    async def _claim_once(self, stream: str) -> None:
        async with store_errors("queue claim"):
            depth = await self._redis.hlen(self._keys.queue("payloads"))
            self._metrics.queue_depth(int(depth))
            free = self._workers - len(self._held)
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
            self._start(stream, token, fields)

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
            self._freed.set()

    async def _step(self, held: _Held, *, fair: bool) -> bool:
        """Work the thread's head entry; whether to go on with the next one."""
        await self._acks.wait(self._stopping)
        if self._stopping.is_set():  # stopped while waiting: the entry was not begun here
            return False
        q, tid = self._keys.queue, held.thread
        keys = [held.stream, q(f"thread:{tid}"), q("payloads"), q("attempts"), q("scheduled")]
        async with store_errors(f"queue begin {tid}"):
            got = await self._begin(keys=keys, args=[GROUP, held.token, self.consumer, tid])
        if int(got[0]) <= 0:
            return False
        entry, attempt = _text(got[1]), int(got[2])
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
                keys = [held.stream, self._keys.queue("payloads")]
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
