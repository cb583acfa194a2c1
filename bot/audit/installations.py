"""Platform installations (Slack OAuth, issue 29) in the audit database, as sealed blobs.

One row per (enterprise, team) in ``slack_installations``; ``""`` stands for none. This module
stores opaque bytes only: the adapter seals an installation (tokens included) before it gets
here, so no column ever holds a token in clear.
"""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.audit.errors import DbErrors
from bot.audit.schema import slack_installations as table


class SqlInstallationRows:
    """Sealed installation rows.

    Args:
        engine: the started audit store's engine (the migration that makes the table has run).
    """

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    @staticmethod
    def _where(enterprise: str, team: str) -> sa.ColumnElement[bool]:
        return (table.c.enterprise_id == enterprise) & (table.c.team_id == team)

    async def put(self, enterprise: str, team: str, is_org: bool, sealed: bytes) -> None:
        """Store (or replace) the sealed installation of a team, or of an org (``team=""``)."""
        row = {
            "enterprise_id": enterprise,
            "team_id": team,
            "is_enterprise_install": is_org,
            "installed_at": datetime.now(UTC),
            "sealed": sealed,
        }
        async with DbErrors("installation save"), self._engine.begin() as conn:
            await conn.execute(sa.delete(table).where(self._where(enterprise, team)))
            await conn.execute(sa.insert(table).values(**row))

    async def get(self, enterprise: str, team: str) -> bytes | None:
        """The sealed installation, or ``None``."""
        query = sa.select(table.c.sealed).where(self._where(enterprise, team))
        async with DbErrors("installation read"), self._engine.connect() as conn:
            found = (await conn.execute(query)).scalar()
        return None if found is None else bytes(found)

    async def replace(self, enterprise: str, team: str, old: bytes, new: bytes) -> bool:
        """Put ``new`` in place of ``old`` (key rotation); ``False`` if the row changed meanwhile.

        A row saved again (a new install) or deleted (an uninstall) since ``old`` was read is
        left as it is.
        """
        query = (
            sa.update(table)
            .where(self._where(enterprise, team) & (table.c.sealed == old))
            .values(sealed=new)
        )
        async with DbErrors("installation reseal"), self._engine.begin() as conn:
            return bool((await conn.execute(query)).rowcount)

    async def delete(self, enterprise: str, team: str | None) -> int:
        """Delete a team's row, or every row of an org when ``team`` is ``None``."""
        where = table.c.enterprise_id == enterprise
        if team is not None:
            where = where & (table.c.team_id == team)
        async with DbErrors("installation delete"), self._engine.begin() as conn:
            return int((await conn.execute(sa.delete(table).where(where))).rowcount or 0)

    async def teams(self) -> list[tuple[str, str]]:
        """Every installed (enterprise, team) key."""
        query = sa.select(table.c.enterprise_id, table.c.team_id).order_by(
            table.c.enterprise_id, table.c.team_id
        )
        async with DbErrors("installation list"), self._engine.connect() as conn:
            return [(r[0], r[1]) for r in (await conn.execute(query)).all()]
