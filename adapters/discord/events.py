"""Pure translation between Discord messages and the core: no network, no client state.

``MessageFacts`` is the part of a ``discord.Message`` the adapter decides on; ``facts_of`` reads
it from a real message, and everything else here works on facts and strings so it can be tested
without a gateway. Splitting and ``allowed_mentions`` shape what the bot posts back.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import discord

from bot.core.attachments import Attachment
from bot.core.types import InboundMessage, thread_id

DISCORD_LIMIT = 2000
"""Discord's limit on a message's ``content``, in characters."""

_USER_MENTION = re.compile(r"<@!?(\d{15,25})>")
_FENCE_LINE = re.compile(r"^[ \t]*```(.*)$", re.MULTILINE)
_MARKUP = re.compile(r"<[^>\n]{1,80}>")
_MAX_LANG = 20
# Room kept free in each chunk for closing a code block and reopening it in the next one.
_RESERVE = len("\n```") + len("```") + _MAX_LANG + 1 + 4
_ANSWERED_TYPES = (discord.MessageType.default, discord.MessageType.reply)


class Trigger(enum.Enum):
    """Why a message may be answered (or not)."""

    IGNORE = "ignore"
    CHANNEL_MENTION = "channel_mention"
    """A mention in a text channel: start a conversation (thread or inline reply)."""
    THREAD_MENTION = "thread_mention"
    THREAD_MESSAGE = "thread_message"
    """No mention, inside a thread: answered if the bot follows this thread."""
    DIRECT = "direct"


@dataclass(frozen=True, slots=True)
class MessageFacts:
    """What the adapter needs to know about one Discord message.

    Attributes:
        message_id: the message snowflake (also the id of a thread started from it).
        channel_id: where it was posted (a thread's own id inside a thread).
        guild_id: the server, ``None`` in a direct message.
        author_id: the author's user id.
        author_is_bot: whether the author is a bot or a webhook.
        answerable_type: a plain message or reply, not a system message.
        content: the raw text with Discord markup. Never logged.
        mention_ids: users in the message's resolved mention list.
        attachments: the number of attached files.
        files: the attached files, with their CDN URLs.
        in_thread: whether ``channel_id`` is a thread.
        thread_owner_id: who created that thread, when known.
        role_ids: the author's roles in the server (for the access rules).
        parent_id: the channel a thread belongs to, when ``in_thread``.
    """

    message_id: int
    channel_id: int
    guild_id: int | None
    author_id: int
    author_is_bot: bool
    answerable_type: bool
    content: str
    mention_ids: tuple[int, ...] = ()
    attachments: int = 0
    in_thread: bool = False
    thread_owner_id: int | None = None
    role_ids: tuple[int, ...] = ()
    parent_id: int | None = None
    files: tuple[Attachment, ...] = ()


def facts_of(message: discord.Message) -> MessageFacts:
    """Read the facts of a message delivered by discord.py."""
    channel: Any = message.channel
    in_thread = isinstance(channel, discord.Thread)
    return MessageFacts(
        message_id=message.id,
        channel_id=channel.id,
        guild_id=message.guild.id if message.guild else None,
        author_id=message.author.id,
        author_is_bot=bool(message.author.bot or message.webhook_id),
        answerable_type=message.type in _ANSWERED_TYPES,
        content=message.content,
        mention_ids=tuple(u.id for u in message.mentions),
        attachments=len(message.attachments),
        in_thread=in_thread,
        thread_owner_id=channel.owner_id if in_thread else None,
        role_ids=tuple(r.id for r in getattr(message.author, "roles", ())),
        parent_id=channel.parent_id if in_thread else None,
        files=tuple(attachment_of(a) for a in message.attachments),
    )


def attachment_of(attachment: discord.Attachment) -> Attachment:
    """A Discord attachment as the core sees it: its name, CDN URL and announced size."""
    return Attachment(name=attachment.filename, url=attachment.url, size=attachment.size)


def classify(facts: MessageFacts, bot_id: int, *, ignore_bots: bool) -> Trigger:
    """Decide whether a message is for the bot, and in what role.

    Edits never reach this function: the adapter listens to new messages only.
    """
    if facts.author_id == bot_id or not facts.answerable_type:
        return Trigger.IGNORE
    if facts.author_is_bot and ignore_bots:
        return Trigger.IGNORE
    if facts.guild_id is None:
        return Trigger.DIRECT
    mentioned = bot_id in facts.mention_ids
    if facts.in_thread:
        return Trigger.THREAD_MENTION if mentioned else Trigger.THREAD_MESSAGE
    return Trigger.CHANNEL_MENTION if mentioned else Trigger.IGNORE


def conversation_channel(facts: MessageFacts, trigger: Trigger, *, reply_mode: str) -> int:
    """The channel whose id names the conversation.

    A thread started from a message has the message's id, so the conversation id is known
    before the thread exists (and a redelivered message maps to the same thread).
    """
    if trigger is Trigger.CHANNEL_MENTION and reply_mode == "thread":
        return facts.message_id
    return facts.channel_id


def strip_bot_mention(text: str, bot_id: int) -> str:
    """Remove the mentions of the bot itself (``<@id>`` and ``<@!id>``) from a text."""
    cleaned = re.sub(rf"<@!?{bot_id}>", " ", text)
    return re.sub(r"[ \t]{2,}", " ", cleaned).strip()


def to_inbound(facts: MessageFacts, channel_id: int, bot_id: int) -> InboundMessage:
    """Translate a message into the core's ``InboundMessage``.

    The Discord message id is the dedupe key, so a message replayed after a RESUME is
    answered once, whichever replica sees it.
    """
    workspace = str(facts.guild_id) if facts.guild_id else "dm"
    parent = facts.parent_id if facts.in_thread else facts.channel_id
    return InboundMessage(
        thread_id=thread_id("discord", workspace, str(channel_id)),
        platform="discord",
        workspace=workspace,
        channel=str(channel_id),
        user_id=str(facts.author_id),
        message_id=str(facts.message_id),
        text=strip_bot_mention(facts.content, bot_id),
        event_id=str(facts.message_id),
        private=facts.guild_id is None,
        metadata={"in_thread": facts.in_thread, "attachments": facts.attachments},
        groups=frozenset(str(r) for r in facts.role_ids),
        parent_channel=str(parent) if parent is not None and parent != channel_id else "",
        files=facts.files,
    )


def thread_name(text: str, fallback: str) -> str:
    """A short thread title from the first words of a message (Discord allows 100)."""
    plain = " ".join(_MARKUP.sub(" ", text).split())
    if not plain:
        return fallback
    if len(plain) <= 60:
        return plain
    return plain[:60].rsplit(" ", 1)[0].rstrip(" ,.;:") + "…"


def allowed_mentions(answer: str, asked: Iterable[int], *, reply: bool) -> discord.AllowedMentions:
    """Who the answer may ping: only users the asker mentioned, never everyone or a role.

    The guardrail restores ``<@id>`` mentions from the user's own message so they render;
    a user the model names on its own still renders if the id is right, but is not pinged.

    Args:
        answer: the text about to be posted.
        asked: ids of the users mentioned in the message being answered (not the bot).
        reply: whether the post replies to the asker's message (which then pings them).
    """
    in_answer = {int(m) for m in _USER_MENTION.findall(answer)}
    users = [discord.Object(id=i) for i in sorted(in_answer & set(asked))]
    return discord.AllowedMentions(everyone=False, roles=False, users=users, replied_user=reply)


def split_message(text: str, limit: int = DISCORD_LIMIT) -> list[str]:
    """Split a text into posts of at most ``limit`` characters.

    Cuts prefer, in order: a blank line outside code, a line end outside code, any line end,
    a space, and a hard cut. A code block cut in two is closed at the end of one post and
    reopened, with the same language, at the start of the next.
    """
    if limit < 4 * _RESERVE:
        raise ValueError(f"limit {limit} is too small to split code blocks")
    budget = limit - _RESERVE
    chunks: list[str] = []
    reopen = ""
    rest = text.strip("\n")
    while rest.strip():
        end, start = (len(rest), len(rest)) if len(rest) <= budget else _cut(rest, budget, reopen)
        body = reopen + rest[:end].rstrip()
        rest = rest[start:].lstrip("\n")
        fence = _open_fence(body)
        reopen = ""
        if fence is not None:
            body += "\n```"
            rest, closed_here = _skip_closing_fence(rest)
            reopen = "" if closed_here else fence + "\n"
        chunks.append(body)
    return chunks


def _cut(text: str, budget: int, reopen: str) -> tuple[int, int]:
    """Where the next post ends (exclusive) and where the following one starts."""
    window = text[:budget]
    inside_at_start = bool(reopen)
    for sep, outside_only, floor in (
        ("\n\n", True, budget // 2),
        ("\n", True, budget // 2),
        ("\n", False, 1),
        (" ", False, budget // 2),
    ):
        pos = window.rfind(sep)
        while pos >= floor:
            if not outside_only or not _inside_fence(text, pos, inside_at_start):
                return pos, pos + len(sep)
            pos = window.rfind(sep, 0, pos)
    return budget, budget


def _inside_fence(text: str, pos: int, inside_at_start: bool) -> bool:
    toggles = sum(1 for m in _FENCE_LINE.finditer(text, 0, pos) if "```" not in m.group(1))
    return (toggles % 2 == 1) != inside_at_start


def _open_fence(body: str) -> str | None:
    """The opening fence (with its language) of a code block left open at the end of ``body``."""
    fence: str | None = None
    for match in _FENCE_LINE.finditer(body):
        rest = match.group(1)
        if "```" in rest:  # a one-line block such as ```x = 1```
            continue
        if fence is not None:
            fence = None
        else:
            words = rest.split()
            fence = "```" + (words[0][:_MAX_LANG] if words else "")
    return fence


def _skip_closing_fence(rest: str) -> tuple[str, bool]:
    """Drop a closing fence that starts the remainder: the previous post already closed it."""
    match = _FENCE_LINE.match(rest)
    if match is None or match.group(1).strip():
        return rest, False
    return rest[match.end() :].lstrip("\n"), True
