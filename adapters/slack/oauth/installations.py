"""slack-sdk's ``AsyncInstallationStore`` on sealed rows: no token at rest in clear.

One installation per (enterprise, team): an Enterprise Grid org-wide install is keyed by its
``enterprise_id`` with an empty team, a workspace install by its ``team_id``. The whole
installation (bot, user and refresh tokens, expiry) is serialised to JSON and sealed (the root
passes an AES-GCM sealer keyed by ``derive_install_key`` of the vault key) with the row's key as
the name, so a blob copied to another team's row does not open. Nothing here logs a token.
"""

from __future__ import annotations

import json
import logging
from datetime import datetime
from typing import Any, Protocol

from slack_sdk.oauth.installation_store import Bot, Installation
from slack_sdk.oauth.installation_store.async_installation_store import AsyncInstallationStore

from bot.core.errors import ConfigError, StoreError
from bot.core.ports import Sealer

logger = logging.getLogger(__name__)


class InstallationRows(Protocol):
    """Where sealed installations rest (``bot.audit.installations.SqlInstallationRows``)."""

    async def put(self, enterprise: str, team: str, is_org: bool, sealed: bytes) -> None:
        """Store (or replace) one sealed installation."""
        ...

    async def get(self, enterprise: str, team: str) -> bytes | None:
        """One sealed installation, or ``None``."""
        ...

    async def delete(self, enterprise: str, team: str | None) -> int:
        """Delete a team's row, or every row of the org when ``team`` is ``None``."""
        ...

    async def teams(self) -> list[tuple[str, str]]:
        """Every (enterprise, team) key."""
        ...

    async def replace(self, enterprise: str, team: str, old: bytes, new: bytes) -> bool:
        """Put ``new`` in place of ``old``; ``False`` if the row changed since it was read."""
        ...


def _key(enterprise_id: str | None, team_id: str | None, is_org: bool) -> tuple[str, str]:
    """The row key: an org-wide install has no team."""
    return (enterprise_id or "", "" if is_org else (team_id or ""))


def _seal_name(enterprise: str, team: str) -> str:
    return f"slack-installation:{enterprise}:{team}"


def _plain(values: dict[str, Any]) -> dict[str, Any]:
    """JSON-ready: datetimes as epoch seconds, which ``Installation`` accepts back."""
    out: dict[str, Any] = {}
    for name, value in values.items():
        if isinstance(value, datetime):
            value = value.timestamp() if name == "installed_at" else int(value.timestamp())
        out[name] = value
    return out


class SealedInstallationStore(AsyncInstallationStore):
    """Installations sealed in ``rows``.

    Args:
        rows: the sealed rows (the audit database).
        sealer: seals and opens them (a key derived from the vault key, never the raw key).
    """

    def __init__(self, rows: InstallationRows, sealer: Sealer) -> None:
        self._rows, self._sealer = rows, sealer

    @property
    def logger(self) -> logging.Logger:
        """The module logger (slack-sdk's interface asks for one)."""
        return logger

    async def async_save(self, installation: Installation) -> None:
        """Store (or replace) the installation of its team or org."""
        is_org = bool(installation.is_enterprise_install)
        enterprise, team = _key(installation.enterprise_id, installation.team_id, is_org)
        data = json.dumps(_plain(installation.to_dict_for_copying())).encode()
        sealed = self._sealer.seal(_seal_name(enterprise, team), data)
        await self._rows.put(enterprise, team, is_org, sealed)

    async def async_save_bot(self, bot: Bot) -> None:
        """Bots are saved with their installation (``async_save``); nothing more to keep."""

    async def async_find_installation(
        self,
        *,
        enterprise_id: str | None,
        team_id: str | None,
        user_id: str | None = None,
        is_enterprise_install: bool | None = False,
    ) -> Installation | None:
        """The installation of a team (or org), or ``None``; user tokens only for the installer."""
        found = await self._load(enterprise_id, team_id, bool(is_enterprise_install))
        if found is None or (user_id is not None and found.user_id != user_id):
            return None
        return found

    async def async_find_bot(
        self,
        *,
        enterprise_id: str | None,
        team_id: str | None,
        is_enterprise_install: bool | None = False,
    ) -> Bot | None:
        """The bot of a team (or org), or ``None``."""
        found = await self._load(enterprise_id, team_id, bool(is_enterprise_install))
        return None if found is None or not found.bot_token else found.to_bot()

    async def async_delete_bot(self, *, enterprise_id: str | None, team_id: str | None) -> None:
        """Delete the team's installation (the bot token lives in it)."""
        await self.async_delete_all(enterprise_id=enterprise_id, team_id=team_id)

    async def async_delete_installation(
        self, *, enterprise_id: str | None, team_id: str | None, user_id: str | None = None
    ) -> None:
        """Delete the team's installation (one per team: its user token goes with it)."""
        await self.async_delete_all(enterprise_id=enterprise_id, team_id=team_id)

    async def async_delete_all(self, *, enterprise_id: str | None, team_id: str | None) -> None:
        """Delete the team's installation, or every one of the org when ``team_id`` is empty."""
        await self._rows.delete(enterprise_id or "", team_id or None)

    async def teams(self) -> list[tuple[str, str]]:
        """Every installed (enterprise, team) key, ``""`` for none."""
        return await self._rows.teams()

    async def check_opens(self) -> None:
        """Open one installation: a key ring that opens none is refused before serving.

        Raises:
            ConfigError: no configured key opens it; the message says which key sealed it.
        """
        for enterprise, team in (await self._rows.teams())[:1]:
            sealed = await self._rows.get(enterprise, team)
            if sealed is None:
                continue
            try:
                self._sealer.open(_seal_name(enterprise, team), sealed)
            except StoreError as exc:
                raise ConfigError(
                    f"the Slack installations in the database do not open: {exc}. Set "
                    "VEILBOT_VAULT_KEY to the key that sealed them, or put that key in "
                    "VEILBOT_VAULT_PREVIOUS_KEYS while you rotate (docs/operations.md)"
                ) from None

    async def reseal(self) -> tuple[int, int]:
        """Seal every installation again with the current key (key rotation).

        Returns:
            How many were sealed again, and how many no configured key opens (left as they
            are); an installation saved or deleted meanwhile is left to its new state.
        """
        resealed = unreadable = 0
        for enterprise, team in await self._rows.teams():
            sealed = await self._rows.get(enterprise, team)
            if sealed is None:
                continue
            try:
                again = self._sealer.reseal(_seal_name(enterprise, team), sealed)
            except StoreError:
                unreadable += 1
                continue
            if again is not None and await self._rows.replace(enterprise, team, sealed, again):
                resealed += 1
        return resealed, unreadable

    async def _load(
        self, enterprise_id: str | None, team_id: str | None, is_org: bool
    ) -> Installation | None:
        keys = [_key(enterprise_id, team_id, is_org)]
        if enterprise_id and not is_org:
            keys.append((enterprise_id, ""))  # a Grid workspace served by the org-wide install
        for enterprise, team in keys:
            sealed = await self._rows.get(enterprise, team)
            if sealed is not None:
                data = self._sealer.open(_seal_name(enterprise, team), sealed)
                return Installation(**json.loads(data))
        return None
