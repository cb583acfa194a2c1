"""The admin console's guard over HTTP: sessions, CSRF, refusals, headers and the action log.

A real aiohttp server on 127.0.0.1, real Redis for sessions, real SQLite/PostgreSQL; the
browser walk-through is tests/e2e/test_admin_console.py.
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from aiohttp import ClientResponse, web
from aiohttp.test_utils import TestClient, TestServer

from bot.admin.auth import AdminTokens, hash_token
from bot.admin.console.routes import add_console_routes
from bot.admin.sessions import ConsoleSessions
from bot.audit.types import RunFilter
from bot.config.settings import Settings
from bot.core.types import TurnStatus
from bot.state.sessions import RedisSessionBackend
from bot.stores import Stores, build_stores
from tests.fixtures.audit_db import bulk_insert, many_rows, run

ADMIN, READER = "console-admin-token-0123456789", "console-reader-token-0123456789"
TTL = 600


@dataclass
class Rig:
    client: TestClient
    stores: Stores
    clock: list[float]


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
    clock = [1_000_000.0]
    async with build_stores(settings) as stores:
        tokens = AdminTokens.parse(f"{hash_token(ADMIN)},{hash_token(READER)}:metrics")
        sessions = ConsoleSessions(
            RedisSessionBackend(stores.redis, redis_prefix), TTL, clock=lambda: clock[0]
        )
        app = web.Application()
        add_console_routes(
            app, store=stores.audit, tokens=tokens, sessions=sessions, eraser=stores.eraser
        )
        async with TestClient(TestServer(app, host="127.0.0.1")) as client:
            yield Rig(client, stores, clock)


def field(html: str, name: str) -> str:
    match = re.search(rf'name="{name}" value="([^"]*)"', html)
    assert match, f"no {name} field"
    return match.group(1)


async def sign_in(client: TestClient, token: str = ADMIN, **headers: str) -> ClientResponse:
    form = await client.get("/admin/ui/login")
    csrf = field(await form.text(), "csrf")
    return await client.post(
        "/admin/ui/login",
        data={"token": token, "csrf": csrf, "next": "/admin/"},
        headers=headers,
        allow_redirects=False,
    )


async def csrf_of(client: TestClient) -> str:
    page = await client.get("/admin/")
    assert page.status == 200
    return field(await page.text(), "csrf")


async def test_requests_without_a_session_are_refused(rig: Rig) -> None:
    await rig.stores.audit.record(run())
    for path in (
        "/admin/",
        "/admin/ui/run/x",
        "/admin/ui/thread/slack:T1:C1:1",
        "/admin/ui/activity",
    ):
        response = await rig.client.get(path, allow_redirects=False)
        assert response.status == 303, path
        assert response.headers["Location"].startswith("/admin/ui/login?next=")
        assert "Mail" not in await response.text()
    response = await rig.client.post("/admin/ui/logout", data={"csrf": "x"})
    assert response.status == 403
    forged = rig.client.session.cookie_jar
    forged.update_cookies({"veilbot_admin": "made-up-session-id"})
    assert (await rig.client.get("/admin/", allow_redirects=False)).status == 303


async def test_wrong_token_and_token_without_admin_scope_are_refused(rig: Rig) -> None:
    wrong = await sign_in(rig.client, "not-a-token")
    assert wrong.status == 401
    assert "not an admin token" in await wrong.text()
    assert "veilbot_admin" not in {c.key for c in rig.client.session.cookie_jar}
    reader = await sign_in(rig.client, READER)
    assert reader.status == 401
    assert (await rig.client.get("/admin/", allow_redirects=False)).status == 303


async def test_sign_in_without_the_login_form_token_is_refused(rig: Rig) -> None:
    response = await rig.client.post(
        "/admin/ui/login", data={"token": ADMIN, "csrf": "forged"}, allow_redirects=False
    )
    assert response.status == 403
    assert (await rig.client.get("/admin/", allow_redirects=False)).status == 303


@pytest.mark.redis_cluster
async def test_session_cookie_flags_headers_and_sign_out(rig: Rig) -> None:
    response = await sign_in(rig.client)
    assert response.status == 303
    assert response.headers["Location"] == "/admin/"
    cookie = response.cookies["veilbot_admin"]
    assert cookie["httponly"] is True
    assert cookie["samesite"] == "Strict"
    assert cookie["path"] == "/admin/"
    assert int(cookie["max-age"]) == TTL
    assert not cookie["secure"]  # plain HTTP here; behind TLS see the next test
    page = await rig.client.get("/admin/")
    assert page.status == 200
    csp = page.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp
    assert "unsafe-inline" not in csp
    assert page.headers["X-Frame-Options"] == "DENY"
    assert page.headers["Cache-Control"] == "no-store"
    out = await rig.client.post(
        "/admin/ui/logout", data={"csrf": field(await page.text(), "csrf")}, allow_redirects=False
    )
    assert out.status == 303
    assert (await rig.client.get("/admin/", allow_redirects=False)).status == 303


async def test_session_cookie_is_secure_behind_tls(rig: Rig) -> None:
    response = await sign_in(rig.client, **{"X-Forwarded-Proto": "https"})
    assert response.cookies["veilbot_admin"]["secure"] is True


async def test_forged_csrf_token_is_refused_and_changes_nothing(rig: Rig) -> None:
    await sign_in(rig.client)
    real = await csrf_of(rig.client)
    for forged in ("", "forged", real[:-1] + ("A" if real[-1] != "A" else "B")):
        response = await rig.client.post("/admin/ui/logout", data={"csrf": forged})
        assert response.status == 403, forged
    assert (await rig.client.get("/admin/", allow_redirects=False)).status == 200  # still in


@pytest.mark.redis_cluster
async def test_expired_session_is_refused(rig: Rig) -> None:
    await sign_in(rig.client)
    assert (await rig.client.get("/admin/", allow_redirects=False)).status == 200
    rig.clock[0] += TTL + 1
    response = await rig.client.get("/admin/", allow_redirects=False)
    assert response.status == 303
    assert response.headers["Location"].startswith("/admin/ui/login")


async def test_every_view_is_recorded_with_who_and_filter(rig: Rig) -> None:
    record = run()
    await rig.stores.audit.record(record)
    await sign_in(rig.client)
    await rig.client.get("/admin/?platform=slack&thread_id=slack:T1:C1:100.1")
    await rig.client.get(f"/admin/ui/run/{record.run_id}")
    await rig.client.get("/admin/ui/thread/slack:T1:C1:100.1")
    actions = await rig.stores.audit.recent_actions()
    who = f"tok:{hash_token(ADMIN)[:12]}"
    assert [a.action for a in reversed(actions)] == [
        "sign_in",
        "view_runs",
        "view_run",
        "view_thread",
    ]
    assert {a.actor for a in actions} == {who}
    assert actions[2].filter == {"thread_id": "slack:T1:C1:100.1", "platform": "slack"}
    assert actions[1].target == record.run_id
    assert "Mail" not in repr(actions)  # ids only, never text


async def test_a_run_shows_its_tool_calls(rig: Rig) -> None:
    record = run()
    record.metadata["tool_rounds"] = 1
    record.metadata["tools"] = [
        {
            "tool": "crm__lookup_customer",
            "server": "crm",
            "status": "timeout",
            "ms": 1500.25,
            "entities": {"PERSON": 2, "EMAIL_ADDRESS": 1},
            "arguments": '{"email": "<EMAIL_ADDRESS_1>"}',
        }
    ]
    await rig.stores.audit.record(record)
    await sign_in(rig.client)
    page = await (await rig.client.get(f"/admin/ui/run/{record.run_id}")).text()

    table = page[page.index('id="tool-calls"') :]
    table = table[: table.index("</table>")]
    cells = re.findall(r"<td[^>]*>(.*?)</td>", table)
    assert cells == [
        "crm",
        "crm__lookup_customer",
        "timeout",
        "1500.2",
        "EMAIL_ADDRESS 1, PERSON 2",
        "<code>{&#34;email&#34;: &#34;&lt;EMAIL_ADDRESS_1&gt;&#34;}</code>",
    ]
    assert "<td>tool_rounds</td><td>1</td>" in page


async def test_bad_filter_is_a_clear_400(rig: Rig) -> None:
    await sign_in(rig.client)
    response = await rig.client.get("/admin/?status=exploded")
    assert response.status == 400
    assert "status must be one of" in await response.text()
    assert (await rig.client.get("/admin/?since=yesterday-ish")).status == 400


async def test_a_bad_filter_shows_the_form_again_with_the_error_beside_its_field(
    rig: Rig,
) -> None:
    await sign_in(rig.client)
    for path, name in (("/admin/", "runs"), ("/admin/ui/stats", "stats")):
        response = await rig.client.get(f"{path}?since=yesterday-ish&channel=C9&meta=team%3Dops")
        assert response.status == 400, name
        html = await response.text()
        assert field(html, "channel") == "C9"  # what was typed is kept
        assert field(html, "meta") == "team=ops"
        assert re.search(r'name="since" value="yesterday-ish"[^>]*aria-invalid="true"', html)
        error = re.search(r'<span class="field-error" id="error-since">([^<]*)</span>', html)
        assert error, name
        assert "ISO 8601" in error.group(1)
        assert 'id="error-channel"' not in html
        assert 'name="csrf"' in html  # still the signed-in page, sign-out and all
    unknown = await rig.client.get("/admin/?colour=blue")
    assert unknown.status == 400
    assert "unknown query parameter(s): colour" in await unknown.text()


async def test_thread_and_user_are_accepted_as_short_names(rig: Rig) -> None:
    mine, other = run(), run(thread_id="slack:T1:C1:200.1", user_id="U2")
    await rig.stores.audit.record(mine)
    await rig.stores.audit.record(other)
    await sign_in(rig.client)
    by_thread = await rig.client.get(f"/admin/?thread={mine.thread_id}")
    assert by_thread.status == 200
    html = await by_thread.text()
    assert mine.run_id in html
    assert other.run_id not in html
    assert field(html, "thread_id") == mine.thread_id
    by_user = await (await rig.client.get("/admin/?user=U2")).text()
    assert other.run_id in by_user
    assert mine.run_id not in by_user


async def test_refused_sign_ins_are_in_the_activity_log_without_the_secret(rig: Rig) -> None:
    assert (await sign_in(rig.client, "guessed-token-abc123")).status == 401
    assert (await sign_in(rig.client, READER)).status == 401
    forged = await rig.client.post(
        "/admin/ui/login", data={"token": ADMIN, "csrf": "forged"}, allow_redirects=False
    )
    assert forged.status == 403
    actions = list(reversed(await rig.stores.audit.recent_actions()))
    assert [(a.action, a.actor, a.outcome) for a in actions] == [
        ("sign_in_failed", "unknown", {"reason": "unknown_token"}),
        ("sign_in_failed", f"tok:{hash_token(READER)[:12]}", {"reason": "no_admin_scope"}),
        ("sign_in_failed", "unknown", {"reason": "expired_form"}),
    ]
    assert "guessed-token" not in repr(actions)
    assert ADMIN not in repr(actions)
    await sign_in(rig.client)
    page = await (await rig.client.get("/admin/ui/activity")).text()
    assert page.count("sign_in_failed") == 3


async def test_refused_sign_ins_beyond_the_budget_are_counted_not_recorded(rig: Rig) -> None:
    for _ in range(35):
        await sign_in(rig.client, "guessed-token-abc123")
    actions = await rig.stores.audit.recent_actions(limit=100)
    assert len(actions) == 30


async def test_export_streams_the_filter_in_each_format_and_is_recorded(rig: Rig) -> None:
    await bulk_insert(rig.stores.audit, many_rows(30, prefix="x", channel="C9"))
    await rig.stores.audit.record(run(channel="C1"))
    await sign_in(rig.client)
    plain = await rig.client.get("/admin/ui/export.jsonl?channel=C9")
    assert plain.status == 200
    assert plain.headers["Content-Disposition"] == 'attachment; filename="veilbot-audit.jsonl"'
    lines = (await plain.text()).splitlines()
    assert json.loads(lines[0])["_meta"]["filter"] == {"channel": "C9"}
    assert len(lines) == 31
    assert {json.loads(line)["channel"] for line in lines[1:]} == {"C9"}
    packed = await rig.client.get("/admin/ui/export.csv?channel=C9&gzip=1")
    assert packed.headers["Content-Type"] == "application/gzip"
    rows = gzip.decompress(await packed.read()).decode().splitlines()
    assert len(rows) == 32  # metadata line, header, 30 runs
    assert (await rig.client.get("/admin/ui/export.xml")).status == 404
    assert (await rig.client.get("/admin/ui/export.csv?status=nope")).status == 400
    exports = [a for a in await rig.stores.audit.recent_actions() if a.action == "export"]
    assert [(a.filter, a.outcome["format"], a.outcome["gzip"]) for a in exports] == [
        ({"channel": "C9"}, "csv", True),
        ({"channel": "C9"}, "jsonl", False),
    ]


async def test_export_needs_a_session(rig: Rig) -> None:
    response = await rig.client.get("/admin/ui/export.jsonl", allow_redirects=False)
    assert response.status == 303


@pytest.mark.redis_cluster
async def test_erase_previews_then_erases_only_with_the_session_csrf(rig: Rig) -> None:
    audit = rig.stores.audit
    gone = [run(user_id="U9", thread_id=f"slack:T1:C1:{n}.1") for n in range(3)]
    kept = run(user_id="U1")
    for record in [*gone, kept]:
        await audit.record(record)
    await sign_in(rig.client)
    preview = await rig.client.get("/admin/ui/erase?user=slack:T1:U9")
    html = await preview.text()
    assert preview.status == 200
    assert '<strong id="erase-runs">3</strong>' in html
    assert "slack:T1:C1:2.1" in html
    csrf = field(html, "csrf")
    forged = await rig.client.post("/admin/ui/erase", data={"user": "slack:T1:U9", "csrf": "x"})
    assert forged.status == 403
    assert await audit.count_runs(RunFilter(user_id="U9")) == 3  # nothing went
    done = await rig.client.post("/admin/ui/erase", data={"user": "slack:T1:U9", "csrf": csrf})
    assert done.status == 200
    assert '<dd id="runs-deleted">3</dd>' in await done.text()
    assert await audit.count_runs(RunFilter(user_id="U9")) == 0
    assert await audit.get_run(kept.run_id) is not None
    actions = [a.action for a in await audit.recent_actions()]
    assert actions[:2] == ["erase_user", "erase_preview"]
    bad = await rig.client.post("/admin/ui/erase", data={"user": "nobody", "csrf": csrf})
    assert bad.status == 400
    both = await rig.client.post(
        "/admin/ui/erase", data={"user": "slack:T1:U1", "thread": "slack:T1:C1:1.1", "csrf": csrf}
    )
    assert both.status == 400
    assert await audit.get_run(kept.run_id) is not None


async def test_charts_show_turns_cost_entities_errors_and_workspaces(rig: Rig) -> None:
    audit = rig.stores.audit
    day = 24 * 60
    records = [
        run(minutes=0, workspace="T1", cost_usd=0.5),
        run(minutes=1, workspace="T1", cost_usd=0.25, entity_counts={"PHONE_NUMBER": 2}),
        run(minutes=2, workspace="T2", status=TurnStatus.GUARDRAIL_ERROR, cost_usd=None),
        run(minutes=2 * day, workspace="T2", cost_usd=1.0, status=TurnStatus.MODEL_ERROR),
    ]
    for record in records:
        await audit.record(record)
    await sign_in(rig.client)
    page = await rig.client.get("/admin/ui/stats?since=2026-02-01")
    assert page.status == 200
    html = await page.text()
    for chart in ("turns", "cost", "entities", "errors", "workspaces"):
        assert f'id="chart-{chart}"' in html
    assert "<title>2026-03-01 · turns: 3</title>" in html
    assert "<title>2026-03-02 · turns" not in html  # a day without runs has no bar...
    assert ">2026-03-02</text>" in html  # ...but keeps its place on the time axis
    assert "<title>2026-03-03 · turns: 1</title>" in html
    assert "<title>2026-03-01 · PHONE_NUMBER: 2</title>" in html
    assert "<title>2026-03-01 · EMAIL_ADDRESS: 2</title>" in html
    assert "<title>2026-03-01 · guardrail_error: 1</title>" in html
    assert "<title>2026-03-03 · model_error: 1</title>" in html
    assert "<title>T2: $1.00</title>" in html
    assert "<title>T1: $0.7500</title>" in html
    assert "4 turns" in html
    assert "style=" not in html  # nothing inline: the CSP allows no inline style
    recent = await rig.client.get("/admin/ui/stats")  # last 30 days: these runs are older
    assert "No runs in this range." in await recent.text()
    actions = [a for a in await audit.recent_actions() if a.action == "view_stats"]
    assert actions[-1].filter["since"].startswith("2026-02-01")


async def test_erase_a_thread_from_its_page(rig: Rig) -> None:
    audit = rig.stores.audit
    tid = "slack:T1:C1:555.1"
    gone = [run(thread_id=tid, user_id=f"U{n}") for n in range(2)]
    kept = run()
    for record in [*gone, kept]:
        await audit.record(record)
    await sign_in(rig.client)
    thread = await (await rig.client.get(f"/admin/ui/thread/{tid}")).text()
    assert "/admin/ui/erase?thread=slack%3AT1%3AC1%3A555.1" in thread
    preview = await rig.client.get("/admin/ui/erase?thread=slack:T1:C1:555.1")
    html = await preview.text()
    assert '<strong id="erase-runs">2</strong>' in html
    done = await rig.client.post(
        "/admin/ui/erase", data={"thread": tid, "csrf": field(html, "csrf")}
    )
    assert '<dd id="runs-deleted">2</dd>' in await done.text()
    assert await audit.count_runs(RunFilter(thread_id=tid)) == 0
    assert await audit.get_run(kept.run_id) is not None
    erased = [a for a in await audit.recent_actions() if a.action == "erase_thread"]
    assert [(a.target, a.filter) for a in erased] == [(tid, {"thread_id": tid})]
    bad = await rig.client.get("/admin/ui/erase?thread=not a thread")
    assert bad.status == 400
