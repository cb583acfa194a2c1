"""The console's budgets page: this month's spend against every budget, and a form to raise one.

``GET /admin/ui/budgets`` lists the budgets (spend, limit, share, whether raised this month);
``POST`` with the session's CSRF token sets one budget's limit for the rest of the month
(``usd`` empty: back to the config file's). The change goes through ``BudgetAdmin``, which
records it in the admin action log first (actor: the session's token id), as the chat command
and the CLI do. A token limited to workspaces sees and sets their budgets only (a workspace's,
its channels', its people's); another's is a 404.
"""

from __future__ import annotations

import logging

from aiohttp import web

from bot.admin.budgets import BudgetRejected, format_state, parse_usd
from bot.admin.confine import sees, workspace_of
from bot.admin.console.web import Ctx, error_page, render
from bot.core.budgets import next_month

log = logging.getLogger(__name__)


async def budgets_page(request: web.Request, ctx: Ctx, *, notice: str = "") -> web.StreamResponse:
    """``/admin/ui/budgets``: spend against each budget this month."""
    admin = ctx.console.budgets
    if admin is None:
        return error_page(request, 404, "Budgets are not available on this server.")
    states = [s for s in await admin.show() if sees(request, workspace_of(s.budget.ident))]
    resets = next_month(admin.now()).strftime("%-d %B %Y")
    rows = [
        {
            "kind": s.budget.kind,
            "ident": s.budget.ident,
            "spent": f"${s.spent_usd:,.2f}",
            "limit": "none" if s.limit_usd is None else f"${s.limit_usd:,.2f}",
            "share": (
                "" if not s.limit_usd else f"{min(s.spent_usd / s.limit_usd * 100, 999):.0f}%"
            ),
            "over": s.limit_usd is not None and s.spent_usd >= s.limit_usd,
            "raised": s.raised,
        }
        for s in states
    ]
    return render(
        request, "budgets.html", session=ctx.session, rows=rows, resets=resets, notice=notice
    )


async def set_budget(request: web.Request, ctx: Ctx) -> web.StreamResponse:
    """``POST /admin/ui/budgets``: raise (or reset) one budget for this month."""
    admin = ctx.console.budgets
    if admin is None:
        return error_page(request, 404, "Budgets are not available on this server.")
    form = await request.post()
    kind, ident = str(form.get("kind", "")), str(form.get("ident", ""))
    amount = str(form.get("usd", "")).strip()
    if not sees(request, workspace_of(ident.strip())):
        log.warning("budget change refused: another workspace by=%s", ctx.session.who)
        return error_page(request, 404, "No such budget.", session=ctx.session)
    try:
        usd = parse_usd(amount) if amount else None
        state = await admin.set_limit(ctx.session.who, kind, ident, usd, via="console")
    except BudgetRejected as exc:
        return error_page(request, 400, str(exc))
    log.info("budget set from the console by=%s kind=%s", ctx.session.who, state.budget.kind)
    done = "Raised for this month: " if usd is not None else "Back to the config file's: "
    return await budgets_page(request, ctx, notice=done + format_state(state))
