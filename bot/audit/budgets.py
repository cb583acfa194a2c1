"""A month's spend and budget raises read back from the audit database (Redis rebuilds).

The audit log keeps every turn's ``cost_usd``; summing a month of it by workspace, channel
and person gives the running sums Redis keeps (``bot.state.budgets``). The admin action log
keeps every ``budget_limit`` action; the month's last one per budget is its raise.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.audit.errors import DbErrors
from bot.audit.schema import admin_actions, audit_runs

BudgetKey = tuple[str, str]
"""(kind, id): ``("user", "slack:T1:U1")``."""

BUDGET_ACTION = "budget_limit"


async def month_spend(
    engine: AsyncEngine, start: datetime, end: datetime
) -> dict[BudgetKey, float]:
    """The cost of the turns that began in ``[start, end)``, by workspace, channel and person."""
    c = audit_runs.c
    query = sa.select(c.platform, c.workspace, c.channel, c.user_id, c.metadata, c.cost_usd).where(
        c.started_at >= start, c.started_at < end, c.cost_usd > 0
    )
    sums: dict[BudgetKey, float] = defaultdict(float)
    async with DbErrors("month spend"), engine.connect() as conn:
        result = await conn.stream(query)
        async for row in result:
            base = f"{row.platform}:{row.workspace}"
            sums[("workspace", base)] += row.cost_usd
            meta = row.metadata or {}
            if not meta.get("private"):
                channel = meta.get("parent_channel") or row.channel
                sums[("channel", f"{base}:{channel}")] += row.cost_usd
            sums[("user", f"{base}:{row.user_id}")] += row.cost_usd
    return dict(sums)


async def month_raises(engine: AsyncEngine, month: str) -> dict[BudgetKey, float | None]:
    """Each budget's last raise (``None``: back to the file) recorded for ``month``."""
    c = admin_actions.c
    query = sa.select(c.target, c.outcome).where(c.action == BUDGET_ACTION).order_by(c.at, c.id)
    found: dict[BudgetKey, float | None] = {}
    async with DbErrors("budget raises"), engine.connect() as conn:
        rows = (await conn.execute(query)).all()
    for row in rows:
        outcome = dict(row.outcome)
        if outcome.get("month") == month and outcome.get("kind") and row.target:
            usd = outcome.get("usd")
            found[(str(outcome["kind"]), str(row.target))] = None if usd is None else float(usd)
    return found
