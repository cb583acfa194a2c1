"""Who takes part in a Discord conversation, as Discord tells it.

Asked before a conversation is erased (``AdminCommands.authorize_erase``): in a direct message
the requester is its one other party; in a thread they must be one of its members (Discord
adds whoever wrote in it; asked over REST); in a channel (inline reply mode) they must be
able to read its history and write in it (the member's permissions in that channel, which
Discord sends with the command).
"""

from __future__ import annotations

import logging

import discord

logger = logging.getLogger(__name__)


async def takes_part(interaction: discord.Interaction) -> bool:
    """Whether the command's user takes part in the conversation it was used in."""
    if interaction.guild_id is None:
        return True  # a DM with the bot: the conversation is theirs
    channel = interaction.channel
    if isinstance(channel, discord.Thread):
        try:
            await channel.fetch_member(interaction.user.id)
        except discord.NotFound:
            return False
        except discord.HTTPException as exc:
            logger.info("discord thread members unknown (HTTP %s): not a participant", exc.status)
            return False
        return True
    permissions = interaction.permissions
    return permissions.read_message_history and permissions.send_messages
