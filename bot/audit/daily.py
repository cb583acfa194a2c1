"""Per-day totals for charts, from summaries of closed periods where the database allows.

``daily_totals`` answers turns, cost and entity counts per UTC day (and status, entity type)
and cost per workspace. Aggregating a month of runs on every view costs seconds at a million
rows, so on PostgreSQL a *closed* period, a day or, within today, an hour that ended more
than ``GRACE`` ago, is aggregated once into ``audit_daily`` (by platform, workspace and
status; key ``YYYY-MM-DD`` or ``YYYY-MM-DDTHH``) and marked in ``audit_daily_done``; later
views sum those rows in SQL and aggregate from the runs only the last hour or two. SQLite
(the small, embedded default) always aggregates the runs.

A summary must never outlive a change to its period's runs. Everything that changes runs of
a closed period (a late record, a spool replay, an erasure, a purge) calls ``invalidate`` in
the same transaction, which takes an exclusive advisory lock and deletes the summary. A
summarizing transaction holds the same lock shared from its first statement to its commit,
so an invalidation either waits for it and then deletes what it wrote, or goes first and is
seen by it. Only filters the summary can answer (time, platform, workspace or a token's
workspaces, status) use it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from datetime import UTC, date, datetime, timedelta
from typing import Any, Protocol

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from bot.audit.errors import DbErrors
from bot.audit.periods import (
    GRACE,
    DailyRow,
    DayTotals,
    Period,
    closed_before,
    day_start,
    hour_floor,
    merge_spans,
    period_key,
    periods,
)
from bot.audit.schema import audit_daily, audit_daily_done, audit_runs
from bot.audit.types import RunFilter

_LOCK = 0x76656964  # advisory lock key shared by summarizers and invalidators
_SUMMARY_FIELDS = {"platform", "workspace", "workspaces", "status", "since", "until"}
_KEYS = ("platform", "workspace", "status")


async def invalidate(
    conn: AsyncConnection, keys: Iterable[str] | None, *, through: date | None = None
) -> None:
    """Forget summaries inside the caller's transaction, after its change to the runs.

    Args:
        conn: the caller's connection, in its transaction.
        keys: the period keys to forget; ``None`` (and no ``through``): every period.
        through: forget every period up to the end of this day instead (purges).
    """
    wanted = None if keys is None else sorted(set(keys))
    if wanted is not None and not wanted:
        return
    if conn.dialect.name == "postgresql":
        await conn.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": _LOCK})
    for table in (audit_daily_done, audit_daily):
        query = table.delete()
        if wanted is not None:
            query = query.where(table.c.day.in_(wanted))
        elif through is not None:  # 'YYYY-MM-DD' and 'YYYY-MM-DDTHH' both sort before the next day
            query = query.where(table.c.day < (through + timedelta(days=1)).isoformat())
        await conn.execute(query)


async def invalidate_closed(conn: AsyncConnection, started: Iterable[datetime]) -> None:
    """Forget the summaries of closed periods among ``started`` (late records, replays)."""
    now = datetime.now(UTC)
    first_open_day, first_open_hour = closed_before(now), hour_floor(now - GRACE)
    keys = set()
    for at in started:
        if at.astimezone(UTC).date() < first_open_day:
            keys.add(period_key(at, hour=False))
        elif hour_floor(at) < first_open_hour:
            keys.add(period_key(at, hour=True))
    if keys:
        await invalidate(conn, keys)


async def touched_hours(
    conn: AsyncConnection, clauses: list[sa.ColumnElement[bool]]
) -> list[datetime]:
    """The hours (UTC) that runs matching ``clauses`` started in, where summaries exist."""
    if conn.dialect.name != "postgresql":
        return []  # SQLite keeps no summaries
    hour = sa.func.date_trunc("hour", sa.func.timezone("UTC", audit_runs.c.started_at))
    found = (await conn.execute(sa.select(hour).where(*clauses).distinct())).scalars()
    return [h.replace(tzinfo=UTC) for h in found]


def _day(dialect: str) -> sa.ColumnElement[Any]:
    column = audit_runs.c.started_at
    if dialect == "postgresql":
        return sa.func.to_char(sa.func.timezone("UTC", column), "YYYY-MM-DD")
    return sa.func.substr(column, 1, 10)


def _entity_pairs(dialect: str) -> Any:
    if dialect == "postgresql":
        pairs = sa.func.jsonb_each_text(sa.cast(audit_runs.c.entity_counts, JSONB))
        return pairs.table_valued("key", "value").render_derived("ent")
    return sa.func.json_each(audit_runs.c.entity_counts).table_valued("key", "value").alias("ent")


async def _from_runs(
    conn: AsyncConnection, clauses: list[sa.ColumnElement[bool]]
) -> list[DailyRow]:
    dialect = conn.dialect.name
    day = _day(dialect).label("day")
    c = audit_runs.c
    group = (day, c.platform, c.workspace, c.status)
    totals = sa.select(
        *group, sa.func.count(), sa.func.coalesce(sa.func.sum(c.cost_usd), 0.0)
    ).where(*clauses)
    ent = _entity_pairs(dialect)
    amounts = (
        sa.select(*group, ent.c.key, sa.func.sum(sa.cast(ent.c.value, sa.Integer)))
        .select_from(audit_runs.join(ent, sa.true()))
        .where(*clauses)
        .group_by(*group, ent.c.key)
    )
    rows = (await conn.execute(totals.group_by(*group))).all()
    entities: dict[tuple[str, ...], dict[str, int]] = {}
    for d, platform, workspace, status, kind, n in await conn.execute(amounts):
        entities.setdefault((d, platform, workspace, status), {})[kind] = int(n)
    return [
        DailyRow(d, p, w, s, int(n), float(cost), entities.get((d, p, w, s), {}))
        for d, p, w, s, n, cost in rows
    ]


class DailyTotals(Protocol):
    """What the charts read."""

    async def daily_totals(
        self, run_filter: RunFilter, *, now: datetime | None = None
    ) -> DayTotals:
        """Totals per whole UTC day (and status, entity type) and per workspace."""
        ...


class DailyRollups:
    """``daily_totals`` for ``SqlAuditStore``; needs ``engine`` and ``_where`` from its host."""

    @property
    def engine(self) -> AsyncEngine:
        """The started engine (provided by ``SqlAuditStore``)."""
        raise NotImplementedError

    def _where(self, run_filter: RunFilter) -> list[sa.ColumnElement[bool]]:
        raise NotImplementedError

    async def daily_totals(
        self, run_filter: RunFilter, *, now: datetime | None = None
    ) -> DayTotals:
        """Totals per whole UTC day of ``run_filter`` (``since``/``until`` widen to whole days)."""
        now = now or datetime.now(UTC)
        since = run_filter.since.astimezone(UTC).date() if run_filter.since else None
        until = run_filter.until.astimezone(UTC) if run_filter.until else None
        last = (until - timedelta(microseconds=1)).date() if until else now.date()
        widened = dataclasses.replace(
            run_filter,
            since=day_start(since) if since else None,
            until=day_start(last + timedelta(days=1)),
        )
        totals = DayTotals()
        summarizable = set(widened.describe()) <= _SUMMARY_FIELDS
        if self.engine.dialect.name != "postgresql" or not summarizable or since is None:
            async with DbErrors("audit daily totals"), self.engine.connect() as conn:
                for row in await _from_runs(conn, self._where(widened)):
                    totals.add(row)
            return totals
        closed, tail = periods(since, last, now)
        summed = await self._done(closed)
        for period in [p for p in closed if p.key not in summed]:
            async with DbErrors("audit daily summary"), self.engine.begin() as conn:
                await self._summarize(conn, period)  # one per transaction: short statements
        async with DbErrors("audit daily totals"), self.engine.begin() as conn:
            await conn.execute(sa.text("SELECT pg_advisory_xact_lock_shared(:k)"), {"k": _LOCK})
            done = await self._done(closed, conn)
            await _add_summaries(conn, totals, widened, done)
            # Periods not summed (an invalidation just now) and the open rest: from the runs.
            spans = [(p.start, p.end) for p in closed if p.key not in done]
            for start, end in merge_spans([*spans, (tail, widened.until or tail)]):
                if start < end:
                    span = dataclasses.replace(widened, since=start, until=end)
                    for row in await _from_runs(conn, self._where(span)):
                        totals.add(row)
        return totals

    async def _done(self, closed: list[Period], conn: AsyncConnection | None = None) -> set[str]:
        """Which of the ``closed`` periods have a complete summary (their keys)."""
        if not closed:
            return set()
        query = sa.select(audit_daily_done.c.day).where(
            audit_daily_done.c.day.in_([p.key for p in closed])
        )
        if conn is None:
            async with DbErrors("audit daily done"), self.engine.connect() as own:
                return set((await own.execute(query)).scalars())
        return set((await conn.execute(query)).scalars())

    async def _summarize(self, conn: AsyncConnection, period: Period) -> None:
        """Sum one closed period into ``audit_daily`` (under the shared lock, in one txn)."""
        await conn.execute(sa.text("SELECT pg_advisory_xact_lock_shared(:k)"), {"k": _LOCK})
        rows = await _from_runs(conn, self._where(RunFilter(since=period.start, until=period.end)))
        if rows:
            values = [
                {
                    "day": period.key,
                    "platform": r.platform,
                    "workspace": r.workspace,
                    "status": r.status,
                    "turns": r.turns,
                    "cost_usd": r.cost_usd,
                    "entities": r.entities,
                }
                for r in rows
            ]
            # A concurrent summarizer of the same day wrote the same rows: keep theirs.
            await conn.execute(postgresql.insert(audit_daily).on_conflict_do_nothing(), values)
        mark = postgresql.insert(audit_daily_done).on_conflict_do_nothing()
        await conn.execute(mark, [{"day": period.key}])
        if len(period.key) == 10:  # a whole day now: its hours' summaries are superseded
            for table in (audit_daily_done, audit_daily):
                await conn.execute(table.delete().where(table.c.day.startswith(period.key + "T")))


async def _add_summaries(
    conn: AsyncConnection, totals: DayTotals, run_filter: RunFilter, keys: set[str]
) -> None:
    """Add the summaries under ``keys`` to ``totals``, summed per day in SQL."""
    if not keys:
        return
    c = audit_daily.c
    day = sa.func.substr(c.day, 1, 10)  # an hour's key starts with its day's
    where = [
        c.day.in_(sorted(keys)),
        *[c[k] == getattr(run_filter, k) for k in _KEYS if getattr(run_filter, k)],
    ]
    if run_filter.workspaces is not None:  # an admin token limited to workspaces
        where.append(c.workspace.in_(sorted(run_filter.workspaces)))
    per_status = sa.select(day, c.status, sa.func.sum(c.turns), sa.func.sum(c.cost_usd))
    for d, status, turns, cost in await conn.execute(
        per_status.where(*where).group_by(day, c.status)
    ):
        totals.turns[d] += int(turns)
        totals.cost_usd[d] += float(cost)
        totals.statuses[(d, status)] += int(turns)
    per_workspace = sa.select(c.workspace, sa.func.sum(c.cost_usd)).where(*where)
    for workspace, cost in await conn.execute(per_workspace.group_by(c.workspace)):
        totals.workspaces[workspace] += float(cost)
    ent = sa.func.jsonb_each_text(sa.cast(c.entities, JSONB)).table_valued("key", "value")
    ent = ent.render_derived("ent")
    per_kind = (
        sa.select(day, ent.c.key, sa.func.sum(sa.cast(ent.c.value, sa.Integer)))
        .select_from(audit_daily.join(ent, sa.true()))
        .where(*where)
        .group_by(day, ent.c.key)
    )
    for d, kind, n in await conn.execute(per_kind):
        totals.entities[(d, kind)] += int(n)
