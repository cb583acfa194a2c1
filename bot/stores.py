"""The stores alone: Redis, the audit log, history, locks and erasure, from ``Settings``.

Part of the composition root, beside ``bot.app``: ``build_app`` opens these and adds the
guardrail and the model around them; ``veilbot audit``, ``veilbot forget`` and ``veilbot admin``
use them on their own. This module imports neither the guardrail's detection nor the model
client, so those commands start without loading spaCy, Presidio or the anthropic SDK.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import Protocol

from aiohttp import web
from redis.exceptions import RedisClusterException, RedisError

from bot.admin.api import Readiness, Timings, add_admin_routes, add_probe_routes
from bot.admin.auth import AdminTokens
from bot.admin.budgets import BudgetAdmin
from bot.admin.console.routes import add_console_routes
from bot.admin.sessions import ConsoleSessions
from bot.audit.actions import ActionLog, AdminAction
from bot.audit.budgets import month_raises, month_spend
from bot.audit.dropped import dropped_run
from bot.audit.erasure import Eraser
from bot.audit.installations import SqlInstallationRows
from bot.audit.store import SqlAuditStore, sqlite_url
from bot.config.settings import Settings
from bot.core.budgets import Budgets, month_of, month_start, next_month
from bot.core.errors import AlreadyStored
from bot.core.keys import KeySpace
from bot.core.metrics import NO_METRICS
from bot.core.ports import AuditStore, Metrics
from bot.core.scopes import Scopes
from bot.core.types import utcnow
from bot.http_server import HttpServer
from bot.metrics import PrometheusMetrics, add_metrics_route
from bot.state.budgets import RedisSpendLedger
from bot.state.client import RedisClient, open_redis, ping_every_node
from bot.state.embedded import EmbeddedRedis
from bot.state.history import RedisHistoryStore
from bot.state.locks import RedisThreadLocks
from bot.state.once import erase_workspace_keys
from bot.state.orgs import RedisOrgMembers
from bot.state.queue_drop import drop_workspace
from bot.state.sessions import RedisSessionBackend
from guardrails.vault.keys import KeyRing, derive_pseudonym_key, load_key_ring, load_vault_key

log = logging.getLogger(__name__)

UNINSTALLED = "uninstalled"
"""Why a workspace's queued turns were dropped (their audit runs' ``metadata.dropped``)."""


@dataclass
class Stores:
    """The stores alone, without the guardrail or the model: ``veilbot forget``, admin tools."""

    settings: Settings
    redis: RedisClient
    keys: KeySpace
    audit: SqlAuditStore
    history: RedisHistoryStore
    locks: RedisThreadLocks
    eraser: Eraser

    async def readiness(self) -> dict[str, bool]:
        """Redis and the database answer (no guardrail is loaded in this process)."""
        return await check_ready(self.redis, self.audit)


async def check_ready(redis: RedisClient, audit: SqlAuditStore) -> dict[str, bool]:
    """The stores' readiness checks: Redis (each primary of a cluster) and the database answer."""
    return {"redis": await _redis_answers(redis), "database": await audit.ping()}


async def _redis_answers(redis: RedisClient) -> bool:
    try:
        return await asyncio.wait_for(ping_every_node(redis), timeout=2)
    except (RedisError, RedisClusterException, OSError, TimeoutError):
        return False


async def _redis(settings: Settings, stack: AsyncExitStack) -> RedisClient:
    url = settings.redis_url
    if url is None:
        url = (await stack.enter_async_context(EmbeddedRedis(settings.data_dir))).url
    client = open_redis(
        url,
        timeout=settings.store_timeout_seconds,
        max_connections=settings.redis_max_connections,
    )
    stack.push_async_callback(client.aclose)
    return client


def _audit_store(settings: Settings, *, spool: bool) -> SqlAuditStore:
    return SqlAuditStore(
        settings.database_url or sqlite_url(settings.data_dir),
        spool_path=settings.data_dir / "audit-spool.jsonl" if spool else None,
        timeout=settings.store_timeout_seconds,
    )


@asynccontextmanager
async def build_audit(settings: Settings) -> AsyncIterator[SqlAuditStore]:
    """The audit store alone (``veilbot audit …``): no Redis, no spaCy.

    It never touches the service's spool (a spool belongs to one process), so an unreachable
    database is a ``StoreUnavailable`` here.
    """
    async with _audit_store(settings, spool=False) as audit:
        yield audit


def budgets(settings: Settings) -> Budgets:
    """The core's budgets from ``[budgets]``."""
    b = settings.budgets
    return Budgets(
        defaults={"workspace": b.workspace_usd, "channel": b.channel_usd, "user": b.user_usd},
        named={"workspace": b.workspaces, "channel": b.channels, "user": b.users},
        notify_percent=b.notify_percent,
    )


async def rebuild_budgets(ledger: RedisSpendLedger, audit: SqlAuditStore) -> int:
    """Set this month's spend sums and raises in Redis from the audit database."""
    start = month_start(ledger.clock())
    sums = await month_spend(audit.engine, start, next_month(start))
    raises = await month_raises(audit.engine, month_of(start))
    count = await ledger.rebuild(sums, raises)
    log.info("budget sums rebuilt from the audit log month=%s budgets=%d", month_of(start), count)
    return count


def build_admin_tokens(settings: Settings) -> AdminTokens:
    """The HTTP admin API's accepted tokens (hashes and scopes)."""
    return AdminTokens.parse(settings.admin_tokens)


def add_console(
    app: web.Application,
    settings: Settings,
    *,
    redis: RedisClient,
    audit: SqlAuditStore,
    tokens: AdminTokens,
    eraser: Eraser,
    scopes: Callable[[], Scopes] | None = None,
    ledger: RedisSpendLedger | None = None,
) -> None:
    """Serve the admin console at ``/admin/`` on ``app``, sessions in ``redis``.

    ``ledger`` is the service's own (its budgets follow a config reload); without one the
    console reads the budgets of ``settings``.
    """
    backend = RedisSessionBackend(redis, settings.redis_prefix)
    sessions = ConsoleSessions(backend, settings.admin_session_ttl_seconds)
    if ledger is None:
        ledger = RedisSpendLedger(redis, KeySpace(settings.redis_prefix), budgets(settings))
    add_console_routes(
        app,
        store=audit,
        tokens=tokens,
        sessions=sessions,
        eraser=eraser,
        scopes=scopes,
        budgets=BudgetAdmin(ledger, audit),
    )


def add_service_routes(
    http: HttpServer,
    settings: Settings,
    *,
    redis: RedisClient,
    audit: SqlAuditStore,
    eraser: Eraser,
    readiness: Readiness,
    metrics: PrometheusMetrics,
    scopes: Callable[[], Scopes] | None = None,
    ledger: RedisSpendLedger | None = None,
    timings: Timings | None = None,
) -> None:
    """What every veilbot HTTP server serves (``run`` and ``admin serve`` alike).

    ``/healthz`` (the server's own), ``/readyz``, ``/metrics``, and with
    ``VEILBOT_ADMIN_TOKENS`` the admin API and the admin console.
    """
    tokens = build_admin_tokens(settings)
    if tokens:
        add_admin_routes(http.app, store=audit, tokens=tokens, readiness=readiness, timings=timings)
        add_console(
            http.app,
            settings,
            redis=redis,
            audit=audit,
            tokens=tokens,
            eraser=eraser,
            scopes=scopes,
            ledger=ledger,
        )
    else:
        add_probe_routes(http.app, readiness, timings)
    add_metrics_route(http.app, metrics)


def key_ring(settings: Settings) -> KeyRing:
    """``VEILBOT_VAULT_KEY`` (or the data dir's key file) and ``VEILBOT_VAULT_PREVIOUS_KEYS``."""
    return load_key_ring(settings.vault_key, settings.vault_previous_keys, settings.data_dir)


def _eraser(
    settings: Settings, audit: SqlAuditStore, history: RedisHistoryStore, locks: RedisThreadLocks
) -> Eraser:
    key = None
    if settings.forget_keeps_audit_rows:
        key = derive_pseudonym_key(load_vault_key(settings.vault_key, settings.data_dir))
    return Eraser(audit, history, locks, pseudonym_key=key)


def _history_and_locks(
    settings: Settings, client: RedisClient, keys: KeySpace, metrics: Metrics
) -> tuple[RedisHistoryStore, RedisThreadLocks]:
    history = RedisHistoryStore(
        client,
        keys,
        ttl_seconds=settings.history_ttl_seconds,
        max_messages=settings.history_max_messages,
    )
    locks = RedisThreadLocks(
        client,
        keys,
        ttl_seconds=settings.lock_ttl_seconds,
        wait_seconds=settings.lock_wait_seconds,
        metrics=metrics,
    )
    return history, locks


async def open_stores(
    settings: Settings, stack: AsyncExitStack, *, spool: bool, metrics: Metrics = NO_METRICS
) -> Stores:
    """Redis (embedded when no URL is set), the key space, the audit store, history, locks.

    Everything opened is closed by ``stack``.

    Args:
        settings: the configuration.
        stack: owns what is opened here.
        spool: let the audit store spool records to a file while the database is down (the
            service's own store only: a spool belongs to one process).
        metrics: observes the lock waits.
    """
    settings.data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    client = await _redis(settings, stack)
    keys = KeySpace(settings.redis_prefix)
    audit = await stack.enter_async_context(_audit_store(settings, spool=spool))
    history, locks = _history_and_locks(settings, client, keys, metrics)
    eraser = _eraser(settings, audit, history, locks)
    return Stores(settings, client, keys, audit, history, locks, eraser)


@asynccontextmanager
async def build_stores(settings: Settings) -> AsyncIterator[Stores]:
    """Redis and the audit store, without the guardrail or the model (no spaCy load)."""
    async with AsyncExitStack() as stack:
        yield await open_stores(settings, stack, spool=False)


class WorkspaceAudit(ActionLog, AuditStore, Protocol):
    """The action log and the audit runs (``SqlAuditStore``), for a workspace's erasure."""


async def erase_workspace(
    redis: RedisClient,
    keys: KeySpace,
    rows: SqlInstallationRows,
    actions: WorkspaceAudit,
    *,
    enterprise_id: str | None,
    team_id: str,
    actor: str,
) -> int:
    """Erase a Slack workspace at once; the number of Redis keys deleted.

    Its installation (tokens) goes, then what ``erase_platform_workspace`` erases.
    """
    await rows.delete(enterprise_id or "", team_id if team_id != enterprise_id else None)
    return await erase_platform_workspace(
        redis, keys, actions, "slack", team_id, actor=actor, installation="deleted"
    )


async def erase_platform_workspace(
    redis: RedisClient,
    keys: KeySpace,
    actions: WorkspaceAudit,
    platform: str,
    workspace: str,
    *,
    actor: str,
    **outcome: str,
) -> int:
    """Erase a workspace (a Discord server) at once; the number of Redis keys deleted.

    Its turns waiting in the queue (their sealed text), every Redis key of its threads
    (history, vault, lock) and rate counters go, and the action log records
    ``erase_workspace`` (with ``outcome``), which also schedules the purge of its audit runs
    (``bot.audit.uninstalls``); then each dropped turn gets a ``dropped`` audit run (ids
    only), dated before the erasure so that the purge takes it too.
    """
    at = utcnow()
    dropped = await drop_workspace(redis, keys, platform, workspace)
    deleted = await erase_workspace_keys(redis, keys.workspace_patterns(platform, workspace))
    await actions.record_action(
        AdminAction(
            actor=actor,
            action="erase_workspace",
            target=f"{platform}:{workspace}",
            outcome={"redis_keys": deleted, **outcome, "queued_dropped": len(dropped)},
        )
    )
    for entry in dropped:
        run = dropped_run(
            entry.platform, entry.event_id, entry.thread_id, reason=UNINSTALLED, at=at
        )
        try:
            await actions.record(run)
        except AlreadyStored:  # the worker that was running it stopped and wrote it first
            continue
    return deleted


async def erase_installation(
    redis: RedisClient,
    keys: KeySpace,
    rows: SqlInstallationRows,
    actions: WorkspaceAudit,
    *,
    enterprise_id: str | None,
    team_id: str,
    actor: str,
) -> int:
    """Erase an installation at once; the number of Redis keys deleted.

    ``erase_workspace``, and for an org-wide install (``team_id`` is the enterprise id) first
    every workspace it served (``bot.state.orgs``), each with its own action-log entry.
    """
    deleted = 0
    if enterprise_id and team_id == enterprise_id:
        for member in await RedisOrgMembers(redis, keys.prefix).pop_all(enterprise_id):
            deleted += await erase_workspace(
                redis, keys, rows, actions, enterprise_id=enterprise_id, team_id=member, actor=actor
            )
    return deleted + await erase_workspace(
        redis, keys, rows, actions, enterprise_id=enterprise_id, team_id=team_id, actor=actor
    )
