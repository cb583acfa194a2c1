"""Who is in which Slack user group (``usergroups.list`` with members), for the access rules.

One call reads every group of the workspace with its members (the bot needs the
``usergroups:read`` scope); it is read on first use and again once ``ttl`` has passed, so a
reloaded config that names other groups needs nothing from here. When no read has ever
succeeded the author's groups are unknown (``None``): the core then refuses the turns that
group rules decide, and nothing else. A failed re-read keeps the last members.
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
    """The groups of each member, cached for ``ttl`` seconds."""

    def __init__(
        self,
        client: AsyncWebClient,
        *,
        ttl: float = 300.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._client, self._ttl, self._clock = client, ttl, clock
        self._groups_of: dict[str, frozenset[str]] | None = None
        self._read_at: float | None = None
        self._warned = False
        self._lock = asyncio.Lock()

    async def of(self, user: str) -> frozenset[str] | None:
        """The user groups ``user`` is in; ``None`` when they could never be read."""
        if self._stale():
            async with self._lock:
                if self._stale():
                    await self._read()
        if self._groups_of is None:
            return None
        return self._groups_of.get(user, frozenset())

    def _stale(self) -> bool:
        return self._read_at is None or self._clock() - self._read_at >= self._ttl

    async def _read(self) -> None:
        try:
            resp = await self._client.usergroups_list(include_users=True)
        except _ERRORS as exc:
            level = logging.DEBUG if self._warned else logging.WARNING
            logger.log(level, "slack user groups not read (%s)", type(exc).__name__)
            self._warned = True
            self._read_at = self._clock()  # try again after ttl, not on every message
            return
        groups_of: dict[str, set[str]] = {}
        for group in resp.get("usergroups") or ():
            for user in group.get("users") or ():
                groups_of.setdefault(str(user), set()).add(str(group["id"]))
        self._groups_of = {u: frozenset(g) for u, g in groups_of.items()}
        self._read_at = self._clock()
