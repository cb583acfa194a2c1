"""``veilbot admin serve | new-token | hash-token``.

``admin serve`` runs the HTTP admin API and the admin console (``/admin/``) on its own
aiohttp server, with the stores only (no guardrail, so ``/readyz`` checks Redis and the
database), and applies the audit retention daily: for deployments that keep the admin API
apart from the bot. ``veilbot run`` serves the same routes on its own HTTP server
(``bot.service``) when ``VEILBOT_ADMIN_TOKENS`` is set.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys

from aiohttp import web

from bot.admin.api import add_admin_routes
from bot.admin.auth import hash_token, new_token
from bot.audit.retention import retention_running
from bot.core.errors import ConfigError
from bot.settings import Settings
from bot.stores import add_console, build_admin_tokens, build_stores

log = logging.getLogger(__name__)


def run_admin(settings: Settings, args: argparse.Namespace) -> int:
    """Run one ``admin`` subcommand; returns the exit code."""
    if args.admin_command == "new-token":
        token = new_token()
        print(f"token (give to the admin client, shown once): {token}")
        print(f"hash  (add to VEILBOT_ADMIN_TOKENS):          {hash_token(token)}")
        return 0
    if args.admin_command == "hash-token":
        token = sys.stdin.readline().strip()
        if not token:
            raise ConfigError("hash-token reads the token on stdin; got nothing")
        print(hash_token(token))
        return 0
    host = args.host or settings.admin_http_host
    port = args.port if args.port is not None else settings.admin_http_port
    return asyncio.run(_serve(settings, host, port))


async def _serve(settings: Settings, host: str, port: int) -> int:
    tokens = build_admin_tokens(settings)
    if not tokens:
        raise ConfigError("VEILBOT_ADMIN_TOKENS is empty: no one could use the admin API")
    async with build_stores(settings) as stores:
        app = web.Application()
        add_admin_routes(app, store=stores.audit, tokens=tokens, readiness=stores.readiness)
        add_console(
            app,
            settings,
            redis=stores.redis,
            audit=stores.audit,
            tokens=tokens,
            eraser=stores.eraser,
        )
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        try:
            site = web.TCPSite(runner, host, port)
            await site.start()
            log.info("admin API and console listening on http://%s:%d/admin/", host, port)
            async with retention_running(stores.audit, settings.audit_retention_days):
                await asyncio.Event().wait()
        finally:
            await runner.cleanup()
    return 0
