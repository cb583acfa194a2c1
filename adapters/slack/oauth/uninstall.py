"""Uninstall erases a Slack workspace's tokens and Redis data at once, and logs the action.

Redis data: histories, vaults, locks and rate counters.

Slack sends ``app_uninstalled`` when the app is removed and ``tokens_revoked`` when its tokens
are; both erase (one installation per team holds every token). Redis keys are found with
``SCAN`` on the workspace's patterns (``KeySpace.workspace_patterns``) and deleted one by one,
which works on Redis Cluster too (every thread key carries its own hash tag).
"""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt.async_app import AsyncApp

from adapters.slack.oauth.installations import SqlInstallationStore
from bot.audit.actions import ActionLog, AdminAction
from bot.core.keys import KeySpace
from bot.state.client import RedisClient, store_errors

logger = logging.getLogger(__name__)

SLACK_ACTOR = "slack:uninstall"
"""The action log's actor for erasures Slack asked for (``veilbot audit forget`` logs its own)."""


class WorkspaceEraser:
    """Erases one Slack workspace's tokens and Redis data.

    Args:
        redis: the service's client.
        keys: the key space (``VEILBOT_REDIS_PREFIX``).
        installations: the installation store (tokens).
        actions: the audit's action log.
    """

    def __init__(
        self,
        redis: RedisClient,
        keys: KeySpace,
        installations: SqlInstallationStore,
        actions: ActionLog,
    ) -> None:
        self._redis, self._keys = redis, keys
        self._installations, self._actions = installations, actions

    async def erase(self, *, enterprise_id: str | None, team_id: str, actor: str) -> int:
        """Delete the team's installation and every Redis key of it; the number of keys."""
        await self._installations.async_delete_all(enterprise_id=enterprise_id, team_id=team_id)
        deleted = 0
        async with store_errors("workspace erase"):
            for pattern in self._keys.workspace_patterns("slack", team_id):
                async for key in self._redis.scan_iter(match=pattern, count=500):
                    deleted += int(await self._redis.delete(key))
        await self._actions.record_action(
            AdminAction(
                actor=actor,
                action="erase_workspace",
                target=f"slack:{team_id}",
                outcome={"redis_keys": deleted, "installation": "deleted"},
            )
        )
        logger.info("erased slack workspace %s: %d redis keys", team_id, deleted)
        return deleted

    def register(self, app: AsyncApp) -> None:
        """Erase on ``app_uninstalled`` and ``tokens_revoked``."""
        app.event("app_uninstalled")(self._on_uninstall)
        app.event("tokens_revoked")(self._on_uninstall)

    async def _on_uninstall(self, context: Any, ack: Any) -> None:
        await ack()
        team = context.team_id or context.enterprise_id
        if team:
            await self.erase(enterprise_id=context.enterprise_id, team_id=team, actor=SLACK_ACTOR)
