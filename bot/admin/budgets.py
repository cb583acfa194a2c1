"""Budget administration, shared by chat, the CLI and the admin console: show, raise, reset.

``budget show`` lists this month's spend against every budget; ``budget raise KIND ID USD``
sets a budget's limit for the rest of the month (it wins over the config file, also after a
reload; the next month starts from the file again); ``budget reset KIND ID`` drops the raise.
Every change is recorded in the admin action log (ids and amounts only) before it is made,
and ``rebuild`` restores a month's sums and raises from the audit database after Redis lost
them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Protocol

from bot.audit.actions import ActionLog, AdminAction
from bot.audit.budgets import BudgetKey
from bot.core.budgets import KINDS, BudgetRef, Budgets, BudgetState, Clock, next_month

USAGE = (
    "Usage: `budget show`, `budget raise KIND ID USD` or `budget reset KIND ID`; KIND is "
    "workspace, channel or user, ID is `slack:TEAM`, `slack:TEAM:CHANNEL` or `slack:TEAM:USER` "
    "(`discord:GUILD...`), e.g. `budget raise user slack:T0123:U024BE7LH 50`."
)
_PARTS = {"workspace": 2, "channel": 3, "user": 3}


class BudgetLedger(Protocol):
    """The spend store (``RedisSpendLedger``) as the admin tools use it."""

    budgets: Budgets
    clock: Clock

    async def set_limit(self, ref: BudgetRef, usd: float | None) -> str:
        """Set (``None``: drop) ``ref``'s limit for this month; the month."""
        ...

    async def states(
        self, refs: Iterable[BudgetRef], month: str | None = None
    ) -> list[BudgetState]:
        """The month's spend and effective limit of each budget."""
        ...

    async def known(self, month: str | None = None) -> list[BudgetRef]:
        """Every budget with spend or a raise this month, and every named one."""
        ...

    async def rebuild(
        self, sums: Mapping[BudgetKey, float], raises: Mapping[BudgetKey, float | None]
    ) -> int:
        """Set this month's sums and raises."""
        ...


class BudgetRejected(ValueError):
    """Budget command arguments of the wrong shape; the message says what is expected."""


def parse_target(kind: str, ident: str) -> tuple[str, str]:
    """A checked ``(kind, id)``.

    Raises:
        BudgetRejected: an unknown kind, or an id of the wrong shape for it.
    """
    kind = kind.strip().lower()
    ident = ident.strip()
    if kind not in KINDS:
        raise BudgetRejected(f"unknown budget kind {kind[:20]!r}; " + USAGE)
    parts = ident.split(":")
    ok = len(parts) == _PARTS[kind] and parts[0] in ("slack", "discord", "console")
    if not ok or not all(
        p and p.replace("-", "").replace("_", "").replace(".", "").isalnum() for p in parts
    ):
        raise BudgetRejected(f"a {kind} budget's id looks like {_example(kind)}; " + USAGE)
    return kind, ident


def parse_usd(text: str) -> float:
    """A USD amount (``50``, ``$12.50``).

    Raises:
        BudgetRejected: not a number, negative, or absurdly large.
    """
    try:
        usd = float(text.strip().lstrip("$").replace(",", ""))
    except ValueError:
        raise BudgetRejected("the amount is a number of US dollars, e.g. 50 or 12.50") from None
    if not math.isfinite(usd) or usd < 0 or usd > 10_000_000:
        raise BudgetRejected("the amount is between 0 and 10,000,000 US dollars")
    return usd


def _example(kind: str) -> str:
    return {"workspace": "slack:TEAM", "channel": "slack:TEAM:CHANNEL"}.get(kind, "slack:TEAM:USER")


class BudgetAdmin:
    """Show and change budgets; every change goes to the admin action log first."""

    def __init__(self, ledger: BudgetLedger, actions: ActionLog) -> None:
        self._ledger = ledger
        self._actions = actions

    def now(self) -> datetime:
        """The ledger's clock (months turn by it)."""
        return self._ledger.clock()

    async def show(self, month: str | None = None) -> list[BudgetState]:
        """This month's (or ``month``'s) spend against every known budget."""
        return await self._ledger.states(await self._ledger.known(month), month)

    async def set_limit(
        self, actor: str, kind: str, ident: str, usd: float | None, *, via: str
    ) -> BudgetState:
        """Raise (``usd``) or reset (``None``) one budget for this month, recorded first.

        Raises:
            BudgetRejected: a bad kind or id.
            StoreError: the action could not be recorded (nothing changed) or Redis failed.
        """
        kind, ident = parse_target(kind, ident)
        ref = self._ledger.budgets.ref(kind, ident)
        month = self._ledger.clock().astimezone(UTC).strftime("%Y-%m")
        outcome = {"via": via, "kind": kind, "usd": usd, "month": month}
        await self._actions.record_action(
            AdminAction(actor, "budget_limit", target=ident, outcome=outcome)
        )
        await self._ledger.set_limit(ref, usd)
        return (await self._ledger.states([ref]))[0]

    async def command(self, actor: str, args: Sequence[str], *, via: str) -> str:
        """Run ``show | raise KIND ID USD | reset KIND ID``; the answer as text.

        Raises:
            BudgetRejected: bad arguments (the message has the usage).
            StoreError: the store failed.
        """
        verb = args[0].lower() if args else "show"
        if verb == "show" and len(args) <= 1:
            return format_states(await self.show(), now=self._ledger.clock())
        if verb == "raise" and len(args) == 4:
            state = await self.set_limit(actor, args[1], args[2], parse_usd(args[3]), via=via)
            return "Budget raised for this month. " + format_state(state)
        if verb == "reset" and len(args) == 3:
            state = await self.set_limit(actor, args[1], args[2], None, via=via)
            return "Budget back to the config file's for this month. " + format_state(state)
        raise BudgetRejected(USAGE)

    async def rebuild(
        self, sums: Mapping[BudgetKey, float], raises: Mapping[BudgetKey, float | None]
    ) -> int:
        """Set this month's sums and raises (read from the audit database)."""
        return await self._ledger.rebuild(sums, raises)


def format_state(state: BudgetState) -> str:
    """One budget's line: ``user slack:T:U: $8.20 of $10.00 (82%), raised``."""
    name = f"{state.budget.kind} {state.budget.ident}"
    if state.limit_usd is None:
        return f"{name}: ${state.spent_usd:,.2f} spent, no budget"
    share = state.spent_usd / state.limit_usd * 100 if state.limit_usd else 100.0
    raised = ", raised this month" if state.raised else ""
    return f"{name}: ${state.spent_usd:,.2f} of ${state.limit_usd:,.2f} ({share:.0f}%){raised}"


def format_states(states: Sequence[BudgetState], *, now: datetime) -> str:
    """``budget show``'s answer: every budget's line, and when the month resets."""
    resets = next_month(now).strftime("%-d %B %Y")
    if not states:
        return f"No budgets and no spend this month (it resets on {resets}, UTC)."
    lines = [f"Spend this month (resets on {resets}, UTC):"]
    lines += [f"• {format_state(s)}" for s in states]
    return "\n".join(lines)
