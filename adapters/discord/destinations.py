"""Where an answer goes: a new thread from the message, the same channel or thread, or a reply.

``destination`` works from the live ``discord.Message``; ``rebuilt_destination`` from ids
alone over REST, for a queued message this process may never have seen. ``answered_before``
reads a destination back, so a worker that takes over an entry another began does not answer
twice.
"""

from __future__ import annotations

import logging

import discord

from adapters.discord.events import Trigger, thread_name
from adapters.discord.queued import QueuedMessage
from bot.core.types import InboundMessage

logger = logging.getLogger(__name__)

_THREAD_EXISTS = 160004  # Discord: "A thread has already been created for this message"
_HISTORY_LOOKBACK = 50
"""Messages after the asker's read back to see whether an earlier attempt answered it."""


async def destination(
    client: discord.Client,
    message: discord.Message,
    trigger: Trigger,
    inbound: InboundMessage,
    *,
    reply_mode: str,
) -> tuple[discord.abc.Messageable, discord.Message | None]:
    """Where to answer: a new thread, the same thread or DM, or a reply in the channel."""
    if trigger is not Trigger.CHANNEL_MENTION:
        return message.channel, None
    if reply_mode == "inline":
        return message.channel, message
    bot_name = client.user.name if client.user else "veilbot"
    name = thread_name(inbound.text, fallback=f"Chat with {bot_name}")
    try:
        return await message.create_thread(name=name, auto_archive_duration=1440), None
    except discord.HTTPException as exc:
        if exc.code == _THREAD_EXISTS:  # a redelivery: the thread is there already
            guild_id = message.guild.id if message.guild else None
            return client.get_partial_messageable(message.id, guild_id=guild_id), None
        logger.warning(
            "no thread for message %s (HTTP %s, code %s): replying inline",
            message.id,
            exc.status,
            exc.code,
        )
        return message.channel, message


async def rebuilt_destination(
    client: discord.Client,
    queued: QueuedMessage,
    trigger: Trigger,
    inbound: InboundMessage,
) -> tuple[discord.abc.Messageable, discord.PartialMessage | None]:
    """``destination`` from ids alone, over REST (this process may never have seen it)."""
    facts = queued.facts
    channel = client.get_partial_messageable(facts.channel_id, guild_id=facts.guild_id)
    asked = channel.get_partial_message(facts.message_id)
    if trigger is not Trigger.CHANNEL_MENTION or queued.mode == "inline":
        # A reply to the asker's message (not pinging them, but inline): how a later
        # attempt tells this answer from the answer to an earlier message posted after it.
        return channel, asked
    bot_name = client.user.name if client.user else "veilbot"
    name = thread_name(inbound.text, fallback=f"Chat with {bot_name}")
    try:
        await client.http.start_thread_with_message(
            facts.channel_id, facts.message_id, name=name, auto_archive_duration=1440
        )
    except discord.HTTPException as exc:
        if exc.code != _THREAD_EXISTS:  # exists: an earlier attempt made it
            logger.warning(
                "no thread for message %s (HTTP %s, code %s): replying inline",
                facts.message_id,
                exc.status,
                exc.code,
            )
            return channel, asked
    thread = client.get_partial_messageable(
        facts.message_id, guild_id=facts.guild_id, type=discord.ChannelType.public_thread
    )
    return thread, None


async def answered_before(
    target: discord.abc.Messageable,
    message_id: int,
    bot_id: int,
    reply_to: discord.Message | discord.PartialMessage | None,
) -> bool:
    """Whether the bot posted an answer to ``message_id`` in ``target`` already.

    Discord messages carry no metadata, so this reads the destination back: a message by the
    bot after the asker's (snowflakes grow with time), not a slash command's response, and,
    where answers reply to the asker (``reply_to``: every destination but a thread started
    from the message), one replying to that message: the
    answer to an earlier message of the thread may be posted after this one arrived. In a
    thread started from the message, this message's entry is the thread's first, so any
    bot message there answers it.
    """
    try:
        after = discord.Object(id=message_id)
        async for posted in target.history(limit=_HISTORY_LOOKBACK, after=after):
            if posted.author.id != bot_id or posted.interaction_metadata is not None:
                continue
            ref = posted.reference
            if reply_to is not None and (ref is None or ref.message_id != message_id):
                continue
            return True
    except discord.NotFound:  # no thread: nothing was posted in it
        return False
    return False
