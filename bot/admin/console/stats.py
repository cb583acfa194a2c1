"""The charts page: turns, cost and redacted entities per day; errors per day; cost by workspace.

Everything comes from ``daily_totals`` (per UTC day, platform, workspace and status; closed
days from their summaries on PostgreSQL), so the page costs about the same at a thousand runs
and at a million. Without ``since`` it shows the last 30 days; the range covers whole days.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import date, timedelta

from aiohttp import web
from markupsafe import Markup

from bot.admin.console.charts import Series, count, horizontal_bars, legend, stacked_bars, usd
from bot.admin.console.filters import console_filter, form_values
from bot.admin.console.web import Ctx, render
from bot.audit.daily import DailyRow
from bot.core.types import TurnStatus

DEFAULT_SINCE = "30d"
MAX_DAYS = 400
ENTITY_SERIES = 8
WORKSPACES = 12
ERRORS = (TurnStatus.GUARDRAIL_ERROR.value, TurnStatus.MODEL_ERROR.value)


def _all_days(rows: list[DailyRow]) -> list[str]:
    """Every day from the first to the last with runs (days without runs count zero)."""
    keys = sorted({r.day for r in rows})
    if not keys:
        return []
    first, last = date.fromisoformat(keys[0]), date.fromisoformat(keys[-1])
    span = min((last - first).days, MAX_DAYS)
    return [(first + timedelta(days=n)).isoformat() for n in range(span + 1)]


def _entity_series(days: list[str], rows: list[DailyRow]) -> list[Series]:
    per_day: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    totals: dict[str, int] = defaultdict(int)
    for row in rows:
        for kind, n in row.entities.items():
            per_day[row.day][kind] += n
            totals[kind] += n
    ranked = sorted(totals, key=lambda k: (-totals[k], k))
    shown, rest = ranked[:ENTITY_SERIES], set(ranked[ENTITY_SERIES:])
    series = [Series(kind, [per_day[d].get(kind, 0) for d in days]) for kind in shown]
    if rest:
        values = [sum(n for k, n in per_day[d].items() if k in rest) for d in days]
        series.append(Series("other", values))
    return series


Chart = tuple[str, str, Markup, Markup | None]
"""A chart: element id, title, the SVG, its legend."""


def _charts(rows: list[DailyRow]) -> tuple[list[Chart], dict[str, object], list[str]]:
    days = _all_days(rows)
    turns: dict[str, int] = defaultdict(int)
    costs: dict[str, float] = defaultdict(float)
    errors: dict[tuple[str, str], int] = defaultdict(int)
    spend: dict[str, float] = defaultdict(float)
    for r in rows:
        turns[r.day] += r.turns
        costs[r.day] += r.cost_usd
        errors[(r.day, r.status)] += r.turns
        spend[r.workspace] += r.cost_usd
    entity = _entity_series(days, rows)
    error_series = [Series(s, [errors[(d, s)] for d in days]) for s in ERRORS]
    top = sorted(spend.items(), key=lambda kv: (-kv[1], kv[0]))[:WORKSPACES]
    turn_series = [Series("turns", [turns[d] for d in days])]
    cost_series = [Series("cost", [costs[d] for d in days])]
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
    totals: dict[str, object] = {
        "turns": sum(turns.values()),
        "cost": usd(sum(costs.values())),
        "entities": sum(sum(r.entities.values()) for r in rows),
        "errors": sum(sum(s.values) for s in error_series),
    }
    return charts, totals, days


async def stats_page(request: web.Request, ctx: Ctx) -> web.StreamResponse:
    """``/admin/ui/stats?<filter>``: the charts of the filtered runs (last 30 days by default)."""
    query = dict(request.query)
    if not query.get("since", "").strip():
        query["since"] = DEFAULT_SINCE
    run_filter = console_filter(query)
    rows = await ctx.console.store.daily_totals(run_filter)
    await ctx.record("view_stats", run_filter=run_filter, rows=len(rows))
    charts, totals, days = _charts(rows)
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
