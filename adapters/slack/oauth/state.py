"""slack-sdk's ``AsyncOAuthStateStore`` on shared one-time tokens.

The tokens are ``bot.state.once`` in Redis: any replica completes an install another started,
and a state works once.
"""

from __future__ import annotations

import logging
from typing import Protocol

from slack_sdk.oauth.state_store.async_state_store import AsyncOAuthStateStore

logger = logging.getLogger(__name__)


class OneTimeTokens(Protocol):
    """Shared one-time tokens (``bot.state.once.RedisOneTimeTokens``)."""

    ttl_seconds: int

    async def issue(self) -> str:
        """A new token."""
        ...

    async def consume(self, token: str) -> bool:
        """``True`` once per issued, unexpired token."""
        ...


class SharedOAuthStateStore(AsyncOAuthStateStore):
    """Install states as shared one-time tokens."""

    def __init__(self, tokens: OneTimeTokens) -> None:
        self._tokens = tokens
        self.expiration_seconds = tokens.ttl_seconds

    @property
    def logger(self) -> logging.Logger:
        """The module logger (slack-sdk's interface asks for one)."""
        return logger

    async def async_issue(self, *args: object, **kwargs: object) -> str:
        """A new state."""
        return await self._tokens.issue()

    async def async_consume(self, state: str) -> bool:
        """``True`` once for a state issued by any replica, before it expires."""
        return await self._tokens.consume(state)
