"""Seeded personal data, sent through the real turn, never appears in any admin output.

Real composition root (``build_app``), real Presidio, real Redis, real SQLite/PostgreSQL, the
fake Anthropic server; then every admin surface is read back: the export (JSONL, CSV, gzip),
``list_runs``, the HTTP admin API, the chat export, and the ``veilbot audit`` CLI.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import os
import sys
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from bot.admin.api import add_admin_routes
from bot.admin.auth import AdminTokens, hash_token
from bot.app import App
from bot.audit.export import export_chunks, record_dict
from bot.audit.types import RunFilter, parse_user_ref
from bot.core.types import TurnStatus
from tests.e2e.conftest import MakeApp, message, unique_thread
from tests.e2e.test_guarded_turn import SEEDED, TURNS, leaked

TOKEN = "e2e-admin-token-abcdefghijkl"


@pytest.fixture(params=["sqlite", "postgres"])
def database_url(request: pytest.FixtureRequest) -> str | None:
    if request.param == "sqlite":
        return None
    return str(request.getfixturevalue("postgres_url"))


async def admin_api_text(app: App, tid: str, run_id: str) -> str:
    web_app = web.Application()
    tokens = AdminTokens.parse(hash_token(TOKEN))
    add_admin_routes(web_app, store=app.audit, tokens=tokens, readiness=app.readiness)
    headers = {"Authorization": f"Bearer {TOKEN}"}
    parts = []
    async with TestClient(TestServer(web_app, host="127.0.0.1")) as client:
        for path in (
            f"/admin/runs?thread_id={tid}",
            f"/admin/runs/{run_id}",
            f"/admin/stats?by=thread&thread_id={tid}",
            f"/admin/export.jsonl?thread_id={tid}",
            f"/admin/export.csv?thread_id={tid}",
            "/readyz",
        ):
            response = await client.get(path, headers=headers)
            assert response.status == 200, path
            parts.append(await response.text())
    return "\n".join(parts)


async def cli_text(app: App, tid: str) -> str:
    env = {
        **os.environ,
        "VEILBOT_DATA_DIR": str(app.settings.data_dir),
        "VEILBOT_DATABASE_URL": app.settings.database_url or "",
    }
    outputs = []
    for args in (
        ["audit", "export", "--thread", tid, "--format", "csv"],
        ["audit", "list", "--thread", tid, "--json"],
    ):
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot",
            *args,
            env=env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            out, err = await asyncio.wait_for(proc.communicate(), 60)
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
        assert proc.returncode == 0, err.decode()
        outputs.append(out.decode())
    assert tid in outputs[0]
    return "\n".join(outputs)


@pytest.mark.redis_cluster
async def test_seeded_pii_never_appears_in_exports_lists_api_or_cli(
    make_app: MakeApp, database_url: str | None
) -> None:
    app = await make_app(database_url=database_url, admin_users="console:U-tester")
    thread = unique_thread()
    replies = [await app.conversation.handle(message(text, thread)) for text in TURNS]
    assert all(r is not None and r.status is TurnStatus.OK for r in replies)
    tid = f"console:{thread}"
    run_filter = RunFilter(thread_id=tid)

    page = await app.audit.list_runs(run_filter)
    assert len(page.runs) == len(TURNS)
    assert any("<PERSON_1>" in r.prompt for r in page.runs)  # the redaction really ran
    surfaces = {
        "list": json.dumps([record_dict(r) for r in page.runs], ensure_ascii=False),
        "stats": json.dumps([r.entities for r in await app.audit.rollup(run_filter, "user")]),
    }
    for fmt in ("jsonl", "csv"):
        data = b"".join([c async for c in export_chunks(app.audit, run_filter, fmt, gzip=True)])
        surfaces[fmt] = gzip.decompress(data).decode()
    chat = await app.admin.audit_export("console:U-tester", [f"thread:{tid}"])
    assert chat.allowed
    assert chat.file is not None
    surfaces["chat"] = gzip.decompress(chat.file).decode() + chat.text
    surfaces["api"] = await admin_api_text(app, tid, page.runs[0].run_id)
    surfaces["cli"] = await cli_text(app, tid)
    for name, text in surfaces.items():
        assert tid in text or name == "stats", name
        assert leaked(SEEDED, text) == [], name


async def test_forget_through_the_composition_root(
    make_app: MakeApp, redis_url: str, redis_prefix: str
) -> None:
    from tests.fixtures.services import redis_dump

    app = await make_app()
    mine, other = unique_thread(), unique_thread()
    await app.conversation.handle(message(TURNS[0], mine))
    other_msg = message(TURNS[1], other)
    await app.conversation.handle(
        type(other_msg)(
            **{**{f: getattr(other_msg, f) for f in other_msg.__slots__}, "user_id": "U-other"}
        )
    )
    counts = await app.eraser.forget_user(parse_user_ref("console:U-tester"))
    assert (counts.threads, counts.redis_keys, counts.runs_deleted) == (1, 2, 1)
    dump = redis_dump(redis_url, redis_prefix)
    assert f"console:{mine}" not in dump
    assert f"console:{other}" in dump
    assert await app.audit.count_runs(RunFilter(thread_id=f"console:{other}")) == 1
    assert await app.audit.count_runs(RunFilter(thread_id=f"console:{mine}")) == 0


async def test_chat_export_refuses_non_admins(make_app: MakeApp, tmp_path: Path) -> None:
    app = await make_app(admin_users="slack:T1:UADMIN")
    refused = await app.admin.audit_export("slack:T1:USOMEONE", ["7d"])
    assert not refused.allowed
    assert refused.file is None
    assert "admin" in refused.text
    allowed = await app.admin.audit_export("slack:T1:UADMIN", ["7d"])
    assert allowed.allowed
    assert allowed.file is not None
    assert json.loads(gzip.decompress(allowed.file).splitlines()[0])["_meta"]
    bad = await app.admin.audit_export("slack:T1:UADMIN", ["7d", "yesterday-ish"])
    assert not bad.allowed
    assert "Usage" in bad.text
