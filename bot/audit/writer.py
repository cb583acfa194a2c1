"""Group commit for audit rows: one writer per process, one transaction per batch.

Each turn waits until its own row is committed (nothing is acknowledged before it is stored),
but the rows of turns that finish while a commit is running go into the next one together.
On SQLite this also keeps the pool's connections from contending for the one write lock: many
concurrent single-row transactions there spend their time in the busy handler and may give up
as "database is locked". A batch the database refuses for a reason other than being
unreachable is retried row by row, so one bad row fails only its own turn.

``SqliteBatchInsert`` writes a batch to a SQLite file through the synchronous driver, on a
connection its own thread keeps open: one thread hop per batch, where aiosqlite makes about
five (checkout, cursor, execute, commit, reset), each a wake-up of another thread that costs
the most on a busy host.
It compiles the insert once and hands the driver rows that went through the table's own
bind processors (JSON, UTC timestamps), so what is stored is what SQLAlchemy would store, for
half the CPU of an execution through the engine; driver errors are wrapped as SQLAlchemy
wraps them, so the store's error mapping sees the same exceptions.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import URL

from bot.audit.errors import DbErrors
from bot.audit.schema import audit_runs
from bot.core.errors import StoreError, StoreUnavailable

Row = dict[str, Any]
Insert = Callable[[list[Row], str], Awaitable[None]]
"""Writes rows in one transaction; the string names them in error messages."""


class GroupWriter:
    """Queues rows and commits them in batches on one background task.

    Args:
        insert: writes a batch in one transaction, raising ``StoreError`` on failure.
    """

    def __init__(self, insert: Insert) -> None:
        self._insert = insert
        self._waiting: list[tuple[Row, str, asyncio.Future[None]]] = []
        self._task: asyncio.Task[None] | None = None

    async def write(self, row: Row, run_id: str) -> None:
        """Return once ``row`` is committed.

        Raises:
            StoreUnavailable: the database is unreachable (the row is not stored).
            StoreError: the database refused the row.
        """
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        done.add_done_callback(_retrieve)  # a cancelled caller's failure is not "unretrieved"
        self._waiting.append((row, run_id, done))
        if self._task is None:
            self._task = asyncio.create_task(self._run())
        # A cancelled caller does not stop the write: the row is committed all the same.
        await asyncio.shield(done)

    async def wait_idle(self) -> None:
        """Wait until every queued row is committed or has failed."""
        if self._task is not None:
            await asyncio.wait([self._task])

    async def _run(self) -> None:
        try:
            while self._waiting:
                batch, self._waiting = self._waiting, []
                await self._commit(batch)
        finally:
            self._task = None
            stopped = StoreError("audit writer stopped before the record was written")
            for _, _, done in self._waiting:
                _settle(done, stopped)
            self._waiting = []

    async def _commit(self, batch: list[tuple[Row, str, asyncio.Future[None]]]) -> None:
        rows = [row for row, _, _ in batch]
        what = f"audit record {batch[0][1]}" + (f" and {len(batch) - 1} more" if batch[1:] else "")
        try:
            await self._insert(rows, what)
        except StoreUnavailable as exc:
            for _, _, done in batch:
                _settle(done, exc)
            return
        except StoreError as exc:
            if len(batch) == 1:
                _settle(batch[0][2], exc)
                return
            for item in batch:
                await self._commit([item])
            return
        except BaseException as exc:
            for _, _, done in batch:
                _settle(done, StoreError(f"{what}: not written ({type(exc).__name__})"))
            raise
        for _, _, done in batch:
            _settle(done, None)


def _retrieve(done: asyncio.Future[None]) -> None:
    if not done.cancelled():
        done.exception()


def _settle(done: asyncio.Future[None], error: BaseException | None) -> None:
    """Resolve a waiter; each failed one gets its own copy of the error (own traceback)."""
    if done.done():
        return
    if error is None:
        done.set_result(None)
        return
    own = type(error)(*error.args)
    own.__cause__ = error.__cause__
    done.set_exception(own)


class SqliteBatchInsert:
    """Inserts ``audit_runs`` rows into a SQLite file with pysqlite, in a thread of its own.

    The thread keeps one connection open: a batch is one hop to a thread that is already
    there, with no pool checkout, reset and return around it. A connection a failed batch
    may have left unusable is closed and the next batch opens a new one.

    Args:
        url: the ``sqlite+aiosqlite`` URL of a database file the async engine has migrated.
        timeout: seconds a write waits for the file's lock.
        on_connect: the connection setup the async engine uses too (its pragmas).
    """

    def __init__(self, url: URL, timeout: float, on_connect: Callable[[Any, Any], None]) -> None:
        self._engine = sa.create_engine(
            url.set(drivername="sqlite+pysqlite"),
            connect_args={"timeout": timeout, "check_same_thread": False},
            poolclass=sa.pool.NullPool,
        )
        event.listen(self._engine, "connect", on_connect)
        compiled = audit_runs.insert().compile(dialect=self._engine.dialect)
        self._sql = str(compiled)
        self._names: tuple[str, ...] = tuple(compiled.positiontup or ())
        self._processors: dict[str, Callable[[Any], Any]] = dict(
            compiled._bind_processors  # type: ignore[arg-type]  # noqa: SLF001  (the types')
        )
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="veilbot-audit-sqlite")
        self._conn: Any = None

    async def __call__(self, rows: list[Row], what: str) -> None:
        """Insert ``rows`` in one transaction (``what`` names them in errors)."""
        async with DbErrors(what):
            loop = asyncio.get_running_loop()
            await loop.run_in_executor(self._thread, self._insert, rows)

    def _insert(self, rows: list[Row]) -> None:
        params = [self._params(row) for row in rows]
        dbapi = self._engine.dialect.loaded_dbapi
        if self._conn is None:
            self._conn = self._engine.raw_connection()
        conn = self._conn
        try:
            cursor = conn.cursor()
            try:
                cursor.executemany(self._sql, params)
            finally:
                cursor.close()
            conn.commit()
        except dbapi.Error as exc:
            self._drop_connection()
            raise sa_exc.DBAPIError.instance(
                self._sql, params, exc, dbapi.Error, dialect=self._engine.dialect
            ) from exc
        except BaseException:
            self._drop_connection()
            raise

    def _drop_connection(self) -> None:
        conn, self._conn = self._conn, None
        with contextlib.suppress(Exception):  # it is being given up on either way
            conn.rollback()
        with contextlib.suppress(Exception):
            conn.close()

    def _params(self, row: Row) -> tuple[Any, ...]:
        """One row as the driver takes it: positional, through each column's processor."""
        processors = self._processors
        return tuple(
            processors[name](row[name]) if name in processors else row[name] for name in self._names
        )

    def close(self) -> None:
        """Close the connection and end the thread (waits for a batch under way)."""
        self._thread.submit(self._close_connection).result()
        self._thread.shutdown()
        self._engine.dispose()

    def _close_connection(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()
