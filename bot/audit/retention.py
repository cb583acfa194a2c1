"""Retention: ``veilbot audit purge`` and the daily purge of a running service."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime, timedelta

from bot.audit.types import AuditQueryStore
from bot.core.errors import StoreError

log = logging.getLogger(__name__)

DAY_SECONDS = 24 * 3600


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
