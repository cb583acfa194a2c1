"""The Redis Cluster client: ``open_redis`` opens one for a ``+cluster`` URL.

redis-py's cluster client, with five changes that keep it as fail-fast and as safe under a
burst as the single-server one (``bot.state.client``):

- It learns the cluster's slots before it routes its first command. redis-py routes the
  commands issued while the client is still uninitialized to its default node (it cannot
  compute their slot yet): in a burst they come back ``MOVED``, and every fifth ``MOVED``
  makes redis-py close every connection, in-flight commands' too (they fail).
- A ``MOVED`` only updates that slot's node (``reinitialize_steps=0``): a resharding never
  closes the connections in-flight commands use; a node that fails is still read again.
- A burst waits for a connection (up to the timeout) instead of failing: redis-py's cluster
  nodes raise ``MaxConnectionsError`` at once when all their connections are in use. No more
  commands than ``max_connections`` are in flight at once, so no node runs out.
- A stream read (``XREADGROUP``) is routed by its stream keys: redis-py would ask a node
  ``COMMAND GETKEYS`` first, a second round trip for every read of the queue.
- A timed-out command is never sent again (it may have run: appends are not idempotent);
  a refused connection, a cluster down or a slot without a node are retried once, after
  the topology is read again.
"""

from __future__ import annotations

import asyncio
from typing import Any

from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.connection import parse_url
from redis.driver_info import DriverInfo
from redis.exceptions import (
    ClusterDownError,
    MaxConnectionsError,
    RedisClusterException,
    SlotNotCoveredError,
)
from redis.exceptions import ConnectionError as RedisConnectionError

from bot.core.errors import ConfigError
from bot.core.redis_url import RedisTarget


class ClusterClient(RedisCluster):
    """``RedisCluster`` that knows the slots first, waits for a connection, never repeats.

    It learns the slots before routing, waits for a free connection, and never sends a
    timed-out command again (see the module's docstring).

    Args:
        pool_wait: seconds a command waits for a free connection before it fails.
        max_connections: the most commands (so connections to any one node) at once.
        **options: as ``RedisCluster`` takes them.
    """

    # The base declares its own tuple's exact type; this one is a subset of it.
    ERRORS_ALLOW_RETRY = (  # type: ignore[assignment]
        RedisConnectionError,
        ClusterDownError,
        SlotNotCoveredError,
    )

    def __init__(self, *, pool_wait: float, max_connections: int, **options: Any) -> None:
        super().__init__(max_connections=max_connections, **options)
        self._pool_wait = pool_wait
        self._in_flight = asyncio.Semaphore(max_connections)

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        """Run a command once the slots are known and a connection is free.

        Raises:
            MaxConnectionsError: no connection came free within ``pool_wait`` seconds.
        """
        try:
            async with asyncio.timeout(self._pool_wait):
                await self._in_flight.acquire()
        except TimeoutError:
            raise MaxConnectionsError("no free Redis Cluster connection") from None
        try:
            if self._initialize:  # concurrent first callers wait for one initialization
                await self.initialize()
            return await super().execute_command(*args, **kwargs)
        finally:
            self._in_flight.release()

    async def _determine_slot(self, *args: Any) -> int:
        """The slot of a command; a stream read's from its keys, without asking a node."""
        if str(args[0]).upper() == "XREADGROUP":
            slots = {self.keyslot(key) for key in _stream_keys(args)}
            if len(slots) != 1:
                raise RedisClusterException("XREADGROUP - all keys must map to the same key slot")
            return slots.pop()
        return int(await super()._determine_slot(*args))


def _stream_keys(args: tuple[Any, ...]) -> list[Any]:
    """The stream names of ``XREADGROUP … STREAMS k1 k2 … id1 id2 …``."""
    marks = [i for i, arg in enumerate(args) if isinstance(arg, str | bytes) and _is_streams(arg)]
    rest = args[marks[-1] + 1 :] if marks else ()
    return list(rest[: len(rest) // 2])


def _is_streams(arg: str | bytes) -> bool:
    return (arg.decode() if isinstance(arg, bytes) else arg).upper() == "STREAMS"


def open_cluster(
    target: RedisTarget, *, timeout: float, max_connections: int, driver_info: DriverInfo
) -> ClusterClient:
    """A cluster client for a parsed ``+cluster`` URL; no connection until the first command.

    Args:
        target: the URL, read by ``bot.core.redis_url.parse_redis_url``.
        timeout: seconds allowed for connecting and for each reply.
        max_connections: the most connections open to each node.
        driver_info: what each connection tells the server in ``CLIENT SETINFO``.

    Raises:
        ConfigError: the URL carries an option a cluster client cannot take.
    """
    settings: dict[str, Any] = {
        "pool_wait": timeout,
        "max_connections": max_connections,
        "socket_timeout": timeout,
        "socket_connect_timeout": timeout,
    }
    options: dict[str, Any] = parse_url(target.url)  # type: ignore[no-untyped-call]
    for name in ("host", "port", "db"):
        options.pop(name, None)
    if options.pop("connection_class", None) is not None:  # rediss: TLS to every node
        options["ssl"] = True
    if "timeout" in options:  # the URL's pool wait, as on one server
        options["pool_wait"] = options.pop("timeout")
    settings.update(options)  # the URL's options win, as redis-py's from_url does
    try:
        return ClusterClient(
            startup_nodes=[ClusterNode(host, port) for host, port in target.seeds],
            retry=Retry(NoBackoff(), retries=1),
            reinitialize_steps=0,
            driver_info=driver_info,
            **settings,
        )
    except RedisClusterException as exc:  # an option a cluster cannot take
        raise ConfigError(f"VEILBOT_REDIS_URL: {type(exc).__name__}") from None
