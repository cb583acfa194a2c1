"""``veilbot admin serve | new-token | hash-token``.

``admin serve`` runs the HTTP admin API and the admin console (``/admin/``) with the stores
only (no guardrail, so ``/readyz`` checks Redis and the database), and applies the audit
retention daily: for deployments that keep the admin API apart from the bot. Its server is
built from the same pieces as ``veilbot run``'s (``bot.stores.add_service_routes`` on an
``HttpServer``): the same ``/healthz``, ``/readyz`` and ``/metrics``, and it stops on
SIGTERM or SIGINT the same way, logging each step.
"""

from __future__ import annotations

import argparse
import functools
import logging
import sys

from bot.admin.auth import hash_token, new_token
from bot.audit.retention import retention_running
from bot.cli import loop
from bot.cli.stopping import WATCHDOG_MARGIN_SECONDS, StopSignals, startup_cancel_is_a_stop
from bot.config.scopes import build_scopes
from bot.config.settings import Settings
from bot.core.errors import ConfigError
from bot.http_server import HttpServer
from bot.metrics import PrometheusMetrics
from bot.stores import add_service_routes, build_admin_tokens, build_stores

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
    return loop.run(_serve(settings, host, port), settings.event_loop)


async def _serve(settings: Settings, host: str, port: int) -> int:
    if not build_admin_tokens(settings):
        raise ConfigError("VEILBOT_ADMIN_TOKENS is empty: no one could use the admin API")
    with (
        StopSignals(grace_seconds=WATCHDOG_MARGIN_SECONDS) as stopping,
        startup_cancel_is_a_stop(stopping),
    ):
        await _serve_until(settings, HttpServer(host, port), stopping)
    log.info("shutdown: veilbot admin stopped (%s)", stopping.signal_name or "ended")
    return 0


async def _serve_until(settings: Settings, http: HttpServer, stopping: StopSignals) -> None:
    async with build_stores(settings) as stores:
        add_service_routes(
            http,
            settings,
            redis=stores.redis,
            audit=stores.audit,
            eraser=stores.eraser,
            readiness=stores.readiness,
            metrics=PrometheusMetrics(),
            scopes=functools.partial(build_scopes, settings),  # the file's, as at start
        )
        async with http, retention_running(stores.audit, settings.audit_retention_days):
            stopping.serving()
            log.info("admin API and console listening on %s/admin/", http.url)
            await stopping.requested.wait()
        log.info("shutdown: http server closed")
