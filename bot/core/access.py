"""Who may use the bot: allow and deny lists of users, channels and groups, decided per turn.

An entry is an id as the platform shows it (``U024BE7LH``, ``C0123``, a Slack user group
``S0123``, a Discord user, channel or role snowflake), optionally qualified by platform and
workspace (``slack:T123:U024BE7LH``, ``discord:GUILD:ROLE``, ``discord:USER``). Deny lists win
over allow lists; an empty allow list allows everyone. Channel lists do not apply to direct
messages (``allow_dms`` does). The adapter resolves the author's groups (Slack user groups,
Discord roles); when it could not, and the rules name groups, the turn is refused (closed).
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.core.types import InboundMessage


@dataclass(frozen=True, slots=True)
class AccessRules:
    """The allow and deny lists; ``refusal`` decides one message."""

    allow_users: frozenset[str] = frozenset()
    deny_users: frozenset[str] = frozenset()
    allow_channels: frozenset[str] = frozenset()
    deny_channels: frozenset[str] = frozenset()
    allow_groups: frozenset[str] = frozenset()
    deny_groups: frozenset[str] = frozenset()
    allow_dms: bool = True

    @property
    def names_groups(self) -> bool:
        """Whether a decision needs the author's groups."""
        return bool(self.allow_groups or self.deny_groups)

    def refusal(self, message: InboundMessage) -> str | None:
        """Why ``message``'s author may not use the bot there, or ``None`` when they may.

        The reason is an id-free word for the audit: ``user``, ``group``, ``groups_unknown``,
        ``channel`` or ``dm``.
        """
        if _keys(message, message.user_id) & self.deny_users:
            return "user"
        if self.names_groups and message.groups is None:
            return "groups_unknown"
        groups = self._group_keys(message)
        if groups & self.deny_groups:
            return "group"
        place = self._place_refusal(message)
        if place is not None:
            return place
        if not (self.allow_users or self.allow_groups):
            return None
        if _keys(message, message.user_id) & self.allow_users or groups & self.allow_groups:
            return None
        return "user"

    def _place_refusal(self, message: InboundMessage) -> str | None:
        if message.private:
            return None if self.allow_dms else "dm"
        places = _keys(message, message.channel)
        if message.parent_channel:
            places |= _keys(message, message.parent_channel)
        if places & self.deny_channels:
            return "channel"
        if self.allow_channels and not places & self.allow_channels:
            return "channel"
        return None

    def _group_keys(self, message: InboundMessage) -> set[str]:
        keys: set[str] = set()
        for group in message.groups or ():
            keys |= _keys(message, group)
        return keys


def _keys(message: InboundMessage, ident: str) -> set[str]:
    """The ways an admin may write ``ident``: bare, with the platform, with the workspace."""
    platform, workspace = message.platform, message.workspace
    return {ident, f"{platform}:{ident}", f"{platform}:{workspace}:{ident}"}
