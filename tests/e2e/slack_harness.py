"""A running Slack adapter on the real core, against the fake Slack: the e2e test harness."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import aiohttp

from adapters.slack.handler import SlackAdapter
from adapters.slack.notices import SlackAdminNotifier
from bot.app import App
from bot.http_server import HttpServer
from tests.e2e.conftest import MakeApp
from tests.fakes.slack_payloads import SIGNING_SECRET, signed_headers
from tests.fakes.slack_server import FakeSlack


class Harness:
    """The app, its Slack adapter, the fake Slack, and an HTTP client playing Slack."""

    def __init__(
        self,
        app: App,
        adapter: SlackAdapter,
        slack: FakeSlack,
        http: HttpServer,
        session: aiohttp.ClientSession,
    ) -> None:
        self.app, self.adapter, self.slack, self.http, self.session = (
            app,
            adapter,
            slack,
            http,
            session,
        )

        self.tasks: list[asyncio.Task[None]] = []

    async def kill(self) -> None:
        """Cancel the adapter and the queue worker at once, without a drain: what the worker
        held in the queue stays unacked, as after a SIGKILL."""
        for task in self.tasks:
            task.cancel()
        await asyncio.wait(self.tasks, timeout=10)

    @property
    def events_url(self) -> str:
        return f"{self.http.url}{self.app.settings.slack_http_path}"

    async def post(self, body: str, headers: dict[str, str]) -> tuple[int, str]:
        """POST a raw body to the events endpoint, as Slack does."""
        async with self.session.post(self.events_url, data=body.encode(), headers=headers) as r:
            return r.status, await r.text()

    async def send(self, payload: dict[str, Any], *, retry_num: int | None = None) -> int:
        """Deliver a signed event; returns the HTTP status of the ack."""
        body = json.dumps(payload)
        if isinstance(payload.get("event"), dict):
            self.slack.said(payload["event"])  # Slack keeps what people write in its threads
        status, _ = await self.post(body, signed_headers(body, retry_num=retry_num))
        return status

    async def send_form(self, body: str) -> tuple[int, str]:
        """Deliver a signed form body (slash command, interaction)."""
        headers = signed_headers(body)
        headers["Content-Type"] = "application/x-www-form-urlencoded"
        return await self.post(body, headers)

    async def until(self, check: Callable[[], bool], what: str = "condition") -> None:
        """Wait until ``check()`` holds (the adapter works after the ack)."""
        for _ in range(1500):
            if check():
                return
            await asyncio.sleep(0.01)
        raise AssertionError(f"timed out waiting for {what}")

    async def settle(self) -> None:
        """Wait until no turn is in flight and nothing acked waits in the queue."""
        await asyncio.sleep(0.05)
        if self.app.queue is not None:
            assert await self.app.queue.idle(60), "queued events not answered in 60s"
        await self.adapter.idle(30)


@asynccontextmanager
async def slack_harness(make_app: MakeApp, **overrides: Any) -> AsyncIterator[Harness]:
    """Start the real app with the Slack adapter over HTTP (or Socket Mode) on the fake."""
    async with FakeSlack() as slack:
        values: dict[str, Any] = {
            "slack_bot_token": "xoxb-test",
            "slack_signing_secret": SIGNING_SECRET,
            "slack_app_token": "xapp-test",
            "slack_api_url": slack.api_url,
            "slack_http_port": 0,
            "slack_streaming": "update",
            "slack_update_interval_seconds": 0.0,
        }
        values.update(overrides)
        app = await make_app(**values)
        http = HttpServer("127.0.0.1", 0)
        adapter = SlackAdapter(
            app.settings, app.conversation, http, admin=app.admin, queue=app.queue
        )
        notices = SlackAdminNotifier(adapter.client, app.admin.admins)  # as bot.service does
        app.conversation.budgets.add_notifier("slack", notices)
        async with http, aiohttp.ClientSession() as session:
            runner = asyncio.create_task(adapter.run())
            worker = asyncio.create_task(app.queue.run()) if app.queue is not None else None
            try:
                if app.settings.slack_mode == "socket":
                    await slack.wait_connected()
                harness = Harness(app, adapter, slack, http, session)
                harness.tasks = [t for t in (runner, worker) if t is not None]
                yield harness
            finally:
                if app.queue is not None:
                    app.queue.stop()  # its event first: a cancellation can be lost in redis-py
                tasks = [t for t in (runner, worker) if t is not None]
                runner.cancel()
                _, late = await asyncio.wait(tasks, timeout=15)
                for task in late:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
