"""Budget notices to Discord admins: a direct message to each admin user and role member.

Admins are ``discord:USER`` entries of ``VEILBOT_ADMIN_USERS`` and the members of the
``VEILBOT_ADMIN_DISCORD_ROLES`` roles in the budget's guild (as the admin commands count them);
each person gets one DM.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable

import discord

logger = logging.getLogger(__name__)


class DiscordAdminNotifier:
    """The ``AdminNotifier`` port on a discord.py client."""

    def __init__(
        self,
        client: Callable[[], discord.Client | None],
        admins: Iterable[str],
        roles: Iterable[str] = (),
    ) -> None:
        self._client = client
        self._users = sorted(
            int(a.split(":")[1]) for a in admins if a.startswith("discord:") and a.count(":") == 1
        )
        self._roles = sorted(int(r) for r in roles if r.isdigit())

    async def notify_admins(self, workspace: str, text: str) -> int:
        """DM ``text`` to the admins (users, and role members of guild ``workspace``)."""
        client = self._client()
        if client is None:
            return 0
        ids = set(self._users)
        guild = client.get_guild(int(workspace)) if workspace.isdigit() else None
        for role_id in self._roles:
            role = guild.get_role(role_id) if guild is not None else None
            ids |= {m.id for m in role.members} if role is not None else set()
        sent = 0
        for user_id in sorted(ids):
            try:
                channel = await client.create_dm(discord.Object(id=user_id))
                await channel.send(text)
            except discord.DiscordException as exc:
                logger.warning("admin notice failed user=%s: %s", user_id, type(exc).__name__)
                continue
            sent += 1
        return sent
