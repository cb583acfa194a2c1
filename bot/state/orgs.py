"""Which workspaces an Enterprise Grid org-wide Slack install has served (Redis sets).

Thread ids, vaults and audit runs name the workspace (``T…``), never its org (``E…``). When
an org-wide install is removed, its erasure needs the org's workspaces: the adapter adds each
workspace it serves under the org install here, and the erasure reads and deletes the set.
One set per org, ``<prefix>:slack-org:<enterprise id>``; it holds ids only.
"""

from __future__ import annotations

from bot.state.client import RedisClient, store_errors


class RedisOrgMembers:
    """The workspaces served under each org-wide install.

    Args:
        redis: the service's client.
        prefix: the key prefix (``VEILBOT_REDIS_PREFIX``).
    """

    def __init__(self, redis: RedisClient, prefix: str) -> None:
        self._redis, self._prefix = redis, prefix

    def _key(self, enterprise: str) -> str:
        return f"{self._prefix}:slack-org:{enterprise}"

    async def add(self, enterprise: str, team: str) -> None:
        """Remember that ``team`` is served under ``enterprise``'s org-wide install."""
        async with store_errors("org member add"):
            await self._redis.sadd(self._key(enterprise), team)

    async def pop_all(self, enterprise: str) -> list[str]:
        """The org's workspaces, sorted; the set is deleted."""
        async with store_errors("org members"):
            found = await self._redis.smembers(self._key(enterprise))
            await self._redis.delete(self._key(enterprise))
        return sorted(m.decode() if isinstance(m, bytes) else str(m) for m in found)
