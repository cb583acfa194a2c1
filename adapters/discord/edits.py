"""An edited message answered again: the bot's answer to it found and edited in place.

The core answers only the conversation's last user message again
(``MessageHandler.answer_edit``); its new answer replaces the old one with a message edit (a
long one continues in new messages after it, and parts of the old one a shorter new one does
not need are deleted). The answer is the bot's first message after the edited one in the
conversation (the thread the mention opened, or the channel or DM) and the bot's messages
right after it.
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
) -> list[discord.Message]:
    """The bot's answer to the edited message: its messages, in order (a long one is several).

    Empty when there is none or Discord cannot be asked: the edit is then kept without a new
    answer.
    """
    guild = int(inbound.workspace) if inbound.workspace.isdigit() else None
    where = client.get_partial_messageable(int(inbound.channel), guild_id=guild)
    after = discord.Object(int(inbound.message_id))
    parts: list[discord.Message] = []
    try:
        async for message in where.history(limit=_LOOKAHEAD, after=after, oldest_first=True):
            if message.author.id == bot_id:
                parts.append(message)
            elif parts:
                break  # someone wrote after the answer: it ends here
    except discord.HTTPException as exc:
        logger.warning("discord: answer to an edited message not found (HTTP %s)", exc.status)
        return []
    return parts


async def replace_answer(parts: Sequence[discord.Message], text: str, asked: Sequence[int]) -> None:
    """Show ``text`` in place of the answer whose messages are ``parts`` (``answer_of``).

    Its messages are edited in order; a longer answer continues in new messages after them,
    and the old answer's messages a shorter one does not need are deleted.
    """
    chunks = split_message(text) or [""]
    mentions = allowed_mentions(text, asked, reply=False)
    for message, chunk in zip(parts, chunks, strict=False):
        await message.edit(content=chunk, allowed_mentions=mentions)
    for chunk in chunks[len(parts) :]:
        await parts[0].channel.send(chunk, allowed_mentions=mentions)
    for message in parts[len(chunks) :]:
        try:
            await message.delete()
        except discord.HTTPException as exc:  # the new answer is shown; a stale part logged
            logger.warning("discord: part of an old answer not deleted (HTTP %s)", exc.status)
