"""An edited message answered again: the bot's answer to it found and edited in place.

The core answers only the conversation's last user message again
(``MessageHandler.answer_edit``); its new answer replaces the old one with a message edit (a
long one continues in new messages after it). The answer is the bot's first message after
the edited one in the conversation (the thread the mention opened, or the channel or DM).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import discord

from adapters.discord.events import allowed_mentions, split_message
from bot.core.types import InboundMessage

logger = logging.getLogger(__name__)

_LOOKAHEAD = 50
"""Messages after the edited one searched for the bot's answer."""


async def answer_of(
    client: discord.Client, inbound: InboundMessage, bot_id: int
) -> discord.Message | None:
    """The bot's first message after the edited one in its conversation, if any.

    ``None`` when there is none or Discord cannot be asked: the edit is then kept without a
    new answer.
    """
    guild = int(inbound.workspace) if inbound.workspace.isdigit() else None
    where = client.get_partial_messageable(int(inbound.channel), guild_id=guild)
    after = discord.Object(int(inbound.message_id))
    try:
        async for message in where.history(limit=_LOOKAHEAD, after=after, oldest_first=True):
            if message.author.id == bot_id:
                return message
    except discord.HTTPException as exc:
        logger.warning("discord: answer to an edited message not found (HTTP %s)", exc.status)
    return None


async def replace_answer(answer: discord.Message, text: str, asked: Sequence[int]) -> None:
    """Show ``text`` in place of ``answer``; a long one continues in messages after it."""
    chunks = split_message(text) or [""]
    mentions = allowed_mentions(text, asked, reply=False)
    await answer.edit(content=chunks[0], allowed_mentions=mentions)
    for chunk in chunks[1:]:
        await answer.channel.send(chunk, allowed_mentions=mentions)
