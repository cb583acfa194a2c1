"""Per-workspace admin access (Slack OAuth): tokens limited to workspaces, chat exports kept to
the admin's own workspace. Real SQLite/PostgreSQL, a real aiohttp server on 127.0.0.1."""

from __future__ import annotations

import gzip
import json
from collections.abc import AsyncIterator

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from bot.admin.api import add_admin_routes
from bot.admin.auth import AdminTokens, hash_token
from bot.admin.commands import AdminService, parse_admins
from bot.audit.store import SqlAuditStore
from bot.core.errors import ConfigError
from tests.fixtures.audit_db import run

ADMIN, LIMITED = "admin-token-0123456789", "team-a-token-0123456789"


@pytest.fixture
async def client(audit_store: SqlAuditStore) -> AsyncIterator[TestClient]:
    for team in ("TA", "TB"):
        await audit_store.record(
            run(run_id=f"run-{team}", thread_id=f"slack:{team}:C1:1.1", workspace=team)
        )
    tokens = AdminTokens.parse(f"{hash_token(ADMIN)},{hash_token(LIMITED)}:admin@TA")

    async def readiness() -> dict[str, bool]:
        return {"database": True}

    app = web.Application()
    add_admin_routes(app, store=audit_store, tokens=tokens, readiness=readiness)
    async with TestClient(TestServer(app, host="127.0.0.1")) as c:
        yield c


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def run_ids(client: TestClient, token: str, query: str = "") -> list[str]:
    response = await client.get(f"/admin/runs{query}", headers=auth(token))
    assert response.status == 200
    return sorted(r["run_id"] for r in (await response.json())["runs"])


async def test_a_limited_token_reads_and_exports_its_workspaces_only(
    client: TestClient, audit_store: SqlAuditStore
) -> None:
    assert await run_ids(client, ADMIN) == ["run-TA", "run-TB"]
    assert await run_ids(client, LIMITED) == ["run-TA"]
    assert await run_ids(client, LIMITED, "?workspace=TA") == ["run-TA"]
    other = await client.get("/admin/runs?workspace=TB", headers=auth(LIMITED))
    assert other.status == 403
    assert "workspace" in (await other.json())["error"]
    assert (await client.get("/admin/runs/run-TB", headers=auth(LIMITED))).status == 404
    assert (await client.get("/admin/runs/run-TA", headers=auth(LIMITED))).status == 200

    export = await client.get("/admin/export.jsonl", headers=auth(LIMITED))
    lines = [json.loads(line) for line in (await export.text()).splitlines()]
    assert [r["run_id"] for r in lines if "run_id" in r] == ["run-TA"]
    stats = await (await client.get("/admin/stats", headers=auth(LIMITED))).json()
    assert stats["runs"] == 1

    actions = [a for a in await audit_store.recent_actions() if a.action == "view_runs"]
    assert any(a.filter.get("workspaces") == ["TA"] for a in actions)  # logged as confined


@pytest.mark.parametrize("entry", ["@", "@T A", "@TA+", ":admin@TA;TB", "@T<b>"])
def test_malformed_workspace_limits_are_refused_without_echoing_the_value(entry: str) -> None:
    with pytest.raises(ConfigError, match="entry 1") as caught:
        AdminTokens.parse(hash_token(LIMITED) + entry)
    assert hash_token(LIMITED) not in str(caught.value)
    assert AdminTokens.parse(hash_token(LIMITED) + "@TA+TB")  # the well-formed spelling


async def test_a_slack_admins_chat_export_holds_their_workspace_only(
    audit_store: SqlAuditStore,
) -> None:
    for team in ("TA", "TB"):
        await audit_store.record(
            run(run_id=f"run-{team}", thread_id=f"slack:{team}:C1:1.1", workspace=team)
        )
    await audit_store.record(run(run_id="run-D", thread_id="discord:G1:1", platform="discord"))
    admins = parse_admins("slack:TA:UADMIN, slack:TB:UADMIN")
    service = AdminService(audit_store, admins=admins, per_workspace=True)

    reply = await service.audit_export("slack:TA:UADMIN", [])
    assert reply.allowed
    assert reply.file is not None
    rows = [json.loads(line) for line in gzip.decompress(reply.file).splitlines()]
    assert [r["run_id"] for r in rows if "run_id" in r] == ["run-TA"]
    refused = await service.audit_export("slack:TA:UADMIN", ["user:slack:TB:U9"])
    assert not refused.allowed
    assert "this workspace only" in refused.text

    shared = AdminService(audit_store, admins=admins)  # one workspace's bot: no confinement
    everything = await shared.audit_export("slack:TA:UADMIN", [])
    assert everything.file is not None
    rows = [json.loads(line) for line in gzip.decompress(everything.file).splitlines()]
    assert sorted(r["run_id"] for r in rows if "run_id" in r) == ["run-D", "run-TA", "run-TB"]
