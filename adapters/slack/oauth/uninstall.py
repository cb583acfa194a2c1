"""Uninstall erases a Slack workspace at once: ``app_uninstalled``, or the bot's token revoked.

``tokens_revoked`` erases only when it names a bot token (``tokens.bot``): a person revoking
the user token they granted leaves the app installed and the workspace's threads kept. One
installation per team holds every token. An org-wide Enterprise Grid install is erased as its
enterprise id (``erase(E, E)``): the root then erases every workspace the org install served.
The erasure itself (installation rows, Redis keys of the workspace, the action-log entry) is
composed at the root (``bot.stores.erase_workspace``); this module only listens for Slack's
events.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.async_app import AsyncApp

logger = logging.getLogger(__name__)

EraseWorkspace = Callable[[str | None, str], Awaitable[int]]
"""``erase(enterprise_id, team_id)``: erases the workspace, returns the Redis keys deleted."""


def uninstalls(event: Any) -> bool:
    """Whether an uninstall event removes the bot: always, unless only user tokens went."""
    if not isinstance(event, dict) or event.get("type") != "tokens_revoked":
        return True
    tokens = event.get("tokens")
    return isinstance(tokens, dict) and bool(tokens.get("bot"))


def register_uninstall(app: AsyncApp, erase: EraseWorkspace) -> None:
    """Erase the workspace on ``app_uninstalled`` and on ``tokens_revoked`` of the bot."""

    async def on_uninstall(context: Any, event: Any, ack: Any) -> None:
        await ack()
        org = context.is_enterprise_install and context.enterprise_id
        team = context.enterprise_id if org else (context.team_id or context.enterprise_id)
        if not uninstalls(event):
            logger.info("slack user tokens revoked, the bot's kept: nothing erased team=%s", team)
            return
        if team:
            await erase(context.enterprise_id, team)

    app.event("app_uninstalled")(on_uninstall)
    app.event("tokens_revoked")(on_uninstall)
