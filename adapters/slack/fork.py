"""``/veilbot fork <thread link> first_k=K|last_n=N``: a new Slack thread from another's turns.

Who may fork: a thread is forked from the channel it is in. The command must be run in that
channel (Slack delivers a slash command only from a conversation the person is in), and the
fork is posted there: a new top-level message of the bot's, with a link to the source thread,
whose thread is the fork. So the fork is shown to the same people who see its source, and
nobody can copy a thread of a channel they are not in.

The message is posted first (its ``ts`` is the new thread's id); if the fork then fails, it is
deleted again and the person is told why.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack.events import split_thread_id, thread_from_permalink
from adapters.slack.replies import SLACK_ERRORS, _err
from bot.core.errors import InputRejected, VeilbotError
from bot.core.fork import FORK_USAGE, ForkSpan
from bot.core.ports import MessageHandler
from bot.core.types import ThreadId, thread_id

logger = logging.getLogger(__name__)

FORK_ELSEWHERE = (
    "Please run this in the channel of the thread you want to fork: the fork is posted there, "
    "for the same people who can see the thread."
)
FORK_FAILED = "I couldn't fork that thread right now. Please try again in a minute."


def fork_usage(command: str) -> str:
    """How to use ``fork``."""
    return (
        f"`{command} fork <link to a message in the thread> first_k=K` keeps its first K "
        f"turns in a new thread; `last_n=N` keeps its last N. {FORK_USAGE}"
    )


class SlackForks:
    """Answers ``/veilbot fork``; returns the text shown to the person who ran it."""

    def __init__(self, handler: MessageHandler, client: AsyncWebClient, command: str) -> None:
        self._handler, self._client, self._command = handler, client, command

    async def run(self, command: dict[str, Any], arg: str) -> str:
        """Fork the linked thread into a new thread in this channel, or say why not."""
        team, user = str(command.get("team_id", "")), str(command.get("user_id", ""))
        channel = str(command.get("channel_id", ""))
        words = arg.split()
        source = thread_from_permalink(words[0], team) if words else None
        if source is None:
            return fork_usage(self._command)
        try:
            span = ForkSpan.parse(words[1:])
        except InputRejected as exc:
            return f"{exc}. {fork_usage(self._command)}"
        if split_thread_id(source)[1] != channel:
            return FORK_ELSEWHERE
        try:
            posted = await self._client.chat_postMessage(
                channel=channel, text=await self._header(source, span, user), unfurl_links=False
            )
        except SLACK_ERRORS as exc:
            logger.warning("slack: fork message not posted: %s", _err(exc))
            return FORK_FAILED
        target = thread_id("slack", team, channel, str(posted["ts"]))
        try:
            fork = await self._handler.fork(
                source, target, span, workspace=team, channel=channel, user_id=user
            )
        except VeilbotError as exc:
            await self._withdraw(channel, str(posted["ts"]))
            if isinstance(exc, InputRejected):
                return f"I couldn't fork that thread: {exc}."
            logger.warning("fork failed source=%s (%s)", source, type(exc).__name__)
            return FORK_FAILED
        return (
            f"Forked: {fork.turns} turns of that thread are in the new thread I posted here. "
            "Reply there to go on from them."
        )

    async def _header(self, source: ThreadId, span: ForkSpan, user: str) -> str:
        """The fork's first message: who forked what, with a link to the source thread."""
        _, channel, ts = split_thread_id(source)
        kept = (
            f"its first {span.first_k} turns"
            if span.first_k is not None
            else f"its last {span.last_n} turns"
        )
        where = "another thread"
        try:
            found = await self._client.chat_getPermalink(channel=channel, message_ts=ts)
            if link := found.get("permalink"):
                where = f"<{link}|this thread>"
        except SLACK_ERRORS as exc:
            logger.info("slack: no permalink for the fork's source: %s", _err(exc))
        return (
            f"<@{user}> forked {where} here, keeping {kept}. "
            "Reply in this thread to go on from there."
        )

    async def _withdraw(self, channel: str, ts: str) -> None:
        try:
            await self._client.chat_delete(channel=channel, ts=ts)
        except SLACK_ERRORS as exc:
            logger.warning("slack: failed fork message not deleted: %s", _err(exc))
