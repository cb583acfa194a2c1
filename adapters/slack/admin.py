"""``/veilbot audit export [since] [thread:ID|channel:ID|user:ID]`` and ``budget`` for admins.

The core (``AdminCommands``) decides who is an admin and builds the export; this module
delivers it privately: the file is uploaded (``files_upload_v2``) into a direct message
between the bot and the admin, and the command's ephemeral answer says where it went.
Everyone else gets the core's polite refusal, visible only to them. Logs carry ids only.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack.replies import SLACK_ERRORS, _err
from bot.core.errors import VeilbotError
from bot.core.ports import AdminCommands
from bot.core.types import AdminReply

logger = logging.getLogger(__name__)

Respond = Callable[..., Awaitable[Any]]

NOT_AVAILABLE = "Sorry, admin commands are not available on this veilbot."
SENT = "I sent the audit export to our direct messages."
UPLOAD_FAILED = "Sorry, I couldn't deliver the export file. Please try again later."
UNAVAILABLE = "Sorry, the audit log is unavailable right now. Please try again later."
BUDGETS_UNAVAILABLE = "Sorry, the budgets are unavailable right now. Please try again later."


def audit_usage(command: str) -> str:
    """Shown for ``audit`` without ``export``."""
    return (
        f"Usage: `{command} audit export [since] [thread:ID | channel:ID | user:ID]`, "
        f"e.g. `{command} audit export 7d channel:C123`. Admins only."
    )


class AdminExport:
    """Runs the admin export for a slash command and delivers the file in a DM.

    Args:
        admin: the core's admin commands; ``None`` when this service offers none.
        client: the Web API client (``conversations.open``, ``files_upload_v2``).
    """

    def __init__(self, admin: AdminCommands | None, client: AsyncWebClient) -> None:
        self._admin, self._client = admin, client

    async def run(self, command: dict[str, Any], args: list[str], respond: Respond) -> None:
        """Answer ``audit export <args>`` from ``command`` (already acknowledged)."""
        team, user = str(command.get("team_id", "")), str(command.get("user_id", ""))
        if self._admin is None or not team or not user:
            await respond(text=NOT_AVAILABLE, response_type="ephemeral")
            return
        try:
            reply = await self._admin.audit_export(f"slack:{team}:{user}", args)
        except VeilbotError as exc:
            logger.error("audit export failed team=%s user=%s (%s)", team, user, type(exc).__name__)
            await respond(text=UNAVAILABLE, response_type="ephemeral")
            return
        if not reply.allowed or reply.file is None:
            await respond(text=reply.text, response_type="ephemeral")
            return
        try:
            await self._upload(user, reply)
        except SLACK_ERRORS as exc:
            logger.warning("audit export upload failed team=%s user=%s: %s", team, user, _err(exc))
            await respond(text=UPLOAD_FAILED, response_type="ephemeral")
            return
        logger.info("audit export delivered team=%s user=%s", team, user)
        await respond(text=SENT, response_type="ephemeral")

    async def _upload(self, user: str, reply: AdminReply) -> None:
        opened = await self._client.conversations_open(users=user)
        channel = str((opened.get("channel") or {}).get("id", ""))
        filename = reply.filename or "veilbot-audit.jsonl.gz"
        await self._client.files_upload_v2(
            channel=channel,
            file=reply.file,
            filename=filename,
            title=filename,
            initial_comment=reply.text,
        )


async def budget_command(
    admin: AdminCommands | None, command: dict[str, Any], args: list[str], respond: Respond
) -> None:
    """Answer ``budget show | raise KIND ID USD | reset KIND ID`` privately (admins only)."""
    team, user = str(command.get("team_id", "")), str(command.get("user_id", ""))
    if admin is None or not team or not user:
        await respond(text=NOT_AVAILABLE, response_type="ephemeral")
        return
    try:
        reply = await admin.budget(f"slack:{team}:{user}", args)
    except VeilbotError as exc:
        logger.error("budget command failed team=%s user=%s (%s)", team, user, type(exc).__name__)
        await respond(text=BUDGETS_UNAVAILABLE, response_type="ephemeral")
        return
    await respond(text=reply.text, response_type="ephemeral")
