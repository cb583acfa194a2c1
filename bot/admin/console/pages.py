"""The console's read-only pages: runs, one run, one thread, the admin action log.

Each page view is recorded in the admin action log before the page is sent (fail closed: no
record, no page). A token limited to workspaces sees their runs only (``bot.admin.confine``):
another workspace's run is a 404, its thread shows no turns, as an unknown one does; the
action log, which spans every workspace, is not shown to it. Lists are keyset pages
(``list_runs``), never ``OFFSET``, and show no total count, so a page costs the same at the
first row and the millionth.
"""

from __future__ import annotations

from aiohttp import web

from bot.admin.confine import confined, sees, unconfined
from bot.admin.console.filters import console_filter, field_errors, filter_query, form_values
from bot.admin.console.web import Ctx, error_page, render
from bot.audit.types import FilterRejected, RunFilter
from bot.core.types import TurnStatus

PAGE_SIZE = 50
THREAD_PAGE = 200
STATUSES = [s.value for s in TurnStatus]
NOT_CONFINED = "This page spans every workspace: a token limited to workspaces cannot open it."


async def runs_page(request: web.Request, ctx: Ctx) -> web.StreamResponse:
    """``/admin/``: the runs table, filtered by the URL, newest first, one keyset page.

    A filter that cannot be used gives the form again (400), each message beside its field.
    """
    try:
        run_filter = console_filter(request.query, keep=("cursor",))
    except FilterRejected:
        return render(
            request,
            "runs.html",
            status=400,
            session=ctx.session,
            form=form_values(request.query),
            errors=field_errors(request.query, keep=("cursor",)),
            statuses=STATUSES,
        )
    run_filter = confined(request, run_filter)  # another workspace named: 403, not the form
    cursor = request.query.get("cursor") or None
    page = await ctx.console.store.list_runs(run_filter, limit=PAGE_SIZE, cursor=cursor)
    await ctx.record("view_runs", run_filter=run_filter, rows=len(page.runs))
    query = filter_query(request.query)
    return render(
        request,
        "runs.html",
        session=ctx.session,
        runs=page.runs,
        form=form_values(request.query),
        statuses=STATUSES,
        query=query,
        next_query=filter_query(request.query, cursor=page.next_cursor or ""),
        has_next=page.next_cursor is not None,
        paged=cursor is not None,
        errors={},
    )


async def run_page(request: web.Request, ctx: Ctx) -> web.StreamResponse:
    """``/admin/ui/run/{run_id}``: one run's placeholder text, counts, tokens, cost, latency."""
    run_id = request.match_info["run_id"]
    record = await ctx.console.store.get_run(run_id)
    if record is not None and not sees(request, record.workspace):
        record = None  # another workspace's: as if there were none
    await ctx.record("view_run", target=run_id, found=record is not None)
    if record is None:
        return error_page(
            request, 404, "No such run (it may have been erased).", session=ctx.session
        )
    user = ":".join(
        p
        for p in (
            record.platform,
            record.workspace if record.platform == "slack" else None,
            record.user_id,
        )
        if p
    )
    return render(request, "run.html", session=ctx.session, run=record, user_ref=user)


async def thread_page(request: web.Request, ctx: Ctx) -> web.StreamResponse:
    """``/admin/ui/thread/{thread_id}``: a thread's turns in order (oldest first)."""
    run_filter = confined(request, RunFilter(thread_id=request.match_info["thread_id"]))
    cursor = request.query.get("cursor") or None
    page = await ctx.console.store.list_runs(run_filter, limit=THREAD_PAGE, cursor=cursor)
    await ctx.record("view_thread", target=run_filter.thread_id, rows=len(page.runs))
    return render(
        request,
        "thread.html",
        session=ctx.session,
        thread_id=run_filter.thread_id,
        runs=list(reversed(page.runs)),
        earlier=page.next_cursor,
    )


async def activity_page(request: web.Request, ctx: Ctx) -> web.StreamResponse:
    """``/admin/ui/activity``: the newest admin actions (who, what, when; ids only).

    Every workspace's admins and actions are in it: not for a token limited to workspaces.
    """
    if not unconfined(request):
        return error_page(request, 403, NOT_CONFINED, session=ctx.session)
    actions = await ctx.console.store.recent_actions(limit=200)
    await ctx.record("view_activity", rows=len(actions))
    return render(request, "activity.html", session=ctx.session, actions=actions)
