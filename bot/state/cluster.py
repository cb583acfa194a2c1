"""The Redis Cluster client: ``open_redis`` opens one for a ``+cluster`` URL.

redis-py's cluster client, with three changes that keep it as fail-fast and as safe under a
burst as the single-server one (``bot.state.client``):

- It learns the cluster's slots before it routes its first command. redis-py routes the
  commands issued while the client is still uninitialized to its default node (it cannot
  compute their slot yet): in a burst they come back ``MOVED``, and every fifth ``MOVED``
  makes redis-py close every connection, in-flight commands' too (they fail).
- A ``MOVED`` only updates that slot's node (``reinitialize_steps=0``): a resharding never
  closes the connections in-flight commands use; a node that fails is still read again.
- A timed-out command is never sent again (it may have run: appends are not idempotent);
  a refused connection, a cluster down or a slot without a node are retried once, after
  the topology is read again.
"""

from __future__ import annotations

from typing import Any

from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.connection import parse_url
from redis.driver_info import DriverInfo
from redis.exceptions import ClusterDownError, RedisClusterException, SlotNotCoveredError
from redis.exceptions import ConnectionError as RedisConnectionError

from bot.core.errors import ConfigError
from bot.core.redis_url import RedisTarget


class ClusterClient(RedisCluster):
    """``RedisCluster`` that initializes before routing and never repeats a timed-out command."""

    # The base declares its own tuple's exact type; this one is a subset of it.
    ERRORS_ALLOW_RETRY = (  # type: ignore[assignment]
        RedisConnectionError,
        ClusterDownError,
        SlotNotCoveredError,
    )

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        """Run a command once the slots are known (concurrent first callers wait together)."""
        if self._initialize:
            await self.initialize()
        return await super().execute_command(*args, **kwargs)


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
    options: dict[str, Any] = parse_url(target.url)  # type: ignore[no-untyped-call]
    for name in ("host", "port", "db"):
        options.pop(name, None)
    if options.pop("connection_class", None) is not None:  # rediss: TLS to every node
        options["ssl"] = True
    try:
        return ClusterClient(
            startup_nodes=[ClusterNode(host, port) for host, port in target.seeds],
            max_connections=max_connections,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            retry=Retry(NoBackoff(), retries=1),
            reinitialize_steps=0,
            driver_info=driver_info,
            **options,
        )
    except (RedisClusterException, TypeError) as exc:  # an option a cluster cannot take
        raise ConfigError(f"VEILBOT_REDIS_URL: {type(exc).__name__}") from None
