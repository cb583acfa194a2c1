"""The admin console for a token limited to workspaces: every page and action confined to them.

Two Slack workspaces' runs, history, budgets and scopes are seeded; a token limited to ``TA``
signs in to the real console (real aiohttp server on 127.0.0.1, real Redis, real
SQLite/PostgreSQL) and must see, export, chart, erase and raise ``TA``'s only. The unlimited
admin beside it sees both, so every assertion could fail.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from bot.admin.auth import AdminTokens, hash_token
from bot.admin.budgets import BudgetAdmin
from bot.admin.console.routes import add_console_routes
from bot.admin.sessions import ConsoleSessions
from bot.audit.types import RunFilter
from bot.config.settings import Settings
from bot.core.budgets import Budgets
from bot.core.keys import KeySpace
from bot.core.scopes import Scope, Scopes
from bot.core.types import ChatMessage, ThreadId
from bot.state.budgets import RedisSpendLedger
from bot.state.sessions import RedisSessionBackend
from bot.stores import Stores, build_stores
from tests.fixtures.audit_db import run
from tests.integration.test_admin_console import field, sign_in

ADMIN, LIMITED = "console-admin-token-0123456789", "console-team-a-token-0123456789"
THREAD_A, THREAD_B = ThreadId("slack:TA:C1:100.1"), ThreadId("slack:TB:C1:100.1")


@dataclass
class Rig:
    client: TestClient
    stores: Stores


@pytest.fixture
async def rig(
    tmp_path: Path, fresh_db_url: str, redis_url: str, redis_prefix: str
) -> AsyncIterator[Rig]:
    settings = Settings(
        data_dir=tmp_path / "data",
        redis_url=redis_url,
        redis_prefix=redis_prefix,
        database_url=fresh_db_url,
    )
    async with build_stores(settings) as stores:
        for team, thread in (("TA", THREAD_A), ("TB", THREAD_B)):
            await stores.audit.record(
                run(run_id=f"run-{team}", thread_id=thread, workspace=team, user_id=f"U{team}")
            )
            await stores.history.append(thread, [ChatMessage("user", f"hello <PERSON_1> {team}")])
        named = {"workspace": {"slack:TA": 100.0, "slack:TB": 200.0}}
        ledger = RedisSpendLedger(stores.redis, KeySpace(redis_prefix), Budgets(named=named))
        scopes = Scopes(
            by_id={n: Scope(name=n, model=f"model-{n[-2:]}") for n in ("slack:TA", "slack:TB")}
        )
        app = web.Application()
        add_console_routes(
            app,
            store=stores.audit,
            tokens=AdminTokens.parse(f"{hash_token(ADMIN)},{hash_token(LIMITED)}@TA"),
            sessions=ConsoleSessions(RedisSessionBackend(stores.redis, redis_prefix), 600),
            eraser=stores.eraser,
            scopes=lambda: scopes,
            budgets=BudgetAdmin(ledger, stores.audit),
        )
        async with TestClient(TestServer(app, host="127.0.0.1")) as client:
            yield Rig(client, stores)


async def text(rig: Rig, path: str, status: int = 200) -> str:
    response = await rig.client.get(path, allow_redirects=False)
    assert response.status == status, path
    return await response.text()


async def test_the_unlimited_admin_sees_both_workspaces(rig: Rig) -> None:
    assert (await sign_in(rig.client, ADMIN)).status == 303
    runs = await text(rig, "/admin/")
    assert "run-TA" in runs
    assert "run-TB" in runs
    assert 'id="limited-to"' not in runs
    assert "/admin/ui/activity" in runs
    assert "run-TB" in await text(rig, f"/admin/ui/thread/{THREAD_B}")
    settings = await text(rig, "/admin/ui/settings")
    assert all(f'id="scope-{n}"' in settings for n in ("everywhere", "slack:TA", "slack:TB"))


async def test_a_limited_admin_sees_charts_and_exports_their_workspace_only(rig: Rig) -> None:
    signed = await sign_in(rig.client, LIMITED)
    assert signed.status == 303
    runs = await text(rig, "/admin/")
    assert "run-TA" in runs
    assert "run-TB" not in runs
    assert '<span class="who" id="limited-to"' in runs
    assert "/admin/ui/activity" not in runs  # the action log spans every workspace
    assert "may not read that workspace" in await text(rig, "/admin/?workspace=TB", 403)
    assert "run-TA" in await text(rig, "/admin/?workspace=TA")

    # another workspace's run or thread, by id or URL: as if it did not exist
    other = await text(rig, "/admin/ui/run/run-TB", 404)
    assert other == await text(rig, "/admin/ui/run/no-such-run", 404)
    assert "Done, &lt;PERSON_1&gt;" in await text(rig, "/admin/ui/run/run-TA")
    thread = await text(rig, f"/admin/ui/thread/{THREAD_B}")
    assert "run-TB" not in thread
    assert "No turns" in thread
    assert "run-TA" in await text(rig, f"/admin/ui/thread/{THREAD_A}")

    export = await text(rig, "/admin/ui/export.jsonl")
    lines = [json.loads(line) for line in export.splitlines()]
    assert lines[0]["_meta"]["filter"] == {"workspaces": ["TA"]}
    assert [r["run_id"] for r in lines[1:]] == ["run-TA"]
    await text(rig, "/admin/ui/export.csv?workspace=TB", 403)

    charts = await text(rig, "/admin/ui/stats?since=2026-02-01")
    assert "<title>TA: " in charts
    assert "TB" not in charts
    assert "1 turns" in charts

    await text(rig, "/admin/ui/activity", 403)
    settings = await text(rig, "/admin/ui/settings")
    assert 'id="scope-slack:TA"' in settings
    assert "model-TA" in settings
    assert "slack:TB" not in settings
    assert "model-TB" not in settings
    assert 'id="scope-everywhere"' not in settings

    actions = await rig.stores.audit.recent_actions()
    [signed_in] = [a for a in actions if a.action == "sign_in"]
    assert signed_in.outcome == {"workspaces": ["TA"]}
    exported = [a for a in actions if a.action == "export"]
    assert [a.filter for a in exported] == [{"workspaces": ["TA"]}]  # the refused one: none


async def test_a_limited_admin_cannot_erase_another_workspaces_thread_or_user(rig: Rig) -> None:
    audit, history = rig.stores.audit, rig.stores.history
    await sign_in(rig.client, LIMITED)
    csrf = field(await text(rig, "/admin/"), "csrf")
    for query in (f"thread={THREAD_B}", "user=slack:TB:UTB", "user=discord:UTB"):
        assert "No such user or thread" in await text(rig, f"/admin/ui/erase?{query}", 404)
    for target in ({"thread": THREAD_B}, {"user": "slack:TB:UTB"}, {"user": "discord:UTB"}):
        refused = await rig.client.post("/admin/ui/erase", data={**target, "csrf": csrf})
        assert refused.status == 404, target
    assert await audit.get_run("run-TB") is not None
    assert await history.load(THREAD_B) != []
    assert not [a for a in await audit.recent_actions() if a.action.startswith("erase")]

    preview = await text(rig, f"/admin/ui/erase?thread={THREAD_A}")
    assert '<strong id="erase-runs">1</strong>' in preview
    done = await rig.client.post("/admin/ui/erase", data={"thread": THREAD_A, "csrf": csrf})
    assert done.status == 200
    assert await audit.count_runs(RunFilter(thread_id=THREAD_A)) == 0
    assert await history.load(THREAD_A) == []
    assert await history.load(THREAD_B) != []


async def test_a_limited_admin_sees_and_raises_their_workspaces_budgets_only(rig: Rig) -> None:
    await sign_in(rig.client, LIMITED)
    page = await text(rig, "/admin/ui/budgets")
    assert "slack:TA" in page
    assert "$100.00" in page
    assert "slack:TB" not in page
    csrf = field(page, "csrf")
    for ident in ("slack:TB", "slack:TB:UTB", "discord:G1"):
        refused = await rig.client.post(
            "/admin/ui/budgets",
            data={"kind": "workspace", "ident": ident, "usd": "5000", "csrf": csrf},
        )
        assert refused.status == 404, ident
    raised = await rig.client.post(
        "/admin/ui/budgets",
        data={"kind": "workspace", "ident": "slack:TA", "usd": "150", "csrf": csrf},
    )
    assert raised.status == 200
    assert "$150.00" in await raised.text()
    changes = [a for a in await rig.stores.audit.recent_actions() if a.action == "budget_limit"]
    assert [a.target for a in changes] == ["slack:TA"]
