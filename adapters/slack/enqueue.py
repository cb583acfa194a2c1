"""Slack message events onto the turn queue: which to queue, what to keep, and the ack.

One decision for both ways in: bolt's listener middleware (``Enqueuer.middleware``: Socket
Mode, and HTTP requests the lean path leaves to bolt) and the lean HTTP path
(``adapters.slack.endpoint``) both call ``Enqueuer.ack``, which queues what ``queueable`` says
the listeners would answer and returns the status to ack with: 200 (queued, or nothing to
answer) or 503 when Redis did not take it, so Slack delivers the event again.

The lean path takes an ``event_callback`` whose inner event is a ``message`` or
``app_mention`` (``lean_event``); of what bolt gives its listeners it needs only the bot's
identity (``Authorization``), which it gets from ``auth.test`` as bolt does.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from slack_bolt.response import BoltResponse

from adapters.slack.events import (
    deleted_message,
    edited_message,
    like_dm,
    skip_reason,
    team_of,
    to_delivery,
)
from adapters.slack.shapes import well_formed
from bot.config.settings import Settings
from bot.core.errors import InputRejected, StoreError
from bot.core.ports import TurnQueue

logger = logging.getLogger(__name__)

QUEUED_EVENT_TYPES = frozenset({"message", "app_mention"})
"""The inner event types whose listeners queue them (``SlackAdapter._register``)."""

RETRY_AFTER = {"Retry-After": "1"}
"""Headers of a 503 ack: Slack delivers the event again (to any replica)."""


@dataclass(frozen=True, slots=True)
class Authorization:
    """Who the bot is in its workspace (``auth.test``): what the listeners' ``context`` holds."""

    bot_user_id: str | None
    bot_id: str | None

    @property
    def context(self) -> dict[str, Any]:
        """As bolt's listener ``context`` gives them."""
        return {"bot_user_id": self.bot_user_id, "bot_id": self.bot_id}


def lean_event(body: dict[str, Any]) -> bool:
    """Whether a signed JSON body is an event the queue takes: the lean path acks it."""
    event = body.get("event")
    return (
        body.get("type") == "event_callback"
        and isinstance(event, dict)
        and event.get("type") in QUEUED_EVENT_TYPES
    )


class Enqueuer:
    """Puts the message events the listeners would answer on the turn queue (sealed).

    Args:
        queue: the turn queue.
        settings: ``VEILBOT_SLACK_*`` (follow-ups, bots).
    """

    def __init__(self, queue: TurnQueue, settings: Settings) -> None:
        self._queue, self._settings = queue, settings

    async def ack(
        self, body: dict[str, Any], context: dict[str, Any], raw: bytes | None = None
    ) -> int:
        """Queue the event if it is to be answered; the HTTP status to ack it with.

        ``raw``: the request's JSON bytes that ``body`` was parsed from (the lean path): the
        payload keeps them as they came instead of encoding ``body`` again.
        """
        found = queueable(body, context, self._settings, raw)
        if found is None:
            return 200
        thread, event_id, payload = found
        try:
            await self._queue.put("slack", event_id, thread, payload)
        except StoreError as exc:
            logger.error("slack event not queued, not acked (Slack retries): %s", exc)
            return 503
        return 200

    async def middleware(
        self, body: dict[str, Any], context: dict[str, Any], next_: Callable[[], Awaitable[None]]
    ) -> BoltResponse:
        """Listener middleware (queue on): queue the event, then ack it; never run the listener.

        A non-2xx when Redis did not take it: Slack sends the event again (to any replica).
        """
        del next_  # the listener runs later, in a queue worker
        with self._queue.acking():  # Socket Mode's acks too go before queued turns
            status = await self.ack(body, context)
        headers: dict[str, str | Sequence[str]] = dict(RETRY_AFTER) if status == 503 else {}
        return BoltResponse(status=status, body="", headers=headers)


def queueable(
    body: dict[str, Any], context: dict[str, Any], settings: Settings, raw: bytes | None = None
) -> tuple[Any, str, bytes] | None:
    """What to queue for a ``message``/``app_mention`` event: thread, dedupe id, payload.

    ``None`` for an event the listener would ignore (the bot's own messages among them). The
    trigger is decided here, as the listeners decide it; whether a follow-up's thread is
    known is checked by the worker, in the thread's order.
    """
    if not well_formed(body):  # Socket Mode bodies pass no gate
        logger.warning("slack event of an unexpected shape skipped")
        return None
    event = body.get("event") or {}
    bot_user_id = context.get("bot_user_id")
    if event.get("type") == "message" and event.get("subtype") == "message_deleted":
        deleted = deleted_message(body, bot_user_id=bot_user_id)
        if deleted is None:
            return None
        stamp = str(event.get("deleted_ts") or event.get("ts"))
        key = f"{team_of(body)}:{event.get('channel')}:{stamp}:deleted"
        return deleted[0], key, payload_of(body, context, "deleted", raw)
    if event.get("type") == "message" and event.get("subtype") == "message_changed":
        edited = edited_message(body, bot_user_id=bot_user_id)
        if edited is None:
            return None
        stamp = str((event.get("message") or {}).get("ts"))
        key = f"{team_of(body)}:{event.get('channel')}:{stamp}:edited:{event.get('ts')}"
        return edited[0], key, payload_of(body, context, "edited", raw)
    trigger = _trigger(event, bot_user_id, settings.slack_reply_to_followups)
    if trigger is None or skip_reason(
        event,
        bot_user_id=bot_user_id,
        bot_id=context.get("bot_id"),
        ignore_bots=settings.slack_ignore_bots,
    ):
        return None
    try:
        delivery = to_delivery(body, bot_user_id=bot_user_id, trigger=trigger)
    except InputRejected:
        logger.warning("slack event with unusable ids skipped")
        return None
    message = delivery.message
    assert message.event_id is not None  # noqa: S101  (to_delivery always sets it)
    return message.thread_id, message.event_id, payload_of(body, context, trigger, raw)


def _trigger(event: dict[str, Any], bot_user_id: str | None, followups: bool) -> str | None:
    if event.get("type") == "app_mention":
        return "mention"
    if like_dm(event):
        return "dm"
    if event.get("thread_ts") and followups and f"<@{bot_user_id}" not in str(event.get("text")):
        return "followup"
    return None


def payload_of(
    body: dict[str, Any], context: dict[str, Any], trigger: str, raw: bytes | None = None
) -> bytes:
    """The queued payload (``SlackAdapter._work_queued`` reads it back).

    With ``raw`` (the JSON ``body`` was parsed from) the body goes in as those bytes.
    """
    data: dict[str, Any] = {
        "trigger": trigger,
        "bot_user_id": context.get("bot_user_id"),
        "bot_id": context.get("bot_id"),
    }
    if raw is None:
        data["body"] = body
        return json.dumps(data, separators=(",", ":")).encode()
    head = json.dumps(data, separators=(",", ":")).encode()
    return head[:-1] + b',"body":' + raw + b"}"
