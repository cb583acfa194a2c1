"""An edited message answered again: the bot's answer to it found and updated in place.

``Turns.edited`` reads the ``message_changed`` event as the message now reads, finds the
bot's answer to it in the thread (``answer_of``: the bot's first message after it), and asks
the core to answer again (``MessageHandler.answer_edit``). The core answers only the thread's
last user message again; the new answer replaces the old one with ``chat.update``
(``replace_answer``: the first message updated, the rest of a long answer posted after it).
"""

from __future__ import annotations

import logging
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack.formatting import split_message, to_mrkdwn
from adapters.slack.replies import SLACK_ERRORS, Target, _err

logger = logging.getLogger(__name__)

_PAGES = 5


async def answer_of(
    client: AsyncWebClient, target: Target, asked_ts: str, bot_user_id: str | None
) -> str | None:
    """The ``ts`` of the bot's first message after ``asked_ts`` in the thread, if any.

    ``None`` when there is none (the question was never answered, or the answer was deleted)
    or Slack cannot be asked: then the edit is kept without a new answer.
    """
    cursor: str | None = None
    try:
        for _ in range(_PAGES):
            resp = await client.conversations_replies(
                channel=target.channel, ts=target.thread_ts, limit=200, cursor=cursor
            )
            after = sorted(
                (m for m in resp.get("messages") or [] if float(m.get("ts", 0)) > float(asked_ts)),
                key=lambda m: float(m["ts"]),
            )
            for message in after:
                if _ours(message, bot_user_id):
                    return str(message["ts"])
            cursor = (resp.get("response_metadata") or {}).get("next_cursor") or None
            if not cursor:
                return None
    except SLACK_ERRORS as exc:
        logger.warning("slack: could not find the answer to an edited message: %s", _err(exc))
    return None


def _ours(message: dict[str, Any], bot_user_id: str | None) -> bool:
    return bool(message.get("bot_id")) and message.get("user") in (None, bot_user_id)


async def replace_answer(
    client: AsyncWebClient, target: Target, answer_ts: str, text: str, limit: int
) -> None:
    """Show ``text`` in place of the answer at ``answer_ts``; a long one continues below it."""
    chunks = split_message(to_mrkdwn(text, target.asked), limit) or [""]
    await client.chat_update(channel=target.channel, ts=answer_ts, text=chunks[0])
    for chunk in chunks[1:]:
        await client.chat_postMessage(
            channel=target.channel, thread_ts=target.thread_ts, text=chunk, unfurl_links=False
        )
