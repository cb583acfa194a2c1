"""Adds the console's routes to the service's (or ``veilbot admin serve``'s) aiohttp app."""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources

import jinja2
from aiohttp import web

from bot.admin.auth import AdminTokens
from bot.admin.budgets import BudgetAdmin
from bot.admin.console import budgets as budget_pages
from bot.admin.console import changes, forms, pages, stats
from bot.admin.console import scopes as scope_pages
from bot.admin.console.web import CONSOLE, UI, Console, ConsoleStore, secure, signed_in
from bot.admin.sessions import ConsoleSessions
from bot.audit.erasure import Eraser
from bot.core.scopes import Scopes

_STATIC = resources.files("bot.admin.console") / "static"
_TYPES = {".css": "text/css", ".js": "text/javascript", ".svg": "image/svg+xml"}


def templates() -> jinja2.Environment:
    """The page templates shipped in the package, HTML-escaped by default."""
    return jinja2.Environment(
        loader=jinja2.PackageLoader("bot.admin.console", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


async def _static(request: web.Request) -> web.StreamResponse:
    name = request.match_info["name"]
    suffix = name[name.rfind(".") :] if "." in name else ""
    item = _STATIC / name
    if suffix not in _TYPES or "/" in name or not item.is_file():
        raise web.HTTPNotFound()
    response = web.Response(body=item.read_bytes(), content_type=_TYPES[suffix])
    secure(response)
    response.headers["Cache-Control"] = "public, max-age=3600"
    return response


def add_console_routes(
    app: web.Application,
    *,
    store: ConsoleStore,
    tokens: AdminTokens,
    sessions: ConsoleSessions,
    eraser: Eraser,
    scopes: Callable[[], Scopes] | None = None,
    budgets: BudgetAdmin | None = None,
) -> None:
    """Serve the console at ``/admin/`` on ``app`` (before it starts).

    Args:
        app: the server's application (the admin API's).
        store: the audit log with its admin action log.
        tokens: the admin tokens that may sign in.
        sessions: where console sessions live.
        eraser: erases users and threads.
        scopes: the running scopes, for the settings page.
        budgets: shows and raises the monthly budgets.
    """
    app[CONSOLE] = Console(
        store, tokens, sessions, eraser, templates(), scopes=scopes, budgets=budgets
    )
    get = app.router.add_get
    get("/admin/", signed_in(pages.runs_page), allow_head=False)
    get(f"{UI}/run/{{run_id}}", signed_in(pages.run_page), allow_head=False)
    get(f"{UI}/thread/{{thread_id}}", signed_in(pages.thread_page), allow_head=False)
    get(f"{UI}/activity", signed_in(pages.activity_page), allow_head=False)
    get(f"{UI}/budgets", signed_in(budget_pages.budgets_page), allow_head=False)
    get(f"{UI}/stats", signed_in(stats.stats_page), allow_head=False)
    get(f"{UI}/settings", signed_in(scope_pages.settings_page), allow_head=False)
    get(f"{UI}/export.{{fmt}}", signed_in(changes.export), allow_head=False)
    get(f"{UI}/erase", signed_in(changes.erase_preview), allow_head=False)
    get(f"{UI}/login", forms.login_form, allow_head=False)
    get(f"{UI}/static/{{name}}", _static, allow_head=False)
    app.router.add_post(f"{UI}/login", forms.login)
    app.router.add_post(f"{UI}/logout", signed_in(forms.logout))
    app.router.add_post(f"{UI}/erase", signed_in(changes.erase))
    app.router.add_post(f"{UI}/budgets", signed_in(budget_pages.set_budget))
