"""slack-sdk's ``AsyncInstallationStore`` on the audit database, tokens sealed at rest.

One row per (enterprise, team): an Enterprise Grid org-wide install is keyed by its
``enterprise_id`` with an empty team, a workspace install by its ``team_id``. The whole
installation (bot, user and refresh tokens, expiry) is serialised to JSON and sealed with
AES-GCM under a key derived from the vault key (``derive_install_key``), with the row's key as
associated data so a sealed blob copied to another team's row does not open. No column holds a
token, and nothing here logs one.
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from slack_sdk.oauth.installation_store import Bot, Installation
from slack_sdk.oauth.installation_store.async_installation_store import AsyncInstallationStore
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.audit.errors import DbErrors
from bot.audit.schema import slack_installations
from guardrails.vault.keys import derive_install_key
from guardrails.vault.sealing import AesGcmSealer

logger = logging.getLogger(__name__)


def _key(
    enterprise_id: str | None, team_id: str | None, is_enterprise_install: bool
) -> tuple[str, str]:
    """The row key: an org-wide install has no team."""
    return (enterprise_id or "", "" if is_enterprise_install else (team_id or ""))


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


class SqlInstallationStore(AsyncInstallationStore):
    """Installations in ``slack_installations`` of the audit database (SQLite or PostgreSQL).

    Args:
        engine: the started audit store's engine (``SqlAuditStore.engine``): the schema
            migration that creates the table has run.
        vault_key: the 32-byte vault master key; only a derived subkey is used.
    """

    def __init__(self, engine: AsyncEngine, vault_key: bytes) -> None:
        self._engine = engine
        self._sealer = AesGcmSealer(derive_install_key(vault_key))

    @property
    def logger(self) -> logging.Logger:
        """The module logger (slack-sdk's interface asks for one)."""
        return logger

    async def async_save(self, installation: Installation) -> None:
        """Store (or replace) the installation of its team or org."""
        enterprise, team = _key(
            installation.enterprise_id, installation.team_id, installation.is_enterprise_install
        )
        data = json.dumps(_plain(installation.to_dict_for_copying())).encode()
        row = {
            "enterprise_id": enterprise,
            "team_id": team,
            "is_enterprise_install": bool(installation.is_enterprise_install),
            "installed_at": datetime.now(UTC),
            "sealed": self._sealer.seal(_seal_name(enterprise, team), data),
        }
        where = (slack_installations.c.enterprise_id == enterprise) & (
            slack_installations.c.team_id == team
        )
        async with DbErrors("slack installation save"), self._engine.begin() as conn:
            await conn.execute(sa.delete(slack_installations).where(where))
            await conn.execute(sa.insert(slack_installations).values(**row))

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
        """Delete every row of the team, or of the org when ``team_id`` is empty."""
        where = slack_installations.c.enterprise_id == (enterprise_id or "")
        if team_id:
            where = where & (slack_installations.c.team_id == team_id)
        async with DbErrors("slack installation delete"), self._engine.begin() as conn:
            await conn.execute(sa.delete(slack_installations).where(where))

    async def teams(self) -> list[tuple[str, str]]:
        """Every installed (enterprise, team) key, ``""`` for none."""
        query = sa.select(slack_installations.c.enterprise_id, slack_installations.c.team_id)
        async with DbErrors("slack installation list"), self._engine.connect() as conn:
            return [(r[0], r[1]) for r in (await conn.execute(query)).all()]

    async def _load(
        self, enterprise_id: str | None, team_id: str | None, is_enterprise_install: bool
    ) -> Installation | None:
        keys = [_key(enterprise_id, team_id, is_enterprise_install)]
        if enterprise_id and not is_enterprise_install:
            keys.append((enterprise_id, ""))  # a Grid workspace served by the org-wide install
        async with DbErrors("slack installation read"), self._engine.connect() as conn:
            for enterprise, team in keys:
                query = sa.select(slack_installations.c.sealed).where(
                    (slack_installations.c.enterprise_id == enterprise)
                    & (slack_installations.c.team_id == team)
                )
                sealed = (await conn.execute(query)).scalar()
                if sealed is not None:
                    data = self._sealer.open(_seal_name(enterprise, team), bytes(sealed))
                    return Installation(**json.loads(data))
        return None
