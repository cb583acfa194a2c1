"""The periods of the charts' sums and the totals they add up to (plain data, no SQL).

A period is closed once it ended more than ``GRACE`` ago: whole UTC days, and, within the
days still open (today, and yesterday for an hour after midnight), whole hours. Closed
periods are summed once (``bot.audit.daily``); the rest is aggregated from the runs.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta

GRACE = timedelta(hours=1)
"""How long after midnight UTC a day's runs may still arrive (turns in flight, clock skew)."""


@dataclass(frozen=True, slots=True)
class DailyRow:
    """Totals of one UTC day, platform, workspace and status."""

    day: str
    platform: str
    workspace: str
    status: str
    turns: int
    cost_usd: float
    entities: dict[str, int] = field(default_factory=dict)


@dataclass
class DayTotals:
    """What the charts draw: per day, per day and status or entity type, cost per workspace."""

    turns: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    cost_usd: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    statuses: dict[tuple[str, str], int] = field(default_factory=lambda: defaultdict(int))
    entities: dict[tuple[str, str], int] = field(default_factory=lambda: defaultdict(int))
    workspaces: dict[str, float] = field(default_factory=lambda: defaultdict(float))

    def add(self, row: DailyRow) -> None:
        """Count one row of day totals in."""
        self.turns[row.day] += row.turns
        self.cost_usd[row.day] += row.cost_usd
        self.statuses[(row.day, row.status)] += row.turns
        self.workspaces[row.workspace] += row.cost_usd
        for kind, n in row.entities.items():
            self.entities[(row.day, kind)] += n


def closed_before(now: datetime) -> date:
    """The first day that is not closed yet at ``now`` (every earlier day is)."""
    return (now.astimezone(UTC) - GRACE).date()


def day_start(day: date) -> datetime:
    """Midnight UTC at the start of ``day``."""
    return datetime.combine(day, time(0), tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class Period:
    """A closed stretch of time with its summary key (a day, or an hour of today)."""

    key: str
    start: datetime
    end: datetime


def period_key(at: datetime, *, hour: bool) -> str:
    """The summary key of the day (``YYYY-MM-DD``) or hour (``YYYY-MM-DDTHH``) of ``at``."""
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H" if hour else "%Y-%m-%d")


def hour_floor(at: datetime) -> datetime:
    """The start of the UTC hour of ``at``."""
    return at.astimezone(UTC).replace(minute=0, second=0, microsecond=0)


def periods(since: date, last: date, now: datetime) -> tuple[list[Period], datetime]:
    """The closed periods from ``since`` through ``last``, and where the open rest starts.

    Closed days first, then the closed hours of the days still open (today, and yesterday
    for an hour after midnight); the runs from the returned instant on are aggregated raw.
    """
    first_open = min(closed_before(now), last + timedelta(days=1))
    out = [
        Period(d.isoformat(), day_start(d), day_start(d + timedelta(days=1)))
        for d in (since + timedelta(days=n) for n in range(max(0, (first_open - since).days)))
    ]
    at = day_start(max(since, first_open))
    stop = min(hour_floor(now - GRACE), day_start(last + timedelta(days=1)))
    while at + timedelta(hours=1) <= stop:
        out.append(Period(period_key(at, hour=True), at, at + timedelta(hours=1)))
        at += timedelta(hours=1)
    return out, at


def merge_spans(spans: list[tuple[datetime, datetime]]) -> list[tuple[datetime, datetime]]:
    """Adjacent ``[start, end)`` spans joined, in order (fewer queries on the runs)."""
    merged: list[tuple[datetime, datetime]] = []
    for start, end in sorted(spans):
        if merged and merged[-1][1] == start:
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged
