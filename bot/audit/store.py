"""The audit log on SQL: SQLite (aiosqlite) by default, PostgreSQL (asyncpg) in production.

The service must lose no record. When the database cannot be reached, ``record`` logs the run
id and appends the record as one JSON line to a spool file (records hold placeholder text
only); the next successful ``start`` or ``record`` replays the spool first and truncates it.
Replay skips rows whose run id is already stored, so a crash between commit and truncate
duplicates nothing. A spool file belongs to one process.

Errors at the boundary::

    unreachable (connection refused, timeout, driver connect errors, OperationalError)
        -> StoreUnavailable (or spooled, when there is a spool)
    any other SQLAlchemy error -> StoreError
"""

from __future__ import annotations

import asyncio
import logging
import os
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy import exc as sa_exc
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import URL, make_url
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from bot.audit.actions import AdminActionLog
from bot.audit.daily import DailyRollups, invalidate_closed
from bot.audit.errors import DbErrors
from bot.audit.periods import GRACE, closed_before, hour_floor
from bot.audit.query import AuditQueries
from bot.audit.schema import audit_runs, migrate, record_to_row, row_from_json, row_to_json
from bot.audit.writer import GroupWriter, SqliteBatchInsert
from bot.core.errors import ConfigError, StoreError, StoreUnavailable
from bot.core.types import AuditRecord

logger = logging.getLogger(__name__)

_ASYNC_DRIVERS = {
    "postgres": "postgresql+asyncpg",
    "postgresql": "postgresql+asyncpg",
    "postgresql+asyncpg": "postgresql+asyncpg",
    "sqlite": "sqlite+aiosqlite",
    "sqlite+aiosqlite": "sqlite+aiosqlite",
}
_REPLAY_BATCH = 500


def sqlite_url(data_dir: Path) -> str:
    """The default audit database: ``data_dir/audit.db``."""
    return f"sqlite+aiosqlite:///{(Path(data_dir) / 'audit.db').absolute()}"


def async_url(url: str) -> URL:
    """Parse a database URL and pick the async driver (``postgresql://`` -> asyncpg).

    Raises:
        ConfigError: the URL is malformed or names an unsupported database.
    """
    try:
        parsed = make_url(url)
    except sa_exc.ArgumentError:
        raise ConfigError("the database URL is malformed") from None
    driver = _ASYNC_DRIVERS.get(parsed.drivername)
    if driver is None:
        raise ConfigError(
            f"unsupported database {parsed.drivername!r}: use postgresql://… or sqlite:///…"
        )
    return parsed.set(drivername=driver)


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cursor = dbapi_conn.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def _is_sqlite_file(url: URL) -> bool:
    database = url.database or ""
    return (
        url.get_backend_name() == "sqlite"
        and database not in ("", ":memory:")
        and (not database.startswith("file:"))
    )


def _in_open_periods(rows: list[dict[str, Any]]) -> bool:
    """Whether no row started in a closed period (whose summaries ``_insert`` would forget)."""
    now = datetime.now(UTC)
    first_day, first_hour = closed_before(now), hour_floor(now - GRACE)
    return all(
        r["started_at"].astimezone(UTC).date() >= first_day
        and hour_floor(r["started_at"]) >= first_hour
        for r in rows
    )


def _private_file(path: Path) -> None:
    """Create ``path`` mode 0600 (or make it so), before SQLite opens it with the umask.

    SQLite gives its ``-wal`` and ``-shm`` files the database file's mode.
    """
    os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
    os.chmod(path, 0o600)


def _create_engine(url: URL, timeout: float) -> AsyncEngine:
    if url.get_backend_name() == "sqlite":
        database = url.database or ""
        if database and database != ":memory:" and not database.startswith("file:"):
            try:
                Path(database).parent.mkdir(parents=True, exist_ok=True)
                _private_file(Path(database))
            except OSError as exc:
                raise StoreError(
                    f"cannot create the audit database directory ({type(exc).__name__})"
                ) from exc
        engine = create_async_engine(url, connect_args={"timeout": timeout})
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
        return engine
    return create_async_engine(
        url, pool_pre_ping=True, connect_args={"timeout": timeout, "command_timeout": timeout}
    )


class _Spool:
    """An append-only JSON-lines file of rows waiting for the database (mode 0600).

    ``depth`` counts the rows in the file as this process knows them (read at start, kept
    up to date by ``append`` and ``clear``), so a metric can report it without file I/O.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.depth = 0

    def append(self, line: str) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as handle:
            handle.write(line + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        self.depth += 1

    def read(self) -> list[str]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        lines = [line for line in text.splitlines() if line.strip()]
        self.depth = len(lines)
        return lines

    def clear(self) -> None:
        if self.path.exists():
            os.truncate(self.path, 0)
        self.depth = 0


class SqlAuditStore(AuditQueries, AdminActionLog, DailyRollups):
    """``AuditStore`` on SQLAlchemy 2 async; use as ``async with SqlAuditStore(url) as audit``.

    Args:
        url: ``sqlite+aiosqlite:///…`` or ``postgresql+asyncpg://…`` (plain ``sqlite:///``,
            ``postgresql://`` and ``postgres://`` are rewritten to the async driver).
        spool_path: where records wait while the database is unreachable; without one,
            ``record`` raises ``StoreUnavailable`` instead.
        timeout: seconds allowed for connecting and for each statement.

    Raises:
        ConfigError: the URL is malformed or names an unsupported database.
    """

    def __init__(self, url: str, *, spool_path: Path | None = None, timeout: float = 5.0) -> None:
        self._url = async_url(url)
        self._timeout = timeout
        self._spool = _Spool(spool_path) if spool_path is not None else None
        self._engine: AsyncEngine | None = None
        self._ready = False
        self._maybe_spooled = self._spool is not None
        self._lock = asyncio.Lock()
        self._batch_insert: SqliteBatchInsert | None = None
        self._writer = GroupWriter(self._insert_batch)

    @property
    def spool_depth(self) -> int:
        """Records waiting in the spool for the database (0 without a spool)."""
        return self._spool.depth if self._spool is not None else 0

    @property
    def engine(self) -> AsyncEngine:
        """The engine (after ``start``), for queries on ``bot.audit.schema.audit_runs``."""
        if self._engine is None:
            raise StoreError("audit store used before start()")
        return self._engine

    async def __aenter__(self) -> SqlAuditStore:
        await self.start()
        return self

    async def __aexit__(
        self, et: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def start(self) -> None:
        """Connect, create or migrate the schema, and replay the spool.

        With a spool, an unreachable database is logged and start-up continues (records are
        spooled until it is back).

        Raises:
            StoreUnavailable: the database cannot be reached and there is no spool.
            StoreError: the schema could not be migrated.
        """
        self._engine = _create_engine(self._url, self._timeout)
        if _is_sqlite_file(self._url):
            self._batch_insert = SqliteBatchInsert(self._url, self._timeout, _sqlite_pragmas)
        try:
            async with self._lock:
                await self._catch_up()
        except StoreUnavailable as exc:
            if self._spool is None:
                await self.close()
                raise
            logger.error("audit database unavailable at start (%s); spooling records", exc)
            await asyncio.to_thread(self._spool.read)  # what an earlier run left: its depth
        except BaseException:
            await self.close()
            raise

    async def close(self) -> None:
        """Release the database connections."""
        await self._writer.wait_idle()
        batch_insert, self._batch_insert = self._batch_insert, None
        if batch_insert is not None:
            await asyncio.to_thread(batch_insert.close)
        engine, self._engine = self._engine, None
        if engine is not None:
            await engine.dispose()

    async def flush(self) -> None:
        """On the way out: replay the spool if the database answers, else keep it on disk.

        Spooled lines are fsynced when written, so a kept spool is replayed by the next start.
        Logs one line either way.
        """
        if self._spool is None:
            return
        try:
            async with self._lock:
                replayed = await self._catch_up()
        except StoreError as exc:
            waiting = len(await asyncio.to_thread(self._spool.read))
            logger.error(
                "shutdown: audit spool kept, %d record(s) wait in %s for the next start (%s)",
                waiting,
                self._spool.path,
                type(exc).__name__,
            )
            return
        logger.info("shutdown: audit spool flushed (%d record(s) replayed)", replayed)

    async def record(self, record: AuditRecord) -> None:
        """Persist one turn's record, or spool it while the database is unreachable.

        Records of concurrent turns share a transaction (``bot.audit.writer``); each call
        still returns only once its own record is committed.

        Raises:
            StoreUnavailable: the database is unreachable and there is no spool.
            StoreError: the database refused the record, or the spool could not be written.
        """
        row = record_to_row(record)
        try:
            if self._ready and not self._maybe_spooled:
                await self._writer.write(row, record.run_id)
                return
            async with self._lock:
                await self._catch_up()
                await self._insert([row], what=f"audit record {record.run_id}")
        except StoreUnavailable as exc:
            if self._spool is None:
                raise
            logger.error("audit record %s spooled: %s", record.run_id, exc)
            await self._spool_row(row, record.run_id)

    async def _catch_up(self) -> int:
        """Migrate the schema if not done yet, then replay the spool (caller holds the lock).

        Returns:
            The number of spooled records replayed.
        """
        if not self._ready:
            async with DbErrors("audit schema migration"), self.engine.begin() as conn:
                applied = await conn.run_sync(migrate)
            if applied:
                logger.info("audit schema: applied %d migration step(s)", applied)
            self._ready = True
        if self._maybe_spooled and self._spool is not None:
            return await self._replay(self._spool)
        return 0

    async def _replay(self, spool: _Spool) -> int:
        lines = await asyncio.to_thread(spool.read)
        rows: list[dict[str, Any]] = []
        for number, line in enumerate(lines, start=1):
            try:
                rows.append(row_from_json(line))
            except (ValueError, KeyError, TypeError):
                logger.error("audit spool line %d is unreadable and is dropped", number)
        if rows:
            async with DbErrors("audit spool replay"), self.engine.begin() as conn:
                for start in range(0, len(rows), _REPLAY_BATCH):
                    await conn.execute(
                        self._insert_ignoring_duplicates(conn), rows[start : start + _REPLAY_BATCH]
                    )
                await invalidate_closed(conn, (r["started_at"] for r in rows))
            logger.info("audit spool: replayed %d record(s)", len(rows))
        await asyncio.to_thread(spool.clear)
        self._maybe_spooled = False
        return len(rows)

    @staticmethod
    def _insert_ignoring_duplicates(conn: AsyncConnection) -> sa.Insert:
        if conn.dialect.name == "postgresql":
            return postgresql.insert(audit_runs).on_conflict_do_nothing(index_elements=["run_id"])
        return sqlite.insert(audit_runs).on_conflict_do_nothing(index_elements=["run_id"])

    async def _insert_batch(self, rows: list[dict[str, Any]], what: str) -> None:
        """The group writer's batches: through pysqlite for a SQLite file, else the engine."""
        if self._batch_insert is not None and _in_open_periods(rows):
            await self._batch_insert(rows, what)
        else:  # a late record must forget closed periods' summaries, in its transaction
            await self._insert(rows, what=what)

    async def _insert(self, rows: list[dict[str, Any]], *, what: str) -> None:
        async with DbErrors(what), self.engine.begin() as conn:
            await conn.execute(audit_runs.insert(), rows)
            await invalidate_closed(conn, (r["started_at"] for r in rows))

    async def _spool_row(self, row: dict[str, Any], run_id: str) -> None:
        assert self._spool is not None  # noqa: S101  (checked by the caller)
        try:
            async with self._lock:
                await asyncio.to_thread(self._spool.append, row_to_json(row))
                self._maybe_spooled = True
        except OSError as exc:
            raise StoreError(
                f"audit record {run_id}: spool not writable ({type(exc).__name__})"
            ) from exc
