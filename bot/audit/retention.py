"""Retention: ``veilbot audit purge`` and the daily purge of a running service.

The daily task also deletes the audit runs of uninstalled Slack workspaces once their grace
period has passed (``bot.audit.uninstalls``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Protocol

from bot.audit.types import AuditQueryStore
from bot.audit.uninstalls import UninstallStore, purge_uninstalled
from bot.core.errors import StoreError

log = logging.getLogger(__name__)

DAY_SECONDS = 24 * 3600


async def purge_older_than(audit: AuditQueryStore, age: timedelta) -> int:
    """Delete audit runs that started more than ``age`` ago; returns how many."""
    cutoff = datetime.now(UTC) - age
    removed = await audit.purge_before(cutoff)
    log.info("audit purge before=%s removed=%d", cutoff.isoformat(), removed)
    return removed


class RetentionStore(AuditQueryStore, UninstallStore, Protocol):
    """What the daily task purges (``SqlAuditStore``)."""


async def retention_loop(
    audit: RetentionStore,
    days: int,
    *,
    interval_seconds: float = DAY_SECONDS,
    uninstall_grace_days: int | None = None,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> None:
    """Purge now and then every ``interval_seconds``, until cancelled.

    Runs older than ``days`` (0: none), and with ``uninstall_grace_days`` the runs of
    workspaces uninstalled longer ago than that. A failed purge is logged and retried at the
    next interval; it never stops the service.
    """
    while True:
        try:
            if days > 0:
                await purge_older_than(audit, timedelta(days=days))
            if uninstall_grace_days is not None:
                await purge_uninstalled(audit, timedelta(days=uninstall_grace_days))
        except StoreError as exc:
            log.error("audit retention purge failed (%s); retrying later", type(exc).__name__)
        await sleep(interval_seconds)


@contextlib.asynccontextmanager
async def retention_running(
    audit: RetentionStore,
    days: int,
    *,
    interval_seconds: float = DAY_SECONDS,
    uninstall_grace_days: int | None = None,
) -> AsyncIterator[asyncio.Task[None] | None]:
    """Run ``retention_loop`` in the background for the block (``None``: nothing to purge)."""
    if days <= 0 and uninstall_grace_days is None:
        yield None
        return
    loop = retention_loop(
        audit, days, interval_seconds=interval_seconds, uninstall_grace_days=uninstall_grace_days
    )
    task = asyncio.create_task(loop, name="audit-retention")
    try:
        yield task
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
