"""A Discord message as the turn queue holds it: data, read back by any replica's worker."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

from adapters.discord.events import MessageFacts
from bot.core.attachments import Attachment

DELETED = "deleted"
"""The ``trigger`` of a queued deletion."""
EDITED = "edited"
"""The ``trigger`` of a queued edit."""


@dataclass(frozen=True, slots=True)
class QueuedMessage:
    """A Discord message as it rests in the turn queue: data, never a ``discord.Message``.

    Attributes:
        facts: what the adapter decides on (raw text inside: the queue seals it).
        trigger: why it matters, or ``"deleted"``/``"edited"`` for a deletion or an edit.
        channel: the conversation's channel id (names the thread the queue orders by).
        bot_id: the bot's user id when it arrived.
        mode: ``VEILBOT_DISCORD_REPLY_MODE`` when it arrived (the conversation id depends on it).
        previous: an edited message's earlier text (raw; the queue seals it).
    """

    facts: MessageFacts
    trigger: str
    channel: int
    bot_id: int
    mode: str
    previous: str | None = None

    def to_bytes(self) -> bytes:
        """The queue payload (JSON)."""
        data = {
            "facts": asdict(self.facts),
            "trigger": self.trigger,
            "channel": self.channel,
            "bot_id": self.bot_id,
            "mode": self.mode,
            "previous": self.previous,
        }
        return json.dumps(data, separators=(",", ":")).encode()

    @classmethod
    def from_bytes(cls, body: bytes) -> QueuedMessage:
        """Read a payload back.

        Raises:
            ValueError: not a payload ``to_bytes`` wrote.
        """
        try:
            data = json.loads(body)
            raw = dict(data["facts"])
            raw["mention_ids"] = tuple(int(i) for i in raw.get("mention_ids", ()))
            raw["role_ids"] = tuple(int(i) for i in raw.get("role_ids", ()))
            raw["files"] = tuple(Attachment(**f) for f in raw.get("files", ()))
            return cls(
                facts=MessageFacts(**raw),
                trigger=str(data["trigger"]),
                channel=int(data["channel"]),
                bot_id=int(data["bot_id"]),
                mode=str(data["mode"]),
                previous=None if data.get("previous") is None else str(data["previous"]),
            )
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError("not a queued Discord message") from exc
