"""Monthly cost budgets as the core sees them: which budgets a turn counts against, the month.

A turn's cost counts against up to three budgets: its workspace's, its channel's (not in
direct messages) and its author's. Each has an id (``slack:T0123``, ``slack:T0123:C0456``,
``slack:T0123:U024``) and a limit in USD: the named one, else the default of its kind, else none
(spend is still counted, so a budget set later in the month starts from the real figure).
Months are calendar months in UTC; the store keys spend by ``YYYY-MM``.

A turn holds its model call's most possible cost (``Hold``) against its budgets before the
call, in the same atomic step that checks them, and settles it with the real cost after:
turns in flight together cannot all pass a check that their cost, once known, would fail.
A hold the turn never settles (its process died) lapses on its own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime

from bot.core.types import InboundMessage

KINDS = ("workspace", "channel", "user")
MICROS = 1_000_000
"""Spend is kept in micro-dollars: integers add exactly in Redis."""

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    """The default clock."""
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class BudgetRef:
    """One budget of one turn: its kind, its id, and the file's limit (``None``: no limit)."""

    kind: str
    ident: str
    limit_usd: float | None

    @property
    def workspace_tag(self) -> str:
        """``PLATFORM:WORKSPACE``: every budget of a turn shares it (one Redis slot)."""
        platform, workspace = self.ident.split(":")[:2]
        return f"{platform}:{workspace}"


@dataclass(frozen=True, slots=True)
class Budgets:
    """The configured budgets: defaults per kind and named ones by id."""

    defaults: Mapping[str, float | None] = field(default_factory=dict)
    named: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    notify_percent: int = 80

    def ref(self, kind: str, ident: str) -> BudgetRef:
        """The budget of ``kind`` named ``ident``, with its configured limit."""
        limit = self.named.get(kind, {}).get(ident, self.defaults.get(kind))
        return BudgetRef(kind, ident, limit)

    def of(self, message: InboundMessage) -> list[BudgetRef]:
        """The budgets ``message``'s turn counts against, the widest first."""
        base = f"{message.platform}:{message.workspace}"
        refs = [self.ref("workspace", base)]
        if not message.private:
            refs.append(self.ref("channel", f"{base}:{message.parent_channel or message.channel}"))
        refs.append(self.ref("user", f"{base}:{message.user_id}"))
        return refs


@dataclass(frozen=True, slots=True)
class OverBudget:
    """A turn refused because a budget is spent: which one, its limit and this month's spend."""

    budget: BudgetRef
    limit_usd: float
    spent_usd: float
    month: str


@dataclass(frozen=True, slots=True)
class Hold:
    """The most a turn's model call can cost, held against its budgets until it is settled.

    Attributes:
        run_id: the turn's run id (a retried turn holds again under the same id).
        micros: the amount held, in micro-dollars.
        month: the month whose budgets hold it.
    """

    run_id: str
    micros: int
    month: str

    @property
    def member(self) -> str:
        """How the store names the hold: its run and amount (``run:micros``)."""
        return f"{self.run_id}:{self.micros}"


@dataclass(frozen=True, slots=True)
class BudgetState:
    """One budget's month: its spend, its effective limit and where that comes from."""

    budget: BudgetRef
    month: str
    spent_usd: float
    limit_usd: float | None
    raised: bool


@dataclass(frozen=True, slots=True)
class BudgetNotice:
    """A budget that reached the notice share this month (told to admins once)."""

    budget: BudgetRef
    limit_usd: float
    spent_usd: float
    month: str


def month_of(moment: datetime) -> str:
    """``YYYY-MM`` of ``moment`` in UTC."""
    return moment.astimezone(UTC).strftime("%Y-%m")


def month_start(moment: datetime) -> datetime:
    """The first instant of ``moment``'s month (UTC)."""
    m = moment.astimezone(UTC)
    return datetime(m.year, m.month, 1, tzinfo=UTC)


def next_month(moment: datetime) -> datetime:
    """The first instant of the month after ``moment``'s (UTC): when its budgets reset."""
    m = moment.astimezone(UTC)
    year, month = (m.year + 1, 1) if m.month == 12 else (m.year, m.month + 1)
    return datetime(year, month, 1, tzinfo=UTC)


_WHO = {"workspace": "This workspace", "channel": "This channel", "user": "You"}


def over_budget_reply(over: OverBudget) -> str:
    """The one line a refused turn gets: which budget, when it resets, who can raise it."""
    start = datetime.strptime(over.month, "%Y-%m").replace(tzinfo=UTC)
    reset = next_month(start)
    resets = f"{reset.day} {reset:%B %Y}"
    who = _WHO.get(over.budget.kind, "This")
    have = "have" if who == "You" else "has"
    return (
        f"{who} {have} used this month's veilbot budget of ${over.limit_usd:,.2f}. "
        f"It resets on {resets} (UTC); a veilbot admin can raise it."
    )


def notice_text(notice: BudgetNotice) -> str:
    """The admin notice: which budget, how much of it is spent, how to raise it."""
    share = notice.spent_usd / notice.limit_usd * 100 if notice.limit_usd else 100.0
    return (
        f"veilbot budget notice: the {notice.budget.kind} budget `{notice.budget.ident}` has "
        f"used ${notice.spent_usd:,.2f} of ${notice.limit_usd:,.2f} ({share:.0f}%) in "
        f"{notice.month}. Raise it with `budget raise {notice.budget.kind} "
        f"{notice.budget.ident} USD` (chat, the CLI or the admin console)."
    )
