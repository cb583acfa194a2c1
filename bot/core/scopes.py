"""Per-workspace and per-channel settings: the most specific scope that names a message wins.

A scope id is ``PLATFORM:WORKSPACE`` (a Slack team, a Discord guild) or
``PLATFORM:WORKSPACE:CHANNEL``; a Discord thread takes its channel's scope. The composition
root resolves each configured scope against the one above it (a channel's against its
workspace's, that against the global settings), so a lookup here is two dict reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.core.types import InboundMessage


@dataclass(frozen=True, slots=True)
class Scope:
    """The effective settings of one scope; ``None`` fields keep the service's own.

    Attributes:
        name: the scope id (for the audit), empty for the global settings.
        enabled: whether the bot answers there at all.
        system: the whole system prompt, or ``None`` for the global one.
        model: the provider's model id, or ``None`` for the configured one.
        max_tokens: the answer length limit, or ``None`` for the configured one.
    """

    name: str = ""
    enabled: bool = True
    system: str | None = None
    model: str | None = None
    max_tokens: int | None = None


@dataclass(frozen=True, slots=True)
class Scopes:
    """Resolved scopes by id; ``of`` finds a message's."""

    by_id: dict[str, Scope] = field(default_factory=dict)

    def of(self, message: InboundMessage) -> Scope:
        """The most specific scope of ``message``: its channel's, its workspace's, or none."""
        base = f"{message.platform}:{message.workspace}"
        for channel in (message.channel, message.parent_channel):
            if channel and (scope := self.by_id.get(f"{base}:{channel}")) is not None:
                return scope
        return self.by_id.get(base, _GLOBAL)


_GLOBAL = Scope()
