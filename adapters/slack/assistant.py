"""Slack's assistant view (``VEILBOT_SLACK_ASSISTANT``): a status, and suggested prompts.

The status shows while the bot thinks in an assistant thread; the prompts are offered when
someone opens a new one.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack.replies import SLACK_ERRORS, Target, _err

logger = logging.getLogger(__name__)


class AssistantView:
    """The assistant view's calls; each does nothing when the view is off.

    Args:
        client: the Web API client.
        enabled: ``VEILBOT_SLACK_ASSISTANT``.
    """

    def __init__(self, client: AsyncWebClient, *, enabled: bool) -> None:
        self._client = client
        self._enabled = enabled

    async def set_status(self, target: Target, status: str) -> None:
        """Show ``status`` under the thread (failures are logged at DEBUG only)."""
        if not self._enabled:
            return
        try:
            await self._client.assistant_threads_setStatus(
                channel_id=target.channel, thread_ts=target.thread_ts, status=status
            )
        except SLACK_ERRORS as exc:
            logger.debug("assistant status not set: %s", _err(exc))

    def thread_started(self, body: dict[str, Any]) -> Awaitable[Any] | None:
        """The call that suggests prompts in a new assistant thread; ``None``: nothing to do."""
        thread = (body.get("event") or {}).get("assistant_thread") or {}
        if not self._enabled or not thread.get("channel_id"):
            return None
        return self._client.assistant_threads_setSuggestedPrompts(
            channel_id=thread["channel_id"],
            thread_ts=thread["thread_ts"],
            prompts=[
                {"title": "Summarize a text", "message": "Summarize this for me: "},
                {"title": "Draft a reply", "message": "Help me write a reply to: "},
                {"title": "What can you do?", "message": "help"},
            ],
        )
