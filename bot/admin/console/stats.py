"""The charts page: turns, cost and redacted entities per day; errors per day; cost by workspace.

Everything comes from ``daily_totals`` (on PostgreSQL, closed days and hours from their
sums), so the page costs about the same at a thousand runs and at a million. Without
``since`` it shows the last 30 days; the range covers whole days. A token limited to
workspaces charts their runs only.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import date, timedelta

from aiohttp import web
from markupsafe import Markup

from bot.admin.confine import confined
from bot.admin.console.charts import Series, count, horizontal_bars, legend, stacked_bars, usd
from bot.admin.console.filters import console_filter, field_errors, form_values
from bot.admin.console.web import Ctx, render
from bot.audit.periods import DayTotals
from bot.audit.types import FilterRejected
from bot.core.types import TurnStatus

DEFAULT_SINCE = "30d"
MAX_DAYS = 400
ENTITY_SERIES = 8
WORKSPACES = 12
ERRORS = (TurnStatus.GUARDRAIL_ERROR.value, TurnStatus.MODEL_ERROR.value)


def _all_days(totals: DayTotals) -> list[str]:
    """Every day from the first to the last with runs (days without runs count zero)."""
    keys = sorted(d for d, n in totals.turns.items() if n)
    if not keys:
        return []
    first, last = date.fromisoformat(keys[0]), date.fromisoformat(keys[-1])
    span = min((last - first).days, MAX_DAYS)
    return [(first + timedelta(days=n)).isoformat() for n in range(span + 1)]


def _entity_series(days: list[str], totals: DayTotals) -> list[Series]:
    per_kind: dict[str, int] = defaultdict(int)
    for (_, kind), n in totals.entities.items():
        per_kind[kind] += n
    ranked = sorted(per_kind, key=lambda k: (-per_kind[k], k))
    shown, rest = ranked[:ENTITY_SERIES], ranked[ENTITY_SERIES:]
    series = [Series(kind, [totals.entities.get((d, kind), 0) for d in days]) for kind in shown]
    if rest:
        values = [sum(totals.entities.get((d, k), 0) for k in rest) for d in days]
        series.append(Series("other", values))
    return series


Chart = tuple[str, str, Markup, Markup | None]
"""A chart: element id, title, the SVG, its legend."""


def _charts(totals: DayTotals) -> tuple[list[Chart], dict[str, object], list[str]]:
    days = _all_days(totals)
    entity = _entity_series(days, totals)
    error_series = [Series(s, [totals.statuses.get((d, s), 0) for d in days]) for s in ERRORS]
    top = sorted(totals.workspaces.items(), key=lambda kv: (-kv[1], kv[0]))[:WORKSPACES]
    turn_series = [Series("turns", [totals.turns.get(d, 0) for d in days])]
    cost_series = [Series("cost", [totals.cost_usd.get(d, 0.0) for d in days])]
    charts: list[Chart] = [
        (
            "turns",
            "Turns per day",
            stacked_bars(days, turn_series, fmt=count, label="Turns per day"),
            None,
        ),
        (
            "cost",
            "Cost per day (USD)",
            stacked_bars(days, cost_series, fmt=usd, label="Cost per day"),
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
            stacked_bars(days, error_series, fmt=count, label="Errors per day"),
            legend(list(ERRORS)),
        ),
        (
            "workspaces",
            "Cost by workspace (USD)",
            horizontal_bars(top, fmt=usd, label="Cost by workspace"),
            None,
        ),
    ]
    summary: dict[str, object] = {
        "turns": sum(totals.turns.values()),
        "cost": usd(sum(totals.cost_usd.values())),
        "entities": sum(totals.entities.values()),
        "errors": sum(sum(s.values) for s in error_series),
    }
    return charts, summary, days


async def stats_page(request: web.Request, ctx: Ctx) -> web.StreamResponse:
    """``/admin/ui/stats?<filter>``: the charts of the filtered runs (last 30 days by default)."""
    query = dict(request.query)
    if not query.get("since", "").strip():
        query["since"] = DEFAULT_SINCE
    try:
        run_filter = console_filter(query)
    except FilterRejected:
        return render(
            request,
            "stats.html",
            status=400,
            session=ctx.session,
            charts=[],
            totals={"turns": 0, "cost": usd(0), "entities": 0, "errors": 0},
            form=form_values(query),
            errors=field_errors(query),
            first=None,
            last=None,
        )
    run_filter = confined(request, run_filter)
    totals = await ctx.console.store.daily_totals(run_filter)
    await ctx.record("view_stats", run_filter=run_filter, days=len(totals.turns))
    charts, summary, days = _charts(totals)
    return render(
        request,
        "stats.html",
        session=ctx.session,
        charts=charts,
        totals=summary,
        form=form_values(query),
        first=days[0] if days else None,
        last=days[-1] if days else None,
        errors={},
    )
