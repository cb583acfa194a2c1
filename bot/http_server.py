"""One aiohttp server for every HTTP endpoint of the service.

Adapters (Slack's ``/slack/events``) and other components (an admin API) add routes before
the server starts; the server itself answers ``/healthz``.

Requests that are not HTTP (a header without a colon, a 20 KB header line, a non-numeric
``Content-Length``, an HTTP/2 preface, a bad chunk size) get aiohttp's 400, and the client
that leaves halfway through its body no answer; neither is the service's failure. aiohttp
logs each at ERROR with a traceback: anyone who reaches the port could fill the log.
``ProtocolLog``, the protocol's logger, makes them one WARNING line per peer a minute (with
the count held back), naming the exception's type and never the bytes; any other failure of
a handler is one ERROR line by type and place (``describe``), no traceback.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import Any

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError

from bot.core.logsafe import ThrottledLog, describe

logger = logging.getLogger(__name__)

BACKLOG = 1024
"""Connections the kernel completes before the server accepts them. A burst of deliveries
opens hundreds at once while the event loop is busy; past aiohttp's default of 128 the
kernel drops the new connections' SYNs and the sender tries again only after TCP's initial
retransmission timeout, 1 s later (the kernel caps this at ``net.core.somaxconn``)."""


def _noise(exc: BaseException | None) -> bool:
    """Whether ``exc`` is the client's doing: not HTTP, or gone before its request was read."""
    return isinstance(exc, HttpProcessingError | ConnectionError)


class ProtocolLog:
    """The logger aiohttp's protocol reports request errors to (its ``logger`` argument).

    A malformed request or a client gone halfway: one WARNING per peer per ``interval``
    seconds. Any other error: one ERROR line with its type and place. Never a traceback.
    """

    def __init__(self, interval: float = 60.0) -> None:
        self.refused = ThrottledLog(logger, "malformed or abandoned HTTP request, peer", interval)

    def noise(self, peer: object, exc: BaseException) -> None:
        """Count one malformed request from ``peer``; log it unless ``peer`` was lately."""
        self.refused.warning(str(peer or "unknown"), type(exc).__name__)

    def exception(self, msg: str, *args: object, exc_info: object = None, **_: object) -> None:
        """An error while serving a request (``args``: the peer, when aiohttp gives one)."""
        exc = exc_info if isinstance(exc_info, BaseException) else None
        if _noise(exc):
            assert exc is not None  # noqa: S101  (checked by _noise)
            self.noise(args[0] if args else None, exc)
        elif exc is not None:
            logger.error("http request failed: %s", describe(exc))
        else:
            logger.error(msg, *args)

    def debug(self, msg: str, *args: object, exc_info: object = None, **_: object) -> None:
        """Lines aiohttp keeps at DEBUG (HTTPS sent to the HTTP port), without a traceback."""
        if isinstance(exc_info, BaseException):
            logger.debug("%s: %s", msg % args if args else msg, type(exc_info).__name__)
        else:
            logger.debug(msg, *args)

    def warning(self, msg: str, *args: object, **_: object) -> None:
        """A warning of aiohttp's own (its handler's set-up)."""
        logger.warning(msg, *args)

    def error(self, msg: str, *args: object, **_: object) -> None:
        """An error of aiohttp's own, without a traceback."""
        logger.error(msg, *args)


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def malformed_bodies(log: ProtocolLog) -> Any:
    """Middleware: a body that breaks the HTTP framing as a handler reads it is a 400.

    (aiohttp answers a handler's every exception 500; a bad chunk size that arrives after
    the headers reaches the handler as one.)
    """

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        try:
            return await handler(request)
        except HttpProcessingError as exc:
            log.noise(request.remote, exc)
            raise web.HTTPBadRequest(text="Bad Request") from None

    return middleware


class HttpServer:
    """An aiohttp application served on ``host:port`` as an async context manager.

    Args:
        host: the interface to bind (``127.0.0.1`` by default; ``0.0.0.0`` in containers).
        port: the TCP port; ``0`` picks a free one (see ``port`` after start).
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 3000) -> None:
        self.host = host
        self._port = port
        self.protocol_log = ProtocolLog()
        self.app = web.Application(middlewares=[malformed_bodies(self.protocol_log)])
        self.app.router.add_get("/healthz", self._healthz)
        self._runner: web.AppRunner | None = None

    @property
    def port(self) -> int:
        """The bound port (the real one once started, when ``0`` was asked for)."""
        return self._port

    @property
    def url(self) -> str:
        """Base URL of the running server."""
        return f"http://{self.host}:{self._port}"

    async def _healthz(self, _request: web.Request) -> web.Response:
        return web.json_response({"ok": True})

    async def __aenter__(self) -> HttpServer:
        runner = web.AppRunner(self.app, access_log=None, logger=self.protocol_log)
        await runner.setup()
        try:
            site = web.TCPSite(runner, self.host, self._port, backlog=BACKLOG)
            await site.start()
        except BaseException:
            await runner.cleanup()
            raise
        self._runner = runner
        server = getattr(site, "_server", None)
        if server is not None and server.sockets:
            self._port = int(server.sockets[0].getsockname()[1])
        logger.info("http server listening on %s:%s", self.host, self._port)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
