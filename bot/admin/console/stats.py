"""The charts page: turns, cost and redacted entities per day; errors per day; cost by workspace.

Three grouped scans of the filtered runs (per day with entity counts, per day and status, per
workspace), newest window first: without ``since`` the page shows the last 30 days, so the
cost of the page follows the window, not the size of the log.
"""

from __future__ import annotations

from datetime import date, timedelta

from aiohttp import web

from bot.admin.console.charts import Series, count, horizontal_bars, legend, stacked_bars, usd
from bot.admin.console.filters import console_filter, form_values
from bot.admin.console.web import Ctx, render
from bot.audit.types import RollupRow
from bot.core.types import TurnStatus

DEFAULT_SINCE = "30d"
MAX_DAYS = 400
ENTITY_SERIES = 8
WORKSPACES = 12
ERRORS = (TurnStatus.GUARDRAIL_ERROR.value, TurnStatus.MODEL_ERROR.value)


def _all_days(rows: list[RollupRow]) -> list[str]:
    """Every day from the first to the last with runs (days without runs count zero)."""
    keys = sorted(r.key for r in rows)
    if not keys:
        return []
    first, last = date.fromisoformat(keys[0]), date.fromisoformat(keys[-1])
    span = min((last - first).days, MAX_DAYS)
    return [(first + timedelta(days=n)).isoformat() for n in range(span + 1)]


def _entity_series(days: list[str], by_day: dict[str, RollupRow]) -> list[Series]:
    totals: dict[str, int] = {}
    for row in by_day.values():
        for kind, n in row.entities.items():
            totals[kind] = totals.get(kind, 0) + n
    ranked = sorted(totals, key=lambda k: (-totals[k], k))
    shown, rest = ranked[:ENTITY_SERIES], set(ranked[ENTITY_SERIES:])
    empty = RollupRow("", 0, 0, 0, 0, 0, 0.0, {})
    series = [
        Series(kind, [by_day.get(d, empty).entities.get(kind, 0) for d in days]) for kind in shown
    ]
    if rest:
        values = [
            sum(n for k, n in by_day.get(d, empty).entities.items() if k in rest) for d in days
        ]
        series.append(Series("other", values))
    return series


async def stats_page(request: web.Request, ctx: Ctx) -> web.StreamResponse:
    """``/admin/ui/stats?<filter>``: the charts of the filtered runs (last 30 days by default)."""
    query = dict(request.query)
    query.setdefault("since", DEFAULT_SINCE)
    if not query["since"].strip():
        query["since"] = DEFAULT_SINCE
    run_filter = console_filter(query)
    store = ctx.console.store
    rows = await store.rollup(run_filter, "day", limit=MAX_DAYS)
    statuses = await store.status_counts(run_filter, "day")
    workspaces = await store.rollup(run_filter, "workspace", limit=WORKSPACES, entities=False)
    await ctx.record("view_stats", run_filter=run_filter, days=len(rows))
    by_day = {r.key: r for r in rows}
    days = _all_days(rows)
    entity = _entity_series(days, by_day)
    errors = [Series(s, [statuses.get(d, {}).get(s, 0) for d in days]) for s in ERRORS]
    turns = [by_day[d].turns if d in by_day else 0 for d in days]
    costs = [by_day[d].cost_usd if d in by_day else 0.0 for d in days]
    spend = sorted(((w.key, w.cost_usd) for w in workspaces), key=lambda kv: -kv[1])
    charts = [
        (
            "turns",
            "Turns per day",
            stacked_bars(days, [Series("turns", turns)], fmt=count, label="Turns per day"),
            None,
        ),
        (
            "cost",
            "Cost per day (USD)",
            stacked_bars(days, [Series("cost", costs)], fmt=usd, label="Cost per day"),
            None,
        ),
        (
            "entities",
            "Redacted entities by type per day",
            stacked_bars(days, entity, fmt=count, label="Redacted entities by type per day"),
            legend([s.name for s in entity]),
        ),
        (
            "errors",
            "Guardrail and model errors per day",
            stacked_bars(days, errors, fmt=count, label="Errors per day"),
            legend(list(ERRORS)),
        ),
        (
            "workspaces",
            "Cost by workspace (USD)",
            horizontal_bars(spend, fmt=usd, label="Cost by workspace"),
            None,
        ),
    ]
    totals = {
        "turns": sum(turns),
        "cost": usd(sum(costs)),
        "entities": sum(r.entity_total for r in rows),
        "errors": sum(sum(s.values) for s in errors),
    }
    return render(
        request,
        "stats.html",
        session=ctx.session,
        charts=charts,
        totals=totals,
        form=form_values(query),
        first=days[0] if days else None,
        last=days[-1] if days else None,
    )
