"""Erasure: ``veilbot forget`` for a user or a thread.

Forgetting a user finds their threads from their audit runs, erases each thread's history and
vault (under the thread's lock, so no turn runs half-erased), then deletes their runs, or,
with ``forget_keeps_audit_rows``, keeps the runs with the user id replaced by a keyed hash
(``hmac:`` + HMAC-SHA256 of ``platform:workspace:user`` under a key derived from the vault
key). Redis goes first: if a step fails, running the command again finishes the job. Every
step is idempotent, so a second run reports zeros.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
from dataclasses import dataclass

from bot.audit.types import AuditQueryStore, ErasureCounts, RunFilter, UserRef
from bot.core.ports import HistoryStore, ThreadLocks
from bot.core.types import parse_thread_id

log = logging.getLogger(__name__)


def pseudonym(key: bytes, user: UserRef) -> str:
    """The keyed hash that replaces a forgotten user's id in kept audit runs."""
    digest = hmac.new(key, str(user).encode(), hashlib.sha256).hexdigest()
    return f"hmac:{digest[:32]}"


@dataclass(frozen=True, slots=True)
class ErasurePlan:
    """What a ``forget`` would erase: shown, and confirmed, before anything goes."""

    threads: list[str]
    """Threads whose history and vault would be deleted."""
    runs: int
    """Audit runs that would be deleted (or kept with a hashed user id)."""
    keeps_runs: bool
    """Whether the runs are kept with the user id replaced by a keyed hash."""

    @property
    def empty(self) -> bool:
        """Whether there is nothing to erase."""
        return not self.threads and not self.runs

    def describe(self) -> str:
        """One line for a person: how many threads and runs, and what happens to the runs."""
        fate = "kept with a hashed user id" if self.keeps_runs else "deleted"
        return (
            f"{len(self.threads)} thread(s) (history and vault deleted), "
            f"{self.runs} audit run(s) {fate}"
        )


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

    async def plan_user(self, user: UserRef) -> ErasurePlan:
        """What ``forget_user`` would erase, erasing nothing."""
        runs = user.run_filter()
        threads = await self.audit.thread_ids(runs)
        return ErasurePlan(threads, await self.audit.count_runs(runs), self._keeps_runs)

    async def plan_thread(self, thread: str) -> ErasurePlan:
        """What ``forget_thread`` would erase, erasing nothing."""
        tid = parse_thread_id(thread)
        runs = await self.audit.count_runs(RunFilter(thread_id=tid))
        held = runs > 0 or await self.history.exists(tid)
        return ErasurePlan([tid] if held else [], runs, self._keeps_runs)

    @property
    def _keeps_runs(self) -> bool:
        return self.pseudonym_key is not None

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
