"""The admin action log: every view, export and erasure an admin makes, by whom and when.

``AdminActionLog`` is mixed into ``SqlAuditStore`` (table ``admin_actions``, migration step
4). An action holds ids only: the actor is a token id (never the token), the target a run or
thread id, the filter ``RunFilter.describe()``, the outcome counts. Nothing in it is prompt or
answer text, so the log can be shown and exported like the audit log itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal, Protocol

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.audit.errors import DbErrors
from bot.audit.schema import admin_actions
from bot.audit.types import check_limit

ActionKind = Literal[
    "sign_in",
    "sign_in_failed",
    "sign_out",
    "view_runs",
    "view_run",
    "view_thread",
    "view_stats",
    "view_activity",
    "erase_preview",
    "export",
    "erase_user",
    "erase_thread",
    "budget_limit",
    "view_budgets",
    "erase_workspace",
    "purge_workspace",
]


@dataclass(frozen=True, slots=True)
class AdminAction:
    """One admin action.

    Attributes:
        actor: who: the id of the admin token (``tok:`` + 12 hex digits of its hash).
        action: what kind of action.
        target: the run, thread or user id acted on, if one.
        filter: the run filter in force (``RunFilter.describe()``: ids and instants).
        outcome: counts (rows exported, runs deleted, ...).
        at: when (UTC).
    """

    actor: str
    action: ActionKind
    target: str | None = None
    filter: dict[str, Any] = field(default_factory=dict)
    outcome: dict[str, Any] = field(default_factory=dict)
    at: datetime = field(default_factory=lambda: datetime.now(UTC))


class ActionLog(Protocol):
    """Where admin actions are recorded and read back."""

    async def record_action(self, action: AdminAction) -> None:
        """Append one action."""
        ...

    async def recent_actions(self, *, limit: int = 100) -> list[AdminAction]:
        """The newest actions first."""
        ...


class AdminActionLog:
    """``ActionLog`` on the audit database; needs ``engine`` from its host class."""

    @property
    def engine(self) -> AsyncEngine:
        """The started engine (provided by ``SqlAuditStore``)."""
        raise NotImplementedError

    async def record_action(self, action: AdminAction) -> None:
        """Append one action.

        Raises:
            StoreError: the database refused it (the caller fails closed: no record, no action).
        """
        values = {
            "at": action.at,
            "actor": action.actor,
            "action": action.action,
            "target": action.target,
            "filter": action.filter,
            "outcome": action.outcome,
        }
        async with DbErrors("admin action"), self.engine.begin() as conn:
            await conn.execute(admin_actions.insert().values(**values))

    async def latest_by_target(self, action: ActionKind, before: datetime) -> dict[str, datetime]:
        """Each target's newest ``action`` before ``before``: target -> when."""
        c = admin_actions.c
        query = (
            sa.select(c.target, sa.func.max(c.at))
            .where(c.action == action, c.at < before, c.target.is_not(None))
            .group_by(c.target)
        )
        async with DbErrors("admin actions"), self.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return {str(r[0]): _utc(r[1]) for r in rows}

    async def recent_actions(self, *, limit: int = 100) -> list[AdminAction]:
        """The newest actions first (at most ``limit``)."""
        c = admin_actions.c
        query = sa.select(admin_actions).order_by(c.at.desc(), c.id.desc())
        async with DbErrors("admin actions"), self.engine.connect() as conn:
            rows = (await conn.execute(query.limit(check_limit(limit)))).all()
        return [
            AdminAction(
                actor=r.actor,
                action=r.action,
                target=r.target,
                filter=dict(r.filter),
                outcome=dict(r.outcome),
                at=r.at,
            )
            for r in rows
        ]


def _utc(value: datetime | str) -> datetime:
    """An aggregate's instant: SQLite hands ``max()`` back as text, without the column type."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)
