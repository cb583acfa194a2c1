"""The HTTP admin API (aiohttp): audit runs, exports and stats, plus health probes.

Every call (but the OpenAPI document) is recorded in the admin action log before it is
answered: the token's id, the route's action, the filter or run id.

``add_admin_routes`` adds the routes to an ``aiohttp.web.Application`` so one server can carry
them beside the Slack HTTP endpoint. Every ``/admin/*`` route needs ``Authorization: Bearer
<token>`` with the ``admin`` scope: 401 without a token or with an unknown one, 403 for a
known token without the scope. A token limited to workspaces (``bot.admin.confine``) has
every filter confined to them: 403 when it names another workspace, 404 for another's run.
``/healthz`` and ``/readyz`` are open (probes). The OpenAPI document is
``/admin/openapi.json``. Responses hold placeholder text and ids only.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from contextlib import aclosing
from dataclasses import asdict
from typing import Any, Protocol

from aiohttp import web

from bot.admin.auth import ADMIN_SCOPE, AdminTokens
from bot.admin.confine import WorkspaceForbidden, confined, limit, sees
from bot.admin.openapi import OPENAPI
from bot.audit.actions import ActionKind, ActionLog, AdminAction
from bot.audit.export import FORMATS, ExportFormat, export_chunks, record_dict
from bot.audit.types import (
    GROUPS,
    MAX_PAGE,
    AuditQueryStore,
    FilterRejected,
    RunFilter,
    check_limit,
    parse_instant,
)
from bot.core.errors import StoreError
from bot.core.logsafe import ThrottledLog, shown

log = logging.getLogger(__name__)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
Readiness = Callable[[], Awaitable[Mapping[str, bool]]]
Timings = Callable[[], Mapping[str, float]]
"""What ``/readyz`` reports besides its checks: how long start-up took (seconds)."""
_STORE = web.AppKey("veilbot_audit", AuditQueryStore)
_ACTIONS = web.AppKey("veilbot_admin_actions", ActionLog)
_ID_PARAMS = ("thread_id", "user_id", "platform", "workspace", "channel", "status")
_CONTENT_TYPES = {"jsonl": "application/x-ndjson", "csv": "text/csv"}
_LIMIT = re.compile(r"[0-9]{1,9}")


def _error(status: int, message: str, **headers: str) -> web.Response:
    return web.json_response({"error": message}, status=status, headers=headers)


class AdminStore(AuditQueryStore, ActionLog, Protocol):
    """The audit log and the admin action log (``SqlAuditStore``)."""


async def _record(request: web.Request, who: str, kind: ActionKind | None) -> None:
    """Record an API call in the admin action log before it is answered (fail closed)."""
    if kind is None:
        return
    run_id = request.match_info.get("run_id")
    described = {} if run_id else _filter(request).describe()
    outcome = {
        "via": "api",
        **({"format": request.path.rsplit(".", 1)[-1]} if kind == "export" else {}),
    }
    action = AdminAction(who, kind, target=run_id, filter=described, outcome=outcome)
    await request.app[_ACTIONS].record_action(action)


def _guard(
    tokens: AdminTokens, handler: Handler, refusals: ThrottledLog, kind: ActionKind | None = None
) -> Handler:
    async def guarded(request: web.Request) -> web.StreamResponse:
        scheme, _, token = request.headers.get("Authorization", "").partition(" ")
        found = tokens.identify(token.strip()) if scheme.lower() == "bearer" and token else None
        who, scopes = found if found is not None else ("", None)
        if scopes is None:
            refusals.warning("unauthorized", f"path={request.path}")
            return _error(401, "missing or unknown bearer token", **{"WWW-Authenticate": "Bearer"})
        if ADMIN_SCOPE not in scopes:
            refusals.warning("forbidden", f"path={request.path}")
            return _error(403, "this token lacks the admin scope")
        limit(request, tokens.workspaces_of(who))
        try:
            await _record(request, who, kind)
            return await handler(request)
        except WorkspaceForbidden as exc:
            refusals.warning("forbidden", f"path={request.path}")
            return _error(403, str(exc))
        except FilterRejected as exc:
            return _error(400, str(exc))
        except StoreError as exc:
            log.error("admin api store error path=%s (%s)", shown(request.path), type(exc).__name__)
            return _error(503, "the audit store is unavailable")

    return guarded


def filter_from_query(query: Mapping[str, str], getall: Callable[[str], list[str]]) -> RunFilter:
    """A ``RunFilter`` from query parameters (``meta.KEY=VALUE`` for metadata, strings only).

    Raises:
        FilterRejected: an unknown parameter or a malformed value.
    """
    values: dict[str, Any] = {k: query[k] for k in _ID_PARAMS if k in query}
    for name in ("since", "until"):
        if name in query:
            values[name] = parse_instant(query[name])
    meta = {k[5:]: getall(k)[-1] for k in query if k.startswith("meta.")}
    known = {*_ID_PARAMS, "since", "until", "limit", "cursor", "by", "format"}
    unknown = [k for k in query if k not in known and not k.startswith("meta.")]
    if unknown:
        raise FilterRejected(f"unknown query parameter(s): {', '.join(sorted(unknown)[:5])}")
    return RunFilter(metadata=meta, **values)


def _filter(request: web.Request) -> RunFilter:
    return confined(request, filter_from_query(request.query, request.query.getall))


def _int(request: web.Request, name: str, default: int) -> int:
    """A page size from the query: ASCII digits, within ``1..MAX_PAGE`` (else 400)."""
    raw = request.query.get(name)
    if raw is None:
        return default
    if not _LIMIT.fullmatch(raw):  # also keeps int() from 5 000-digit numbers
        raise FilterRejected(f"{name} must be an integer from 1 to {MAX_PAGE}")
    return check_limit(int(raw))


async def _runs(request: web.Request) -> web.Response:
    store = request.app[_STORE]
    run_filter = _filter(request)
    page = await store.list_runs(
        run_filter, limit=_int(request, "limit", 100), cursor=request.query.get("cursor")
    )
    body = {"runs": [record_dict(r) for r in page.runs], "next_cursor": page.next_cursor}
    return web.json_response(body)


async def _run(request: web.Request) -> web.Response:
    record = await request.app[_STORE].get_run(request.match_info["run_id"])
    if record is None or not sees(request, record.workspace):
        return _error(404, "no such run")
    return web.json_response(record_dict(record))


async def _stats(request: web.Request) -> web.Response:
    store = request.app[_STORE]
    run_filter = _filter(request)
    by = request.query.get("by", "day")
    if by not in GROUPS:
        raise FilterRejected(f"by must be one of {', '.join(GROUPS)}")
    rows = await store.rollup(run_filter, by, limit=_int(request, "limit", 1000))
    groups = [{**asdict(r), "entity_total": r.entity_total} for r in rows]
    total = await store.count_runs(run_filter)
    return web.json_response({"by": by, "runs": total, "groups": groups})


async def stream_export(
    request: web.Request,
    store: AuditQueryStore,
    run_filter: RunFilter,
    fmt: ExportFormat,
    *,
    gzip: bool = False,
) -> web.StreamResponse:
    """Stream an export of ``run_filter`` as the response (the API's and the console's).

    A database failure after the headers went out cuts the connection, so a partial file
    can never look complete.
    """
    name = f"veilbot-audit.{fmt}" + (".gz" if gzip else "")
    content_type = "application/gzip" if gzip else f"{_CONTENT_TYPES[fmt]}; charset=utf-8"
    response = web.StreamResponse(
        headers={
            "Content-Type": content_type,
            "Content-Disposition": f'attachment; filename="{name}"',
            "Cache-Control": "no-store",
            "X-Content-Type-Options": "nosniff",
        }
    )
    await response.prepare(request)
    try:
        async with aclosing(export_chunks(store, run_filter, fmt, gzip=gzip)) as chunks:
            async for chunk in chunks:
                await response.write(chunk)
    except StoreError as exc:  # headers are sent: cut the body so it cannot look complete
        log.error("admin export aborted (%s)", type(exc).__name__)
        if request.transport is not None:
            request.transport.close()
        return response
    await response.write_eof()
    return response


def _export(fmt: ExportFormat) -> Handler:
    async def export(request: web.Request) -> web.StreamResponse:
        run_filter = _filter(request)  # before the response starts: bad filters get a 400
        return await stream_export(request, request.app[_STORE], run_filter, fmt)

    return export


async def _openapi(request: web.Request) -> web.Response:
    return web.json_response(OPENAPI)


def _probes(readiness: Readiness, timings: Timings | None) -> tuple[Handler, Handler]:
    async def healthz(request: web.Request) -> web.Response:
        return web.json_response({"status": "ok"})

    async def readyz(request: web.Request) -> web.Response:
        checks = dict(await readiness())
        ready = all(checks.values())
        body: dict[str, object] = {"status": "ready" if ready else "not ready", "checks": checks}
        if timings is not None:
            body["timings"] = {k: round(v, 3) for k, v in timings().items()}
        return web.json_response(body, status=200 if ready else 503)

    return healthz, readyz


def add_probe_routes(
    app: web.Application, readiness: Readiness, timings: Timings | None = None
) -> None:
    """Add ``/readyz`` (503 unless every check passes) and ``/healthz`` (unless ``app`` has one).

    Args:
        app: the server's application (an ``HttpServer`` answers ``/healthz`` itself).
        readiness: returns named checks (``redis``, ``database``, ``guardrail``) -> ok.
        timings: start-up timings ``/readyz`` reports beside its checks.
    """
    healthz, readyz = _probes(readiness, timings)
    if not any(r.canonical == "/healthz" for r in app.router.resources()):
        app.router.add_get("/healthz", healthz, allow_head=False)
    app.router.add_get("/readyz", readyz, allow_head=False)


def add_admin_routes(
    app: web.Application,
    *,
    store: AdminStore,
    tokens: AdminTokens,
    readiness: Readiness,
    timings: Timings | None = None,
) -> None:
    """Add the admin API and the health probes to ``app`` (before it starts).

    Args:
        app: the server's application (shared with the Slack HTTP endpoint).
        store: the audit log, where every call is also recorded (who, what, when; ids only).
        tokens: accepted bearer tokens and their scopes.
        readiness: returns named checks (``redis``, ``database``, ``guardrail``) -> ok.
        timings: start-up timings ``/readyz`` reports beside its checks.
    """
    app[_STORE] = store
    app[_ACTIONS] = store
    routes: list[tuple[str, Handler, ActionKind | None]] = [
        ("/admin/runs", _runs, "view_runs"),
        ("/admin/runs/{run_id}", _run, "view_run"),
        ("/admin/stats", _stats, "view_stats"),
        ("/admin/openapi.json", _openapi, None),
        *((f"/admin/export.{fmt}", _export(fmt), "export") for fmt in FORMATS),
    ]
    refusals = ThrottledLog(log, "admin api refused")  # one line a minute per kind, counted
    for path, handler, kind in routes:
        app.router.add_get(path, _guard(tokens, handler, refusals, kind), allow_head=False)
    add_probe_routes(app, readiness, timings)
