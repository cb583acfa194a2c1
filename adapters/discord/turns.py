"""A Discord message worked in this process: read it, decide, run the turn, post the answer.

``Turns.read`` says whether and why a message matters; ``on_message``, ``on_delete`` and
``on_edit`` work a gateway event as it arrives (no queue, or Redis did not take it); the queue
worker (``adapters.discord.queueing``) uses ``follows``, ``answer`` and ``edited`` for what it
takes off the queue.
"""

from __future__ import annotations

import logging
from dataclasses import replace

import discord

from adapters.discord.destinations import destination
from adapters.discord.edits import answer_of, replace_answer
from adapters.discord.events import (
    MessageFacts,
    Trigger,
    classify,
    conversation_channel,
    facts_of,
    to_inbound,
)
from adapters.discord.replies import NO_MENTIONS, ReplyPoster
from adapters.downloads import DISCORD_FILE_HOSTS, HostedFiles
from bot.config.settings import Settings
from bot.core.ports import MessageHandler
from bot.core.types import InboundMessage

logger = logging.getLogger(__name__)


class Turns:
    """Turns of one Discord bot, worked in this process.

    Args:
        settings: the ``VEILBOT_DISCORD_*`` settings are read from here.
        handler: the guarded turn.
    """

    def __init__(self, settings: Settings, handler: MessageHandler) -> None:
        self._settings = settings
        self._handler = handler
        self._files = HostedFiles("discord", DISCORD_FILE_HOSTS, api_url=settings.discord_api_url)

    def read(
        self, client: discord.Client, message: discord.Message
    ) -> tuple[MessageFacts, Trigger, InboundMessage] | None:
        """A message as the bot reads it: its facts, why it matters, the turn's input.

        ``None`` for a message the bot ignores.
        """
        assert client.user is not None  # noqa: S101  (events arrive only after login)
        facts = facts_of(message)
        bot_id = client.user.id
        trigger = classify(facts, bot_id, ignore_bots=self._settings.discord_ignore_bots)
        if trigger is Trigger.IGNORE:
            return None
        mode = self._settings.discord_reply_mode
        inbound = to_inbound(facts, conversation_channel(facts, trigger, reply_mode=mode), bot_id)
        return facts, trigger, inbound

    async def on_message(self, client: discord.Client, message: discord.Message) -> None:
        """Answer a new message, if it is one the bot answers."""
        read = self.read(client, message)
        if read is None:
            return
        facts, trigger, inbound = read
        assert client.user is not None  # noqa: S101  (checked by read)
        bot_id = client.user.id
        if trigger is Trigger.THREAD_MESSAGE and not await self.follows(facts, inbound, bot_id):
            return
        if not self._handler.admits(inbound):  # refused: told privately, no thread opened
            await self.answer(client, inbound, facts, message.channel, None, bot_id)
            return
        mode = self._settings.discord_reply_mode
        target, reply_to = await destination(client, message, trigger, inbound, reply_mode=mode)
        await self.answer(client, inbound, facts, target, reply_to, bot_id)

    async def on_delete(self, client: discord.Client, message: discord.Message) -> None:
        """A deleted message the bot read: the core drops it, its answer and its data."""
        read = self.read(client, message)
        if read is None:
            return
        inbound = read[2]
        await self._handler.message_deleted(
            inbound.thread_id, inbound.text, platform="discord", parent=inbound.parent_channel
        )

    async def on_edit(self, client: discord.Client, before: str, after: discord.Message) -> None:
        """An edited message the bot read (``before``: its earlier text): the core swaps it."""
        read = self.read(client, after)
        if read is None:
            return
        facts, _, inbound = read
        assert client.user is not None  # noqa: S101  (checked by read)
        earlier = replace(facts, content=before)
        bot_id = client.user.id
        await self.edited(client, inbound, to_inbound(earlier, int(inbound.channel), bot_id).text)

    async def edited(self, client: discord.Client, inbound: InboundMessage, before: str) -> None:
        """A message now reads ``inbound.text`` instead of ``before``: kept, maybe answered again.

        The core answers it again if it was the conversation's last question; the bot's answer
        is then edited in place (pinging nobody: an edit notifies no one anyway).
        """
        assert client.user is not None  # noqa: S101  (a connected client)
        answer = await answer_of(client, inbound, client.user.id)
        if not answer:  # nothing of ours to replace: keep the new text only
            await self._handler.message_edited(
                inbound.thread_id,
                before,
                inbound.text,
                platform="discord",
                parent=inbound.parent_channel,
            )
            return
        if inbound.files:
            inbound = replace(inbound, file_source=self._files)
        reply = await self._handler.answer_edit(replace(inbound, event_id=None), before)
        if reply is None:
            return
        if not reply.ok:  # refused or failed: the old answer stays, the asker is told
            await _tell_privately(client, int(inbound.user_id), reply.text)
            return
        await replace_answer(answer, reply.text, ())

    async def follows(self, facts: MessageFacts, inbound: InboundMessage, bot_id: int) -> bool:
        """Whether the bot answers un-mentioned messages in this thread."""
        if not self._settings.discord_followups or not self._handler.follows_up(inbound):
            return False
        if facts.thread_owner_id == bot_id:
            return True
        return await self._handler.knows_thread(inbound.thread_id)

    async def answer(
        self,
        client: discord.Client,
        inbound: InboundMessage,
        facts: MessageFacts,
        target: discord.abc.Messageable,
        reply_to: discord.Message | discord.PartialMessage | None,
        bot_id: int,
        *,
        ping_reply: bool = True,
    ) -> None:
        """Run the turn with a typing indicator and post its reply."""
        if inbound.files:  # fetched by the turn from Discord's CDN
            inbound = replace(inbound, file_source=self._files)
        interval = self._settings.discord_edit_interval_seconds
        poster = ReplyPoster(
            target,
            reply_to=reply_to,
            asked=[i for i in facts.mention_ids if i != bot_id],
            edit_interval=interval if self._settings.discord_progressive_edits else None,
            nonce=inbound.message_id,
            ping_reply=ping_reply,
        )
        # a live message says which tools run until the answer replaces it
        inbound = replace(inbound, status=poster.status)
        async with target.typing():
            reply = await self._handler.handle(inbound, poster if poster.streaming else None)
        if reply is None:
            logger.info("message %s was already answered (redelivery)", inbound.message_id)
            return
        if reply.ephemeral:
            await _tell_privately(client, facts.author_id, reply.text)
            return
        await poster.finish(reply.text)


async def _tell_privately(client: discord.Client, user_id: int, text: str) -> None:
    """A direct message to one person (Discord has no ephemeral reply to a message)."""
    try:
        channel = await client.create_dm(discord.Object(user_id))
        await channel.send(text, allowed_mentions=NO_MENTIONS)
    except discord.HTTPException as exc:  # DMs closed: nothing else is private
        logger.info("private reply to a refused user not sent (HTTP %s)", exc.status)
