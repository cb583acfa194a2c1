"""Per-thread locks in Redis, so turns of one thread never overlap, across processes.

A lock is ``SET <thread lock key> <random token> NX PX <ttl>``. While held, a timer
extends it every ``ttl / 3`` (only if the token still matches), so a slow model call does not
lose it; if the holder's process dies, the lock expires after ``ttl``. Release compares the
token before deleting, so a holder never deletes a lock that has passed to someone else.
Waiters of one process queue on a local ``asyncio.Lock`` (in order, and only one of them polls
Redis); across processes, waiting is polling with a capped, jittered backoff: no FIFO order,
only mutual exclusion.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from bot.core.errors import StoreError
from bot.core.keys import KeySpace
from bot.core.metrics import NO_METRICS
from bot.core.ports import Metrics
from bot.core.types import ThreadId
from bot.state.client import RedisClient, store_errors

logger = logging.getLogger(__name__)

_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""

_POLL_FIRST = 0.005
_POLL_MAX = 0.1


@dataclass(slots=True)
class _LocalTurn:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0


class RedisThreadLocks:
    """``ThreadLocks`` on Redis keys ``<prefix>:{<thread_id>}:lock``.

    Args:
        redis: the client (see ``bot.state.client.open_redis``).
        keys: key names.
        ttl_seconds: how long a lock outlives a holder that stopped renewing it (a crash).
        wait_seconds: how long ``hold`` waits for a busy thread before giving up.
        metrics: observes every wait (and each that timed out).
    """

    def __init__(
        self,
        redis: RedisClient,
        keys: KeySpace,
        *,
        ttl_seconds: float,
        wait_seconds: float,
        metrics: Metrics = NO_METRICS,
    ) -> None:
        if ttl_seconds <= 0 or wait_seconds <= 0:
            raise ValueError("ttl_seconds and wait_seconds must be positive")
        self._redis = redis
        self._keys = keys
        self._ttl_ms = max(1, int(ttl_seconds * 1000))
        self._wait = wait_seconds
        self._renew = redis.register_script(_RENEW)
        self._release = redis.register_script(_RELEASE)
        self._local: dict[ThreadId, _LocalTurn] = {}
        self._metrics = metrics

    @asynccontextmanager
    async def hold(self, thread_id: ThreadId) -> AsyncIterator[None]:
        """Hold the thread's lock for the duration of the block.

        Waiters in this process queue in order; across processes it is first come first
        served.

        Raises:
            StoreError: the thread stayed busy for ``wait_seconds`` ("thread busy").
            StoreUnavailable: Redis cannot be reached.
        """
        started = time.monotonic()
        deadline = started + self._wait
        async with self._local_turn(thread_id, deadline):
            key = self._keys.thread(thread_id, "lock")
            token = secrets.token_hex(16)
            await self._acquire(thread_id, key, token, deadline)
            self._metrics.lock_waited(time.monotonic() - started, acquired=True)
            lease = _Lease(self, thread_id, key, token)
            try:
                yield
            finally:
                # Shielded: a turn cancelled (again) here still gives its lock back at once,
                # not at its expiry.
                await asyncio.shield(lease.end())

    def queued(self, thread_id: ThreadId) -> int:
        """How many turns of this process hold or wait for the thread's lock."""
        turn = self._local.get(thread_id)
        return turn.users if turn is not None else 0

    @asynccontextmanager
    async def _local_turn(self, thread_id: ThreadId, deadline: float) -> AsyncIterator[None]:
        """Queue this process's waiters for a thread, so only one of them polls Redis."""
        turn = self._local.setdefault(thread_id, _LocalTurn())
        turn.users += 1
        try:
            try:
                async with asyncio.timeout(max(0.0, deadline - time.monotonic())):
                    await turn.lock.acquire()
            except TimeoutError:
                raise self._busy(thread_id) from None
            try:
                yield
            finally:
                turn.lock.release()
        finally:
            turn.users -= 1
            if turn.users == 0:
                del self._local[thread_id]

    def _busy(self, thread_id: ThreadId) -> StoreError:
        self._metrics.lock_waited(self._wait, acquired=False)
        return StoreError(f"thread busy: {thread_id} (waited {self._wait:g}s)")

    async def _acquire(self, thread_id: ThreadId, key: str, token: str, deadline: float) -> None:
        pause = _POLL_FIRST
        try:
            while True:
                async with store_errors(f"lock {thread_id}"):
                    if await self._redis.set(key, token, nx=True, px=self._ttl_ms):
                        return
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise self._busy(thread_id)
                await asyncio.sleep(min(remaining, pause * random.uniform(0.5, 1.0)))  # noqa: S311
                pause = min(pause * 2, _POLL_MAX)
        except asyncio.CancelledError:
            # The SET may have run before the cancellation: give back what may be ours.
            await asyncio.shield(self._give_back(thread_id, key, token))
            raise

    async def _renew_lock(self, thread_id: ThreadId, key: str, token: str) -> bool:
        """Extend a held lock by its ttl; ``False`` when it was lost (expired or taken)."""
        try:
            async with store_errors(f"lock renew {thread_id}"):
                renewed = await self._renew(keys=[key], args=[token, self._ttl_ms])
        except StoreError as exc:
            logger.warning("lock of %s not renewed: %s", thread_id, exc)
            return True  # unknown: try again at the next interval
        if not renewed:
            logger.error("lock of %s was lost while held (expired or taken)", thread_id)
        return bool(renewed)

    async def _give_back(self, thread_id: ThreadId, key: str, token: str) -> None:
        try:
            async with store_errors(f"lock release {thread_id}"):
                await self._release(keys=[key], args=[token])
        except StoreError as exc:
            # It expires by itself after the ttl; raising here would hide the block's error.
            logger.warning("lock of %s not released: %s", thread_id, exc)


class _Lease:
    """Renews one held lock every third of its ttl until ``end`` gives it back.

    A timer, not a task per turn: most turns end long before the first renewal is due, and
    then nothing but the timer was ever made. A renewal in flight is never cancelled (a
    cancellation can be lost in the client library, seen under load); ``end`` waits for it to
    finish, so no renewal runs after the release.
    """

    __slots__ = ("_ended", "_key", "_locks", "_renewing", "_thread", "_timer", "_token")

    def __init__(self, locks: RedisThreadLocks, thread_id: ThreadId, key: str, token: str) -> None:
        self._locks, self._thread, self._key, self._token = locks, thread_id, key, token
        self._ended = False
        self._renewing: asyncio.Task[None] | None = None
        self._timer = self._schedule()

    def _schedule(self) -> asyncio.TimerHandle:
        interval = self._locks._ttl_ms / 3000  # noqa: SLF001  (the lease is part of the locks)
        return asyncio.get_running_loop().call_later(interval, self._due)

    def _due(self) -> None:
        if not self._ended:
            self._renewing = asyncio.create_task(self._renew())

    async def _renew(self) -> None:
        held = await self._locks._renew_lock(self._thread, self._key, self._token)  # noqa: SLF001
        if held and not self._ended:
            self._timer = self._schedule()

    async def end(self) -> None:
        """Stop renewing, wait for a renewal in flight, and give the lock back."""
        self._ended = True
        self._timer.cancel()
        if self._renewing is not None:
            await asyncio.wait([self._renewing])
            if not self._renewing.cancelled() and self._renewing.exception() is not None:
                logger.error("lock of %s: renewal failed", self._thread)
        await self._locks._give_back(self._thread, self._key, self._token)  # noqa: SLF001
