"""Audit log benchmark (on demand; prints figures, not collected by pytest).

    .venv/bin/python -m tests.perf.bench_audit [--rows 1000000] [--pg postgresql://postgres@127.0.0.1:5432/postgres]

For SQLite (a temp file) and PostgreSQL (a private database created and dropped here):
- insert throughput through ``SqlAuditStore.record`` (one transaction per record, as turns
  write them) with 8 concurrent writers, records/s;
- bulk load of ``--rows`` rows (COPY / executemany) to set up the rest;
- export rate (rows/s) of all rows as JSONL and the peak RSS growth during it;
- ``list_runs`` by thread (limit 50) latency p50/p99 over 500 random threads.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import tempfile
import threading
import time
import uuid
from pathlib import Path

import asyncpg
from sqlalchemy.engine import make_url

from bot.audit.export import export_chunks
from bot.audit.store import SqlAuditStore, sqlite_url
from bot.audit.types import RunFilter
from tests.fixtures.audit_db import bulk_insert, many_rows, run

THREADS = 20_000


def rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


async def insert_rate(store: SqlAuditStore, count: int = 4000, writers: int = 8) -> float:
    async def writer(n: int) -> None:
        for _ in range(n):
            await store.record(run(thread_id=f"console:w{random.randrange(100)}"))

    started = time.perf_counter()
    await asyncio.gather(*(writer(count // writers) for _ in range(writers)))
    return count / (time.perf_counter() - started)


def _rows(total: int):  # type: ignore[no-untyped-def]
    for i, row in enumerate(many_rows(total, prefix="r")):
        row["thread_id"] = f"console:t{i % THREADS}"
        row["user_id"] = f"U{i % 5000}"
        yield row


async def export_rate(store: SqlAuditStore) -> tuple[float, int, int]:
    peak = base = rss()
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not stop.wait(0.01):
            peak = max(peak, rss())

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    lines = 0
    started = time.perf_counter()
    async for chunk in export_chunks(store, RunFilter(), "jsonl"):
        lines += chunk.count(b"\n")
    elapsed = time.perf_counter() - started
    stop.set()
    sampler.join()
    return (lines - 1) / elapsed, peak - base, peak


async def list_latency(store: SqlAuditStore, samples: int = 500) -> tuple[float, float]:
    timings = []
    for _ in range(samples):
        thread = f"console:t{random.randrange(THREADS)}"
        started = time.perf_counter()
        page = await store.list_runs(RunFilter(thread_id=thread), limit=50)
        timings.append((time.perf_counter() - started) * 1000)
        assert page.runs
    timings.sort()
    return statistics.median(timings), timings[int(len(timings) * 0.99) - 1]


async def bench(name: str, url: str, rows: int) -> None:
    async with SqlAuditStore(url) as store:
        print(f"[{name}] insert via record(), 8 writers: {await insert_rate(store):,.0f} records/s")
        started = time.perf_counter()
        loaded = await bulk_insert(store, _rows(rows))
        print(f"[{name}] bulk load {loaded:,} rows: {time.perf_counter() - started:.1f} s")
        if name == "postgresql":
            async with store.engine.connect() as conn:
                await conn.exec_driver_sql("ANALYZE audit_runs")
        rate, growth, peak = await export_rate(store)
        print(
            f"[{name}] export JSONL: {rate:,.0f} rows/s; RSS growth {growth / 2**20:.1f} MiB "
            f"(peak RSS {peak / 2**20:.0f} MiB)"
        )
        p50, p99 = await list_latency(store)
        print(f"[{name}] list_runs by thread (limit 50): p50 {p50:.2f} ms, p99 {p99:.2f} ms")


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--pg", default="postgresql://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--only", choices=["sqlite", "postgresql"])
    args = parser.parse_args()
    if args.only != "postgresql":
        with tempfile.TemporaryDirectory() as tmp:
            await bench("sqlite", sqlite_url(Path(tmp)), args.rows)
    if args.only == "sqlite":
        return
    admin_url = make_url(args.pg)
    name = f"vb_bench_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(admin_url.render_as_string(hide_password=False))
    await admin.execute(f'CREATE DATABASE "{name}"')
    try:
        url = admin_url.set(drivername="postgresql+asyncpg", database=name)
        await bench("postgresql", url.render_as_string(hide_password=False), args.rows)
    finally:
        await admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
        await admin.close()


if __name__ == "__main__":
    asyncio.run(main())
