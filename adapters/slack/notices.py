"""Budget notices to Slack admins: a direct message to each ``VEILBOT_ADMIN_USERS`` entry.

Only the admins of the workspace the budget belongs to (``slack:TEAM:USER`` with that team)
are told; the DM is opened with ``conversations.open`` and written with ``chat.postMessage``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack.replies import SLACK_ERRORS, _err

logger = logging.getLogger(__name__)


class SlackAdminNotifier:
    """The ``AdminNotifier`` port on Slack's Web API.

    Args:
        client: the bot's Web API client.
        admins: admin references (``slack:TEAM:USER``; other platforms' are skipped).
    """

    def __init__(self, client: AsyncWebClient, admins: Iterable[str]) -> None:
        self._client = client
        self._admins = sorted(a for a in admins if a.startswith("slack:") and a.count(":") == 2)

    async def notify_admins(self, workspace: str, text: str) -> int:
        """DM ``text`` to the admins of ``workspace``; how many got it (failures are logged)."""
        sent = 0
        for admin in self._admins:
            _, team, user = admin.split(":")
            if team != workspace:
                continue
            try:
                opened = await self._client.conversations_open(users=user)
                channel = str((opened.get("channel") or {}).get("id", ""))
                await self._client.chat_postMessage(channel=channel, text=text)
            except SLACK_ERRORS as exc:
                logger.warning("admin notice failed team=%s user=%s: %s", team, user, _err(exc))
                continue
            sent += 1
        return sent
