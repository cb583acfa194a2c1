"""The Slack user groups the access rules name, and who is in them (``usergroups.users.list``).

Read on first use and again once ``ttl`` has passed (one call per named group; the bot needs
the ``usergroups:read`` scope). When no read has ever succeeded the author's groups are
unknown (``None``) and the core refuses the turn; a failed re-read keeps the last members.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

logger = logging.getLogger(__name__)

_ERRORS = (SlackApiError, OSError, asyncio.TimeoutError)


class UserGroups:
    """Members of the named user groups, cached for ``ttl`` seconds."""

    def __init__(
        self,
        client: AsyncWebClient,
        groups: frozenset[str],
        *,
        ttl: float = 300.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._client, self._groups, self._ttl, self._clock = client, groups, ttl, clock
        self._members: dict[str, frozenset[str]] | None = None
        self._read_at: float | None = None
        self._lock = asyncio.Lock()

    async def of(self, user: str) -> frozenset[str] | None:
        """The named groups ``user`` is in; ``None`` when they could never be read."""
        if not self._groups:
            return frozenset()
        if self._read_at is None or self._clock() - self._read_at >= self._ttl:
            async with self._lock:
                if self._read_at is None or self._clock() - self._read_at >= self._ttl:
                    await self._read()
        if self._members is None:
            return None
        return frozenset(g for g, users in self._members.items() if user in users)

    async def _read(self) -> None:
        members: dict[str, frozenset[str]] = {}
        try:
            for group in sorted(self._groups):
                resp = await self._client.usergroups_users_list(usergroup=group)
                members[group] = frozenset(resp.get("users") or ())
        except _ERRORS as exc:
            logger.warning("slack user groups not read (%s)", type(exc).__name__)
            self._read_at = self._clock() if self._members is not None else None
            return
        self._members, self._read_at = members, self._clock()
