"""Signing in and out of the console.

Sign-in exchanges an admin token for a session cookie (a token limited to workspaces too: its
pages are confined to them, ``bot.admin.confine``): HttpOnly (no script reads it),
SameSite=Strict (no other site's page sends it), Secure when the browser came over TLS,
and expiring with the session. The sign-in form carries a double-submit CSRF token (a cookie
and a field that must match), since there is no session yet to hold one.
"""

from __future__ import annotations

import hmac
import logging
import secrets

from aiohttp import web

from bot.admin.auth import ADMIN_SCOPE
from bot.admin.console.web import (
    BASE,
    CONSOLE,
    COOKIE,
    LOGIN_COOKIE,
    UI,
    Ctx,
    is_tls,
    render,
    secure,
    see_other,
)
from bot.audit.actions import AdminAction
from bot.core.errors import StoreError

log = logging.getLogger(__name__)
_LOGIN_TTL = 3600
UNKNOWN_ACTOR = "unknown"
"""The actor of a refused sign-in whose token matches no configured token."""


def _next(value: str | None) -> str:
    # Only a path of this console: never an absolute URL (no open redirect).
    if value and value.startswith("/admin/") and not value.startswith("//"):
        return value
    return BASE


def _login_form(
    request: web.Request, *, status: int = 200, message: str = ""
) -> web.StreamResponse:
    nonce = secrets.token_urlsafe(24)
    response = render(
        request,
        "login.html",
        status=status,
        message=message,
        csrf=nonce,
        next=_next(request.query.get("next")),
    )
    response.set_cookie(
        LOGIN_COOKIE,
        nonce,
        max_age=_LOGIN_TTL,
        path=f"{UI}/login",
        httponly=True,
        samesite="Strict",
        secure=is_tls(request),
    )
    return response


async def login_form(request: web.Request) -> web.StreamResponse:
    """``GET /admin/ui/login``: the sign-in form."""
    return _login_form(request)


async def login(request: web.Request) -> web.StreamResponse:
    """``POST /admin/ui/login``: a valid admin token starts a session; anything else, 401/403."""
    console = request.app[CONSOLE]
    form = await request.post()
    token, nonce = form.get("token"), form.get("csrf")
    expected = request.cookies.get(LOGIN_COOKIE, "")
    if not (isinstance(nonce, str) and expected and hmac.compare_digest(nonce, expected)):
        log.warning("admin console sign-in refused: bad csrf")
        await _record_failure(request, UNKNOWN_ACTOR, "expired_form")
        return _login_form(request, status=403, message="The form expired: try again.")
    found = console.tokens.identify(token.strip()) if isinstance(token, str) and token else None
    if found is None or ADMIN_SCOPE not in found[1]:
        reason = "unknown_token" if found is None else "no_admin_scope"
        log.warning("admin console sign-in refused: %s", reason)
        await _record_failure(request, UNKNOWN_ACTOR if found is None else found[0], reason)
        return _login_form(request, status=401, message="That token is not an admin token.")
    who = found[0]
    workspaces = console.tokens.workspaces_of(who)
    outcome = {} if workspaces is None else {"workspaces": sorted(workspaces)}
    try:
        sid, session = await console.sessions.create(who)
        await console.store.record_action(AdminAction(who, "sign_in", outcome=outcome))
    except StoreError as exc:
        log.error("admin console sign-in failed (%s)", type(exc).__name__)
        return _login_form(request, status=503, message="The stores are unavailable; try again.")
    response = see_other(_next(str(form.get("next") or "")))
    response.set_cookie(
        COOKIE,
        sid,
        max_age=console.sessions.ttl_seconds,
        path=BASE,
        httponly=True,
        samesite="Strict",
        secure=is_tls(request),
    )
    response.del_cookie(LOGIN_COOKIE, path=f"{UI}/login")
    log.info("admin console sign-in who=%s", who)
    return secure(response)


async def _record_failure(request: web.Request, actor: str, reason: str) -> None:
    """A refused sign-in in the activity log: who if known, and why; never what was typed."""
    console = request.app[CONSOLE]
    dropped = console.failures.admit()
    if dropped is None:
        return
    outcome: dict[str, object] = {"reason": reason}
    if dropped:
        outcome["unrecorded_before"] = dropped
    try:
        await console.store.record_action(AdminAction(actor, "sign_in_failed", outcome=outcome))
    except StoreError as exc:  # the refusal stands; the log line above still says it
        log.error("admin console: refused sign-in not recorded (%s)", type(exc).__name__)


async def logout(request: web.Request, ctx: Ctx) -> web.StreamResponse:
    """``POST /admin/ui/logout``: end the session here and on every replica."""
    await ctx.record("sign_out")
    await ctx.console.sessions.end(ctx.sid)
    response = see_other(f"{UI}/login")
    response.del_cookie(COOKIE, path=BASE)
    return response
