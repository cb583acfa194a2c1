"""The admin console in a real browser, over turns that went through the real pipeline.

Real composition root (``build_app``: Presidio, Redis, SQLite/PostgreSQL, the fake model) and
the service's own HTTP server (``bot.service.build_http``); headless Chromium clicks through
the pages as an admin would. Every page's HTML is kept, a screenshot of each written under
the test's temp dir, and none may hold a seeded personal value.
"""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path
from urllib.parse import quote

import pytest
from playwright.async_api import Browser, Page

from bot.admin.auth import hash_token
from bot.app import App
from bot.core.types import InboundMessage, TurnStatus, thread_id
from bot.service import build_http
from tests.e2e.browser import Pages, browser  # noqa: F401  (fixture)
from tests.e2e.conftest import MakeApp, message, unique_thread
from tests.e2e.test_admin_cli import ROOT, env_for, wait_ready
from tests.e2e.test_guarded_turn import SEEDED, TURNS, leaked
from tests.fixtures.services import free_port

TOKEN = "console-e2e-admin-token-abcdefghijkl"
OTHER_TURN = "I'm Priya Natarajan, write to priya@startup.io or call +1 415 555 0123."

pytestmark = pytest.mark.timeout(300)


async def seed(app: App) -> tuple[str, str]:
    """Turns with personal data through the real turn: three by U-tester, one by U-other."""
    thread, other = unique_thread(), unique_thread()
    for text in TURNS:
        reply = await app.conversation.handle(message(text, thread))
        assert reply is not None
        assert reply.status is TurnStatus.OK
    inbound = InboundMessage(
        thread_id=thread_id("console", other),
        platform="console",
        workspace="local",
        channel=other,
        user_id=f"U-other-{uuid.uuid4().hex[:6]}",
        message_id=uuid.uuid4().hex,
        text=OTHER_TURN,
    )
    reply = await app.conversation.handle(inbound)
    assert reply is not None
    assert reply.status is TurnStatus.OK
    return f"console:{thread}", inbound.user_id


async def sign_in(page: Page, pages: Pages, base: str) -> None:
    await page.goto(f"{base}/admin/")
    assert "/admin/ui/login" in page.url  # no session: sent to the sign-in page
    await pages.keep(page, "login")
    await page.fill("#token", "not-the-admin-token")
    await page.click("#sign-in")
    await page.wait_for_selector("[role=alert]")
    assert "not an admin token" in await page.inner_text("[role=alert]")
    await pages.keep(page, "login-refused")
    await page.fill("#token", TOKEN)
    await page.click("#sign-in")
    await page.wait_for_url(f"{base}/admin/")


async def browse(page: Page, pages: Pages, base: str, tid: str, runs: int) -> None:
    """Filter the runs by thread, open a run, follow its thread, read the activity."""
    rows = page.locator("table.runs tbody tr")
    assert await rows.count() == runs
    await pages.keep(page, "runs")
    await page.fill("input[name=thread_id]", tid)
    await page.click("#apply")
    await page.wait_for_url("**/admin/?*thread_id=*")
    assert await rows.count() == len(TURNS)
    await pages.keep(page, "runs-filtered")
    await page.locator("a.run-link").first.click()
    await page.wait_for_url("**/admin/ui/run/**")
    prompt = await page.inner_text("#prompt")
    assert "<IBAN_CODE_1>" in prompt  # the newest turn, as the model saw it
    assert await page.locator("#entities tbody tr").count() >= 2
    assert await page.locator("#latencies tbody tr").count() >= 1
    assert await page.inner_text("#run-status") == "ok"
    await pages.keep(page, "run")
    await page.click("#thread-link")
    await page.wait_for_url("**/admin/ui/thread/**")
    turns = page.locator("ol.turns li.turn pre.user")
    assert await turns.count() == len(TURNS)
    assert "<EMAIL_ADDRESS_1>" in await turns.nth(0).inner_text()  # oldest first
    assert "<IBAN_CODE_1>" in await turns.nth(2).inner_text()
    await pages.keep(page, "thread")
    await page.click("text=Activity")
    await page.wait_for_url("**/admin/ui/activity")
    activity = await page.inner_text("#activity")
    assert "view_thread" in activity
    assert f"tok:{hash_token(TOKEN)[:12]}" in activity
    await pages.keep(page, "activity")


async def charts(page: Page, pages: Pages) -> None:
    """The charts page draws its SVG charts from the seeded turns."""
    await page.click("text=Charts")
    await page.wait_for_url("**/admin/ui/stats")
    assert f"{len(TURNS) + 1} turns" in await page.inner_text("#totals")
    for chart in ("turns", "cost", "entities", "errors", "workspaces"):
        assert await page.locator(f"#chart-{chart} svg").count() == 1, chart
    assert await page.locator("#chart-entities rect").count() >= 3  # one per entity type
    legend = await page.inner_text("#chart-entities .legend")
    assert "PERSON" in legend
    assert "EMAIL_ADDRESS" in legend
    await pages.keep(page, "charts")


async def export(page: Page, pages: Pages, base: str, tid: str, folder: Path) -> None:
    """Download the thread's runs as JSONL and as gzip CSV; check the rows and the size shown."""
    await page.goto(f"{base}/admin/?thread_id={quote(tid)}")
    async with page.expect_download() as jsonl_download:
        await page.click("#export-jsonl")
    saved = folder / "export.jsonl"
    await (await jsonl_download.value).save_as(saved)
    await page.wait_for_selector("#export-status[data-state=done]")
    assert f"({saved.stat().st_size} bytes)" in await page.inner_text("#export-status")
    lines = saved.read_text().splitlines()
    assert json.loads(lines[0])["_meta"]["filter"] == {"thread_id": tid}
    assert [json.loads(line)["thread_id"] for line in lines[1:]] == [tid] * len(TURNS)
    await pages.keep(page, "export")
    async with page.expect_download() as csv_download:
        await page.click("#export-csv-gz")
    packed = folder / "export.csv.gz"
    await (await csv_download.value).save_as(packed)
    rows = gzip.decompress(packed.read_bytes()).decode().splitlines()
    assert len(rows) == 2 + len(TURNS)  # metadata line, header, one per turn
    for text in (saved.read_text(), "\n".join(rows)):
        assert leaked(SEEDED, text) == []


async def erase_user(page: Page, pages: Pages, base: str, user: str) -> None:
    """Open the user's run, erase the user after the confirmation page, see the rows go."""
    await page.goto(f"{base}/admin/?user_id={user}")
    await page.locator("a.run-link").first.click()
    await page.wait_for_url("**/admin/ui/run/**")
    await page.click("#erase-user")
    await page.wait_for_url("**/admin/ui/erase?user=*")
    assert await page.inner_text("#erase-runs") == "1"
    assert await page.inner_text("#erase-threads") == "1"
    await pages.keep(page, "erase-confirm")
    await page.click("#erase-confirm")
    await page.wait_for_selector("#erased")
    assert await page.inner_text("#runs-deleted") == "1"
    await pages.keep(page, "erased")
    await page.goto(f"{base}/admin/?user_id={user}")
    assert await page.inner_text("table.runs tbody") == "No runs match."
    await pages.keep(page, "runs-after-erase")


async def sign_out(page: Page, pages: Pages, base: str) -> None:
    await page.click("#sign-out")
    await page.wait_for_url("**/admin/ui/login")
    await page.goto(f"{base}/admin/")
    assert "/admin/ui/login" in page.url  # the session is gone
    await pages.keep(page, "signed-out")


async def test_admin_walks_the_console_and_no_page_holds_personal_data(
    make_app: MakeApp,
    browser: Browser,  # noqa: F811
    fresh_db_url: str,
    tmp_path: Path,
) -> None:
    app = await make_app(
        database_url=fresh_db_url, admin_tokens=hash_token(TOKEN), admin_http_port=0
    )
    tid, other_user = await seed(app)
    pages = Pages(tmp_path / "screenshots")
    async with build_http(app, []) as http:
        context = await browser.new_context(accept_downloads=True)
        try:
            page = await context.new_page()
            base = http.url
            await sign_in(page, pages, base)
            await page.goto(f"{base}/admin/?platform=console&since=1d")
            await browse(page, pages, base, tid, runs=len(TURNS) + 1)
            await charts(page, pages)
            await export(page, pages, base, tid, tmp_path)
            await erase_user(page, pages, base, other_user)
            await sign_out(page, pages, base)
        finally:
            await context.close()
    assert sorted(p.name for p in pages.shots.iterdir()) == sorted(f"{n}.png" for n in pages.html)
    for name, html in pages.html.items():
        assert leaked(SEEDED, html) == [], name


def stop_tree(proc: subprocess.Popen[str], data_dir: Path) -> None:
    """Stop ``admin serve`` as Ctrl-C does (it stops its embedded Redis), then make sure."""
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    for entry in Path("/proc").iterdir():  # an embedded Redis left behind: ours by its dir
        try:
            cmdline = (entry / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if entry.name.isdigit() and "redis-server" in cmdline and str(data_dir) in cmdline:
            os.kill(int(entry.name), signal.SIGTERM)


async def test_admin_serve_on_embedded_defaults_serves_the_console(
    browser: Browser,  # noqa: F811
    tmp_path: Path,
) -> None:
    """``veilbot admin serve`` with no Redis or database URL: embedded Redis, SQLite."""
    port = free_port()
    env = env_for(
        tmp_path, VEILBOT_ADMIN_TOKENS=hash_token(TOKEN), VEILBOT_ADMIN_HTTP_PORT=str(port)
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot", "admin", "serve"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
        cwd=ROOT,
    )
    pages = Pages(tmp_path / "screenshots")
    try:
        assert wait_ready(f"http://127.0.0.1:{port}/readyz", proc, deadline=60) == {
            "redis": True,
            "database": True,
        }
        context = await browser.new_context()
        try:
            page = await context.new_page()
            base = f"http://127.0.0.1:{port}"
            await sign_in(page, pages, base)
            assert await page.inner_text("table.runs tbody") == "No runs match."
            await pages.keep(page, "serve-runs")
            await page.click("text=Charts")
            await page.wait_for_url("**/admin/ui/stats")
            await pages.keep(page, "serve-charts")
            await sign_out(page, pages, base)
        finally:
            await context.close()
    finally:
        stop_tree(proc, tmp_path / "data")


OVERFLOW = """() => {
  const width = window.innerWidth;
  const out = [...document.querySelectorAll("header.top, header.top *")]
    .filter(e => e.getBoundingClientRect().right > width + 0.5)
    .map(e => e.tagName + (e.id ? "#" + e.id : "") + (e.className ? "." + e.className : ""));
  return {width, page: document.documentElement.scrollWidth, out};
}"""


@pytest.mark.parametrize("path", ["/admin/", "/admin/ui/stats", "/admin/ui/activity"])
async def test_the_header_fits_a_phone_screen(
    make_app: MakeApp,
    browser: Browser,  # noqa: F811
    tmp_path: Path,
    path: str,
) -> None:
    app = await make_app(admin_tokens=hash_token(TOKEN), admin_http_port=0)
    async with build_http(app, []) as http:
        context = await browser.new_context(viewport={"width": 360, "height": 740})
        try:
            page = await context.new_page()
            await page.goto(f"{http.url}/admin/ui/login")
            await page.fill("#token", TOKEN)
            await page.click("#sign-in")
            await page.wait_for_url(f"{http.url}/admin/")
            await page.goto(f"{http.url}{path}")
            await page.screenshot(path=str(tmp_path / "phone.png"), full_page=True)
            measured = await page.evaluate(OVERFLOW)
            assert measured["out"] == [], measured  # nothing of the header past the edge
            assert measured["page"] <= measured["width"], measured  # no sideways scrolling
            assert await page.locator("#sign-out").is_visible()
        finally:
            await context.close()
