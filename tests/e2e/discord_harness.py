"""A running Discord adapter on the real core, against the fake Discord: e2e fixtures.

``tests/e2e/conftest.py`` registers the ``fake_discord`` and ``start_bot`` fixtures. As in
``veilbot run``, messages go through the turn queue (``VEILBOT_QUEUE_ENABLED``) and the bot's
queue worker answers them; ``start_bot(worker=False)`` queues without answering (a replica
that stops before its worker gets to the message).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import pytest

from adapters.discord.handler import DiscordAdapter
from adapters.discord.notices import DiscordAdminNotifier
from bot.app import App
from tests.fakes.discord_server import FakeDiscord, Request


@dataclass
class RunningBot:
    """A Discord adapter serving in a task; ``until`` surfaces the task's failure."""

    app: App
    adapter: DiscordAdapter
    task: asyncio.Task[None]
    fake: FakeDiscord
    worker: asyncio.Task[None] | None = None

    async def stop(self) -> None:
        """Stop the worker (by its event first: redis-py can lose a cancellation) and the bot."""
        if self.app.queue is not None:
            self.app.queue.stop()
        tasks = [t for t in (self.task, self.worker) if t is not None and not t.done()]
        self.task.cancel()
        _, late = await asyncio.wait(tasks, timeout=15) if tasks else (set(), set())
        for task in late:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def settle(self) -> None:
        """Wait until nothing queued waits to be answered."""
        if self.app.queue is not None:
            assert await self.app.queue.idle(60), "queued messages not answered in 60s"

    async def until(self, predicate: Callable[[], bool]) -> None:
        waiter = asyncio.ensure_future(self.fake.wait_for(predicate))
        try:
            async with asyncio.timeout(30):
                done, _ = await asyncio.wait({waiter, self.task}, return_when="FIRST_COMPLETED")
        finally:
            waiter.cancel()
        if self.task in done:
            self.task.result()
            raise AssertionError("the Discord adapter stopped")

    async def ready(self) -> None:
        ready = asyncio.ensure_future(self.adapter.ready.wait())
        async with asyncio.timeout(30):
            done, _ = await asyncio.wait({ready, self.task}, return_when="FIRST_COMPLETED")
        if self.task in done:
            ready.cancel()
            self.task.result()

    async def say(self, data: dict[str, Any], *, answers: int = 1, channel: int) -> list[Request]:
        """Deliver a MESSAGE_CREATE and wait for ``answers`` more posts in ``channel``."""
        before = len(self.fake.posts(channel))
        await self.fake.dispatch("MESSAGE_CREATE", data)
        await self.until(lambda: len(self.fake.posts(channel)) >= before + answers)
        return self.fake.posts(channel)[before:]


StartBot = Callable[..., Awaitable[RunningBot]]


@pytest.fixture
async def fake_discord() -> AsyncIterator[FakeDiscord]:
    fake = FakeDiscord()
    await fake.start()
    yield fake
    await fake.stop()


@pytest.fixture
async def start_bot(
    make_app: Callable[..., Awaitable[App]], fake_discord: FakeDiscord
) -> AsyncIterator[StartBot]:
    bots: list[RunningBot] = []

    async def start(*, worker: bool = True, **overrides: Any) -> RunningBot:
        overrides = {
            "discord_token": "test-token",
            "discord_api_url": fake_discord.api_url,
            "discord_gateway_url": fake_discord.gateway_url,
            **overrides,
        }
        app = await make_app(**overrides)
        adapter = DiscordAdapter(
            app.settings,
            app.conversation,
            admin=app.admin,
            guild_ready_timeout=0.05,
            queue=app.queue,
        )
        admins, roles = app.admin.admins, app.admin.admin_roles  # as bot.service does
        notices = DiscordAdminNotifier(lambda: adapter.client, admins, roles)
        app.conversation.budgets.add_notifier("discord", notices)
        task = asyncio.create_task(adapter.run())
        running = None
        if worker and app.queue is not None:
            running = asyncio.create_task(app.queue.run())
        bot = RunningBot(app, adapter, task, fake_discord, running)
        bots.append(bot)
        await bot.ready()
        return bot

    yield start
    for bot in bots:
        await bot.stop()
