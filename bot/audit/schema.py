"""The audit log's SQL schema, its migrations, and the record <-> row conversion.

``audit_runs`` is the one definition of the table (SQLAlchemy Core): query it directly, e.g.
``select(audit_runs).where(audit_runs.c.thread_id == tid)``. Timestamps are stored in UTC and
read back timezone-aware on every backend.

Migrations are an ordered list of steps, each run once, in one transaction with the
``veilbot_schema_version`` row that records it. To change the schema, append a step (never
edit an applied one) and extend ``audit_runs`` to match: step 1 builds its table from
``_v1_columns()`` so a later column added to ``audit_runs`` is not created twice.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.engine import Connection, Dialect

from bot.core.types import AuditRecord, TurnStatus


class UTCDateTime(sa.TypeDecorator[datetime]):
    """A timestamp stored in UTC and always returned timezone-aware (SQLite included)."""

    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        """Convert to UTC; naive values are taken to be UTC already."""
        if value is None:
            return None
        value = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        """Attach UTC to what the database returns."""
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


JSONDocument = sa.JSON().with_variant(JSONB(), "postgresql")

metadata = sa.MetaData()

schema_version = sa.Table(
    "veilbot_schema_version",
    metadata,
    sa.Column("version", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("applied_at", UTCDateTime, nullable=False),
)


def _v1_columns() -> list[sa.Column[Any]]:
    return [
        sa.Column("run_id", sa.String(64), primary_key=True),
        sa.Column("thread_id", sa.String(255), nullable=False),
        sa.Column("platform", sa.String(16), nullable=False),
        sa.Column("workspace", sa.String(255), nullable=False),
        sa.Column("channel", sa.String(255), nullable=False),
        sa.Column("user_id", sa.String(255), nullable=False),
        sa.Column("message_id", sa.String(255), nullable=False),
        sa.Column("started_at", UTCDateTime, nullable=False),
        sa.Column("finished_at", UTCDateTime, nullable=False),
        sa.Column("status", sa.String(32), nullable=False),
        sa.Column("prompt", sa.Text, nullable=False),
        sa.Column("answer", sa.Text, nullable=False),
        sa.Column("entity_counts", JSONDocument, nullable=False),
        sa.Column("model", sa.String(255), nullable=False),
        sa.Column("input_tokens", sa.Integer, nullable=False),
        sa.Column("output_tokens", sa.Integer, nullable=False),
        sa.Column("cache_read_tokens", sa.Integer, nullable=False),
        sa.Column("cache_write_tokens", sa.Integer, nullable=False),
        sa.Column("cost_usd", sa.Float, nullable=True),
        sa.Column("latencies_ms", JSONDocument, nullable=False),
        sa.Column("unknown_placeholders", sa.Integer, nullable=False),
        sa.Column("error", sa.Text, nullable=True),
        sa.Column("metadata", JSONDocument, nullable=False),
    ]


def _v1_indexes() -> list[sa.Index]:
    return [
        sa.Index("ix_audit_runs_thread_started", "thread_id", "started_at"),
        sa.Index("ix_audit_runs_started", "started_at"),
        sa.Index("ix_audit_runs_user", "user_id"),
    ]


audit_runs = sa.Table(
    "audit_runs",
    metadata,
    *_v1_columns(),
    *_v1_indexes(),
    sa.Index("ix_audit_runs_started_run", "started_at", "run_id"),  # step 2
    sa.Column("mangled_placeholders", sa.Integer, nullable=False, server_default="0"),  # step 3
    sa.Index("ix_audit_runs_user_started", "user_id", "started_at"),  # step 4
)
"""One row per turn; columns are the fields of ``AuditRecord``."""

AUDIT_FIELDS = tuple(c.name for c in audit_runs.columns)


def _admin_actions_columns() -> list[sa.Column[Any]]:
    return [
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("at", UTCDateTime, nullable=False),
        sa.Column("actor", sa.String(64), nullable=False),
        sa.Column("action", sa.String(32), nullable=False),
        sa.Column("target", sa.String(255), nullable=True),
        sa.Column("filter", JSONDocument, nullable=False),
        sa.Column("outcome", JSONDocument, nullable=False),
    ]


admin_actions = sa.Table(
    "admin_actions",
    metadata,
    *_admin_actions_columns(),
    sa.Index("ix_admin_actions_at", "at"),
)
"""What admins did (step 4): who (a token id), which action, on which ids or filter, when.

Ids and filters only: an admin action never carries prompt or answer text."""


def _daily_columns() -> list[sa.Column[Any]]:
    return [
        sa.Column("day", sa.String(13), primary_key=True),  # YYYY-MM-DD or YYYY-MM-DDTHH
        sa.Column("platform", sa.String(16), primary_key=True),
        sa.Column("workspace", sa.String(255), primary_key=True),
        sa.Column("status", sa.String(32), primary_key=True),
        sa.Column("turns", sa.Integer, nullable=False),
        sa.Column("cost_usd", sa.Float, nullable=False),
        sa.Column("entities", JSONDocument, nullable=False),
    ]


def _daily_done_columns() -> list[sa.Column[Any]]:
    return [sa.Column("day", sa.String(13), primary_key=True)]


audit_daily = sa.Table("audit_daily", metadata, *_daily_columns())
"""Totals of closed UTC days (or hours of today) by platform, workspace and status (step 4;
``bot.audit.daily``)."""

audit_daily_done = sa.Table("audit_daily_done", metadata, *_daily_done_columns())
"""The periods whose ``audit_daily`` rows are complete (deleted when their runs change)."""


def _create_audit_runs_v1(conn: Connection) -> None:
    table = sa.Table("audit_runs", sa.MetaData(), *_v1_columns(), *_v1_indexes())
    table.create(conn, checkfirst=True)


def _index_for_queries_v2(conn: Connection) -> None:
    """Indexes for admin queries.

    Keyset pages walk ``(started_at, run_id)``; on PostgreSQL a GIN index serves
    ``metadata @> …`` filters (SQLite filters by json_extract per key, unindexed).
    """
    table = sa.Table("audit_runs", sa.MetaData(), *_v1_columns())
    sa.Index("ix_audit_runs_started_run", table.c.started_at, table.c.run_id).create(conn)
    if conn.dialect.name == "postgresql":
        conn.execute(
            sa.text(
                "CREATE INDEX IF NOT EXISTS ix_audit_runs_metadata "
                "ON audit_runs USING gin (metadata jsonb_path_ops)"
            )
        )


def _mangled_placeholders_v3(conn: Connection) -> None:
    """How many placeholders the model wrote in another form (issue 14: smaller models)."""
    conn.execute(
        sa.text("ALTER TABLE audit_runs ADD COLUMN mangled_placeholders INTEGER NOT NULL DEFAULT 0")
    )


def _admin_console_v4(conn: Connection) -> None:
    """The admin console (issue 13): action log, per-day roll-ups, runs by user in order.

    Self-contained and idempotent (``checkfirst``, ``IF NOT EXISTS``): safe to renumber.
    """
    fresh = sa.MetaData()
    tables = [
        sa.Table(
            "admin_actions", fresh, *_admin_actions_columns(), sa.Index("ix_admin_actions_at", "at")
        ),
        sa.Table("audit_daily", fresh, *_daily_columns()),
        sa.Table("audit_daily_done", fresh, *_daily_done_columns()),
    ]
    for table in tables:
        table.create(conn, checkfirst=True)
    conn.execute(
        sa.text(
            "CREATE INDEX IF NOT EXISTS ix_audit_runs_user_started "
            "ON audit_runs (user_id, started_at)"
        )
    )


def _slack_installations_columns() -> list[sa.Column[Any]]:
    return [
        sa.Column("enterprise_id", sa.String(64), primary_key=True),
        sa.Column("team_id", sa.String(64), primary_key=True),
        sa.Column("is_enterprise_install", sa.Boolean, nullable=False),
        sa.Column("installed_at", UTCDateTime, nullable=False),
        sa.Column("sealed", sa.LargeBinary, nullable=False),
    ]


slack_installations = sa.Table("slack_installations", metadata, *_slack_installations_columns())
"""One Slack installation per (enterprise, team); ``""`` stands for none. ``sealed`` holds the
whole installation (tokens included) sealed with ``derive_install_key``: no token in clear."""


def _slack_installations_v5(conn: Connection) -> None:
    """Slack OAuth installs (issue 29). Self-contained and idempotent: safe to renumber."""
    fresh = sa.MetaData()
    sa.Table("slack_installations", fresh, *_slack_installations_columns()).create(
        conn, checkfirst=True
    )


MIGRATIONS: tuple[Callable[[Connection], None], ...] = (
    _create_audit_runs_v1,
    _index_for_queries_v2,
    _mangled_placeholders_v3,
    _admin_console_v4,
    _slack_installations_v5,
)
"""Schema steps in order; step ``i`` (1-based) brings the schema to version ``i``."""

_PG_MIGRATION_LOCK = 0x7665696C  # "veil": serialises migrations of concurrent replicas


def migrate(conn: Connection) -> int:
    """Apply the pending migration steps inside the caller's transaction.

    Returns:
        The number of steps applied (0 when the schema is current).
    """
    if conn.dialect.name == "postgresql":
        conn.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_MIGRATION_LOCK})
    schema_version.create(conn, checkfirst=True)
    current = conn.execute(sa.select(sa.func.max(schema_version.c.version))).scalar() or 0
    for version in range(current + 1, len(MIGRATIONS) + 1):
        MIGRATIONS[version - 1](conn)
        conn.execute(schema_version.insert().values(version=version, applied_at=datetime.now(UTC)))
    return max(0, len(MIGRATIONS) - current)


def record_to_row(record: AuditRecord) -> dict[str, Any]:
    """The ``audit_runs`` row of a record."""
    row = {name: getattr(record, name) for name in AUDIT_FIELDS}
    row["status"] = str(TurnStatus(record.status))
    return row


def row_to_record(row: Any) -> AuditRecord:
    """Rebuild a record from an ``audit_runs`` row (a mapping or ``Row``)."""
    values = dict(row._mapping) if hasattr(row, "_mapping") else dict(row)
    values["status"] = TurnStatus(values["status"])
    return AuditRecord(**values)


def row_to_json(row: dict[str, Any]) -> str:
    """One spool line for a row (timestamps as ISO 8601 with offset)."""
    return json.dumps(
        {k: v.isoformat() if isinstance(v, datetime) else v for k, v in row.items()},
        ensure_ascii=False,
    )


def row_from_json(line: str) -> dict[str, Any]:
    """Parse what ``row_to_json`` wrote."""
    row: dict[str, Any] = json.loads(line)
    for name in ("started_at", "finished_at"):
        row[name] = datetime.fromisoformat(row[name])
    unknown = set(row) - set(AUDIT_FIELDS)
    if unknown:
        raise ValueError(f"unknown audit fields {sorted(unknown)}")
    return row
