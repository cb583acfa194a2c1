"""The Slack adapter: slack-bolt's ``AsyncApp`` wired to the core's ``MessageHandler``.

Transports, chosen by ``VEILBOT_SLACK_MODE``: the Events API over HTTP (the route lives on the
shared ``HttpServer``; ``SlackGate`` checks the signature first) or Socket Mode.

With a ``TurnQueue`` (``veilbot run``; ``bot.state.queue``) a message event is acked only once
it is queued (``adapters.slack.enqueue``), so an event Redis did not take gets a 503 (HTTP) or
no ack (Socket Mode) and Slack sends it again. Over HTTP the events endpoint acks a signed
``message``/``app_mention`` event itself (the lean path: the gate's one signature check and
one parse, the bot's identity from one ``auth.test`` kept for the process, then the put; a
503 while that identity is unknown); every other request (URL verification, commands,
buttons, other events) goes to bolt, as do message events in Socket Mode, through a listener
middleware that puts them the same way. Any replica's worker then answers the event
(``_work_queued``) in the thread's order; an entry another worker began and did not finish
comes back with ``attempt > 1``, and is answered only if the thread holds no answer to it yet
(answers carry the event in their message ``metadata``).

OAuth mode (``VEILBOT_SLACK_CLIENT_ID``, ``adapters.slack.oauth``): bolt authorizes each
request from the installation store, and ``/slack/install`` and ``/slack/oauth_redirect`` are
served beside the events. ``self.client`` is then a ``TeamWebClient``: every call takes the
token of the workspace being served, set by a global middleware for bolt's listeners and by
``_work_queued`` (which reads the installation when the turn runs, so a queued turn uses a
rotated token and an uninstalled workspace's turn is dropped; one already running when the
workspace uninstalls is withdrawn before the model is called or the answer kept or posted).
The lean ack path is off: the bot's identity differs per workspace, and bolt's authorization
gives it.

Without a queue, bolt acks every request before the listener runs and the turn runs in this
process; turns of one thread start in arrival order (an in-process FIFO lock per thread; the
core's Redis lock orders them across replicas). Commands and buttons are never queued: bolt
acks them within Slack's 3 seconds either way.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AsyncExitStack, nullcontext
from dataclasses import replace
from typing import Any

import aiohttp
from aiohttp import web
from slack_bolt.adapter.aiohttp import to_aiohttp_response, to_bolt_request
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.async_app import AsyncApp
from slack_bolt.response import BoltResponse
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
    AsyncServerErrorRetryHandler,
)
from slack_sdk.web.async_client import AsyncWebClient

from adapters.inflight import finish_in_flight
from adapters.slack.enqueue import RETRY_AFTER, Authorization, Enqueuer, lean_event
from adapters.slack.events import (
    Delivery,
    deleted_message,
    edited_message,
    like_dm,
    skip_reason,
    to_delivery,
)
from adapters.slack.files import SlackFiles
from adapters.slack.formatting import mentioned_users
from adapters.slack.groups import UserGroups
from adapters.slack.ingress import SlackGate
from adapters.slack.interactions import Interactions
from adapters.slack.locks import KeyedLocks
from adapters.slack.oauth.flow import SlackOAuth
from adapters.slack.oauth.serve import OAuthMode, bot_token
from adapters.slack.oauth.teams import TeamWebClient, serving
from adapters.slack.replies import (
    SLACK_ERRORS,
    LiveReply,
    Mode,
    Target,
    _err,
    answered_before,
    post_ephemeral,
)
from bot.core.errors import InputRejected
from bot.core.logsafe import log_failure
from bot.core.ports import AdminCommands, MessageHandler, TurnQueue
from bot.core.types import QueuedEvent
from bot.http_server import HttpServer
from bot.settings import Settings, require

logger = logging.getLogger(__name__)

SORRY = "Sorry, something went wrong on my side and I couldn't answer. Please try again."
_CANCEL_GRACE_SECONDS = 10.0
"""When the adapter is cancelled without a drain first: how long answers in flight get."""


def _quiet_sdk_loggers() -> None:
    """At DEBUG the SDKs log request bodies, i.e. message text: keep them at INFO or above."""
    for name in ("slack_sdk", "slack_bolt"):
        sdk_logger = logging.getLogger(name)
        if sdk_logger.getEffectiveLevel() < logging.INFO:
            sdk_logger.setLevel(logging.INFO)


def web_client(settings: Settings, token: str | None) -> AsyncWebClient:
    """The Web API client: base URL from settings, and retries for 429, 5xx, lost connections.

    With no token (OAuth mode) a ``TeamWebClient``: each call takes the served team's token.
    """
    kwargs: dict[str, Any] = {}
    if settings.slack_api_url:
        kwargs["base_url"] = settings.slack_api_url.rstrip("/") + "/"
    cls = AsyncWebClient if token is not None else TeamWebClient
    return cls(
        token=token,
        retry_handlers=[
            AsyncConnectionErrorRetryHandler(max_retry_count=2),
            AsyncRateLimitErrorRetryHandler(max_retry_count=4),
            AsyncServerErrorRetryHandler(max_retry_count=2),
        ],
        **kwargs,
    )


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
        _quiet_sdk_loggers()
        token = bot_token(settings, oauth)
        self._settings, self._handler = settings, handler
        self._app_token: str | None = None
        self._own_http: HttpServer | None = None
        if settings.slack_mode == "socket":
            self._app_token = require(settings.slack_app_token, "VEILBOT_SLACK_APP_TOKEN")
            secret = None
        else:
            secret = require(settings.slack_signing_secret, "VEILBOT_SLACK_SIGNING_SECRET")
            if http is None:
                http = self._own_http = HttpServer(
                    settings.slack_http_host, settings.slack_http_port
                )
        self.client = web_client(settings, token)
        self._groups: dict[str, UserGroups] = {}
        self._oauth = OAuthMode(settings, oauth, self.client) if oauth is not None else None
        self.app = AsyncApp(
            client=self.client,
            signing_secret=secret,
            request_verification_enabled=secret is not None,
            process_before_response=False,
            logger=logging.getLogger("slack_bolt.veilbot"),
            oauth_settings=self._oauth.settings if self._oauth is not None else None,
        )
        self._locks = KeyedLocks()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._socket: AsyncSocketModeHandler | None = None
        self._draining = False
        self._gate = SlackGate(secret) if secret is not None else None
        self._files = SlackFiles(self.client, api_url=settings.slack_api_url)
        self._stream_ok = settings.slack_streaming in ("auto", "stream")
        self._assistant_ok = settings.slack_assistant
        self.interactions = Interactions(
            self.app,
            handler,
            settings.slack_command,
            self.client,
            settings.slack_message_chars,
            admin=admin,
        )
        self._queue = queue
        self._enqueuer = Enqueuer(queue, settings) if queue is not None else None
        self._authorized: Authorization | None = None
        self._authorizing: asyncio.Task[Authorization | None] | None = None
        if queue is not None:
            queue.register("slack", self._work_queued)
        self._register()
        if self._oauth is not None and http is not None:  # OAuth mode is HTTP mode
            self._oauth.attach(self.app, http)
        if http is not None and secret is not None:
            http.app.router.add_post(settings.slack_http_path, self._on_http)

    def _groups_of(self, team: str) -> UserGroups:
        """The user groups of one workspace (each has its own; one in single-workspace mode)."""
        if team not in self._groups:
            self._groups[team] = UserGroups(self.client)
        return self._groups[team]

    def _register(self) -> None:
        queued = [self._enqueue] if self._queue is not None else None
        self.app.event("app_mention", middleware=queued)(self._on_mention)
        self.app.event("message", middleware=queued)(self._on_message)
        self.app.event("assistant_thread_started")(self._on_assistant_started)
        self.app.event("assistant_thread_context_changed")(self._ignore)

    async def _on_http(self, request: web.Request) -> web.Response:
        # queued turns of this process wait while deliveries are being acked (acks first)
        with self._queue.acking() if self._queue is not None else nullcontext():
            return await self._respond(request)

    async def _respond(self, request: web.Request) -> web.Response:
        if self._draining:  # stopping: a non-2xx makes Slack deliver the event again later
            return web.Response(status=503, headers=RETRY_AFTER, text="stopping")
        if self._gate is not None:  # the signature before any parsing
            raw = await request.read()
            checked = self._gate.check(raw, request.headers)
            if isinstance(checked, int):
                return web.Response(status=checked)
            lean = self._enqueuer is not None and self._oauth is None  # OAuth: bolt authorizes
            if lean and checked.json and lean_event(checked.json):
                return await self._lean_ack(checked.json, raw)
        with serving(None):  # bolt's middleware sets the team's token for this request only
            bolt_response = await self.app.async_dispatch(await to_bolt_request(request))
        return await to_aiohttp_response(bolt_response)

    async def _lean_ack(self, body: dict[str, Any], raw: bytes) -> web.Response:
        """Ack a message event for the queue without bolt: queued 200, else 503 (Slack retries).

        The listeners' ``context`` (the bot's user and bot ids) comes from one ``auth.test``;
        until one succeeds, events get 503 rather than an ack that queues nothing.
        """
        assert self._enqueuer is not None  # noqa: S101  (the lean path needs a queue)
        who = await self._identity()
        if who is None:
            status = 503
        else:
            status = await self._enqueuer.ack(body, who.context, raw)
        return web.Response(status=status, headers=RETRY_AFTER if status == 503 else None)

    async def _identity(self) -> Authorization | None:
        """The bot's identity from ``auth.test``: one call at a time, kept once it succeeds."""
        if self._authorized is not None:
            return self._authorized
        return await asyncio.shield(self._authorize())

    def _authorize(self) -> asyncio.Task[Authorization | None]:
        """The ``auth.test`` under way, started unless one is."""
        if self._authorizing is None or self._authorizing.done():
            self._authorizing = asyncio.create_task(self._auth_test(), name="veilbot-slack-auth")
        return self._authorizing

    async def _auth_test(self) -> Authorization | None:
        try:
            found = await self.client.auth_test()
        except SLACK_ERRORS as exc:
            logger.debug("slack auth.test failed: %s", _err(exc))
            if self._gate is not None:
                self._gate.refusals.warning("the bot's identity is unknown (auth.test failed)")
            return None
        self._authorized = Authorization(
            bot_user_id=found.get("user_id") if found.get("bot_id") else None,
            bot_id=found.get("bot_id"),
        )
        return self._authorized

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
                stack.callback(self._authorize().cancel)
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
        self._draining = True
        # An event acked just now has its listener task created but not started: one turn of
        # the loop lets it reach _track, so it is waited for below.
        await asyncio.sleep(0)
        socket, self._socket = self._socket, None
        if socket is not None:
            await socket.close_async()  # type: ignore[no-untyped-call]
        await self.idle(timeout)

    async def idle(self, timeout: float) -> None:  # noqa: ASYNC109  (as drain)
        """Wait up to ``timeout`` s for the events in flight, then cancel those left."""
        await finish_in_flight(self._tasks, timeout, log=logger, platform="slack", noun="event(s)")

    async def _ignore(self) -> None:
        return None

    async def _enqueue(
        self, body: dict[str, Any], context: dict[str, Any], next_: Callable[[], Awaitable[None]]
    ) -> BoltResponse:
        """Listener middleware (queue on): queue the event, then ack it; never run the listener.

        A non-2xx when Redis did not take it: Slack sends the event again (to any replica).
        """
        del next_  # the listener runs later, in a queue worker
        assert self._enqueuer is not None  # noqa: S101  (registered only with a queue)
        assert self._queue is not None  # noqa: S101  (as the enqueuer)
        with self._queue.acking():  # Socket Mode's acks too go before queued turns
            status = await self._enqueuer.ack(body, context)
        headers: dict[str, str | Sequence[str]] = dict(RETRY_AFTER) if status == 503 else {}
        return BoltResponse(status=status, body="", headers=headers)

    async def _work_queued(self, event: QueuedEvent) -> None:
        """The queue worker's handler: answer one queued event, as the listener would have."""
        try:
            data = json.loads(event.body)
            body, trigger = data["body"], str(data["trigger"])
        except (ValueError, KeyError, TypeError):
            logger.error("queued slack event unreadable; dropped")
            return
        context = {"bot_user_id": data.get("bot_user_id"), "bot_id": data.get("bot_id")}
        token = None
        if self._oauth is not None:  # the team's token now: it may have rotated or gone
            found = await self._oauth.teams.find(body)
            if found is None:
                logger.warning("queued slack event of a workspace not installed; dropped")
                return
            token = found.bot_token
        with serving(token):
            if trigger in ("deleted", "edited"):
                await self._on_change(body, context)
                return
            await self._track(self._on_user_message(body, context, trigger, queued=event))

    async def _on_change(self, body: dict[str, Any], context: dict[str, Any]) -> bool:
        """A person deleted or edited a message: the core withdraws or re-redacts it."""
        bot_user_id = context.get("bot_user_id")
        if (deleted := deleted_message(body, bot_user_id=bot_user_id)) is not None:
            tid, text = deleted
            await self._track(self._handler.message_deleted(tid, text, platform="slack"))
            return True
        if (edited := edited_message(body, bot_user_id=bot_user_id)) is not None:
            tid, before, after = edited
            work = self._handler.message_edited(tid, before, after, platform="slack")
            await self._track(work)
            return True
        return False

    async def _on_mention(self, body: dict[str, Any], context: dict[str, Any]) -> None:
        await self._track(self._on_user_message(body, context, "mention"))

    async def _on_message(self, body: dict[str, Any], context: dict[str, Any]) -> None:
        event = body.get("event") or {}
        if await self._on_change(body, context):
            return
        if like_dm(event):
            await self._track(self._on_user_message(body, context, "dm"))
        elif event.get("thread_ts") and self._settings.slack_reply_to_followups:
            if f"<@{context.get('bot_user_id')}" not in str(event.get("text", "")):
                await self._track(self._on_user_message(body, context, "followup"))

    async def _track(self, work: Any) -> None:
        """Run one unit of work as a tracked task, so shutdown can wait for it."""
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            await work
        except SLACK_ERRORS as exc:
            logger.warning("slack call failed: %s", _err(exc))
        except Exception as exc:  # one bad event must not stop the app
            log_failure(logger, "slack event handling failed", exc)
        finally:
            if task is not None:
                self._tasks.discard(task)

    async def _on_user_message(
        self,
        body: dict[str, Any],
        context: dict[str, Any],
        trigger: str,
        queued: QueuedEvent | None = None,
    ) -> None:
        reason = skip_reason(
            body["event"],
            bot_user_id=context.get("bot_user_id"),
            bot_id=context.get("bot_id"),
            ignore_bots=self._settings.slack_ignore_bots,
        )
        if reason is not None:
            logger.debug("slack event skipped: %s", reason)
            return
        try:
            delivery = to_delivery(body, bot_user_id=context.get("bot_user_id"), trigger=trigger)
        except InputRejected:
            logger.warning("slack event with unusable ids skipped")
            return
        if queued is not None:  # the queue dedupes deliveries; every attempt is one audit run
            message = replace(
                delivery.message,
                event_id=None,
                run_id=queued.run_id,
                attempt=queued.attempt,
                withdrawn=queued.withdrawn,  # the workspace may uninstall while it runs
            )
            delivery = replace(delivery, message=message)
        groups = await self._groups_of(delivery.message.workspace).of(delivery.message.user_id)
        delivery = replace(delivery, message=replace(delivery.message, groups=groups))
        async with self._locks.hold(delivery.message.thread_id):
            tid = delivery.message.thread_id
            if trigger == "followup" and not (
                self._handler.follows_up(delivery.message) and await self._handler.knows_thread(tid)
            ):
                return
            target = _target(delivery, queued)
            if queued is not None and queued.attempt > 1:
                if await answered_before(self.client, target):
                    logger.info("queued slack event was answered before; not again thread=%s", tid)
                    return
            await self._deliver(delivery, target, queued)

    async def _deliver(
        self, delivery: Delivery, target: Target, queued: QueuedEvent | None = None
    ) -> None:
        if delivery.message.files:  # fetched by the turn, with the bot token
            message = replace(delivery.message, file_source=self._files)
            delivery = replace(delivery, message=message)
        if delivery.command is not None:
            await self.interactions.in_thread(delivery, target)
            return
        await self._answer(delivery, target, queued)

    async def _answer(
        self, delivery: Delivery, target: Target, queued: QueuedEvent | None = None
    ) -> None:
        if delivery.message.private and delivery.message.metadata.get("in_thread"):
            await self._set_status(target, "is thinking…")
        sink = LiveReply(
            self.client,
            target,
            mode=self._mode(),
            limit=self._settings.slack_message_chars,
            interval=self._settings.slack_update_interval_seconds,
            on_stream_unavailable=self._stream_unavailable,
        )
        try:
            reply = await self._handler.handle(delivery.message, sink if sink.live else None)
        except Exception as exc:
            log_failure(logger, "turn failed in thread %s", exc, delivery.message.thread_id)
            await sink.finish(SORRY, streamed=False)
            return
        if reply is None:
            logger.debug("duplicate slack delivery dropped")
            return
        if reply.ephemeral:
            await post_ephemeral(self.client, target, reply.text)
            return
        if queued is not None and queued.still_mine is not None and not await queued.still_mine():
            # another worker took the entry while this one stalled: it gives the stored answer
            logger.warning("queued slack event taken over; its new worker answers it")
            return
        await sink.finish(reply.text, streamed=reply.streamed)

    def _mode(self) -> Mode:
        setting = self._settings.slack_streaming
        if setting == "off":
            return "off"
        return "stream" if self._stream_ok and setting != "update" else "update"

    def _stream_unavailable(self) -> None:
        if self._settings.slack_streaming == "auto":
            self._stream_ok = False

    async def _set_status(self, target: Target, status: str) -> None:
        if not self._assistant_ok:
            return
        try:
            await self.client.assistant_threads_setStatus(
                channel_id=target.channel, thread_ts=target.thread_ts, status=status
            )
        except SLACK_ERRORS as exc:
            logger.debug("assistant status not set: %s", _err(exc))

    async def _on_assistant_started(self, body: dict[str, Any]) -> None:
        thread = (body.get("event") or {}).get("assistant_thread") or {}
        if not self._assistant_ok or not thread.get("channel_id"):
            return
        await self._track(
            self.client.assistant_threads_setSuggestedPrompts(
                channel_id=thread["channel_id"],
                thread_ts=thread["thread_ts"],
                prompts=[
                    {"title": "Summarize a text", "message": "Summarize this for me: "},
                    {"title": "Draft a reply", "message": "Help me write a reply to: "},
                    {"title": "What can you do?", "message": "help"},
                ],
            )
        )


def _target(delivery: Delivery, queued: QueuedEvent | None = None) -> Target:
    message = delivery.message
    return Target(
        channel=message.channel,
        thread_ts=delivery.thread_ts,
        team=message.workspace,
        user=message.user_id,
        asked=mentioned_users(message.text),  # the bot's own mention is removed already
        event=queued.event_id if queued is not None else None,
    )
