"""Retention and erasure: ``veilbot audit purge``, the daily purge, and ``veilbot forget``.

Forgetting a user finds their threads from their audit runs, erases each thread's history and
vault (under the thread's lock, so no turn runs half-erased), then deletes their runs, or,
with ``forget_keeps_audit_rows``, keeps the runs with the user id replaced by a keyed hash
(``hmac:`` + HMAC-SHA256 of ``platform:workspace:user`` under a key derived from the vault
key). Redis goes first: if a step fails, running the command again finishes the job. Every
step is idempotent, so a second run reports zeros.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from bot.audit_types import AuditQueryStore, ErasureCounts, RunFilter, UserRef
from bot.core.errors import StoreError
from bot.core.ports import HistoryStore, ThreadLocks
from bot.core.types import parse_thread_id

log = logging.getLogger(__name__)

DAY_SECONDS = 24 * 3600


def pseudonym(key: bytes, user: UserRef) -> str:
    """The keyed hash that replaces a forgotten user's id in kept audit runs."""
    digest = hmac.new(key, str(user).encode(), hashlib.sha256).hexdigest()
    return f"hmac:{digest[:32]}"


@dataclass(slots=True)
class Eraser:
    """Erases what the service holds for a user or a thread.

    Args:
        audit: the audit log.
        history: thread history and vault (``erase`` deletes both).
        locks: per-thread locks, held while a thread is erased.
        pseudonym_key: set to keep audit runs with a keyed hash instead of the user id.
    """

    audit: AuditQueryStore
    history: HistoryStore
    locks: ThreadLocks
    pseudonym_key: bytes | None = None

    async def forget_user(self, user: UserRef) -> ErasureCounts:
        """Erase the user's threads (history and vault) and their audit runs."""
        runs = user.run_filter()
        threads = await self.audit.thread_ids(runs)
        keys = 0
        for tid in threads:
            keys += await self._erase_thread(tid)
        if self.pseudonym_key is not None:
            kept = await self.audit.replace_user_id(runs, pseudonym(self.pseudonym_key, user))
            counts = ErasureCounts(len(threads), keys, runs_pseudonymized=kept)
        else:
            counts = ErasureCounts(
                len(threads), keys, runs_deleted=await self.audit.delete_runs(runs)
            )
        log.info(
            "user forgotten platform=%s threads=%d keys=%d deleted=%d pseudonymized=%d",
            user.platform,
            counts.threads,
            counts.redis_keys,
            counts.runs_deleted,
            counts.runs_pseudonymized,
        )
        return counts

    async def forget_thread(self, thread: str) -> ErasureCounts:
        """Erase one thread: its history and vault, and its audit runs.

        With ``pseudonym_key`` the runs are kept, each user id replaced by its keyed hash.
        """
        tid = parse_thread_id(thread)
        keys = await self._erase_thread(tid)
        runs = RunFilter(thread_id=tid)
        deleted = kept = 0
        if self.pseudonym_key is None:
            deleted = await self.audit.delete_runs(runs)
        else:
            kept = await self._pseudonymize_thread(tid)
        log.info("thread forgotten thread=%s keys=%d deleted=%d", tid, keys, deleted)
        return ErasureCounts(1 if keys or deleted or kept else 0, keys, deleted, kept)

    async def _pseudonymize_thread(self, tid: str) -> int:
        assert self.pseudonym_key is not None  # noqa: S101  (checked by the caller)
        kept = 0
        users = {
            (r.platform, r.workspace, r.user_id)
            async for r in self.audit.iter_runs(RunFilter(thread_id=tid))
        }
        for platform, workspace, user_id in users:
            if user_id.startswith("hmac:"):
                continue
            ref = UserRef(platform, user_id, workspace if platform == "slack" else None)
            runs = RunFilter(thread_id=tid, platform=platform, user_id=user_id)
            kept += await self.audit.replace_user_id(runs, pseudonym(self.pseudonym_key, ref))
        return kept

    async def _erase_thread(self, thread: str) -> int:
        tid = parse_thread_id(thread)
        async with self.locks.hold(tid):
            return await self.history.erase(tid)


async def purge_older_than(audit: AuditQueryStore, age: timedelta) -> int:
    """Delete audit runs that started more than ``age`` ago; returns how many."""
    cutoff = datetime.now(UTC) - age
    removed = await audit.purge_before(cutoff)
    log.info("audit purge before=%s removed=%d", cutoff.isoformat(), removed)
    return removed


async def retention_loop(
    audit: AuditQueryStore,
    days: int,
    *,
    interval_seconds: float = DAY_SECONDS,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> None:
    """Purge runs older than ``days`` now and then every ``interval_seconds``, until cancelled.

    A failed purge is logged and retried at the next interval; it never stops the service.
    """
    while True:
        try:
            await purge_older_than(audit, timedelta(days=days))
        except StoreError as exc:
            log.error("audit retention purge failed (%s); retrying later", type(exc).__name__)
        await sleep(interval_seconds)


@contextlib.asynccontextmanager
async def retention_running(
    audit: AuditQueryStore, days: int, *, interval_seconds: float = DAY_SECONDS
) -> AsyncIterator[asyncio.Task[None] | None]:
    """Run ``retention_loop`` in the background for the block (``None`` when ``days`` is 0)."""
    if days <= 0:
        yield None
        return
    task = asyncio.create_task(
        retention_loop(audit, days, interval_seconds=interval_seconds), name="audit-retention"
    )
    try:
        yield task
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
