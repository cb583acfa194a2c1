"""Which Slack events become work: bolt's event listeners and the queue worker's handler.

A mention, a DM or a follow-up in a thread the bot is in becomes a turn (``Turns.run``); a
deleted message goes to the core, which withdraws it; an edited one is answered again in
place when it was the thread's last question (``Turns.edited``), else re-redacted. With a queue,
bolt's listener middleware (``Enqueuer.middleware``) puts message events on it instead, and
``work_queued`` answers each later, on any replica, as the listener would have. Every piece of
work is tracked, so shutdown can wait for it.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from slack_bolt.async_app import AsyncApp

from adapters.slack.assistant import AssistantView
from adapters.slack.enqueue import Enqueuer
from adapters.slack.events import deleted_message, edited_message, like_dm
from adapters.slack.oauth.serve import OAuthMode
from adapters.slack.oauth.teams import serving
from adapters.slack.replies import SLACK_ERRORS, _err
from adapters.slack.turns import Turns
from bot.config.settings import Settings
from bot.core.logsafe import log_failure
from bot.core.ports import MessageHandler
from bot.core.types import QueuedEvent

logger = logging.getLogger(__name__)


class Listeners:
    """The adapter's listeners; ``tasks`` holds the work in flight.

    Args:
        settings: ``VEILBOT_SLACK_REPLY_TO_FOLLOWUPS`` is read from here.
        handler: the core, told of deleted and edited messages.
        turns: answers mentions, DMs and follow-ups.
        assistant: suggests prompts in new assistant threads.
        oauth: OAuth mode (none: one workspace): a queued event takes its team's token.
    """

    def __init__(
        self,
        settings: Settings,
        handler: MessageHandler,
        turns: Turns,
        assistant: AssistantView,
        oauth: OAuthMode | None,
    ) -> None:
        self._settings = settings
        self._handler = handler
        self._turns = turns
        self._assistant = assistant
        self._oauth = oauth
        self.tasks: set[asyncio.Task[Any]] = set()

    def register(self, app: AsyncApp, enqueuer: Enqueuer | None) -> None:
        """Listen on ``app``; with an ``enqueuer``, message events are queued, not worked."""
        queued = [enqueuer.middleware] if enqueuer is not None else None
        app.event("app_mention", middleware=queued)(self._on_mention)
        app.event("message", middleware=queued)(self._on_message)
        app.event("assistant_thread_started")(self._on_assistant_started)
        app.event("assistant_thread_context_changed")(self._ignore)

    async def work_queued(self, event: QueuedEvent) -> None:
        """The queue worker's handler: answer one queued event, as the listener would have."""
        try:
            data = json.loads(event.body)
            body, trigger = data["body"], str(data["trigger"])
        except (ValueError, KeyError, TypeError):
            logger.error("queued slack event unreadable; dropped")
            return
        context = {"bot_user_id": data.get("bot_user_id"), "bot_id": data.get("bot_id")}
        token = None
        if self._oauth is not None:  # the team's token now: it may have rotated or gone
            found = await self._oauth.teams.find(body)
            if found is None:
                logger.warning("queued slack event of a workspace not installed; dropped")
                return
            token = found.bot_token
        with serving(token):
            if trigger in ("deleted", "edited"):
                await self._on_change(body, context)
                return
            await self._track(self._turns.run(body, context, trigger, queued=event))

    async def _on_change(self, body: dict[str, Any], context: dict[str, Any]) -> bool:
        """A person deleted or edited a message: the core withdraws or re-redacts it."""
        bot_user_id = context.get("bot_user_id")
        if (deleted := deleted_message(body, bot_user_id=bot_user_id)) is not None:
            tid, text = deleted
            await self._track(self._handler.message_deleted(tid, text, platform="slack"))
            return True
        if edited_message(body, bot_user_id=bot_user_id) is not None:
            await self._track(self._turns.edited(body, context))
            return True
        return False

    async def _on_mention(self, body: dict[str, Any], context: dict[str, Any]) -> None:
        await self._track(self._turns.run(body, context, "mention"))

    async def _on_message(self, body: dict[str, Any], context: dict[str, Any]) -> None:
        event = body.get("event") or {}
        if await self._on_change(body, context):
            return
        if like_dm(event):
            await self._track(self._turns.run(body, context, "dm"))
        elif event.get("thread_ts") and self._settings.slack_reply_to_followups:
            if f"<@{context.get('bot_user_id')}" not in str(event.get("text", "")):
                await self._track(self._turns.run(body, context, "followup"))

    async def _on_assistant_started(self, body: dict[str, Any]) -> None:
        work = self._assistant.thread_started(body)
        if work is not None:
            await self._track(work)

    async def _ignore(self) -> None:
        return None

    async def _track(self, work: Any) -> None:
        """Run one unit of work as a tracked task, so shutdown can wait for it."""
        task = asyncio.current_task()
        if task is not None:
            self.tasks.add(task)
        try:
            await work
        except SLACK_ERRORS as exc:
            logger.warning("slack call failed: %s", _err(exc))
        except Exception as exc:  # one bad event must not stop the app
            log_failure(logger, "slack event handling failed", exc)
        finally:
            if task is not None:
                self.tasks.discard(task)
