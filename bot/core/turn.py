"""One turn's state while it runs (the audit record it fills, its laps, its replies) and its finish.

``Conversation`` (``bot.core.conversation``) runs the turn; a ``Turn`` is what the turn has
learned so far and becomes its audit record.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import Any

from bot.core.budget_watch import BudgetWatch, Reservation
from bot.core.errors import AlreadyStored
from bot.core.logsafe import log_failure
from bot.core.ports import AuditStore, Metrics
from bot.core.scopes import Scope
from bot.core.types import (
    AuditRecord,
    ChatMessage,
    InboundMessage,
    ModelResult,
    Reply,
    Restoration,
    ToolSpec,
    TurnStatus,
    new_run_id,
    utcnow,
)

log = logging.getLogger("bot.core.conversation")


@dataclass(slots=True)
class Turn:
    """What one turn has learned so far; becomes the audit record."""

    message: InboundMessage
    record: AuditRecord
    scope: Scope
    """The scope's settings as the turn began: a reload while it runs does not change them."""
    clock: float = field(default_factory=time.perf_counter)
    hold: Reservation | None = None
    """The spend held against the turn's budgets for its model call, settled at its finish."""
    listing: asyncio.Future[tuple[ToolSpec, ...]] | None = None
    """The tools its place may use, being listed (begun before the thread's lock)."""

    @classmethod
    def begin(cls, message: InboundMessage, scope: Scope) -> Turn:
        """A turn for ``message``, its audit record filled with what the message says."""
        now = utcnow()
        meta: dict[str, Any] = {**message.metadata, "private": message.private}
        if message.parent_channel:  # a thread's channel: its budget (bot.audit.budgets)
            meta["parent_channel"] = message.parent_channel
        record = AuditRecord(
            run_id=message.run_id or new_run_id(),
            thread_id=message.thread_id,
            platform=message.platform,
            workspace=message.workspace,
            channel=message.channel,
            user_id=message.user_id,
            message_id=message.message_id,
            started_at=now,
            finished_at=now,
            status=TurnStatus.OK,
            metadata=meta,
        )
        return cls(message=message, record=record, scope=scope)

    def lap(self, stage: str) -> None:
        """Charge the time since the previous lap to ``stage``."""
        now = time.perf_counter()
        self.record.latencies_ms[stage] = round((now - self.clock) * 1000, 3)
        self.clock = now

    def reply(self, text: str, status: TurnStatus, *, streamed: bool = False) -> Reply:
        """The turn's ``Reply``, its status recorded for the audit."""
        self.record.status = status
        return Reply(
            text=text,
            status=status,
            run_id=self.record.run_id,
            streamed=streamed,
            redacted=self.record.prompt,
        )

    def fail(self, status: TurnStatus, text: str, exc: BaseException) -> Reply:
        """The reply to a failed turn; the audit keeps the error's type and message."""
        self.record.error = f"{type(exc).__name__}: {exc}"
        return self.reply(text, status)

    def used(self, result: ModelResult) -> None:
        """Record what the model answered and what it cost."""
        r = self.record
        r.model, r.answer, r.cost_usd = result.model, result.text, result.cost_usd
        if result.provider:
            r.metadata["provider"] = result.provider
        if result.cost_note:
            r.metadata["pricing"] = result.cost_note
        u = result.usage
        r.input_tokens, r.output_tokens = u.input_tokens, u.output_tokens
        r.cache_read_tokens, r.cache_write_tokens = u.cache_read_tokens, u.cache_write_tokens


def count_placeholders(record: AuditRecord, restored: Restoration) -> None:
    """Audit (and log, by thread id) placeholders the model made up or wrote differently.

    Made-up ones were shown neutrally; mangled ones were restored, and their count tells an
    operator how well a (smaller, self-hosted) model follows the placeholder instructions.
    """
    record.unknown_placeholders = restored.unknown_placeholders
    record.mangled_placeholders = restored.mangled_placeholders
    if restored.unknown_placeholders:
        log.warning(
            "answer used placeholders the thread never issued thread=%s count=%d",
            record.thread_id,
            restored.unknown_placeholders,
        )


def drop_pending(analysis: asyncio.Future[Any]) -> None:
    """Stop work (detection, downloads) the turn no longer waits for; its failure is the turn's."""
    if not analysis.done():
        analysis.cancel()
    analysis.add_done_callback(_retrieved)


def _retrieved(analysis: asyncio.Future[Any]) -> None:
    if not analysis.cancelled():
        analysis.exception()


def stored_exchange(history: list[ChatMessage], user: ChatMessage) -> bool:
    """Whether the history ends with this user message and an answer to it."""
    return len(history) >= 2 and history[-2] == user and history[-1].role == "assistant"


async def finish(turn: Turn, audit: AuditStore, budgets: BudgetWatch, metrics: Metrics) -> None:
    """Write the turn's audit row, count its spend and metrics, log its one line.

    Each step's failure is logged and the next still runs: the reply goes out regardless.
    """
    record = turn.record
    record.finished_at = utcnow()
    record.latencies_ms["total"] = round(
        (record.finished_at - record.started_at).total_seconds() * 1000, 3
    )
    try:
        await audit.record(record)
    except AlreadyStored:
        # A turn run again after its worker died: the earlier attempt's row stands (one
        # row per turn). Expected when that attempt stored its answer; otherwise that
        # attempt's outcome is what the log keeps, not this one's.
        if record.status is TurnStatus.DROPPED:  # the uninstall's erasure wrote it first
            log.info("audit row of the dropped turn written already run=%s", record.run_id)
        elif record.metadata.get("replayed"):
            log.info("audit row written by an earlier attempt kept run=%s", record.run_id)
        else:
            log.warning(
                "audit row of an earlier attempt kept, this attempt's not written run=%s status=%s",
                record.run_id,
                record.status,
            )
    except Exception as exc:  # noqa: BLE001  (the reply must still go out)
        log.error("audit write failed run=%s error=%s", record.run_id, type(exc).__name__)
    # A dropped turn's workspace is erased, budgets and all: its hold is only released.
    cost = None if record.status is TurnStatus.DROPPED else record.cost_usd
    await budgets.after_turn(turn.message, cost, turn.hold)
    try:
        metrics.turn_finished(record)
    except Exception as exc:  # noqa: BLE001  (metrics never cost a user an answer)
        log_failure(log, "turn metrics failed run=%s", exc, record.run_id)
    log.info(
        "turn run=%s thread=%s status=%s entities=%s tokens_in=%d tokens_out=%d ms=%.1f",
        record.run_id,
        record.thread_id,
        record.status,
        sum(record.entity_counts.values()),
        record.input_tokens,
        record.output_tokens,
        record.latencies_ms["total"],
    )
