"""``veilbot run`` as one service: platform adapters, one HTTP server, the daily retention.

With ``bot.app`` this is the composition root: ``bot.app`` builds the core from ``Settings``;
this module puts the chosen platform adapters, the HTTP endpoints and the background tasks
around a built ``App``. It picks no backend itself.

One aiohttp server (``HttpServer``) carries every HTTP endpoint of the process:

- Slack's events endpoint, when Slack runs in ``http`` mode; the server then binds
  ``VEILBOT_SLACK_HTTP_HOST``/``_PORT`` (the port Slack already reaches);
- otherwise (Discord, Slack in Socket Mode) it binds ``VEILBOT_ADMIN_HTTP_HOST``/``_PORT``;
- ``/healthz`` (liveness) and ``/readyz`` (Redis, database, guardrail; 503 unless all pass),
  always, so every deployment has probes;
- the admin API (``/admin/*``), when ``VEILBOT_ADMIN_TOKENS`` is set;
- ``/metrics`` (Prometheus, ``bot.metrics``), always; keep it off the public ingress.

The audit retention (``VEILBOT_AUDIT_RETENTION_DAYS``; 0 turns it off) runs for the whole
life of the service: once at start, then daily; so does the purge of the runs of uninstalled
Slack workspaces and of Discord servers the bot was removed from, after
``VEILBOT_SLACK_UNINSTALL_GRACE_DAYS`` (``bot.audit.uninstalls``).

The turn queue's worker (``bot.state.queue``, on unless ``VEILBOT_QUEUE_ENABLED=false``) runs
beside the adapters when one of them registered with it (Slack, Discord): events acked (Slack)
or received (Discord) by any replica are answered by whichever replica's worker takes them.

Stopping (``serve`` with a stop event, set by SIGTERM/SIGINT in ``bot.cli.stopping``), one log
line per step: take no new events and let every ``Drainable`` (the platform adapters and the
queue worker, which leaves a thread's later entries to the other replicas) finish its work in
flight within ``VEILBOT_DRAIN_TIMEOUT_SECONDS``;
close the adapters and the HTTP server; flush the audit spool; then ``build_app`` stops the
rest (the embedded Redis last).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bot.app import App
from bot.audit.installations import SqlInstallationRows
from bot.audit.retention import DAY_SECONDS, retention_running
from bot.config.reload import reload_on_sighup
from bot.core.errors import AdapterError, VeilbotError
from bot.core.logsafe import describe, log_failure
from bot.core.ports import Drainable, PlatformAdapter
from bot.http_server import HttpServer
from bot.state.once import RedisOneTimeTokens
from bot.state.orgs import RedisOrgMembers
from bot.state.queue import RedisTurnQueue
from bot.stores import add_service_routes, erase_installation, erase_platform_workspace, key_ring
from guardrails.vault.keys import derive_install_key
from guardrails.vault.sealing import AesGcmSealer

if TYPE_CHECKING:
    from adapters.slack.oauth.flow import SlackOAuth
    from adapters.slack.oauth.installations import SealedInstallationStore

log = logging.getLogger(__name__)

# Platforms: name -> factory. ``veilbot run`` with no name runs every configured platform
# in one process; adapters are imported only when used.
PlatformFactory = Callable[[App, HttpServer | None], PlatformAdapter]


def _discord_adapter(app: App, http: HttpServer | None) -> PlatformAdapter:
    from adapters.discord.handler import DiscordAdapter
    from adapters.discord.notices import DiscordAdminNotifier

    async def erase(guild_id: str) -> int:  # the bot was removed from the server
        return await erase_platform_workspace(
            app.redis, app.keys, app.audit, "discord", guild_id, actor="discord:guild_remove"
        )

    adapter = DiscordAdapter(
        app.settings, app.conversation, admin=app.admin, queue=app.queue, erase=erase
    )
    admins, roles = app.admin.admins, app.admin.admin_roles
    notifier = DiscordAdminNotifier(lambda: adapter.client, admins, roles)
    app.conversation.budgets.add_notifier("discord", notifier)
    return adapter


def _slack_adapter(app: App, http: HttpServer | None) -> PlatformAdapter:
    from adapters.slack.handler import SlackAdapter
    from adapters.slack.notices import SlackAdminNotifier

    oauth = slack_oauth(app) if app.settings.slack_oauth else None
    adapter = SlackAdapter(
        app.settings, app.conversation, http, admin=app.admin, queue=app.queue, oauth=oauth
    )
    notifier = SlackAdminNotifier(adapter.client, app.admin.admins)
    app.conversation.budgets.add_notifier("slack", notifier)
    return adapter


def slack_oauth(app: App) -> SlackOAuth:
    """OAuth mode's stores: installations sealed in the audit database, states in Redis.

    The seal key is derived from the vault key (never the key itself); an uninstall erases the
    workspace at once through ``bot.stores.erase_installation`` (an org-wide install: every
    workspace it served).
    """
    from adapters.slack.oauth.flow import SlackOAuth
    from adapters.slack.oauth.state import SharedOAuthStateStore

    settings = app.settings
    rows = SqlInstallationRows(app.audit.engine)

    async def erase(enterprise_id: str | None, team_id: str) -> int:
        return await erase_installation(
            app.redis,
            app.keys,
            rows,
            app.audit,
            enterprise_id=enterprise_id,
            team_id=team_id,
            actor="slack:uninstall",
        )

    return SlackOAuth(
        installations=installation_store(app),
        states=SharedOAuthStateStore(RedisOneTimeTokens(app.redis, settings.redis_prefix)),
        erase=erase,
        members=RedisOrgMembers(app.redis, settings.redis_prefix),
    )


def installation_store(app: App) -> SealedInstallationStore:
    """Slack installations sealed in the audit database, with the key ring's installation keys."""
    from adapters.slack.oauth.installations import SealedInstallationStore

    rows = SqlInstallationRows(app.audit.engine)
    return SealedInstallationStore(
        rows, AesGcmSealer(key_ring(app.settings).derived(derive_install_key))
    )


PLATFORM_ADAPTERS: dict[str, PlatformFactory] = {
    "discord": _discord_adapter,
    "slack": _slack_adapter,
}
"""Each platform's adapter factory; ``bot.platforms`` checks their credentials first."""


def build_adapters(
    app: App, names: Sequence[str], http: HttpServer | None = None
) -> list[PlatformAdapter]:
    """One adapter per platform name, all calling the app's guarded turn and admin commands.

    Args:
        app: the built core.
        names: platform names from ``select_platforms``.
        http: the shared server (not started yet) for Slack's events endpoint; without one,
            Slack in ``http`` mode serves its own.
    """
    return [PLATFORM_ADAPTERS[n](app, http) for n in names]


async def run_adapters(adapters: Sequence[PlatformAdapter]) -> None:
    """Serve every adapter in this process; the first failure stops them all and is raised."""
    try:
        async with asyncio.TaskGroup() as group:
            for adapter in adapters:
                group.create_task(adapter.run(), name=f"veilbot-{adapter.name}")
    except ExceptionGroup as group_error:
        # One error, never a group: ``main`` prints a VeilbotError as one line. (Two
        # ``except*`` clauses that both raise would give a group again.)
        raise _first_failure(group_error) from None


def _first_failure(group: ExceptionGroup[Exception]) -> VeilbotError:
    """The error that says what to fix: the first veilbot error, else an SDK's as one line."""
    leaves = list(_leaves(group))
    for exc in leaves:
        if isinstance(exc, VeilbotError):
            return exc
    log_failure(log, "a platform adapter failed", leaves[0])
    return AdapterError(f"a platform adapter failed: {describe(leaves[0])}")


def _leaves(exc: BaseException) -> Iterator[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            yield from _leaves(inner)
    else:
        yield exc


def build_http(app: App, names: Sequence[str], draining: asyncio.Event | None = None) -> HttpServer:
    """The service's HTTP server (not started): probes and metrics always, admin with tokens.

    Args:
        app: the built core.
        names: platform names from ``select_platforms``.
        draining: set while the service drains: ``/readyz`` is then 503 with
            ``"serving": false``, so load balancers send new traffic elsewhere.
    """
    settings = app.settings
    if "slack" in names and settings.slack_mode == "http":
        http = HttpServer(settings.slack_http_host, settings.slack_http_port)
    else:
        http = HttpServer(settings.admin_http_host, settings.admin_http_port)

    async def readiness() -> dict[str, bool]:
        checks = await app.readiness()
        if draining is not None and draining.is_set():
            checks["serving"] = False
        return checks

    add_service_routes(
        http,
        settings,
        redis=app.redis,
        audit=app.audit,
        eraser=app.eraser,
        readiness=readiness,
        metrics=app.metrics,
        scopes=lambda: app.conversation.scopes,  # the running ones, after each reload
        ledger=app.ledger,
        timings=app.timings,
    )
    return http


_DRAIN_SLACK_SECONDS = 5.0
"""Beyond the drain timeout: time for the components to cancel what did not finish."""


@dataclass
class Service:
    """A running ``veilbot run``: its HTTP server and the task serving the adapters."""

    http: HttpServer
    adapters: list[PlatformAdapter]
    task: asyncio.Task[None]
    retention: asyncio.Task[None] | None
    drainables: list[Drainable]
    draining: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when the drain starts (``/readyz`` turns 503)."""

    async def wait(self) -> None:
        """Serve until cancelled; an adapter's failure is raised."""
        await self.task

    async def until(self, stop: asyncio.Event) -> None:
        """Serve until ``stop`` is set; an adapter's failure is raised."""
        stopped = asyncio.create_task(stop.wait(), name="veilbot-stop")
        try:
            await asyncio.wait({self.task, stopped}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopped.cancel()
        if self.task.done():
            self.task.result()

    async def drain(self, timeout: float) -> None:  # noqa: ASYNC109  (the shared contract)
        """Let every drainable finish its work in flight, within ``timeout`` seconds."""
        self.draining.set()
        log.info("shutdown: waiting up to %gs for the work in flight", timeout)
        began = time.monotonic()
        drains = [d.drain(timeout) for d in self.drainables]
        try:
            results = await asyncio.wait_for(
                asyncio.gather(*drains, return_exceptions=True), timeout + _DRAIN_SLACK_SECONDS
            )
        except TimeoutError:
            log.error("shutdown: the drain did not end in %gs; going on", timeout)
            return
        for result in results:
            if isinstance(result, Exception):
                log_failure(log, "shutdown: a drain failed", result)
        log.info("shutdown: work in flight done in %.1fs", time.monotonic() - began)


@contextmanager
def startup_frozen() -> Iterator[None]:
    """Keep what startup built out of the garbage collector's full passes while serving.

    The spaCy model, Presidio's recognizers and the SDKs are several hundred thousand objects
    that live as long as the process. A full (generation 2) collection walks every one of
    them: 100-200 ms with the event loop and every thread stopped, several times in a burst
    of events, each stalling every ack in flight. ``gc.freeze`` moves what exists now to a
    generation the collector skips; garbage made later is collected as before. On exit
    ``gc.unfreeze`` gives them back (tests start many services in one process).
    """
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


@asynccontextmanager
async def running(
    app: App,
    names: Sequence[str],
    *,
    retention_interval: float = DAY_SECONDS,
) -> AsyncIterator[Service]:
    """Start the HTTP server, the retention task and the adapters; stop them on exit.

    Args:
        app: the built core.
        names: platform names from ``select_platforms``.
        retention_interval: seconds between two retention purges.
    """
    if "slack" in names and app.settings.slack_oauth:
        await installation_store(app).check_opens()  # a wrong key is named before serving
    draining = asyncio.Event()
    http = build_http(app, names, draining)
    adapters = build_adapters(app, names, http)  # Slack adds its route before the start
    async with AsyncExitStack() as stack:
        await stack.enter_async_context(http)
        retention = await stack.enter_async_context(
            retention_running(
                app.audit,
                app.settings.audit_retention_days,
                interval_seconds=retention_interval,
                uninstall_grace_days=app.settings.slack_uninstall_grace_days,
            )
        )
        drainables: list[Drainable] = list(adapters)
        queue = app.queue
        if queue is not None:
            stack.push_async_callback(_stop_worker, queue, asyncio.create_task(queue.run()))
            drainables.append(queue)
        await stack.enter_async_context(reload_on_sighup(app))
        stack.enter_context(startup_frozen())
        task = asyncio.create_task(_while_warm(app, adapters), name="veilbot-adapters")
        try:
            log.info("veilbot serving %s; http on %s:%s", ",".join(names), http.host, http.port)
            yield Service(http, adapters, task, retention, drainables, draining)
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)


async def _while_warm(app: App, served: list[PlatformAdapter]) -> None:
    """Run the adapters while the guardrail warms up; its failure ends the service.

    The adapters connect, and the acks and the queue work, while the detection processes
    start (``App.warming``); a turn that comes meanwhile waits for them. If they cannot start,
    nothing can be answered: the service stops with the guardrail's error (fail closed).
    """
    adapters = asyncio.ensure_future(run_adapters(served))
    warming = app.warming
    try:
        if warming is not None:
            await asyncio.wait({adapters, warming}, return_when=asyncio.FIRST_COMPLETED)
            if not adapters.done():
                warming.result()  # raises when the guardrail cannot run
        await adapters
    finally:
        adapters.cancel()
        await asyncio.gather(adapters, return_exceptions=True)


async def _stop_worker(queue: RedisTurnQueue, worker: asyncio.Task[None]) -> None:
    """Stop the queue worker: by its event first (a cancellation can be lost in redis-py)."""
    queue.stop()
    _, late = await asyncio.wait([worker], timeout=_DRAIN_SLACK_SECONDS)
    for task in late:
        task.cancel()
    await asyncio.gather(worker, return_exceptions=True)


async def serve(
    app: App,
    names: Sequence[str],
    stop: asyncio.Event | None = None,
    *,
    started: Callable[[], None] | None = None,
) -> None:
    """``veilbot run``: serve the platforms, HTTP endpoints and retention.

    Args:
        app: the built core.
        names: platform names from ``select_platforms``.
        stop: set to stop: the service drains (see the module docstring) and returns;
            without one it serves until cancelled.
        started: called once everything serves.
    """
    async with running(app, names) as service:
        if started is not None:
            started()
        if stop is None:
            await service.wait()
            return
        await service.until(stop)
        await service.drain(app.settings.drain_timeout_seconds)
    log.info("shutdown: platforms and http server closed")
    await app.audit.flush()
