"""Admin console sessions' storage in Redis (the logic is ``bot.admin.sessions``).

One string key per session, ``<prefix>:admin-session:<sha256 of the session id>``, with a
TTL: a Redis dump holds no usable cookie, and an abandoned session disappears by itself.
"""

from __future__ import annotations

from bot.state.client import RedisClient, store_errors


class RedisSessionBackend:
    """``SessionBackend`` on Redis.

    Args:
        redis: the service's client.
        prefix: the key prefix (``VEILBOT_REDIS_PREFIX``).
    """

    def __init__(self, redis: RedisClient, prefix: str) -> None:
        self._redis = redis
        self._prefix = prefix

    def _key(self, digest: str) -> str:
        return f"{self._prefix}:admin-session:{digest}"

    async def put(self, digest: str, body: str, ttl_seconds: int) -> None:
        """Store a session body under its id's digest, expiring after ``ttl_seconds``."""
        async with store_errors("admin session put"):
            await self._redis.set(self._key(digest), body, ex=ttl_seconds)

    async def get(self, digest: str) -> str | None:
        """A session body, or ``None`` when there is none (ended or expired)."""
        async with store_errors("admin session get"):
            raw = await self._redis.get(self._key(digest))
        if raw is None:
            return None
        return raw.decode() if isinstance(raw, bytes) else str(raw)

    async def delete(self, digest: str) -> None:
        """Forget a session (a no-op when there is none)."""
        async with store_errors("admin session delete"):
            await self._redis.delete(self._key(digest))
