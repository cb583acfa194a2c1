"""Exports and erasures from the console: the actions that take data out or delete it.

An export streams the current filter as JSONL or CSV, gzip-compressed if asked (the page's
script shows its size when done). An erasure is two steps: a page that shows what will go
(the runs, the threads whose history and vault are deleted), then a POST with the session's
CSRF token that does it. Both are recorded in the action log before they start: no record,
no export or erasure. A token limited to workspaces exports their runs only, and may erase
only their users (``slack:TEAM:USER``) and threads: any other is a 404, before anything is
recorded or erased, whether it exists or not.
"""

from __future__ import annotations

import logging
from typing import Any

from aiohttp import web

from bot.admin.api import stream_export
from bot.admin.confine import confined, sees, workspace_of
from bot.admin.console.filters import console_filter
from bot.admin.console.web import Ctx, error_page, render
from bot.audit.export import FORMATS, ExportFormat
from bot.audit.types import FilterRejected, RunFilter, UserRef, parse_user_ref
from bot.core.errors import InputRejected
from bot.core.types import parse_thread_id

log = logging.getLogger(__name__)
_SHOWN_THREADS = 50


async def export(request: web.Request, ctx: Ctx) -> web.StreamResponse:
    """``/admin/ui/export.{fmt}?<filter>[&gzip=1]``: the filter's runs as a download."""
    fmt = request.match_info["fmt"]
    if fmt not in FORMATS:
        raise web.HTTPNotFound()
    chosen: ExportFormat = "jsonl" if fmt == "jsonl" else "csv"
    gzip = request.query.get("gzip") == "1"
    run_filter = confined(request, console_filter(request.query, keep=("gzip",)))
    await ctx.record("export", run_filter=run_filter, format=chosen, gzip=gzip)
    return await stream_export(request, ctx.console.store, run_filter, chosen, gzip=gzip)


def _target(request: web.Request, values: Any) -> tuple[str, UserRef | str] | None:
    """The user or thread to erase; ``None`` when the token may not see its workspace.

    Raises:
        FilterRejected: neither, both, or a malformed one.
    """
    kind, target = _parsed(values)
    workspace = target.workspace if isinstance(target, UserRef) else workspace_of(target)
    return (kind, target) if sees(request, workspace) else None


def _parsed(values: Any) -> tuple[str, UserRef | str]:
    user, thread = str(values.get("user", "")).strip(), str(values.get("thread", "")).strip()
    if user and not thread:
        return "user", parse_user_ref(user)
    if thread and not user:
        try:
            return "thread", parse_thread_id(thread)
        except InputRejected:
            raise FilterRejected(
                "thread: not a thread id (slack:T:C:ts, discord:G:C, console:name)"
            ) from None
    raise FilterRejected(
        "give either a user (slack:TEAM:USER, discord:USER, console:USER) or a thread"
    )


def _not_found(request: web.Request, ctx: Ctx) -> web.StreamResponse:
    log.warning("admin console erasure refused: another workspace who=%s", ctx.session.who)
    return error_page(request, 404, "No such user or thread.", session=ctx.session)


def _runs_of(kind: str, target: UserRef | str) -> RunFilter:
    if isinstance(target, UserRef):
        return target.run_filter()
    return RunFilter(thread_id=target)


async def erase_preview(request: web.Request, ctx: Ctx) -> web.StreamResponse:
    """``GET /admin/ui/erase?user=…|thread=…``: what an erasure would remove, and its button."""
    if not request.query.get("user") and not request.query.get("thread"):
        return render(request, "erase.html", session=ctx.session, preview=None)
    found = _target(request, request.query)
    if found is None:
        return _not_found(request, ctx)
    kind, target = found
    store = ctx.console.store
    runs = _runs_of(kind, target)
    threads = await store.thread_ids(runs)
    count = await store.count_runs(runs)
    await ctx.record("erase_preview", target=str(target), run_filter=runs, runs=count)
    preview = {
        "kind": kind,
        "target": str(target),
        "runs": count,
        "threads": threads[:_SHOWN_THREADS],
        "thread_count": len(threads),
        "keeps_runs": ctx.console.eraser.pseudonym_key is not None,
    }
    return render(request, "erase.html", session=ctx.session, preview=preview)


async def erase(request: web.Request, ctx: Ctx) -> web.StreamResponse:
    """``POST /admin/ui/erase``: erase the confirmed user or thread; show what went."""
    found = _target(request, await request.post())
    if found is None:
        return _not_found(request, ctx)
    kind, target = found
    await ctx.record(
        "erase_user" if kind == "user" else "erase_thread",
        target=str(target),
        run_filter=_runs_of(kind, target),
    )
    eraser = ctx.console.eraser
    if isinstance(target, UserRef):
        counts = await eraser.forget_user(target)
    else:
        counts = await eraser.forget_thread(target)
    log.info(
        "admin console erasure who=%s kind=%s runs=%d", ctx.session.who, kind, counts.runs_deleted
    )
    return render(
        request, "erased.html", session=ctx.session, kind=kind, target=str(target), counts=counts
    )
