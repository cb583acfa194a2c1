"""SqlAuditStore on real SQLite and real PostgreSQL (the same tests on both)."""

from __future__ import annotations

import asyncio
import contextlib
import stat
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import create_async_engine

from bot.audit.schema import MIGRATIONS, audit_runs, row_to_record, schema_version
from bot.audit.store import SqlAuditStore, async_url, sqlite_url
from bot.core.errors import AlreadyStored, ConfigError, StoreError, StoreUnavailable
from bot.core.types import AuditRecord, TurnStatus, new_run_id
from tests.fixtures.services import free_port


@pytest.fixture(
    params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)],
)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return sqlite_url(tmp_path / "data" / "nested")
    return str(request.getfixturevalue("postgres_url"))


def make_record(**overrides: object) -> AuditRecord:
    values: dict[str, object] = {
        "run_id": new_run_id(),
        "thread_id": "slack:T1:C1:1700000000.000100",
        "platform": "slack",
        "workspace": "T1",
        "channel": "C1",
        "user_id": "U1",
        "message_id": "1700000000.000200",
        "started_at": datetime(2026, 3, 1, 12, 0, 0, 123456, tzinfo=timezone(timedelta(hours=2))),
        "finished_at": datetime(2026, 3, 1, 10, 0, 1, 500000, tzinfo=UTC),
        "status": TurnStatus.OK,
    }
    values.update(overrides)
    return AuditRecord(**values)  # type: ignore[arg-type]


FULL = {
    "prompt": "Mail <EMAIL_ADDRESS_1> about <PERSON_1>, Grüße 🙂",
    "answer": "Done, <PERSON_1>.\nSecond line",
    "entity_counts": {"EMAIL_ADDRESS": 1, "PERSON": 2},
    "model": "claude-sonnet-4-6",
    "input_tokens": 1200,
    "output_tokens": 345,
    "cache_read_tokens": 1000,
    "cache_write_tokens": 7,
    "cost_usd": 0.012345,
    "latencies_ms": {"guardrail": 12.5, "model": 830.25},
    "unknown_placeholders": 1,
    "mangled_placeholders": 3,
    "error": "ModelUnavailable at model.py:42",
    "metadata": {"source": "app_mention", "tags": ["a", "b"], "nested": {"n": 1, "ok": True}},
}


async def stored(url: str, *run_ids: str) -> dict[str, AuditRecord]:
    engine = create_async_engine(async_url(url))
    try:
        async with engine.connect() as conn:
            rows = await conn.execute(sa.select(audit_runs).where(audit_runs.c.run_id.in_(run_ids)))
            return {r.run_id: row_to_record(r) for r in rows}
    finally:
        await engine.dispose()


async def test_every_field_round_trips(db_url: str) -> None:
    full = make_record(**FULL)
    bare = make_record(status=TurnStatus.GUARDRAIL_ERROR)  # defaults: cost None, empty JSON
    async with SqlAuditStore(db_url) as audit:
        await audit.record(full)
        await audit.record(bare)
    found = await stored(db_url, full.run_id, bare.run_id)
    assert found[full.run_id] == full
    assert found[bare.run_id] == bare
    assert found[bare.run_id].cost_usd is None
    assert found[bare.run_id].error is None
    again = found[full.run_id]
    assert again.started_at.tzinfo is UTC
    assert again.started_at.hour == 10
    assert again.status is TurnStatus.OK


async def test_start_twice_migrates_once(db_url: str) -> None:
    record = make_record()
    async with SqlAuditStore(db_url) as audit:
        await audit.record(record)
    async with SqlAuditStore(db_url) as audit:
        async with audit.engine.connect() as conn:
            versions = (await conn.execute(sa.select(schema_version.c.version))).scalars().all()
    assert versions == list(range(1, len(MIGRATIONS) + 1))
    assert record.run_id in await stored(db_url, record.run_id)


async def test_a_second_record_of_a_run_is_refused_and_the_first_kept(
    db_url: str, tmp_path: Path
) -> None:
    first = make_record(status=TurnStatus.OK, answer="first")
    again = make_record(run_id=first.run_id, status=TurnStatus.MODEL_ERROR, answer="again")
    spool = tmp_path / "spool.jsonl"
    async with SqlAuditStore(db_url, spool_path=spool) as audit:
        await audit.record(first)
        with pytest.raises(AlreadyStored):
            await audit.record(again)
    kept = (await stored(db_url, first.run_id))[first.run_id]
    assert (kept.status, kept.answer) == (TurnStatus.OK, "first")
    assert not spool.exists()  # refused records are not spooled for ever-failing replays


async def test_a_run_stored_already_fails_alone_among_concurrent_records(db_url: str) -> None:
    stored_before = make_record()
    async with SqlAuditStore(db_url) as audit:
        await audit.record(stored_before)
        fresh = [make_record() for _ in range(5)]
        results = await asyncio.gather(
            *(audit.record(r) for r in [*fresh[:2], stored_before, *fresh[2:]]),
            return_exceptions=True,
        )
    assert [type(r).__name__ for r in results] == [
        "NoneType", "NoneType", "AlreadyStored", "NoneType", "NoneType", "NoneType"
    ]  # fmt: skip
    assert set(await stored(db_url, *(r.run_id for r in fresh))) == {r.run_id for r in fresh}


async def test_a_refused_row_other_than_a_stored_run_is_a_plain_store_error(db_url: str) -> None:
    async with SqlAuditStore(db_url) as audit:
        with pytest.raises(StoreError) as info:
            await audit.record(make_record(thread_id=None))  # type: ignore[arg-type]
    assert not isinstance(info.value, AlreadyStored | StoreUnavailable)


def unreachable_url() -> str:
    return f"postgresql://veilbot:secretpw@127.0.0.1:{free_port()}/audit"


async def test_unreachable_without_spool_fails_fast(tmp_path: Path) -> None:
    started = time.monotonic()
    with pytest.raises(StoreUnavailable) as info:
        async with SqlAuditStore(unreachable_url(), timeout=2):
            pass
    assert time.monotonic() - started < 3
    assert "secretpw" not in str(info.value)


async def test_unreachable_records_are_spooled_then_replayed(db_url: str, tmp_path: Path) -> None:
    spool = tmp_path / "spool" / "audit.jsonl"
    records = [make_record(**FULL), make_record()]
    async with SqlAuditStore(unreachable_url(), spool_path=spool, timeout=2) as down:
        for record in records:
            await down.record(record)  # no exception reaches the caller
    assert stat.S_IMODE(spool.stat().st_mode) == 0o600
    assert len(spool.read_text().splitlines()) == 2
    async with SqlAuditStore(db_url, spool_path=spool) as up:
        assert spool.read_text() == ""
        later = make_record()
        await up.record(later)
    found = await stored(db_url, *(r.run_id for r in [*records, later]))
    assert [found[r.run_id] for r in records] == records
    assert later.run_id in found


async def test_replay_skips_records_already_stored(db_url: str, tmp_path: Path) -> None:
    spool = tmp_path / "audit.jsonl"
    record = make_record()
    async with SqlAuditStore(unreachable_url(), spool_path=spool, timeout=2) as down:
        await down.record(record)
    async with SqlAuditStore(db_url) as audit:
        await audit.record(record)  # as if a crash came between commit and truncate
    async with SqlAuditStore(db_url, spool_path=spool):
        pass
    assert spool.read_text() == ""
    assert record.run_id in await stored(db_url, record.run_id)


async def test_sqlite_uses_wal_and_creates_its_directory(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path / "a" / "b")
    async with SqlAuditStore(url) as audit:
        async with audit.engine.connect() as conn:
            mode = (await conn.execute(sa.text("PRAGMA journal_mode"))).scalar()
    assert mode == "wal"
    assert (tmp_path / "a" / "b" / "audit.db").exists()


async def test_the_sqlite_audit_files_are_private(tmp_path: Path) -> None:
    async with SqlAuditStore(sqlite_url(tmp_path)) as audit:
        await audit.record(make_record())
        files = sorted(tmp_path.glob("audit.db*"))
        modes = {f.name: stat.S_IMODE(f.stat().st_mode) for f in files}
    assert "audit.db" in modes
    assert set(modes.values()) == {0o600}, modes


def test_urls_are_rewritten_to_async_drivers() -> None:
    assert async_url("postgres://u:p@h/db").drivername == "postgresql+asyncpg"
    assert async_url("postgresql://u:p@h/db").drivername == "postgresql+asyncpg"
    assert async_url("postgresql+asyncpg://u@h/db").drivername == "postgresql+asyncpg"
    assert async_url("sqlite:////tmp/x.db").drivername == "sqlite+aiosqlite"
    with pytest.raises(ConfigError):
        async_url("mysql://u:p@h/db")
    with pytest.raises(ConfigError):
        async_url("not a url")


# ------------------------------------------------ an outage while running (PostgreSQL)


class TcpProxy:
    """A loopback TCP forwarder the test can cut and restore, on the same port."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.port = free_port()
        self.server: asyncio.Server | None = None
        self.open: set[asyncio.StreamWriter] = set()

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)

    async def stop(self) -> None:
        assert self.server is not None
        self.server.close()
        for writer in list(self.open):
            writer.close()
        await self.server.wait_closed()
        self.open.clear()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(*self.target)
        self.open |= {writer, up_writer}
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError, asyncio.IncompleteReadError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        writer.close()
        self.open.discard(writer)


@pytest.fixture
async def proxied_postgres(postgres_url: str) -> AsyncIterator[tuple[str, TcpProxy]]:
    url = async_url(postgres_url)
    proxy = TcpProxy(url.host or "127.0.0.1", url.port or 5432)
    await proxy.start()
    yield url.set(port=proxy.port).render_as_string(hide_password=False), proxy
    with contextlib.suppress(AssertionError):
        await proxy.stop()


@pytest.mark.postgres
async def test_outage_while_running_loses_nothing(
    proxied_postgres: tuple[str, TcpProxy], postgres_url: str, tmp_path: Path
) -> None:
    url, proxy = proxied_postgres
    spool = tmp_path / "audit.jsonl"
    before, during, after = make_record(), make_record(), make_record()
    async with SqlAuditStore(url, spool_path=spool, timeout=2) as audit:
        await audit.record(before)
        await proxy.stop()
        await audit.record(during)  # spooled, no exception
        assert during.run_id in spool.read_text()
        await proxy.start()
        await audit.record(after)  # replays the spool first
        assert spool.read_text() == ""
    found = await stored(postgres_url, before.run_id, during.run_id, after.run_id)
    assert set(found) == {before.run_id, during.run_id, after.run_id}
    assert found[during.run_id] == during


async def test_a_version_2_database_gains_the_mangled_count_and_keeps_its_rows(
    fresh_db_url: str,
) -> None:
    from datetime import datetime as dt

    from bot.audit.schema import MIGRATIONS, _v1_columns

    old = make_record(**FULL)
    url = async_url(fresh_db_url)
    if url.database and url.get_backend_name() == "sqlite":
        Path(url.database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_async_engine(url)
    try:
        async with engine.begin() as conn:

            def version_2(sync_conn: sa.Connection) -> None:
                schema_version.create(sync_conn)
                for number, step in enumerate(MIGRATIONS[:2], start=1):
                    step(sync_conn)
                    sync_conn.execute(
                        schema_version.insert().values(version=number, applied_at=dt.now(UTC))
                    )
                v2 = sa.Table("audit_runs", sa.MetaData(), *_v1_columns())
                row = {c.name: getattr(old, c.name) for c in v2.columns}
                sync_conn.execute(v2.insert(), {**row, "status": str(old.status)})

            await conn.run_sync(version_2)
    finally:
        await engine.dispose()

    new = make_record(mangled_placeholders=2)
    async with SqlAuditStore(fresh_db_url) as audit:
        await audit.record(new)
    found = await stored(fresh_db_url, old.run_id, new.run_id)
    assert found[old.run_id].mangled_placeholders == 0
    assert found[new.run_id].mangled_placeholders == 2


async def test_a_burst_of_concurrent_records_all_land_none_refused_as_busy(tmp_path: Path) -> None:
    # Two hundred turns finishing at once, with a tight per-statement budget and no spool:
    # separate single-row transactions fight over SQLite's write lock and some give up as
    # "database is locked"; every record must be stored, and each caller told so.
    async with SqlAuditStore(sqlite_url(tmp_path), timeout=0.05) as audit:
        await audit.record(make_record())
        records = [make_record(**FULL) for _ in range(200)]
        results = await asyncio.gather(*(audit.record(r) for r in records), return_exceptions=True)
        failed = [type(r).__name__ for r in results if isinstance(r, BaseException)]
        async with audit.engine.connect() as conn:
            stored = set((await conn.execute(sa.select(audit_runs.c.run_id))).scalars())
    assert failed == []
    assert {r.run_id for r in records} <= stored


async def test_one_refused_record_in_a_burst_fails_only_its_own_turn(db_url: str) -> None:
    async with SqlAuditStore(db_url) as audit:
        taken = make_record()
        await audit.record(taken)
        others = [make_record() for _ in range(20)]
        burst = [*others[:10], make_record(run_id=taken.run_id), *others[10:]]
        results = await asyncio.gather(*(audit.record(r) for r in burst), return_exceptions=True)
        async with audit.engine.connect() as conn:
            stored = set((await conn.execute(sa.select(audit_runs.c.run_id))).scalars())
    refused = [r for r in results if isinstance(r, BaseException)]
    assert len(refused) == 1
    assert isinstance(refused[0], StoreError)
    assert not isinstance(refused[0], StoreUnavailable)
    assert {r.run_id for r in others} <= stored
