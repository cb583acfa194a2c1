"""After a turn: its cost added to its monthly budgets, and admins told of one nearly spent."""

from __future__ import annotations

import logging

from bot.core.errors import StoreError
from bot.core.logsafe import log_failure
from bot.core.ports import AdminNotifier, SpendLedger
from bot.core.spend import BudgetNotice, notice_text
from bot.core.types import InboundMessage

log = logging.getLogger(__name__)


class BudgetWatch:
    """After a turn: its cost added to its budgets, and admins told of a budget nearly spent.

    Notifiers are per platform; the adapters add theirs when they start. A store failure is
    logged, never the user's problem: the answer is already given.
    """

    def __init__(self, ledger: SpendLedger | None) -> None:
        self.ledger = ledger
        self._notifiers: dict[str, AdminNotifier] = {}

    def add_notifier(self, platform: str, notifier: AdminNotifier) -> None:
        """Let ``notifier`` tell ``platform``'s admins about that platform's budgets."""
        self._notifiers[platform] = notifier

    async def after_turn(self, message: InboundMessage, cost_usd: float | None) -> None:
        """Charge ``cost_usd`` to the turn's budgets; send the notices that are due."""
        if self.ledger is None or not cost_usd:
            return
        try:
            notices = await self.ledger.charge(message, cost_usd)
        except StoreError as exc:
            log_failure(log, "budget charge failed workspace=%s", exc, message.workspace)
            return
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
