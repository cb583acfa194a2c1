"""Day totals for the charts: summaries of closed days match the runs, and never go stale.

Same tests on SQLite (always aggregated from the runs) and PostgreSQL (closed days summed
once into audit_daily, then read from there).
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import sqlalchemy as sa

from bot.audit.periods import DayTotals, periods
from bot.audit.schema import audit_daily_done
from bot.audit.store import SqlAuditStore
from bot.audit.types import RunFilter
from bot.core.types import TurnStatus
from tests.fixtures.audit_db import BASE_TIME, run

DAY = 24 * 60
SINCE = RunFilter(since=BASE_TIME - timedelta(days=1))


def by_day(totals: DayTotals) -> dict[str, tuple[int, float, dict[str, int]]]:
    return {
        day: (
            turns,
            round(totals.cost_usd[day], 6),
            {k: n for (d, k), n in totals.entities.items() if d == day},
        )
        for day, turns in totals.turns.items()
    }


async def done_days(store: SqlAuditStore) -> list[str]:
    async with store.engine.connect() as conn:
        return sorted((await conn.execute(sa.select(audit_daily_done.c.day))).scalars())


async def seed(store: SqlAuditStore) -> None:
    for record in [
        run(minutes=0, cost_usd=0.5),
        run(minutes=5, cost_usd=0.25, user_id="U9", entity_counts={"PHONE_NUMBER": 2}),
        run(minutes=DAY, workspace="T2", status=TurnStatus.MODEL_ERROR, cost_usd=None),
        run(started_at=datetime.now(UTC), finished_at=datetime.now(UTC), cost_usd=1.0),
    ]:
        await store.record(record)


async def test_totals_per_day_from_summaries_equal_the_runs(audit_store: SqlAuditStore) -> None:
    await seed(audit_store)
    first = by_day(await audit_store.daily_totals(SINCE))
    again = by_day(await audit_store.daily_totals(SINCE))  # PostgreSQL: closed days summed
    today = datetime.now(UTC).date().isoformat()
    assert first == again
    assert first["2026-03-01"] == (2, 0.75, {"EMAIL_ADDRESS": 1, "PERSON": 1, "PHONE_NUMBER": 2})
    assert first["2026-03-02"] == (1, 0.0, {"EMAIL_ADDRESS": 1, "PERSON": 1})
    assert first[today][0] == 1
    assert "2026-02-28" not in first  # no runs: no rows (the page fills the gap)
    if audit_store.engine.dialect.name == "postgresql":
        assert "2026-03-01" in await done_days(audit_store)
        assert today not in await done_days(audit_store)  # an open day is never summed
    narrow = await audit_store.daily_totals(
        RunFilter(since=SINCE.since, workspace="T2", status="model_error")
    )
    assert dict(narrow.turns) == {"2026-03-02": 1}
    assert dict(narrow.statuses) == {("2026-03-02", "model_error"): 1}
    assert dict(narrow.workspaces) == {"T2": 0.0}
    # a token limited to workspaces: from the summaries too, never another workspace's sums
    limited = await audit_store.daily_totals(
        RunFilter(since=SINCE.since, workspaces=frozenset({"T2"}))
    )
    assert dict(limited.turns) == {"2026-03-02": 1}
    assert dict(limited.workspaces) == {"T2": 0.0}
    by_user = await audit_store.daily_totals(RunFilter(since=SINCE.since, user_id="U9"))
    assert dict(by_user.turns) == {"2026-03-01": 1}
    assert dict(by_user.entities) == {("2026-03-01", "PHONE_NUMBER"): 2}


async def test_a_late_record_erasure_or_purge_is_seen_at_once(audit_store: SqlAuditStore) -> None:
    await seed(audit_store)
    await audit_store.daily_totals(SINCE)  # sum the closed days
    await audit_store.record(run(minutes=10, cost_usd=1.0))  # late, on a closed day
    assert by_day(await audit_store.daily_totals(SINCE))["2026-03-01"][:2] == (3, 1.75)
    if audit_store.engine.dialect.name == "postgresql":
        assert {"2026-03-01", "2026-03-02"} <= set(await done_days(audit_store))
    assert await audit_store.delete_runs(RunFilter(user_id="U9")) == 1  # an erasure
    if audit_store.engine.dialect.name == "postgresql":  # only the erased runs' day is redone
        assert "2026-03-01" not in await done_days(audit_store)
        assert "2026-03-02" in await done_days(audit_store)
    assert by_day(await audit_store.daily_totals(SINCE))["2026-03-01"][:2] == (2, 1.5)
    await audit_store.purge_before(BASE_TIME + timedelta(hours=12))  # ends 2026-03-01
    totals = by_day(await audit_store.daily_totals(SINCE))
    assert "2026-03-01" not in totals
    assert totals["2026-03-02"][0] == 1


async def test_until_and_since_cover_whole_days(audit_store: SqlAuditStore) -> None:
    await seed(audit_store)
    window = RunFilter(since=BASE_TIME + timedelta(hours=1), until=BASE_TIME + timedelta(hours=2))
    totals = by_day(await audit_store.daily_totals(window))
    assert list(totals) == ["2026-03-01"]
    assert totals["2026-03-01"][0] == 2


async def test_a_window_of_open_days_only(audit_store: SqlAuditStore) -> None:
    await seed(audit_store)
    today = datetime.now(UTC)
    totals = by_day(await audit_store.daily_totals(RunFilter(since=today - timedelta(minutes=1))))
    assert list(totals) == [today.date().isoformat()]


def test_periods_are_closed_days_then_closed_hours_of_today() -> None:
    now = datetime(2026, 3, 10, 14, 30, tzinfo=UTC)
    closed, tail = periods(date(2026, 3, 8), date(2026, 3, 10), now)
    assert [p.key for p in closed] == ["2026-03-08", "2026-03-09"] + [
        f"2026-03-10T{h:02d}" for h in range(13)
    ]
    assert tail == datetime(2026, 3, 10, 13, tzinfo=UTC)  # 13:00-14:30 still open
    early = datetime(2026, 3, 10, 0, 30, tzinfo=UTC)  # yesterday is open for an hour
    closed, tail = periods(date(2026, 3, 9), date(2026, 3, 10), early)
    assert [p.key for p in closed] == [f"2026-03-09T{h:02d}" for h in range(23)]
    assert tail == datetime(2026, 3, 9, 23, tzinfo=UTC)


async def test_hours_of_today_are_summed_and_invalidated(audit_store: SqlAuditStore) -> None:
    now = datetime.now(UTC)
    two_hours_ago = now - timedelta(hours=2, minutes=1)
    await audit_store.record(run(started_at=two_hours_ago, finished_at=two_hours_ago, cost_usd=1.0))
    window = RunFilter(since=now - timedelta(days=1))
    assert by_day(await audit_store.daily_totals(window))[two_hours_ago.date().isoformat()][0] == 1
    late = two_hours_ago + timedelta(seconds=1)  # a late record in a closed (summed) hour
    await audit_store.record(run(started_at=late, finished_at=late, cost_usd=1.0))
    totals = by_day(await audit_store.daily_totals(window))
    assert totals[two_hours_ago.date().isoformat()][:2] == (2, 2.0)
