"""What every console page shares: the guard (session, token, CSRF), headers and rendering.

A page handler is ``async (request, ctx) -> response``; ``signed_in`` wraps it so that it
runs only for a live session whose token is still configured with the ``admin`` scope, and,
for POSTs, only with the session's CSRF token in the form. A token limited to workspaces has
the request confined to them as the admin API does (``bot.admin.confine``, read at every
request, so a changed limit applies at once); a filter naming another workspace is a 403.
Responses carry a strict Content-Security-Policy: scripts, styles and images from this server
only, nothing inline.
"""

from __future__ import annotations

import hmac
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, NoReturn, Protocol
from urllib.parse import quote

import jinja2
from aiohttp import web

from bot.admin.api import AdminStore
from bot.admin.auth import ADMIN_SCOPE, AdminTokens
from bot.admin.budgets import BudgetAdmin
from bot.admin.confine import WorkspaceForbidden, allowed, limit
from bot.admin.sessions import ConsoleSessions, Session
from bot.audit.actions import ActionKind, AdminAction
from bot.audit.daily import DailyTotals
from bot.audit.erasure import Eraser
from bot.audit.types import FilterRejected, RunFilter
from bot.core.errors import StoreError
from bot.core.scopes import Scopes

log = logging.getLogger(__name__)

COOKIE = "veilbot_admin"
LOGIN_COOKIE = "veilbot_admin_login"
BASE = "/admin/"
UI = "/admin/ui"
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


@dataclass
class FailureBudget:
    """How many refused sign-ins are recorded: at most ``per_minute`` (on each replica).

    Anyone who can reach the form could otherwise fill the activity log; the refusals over
    the budget are counted in the next one recorded.
    """

    per_minute: int = 30
    _start: float = 0.0
    _used: int = 0
    _dropped: int = 0

    def admit(self) -> int | None:
        """``None``: do not record this one; else how many went unrecorded before it."""
        now = time.monotonic()
        if now - self._start >= 60:
            self._start, self._used = now, 0
        if self._used >= self.per_minute:
            self._dropped += 1
            return None
        self._used += 1
        dropped, self._dropped = self._dropped, 0
        return dropped


class ConsoleStore(AdminStore, DailyTotals, Protocol):
    """The audit log with its admin action log and day totals (``SqlAuditStore``)."""


@dataclass
class Console:
    """What the console's pages use.

    Args:
        store: the audit log and the admin action log.
        tokens: the configured admin tokens.
        sessions: console sessions.
        eraser: erases users and threads (history, vault, audit runs).
        templates: the page templates.
        failures: how many refused sign-ins are recorded.
        scopes: the running scopes (``None``: a server that runs no turns has none).
        budgets: shows and raises the monthly budgets, if this server has them.
    """

    store: ConsoleStore
    tokens: AdminTokens
    sessions: ConsoleSessions
    eraser: Eraser
    templates: jinja2.Environment
    failures: FailureBudget = field(default_factory=FailureBudget)
    scopes: Callable[[], Scopes] | None = None
    budgets: BudgetAdmin | None = None


CONSOLE = web.AppKey("veilbot_console", Console)


@dataclass(frozen=True, slots=True)
class Ctx:
    """One signed-in request: the console, the session and its cookie value."""

    console: Console
    session: Session
    sid: str

    async def record(
        self,
        action: ActionKind,
        *,
        target: str | None = None,
        run_filter: RunFilter | None = None,
        **outcome: Any,
    ) -> None:
        """Record an admin action of this session (raises ``StoreError``: fail closed)."""
        described = run_filter.describe() if run_filter is not None else {}
        await self.console.store.record_action(
            AdminAction(self.session.who, action, target, described, outcome)
        )


Page = Callable[[web.Request, Ctx], Awaitable[web.StreamResponse]]


def secure(response: web.StreamResponse) -> web.StreamResponse:
    """Add the console's security headers (CSP, no sniffing, no framing, no caching)."""
    for name, value in _HEADERS.items():
        response.headers.setdefault(name, value)
    return response


def is_tls(request: web.Request) -> bool:
    """Whether the browser reached us over TLS (directly or through a proxy saying so)."""
    return request.secure or request.headers.get("X-Forwarded-Proto", "").lower() == "https"


def render(
    request: web.Request, name: str, *, status: int = 200, **values: Any
) -> web.StreamResponse:
    """A page from its template, with the security headers."""
    console = request.app[CONSOLE]
    workspaces = sorted(found) if (found := allowed(request)) is not None else None
    html = console.templates.get_template(name).render(
        ui=UI, base=BASE, workspaces=workspaces, **values
    )
    response = web.Response(text=html, status=status, content_type="text/html", charset="utf-8")
    return secure(response)


def error_page(
    request: web.Request, status: int, message: str, **values: Any
) -> web.StreamResponse:
    """A page that says what went wrong (ids only, never user text)."""
    return render(
        request, "error.html", status=status, status_code=status, message=message, **values
    )


def see_other(location: str) -> web.Response:
    """A 303 redirect that can carry cookies (a raised ``HTTPSeeOther`` would drop them)."""
    return web.Response(status=303, headers={"Location": location})


def to_login(request: web.Request) -> NoReturn:
    """Send a browser without a session to the sign-in page (and back here afterwards)."""
    target = request.path_qs if request.method == "GET" else BASE
    raise web.HTTPSeeOther(f"{UI}/login?next={quote(target, safe='')}")


async def _session(request: web.Request, console: Console) -> tuple[str, Session] | None:
    sid = request.cookies.get(COOKIE, "")
    session = await console.sessions.get(sid) if sid else None
    if session is None:
        return None
    scopes = console.tokens.scopes_of(session.who)
    if scopes is None or ADMIN_SCOPE not in scopes:  # the token was revoked since sign-in
        await console.sessions.end(sid)
        return None
    return sid, session


async def csrf_ok(request: web.Request, expected: str) -> bool:
    """Whether the form of a POST carries ``expected`` as its ``csrf`` field."""
    form = await request.post()
    given = form.get("csrf")
    return isinstance(given, str) and hmac.compare_digest(given.encode(), expected.encode())


def signed_in(page: Page) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
    """Run ``page`` only for a live admin session (and, on POST, a matching CSRF token)."""

    async def guarded(request: web.Request) -> web.StreamResponse:
        console = request.app[CONSOLE]
        try:
            found = await _session(request, console)
            if found is None:
                if request.method != "GET":
                    log.warning("admin console refused: no session path=%s", request.path)
                    return error_page(request, 403, "Sign in first.")
                return to_login(request)
            sid, session = found
            limit(request, console.tokens.workspaces_of(session.who))
            if request.method == "POST" and not await csrf_ok(request, session.csrf):
                log.warning("admin console refused: bad csrf path=%s", request.path)
                return error_page(request, 403, "This form has expired: reload the page.")
            response = await page(request, Ctx(console, session, sid))
            return response if response.prepared else secure(response)
        except WorkspaceForbidden as exc:
            log.warning("admin console refused: workspace path=%s", request.path)
            return error_page(request, 403, str(exc))
        except FilterRejected as exc:
            return error_page(request, 400, str(exc))
        except StoreError as exc:
            log.error("admin console store error path=%s (%s)", request.path, type(exc).__name__)
            return error_page(request, 503, "The audit store is unavailable; try again.")

    return guarded
