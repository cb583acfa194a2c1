"""Admin console benchmark at scale (on demand; prints figures, not collected by pytest).

    .venv/bin/python -m tests.perf.bench_admin_ui [--rows 1000000] [--samples 200] \
        [--pg postgresql://postgres@127.0.0.1:5432/postgres]

Loads ``--rows`` runs over 30 days into a private PostgreSQL database (created and dropped
here; COPY, as in bench_audit), serves the console as ``veilbot admin serve`` does (the real
stores, embedded Redis for sessions, the aiohttp server on 127.0.0.1), signs in, and prints
the p50/p95 wall time of whole HTTP requests, page rendering and the action-log write
included:

- the runs page: the newest page, a deep keyset page (a cursor a random way down the log),
  filtered by thread, by user, by metadata;
- the charts page: its first view (which sums the closed days into their summaries), then
  the last 30 days (every row) and the last 7 days from the summaries, and 30 days filtered
  by metadata (a filter the summaries cannot answer: aggregated from the runs).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import re
import statistics
import tempfile
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

import aiohttp
import asyncpg
from sqlalchemy.engine import make_url

from bot.admin.api import add_admin_routes
from bot.admin.auth import hash_token
from bot.audit.types import encode_cursor
from bot.config.settings import Settings
from bot.http_server import HttpServer
from bot.stores import add_console, build_admin_tokens, build_stores
from tests.fixtures.audit_db import bulk_insert, many_rows

TOKEN = "bench-admin-token-0123456789abcdef"
THREADS, USERS, WORKSPACES = 20_000, 5_000, 40
SPAN = timedelta(days=30)
ENTITY_MIXES = [{}, {"PERSON": 1}, {"PERSON": 2, "EMAIL_ADDRESS": 1}, {"PHONE_NUMBER": 1}]
STATUSES = ["ok"] * 97 + ["guardrail_error", "model_error", "rejected_input"]


def rows(total: int, end: datetime) -> Iterator[dict[str, Any]]:
    """``total`` runs spread evenly over the 30 days before ``end``."""
    start, step = end - SPAN, SPAN / total
    for i, row in enumerate(many_rows(total, prefix="r")):
        row["started_at"] = start + step * i
        row["finished_at"] = row["started_at"] + timedelta(seconds=2)
        row["thread_id"] = f"console:t{i % THREADS}"
        row["user_id"] = f"U{i % USERS}"
        row["workspace"] = f"T{i % WORKSPACES}"
        row["status"] = STATUSES[i % len(STATUSES)]
        row["entity_counts"] = ENTITY_MIXES[i % len(ENTITY_MIXES)]
        row["metadata"] = {"source": "dm" if i % 10 == 0 else "app_mention"}
        yield row


async def sign_in(http: aiohttp.ClientSession, base: str) -> None:
    form = await (await http.get(f"{base}/admin/ui/login")).text()
    match = re.search(r'name="csrf" value="([^"]*)"', form)
    assert match, "no sign-in form"
    data = {"token": TOKEN, "csrf": match.group(1), "next": "/admin/"}
    response = await http.post(f"{base}/admin/ui/login", data=data)
    assert response.status == 200, response.status


async def timed(http: aiohttp.ClientSession, url: str) -> float:
    started = time.perf_counter()
    async with http.get(url, allow_redirects=False) as response:
        await response.read()
        assert response.status == 200, (url, response.status)
    return (time.perf_counter() - started) * 1000


def report(name: str, timings: list[float]) -> None:
    timings.sort()
    p95 = timings[max(0, int(len(timings) * 0.95) - 1)]
    print(f"  {name:<34} p50 {statistics.median(timings):7.1f} ms   p95 {p95:7.1f} ms")


async def measure(base: str, samples: int, end: datetime) -> None:
    jar = aiohttp.CookieJar(unsafe=True)
    async with aiohttp.ClientSession(cookie_jar=jar) as http:
        await sign_in(http, base)

        def deep() -> str:
            at = end - SPAN * random.random()
            return f"{base}/admin/?cursor={encode_cursor(at, 'r~')}"

        kinds = {
            "runs: newest page": lambda: f"{base}/admin/",
            "runs: deep keyset page": deep,
            "runs: by thread": lambda: (
                f"{base}/admin/?thread_id=console:t{random.randrange(THREADS)}"
            ),
            "runs: by user": lambda: f"{base}/admin/?user_id=U{random.randrange(USERS)}",
            "runs: by metadata": lambda: f"{base}/admin/?meta={quote('source=dm')}",
        }
        runs_all: list[float] = []
        for name, url in kinds.items():
            timings = [await timed(http, url()) for _ in range(samples)]
            runs_all += timings
            report(name, timings)
        report("runs page, all of the above", runs_all)
        first = await timed(http, f"{base}/admin/ui/stats?since=30d")
        print(f"  {'charts: first view (sums closed days)':<34} {first:7.1f} ms")
        stats = {"charts: last 30 days (every row)": "30d", "charts: last 7 days": "7d"}
        for name, since in stats.items():
            url = f"{base}/admin/ui/stats?since={since}"
            report(name, [await timed(http, url) for _ in range(max(20, samples // 5))])
        url = f"{base}/admin/ui/stats?since=30d&meta={quote('source=dm')}"
        report("charts: 30 days by metadata (raw)", [await timed(http, url) for _ in range(3)])


async def bench(url: str, total: int, samples: int) -> None:
    end = datetime.now(UTC)
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp), database_url=url, admin_tokens=hash_token(TOKEN))
        async with build_stores(settings) as stores:
            started = time.perf_counter()
            loaded = await bulk_insert(stores.audit, rows(total, end))
            # VACUUM too, so autovacuum of the fresh million rows does not run mid-measurement.
            engine = stores.audit.engine.execution_options(isolation_level="AUTOCOMMIT")
            async with engine.connect() as conn:
                await conn.exec_driver_sql("VACUUM ANALYZE audit_runs")
            took = time.perf_counter() - started
            print(f"[postgresql] loaded {loaded:,} runs over 30 days in {took:.0f} s")
            server = HttpServer("127.0.0.1", 0)
            tokens = build_admin_tokens(settings)
            add_admin_routes(
                server.app, store=stores.audit, tokens=tokens, readiness=stores.readiness
            )
            add_console(
                server.app,
                settings,
                redis=stores.redis,
                audit=stores.audit,
                tokens=tokens,
                eraser=stores.eraser,
            )
            async with server:
                await measure(server.url, samples, end)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--pg", default="postgresql://postgres@127.0.0.1:5432/postgres")
    args = parser.parse_args()
    admin_url = make_url(args.pg)
    name = f"vb_bench_ui_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(admin_url.render_as_string(hide_password=False))
    await admin.execute(f'CREATE DATABASE "{name}"')
    try:
        url = admin_url.set(drivername="postgresql+asyncpg", database=name)
        await bench(url.render_as_string(hide_password=False), args.rows, args.samples)
    finally:
        await admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
        await admin.close()


if __name__ == "__main__":
    asyncio.run(main())
