"""Hot reload of the config file on ``SIGHUP`` or when it changes: access, limits, budgets, scopes.

A scope that names a provider no scope named before gets its client built at the reload.

A changed file is noticed by its identity (inode, size, modification time) every
``config_watch_seconds``: Kubernetes updates a mounted ConfigMap by swapping a symlink, which
gives the path a new inode.

The file is read and validated as at start (the environment still wins); a bad file is
refused, its reason logged (file, line and key, never a value), and the running settings kept.
A good one swaps the controls in one step: a turn already past its checks finishes with the
settings it began with. Other settings (stores, model provider, platforms) need a restart.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from collections.abc import AsyncIterator, Coroutine
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from bot.app import App, access_rules, build_limiter
from bot.config.scopes import build_scopes
from bot.config.settings import load_settings
from bot.core.errors import ConfigError
from bot.core.logsafe import describe, log_failure
from bot.model.router import ModelRouter
from bot.stores import budgets

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
            scopes = build_scopes(settings)
            if isinstance(app.model, ModelRouter):  # a provider a scope names for the first time
                app.model.ensure(scopes.providers)
        except ConfigError as exc:
            log.error("config reload refused, the running settings kept: %s", exc)
            await self._count(refused=True)
            return False
        except Exception as exc:  # noqa: BLE001  (a file that breaks the reader is refused too)
            log.error("config reload refused, the running settings kept: %s", describe(exc))
            await self._count(refused=True)
            return False
        app.ledger.configure(budgets(settings))
        app.conversation.budgets.ledger = app.ledger if settings.budgets.any else None
        app.conversation.reconfigure(
            access=access_rules(settings),
            limiter=build_limiter(settings, app.redis, app.keys, app.ledger),
            scopes=scopes,
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
    """Reload ``app``'s controls on every ``SIGHUP``, and when its config file changes."""
    reloader = Reloader(app)
    loop = asyncio.get_running_loop()
    tasks: set[asyncio.Task[object]] = set()

    def _start(work: Coroutine[Any, Any, object]) -> None:
        task = loop.create_task(work)
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    loop.add_signal_handler(signal.SIGHUP, lambda: _start(reloader.reload()))
    path, every = app.settings.config, app.settings.config_watch_seconds
    if path is not None and every > 0:
        _start(_watch(reloader, path, every))
    try:
        yield reloader
    finally:
        loop.remove_signal_handler(signal.SIGHUP)
        for task in list(tasks):
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def _identity(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


async def _watch(reloader: Reloader, path: Path, every: float) -> None:
    """Reload when the file's identity changes (a missing file is waited for, not an error)."""
    seen = _identity(path)
    while True:
        await asyncio.sleep(every)
        now = _identity(path)
        if now is not None and now != seen:
            seen = now
            try:
                await reloader.reload()
            except Exception as exc:  # noqa: BLE001  (the watch must go on)
                log_failure(log, "config reload failed %s", exc, path)
