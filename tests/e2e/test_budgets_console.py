"""The admin console's budgets page in a real browser: spend against each budget, and a raise
from its form (with the session's CSRF token) that lifts a refusal on the running service."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Browser

from bot.admin.auth import hash_token
from bot.core.types import TurnStatus
from bot.service import build_http
from tests.e2e.browser import browser  # noqa: F401  (fixture)
from tests.e2e.conftest import MakeApp, message, unique_thread
from tests.e2e.test_budgets import ME, budgets_from

TOKEN = "budgets-console-admin-token-abcdefghijkl"

pytestmark = pytest.mark.timeout(300)


async def test_the_console_shows_spend_and_a_raise_from_its_form_lifts_the_refusal(
    make_app: MakeApp,
    browser: Browser,  # noqa: F811
    tmp_path: Path,
) -> None:
    app = await make_app(
        **budgets_from(tmp_path), admin_tokens=hash_token(TOKEN), admin_http_port=0
    )
    await app.ledger.rebuild({("user", ME): 10.0, ("workspace", "console:local"): 12.5}, {})
    refused = await app.conversation.handle(message("hi", unique_thread()))
    assert refused is not None
    assert refused.status is TurnStatus.OVER_BUDGET

    async with build_http(app, []) as http:
        context = await browser.new_context()
        try:
            page = await context.new_page()
            await page.goto(f"{http.url}/admin/ui/login")
            await page.fill("#token", TOKEN)
            await page.click("#sign-in")
            await page.wait_for_url(f"{http.url}/admin/")
            await page.click("text=Budgets")
            await page.wait_for_selector("#budgets")
            table = await page.inner_text("#budgets")
            mine = next(line for line in table.splitlines() if ME in line)
            assert "$10.00" in mine
            assert "100%" in mine
            assert "spent: turns refused" in mine
            workspace = next(line for line in table.splitlines() if "workspace" in line)
            assert "$12.50" in workspace
            assert "$1,000.00" in workspace

            await page.select_option("select[name=kind]", "user")
            await page.fill("input[name=ident]", ME)
            await page.fill("input[name=usd]", "30")
            await page.click("#raise-budget")
            await page.wait_for_selector("#budget-notice")
            assert "$10.00 of $30.00 (33%), raised this month" in await page.inner_text(
                "#budget-notice"
            )
            await page.fill("input[name=ident]", ME)
            await page.fill("input[name=usd]", "-5")
            await page.click("#raise-budget")
            assert "between 0 and 10,000,000" in await page.inner_text("main")
        finally:
            await context.close()

    answered = await app.conversation.handle(message("hi", unique_thread()))
    assert answered is not None
    assert answered.ok
    [action] = [a for a in await app.audit.recent_actions() if a.action == "budget_limit"]
    assert action.actor.startswith("tok:")
    assert (action.target, action.outcome["usd"], action.outcome["via"]) == (ME, 30.0, "console")
