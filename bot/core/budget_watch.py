"""Around a turn's model call: its budgets' hold before, its cost settled after, notices."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from bot.core.budgets import MICROS, BudgetNotice, Hold, OverBudget, notice_text
from bot.core.errors import StoreError
from bot.core.logsafe import log_failure
from bot.core.ports import AdminNotifier, SpendLedger
from bot.core.types import InboundMessage

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Reservation:
    """A turn's hold and the ledger that holds it (a reload may swap the watch's ledger)."""

    ledger: SpendLedger
    hold: Hold


class BudgetWatch:
    """A turn's budgets: its most possible cost held before the model call, settled after.

    Notifiers are per platform; the adapters add theirs when they start. A store failure
    when settling is logged, never the user's problem: the answer is already given (the
    hold then lapses on its own).
    """

    def __init__(self, ledger: SpendLedger | None) -> None:
        self.ledger = ledger
        self._notifiers: dict[str, AdminNotifier] = {}

    def add_notifier(self, platform: str, notifier: AdminNotifier) -> None:
        """Let ``notifier`` tell ``platform``'s admins about that platform's budgets."""
        self._notifiers[platform] = notifier

    async def reserve(
        self, message: InboundMessage, run_id: str, max_cost_usd: float | None
    ) -> Reservation | OverBudget | None:
        """Hold ``max_cost_usd`` against the turn's budgets; why not when one is spent.

        ``None`` when no budgets are kept. A call of unknown price holds nothing, but a spent
        budget still refuses it.

        Raises:
            StoreError: the store cannot be reached (the turn fails closed).
        """
        ledger = self.ledger
        if ledger is None:
            return None
        held = await ledger.reserve(message, run_id, max(0.0, max_cost_usd or 0.0))
        if isinstance(held, OverBudget):
            return held
        return Reservation(ledger, held)

    async def after_turn(
        self,
        message: InboundMessage,
        cost_usd: float | None,
        reservation: Reservation | None = None,
    ) -> None:
        """Charge ``cost_usd`` to the turn's budgets, releasing its hold; send notices due."""
        ledger = reservation.ledger if reservation is not None else self.ledger
        if ledger is None or (not cost_usd and reservation is None):
            return
        hold = reservation.hold if reservation is not None else None
        try:
            notices = await ledger.charge(message, cost_usd or 0.0, hold)
        except StoreError as exc:
            log_failure(log, "budget charge failed workspace=%s", exc, message.workspace)
            return
        if hold is not None and cost_usd and cost_usd * MICROS > hold.micros:
            log.warning("turn cost more than its budget hold run=%s", hold.run_id)
        for notice in notices:
            await self._notify(message, notice)

    async def _notify(self, message: InboundMessage, notice: BudgetNotice) -> None:
        notifier = self._notifiers.get(message.platform)
        log.warning(
            "budget notice kind=%s budget=%s month=%s",
            notice.budget.kind,
            notice.budget.ident,
            notice.month,
        )
        if notifier is None:
            return
        try:
            sent = await notifier.notify_admins(message.workspace, notice_text(notice))
        except Exception as exc:  # noqa: BLE001  (a notice never costs a user an answer)
            log_failure(log, "budget notice failed budget=%s", exc, notice.budget.ident)
            return
        log.info("budget notice sent budget=%s admins=%d", notice.budget.ident, sent)
