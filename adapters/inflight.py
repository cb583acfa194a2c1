"""The platform adapters' shared wait for the work they have in flight (drain and stop)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable


async def finish_in_flight(
    tasks: Iterable[asyncio.Task[object]],
    timeout: float,  # noqa: ASYNC109  (the drain contract's bound)
    *,
    log: logging.Logger,
    platform: str,
    noun: str,
) -> None:
    """Wait up to ``timeout`` s for ``tasks`` (the caller's own excepted), then cancel the rest.

    ``log``, ``platform`` and ``noun`` (``"event(s)"``) make the adapter's two log lines.
    """
    pending = {t for t in tasks if t is not asyncio.current_task()}
    if not pending:
        return
    log.info("%s: waiting up to %gs for %d %s in flight", platform, timeout, len(pending), noun)
    _, late = await asyncio.wait(pending, timeout=timeout)
    for task in late:
        task.cancel()
    if late:
        log.warning("%s: %d %s not done in %gs were cancelled", platform, len(late), noun, timeout)
