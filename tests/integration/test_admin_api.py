"""The HTTP admin API on real SQLite/PostgreSQL through a real aiohttp server on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from bot.admin.api import add_admin_routes
from bot.admin.auth import AdminTokens, hash_token
from bot.audit.store import SqlAuditStore
from tests.fixtures.audit_db import bulk_insert, many_rows, run

ADMIN, READER = "admin-token-0123456789", "reader-token-0123456789"
ROUTES = [
    "/admin/runs",
    "/admin/runs/some-run",
    "/admin/stats",
    "/admin/export.jsonl",
    "/admin/export.csv",
    "/admin/openapi.json",
]


@pytest.fixture
async def client(audit_store: SqlAuditStore) -> AsyncIterator[TestClient]:
    tokens = AdminTokens.parse(f"{hash_token(ADMIN)},{hash_token(READER)}:metrics")
    ready = {"redis": True, "database": True, "guardrail": True}

    async def readiness() -> dict[str, bool]:
        return ready

    app = web.Application()
    add_admin_routes(app, store=audit_store, tokens=tokens, readiness=readiness)
    async with TestClient(TestServer(app, host="127.0.0.1")) as c:
        c.ready = ready  # type: ignore[attr-defined]
        yield c


def auth(token: str = ADMIN) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.mark.parametrize("path", ROUTES)
async def test_every_admin_route_needs_an_admin_token(client: TestClient, path: str) -> None:
    assert (await client.get(path)).status == 401
    wrong = await client.get(path, headers=auth("not-a-token"))
    assert wrong.status == 401
    assert wrong.headers["WWW-Authenticate"] == "Bearer"
    assert (await client.get(path, headers={"Authorization": ADMIN})).status == 401
    assert (await client.get(path, headers=auth(READER))).status == 403
    assert (await client.get(path, headers=auth())).status in (200, 404)


async def test_runs_pages_filters_and_one_run(
    client: TestClient, audit_store: SqlAuditStore
) -> None:
    await bulk_insert(audit_store, many_rows(5, prefix="a", metadata={"source": "dm"}))
    await audit_store.record(run(thread_id="discord:G1:1", platform="discord"))
    page1 = await (await client.get("/admin/runs?limit=3&meta.source=dm", headers=auth())).json()
    assert [r["run_id"] for r in page1["runs"]] == [
        "a000000000004",
        "a000000000003",
        "a000000000002",
    ]
    cursor = page1["next_cursor"]
    page2 = await (
        await client.get(f"/admin/runs?limit=3&meta.source=dm&cursor={cursor}", headers=auth())
    ).json()
    assert [r["run_id"] for r in page2["runs"]] == ["a000000000001", "a000000000000"]
    assert page2["next_cursor"] is None
    one = await client.get("/admin/runs/a000000000001", headers=auth())
    assert (await one.json())["thread_id"] == "slack:T1:C1:100.1"
    assert (await client.get("/admin/runs/nope", headers=auth())).status == 404
    discord = await (await client.get("/admin/runs?platform=discord", headers=auth())).json()
    assert len(discord["runs"]) == 1


@pytest.mark.parametrize(
    "query",
    [
        "meta.a.b=1",
        "status=great",
        "limit=0",
        "limit=x",
        "cursor=zzz",
        "since=soon",
        "colour=red",
        "by=week",
    ],
)
async def test_bad_queries_are_400_with_a_reason(client: TestClient, query: str) -> None:
    path = "/admin/stats" if query.startswith("by=") else "/admin/runs"
    response = await client.get(f"{path}?{query}", headers=auth())
    assert response.status == 400
    assert (await response.json())["error"]
    export = await client.get(f"/admin/export.jsonl?{query}", headers=auth())
    assert export.status == 400 or query.startswith(("limit", "cursor", "by"))


async def test_exports_stream_with_a_meta_line(
    client: TestClient, audit_store: SqlAuditStore
) -> None:
    await bulk_insert(audit_store, many_rows(3000, prefix="e"))
    response = await client.get("/admin/export.jsonl", headers=auth())
    assert response.headers["Content-Type"].startswith("application/x-ndjson")
    lines = (await response.text()).splitlines()
    assert json.loads(lines[0])["_meta"]["contains_personal_data"] is False
    assert len(lines) == 3001
    csv_text = await (await client.get("/admin/export.csv?user_id=U1", headers=auth())).text()
    assert csv_text.startswith("#veilbot-audit-export ")
    assert len(csv_text.splitlines()) == 3002


async def test_stats_health_readiness_and_openapi(
    client: TestClient, audit_store: SqlAuditStore
) -> None:
    await audit_store.record(run())
    stats = await (await client.get("/admin/stats?by=user", headers=auth())).json()
    assert stats["runs"] == 1
    assert stats["groups"][0]["key"] == "U1"
    assert stats["groups"][0]["entity_total"] == 2
    assert (await client.get("/healthz")).status == 200
    ready = await client.get("/readyz")
    assert ready.status == 200
    client.ready["redis"] = False  # type: ignore[attr-defined]
    not_ready = await client.get("/readyz")
    assert not_ready.status == 503
    assert (await not_ready.json())["checks"]["redis"] is False
    spec = await (await client.get("/admin/openapi.json", headers=auth())).json()
    assert set(spec["paths"]) >= {
        "/admin/runs",
        "/admin/runs/{run_id}",
        "/admin/stats",
        "/admin/export.jsonl",
        "/admin/export.csv",
        "/healthz",
        "/readyz",
    }


def test_token_settings_are_validated_without_echoing_them() -> None:
    from bot.core.errors import ConfigError

    with pytest.raises(ConfigError) as info:
        AdminTokens.parse("plain-secret-token")
    assert "plain-secret-token" not in str(info.value)
    tokens = AdminTokens.parse(f"{hash_token('x')}:admin+metrics")
    assert tokens.scopes("x") == frozenset({"admin", "metrics"})
    assert tokens.scopes("y") is None


async def test_every_api_call_is_recorded_with_who_and_filter(
    client: TestClient, audit_store: SqlAuditStore
) -> None:
    record = run()
    await audit_store.record(record)
    await client.get("/admin/runs?platform=slack&meta.source=dm", headers=auth())
    await client.get(f"/admin/runs/{record.run_id}", headers=auth())
    await client.get("/admin/export.csv?channel=C1", headers=auth())
    await client.get("/admin/openapi.json", headers=auth())
    await client.get("/admin/runs", headers=auth(READER))  # refused: not an action
    actions = list(reversed(await audit_store.recent_actions()))
    assert [(a.action, a.target, a.filter) for a in actions] == [
        ("view_runs", None, {"platform": "slack", "metadata": {"source": "dm"}}),
        ("view_run", record.run_id, {}),
        ("export", None, {"channel": "C1"}),
    ]
    assert {a.actor for a in actions} == {f"tok:{hash_token(ADMIN)[:12]}"}
    assert actions[2].outcome == {"via": "api", "format": "csv"}
