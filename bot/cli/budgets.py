"""``veilbot budget show [--json] | raise KIND ID USD | reset KIND ID | rebuild``.

Runs on the stores only (no spaCy): the same ``BudgetAdmin`` as the chat command and the
admin console, so a raise is recorded in the admin action log (actor ``cli:<os user>``) and
wins over the config file for the rest of the month on every replica. ``rebuild`` sets the
month's sums in Redis from the audit log (after Redis lost them; the service also does it at
start when the month's marker is missing).
"""

from __future__ import annotations

import argparse
import getpass
import json

from bot.admin.budgets import BudgetAdmin, BudgetRejected, format_state, format_states, parse_usd
from bot.cli import loop
from bot.config.settings import Settings
from bot.core.errors import ConfigError
from bot.state.budgets import RedisSpendLedger
from bot.stores import budgets, build_stores, rebuild_budgets


def run_budget(settings: Settings, args: argparse.Namespace) -> int:
    """Run one ``budget`` subcommand; returns the exit code."""
    try:
        usd = parse_usd(args.usd) if args.budget_command == "raise" else None
    except BudgetRejected as exc:
        raise ConfigError(str(exc)) from None
    return loop.run(_run(settings, args, usd), settings.event_loop)


async def _run(settings: Settings, args: argparse.Namespace, usd: float | None) -> int:
    async with build_stores(settings) as stores:
        ledger = RedisSpendLedger(stores.redis, stores.keys, budgets(settings))
        admin = BudgetAdmin(ledger, stores.audit)
        verb = args.budget_command
        if verb == "rebuild":
            count = await rebuild_budgets(ledger, stores.audit)
            print(f"rebuilt this month's spend of {count} budget(s) from the audit log")
            return 0
        if verb == "show":
            states = await admin.show(args.month)
            if args.json:
                rows = [
                    {
                        "kind": s.budget.kind,
                        "id": s.budget.ident,
                        "month": s.month,
                        "spent_usd": round(s.spent_usd, 6),
                        "limit_usd": s.limit_usd,
                        "raised": s.raised,
                    }
                    for s in states
                ]
                print(json.dumps(rows, indent=2))
            else:
                print(format_states(states, now=ledger.clock()))
            return 0
        actor = f"cli:{getpass.getuser()}"
        try:
            state = await admin.set_limit(actor, args.kind, args.id, usd, via="cli")
        except BudgetRejected as exc:
            raise ConfigError(str(exc)) from None
        print(format_state(state))
        return 0
