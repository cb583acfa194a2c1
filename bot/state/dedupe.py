"""Event dedupe in Redis: platforms redeliver events, and each must be answered once."""

from __future__ import annotations

from bot.core.keys import KeySpace
from bot.core.metrics import NO_METRICS
from bot.core.ports import Metrics
from bot.state.client import RedisClient, store_errors


class RedisEventDedupe:
    """``EventDedupe`` as ``SET <event key> 1 NX EX <ttl>``.

    Args:
        redis: the client (see ``bot.state.client.open_redis``).
        keys: key names.
        ttl_seconds: how long a delivery is remembered.
        metrics: counts the duplicates dropped.
    """

    def __init__(
        self,
        redis: RedisClient,
        keys: KeySpace,
        *,
        ttl_seconds: int,
        metrics: Metrics = NO_METRICS,
    ) -> None:
        if ttl_seconds < 1:
            raise ValueError("ttl_seconds must be positive")
        self._redis = redis
        self._keys = keys
        self._ttl = ttl_seconds
        self._metrics = metrics

    async def first_delivery(self, platform: str, event_id: str) -> bool:
        """``True`` the first time an event id is seen within the TTL, ``False`` afterwards.

        Raises:
            StoreUnavailable: Redis cannot be reached.
        """
        key = self._keys.event(platform, event_id)
        async with store_errors(f"dedupe {platform} event"):
            first = bool(await self._redis.set(key, b"1", nx=True, ex=self._ttl))
        if not first:
            self._metrics.duplicate_dropped(platform)
        return first
