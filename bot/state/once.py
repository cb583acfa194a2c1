"""One-time tokens in Redis (Slack OAuth install states): any replica may consume them.

One key per token, ``<prefix>:oauth-state:<sha256 of the token>``, with a TTL; consuming
deletes it atomically (``GETDEL``), so a token works once, on whichever replica gets it.
"""

from __future__ import annotations

import hashlib
import secrets

from bot.state.client import RedisClient, store_errors


class RedisOneTimeTokens:
    """Issue and consume one-time tokens.

    Args:
        redis: the service's client.
        prefix: the key prefix (``VEILBOT_REDIS_PREFIX``).
        ttl_seconds: how long a token stays valid.
    """

    def __init__(self, redis: RedisClient, prefix: str, ttl_seconds: int = 600) -> None:
        self._redis, self._prefix = redis, prefix
        self.ttl_seconds = ttl_seconds

    def _key(self, token: str) -> str:
        return f"{self._prefix}:oauth-state:{hashlib.sha256(token.encode()).hexdigest()}"

    async def issue(self) -> str:
        """A new random token."""
        token = secrets.token_urlsafe(32)
        async with store_errors("one-time token issue"):
            await self._redis.set(self._key(token), b"1", ex=self.ttl_seconds)
        return token

    async def consume(self, token: str) -> bool:
        """``True`` once for a token issued here that has not expired."""
        async with store_errors("one-time token consume"):
            return await self._redis.getdel(self._key(token)) is not None


async def erase_workspace_keys(redis: RedisClient, patterns: list[str]) -> int:
    """Delete every key matching the patterns (``KeySpace.workspace_patterns``); how many.

    One ``DEL`` per key, so it works on Redis Cluster (the keys live in many slots).
    """
    deleted = 0
    async with store_errors("workspace erase"):
        for pattern in patterns:
            async for key in redis.scan_iter(match=pattern, count=500):
                deleted += int(await redis.delete(key))
    return deleted
