"""The turn queue in Redis: acked platform events that any replica answers, each once, in order.

An adapter ``put``s an event before it acks it to the platform; a worker in any process works
it later. Keys (all under one ``{queue}`` hash tag, ``KeySpace.queue``)::

    seen:<platform>:<event>  SET NX EX   a delivery queued once (platform retries dropped)
    payloads                 hash        entry -> the event, sealed (``Sealer``: AES-GCM)
    attempts                 hash        entry -> how many workers began it
    thread:<thread id>       list        the thread's entries, oldest first
    scheduled                hash        thread id -> 1 while a token names the thread
    tokens                   stream      one token per scheduled thread; consumer group
                                         ``workers``

Ordering without waiting: ``put`` is one Lua step that appends the entry to its thread's list
and adds a token to the stream only if the thread has none. The worker that reads a token
(``XREADGROUP``) works that thread's list head by head; only the token's holder works a thread,
so a thread's events are answered in order and no worker waits for another. When the list is
empty the token is acked and deleted in the same step that pops the last entry (a ``put``
racing it adds a new token); after ``_FAIR_ENTRIES`` entries a busy thread's token goes to the
back of the stream so other threads get their turn.

A replica that dies holds its tokens in the group's pending list; live workers take them with
``XAUTOCLAIM`` once idle for ``claim_idle`` seconds and go on at the thread's list head. A live
worker touches the tokens it holds (``XCLAIM ... JUSTID`` in Lua, only while it still owns
them) every third of ``claim_idle``, so a long turn is never taken from it. An entry begun
before is handed over with ``attempt > 1``: the adapter checks whether the earlier attempt
answered already.

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
from dataclasses import dataclass, field
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import ResponseError

from bot.core.errors import StoreError
from bot.core.keys import KeySpace
from bot.core.logsafe import log_failure
from bot.core.metrics import NO_METRICS
from bot.core.ports import Metrics, QueueHandler, Sealer
from bot.core.types import QueuedEvent, ThreadId
from bot.state.client import store_errors

logger = logging.getLogger(__name__)

GROUP = "workers"
_FAIR_ENTRIES = 8
"""Entries one token holder works before its thread goes to the back of the stream."""
_CANCEL_GRACE_SECONDS = 10.0
"""When ``run`` is cancelled without a drain first: how long entries in flight get."""

_PUT = """
if not redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[3]) then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('RPUSH', KEYS[3], ARGV[1])
if redis.call('HSETNX', KEYS[4], ARGV[4], '1') == 1 then
  redis.call('XADD', KEYS[5], '*', 't', ARGV[4])
end
return 1
"""

# Whether ARGV[2] (a token) is pending for consumer ARGV[3] of group ARGV[1].
_OWNS = """
local function owns(stream, group, token, me)
  local p = redis.call('XPENDING', stream, group, token, token, 1)
  return #p == 1 and p[1][2] == me
end
"""

# The next entry of a thread: {-1} the token is not ours; {0} the list is empty (the token
# is released); {1, entry, attempt, sealed} (sealed missing when the payload is gone).
_BEGIN = (
    _OWNS
    + """
if not owns(KEYS[1], ARGV[1], ARGV[2], ARGV[3]) then return {-1} end
local head = redis.call('LINDEX', KEYS[2], 0)
if not head then
  redis.call('HDEL', KEYS[5], ARGV[4])
  redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
  redis.call('XDEL', KEYS[1], ARGV[2])
  return {0}
end
local attempt = redis.call('HINCRBY', KEYS[4], head, 1)
return {1, head, attempt, redis.call('HGET', KEYS[3], head)}
"""
)

# An entry is done: pop it (if still the head), forget its payload. Then, if we own the
# token: 0 released (list empty), 1 go on, 2 requeued for fairness (ARGV[6] == '1'); -1 if
# the token is not ours any more.
_DONE = (
    _OWNS
    + """
if redis.call('LINDEX', KEYS[2], 0) == ARGV[5] then redis.call('LPOP', KEYS[2]) end
redis.call('HDEL', KEYS[3], ARGV[5])
redis.call('HDEL', KEYS[4], ARGV[5])
if not owns(KEYS[1], ARGV[1], ARGV[2], ARGV[3]) then return -1 end
if redis.call('LLEN', KEYS[2]) == 0 then
  redis.call('HDEL', KEYS[5], ARGV[4])
  redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
  redis.call('XDEL', KEYS[1], ARGV[2])
  return 0
end
if ARGV[6] == '1' then
  redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
  redis.call('XDEL', KEYS[1], ARGV[2])
  redis.call('XADD', KEYS[1], '*', 't', ARGV[4])
  return 2
end
return 1
"""
)

# Keep our tokens fresh: XCLAIM (idle reset) each one we still own; returns those we lost.
_TOUCH = (
    _OWNS
    + """
local lost = {}
for i = 3, #ARGV do
  if owns(KEYS[1], ARGV[1], ARGV[i], ARGV[2]) then
    redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[i], 'JUSTID')
  else
    table.insert(lost, ARGV[i])
  end
end
return lost
"""
)


def default_replica_id() -> str:
    """``hostname-pid-random``: unique per process, readable in ``XINFO CONSUMERS``."""
    return f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(3)}"


@dataclass(slots=True)
class _Held:
    """A thread token this process works."""

    thread: ThreadId
    lost: bool = False
    task: asyncio.Task[None] | None = field(default=None, repr=False)


class RedisTurnQueue:
    """``TurnQueue`` on a Redis stream with a consumer group, and its worker.

    ``run`` works the queue until ``drain`` (or ``stop``); the composition root runs it in
    ``veilbot run``. Adapters ``put`` and ``register``.

    Args:
        redis: the client (see ``bot.state.client.open_redis``).
        keys: key names.
        sealer: encrypts payloads for Redis (``guardrails.sealing.AesGcmSealer``).
        consumer: this process's consumer name (``VEILBOT_REPLICA_ID``).
        claim_idle_seconds: how long a token may sit untouched before another worker takes it.
        workers: threads worked at once.
        dedupe_ttl_seconds: how long a queued delivery is remembered (platform retries).
        block_seconds: how long one read waits for new tokens (below the client's timeout).
        metrics: counts puts, duplicates, claims, redeliveries; the depth.
    """

    def __init__(
        self,
        redis: aioredis.Redis,
        keys: KeySpace,
        *,
        sealer: Sealer,
        consumer: str | None = None,
        claim_idle_seconds: float = 30.0,
        workers: int = 32,
        dedupe_ttl_seconds: int = 3600,
        block_seconds: float = 0.5,
        metrics: Metrics = NO_METRICS,
    ) -> None:
        if claim_idle_seconds <= 0 or workers < 1 or dedupe_ttl_seconds < 1:
            raise ValueError("claim_idle_seconds, workers and dedupe_ttl_seconds must be positive")
        self._redis, self._keys, self._sealer = redis, keys, sealer
        self.consumer = consumer or default_replica_id()
        self._claim_idle = claim_idle_seconds
        self._workers = workers
        self._ttl = dedupe_ttl_seconds
        self._block_ms = max(1, int(block_seconds * 1000))
        self._metrics = metrics
        self._put = redis.register_script(_PUT)
        self._begin = redis.register_script(_BEGIN)
        self._done = redis.register_script(_DONE)
        self._touch = redis.register_script(_TOUCH)
        self._handlers: dict[str, QueueHandler] = {}
        self._held: dict[str, _Held] = {}
        self._stopping = asyncio.Event()
        self._finished = asyncio.Event()
        self._freed = asyncio.Event()
        self._grouped = False
        self.tokens = keys.queue("tokens")

    # producing ---------------------------------------------------------------------------
    def register(self, platform: str, handler: QueueHandler) -> None:
        """Work ``platform``'s entries with ``handler``."""
        self._handlers[platform] = handler

    async def put(self, platform: str, event_id: str, thread_id: ThreadId, body: bytes) -> bool:
        """Queue an event (sealed); ``False`` when this delivery was queued before.

        Raises:
            StoreUnavailable: Redis cannot be reached: the event is not queued.
            StoreError: Redis refused the write.
        """
        entry = f"{platform}:{event_id}"
        q = self._keys.queue
        async with store_errors(f"queue put {thread_id}"):
            queued = await self._put(
                keys=[
                    q(f"seen:{entry}"),
                    q("payloads"),
                    q(f"thread:{thread_id}"),
                    q("scheduled"),
                    self.tokens,
                ],
                args=[entry, self._sealer.seal(entry, body), self._ttl, thread_id],
            )
        self._metrics.queue_event("put" if queued else "duplicate")
        return bool(queued)

    # working -----------------------------------------------------------------------------
    async def run(self) -> None:
        """Work the queue until ``drain`` or ``stop``; returns once nothing is in flight."""
        self._stopping.clear()
        self._finished.clear()
        await self._ensure_group()
        keeper = asyncio.create_task(self._keep_fresh(), name="veilbot-queue-touch")
        claimer = asyncio.create_task(self._claim_loop(), name="veilbot-queue-claim")
        try:
            await self._read_loop()
        except asyncio.CancelledError:
            # Cancelled without a drain: what is in flight stays queued, so no grace period;
            # another worker (or this one, restarted) takes it after the claim idle.
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
        deadline = asyncio.get_running_loop().time() + timeout
        while asyncio.get_running_loop().time() < deadline:
            async with store_errors("queue depth"):
                depth = await self._redis.hlen(self._keys.queue("payloads"))
            if depth == 0 and not self._held:
                return True
            await asyncio.sleep(0.01)
        return False

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

    async def _ensure_group(self) -> None:
        if self._grouped:
            return
        try:
            async with store_errors("queue group"):
                await self._redis.xgroup_create(self.tokens, GROUP, id="0", mkstream=True)
        except StoreError as exc:
            if not isinstance(exc.__cause__, ResponseError) or "BUSYGROUP" not in str(
                exc.__cause__
            ):
                raise
        self._grouped = True

    async def _pause(self, seconds: float) -> None:
        """Sleep, or less when stopping."""
        try:
            async with asyncio.timeout(seconds):
                await self._stopping.wait()
        except TimeoutError:
            pass

    async def _read_loop(self) -> None:
        while not self._stopping.is_set():
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
                        GROUP, self.consumer, {self.tokens: ">"}, count=free, block=self._block_ms
                    )
            except StoreError as exc:
                if isinstance(exc.__cause__, ResponseError) and "NOGROUP" in str(exc.__cause__):
                    self._grouped = False  # the stream was deleted (a reset): make it again
                    await self._ensure_group()
                    continue
                logger.warning("queue: read failed: %s", exc)
                await self._pause(1.0)
                continue
            stream: Any
            for stream in read or []:
                for token, fields in stream[1]:
                    self._start(token, fields)

    def _start(self, token: Any, fields: dict[Any, Any] | None) -> None:
        token_id = token.decode() if isinstance(token, bytes) else str(token)
        raw = (fields or {}).get(b"t") or (fields or {}).get("t")
        if token_id in self._held or raw is None:
            return
        tid = ThreadId(raw.decode() if isinstance(raw, bytes) else str(raw))
        held = self._held[token_id] = _Held(tid)
        held.task = asyncio.create_task(self._work(token_id, held), name="veilbot-queue-thread")

    async def _claim_loop(self) -> None:
        """Take tokens a dead replica left idle; keep the depth gauge current."""
        interval = max(0.1, min(self._claim_idle / 3, 5.0))
        while not self._stopping.is_set():
            await self._pause(interval)
            if self._stopping.is_set():
                return
            try:
                await self._claim_once()
            except StoreError as exc:
                logger.warning("queue: claim failed: %s", exc)

    async def _claim_once(self) -> None:
        async with store_errors("queue claim"):
            depth = await self._redis.hlen(self._keys.queue("payloads"))
            self._metrics.queue_depth(int(depth))
            free = self._workers - len(self._held)
            if free <= 0:
                return
            claimed = await self._redis.xautoclaim(
                self.tokens,
                GROUP,
                self.consumer,
                min_idle_time=int(self._claim_idle * 1000),
                start_id="0-0",
                count=free,
            )
        taken = [t for t in claimed[1] if t and t[1] is not None]
        if taken:
            logger.info("queue: claimed %d idle thread(s) from stopped workers", len(taken))
            self._metrics.queue_event("claimed", len(taken))
        for token, fields in taken:
            self._start(token, fields)

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
            if self._held:
                await self._touch_held()

    async def _touch_held(self) -> None:
        held = list(self._held)
        try:
            async with store_errors("queue touch"):
                lost = await self._touch(keys=[self.tokens], args=[GROUP, self.consumer, *held])
        except StoreError as exc:
            logger.warning("queue: touch failed: %s", exc)
            return
        for token in lost or []:
            name = token.decode() if isinstance(token, bytes) else str(token)
            if name in self._held:
                self._held[name].lost = True
                logger.error("queue: a thread's token was taken while in flight (%s)", name)

    async def _work(self, token: str, held: _Held) -> None:
        """Work one thread's entries in order, while this worker owns its token."""
        try:
            worked = 0
            while not self._stopping.is_set() and not held.lost:
                if not await self._step(token, held, worked + 1 >= _FAIR_ENTRIES):
                    return
                worked += 1
        except StoreError as exc:  # the token stays pending: claimed again after the idle
            logger.warning("queue: thread %s paused: %s", held.thread, exc)
        except Exception as exc:  # noqa: BLE001  (one bad entry must not stop the worker)
            log_failure(logger, "queue: thread %s failed", exc, held.thread)
        finally:
            del self._held[token]
            self._freed.set()

    async def _step(self, token: str, held: _Held, fair: bool) -> bool:
        """Work the thread's head entry; whether to go on with the next one."""
        q, tid = self._keys.queue, held.thread
        keys = [self.tokens, q(f"thread:{tid}"), q("payloads"), q("attempts"), q("scheduled")]
        async with store_errors(f"queue begin {tid}"):
            got = await self._begin(keys=keys, args=[GROUP, token, self.consumer, tid])
        if int(got[0]) <= 0:
            return False
        entry = got[1].decode() if isinstance(got[1], bytes) else str(got[1])
        attempt = int(got[2])
        if len(got) > 3 and got[3] is not None:
            await self._handle(entry, tid, attempt, got[3])
        else:
            logger.warning("queue: entry without payload dropped thread=%s", tid)
        async with store_errors(f"queue done {tid}"):
            state = await self._done(
                keys=keys, args=[GROUP, token, self.consumer, tid, entry, "1" if fair else "0"]
            )
        return int(state) == 1

    async def _handle(self, entry: str, tid: ThreadId, attempt: int, sealed: bytes) -> None:
        platform, _, event_id = entry.partition(":")
        handler = self._handlers.get(platform)
        if handler is None:
            logger.error("queue: no handler for %s entries; entry dropped", platform)
            return
        if attempt > 1:
            self._metrics.queue_event("redelivered")
        try:
            body = self._sealer.open(entry, sealed)
        except StoreError as exc:
            logger.error("queue: %s; dropped", exc)
            return
        await handler(QueuedEvent(platform, event_id, tid, body, attempt))
