"""``/fork first_k:K | last_n:N``: a new Discord thread from this conversation's turns.

Who may fork: a conversation is forked from inside it, by someone who can use it there. The
fork is a new thread started from a message of the bot's in the same channel (a thread's
parent), with a link back, so the same people see it. A private thread is not forked (its
fork would be a thread more people can see), nor a DM (there is no channel to put it in).
"""

from __future__ import annotations

import logging

import discord

from bot.core.errors import InputRejected, VeilbotError
from bot.core.fork import FORK_USAGE, ForkSpan
from bot.core.ports import MessageHandler
from bot.core.types import thread_id

logger = logging.getLogger(__name__)

FORK_NOT_HERE = (
    "I can fork a conversation in a server channel or a public thread; not a DM or a private "
    "thread, whose fork more people could see."
)
FORK_FAILED = "I couldn't fork this conversation right now. Please try again in a minute."


async def fork(
    interaction: discord.Interaction,
    handler: MessageHandler,
    first_k: int | None,
    last_n: int | None,
) -> None:
    """Fork the conversation the command was used in; tell the caller privately."""
    await interaction.response.defer(ephemeral=True, thinking=True)
    await interaction.followup.send(
        await _fork(interaction, handler, first_k, last_n), ephemeral=True
    )


async def _fork(
    interaction: discord.Interaction,
    handler: MessageHandler,
    first_k: int | None,
    last_n: int | None,
) -> str:
    try:
        span = ForkSpan(first_k, last_n)
    except InputRejected as exc:
        return f"{exc}. {FORK_USAGE}"
    channel, guild = interaction.channel, interaction.guild_id
    if guild is None or channel is None or _private(channel):
        return FORK_NOT_HERE
    home = _home(interaction)
    if home is None:
        return FORK_NOT_HERE
    source = thread_id("discord", str(guild), str(interaction.channel_id))
    user = interaction.user.id
    try:
        opener = await home.send(
            f"<@{user}> forked <#{interaction.channel_id}> here, keeping {_kept(span)}.",
            allowed_mentions=discord.AllowedMentions.none(),
        )
        new = await opener.create_thread(name="Fork", auto_archive_duration=1440)
    except discord.HTTPException as exc:
        logger.warning("discord: fork thread not made (HTTP %s)", exc.status)
        return FORK_FAILED
    target = thread_id("discord", str(guild), str(new.id))
    try:
        made = await handler.fork(
            source, target, span, workspace=str(guild), channel=str(new.id), user_id=str(user)
        )
    except VeilbotError as exc:
        await _withdraw(opener, new)
        if isinstance(exc, InputRejected):
            return f"I couldn't fork this conversation: {exc}."
        logger.warning("fork failed source=%s (%s)", source, type(exc).__name__)
        return FORK_FAILED
    return f"Forked: {made.turns} turns are in <#{new.id}>. Talk to me there to go on."


def _private(channel: object) -> bool:
    private = discord.ChannelType.private_thread
    return isinstance(channel, discord.Thread) and channel.type is private


def _home(interaction: discord.Interaction) -> discord.abc.Messageable | None:
    """The channel the fork goes in: a thread's text channel, or the text channel itself."""
    channel = interaction.channel
    if isinstance(channel, discord.TextChannel):
        return channel
    if not isinstance(channel, discord.Thread):
        return None  # a forum, a voice channel's chat, ...
    if isinstance(channel.parent, discord.TextChannel):
        return channel.parent
    if channel.parent is not None:
        return None  # a forum post: its fork would be another post, not made here
    return interaction.client.get_partial_messageable(
        channel.parent_id, guild_id=interaction.guild_id
    )


def _kept(span: ForkSpan) -> str:
    if span.first_k is not None:
        return f"its first {span.first_k} turns"
    return f"its last {span.last_n} turns"


async def _withdraw(opener: discord.Message, new: discord.Thread) -> None:
    """Delete the thread and its opening message of a fork that failed."""
    for made in (new, opener):
        try:
            await made.delete()
        except discord.HTTPException as exc:
            logger.warning("discord: failed fork not deleted (HTTP %s)", exc.status)
