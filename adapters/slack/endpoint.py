"""The Events API endpoint over HTTP (``VEILBOT_SLACK_HTTP_PATH``): the gate, then the ack.

``SlackGate`` checks the signature first. With a ``TurnQueue`` the endpoint acks a signed
``message``/``app_mention`` event itself (the lean path: the gate's one signature check and
one parse, the bot's identity from one ``auth.test`` kept for the process, then the put; a
503 while that identity is unknown); every other request (URL verification, commands,
buttons, other events) goes to bolt. In OAuth mode the lean path is off: the bot's identity
differs per workspace, and bolt's authorization gives it.
"""

from __future__ import annotations

from contextlib import nullcontext
from typing import Any

from aiohttp import web
from slack_bolt.adapter.aiohttp import to_aiohttp_response, to_bolt_request
from slack_bolt.async_app import AsyncApp

from adapters.slack.enqueue import RETRY_AFTER, Enqueuer, lean_event
from adapters.slack.identity import BotIdentity
from adapters.slack.ingress import SlackGate
from adapters.slack.oauth.teams import serving
from bot.core.ports import TurnQueue


class EventsEndpoint:
    """The aiohttp handler of Slack's events route.

    Args:
        app: bolt's app, for every request the lean path does not ack.
        gate: checks the signature and the body's shape before anything is parsed.
        queue: the turn queue (none: bolt acks every request, the turn runs after).
        lean: the enqueuer that acks message events without bolt (none: the lean path is off).
        identity: the bot's identity, for the lean path.
    """

    def __init__(
        self,
        app: AsyncApp,
        gate: SlackGate,
        *,
        queue: TurnQueue | None,
        lean: Enqueuer | None,
        identity: BotIdentity,
    ) -> None:
        self._app = app
        self._gate = gate
        self._queue = queue
        self._lean = lean
        self._identity = identity
        self.draining = False
        """Set when stopping: deliveries get 503 and Slack sends them again later."""

    async def handle(self, request: web.Request) -> web.Response:
        """Answer one request to the events route."""
        # queued turns of this process wait while deliveries are being acked (acks first)
        with self._queue.acking() if self._queue is not None else nullcontext():
            return await self._respond(request)

    async def _respond(self, request: web.Request) -> web.Response:
        if self.draining:  # stopping: a non-2xx makes Slack deliver the event again later
            return web.Response(status=503, headers=RETRY_AFTER, text="stopping")
        raw = await request.read()  # the signature before any parsing
        checked = self._gate.check(raw, request.headers)
        if isinstance(checked, int):
            return web.Response(status=checked)
        if self._lean is not None and checked.json and lean_event(checked.json):
            return await self._lean_ack(self._lean, checked.json, raw)
        with serving(None):  # bolt's middleware sets the team's token for this request only
            bolt_response = await self._app.async_dispatch(await to_bolt_request(request))
        return await to_aiohttp_response(bolt_response)

    async def _lean_ack(self, lean: Enqueuer, body: dict[str, Any], raw: bytes) -> web.Response:
        """Ack a message event for the queue without bolt: queued 200, else 503 (Slack retries).

        The listeners' ``context`` (the bot's user and bot ids) comes from one ``auth.test``;
        until one succeeds, events get 503 rather than an ack that queues nothing.
        """
        who = await self._identity.get()
        if who is None:
            status = 503
        else:
            status = await lean.ack(body, who.context, raw)
        return web.Response(status=status, headers=RETRY_AFTER if status == 503 else None)
