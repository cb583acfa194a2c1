"""A workspace's own admin in the console, in a real browser: their workspace's runs only.

Turns of two Slack workspaces go through the real pipeline (``build_app``: Presidio, Redis,
the audit database, the fake model); a token limited to one of them signs in on the
service's own HTTP server and clicks through as that workspace's admin would.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from playwright.async_api import Browser

from bot.admin.auth import hash_token
from bot.app import App
from bot.audit.types import RunFilter
from bot.core.types import InboundMessage, TurnStatus, thread_id
from bot.service import build_http
from tests.e2e.browser import Pages, browser  # noqa: F401  (fixture)
from tests.e2e.conftest import MakeApp
from tests.e2e.test_admin_console import OVERFLOW

ADMIN, LIMITED = "console-e2e-admin-token-abcdefghijkl", "console-e2e-team-a-token-abcdefgh"
SAID = {"TA": ("Priya Natarajan", "priya@startup.io"), "TB": ("Jonas Berg", "jonas@berg.example")}

pytestmark = pytest.mark.timeout(300)


async def seed(app: App) -> dict[str, str]:
    """One turn per workspace through the real turn; each workspace's run id."""
    runs: dict[str, str] = {}
    for team, (name, mail) in SAID.items():
        ts = f"1700000000.{uuid.uuid4().int % 10**6:06d}"
        reply = await app.conversation.handle(
            InboundMessage(
                thread_id=thread_id("slack", team, "C1", ts),
                platform="slack",
                workspace=team,
                channel="C1",
                user_id=f"U{team}",
                message_id=ts,
                text=f"I'm {name}, write to {mail}",
            )
        )
        assert reply is not None
        assert reply.status is TurnStatus.OK
        [run] = (await app.audit.list_runs(RunFilter(workspace=team), limit=5)).runs
        runs[team] = run.run_id
    return runs


async def test_a_workspace_admin_sees_and_exports_their_workspace_only(
    make_app: MakeApp,
    browser: Browser,  # noqa: F811
    fresh_db_url: str,
    tmp_path: Path,
) -> None:
    tokens = f"{hash_token(ADMIN)},{hash_token(LIMITED)}@TA"
    app = await make_app(database_url=fresh_db_url, admin_tokens=tokens, admin_http_port=0)
    runs = await seed(app)
    pages = Pages(tmp_path / "screenshots")
    async with build_http(app, []) as http:
        base = http.url
        context = await browser.new_context(accept_downloads=True)
        try:
            page = await context.new_page()
            await page.goto(f"{base}/admin/ui/login")
            await page.fill("#token", LIMITED)
            await page.click("#sign-in")
            await page.wait_for_url(f"{base}/admin/")
            assert await page.inner_text("#limited-to") == "TA"
            assert await page.locator("text=Activity").count() == 0
            rows = page.locator("table.runs tbody tr")
            assert await rows.count() == 1
            assert runs["TA"] in await page.content()
            await pages.keep(page, "limited-runs")

            await page.fill("input[name=workspace]", "TB")
            await page.click("#apply")
            await page.wait_for_url("**/admin/?*workspace=TB*")
            assert "may not read that workspace" in await page.inner_text("[role=alert]")
            await pages.keep(page, "limited-other-workspace")
            response = await page.goto(f"{base}/admin/ui/run/{runs['TB']}")
            assert response is not None
            assert response.status == 404
            assert "No such run" in await page.inner_text("main")
            await pages.keep(page, "limited-other-run")

            await page.goto(f"{base}/admin/")
            async with page.expect_download() as download:
                await page.click("#export-jsonl")
            saved = tmp_path / "export.jsonl"
            await (await download.value).save_as(saved)
            lines = [json.loads(line) for line in saved.read_text().splitlines()]
            assert lines[0]["_meta"]["filter"] == {"workspaces": ["TA"]}
            assert [r["run_id"] for r in lines[1:]] == [runs["TA"]]

            await page.set_viewport_size({"width": 360, "height": 740})
            measured = await page.evaluate(OVERFLOW)
            assert measured["out"] == [], measured  # the workspace badge fits a phone too
            await pages.keep(page, "limited-phone")
        finally:
            await context.close()
    for name, html in pages.html.items():
        for value in (*SAID["TA"], *SAID["TB"]):
            assert value not in html, name
