"""The Slack adapter: slack-bolt's ``AsyncApp`` wired to the core's ``MessageHandler``.

Transports, chosen by ``VEILBOT_SLACK_MODE``: the Events API over HTTP (the route lives on the
shared ``HttpServer``: ``adapters.slack.endpoint``, where ``SlackGate`` checks the signature
first) or Socket Mode.

With a ``TurnQueue`` (``veilbot run``; ``bot.state.queue``) a message event is acked only once
it is queued (``adapters.slack.enqueue``), so an event Redis did not take gets a 503 (HTTP) or
no ack (Socket Mode) and Slack sends it again. Over HTTP the endpoint acks a signed message
event itself (the lean path); every other request goes to bolt, as do message events in Socket
Mode, through a listener middleware that puts them the same way. Any replica's worker then
answers the event (``adapters.slack.listeners``) in the thread's order; an entry another worker
began and did not finish comes back with ``attempt > 1``, and is answered only if the thread
holds no answer to it yet (answers carry the event in their message ``metadata``).

OAuth mode (``VEILBOT_SLACK_CLIENT_ID``, ``adapters.slack.oauth``): bolt authorizes each
request from the installation store, and ``/slack/install`` and ``/slack/oauth_redirect`` are
served beside the events. ``self.client`` is then a ``TeamWebClient``: every call takes the
token of the workspace being served, set by a global middleware for bolt's listeners and by
the queue worker's handler (which reads the installation when the turn runs, so a queued turn uses a
rotated token and an uninstalled workspace's turn is dropped; one already running when the
workspace uninstalls is withdrawn before the model is called or the answer kept or posted).
The lean ack path is off: the bot's identity differs per workspace, and bolt's authorization
gives it.

Without a queue, bolt acks every request before the listener runs and the turn runs in this
process (``adapters.slack.turns``). Commands and buttons are never queued: bolt acks them
within Slack's 3 seconds either way.
"""

from __future__ import annotations

import asyncio
import logging
from contextlib import AsyncExitStack

import aiohttp
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.async_app import AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from adapters.inflight import finish_in_flight
from adapters.slack.assistant import AssistantView
from adapters.slack.client import quiet_sdk_loggers, web_client
from adapters.slack.endpoint import EventsEndpoint
from adapters.slack.enqueue import Enqueuer
from adapters.slack.identity import BotIdentity
from adapters.slack.ingress import SlackGate
from adapters.slack.interactions import Interactions
from adapters.slack.listeners import Listeners
from adapters.slack.oauth.flow import SlackOAuth
from adapters.slack.oauth.serve import OAuthMode, bot_token
from adapters.slack.turns import Turns
from bot.config.settings import Settings, require
from bot.core.ports import AdminCommands, MessageHandler, TurnQueue
from bot.http_server import HttpServer

logger = logging.getLogger(__name__)

_CANCEL_GRACE_SECONDS = 10.0
"""When the adapter is cancelled without a drain first: how long answers in flight get."""


class SlackAdapter:
    """Serves one Slack app: events in, answers out in the same thread.

    Args:
        settings: the service settings (``VEILBOT_SLACK_*``).
        handler: the core's guarded turn.
        http: a shared HTTP server (not started yet) to add ``/slack/events`` to, so other
            routes can live beside it; without one, ``http`` mode serves its own on
            ``VEILBOT_SLACK_HTTP_HOST``/``_PORT`` while ``run`` runs.
        admin: the core's admin commands, for ``/veilbot audit export`` (none: refused).
        queue: the turn queue: message events are acked once queued and answered by any
            replica's worker (none: answered here, after the ack).
        oauth: the installation and state stores for OAuth mode (``VEILBOT_SLACK_CLIENT_ID``):
            ``/slack/install`` and ``/slack/oauth_redirect`` are served beside the events, and
            every Web API call takes the token of the event's workspace (``oauth.teams``).

    Raises:
        ConfigError: a credential the chosen transport needs is missing (the error names it).
    """

    name = "slack"

    def __init__(
        self,
        settings: Settings,
        handler: MessageHandler,
        http: HttpServer | None = None,
        *,
        admin: AdminCommands | None = None,
        queue: TurnQueue | None = None,
        oauth: SlackOAuth | None = None,
    ) -> None:
        quiet_sdk_loggers()
        token = bot_token(settings, oauth)
        self._settings = settings
        self._app_token: str | None = None
        self._own_http: HttpServer | None = None
        secret, http = self._transport(http)
        self.client = web_client(settings, token)
        self._oauth = OAuthMode(settings, oauth, self.client) if oauth is not None else None
        self.app = _bolt_app(self.client, secret, self._oauth)
        self._socket: AsyncSocketModeHandler | None = None
        gate = SlackGate(secret) if secret is not None else None
        self.interactions = Interactions(
            self.app,
            handler,
            settings.slack_command,
            self.client,
            settings.slack_message_chars,
            admin=admin,
        )
        self._assistant = AssistantView(self.client, enabled=settings.slack_assistant)
        self._turns = Turns(settings, handler, self.client, self.interactions, self._assistant)
        self._enqueuer = Enqueuer(queue, settings) if queue is not None else None
        self._identity = BotIdentity(self.client, gate)
        self._listeners = Listeners(settings, handler, self._turns, self._assistant, self._oauth)
        if queue is not None:
            queue.register("slack", self._listeners.work_queued)
        self._listeners.register(self.app, self._enqueuer)
        if self._oauth is not None and http is not None:  # OAuth mode is HTTP mode
            self._oauth.attach(self.app, http)
        self._endpoint = self._events_route(http, gate, queue)

    def _transport(self, http: HttpServer | None) -> tuple[str | None, HttpServer | None]:
        """The signing secret and the server the events route goes on (Socket Mode: none).

        HTTP mode without a shared server gets a server of its own.
        """
        settings = self._settings
        if settings.slack_mode == "socket":
            self._app_token = require(settings.slack_app_token, "VEILBOT_SLACK_APP_TOKEN")
            return None, http
        secret = require(settings.slack_signing_secret, "VEILBOT_SLACK_SIGNING_SECRET")
        if http is None:
            http = self._own_http = HttpServer(settings.slack_http_host, settings.slack_http_port)
        return secret, http

    def _events_route(
        self, http: HttpServer | None, gate: SlackGate | None, queue: TurnQueue | None
    ) -> EventsEndpoint | None:
        """Serve the Events API on ``http`` (HTTP mode only)."""
        if http is None or gate is None:
            return None
        lean = self._enqueuer if self._oauth is None else None  # OAuth: bolt authorizes
        endpoint = EventsEndpoint(self.app, gate, queue=queue, lean=lean, identity=self._identity)
        http.app.router.add_post(self._settings.slack_http_path, endpoint.handle)
        return endpoint

    async def run(self) -> None:
        """Serve until cancelled; in-flight answers get a short grace period on the way out.

        While it runs, every Web API call shares one HTTP session: its connections to Slack
        stay open between calls. Without one, slack-sdk opens a session, a TCP connection and
        a TLS handshake per call (each answer's post, update and status), and closes them.
        """
        async with AsyncExitStack() as stack:
            if self._own_http is not None:
                await stack.enter_async_context(self._own_http)
            session = aiohttp.ClientSession(
                timeout=aiohttp.ClientTimeout(total=self.client.timeout)
            )
            stack.push_async_callback(session.close)
            self.client.session = session
            # on the way out the client lets go of it first: a later call opens its own
            stack.callback(setattr, self.client, "session", None)
            if self._enqueuer is not None and self._oauth is None:
                # Ask who the bot is now: otherwise the first events after a start (a deploy
                # under a burst) all wait for that round trip to Slack before their ack.
                stack.callback(self._identity.ask().cancel)
            await self._serve()

    async def _serve(self) -> None:
        try:
            if self._app_token is not None:
                self._socket = AsyncSocketModeHandler(self.app, self._app_token)
                await self._socket.connect_async()  # type: ignore[no-untyped-call]
                logger.info("slack socket mode connected")
            await asyncio.Event().wait()
        finally:
            await self.drain(_CANCEL_GRACE_SECONDS)

    async def drain(self, timeout: float) -> None:  # noqa: ASYNC109  (the shared contract)
        """Take no new events, wait up to ``timeout`` s for those in flight, cancel the rest.

        New HTTP deliveries get 503 (Slack retries them, on another replica or after the
        restart); Socket Mode disconnects.
        """
        if self._endpoint is not None:
            self._endpoint.draining = True
        # An event acked just now has its listener task created but not started: one turn of
        # the loop lets it reach its tracking, so it is waited for below.
        await asyncio.sleep(0)
        socket, self._socket = self._socket, None
        if socket is not None:
            await socket.close_async()  # type: ignore[no-untyped-call]
        await self.idle(timeout)

    async def idle(self, timeout: float) -> None:  # noqa: ASYNC109  (as drain)
        """Wait up to ``timeout`` s for the events in flight, then cancel those left."""
        tasks = self._listeners.tasks
        await finish_in_flight(tasks, timeout, log=logger, platform="slack", noun="event(s)")


def _bolt_app(client: AsyncWebClient, secret: str | None, oauth: OAuthMode | None) -> AsyncApp:
    """The bolt app: it checks signatures over HTTP, and authorizes from the installations."""
    return AsyncApp(
        client=client,
        signing_secret=secret,
        request_verification_enabled=secret is not None,
        process_before_response=False,
        logger=logging.getLogger("slack_bolt.veilbot"),
        oauth_settings=oauth.settings if oauth is not None else None,
    )
