"""Per-day totals for charts, from summaries of closed days where the database allows.

``daily_totals`` answers turns, cost and entity counts per UTC day, platform, workspace and
status. Aggregating a month of runs on every view costs seconds at a million rows, so on
PostgreSQL a *closed* day (ended more than ``GRACE`` ago) is aggregated once into
``audit_daily`` and marked in ``audit_daily_done``; later views read those few rows and
aggregate only the open days from the runs. SQLite (the small, embedded default) always
aggregates the runs.

A summary must never outlive a change to its day's runs. Everything that changes runs of a
closed day (a late record, a spool replay, an erasure, a purge) calls ``invalidate`` in the
same transaction, which takes an exclusive advisory lock and deletes the day's summary. A
summarizing transaction holds the same lock shared from its first statement to its commit,
so an invalidation either waits for it and then deletes what it wrote, or goes first and is
seen by it. Only filters the summary can answer (time, platform, workspace, status) use it.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, Protocol

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from bot.audit.errors import DbErrors
from bot.audit.schema import audit_daily, audit_daily_done, audit_runs
from bot.audit.types import RunFilter

GRACE = timedelta(hours=1)
"""How long after midnight UTC a day's runs may still arrive (turns in flight, clock skew)."""
_LOCK = 0x76656964  # advisory lock key shared by summarizers and invalidators
_SUMMARY_FIELDS = {"platform", "workspace", "status", "since", "until"}
_KEYS = ("platform", "workspace", "status")


@dataclass(frozen=True, slots=True)
class DailyRow:
    """Totals of one UTC day, platform, workspace and status."""

    day: str
    platform: str
    workspace: str
    status: str
    turns: int
    cost_usd: float
    entities: dict[str, int] = field(default_factory=dict)


@dataclass
class DayTotals:
    """What the charts draw: per day, per day and status or entity type, cost per workspace."""

    turns: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    cost_usd: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    statuses: dict[tuple[str, str], int] = field(default_factory=lambda: defaultdict(int))
    entities: dict[tuple[str, str], int] = field(default_factory=lambda: defaultdict(int))
    workspaces: dict[str, float] = field(default_factory=lambda: defaultdict(float))

    def add(self, row: DailyRow) -> None:
        """Count one row of day totals in."""
        self.turns[row.day] += row.turns
        self.cost_usd[row.day] += row.cost_usd
        self.statuses[(row.day, row.status)] += row.turns
        self.workspaces[row.workspace] += row.cost_usd
        for kind, n in row.entities.items():
            self.entities[(row.day, kind)] += n


def closed_before(now: datetime) -> date:
    """The first day that is not closed yet at ``now`` (every earlier day is)."""
    return (now.astimezone(UTC) - GRACE).date()


def day_start(day: date) -> datetime:
    """Midnight UTC at the start of ``day``."""
    return datetime.combine(day, time(0), tzinfo=UTC)


async def invalidate(
    conn: AsyncConnection, days: Iterable[date] | None, *, through: date | None = None
) -> None:
    """Forget day summaries inside the caller's transaction, after its change to the runs.

    Args:
        conn: the caller's connection, in its transaction.
        days: the days to forget; ``None`` (and no ``through``): every day.
        through: forget this day and every earlier one instead (purges).
    """
    keys = None if days is None else sorted({d.isoformat() for d in days})
    if keys is not None and not keys:
        return
    if conn.dialect.name == "postgresql":
        await conn.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": _LOCK})
    for table in (audit_daily_done, audit_daily):
        query = table.delete()
        if keys is not None:
            query = query.where(table.c.day.in_(keys))
        elif through is not None:
            query = query.where(table.c.day <= through.isoformat())
        await conn.execute(query)


async def invalidate_closed(conn: AsyncConnection, started: Iterable[datetime]) -> None:
    """Forget the summaries of the closed days among ``started`` (late records, replays)."""
    first_open = closed_before(datetime.now(UTC))
    days = {s.astimezone(UTC).date() for s in started}
    await invalidate(conn, [d for d in days if d < first_open])


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
        first_open = min(closed_before(now), last + timedelta(days=1))
        closed = [since + timedelta(days=n) for n in range(max(0, (first_open - since).days))]
        for day in set(closed) - await self._done(closed):
            async with DbErrors("audit daily summary"), self.engine.begin() as conn:
                await self._summarize(conn, day)  # one day per transaction: short statements
        async with DbErrors("audit daily totals"), self.engine.begin() as conn:
            await conn.execute(sa.text("SELECT pg_advisory_xact_lock_shared(:k)"), {"k": _LOCK})
            done = await self._done(closed, conn)
            await _add_summaries(conn, totals, widened, done)
            # Days not summed (an invalidation just now, or still open) come from the runs.
            for start, end in _spans(
                sorted(set(closed) - done) + _days(max(since, first_open), last)
            ):
                span = dataclasses.replace(widened, since=day_start(start), until=day_start(end))
                for row in await _from_runs(conn, self._where(span)):
                    totals.add(row)
        return totals

    async def _done(self, days: list[date], conn: AsyncConnection | None = None) -> set[date]:
        """Which of ``days`` have a complete summary."""
        if not days:
            return set()
        query = sa.select(audit_daily_done.c.day).where(
            audit_daily_done.c.day >= days[0].isoformat(),
            audit_daily_done.c.day <= days[-1].isoformat(),
        )
        if conn is None:
            async with DbErrors("audit daily done"), self.engine.connect() as own:
                found = (await own.execute(query)).scalars().all()
        else:
            found = (await conn.execute(query)).scalars().all()
        return {date.fromisoformat(d) for d in found}

    async def _summarize(self, conn: AsyncConnection, day: date) -> None:
        """Sum one closed day into ``audit_daily`` (under the shared lock, in ``conn``'s txn)."""
        await conn.execute(sa.text("SELECT pg_advisory_xact_lock_shared(:k)"), {"k": _LOCK})
        window = RunFilter(since=day_start(day), until=day_start(day + timedelta(days=1)))
        rows = await _from_runs(conn, self._where(window))
        if rows:
            values = [
                {
                    "day": r.day,
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
        await conn.execute(mark, [{"day": day.isoformat()}])


async def _add_summaries(
    conn: AsyncConnection, totals: DayTotals, run_filter: RunFilter, days: set[date]
) -> None:
    """Add the summaries of ``days`` to ``totals``, summed in SQL (a few hundred rows back)."""
    if not days:
        return
    c = audit_daily.c
    where = [
        c.day.in_(sorted(d.isoformat() for d in days)),
        *[c[k] == getattr(run_filter, k) for k in _KEYS if getattr(run_filter, k)],
    ]
    per_status = sa.select(c.day, c.status, sa.func.sum(c.turns), sa.func.sum(c.cost_usd))
    for day, status, turns, cost in await conn.execute(
        per_status.where(*where).group_by(c.day, c.status)
    ):
        totals.turns[day] += int(turns)
        totals.cost_usd[day] += float(cost)
        totals.statuses[(day, status)] += int(turns)
    per_workspace = sa.select(c.workspace, sa.func.sum(c.cost_usd)).where(*where)
    for workspace, cost in await conn.execute(per_workspace.group_by(c.workspace)):
        totals.workspaces[workspace] += float(cost)
    ent = sa.func.jsonb_each_text(sa.cast(c.entities, JSONB)).table_valued("key", "value")
    ent = ent.render_derived("ent")
    per_kind = (
        sa.select(c.day, ent.c.key, sa.func.sum(sa.cast(ent.c.value, sa.Integer)))
        .select_from(audit_daily.join(ent, sa.true()))
        .where(*where)
        .group_by(c.day, ent.c.key)
    )
    for day, kind, n in await conn.execute(per_kind):
        totals.entities[(day, kind)] += int(n)


def _days(first: date, last: date) -> list[date]:
    """Every day from ``first`` to ``last``, both included (none when ``first > last``)."""
    return [first + timedelta(days=n) for n in range((last - first).days + 1)]


def _spans(days: list[date]) -> list[tuple[date, date]]:
    """Consecutive runs of sorted ``days`` as ``[start, end)`` pairs."""
    spans: list[tuple[date, date]] = []
    for day in days:
        if spans and spans[-1][1] == day:
            spans[-1] = (spans[-1][0], day + timedelta(days=1))
        else:
            spans.append((day, day + timedelta(days=1)))
    return spans
