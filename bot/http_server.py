"""One aiohttp server for every HTTP endpoint of the service.

Adapters (Slack's ``/slack/events``) and other components (an admin API) add routes before
the server starts; the server itself answers ``/healthz``.
"""

from __future__ import annotations

import logging
from types import TracebackType

from aiohttp import web

logger = logging.getLogger(__name__)

BACKLOG = 1024
"""Connections the kernel completes before the server accepts them. A burst of deliveries
opens hundreds at once while the event loop is busy; past aiohttp's default of 128 the
kernel drops the new connections' SYNs and the sender tries again only after TCP's initial
retransmission timeout, 1 s later (the kernel caps this at ``net.core.somaxconn``)."""


class HttpServer:
    """An aiohttp application served on ``host:port`` as an async context manager.

    Args:
        host: the interface to bind (``127.0.0.1`` by default; ``0.0.0.0`` in containers).
        port: the TCP port; ``0`` picks a free one (see ``port`` after start).
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 3000) -> None:
        self.host = host
        self._port = port
        self.app = web.Application()
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
        runner = web.AppRunner(self.app, access_log=None)
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
