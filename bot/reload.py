"""Hot reload of the config file on ``SIGHUP``: who may use the bot, rate limits and scopes.

The file is read and validated as at start (the environment still wins); a bad file is
refused, its reason logged (file, line and key, never a value), and the running settings kept.
A good one swaps the controls in one step: a turn already past its checks finishes with the
settings it began with. Other settings (stores, model provider, platforms) need a restart.
"""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from bot.app import App, access_rules, build_scopes, rate_limits
from bot.core.errors import ConfigError
from bot.settings import load_settings
from bot.state.ratelimit import RedisRateLimiter

log = logging.getLogger(__name__)


class Reloader:
    """Reloads ``app``'s controls from its config file; counts the reloads that took."""

    def __init__(self, app: App) -> None:
        self._app = app
        self._changed = asyncio.Condition()
        self.reloads = 0
        self.refused = 0

    async def reload(self) -> bool:
        """Read the file again and apply it; ``False`` (old settings kept) when it is bad."""
        app = self._app
        try:
            settings = load_settings(config_file=app.settings.config)
        except ConfigError as exc:
            log.error("config reload refused, the running settings kept: %s", exc)
            await self._count(refused=True)
            return False
        app.conversation.reconfigure(
            access=access_rules(settings),
            limiter=RedisRateLimiter(app.redis, app.keys, rate_limits(settings)),
            scopes=build_scopes(settings),
        )
        log.info("config reloaded from %s", settings.config or "the environment")
        await self._count(refused=False)
        return True

    async def _count(self, *, refused: bool) -> None:
        async with self._changed:
            if refused:
                self.refused += 1
            else:
                self.reloads += 1
            self._changed.notify_all()

    async def wait_for(self, done: int) -> None:
        """Until ``done`` reload attempts (taken or refused) have finished."""
        async with self._changed:
            await self._changed.wait_for(lambda: self.reloads + self.refused >= done)


@asynccontextmanager
async def reload_on_sighup(app: App) -> AsyncIterator[Reloader]:
    """Reload ``app``'s controls on every ``SIGHUP`` while inside the block."""
    reloader = Reloader(app)
    loop = asyncio.get_running_loop()
    tasks: set[asyncio.Task[bool]] = set()

    def _on_hup() -> None:
        task = loop.create_task(reloader.reload())
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    loop.add_signal_handler(signal.SIGHUP, _on_hup)
    try:
        yield reloader
    finally:
        loop.remove_signal_handler(signal.SIGHUP)
        for task in list(tasks):
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
