"""Reading and erasing the audit log: the admin side of ``SqlAuditStore``.

``AuditQueries`` is mixed into ``SqlAuditStore``. Filters become one ``WHERE``: on PostgreSQL
the metadata filter is one JSONB containment (``metadata @> :doc``, served by the GIN index of
migration step 2); on SQLite one ``json_extract`` per key. Pages are keyset pages in the order
``(started_at DESC, run_id DESC)``; the cursor is the position of the last row returned.
Exports read with a server-side cursor on PostgreSQL and keyset pages on SQLite, so memory
stays flat however many rows match.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.audit.daily import invalidate, invalidate_closed, touched_hours
from bot.audit.errors import DbErrors
from bot.audit.schema import audit_runs, row_to_record
from bot.audit.types import (
    FilterRejected,
    GroupBy,
    RollupRow,
    RunFilter,
    RunPage,
    check_limit,
    decode_cursor,
    encode_cursor,
)
from bot.core.errors import StoreError
from bot.core.types import AuditRecord

_STREAM_BATCH = 1000
_ORDER = (audit_runs.c.started_at.desc(), audit_runs.c.run_id.desc())
_TOKENS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")
_COLUMNS = {
    "thread": "thread_id",
    "user": "user_id",
    "channel": "channel",
    "workspace": "workspace",
}


def _meta_clauses(run_filter: RunFilter, dialect: str) -> list[sa.ColumnElement[bool]]:
    meta = dict(run_filter.metadata)
    if not meta:
        return []
    column = audit_runs.c.metadata
    if dialect == "postgresql":
        return [sa.cast(column, JSONB).op("@>")(sa.cast(sa.literal(meta, JSONB), JSONB))]
    clauses: list[sa.ColumnElement[bool]] = []
    for key, value in meta.items():
        path = f'$."{key}"'
        clauses.append(sa.func.json_extract(column, path) == sa.literal(value))
        if isinstance(value, bool):  # SQLite reads true as 1: also require a JSON boolean
            clauses.append(sa.func.json_type(column, path) == ("true" if value else "false"))
        elif isinstance(value, str):
            clauses.append(sa.func.json_type(column, path) == "text")
    return clauses


def where(run_filter: RunFilter, dialect: str) -> list[sa.ColumnElement[bool]]:
    """The ``WHERE`` clauses of a filter on ``audit_runs``."""
    c = audit_runs.c
    clauses = _meta_clauses(run_filter, dialect)
    for name in ("thread_id", "user_id", "platform", "workspace", "channel", "status"):
        value = getattr(run_filter, name)
        if value is not None:
            clauses.append(c[name] == value)
    if run_filter.workspaces is not None:
        clauses.append(c.workspace.in_(sorted(run_filter.workspaces)))
    if run_filter.since is not None:
        clauses.append(c.started_at >= run_filter.since)
    if run_filter.until is not None:
        clauses.append(c.started_at < run_filter.until)
    return clauses


def _after(cursor: str) -> sa.ColumnElement[bool]:
    started_at, run_id = decode_cursor(cursor)
    c = audit_runs.c
    # A row-value comparison lets both databases walk the (started_at, run_id) index.
    position = sa.tuple_(sa.literal(started_at, c.started_at.type), sa.literal(run_id))
    return sa.tuple_(c.started_at, c.run_id) < position


def _day(dialect: str) -> sa.ColumnElement[Any]:
    column = audit_runs.c.started_at
    if dialect == "postgresql":
        return sa.func.to_char(sa.func.timezone("UTC", column), "YYYY-MM-DD")
    return sa.func.substr(column, 1, 10)  # stored as naive UTC 'YYYY-MM-DD HH:MM:SS'


def _group_key(by: GroupBy, dialect: str) -> sa.ColumnElement[Any]:
    if by == "day":
        return _day(dialect)
    return audit_runs.c[_COLUMNS[by]]


def _entity_pairs(dialect: str) -> Any:
    if dialect == "postgresql":
        pairs = sa.func.jsonb_each_text(sa.cast(audit_runs.c.entity_counts, JSONB))
        return pairs.table_valued("key", "value").render_derived("ent")
    # SQLite's json_each has key/value columns already and takes no column alias list.
    return sa.func.json_each(audit_runs.c.entity_counts).table_valued("key", "value").alias("ent")


class AuditQueries:
    """Query, roll-up, purge and erasure methods; needs ``engine`` from its host class."""

    @property
    def engine(self) -> AsyncEngine:
        """The started engine (provided by ``SqlAuditStore``)."""
        raise NotImplementedError

    def _where(self, run_filter: RunFilter) -> list[sa.ColumnElement[bool]]:
        return where(run_filter, self.engine.dialect.name)

    def _narrow_where(self, run_filter: RunFilter) -> list[sa.ColumnElement[bool]]:
        clauses = self._where(run_filter)
        if not clauses:  # a bug upstream must never turn into "erase everything"
            raise FilterRejected("refusing to change every run: give at least one filter")
        return clauses

    async def ping(self) -> bool:
        """Whether the database answers ``SELECT 1`` now (readiness probes)."""
        try:
            async with DbErrors("audit ping"), self.engine.connect() as conn:
                await conn.execute(sa.text("SELECT 1"))
        except StoreError:
            return False
        return True

    async def list_runs(
        self, run_filter: RunFilter, *, limit: int = 100, cursor: str | None = None
    ) -> RunPage:
        """One page of matching runs, newest first.

        Raises:
            FilterRejected: a bad limit or cursor.
            StoreError: the database failed.
        """
        clauses = self._where(run_filter)
        if cursor:
            clauses.append(_after(cursor))
        query = sa.select(audit_runs).where(*clauses).order_by(*_ORDER)
        async with DbErrors("audit list"), self.engine.connect() as conn:
            rows = (await conn.execute(query.limit(check_limit(limit) + 1))).all()
        runs = [row_to_record(r) for r in rows[:limit]]
        more = len(rows) > limit
        last = runs[-1] if runs else None
        next_cursor = encode_cursor(last.started_at, last.run_id) if more and last else None
        return RunPage(runs, next_cursor)

    async def count_runs(self, run_filter: RunFilter) -> int:
        """How many runs match."""
        query = sa.select(sa.func.count()).select_from(audit_runs).where(*self._where(run_filter))
        async with DbErrors("audit count"), self.engine.connect() as conn:
            return int((await conn.execute(query)).scalar_one())

    async def get_run(self, run_id: str) -> AuditRecord | None:
        """One run by id, or ``None``."""
        query = sa.select(audit_runs).where(audit_runs.c.run_id == run_id)
        async with DbErrors("audit get"), self.engine.connect() as conn:
            row = (await conn.execute(query)).first()
        return row_to_record(row) if row is not None else None

    async def iter_runs(self, run_filter: RunFilter) -> AsyncGenerator[AuditRecord, None]:
        """Every matching run, newest first, in constant memory."""
        if self.engine.dialect.name == "postgresql":
            stream = self._stream_server_side(run_filter)
        else:
            stream = self._stream_keyset(run_filter)
        async for record in stream:
            yield record

    async def _stream_server_side(self, run_filter: RunFilter) -> AsyncGenerator[AuditRecord, None]:
        query = sa.select(audit_runs).where(*self._where(run_filter)).order_by(*_ORDER)
        async with DbErrors("audit export"), self.engine.connect() as conn:
            result = await conn.stream(query.execution_options(yield_per=_STREAM_BATCH))
            async for row in result:
                yield row_to_record(row)

    async def _stream_keyset(self, run_filter: RunFilter) -> AsyncGenerator[AuditRecord, None]:
        cursor: str | None = None
        while True:
            page = await self.list_runs(run_filter, limit=_STREAM_BATCH, cursor=cursor)
            for record in page.runs:
                yield record
            if page.next_cursor is None:
                return
            cursor = page.next_cursor

    async def rollup(
        self, run_filter: RunFilter, by: GroupBy, *, limit: int = 1000
    ) -> list[RollupRow]:
        """Turns, tokens, cost and entity counts per group, most turns first."""
        dialect = self.engine.dialect.name
        key = _group_key(by, dialect).label("key")
        c = audit_runs.c
        totals = (
            sa.select(
                key,
                sa.func.count().label("turns"),
                *(sa.func.coalesce(sa.func.sum(c[t]), 0).label(t) for t in _TOKENS),
                sa.func.coalesce(sa.func.sum(c.cost_usd), 0.0).label("cost_usd"),
            )
            .where(*self._where(run_filter))
            .group_by(key)
            .order_by(sa.desc("turns"), key)
            .limit(limit)
        )
        async with DbErrors("audit rollup"), self.engine.connect() as conn:
            rows = (await conn.execute(totals)).all()
            entities = await conn.execute(self._entity_query(run_filter, by, [r.key for r in rows]))
        by_key: dict[str, dict[str, int]] = {}
        for group, kind, count in entities:
            by_key.setdefault(group, {})[kind] = int(count)
        return [
            RollupRow(
                key=r.key,
                turns=r.turns,
                **{t: int(getattr(r, t)) for t in _TOKENS},
                cost_usd=float(r.cost_usd),
                entities=by_key.get(r.key, {}),
            )
            for r in rows
        ]

    def _entity_query(self, run_filter: RunFilter, by: GroupBy, keys: list[str]) -> sa.Select[Any]:
        dialect = self.engine.dialect.name
        key = _group_key(by, dialect)
        ent = _entity_pairs(dialect)
        amount = sa.cast(ent.c.value, sa.Integer)
        return (
            sa.select(key, ent.c.key, sa.func.sum(amount))
            .select_from(audit_runs.join(ent, sa.true()))
            .where(*self._where(run_filter), key.in_(keys))
            .group_by(key, ent.c.key)
        )

    async def purge_before(self, cutoff: datetime) -> int:
        """Delete runs started before ``cutoff``; returns how many."""
        query = audit_runs.delete().where(audit_runs.c.started_at < cutoff)
        async with DbErrors("audit purge"), self.engine.begin() as conn:
            purged = (await conn.execute(query)).rowcount
            if purged:
                await invalidate(conn, None, through=cutoff.astimezone(UTC).date())
            return purged

    async def thread_ids(self, run_filter: RunFilter) -> list[str]:
        """The distinct threads of the matching runs, sorted."""
        query = (
            sa.select(audit_runs.c.thread_id)
            .where(*self._where(run_filter))
            .distinct()
            .order_by(audit_runs.c.thread_id)
        )
        async with DbErrors("audit threads"), self.engine.connect() as conn:
            return list((await conn.execute(query)).scalars())

    async def delete_runs(self, run_filter: RunFilter) -> int:
        """Delete the matching runs; returns how many."""
        clauses = self._narrow_where(run_filter)
        async with DbErrors("audit delete"), self.engine.begin() as conn:
            touched = await touched_hours(conn, clauses)
            deleted = (await conn.execute(audit_runs.delete().where(*clauses))).rowcount
            if deleted:
                await invalidate_closed(conn, touched)  # only the periods the runs were in
            return deleted

    async def replace_user_id(self, run_filter: RunFilter, pseudonym: str) -> int:
        """Set ``user_id`` of the matching runs to ``pseudonym``; returns how many."""
        query = audit_runs.update().where(*self._narrow_where(run_filter)).values(user_id=pseudonym)
        async with DbErrors("audit pseudonymize"), self.engine.begin() as conn:
            return (await conn.execute(query)).rowcount  # per-day totals hold no user ids
