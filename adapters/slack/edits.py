"""An edited message answered again: the bot's answer to it found and updated in place.

``Turns.edited`` reads the ``message_changed`` event as the message now reads, finds the
bot's answer to it in the thread (``answer_of``: the bot's messages right after it, a long
answer being several), and asks the core to answer again (``MessageHandler.answer_edit``). The
core answers only the thread's last user message again; the new answer replaces the old one
(``replace_answer``: its messages updated in order with ``chat.update``, more posted after
them, and those the new answer does not need deleted).
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
) -> list[str]:
    """The ``ts`` of the bot's messages after ``asked_ts``: its answer, in order.

    The answer is the bot's first message after the question and the bot's messages right
    after that one (a long answer is several). Empty when there is none (the question was
    never answered, or the answer was deleted) or Slack cannot be asked: then the edit is kept
    without a new answer.
    """
    parts: list[str] = []
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
                    parts.append(str(message["ts"]))
                elif parts:
                    return parts  # someone wrote after the answer: it ends here
            cursor = (resp.get("response_metadata") or {}).get("next_cursor") or None
            if not cursor:
                return parts
    except SLACK_ERRORS as exc:
        logger.warning("slack: could not find the answer to an edited message: %s", _err(exc))
        return []
    return parts


def _ours(message: dict[str, Any], bot_user_id: str | None) -> bool:
    return bool(message.get("bot_id")) and message.get("user") in (None, bot_user_id)


async def replace_answer(
    client: AsyncWebClient, target: Target, parts: list[str], text: str, limit: int
) -> None:
    """Show ``text`` in place of the answer whose messages are ``parts`` (``answer_of``).

    Its messages are updated in order; a longer answer continues in new messages after them,
    and the old answer's messages a shorter one does not need are deleted.
    """
    chunks = split_message(to_mrkdwn(text, target.asked), limit) or [""]
    for ts, chunk in zip(parts, chunks, strict=False):
        await client.chat_update(channel=target.channel, ts=ts, text=chunk)
    for chunk in chunks[len(parts) :]:
        await client.chat_postMessage(
            channel=target.channel, thread_ts=target.thread_ts, text=chunk, unfurl_links=False
        )
    for ts in parts[len(chunks) :]:
        try:
            await client.chat_delete(channel=target.channel, ts=ts)
        except SLACK_ERRORS as exc:  # the new answer is shown; a stale part is logged
            logger.warning("slack: part of an old answer not deleted: %s", _err(exc))
