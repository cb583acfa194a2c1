"""Redis connections that fail fast, and the mapping of store failures onto the error tree.

redis-py 8's default ``Retry`` makes up to 10 attempts with exponential backoff capped at 1 s,
so a turn against a dead Redis would hang for many seconds before failing. ``open_redis``
replaces it with a single immediate retry (enough to survive one dropped pooled connection)
and bounds connect and read times by ``timeout``. Timeouts are not retried: the command may
have run already.

Connections come from a bounded *blocking* pool: a burst of turns waits (up to ``timeout``) for a
free connection instead of failing at once with ``MaxConnectionsError``, as redis-py's default
pool does when more commands are in flight than it has connections. The service also caps the
turns in flight below the pool size (``Conversation``, ``VEILBOT_MAX_TURNS_IN_FLIGHT``), so the
wait is short and rare.

A URL whose scheme ends in ``+cluster`` (``bot.core.redis_url``) opens a Redis Cluster client
instead (``bot.state.cluster``), with the same timeouts, the same single retry and the same
wait for a free connection. Every key a Lua script or multi-key command touches shares one
hash tag (``bot.core.keys``), so each runs on one node.

Commands sent in the same turn of the event loop share one round trip (``Pipelined``): under a
burst dozens of turns each send a command at once, and redis-py spends about as much CPU on
a command's round trip of its own (a connection from the pool, a socket write, a wake-up for
the reply) as on everything else the command does in this process. Blocking reads keep a
connection of their own.

``store_errors`` converts third-party failures at the boundary::

    redis ConnectionError / TimeoutError / BusyLoadingError, OSError  -> StoreUnavailable
    a cluster down, a slot without a node, no node reachable           -> StoreUnavailable
    any other redis.RedisError or RedisClusterException                -> StoreError
"""

from __future__ import annotations

import asyncio
import logging
from contextlib import AbstractAsyncContextManager, AsyncContextDecorator
from types import TracebackType
from typing import Any, TypeAlias

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.driver_info import DriverInfo
from redis.exceptions import (
    BusyLoadingError,
    ClusterDownError,
    DataError,
    RedisClusterException,
    RedisError,
    SlotNotCoveredError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from bot.core.errors import StoreError, StoreUnavailable
from bot.core.redis_url import parse_redis_url
from bot.state.cluster import open_cluster

logger = logging.getLogger(__name__)

_UNAVAILABLE = (
    RedisConnectionError,
    RedisTimeoutError,
    BusyLoadingError,
    ClusterDownError,
    SlotNotCoveredError,
    OSError,
)

RedisClient: TypeAlias = aioredis.Redis | RedisCluster
"""What ``open_redis`` returns: one server's client or a Redis Cluster's."""


DEFAULT_MAX_CONNECTIONS = 100

_DRIVER = DriverInfo()
"""What each connection tells the server in ``CLIENT SETINFO``, read from the installed
package once: without it redis-py looks its own version up in the package metadata for every
new connection (a scan of ``sys.path``, milliseconds on the event loop), and a burst opens
dozens of them at once."""


def open_redis(
    url: str, *, timeout: float, max_connections: int = DEFAULT_MAX_CONNECTIONS
) -> RedisClient:
    """A client for ``redis://``, ``rediss://``, ``unix://`` or ``+cluster`` URLs that fails fast.

    No connection is made until the first command. Closing the client closes its pool.

    Args:
        url: the server URL (credentials allowed; never logged), or a Redis Cluster's
            (``redis+cluster://host:port[,host:port…]``, see ``bot.core.redis_url``).
        timeout: seconds allowed for connecting, for each reply, and for waiting for a free
            connection of the pool.
        max_connections: the most connections open at once (to each node of a cluster).

    Returns:
        A ``redis.asyncio.Redis`` (or ``RedisCluster``) with one immediate retry on
        connection errors.

    Raises:
        ConfigError: the URL is not one of the accepted forms.
    """
    target = parse_redis_url(url)
    if target.cluster:
        return open_cluster(
            target, timeout=timeout, max_connections=max_connections, driver_info=_DRIVER
        )
    pool = aioredis.BlockingConnectionPool.from_url(
        url,
        max_connections=max_connections,
        timeout=timeout,
        socket_timeout=timeout,
        socket_connect_timeout=timeout,
        # Retry only connection errors (a stale pooled connection after a server restart);
        # a timed-out command may have run already, and appends are not idempotent.
        retry=Retry(NoBackoff(), retries=1, supported_errors=(RedisConnectionError,)),
        driver_info=_DRIVER,
    )
    return Pipelined.from_pool(pool)


_BLOCKING = frozenset(
    (
        "XREAD XREADGROUP BLPOP BRPOP BLMOVE BLMPOP BRPOPLPUSH "
        "BZPOPMIN BZPOPMAX BZMPOP WAIT WAITAOF"
    ).split()
)
"""Commands that may wait on the server: sent alone, never holding a batch back."""

_Queued: TypeAlias = tuple[tuple[Any, ...], dict[str, Any], "asyncio.Future[Any]"]

_ALONE = object()
"""The answer to a command no other joined: its caller sends it itself."""


class Pipelined(aioredis.Redis):
    """A client whose commands sent in one turn of the event loop go as one pipeline.

    Each caller still awaits its own command and gets its own reply or its own error; the
    batch is only how they travel. A command waits for nothing but the end of the loop's
    current turn; one that no other joined is sent by its caller, as without batching. A
    connection error fails every command of its batch, as it fails every command in flight
    on that connection; the pool's retry sends the batch again, as it sent one command
    again. An argument redis-py cannot encode fails only its own command: the batch goes
    again one command at a time. A command whose caller was cancelled before the batch left
    is not sent.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._queued: list[_Queued] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._sending: set[asyncio.Task[None]] = set()

    async def execute_command(self, *args: Any, **options: Any) -> Any:
        """Queue the command for this turn's batch and wait for its reply."""
        loop = asyncio.get_running_loop()
        if args[0] in _BLOCKING or (self._queued is not None and loop is not self._loop):
            return await super().execute_command(*args, **options)  # type: ignore[no-untyped-call]
        reply: asyncio.Future[Any] = loop.create_future()
        if self._queued is None:
            self._queued, self._loop = [], loop
            loop.call_soon(self._send_queued)
        self._queued.append((args, options, reply))
        if (value := await reply) is _ALONE:  # nothing joined it: sent as it always was
            return await super().execute_command(*args, **options)  # type: ignore[no-untyped-call]
        return value

    def _send_queued(self) -> None:
        batch, self._queued = [q for q in self._queued or () if not q[2].done()], None
        if len(batch) == 1:
            batch[0][2].set_result(_ALONE)
        elif batch:
            task = asyncio.ensure_future(self._send(batch))
            self._sending.add(task)
            task.add_done_callback(self._sending.discard)

    async def _send(self, batch: list[_Queued]) -> None:
        try:
            async with self.pipeline(transaction=False) as pipe:
                for args, options, _ in batch:
                    pipe.execute_command(*args, **options)
                replies = await pipe.execute(raise_on_error=False)
        except DataError:  # raised before anything was sent: one by one, so one fails
            for queued in batch:
                await self._one(queued)
            return
        except asyncio.CancelledError:  # the loop is closing
            for _, _, reply in batch:
                reply.cancel()
            raise
        except Exception as exc:  # noqa: BLE001  (every caller gets the batch's failure)
            replies = [exc] * len(batch)
        for (_, _, reply), value in zip(batch, replies, strict=True):
            _settle(reply, value)

    async def _one(self, queued: _Queued) -> None:
        args, options, reply = queued
        try:
            value = await super().execute_command(*args, **options)  # type: ignore[no-untyped-call]
        except Exception as exc:  # noqa: BLE001  (handed to its caller)
            value = exc
        _settle(reply, value)


def _settle(reply: asyncio.Future[Any], value: Any) -> None:
    if reply.done():  # its caller was cancelled meanwhile
        return
    if isinstance(value, Exception):
        reply.set_exception(value)
    else:
        reply.set_result(value)


async def ping_every_node(client: RedisClient) -> bool:
    """Whether Redis answers ``PING``: the one server, or every primary of a cluster.

    Each primary holds some threads' state (and one holds the queue): a cluster with a
    primary down cannot serve every turn.
    """
    if isinstance(client, RedisCluster):
        return bool(await client.ping(target_nodes=RedisCluster.PRIMARIES))
    return bool(await client.ping())


class _StoreErrors(AsyncContextDecorator, AbstractAsyncContextManager[None]):
    """Context manager and decorator behind ``store_errors``."""

    def __init__(self, what: str) -> None:
        self._what = what

    async def __aenter__(self) -> None:
        return None

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc is None or isinstance(exc, StoreError):
            return
        if _unavailable(exc):
            raise StoreUnavailable(
                f"{self._what}: store unavailable ({type(exc).__name__})"
            ) from exc
        if isinstance(exc, RedisError | RedisClusterException):
            raise StoreError(f"{self._what}: store failed ({type(exc).__name__})") from exc


def _unavailable(exc: BaseException) -> bool:
    """Whether a store failure means Redis (or a cluster's node) cannot be reached now.

    A cluster client that reaches none of its nodes raises ``RedisClusterException`` with the
    connection error as its cause; a slot without a live node is ``SlotNotCoveredError``.
    """
    if isinstance(exc, _UNAVAILABLE):
        return True
    return isinstance(exc, RedisClusterException) and isinstance(exc.__cause__, _UNAVAILABLE)


def store_errors(what: str) -> _StoreErrors:
    """Map store failures inside a block (or decorated coroutine) onto ``StoreError``.

    Usable as ``async with store_errors("history load"):`` or as a decorator on an
    ``async def``. Messages name the operation and the exception type, never data.

    Args:
        what: the operation, e.g. ``"history append"``; may include ids, never user text.

    Returns:
        An async context manager that is also a decorator.
    """
    return _StoreErrors(what)
