"""Who takes part in a Slack thread: the people who wrote in it, as Slack tells it.

Asked before a conversation is erased (``AdminCommands.authorize_erase``): the requester must
have written in the thread (its first message or a reply) unless they are an admin. Slack is
asked with ``conversations.replies`` (the ``*:history`` scopes the bot has already). A thread
Slack does not show the bot (a channel it is not in, a DM of someone else) has no
participants the bot can see: nobody but an admin may erase it.
"""

from __future__ import annotations

import logging

from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack.events import split_thread_id
from adapters.slack.replies import SLACK_ERRORS, _err
from bot.core.types import ThreadId

logger = logging.getLogger(__name__)

_PAGES = 10
"""At most this many pages of 200 messages are read (a thread longer than 2 000 messages:
only its first 2 000 count, and an admin can erase it)."""


async def wrote_in(client: AsyncWebClient, thread: ThreadId, user: str) -> bool:
    """Whether ``user`` wrote a message in ``thread`` (``False`` when Slack cannot tell)."""
    _, channel, ts = split_thread_id(thread)
    cursor: str | None = None
    try:
        for _ in range(_PAGES):
            resp = await client.conversations_replies(
                channel=channel, ts=ts, limit=200, cursor=cursor
            )
            messages = resp.get("messages") or []
            if any(isinstance(m, dict) and m.get("user") == user for m in messages):
                return True
            cursor = (resp.get("response_metadata") or {}).get("next_cursor") or None
            if not cursor:
                return False
    except SLACK_ERRORS as exc:
        logger.info("slack thread participants unknown (%s): not a participant", _err(exc))
    return False
