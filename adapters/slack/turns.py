"""One Slack message answered: read the event, order it in its thread, run the turn, post.

``Turns.run`` is what the listeners (and the queue worker, for a queued event) call for a
mention, a DM or a follow-up: the event becomes a ``Delivery``, turns of one thread start in
arrival order (an in-process FIFO lock per thread; the core's Redis lock orders them across
replicas), and the answer streams into a ``LiveReply``. A queued event another worker began
and did not finish (``attempt > 1``) is answered only if the thread holds no answer to it yet.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack.assistant import AssistantView
from adapters.slack.edits import answer_of, replace_answer
from adapters.slack.events import Delivery, edited_message, skip_reason, to_delivery
from adapters.slack.files import SlackFiles
from adapters.slack.formatting import mentioned_users
from adapters.slack.groups import UserGroups
from adapters.slack.interactions import Interactions
from adapters.slack.locks import KeyedLocks
from adapters.slack.replies import LiveReply, Mode, Target, answered_before, post_ephemeral
from bot.config.settings import Settings
from bot.core.errors import InputRejected
from bot.core.logsafe import log_failure
from bot.core.ports import MessageHandler
from bot.core.types import QueuedEvent

logger = logging.getLogger(__name__)

SORRY = "Sorry, something went wrong on my side and I couldn't answer. Please try again."


class Turns:
    """Answers Slack messages in their threads, one turn per thread at a time.

    Args:
        settings: the ``VEILBOT_SLACK_*`` settings are read from here.
        handler: the core's guarded turn.
        client: the Web API client.
        interactions: answers ``/veilbot``-style commands written in a thread.
        assistant: the assistant view's status.
    """

    def __init__(
        self,
        settings: Settings,
        handler: MessageHandler,
        client: AsyncWebClient,
        interactions: Interactions,
        assistant: AssistantView,
    ) -> None:
        self._settings = settings
        self._handler = handler
        self._client = client
        self._interactions = interactions
        self._assistant = assistant
        self._groups: dict[str, UserGroups] = {}
        self._locks = KeyedLocks()
        self._files = SlackFiles(client, api_url=settings.slack_api_url)
        self._stream_ok = settings.slack_streaming in ("auto", "stream")

    async def run(
        self,
        body: dict[str, Any],
        context: dict[str, Any],
        trigger: str,
        queued: QueuedEvent | None = None,
    ) -> None:
        """Answer one message event (``trigger``: mention, dm or followup), in thread order."""
        delivery = self._delivery(body, context, trigger, queued)
        if delivery is None:
            return
        groups = await self._groups_of(delivery.message.workspace).of(delivery.message.user_id)
        delivery = replace(delivery, message=replace(delivery.message, groups=groups))
        async with self._locks.hold(delivery.message.thread_id):
            tid = delivery.message.thread_id
            if trigger == "followup" and not (
                self._handler.follows_up(delivery.message) and await self._handler.knows_thread(tid)
            ):
                return
            target = _target(delivery, queued)
            if queued is not None and queued.attempt > 1:
                if await answered_before(self._client, target):
                    logger.info("queued slack event was answered before; not again thread=%s", tid)
                    return
            await self._deliver(delivery, target, queued)

    async def edited(self, body: dict[str, Any], context: dict[str, Any]) -> None:
        """A person edited a message: kept, and answered again in place if it was the last question.

        The core decides (``answer_edit``); the bot's answer found in the thread is updated.

        Turns of the thread start in order (the same per-thread lock as ``run``): an edit that
        arrives while the answer is still being written waits for it, then replaces it.
        """
        bot_user_id = context.get("bot_user_id")
        change = edited_message(body, bot_user_id=bot_user_id)
        if change is None:
            return
        tid, before, after = change
        delivery = self._delivery(_as_it_reads(body), context, "edit", None)
        if delivery is None or delivery.message.thread_id != tid:
            await self._handler.message_edited(tid, before, after, platform="slack")
            return
        message = delivery.message
        groups = await self._groups_of(message.workspace).of(message.user_id)
        message = replace(message, event_id=None, groups=groups)
        if message.files:
            message = replace(message, file_source=self._files)
        async with self._locks.hold(tid):
            target = _target(delivery)
            answer = await answer_of(self._client, target, message.message_id, bot_user_id)
            if not answer:  # nothing of ours to replace: keep the new text only
                await self._handler.message_edited(tid, before, after, platform="slack")
                return
            reply = await self._handler.answer_edit(message, before)
            if reply is None:
                return
            if not reply.ok:  # refused or failed: the old answer stays, the asker is told
                await post_ephemeral(self._client, target, reply.text)
                return
            await replace_answer(
                self._client, target, answer, reply.text, self._settings.slack_message_chars
            )

    def _delivery(
        self,
        body: dict[str, Any],
        context: dict[str, Any],
        trigger: str,
        queued: QueuedEvent | None,
    ) -> Delivery | None:
        """The event as the core reads it; ``None`` for one the bot skips."""
        reason = skip_reason(
            body["event"],
            bot_user_id=context.get("bot_user_id"),
            bot_id=context.get("bot_id"),
            ignore_bots=self._settings.slack_ignore_bots,
        )
        if reason is not None:
            logger.debug("slack event skipped: %s", reason)
            return None
        try:
            delivery = to_delivery(body, bot_user_id=context.get("bot_user_id"), trigger=trigger)
        except InputRejected:
            logger.warning("slack event with unusable ids skipped")
            return None
        if queued is not None:  # the queue dedupes deliveries; every attempt is one audit run
            message = replace(
                delivery.message,
                event_id=None,
                run_id=queued.run_id,
                attempt=queued.attempt,
                withdrawn=queued.withdrawn,  # the workspace may uninstall while it runs
            )
            delivery = replace(delivery, message=message)
        return delivery

    def _groups_of(self, team: str) -> UserGroups:
        """The user groups of one workspace (each has its own; one in single-workspace mode)."""
        if team not in self._groups:
            self._groups[team] = UserGroups(self._client)
        return self._groups[team]

    async def _deliver(
        self, delivery: Delivery, target: Target, queued: QueuedEvent | None = None
    ) -> None:
        if delivery.message.files:  # fetched by the turn, with the bot token
            message = replace(delivery.message, file_source=self._files)
            delivery = replace(delivery, message=message)
        if delivery.command is not None:
            await self._interactions.in_thread(delivery, target)
            return
        await self._answer(delivery, target, queued)

    async def _answer(
        self, delivery: Delivery, target: Target, queued: QueuedEvent | None = None
    ) -> None:
        sink = LiveReply(
            self._client,
            target,
            mode=self._mode(),
            limit=self._settings.slack_message_chars,
            interval=self._settings.slack_update_interval_seconds,
            on_stream_unavailable=self._stream_unavailable,
        )
        if delivery.message.private and delivery.message.metadata.get("in_thread"):
            await self._assistant.set_status(target, "is thinking…")

            async def status(text: str) -> None:  # e.g. while tools run
                await self._assistant.set_status(target, text)

            delivery = replace(delivery, message=replace(delivery.message, status=status))
        elif sink.live:  # elsewhere the status is the message the answer then replaces
            delivery = replace(delivery, message=replace(delivery.message, status=sink.status))
        try:
            reply = await self._handler.handle(delivery.message, sink if sink.live else None)
        except Exception as exc:
            log_failure(logger, "turn failed in thread %s", exc, delivery.message.thread_id)
            await sink.finish(SORRY, streamed=False)
            return
        if reply is None:
            logger.debug("duplicate slack delivery dropped")
            return
        if reply.ephemeral:
            await post_ephemeral(self._client, target, reply.text)
            return
        if queued is not None and queued.still_mine is not None and not await queued.still_mine():
            # another worker took the entry while this one stalled: it gives the stored answer
            logger.warning("queued slack event taken over; its new worker answers it")
            return
        await sink.finish(reply.text, streamed=reply.streamed)

    def _mode(self) -> Mode:
        setting = self._settings.slack_streaming
        if setting == "off":
            return "off"
        return "stream" if self._stream_ok and setting != "update" else "update"

    def _stream_unavailable(self) -> None:
        if self._settings.slack_streaming == "auto":
            self._stream_ok = False


def _target(delivery: Delivery, queued: QueuedEvent | None = None) -> Target:
    message = delivery.message
    return Target(
        channel=message.channel,
        thread_ts=delivery.thread_ts,
        team=message.workspace,
        user=message.user_id,
        asked=mentioned_users(message.text),  # the bot's own mention is removed already
        event=queued.event_id if queued is not None else None,
    )


def _as_it_reads(body: dict[str, Any]) -> dict[str, Any]:
    """A ``message_changed`` envelope as the ``message`` event of the message as it reads now."""
    event = body.get("event") or {}
    now = {
        **(event.get("message") or {}),
        "type": "message",
        "channel": event.get("channel"),
        "channel_type": event.get("channel_type"),
    }
    return {**body, "event": now}
