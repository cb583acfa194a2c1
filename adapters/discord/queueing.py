"""Discord messages through the turn queue: put on arrival, answered by any replica's worker.

With a ``TurnQueue`` (``veilbot run``; ``bot.state.queue``) a gateway message is put on the
queue (sealed) as soon as it arrives, as data (``QueuedMessage``: the message's facts, why it
matters, where the conversation lives), and any replica's worker answers it in the thread's
order: the destination (a new thread from the message, the same channel or thread, or an inline
reply) is rebuilt from ids over REST. Discord never redelivers a message, so a replica that dies
mid-turn must not take it along. Deletions go through the queue too, behind the turn they
withdraw. Answers reply to the asker's message (without pinging them), except in a thread
started from it. An entry another worker began and did not finish (``attempt > 1``) is answered
only if the destination holds no answer to the message yet (``answered_before``); the first post
of an answer also carries the message id as its ``nonce`` with ``enforce_nonce``, so Discord
itself refuses a second copy for a few minutes.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace

import discord

from adapters.discord.destinations import answered_before, rebuilt_destination
from adapters.discord.events import Trigger, to_inbound
from adapters.discord.queued import DELETED, EDITED, QueuedMessage
from adapters.discord.turns import Turns
from bot.config.settings import Settings
from bot.core.errors import StoreError
from bot.core.logsafe import log_failure
from bot.core.ports import MessageHandler, TurnQueue
from bot.core.types import QueuedEvent

logger = logging.getLogger(__name__)


class QueuedTurns:
    """Puts messages, deletions and edits on the turn queue, and works what comes off it.

    Args:
        queue: the turn queue (``work`` is its ``"discord"`` handler).
        settings: ``VEILBOT_DISCORD_REPLY_MODE`` is read from here.
        handler: the guarded turn.
        turns: reads messages and runs turns.
        client: waits for the logged-in client (REST is all the worker needs, no gateway).
    """

    def __init__(
        self,
        queue: TurnQueue,
        settings: Settings,
        handler: MessageHandler,
        turns: Turns,
        client: Callable[[], Awaitable[discord.Client]],
    ) -> None:
        self._queue = queue
        self._settings = settings
        self._handler = handler
        self._turns = turns
        self._client = client
        self._put_order = asyncio.Lock()
        """Puts in gateway order: discord.py runs each event in its own task (FIFO waiters)."""

    async def put(
        self,
        client: discord.Client,
        message: discord.Message,
        *,
        deleted: bool = False,
        previous: str | None = None,
    ) -> bool:
        """Queue a message, its deletion, or its edit (from ``previous``); done or not needed.

        ``False`` when Redis did not take it: the caller works it in this process.
        """
        read = self._turns.read(client, message)
        if read is None:
            return True
        facts, trigger, inbound = read
        assert client.user is not None  # noqa: S101  (checked by read)
        kind = DELETED if deleted else EDITED if previous is not None else trigger.value
        queued = QueuedMessage(
            facts,
            kind,
            int(inbound.channel),
            client.user.id,
            self._settings.discord_reply_mode,
            previous=previous,
        )
        event_id = _event_id(facts.message_id, message, kind, trigger)
        try:
            # No await before this lock: events take it in the order the gateway sent them.
            async with self._put_order:
                await self._queue.put("discord", event_id, inbound.thread_id, queued.to_bytes())
        except StoreError as exc:
            logger.error("discord message %s not queued, worked here: %s", message.id, exc)
            return False
        return True

    async def work(self, event: QueuedEvent) -> None:
        """The queue worker's handler: work one queued message as ``on_message`` would have."""
        try:
            queued = QueuedMessage.from_bytes(event.body)
        except ValueError:
            logger.error("queued discord message unreadable; dropped")
            return
        try:
            client = await self._client()
            await self._answer(client, queued, event)
        except Exception as exc:  # one bad entry must not stop the worker
            log_failure(logger, "queued discord message %s failed", exc, queued.facts.message_id)

    async def _answer(
        self, client: discord.Client, queued: QueuedMessage, event: QueuedEvent
    ) -> None:
        facts, bot_id = queued.facts, queued.bot_id
        inbound = to_inbound(facts, queued.channel, bot_id)
        if queued.trigger == DELETED:
            await self._handler.message_deleted(
                inbound.thread_id, inbound.text, platform="discord", parent=inbound.parent_channel
            )
            return
        if queued.trigger == EDITED:
            earlier = replace(facts, content=queued.previous or "")
            await self._turns.edited(
                client, inbound, to_inbound(earlier, queued.channel, bot_id).text
            )
            return
        # The queue dedupes deliveries; every attempt at an entry is one audit run.
        inbound = replace(inbound, event_id=None, run_id=event.run_id)
        trigger = Trigger(queued.trigger)
        if trigger is Trigger.THREAD_MESSAGE and not await self._turns.follows(
            facts, inbound, bot_id
        ):
            return
        if not self._handler.admits(inbound):  # refused: told privately, no thread opened
            where = client.get_partial_messageable(facts.channel_id, guild_id=facts.guild_id)
            await self._turns.answer(client, inbound, facts, where, None, bot_id)
            return
        target, reply_to = await rebuilt_destination(client, queued, trigger, inbound)
        if event.attempt > 1 and await answered_before(target, facts.message_id, bot_id, reply_to):
            logger.info("queued discord message %s was answered before; not again", event.event_id)
            return
        ping = trigger is Trigger.CHANNEL_MENTION  # inline mode pings the asker, as before
        await self._turns.answer(client, inbound, facts, target, reply_to, bot_id, ping_reply=ping)


def _event_id(message_id: int, message: discord.Message, kind: str, trigger: Trigger) -> str:
    """The queue's dedupe id: the message id, with the kind for a deletion or an edit."""
    event_id = str(message_id) if kind == trigger.value else f"{message_id}:{kind}"
    if kind == EDITED:  # every edit is its own event
        stamp = message.edited_at.timestamp() if message.edited_at else 0.0
        event_id += f":{stamp:.3f}"
    return event_id
