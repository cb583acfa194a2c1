"""Posting an answer in Discord: split under the limit, safe mentions, optional live edits."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Any

import discord

from adapters.discord.events import allowed_mentions, split_message

logger = logging.getLogger(__name__)

NO_MENTIONS = discord.AllowedMentions.none()


class ReplyPoster:
    """Posts one answer into a channel or thread; also a ``ReplySink`` for progressive edits.

    Every post and edit carries ``allowed_mentions``: never ``@everyone``, ``@here`` or roles,
    and only users the asker mentioned. Rate limits are discord.py's to handle; edits are spaced
    by ``edit_interval`` so a streamed answer stays well inside Discord's per-channel budget.

    Args:
        channel: where the answer goes.
        reply_to: the message to reply to (inline mode), or ``None``.
        asked: ids of users the asker mentioned; only they may be pinged.
        edit_interval: seconds between live edits; ``None`` disables progressive edits.
        nonce: sent with the answer's first post (``enforce_nonce``): Discord creates no
            second message with it for a few minutes (the asker's message id fits: unique).
        ping_reply: whether replying to ``reply_to`` pings its author.
    """

    def __init__(
        self,
        channel: discord.abc.Messageable,
        *,
        reply_to: discord.Message | discord.PartialMessage | None,
        asked: Sequence[int],
        edit_interval: float | None,
        nonce: str | None = None,
        ping_reply: bool = True,
    ) -> None:
        self._channel = channel
        self._nonce = nonce
        self._ping_reply = ping_reply
        self._reply_to = reply_to
        self._asked = tuple(asked)
        self._interval = edit_interval
        self._live: discord.Message | None = None
        self._shown = ""
        self._buffer = ""
        self._last_edit = 0.0

    @property
    def streaming(self) -> bool:
        """Whether deltas are shown as they come."""
        return self._interval is not None

    async def delta(self, text: str) -> None:
        """Show more of the answer, at most once per ``edit_interval``."""
        self._buffer += text
        if self._interval is None or not self._buffer.strip():
            return
        now = time.monotonic()
        if self._live is not None and now - self._last_edit < self._interval:
            return
        self._last_edit = now
        await self._show(split_message(self._buffer)[0])

    async def status(self, text: str) -> None:
        """Show a short status (tools running) while nothing of the answer shows yet.

        Without progressive edits too: the status is the message the answer's first part
        then replaces (``finish`` edits the live message).
        """
        if self._buffer.strip():
            return
        await self._show(f"_{text}_")

    async def finish(self, text: str) -> None:
        """Post the whole answer: the live message becomes the first part, the rest follow."""
        chunks = split_message(text)
        if not chunks:
            return
        first, *rest = chunks
        await self._show(first)
        for chunk in rest:
            await self._send(chunk, reference=None)

    async def _show(self, content: str) -> None:
        if content == self._shown:
            return
        if self._live is None:
            self._live = await self._send(content, reference=self._reply_to)
        else:
            mentions = allowed_mentions(content, self._asked, reply=False)
            self._live = await self._live.edit(content=content, allowed_mentions=mentions)
        self._shown = content

    async def _send(
        self, content: str, *, reference: discord.Message | discord.PartialMessage | None
    ) -> discord.Message:
        reply = reference is not None and self._ping_reply
        mentions = allowed_mentions(content, self._asked, reply=reply)
        once: dict[str, Any] = {} if self._nonce is None else {"nonce": self._nonce}
        self._nonce = None  # the first post only
        if reference is None:
            return await self._channel.send(content, allowed_mentions=mentions, **once)
        ref = reference.to_reference(fail_if_not_exists=False)
        return await self._channel.send(content, reference=ref, allowed_mentions=mentions, **once)
