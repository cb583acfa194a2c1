"""slack-sdk's ``AsyncOAuthStateStore`` on Redis: any replica completes an install it did not start.

One key per state, ``<prefix>:slack-oauth-state:<sha256 of the state>``, with a TTL; consuming
deletes it atomically (``GETDEL``), so a state works once, on whichever replica gets the redirect.
"""

from __future__ import annotations

import hashlib
import logging
import secrets

from slack_sdk.oauth.state_store.async_state_store import AsyncOAuthStateStore

from bot.state.client import RedisClient, store_errors

logger = logging.getLogger(__name__)


class RedisOAuthStateStore(AsyncOAuthStateStore):
    """Install states in Redis.

    Args:
        redis: the service's client.
        prefix: the key prefix (``VEILBOT_REDIS_PREFIX``).
        expiration_seconds: how long an install link stays valid.
    """

    def __init__(self, redis: RedisClient, prefix: str, expiration_seconds: int = 600) -> None:
        self._redis = redis
        self._prefix = prefix
        self._ttl = expiration_seconds

    @property
    def expiration_seconds(self) -> int:
        """How long an install link stays valid."""
        return self._ttl

    @property
    def logger(self) -> logging.Logger:
        """The module logger (slack-sdk's interface asks for one)."""
        return logger

    def _key(self, state: str) -> str:
        digest = hashlib.sha256(state.encode()).hexdigest()
        return f"{self._prefix}:slack-oauth-state:{digest}"

    async def async_issue(self, *args: object, **kwargs: object) -> str:
        """A new random state, valid for ``expiration_seconds``."""
        state = secrets.token_urlsafe(32)
        async with store_errors("slack oauth state issue"):
            await self._redis.set(self._key(state), b"1", ex=self._ttl)
        return state

    async def async_consume(self, state: str) -> bool:
        """``True`` once for a state this store issued and that has not expired."""
        async with store_errors("slack oauth state consume"):
            found = await self._redis.getdel(self._key(state))
        return found is not None
