"""``ThreadForks``: a new thread started from the kept turns of another (``bot.core.fork``).

Both threads' locks are held while the turns and their vault values are copied, so no turn
of either runs meanwhile; the source is left as it was.
"""

from __future__ import annotations

import logging

from bot.core.errors import InputRejected, StoreError
from bot.core.fork import Fork, ForkSpan, turns_of
from bot.core.ports import AuditStore, HistoryStore, ThreadLocks, VaultCopier
from bot.core.types import (
    AuditRecord,
    ChatMessage,
    Platform,
    ThreadId,
    TurnStatus,
    new_run_id,
    utcnow,
)

log = logging.getLogger(__name__)


class ThreadForks:
    """Start a thread from another's kept turns (``Conversation.fork`` calls it)."""

    def __init__(
        self, *, history: HistoryStore, locks: ThreadLocks, values: VaultCopier, audit: AuditStore
    ) -> None:
        self._history = history
        self._locks = locks
        self._values = values
        self._audit = audit

    async def fork(
        self,
        source: ThreadId,
        target: ThreadId,
        span: ForkSpan,
        *,
        platform: Platform,
        workspace: str,
        channel: str,
        user_id: str,
    ) -> Fork:
        """Copy the chosen turns of ``source`` and their values into the new thread ``target``.

        Both threads' locks are held (the source's first), so no turn of either runs meanwhile.

        Raises:
            InputRejected: the source keeps no history, has fewer turns than asked, or the
                target is not a new thread.
            StoreError: the stores failed; nothing of the fork is left behind.
        """
        if source == target:
            raise InputRejected("a thread cannot be forked into itself", reason="invalid")
        async with self._locks.hold(source):
            history = await self._history.load(source)
            if not history:
                raise InputRejected("I keep no history for that thread", reason="unknown")
            kept = [m for turn in span.pick(turns_of(history)) for m in turn]
            async with self._locks.hold(target):
                values = await self._copy(source, target, kept)
        fork = Fork(source, target, span, len(turns_of(kept)), values)
        await self._record(
            fork, platform=platform, workspace=workspace, channel=channel, user=user_id
        )
        log.info("thread forked source=%s target=%s turns=%d", source, target, fork.turns)
        return fork

    async def _copy(self, source: ThreadId, target: ThreadId, kept: list[ChatMessage]) -> int:
        if await self._history.exists(target):
            raise InputRejected("the new thread has history already", reason="exists")
        values = await self._values.copy(source, target, [m.all_text for m in kept])
        try:
            await self._history.append(target, kept)  # refreshes the new vault's TTL too
        except StoreError:
            await self._history.erase(target)
            raise
        return values

    async def _record(
        self, fork: Fork, *, platform: Platform, workspace: str, channel: str, user: str
    ) -> None:
        now = utcnow()
        record = AuditRecord(
            run_id=new_run_id(),
            thread_id=fork.target,
            platform=platform,
            workspace=workspace,
            channel=channel,
            user_id=user,
            message_id="",
            started_at=now,
            finished_at=now,
            status=TurnStatus.FORKED,
            metadata={
                "forked_from": fork.source,
                "fork": fork.span.describe(),
                "turns_kept": fork.turns,
                "values_kept": fork.values,
            },
        )
        await self._audit.record(record)
