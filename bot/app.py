"""The composition root: builds the running veilbot from ``Settings``.

``build_app`` opens the stores (``bot.stores``), then adds the guardrail, the model and the
turn around them. With ``bot.stores`` this is the only place that picks a concrete backend.
``build_app`` is an async context manager that cleans up whatever it started, also when
start-up fails halfway.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bot.admin.budgets import BudgetAdmin
from bot.admin.commands import AdminService, parse_admins, parse_roles
from bot.audit.erasure import Eraser
from bot.audit.store import SqlAuditStore
from bot.config.scopes import build_scopes
from bot.config.settings import Settings
from bot.core.access import AccessRules
from bot.core.conversation import Conversation
from bot.core.errors import ConfigError
from bot.core.keys import KeySpace
from bot.core.limits import Limit
from bot.core.ports import ModelClient, TurnLimiter
from bot.files.limits import FileLimits
from bot.files.reader import FilesReader
from bot.metrics import PrometheusMetrics
from bot.model.build import build_model, check_model
from bot.model.prompt import build_system_prompt
from bot.model.router import ModelRouter
from bot.state.budgets import RedisSpendLedger
from bot.state.client import RedisClient
from bot.state.dedupe import RedisEventDedupe
from bot.state.history import RedisHistoryStore
from bot.state.locks import RedisThreadLocks
from bot.state.queue import RedisTurnQueue
from bot.state.ratelimit import RedisRateLimiter
from bot.stores import budgets, check_ready, key_ring, open_stores, rebuild_budgets
from guardrails.detect.workers import ProcessDetector
from guardrails.engine import build_analyzer, resolve_model
from guardrails.policy import Policy, load_policy
from guardrails.presidio import PresidioGuardrail
from guardrails.redact import Redactor
from guardrails.restore.reveal import RevealPolicy
from guardrails.rules.ocr import as_printed
from guardrails.vault.fork import RedisVaultCopier
from guardrails.vault.keys import KeyRing, derive_queue_key
from guardrails.vault.rotation import check_keys
from guardrails.vault.sealing import AesGcmSealer
from guardrails.vault.store import RedisVault

if TYPE_CHECKING:
    from bot.tools.mcp_servers import McpToolBox

log = logging.getLogger(__name__)

ECHO_NOTICE = (
    "No model provider configured (ANTHROPIC_API_KEY, or VEILBOT_MODEL_PROVIDER=bedrock, "
    "vertex or openai with its settings): answering with the offline echo model."
)
ECHO_CHOSEN_NOTICE = (
    "Answering with the offline echo model (VEILBOT_MODEL_PROVIDER=echo): it repeats each "
    "message back; no model is called."
)


@dataclass
class App:
    """Everything a running veilbot needs; built by ``build_app``."""

    settings: Settings
    conversation: Conversation
    redis: RedisClient
    keys: KeySpace
    audit: SqlAuditStore
    guardrail: PresidioGuardrail
    vault: RedisVault
    history: RedisHistoryStore
    locks: RedisThreadLocks
    dedupe: RedisEventDedupe
    model: ModelClient
    admin: AdminService
    eraser: Eraser
    ledger: RedisSpendLedger
    notices: list[str] = field(default_factory=list)
    metrics: PrometheusMetrics = field(default_factory=PrometheusMetrics)
    queue: RedisTurnQueue | None = None
    """The turn queue ``veilbot run`` acks platform events into (``VEILBOT_QUEUE_ENABLED``);
    the console does not use it."""
    warming: asyncio.Task[float] | None = None
    """The detection processes starting and warming up (their seconds), while the adapters
    connect (``build_app(warm_in_background=True)``); ``None``: warm when built."""
    built_in: float = 0.0
    """Seconds ``build_app`` took to hand the app over (the guardrail's warm-up aside, when
    it runs in the background)."""

    def admin_budgets(self) -> BudgetAdmin:
        """Show and change the budgets (CLI, admin console)."""
        return BudgetAdmin(self.ledger, self.audit)

    def timings(self) -> dict[str, float]:
        """Start-up seconds ``/readyz`` reports: building the app, and warming the guardrail."""
        found = {"build_seconds": self.built_in}
        if self.warming is not None and self.warming.done() and not self.warming.cancelled():
            if self.warming.exception() is None:
                found["guardrail_warm_seconds"] = self.warming.result()
        return found

    async def readiness(self) -> dict[str, bool]:
        """The ``/readyz`` checks: Redis and the database answer, and the guardrail works.

        The guardrail check passes when its last analysis worked or a tiny one works now,
        within a few seconds.
        """
        checks = await check_ready(self.redis, self.audit)
        warming = self.warming
        warm = warming is None or (
            warming.done() and not warming.cancelled() and warming.exception() is None
        )
        checks["guardrail"] = warm and await self.guardrail.check(within_seconds=5.0)
        return checks


_analyzer = functools.cache(build_analyzer)
"""One analyzer per process and model: it is large, read-only once built, and slow to build."""


async def _guardrail(
    settings: Settings, vault: RedisVault, stack: AsyncExitStack, *, background: bool
) -> tuple[PresidioGuardrail, ProcessDetector | None, asyncio.Task[float] | None]:
    """The guardrail and its detection processes (none with ``VEILBOT_GUARDRAIL_WORKERS=0``).

    With ``background``, also the task that starts and warms them up; else that is done here.
    """
    model = await asyncio.to_thread(resolve_model, settings.spacy_model)
    analyzer, detector = None, None
    if settings.guardrail_workers >= 1:
        detector = ProcessDetector(
            model,
            settings.guardrail_policy_file,
            settings.guardrail_chunk_chars,
            settings.guardrail_workers,
        )
        stack.push_async_callback(detector.close)
    else:
        analyzer = await asyncio.to_thread(_analyzer, model)
    guardrail = PresidioGuardrail(
        analyzer,
        vault,
        policy=_policy(settings),
        reveal=RevealPolicy(settings.reveal_policy),
        chunk_chars=settings.guardrail_chunk_chars,
        detector=detector,
    )
    warming = asyncio.create_task(_warm(guardrail, detector), name="veilbot-guardrail-warm")
    stack.push_async_callback(_cancelled, warming)
    if not background or detector is None:
        await warming
        return guardrail, detector, None
    return guardrail, detector, warming


async def _warm(guardrail: PresidioGuardrail, detector: ProcessDetector | None) -> float:
    """Start the detection processes and run a first analysis; the seconds it took."""
    started = time.monotonic()
    if detector is not None:
        await detector.start()
    await guardrail.warm_up()
    seconds = time.monotonic() - started
    log.info("guardrail warm in %.1f s", seconds)
    return seconds


async def _cancelled(task: asyncio.Task[float]) -> None:
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


def _policy(settings: Settings) -> Policy:
    """The detection policy: ``VEILBOT_GUARDRAIL_POLICY_FILE``, else the shipped default."""
    return load_policy(settings.guardrail_policy_file)


def build_redactor(settings: Settings, language: str = "en") -> Redactor:
    """The stateless redactor of ``veilbot redact``: the guardrail's own detection, no Redis.

    ``language``: the language the texts are read in (its entity model and rules; English
    patterns and rules run in every language).

    Raises:
        GuardrailError: the spaCy model is missing or the analyzer cannot be built.
        ConfigError: the policy file is unreadable or invalid.
    """
    from guardrails.detect.detection import detect, detect_many  # the rules: not for `run`

    analyzer = _analyzer(resolve_model(settings.spacy_model))
    policy, chunk = _policy(settings), settings.guardrail_chunk_chars
    if language != "en":
        policy = dataclasses.replace(policy, language=language)
    return Redactor(
        functools.partial(detect, analyzer, policy=policy, chunk_chars=chunk),
        as_printed,
        many=functools.partial(detect_many, analyzer, policy=policy, chunk_chars=chunk),
    )


class Redactors:
    """``veilbot redact``'s redactor for each text: of the language it is written in.

    ``languages``: those the texts may be written in besides English (``--languages``);
    each text (a message, or a file's texts together) is identified among them as a
    scope's messages are (``guardrails.text.language``). Each language's redactor is built
    once, on the analyzer they share.
    """

    def __init__(self, settings: Settings, languages: Sequence[str] = ()) -> None:
        self._settings = settings
        self._languages = tuple(languages)
        self._built: dict[str, Redactor] = {}

    def of(self, text: str) -> Redactor:
        """The redactor for ``text``'s language (English's without ``languages``)."""
        language = "en"
        if self._languages:
            from guardrails.text.language import identify

            language = identify(text, self._languages)
        if (redactor := self._built.get(language)) is None:
            redactor = self._built[language] = build_redactor(self._settings, language)
        return redactor


def access_rules(settings: Settings) -> AccessRules:
    """The core's access rules from ``[access]``: Slack groups and Discord roles are one list."""
    a = settings.access
    return AccessRules(
        allow_users=frozenset(a.allow_users),
        deny_users=frozenset(a.deny_users),
        allow_channels=frozenset(a.allow_channels),
        deny_channels=frozenset(a.deny_channels),
        allow_groups=frozenset(a.allow_slack_groups + a.allow_discord_roles),
        deny_groups=frozenset(a.deny_slack_groups + a.deny_discord_roles),
        allow_dms=a.allow_dms,
    )


def rate_limits(settings: Settings) -> list[Limit]:
    """The configured ``[rate_limits]``, the person's first."""
    configured = (("user", settings.rate_limits.user), ("channel", settings.rate_limits.channel))
    return [Limit(kind, lim.turns, lim.per_seconds) for kind, lim in configured if lim]


def build_limiter(
    settings: Settings,
    redis: RedisClient,
    keys: KeySpace,
    ledger: RedisSpendLedger | None = None,
) -> TurnLimiter | None:
    """The turn limiter of ``[rate_limits]`` and ``[budgets]``; none without either.

    Without either a turn makes no Redis call for its checks.
    """
    limits = rate_limits(settings)
    budgeted = ledger if settings.budgets.any else None
    if not limits and budgeted is None:
        return None
    return RedisRateLimiter(redis, keys, limits, budgeted)


def build_router(settings: Settings, own: ModelClient) -> ModelRouter:
    """The service's model, and the other providers' the scopes name (built as they appear)."""

    def other(provider: str) -> ModelClient:
        keep = settings.model if provider == "openai" else None  # openai has no default model
        update = {"model_provider": provider, "model": keep}
        try:
            return build_model(settings.model_copy(update=update))
        except ConfigError as exc:
            raise ConfigError(f"scopes: provider {provider} cannot be used: {exc}") from None

    return ModelRouter(own, settings.provider, other)


def build_admin(
    settings: Settings, audit: SqlAuditStore, ledger: RedisSpendLedger | None = None
) -> AdminService:
    """The admin chat commands service (``AdminCommands``)."""
    return AdminService(
        audit,
        admins=parse_admins(settings.admin_users),
        admin_roles=parse_roles(settings.admin_discord_roles),
        max_rows=settings.admin_chat_export_max_rows,
        budgets=BudgetAdmin(ledger, audit) if ledger is not None else None,
        per_workspace=settings.slack_oauth,
    )


def build_queue(
    settings: Settings,
    client: RedisClient,
    keys: KeySpace,
    ring: KeyRing,
    metrics: PrometheusMetrics,
    detector: ProcessDetector | None = None,
) -> RedisTurnQueue | None:
    """The turn queue (``VEILBOT_QUEUE_*``), or ``None`` when turned off.

    ``detector``: detection processes to pause while this process acks a burst.
    """
    if not settings.queue_enabled:
        return None
    return RedisTurnQueue(
        client,
        keys,
        sealer=AesGcmSealer(ring.derived(derive_queue_key)),
        consumer=settings.replica_id,
        claim_idle_seconds=settings.queue_claim_idle_seconds,
        workers=settings.queue_workers,
        dedupe_ttl_seconds=settings.dedupe_ttl_seconds,
        # one read waits at most half the client's reply timeout
        block_seconds=min(1.0, settings.store_timeout_seconds / 2),
        acks_first_seconds=settings.queue_acks_first_seconds,
        yielding=[detector] if detector is not None else [],
        metrics=metrics,
        shards=settings.queue_shards,
    )


def build_tools(settings: Settings) -> McpToolBox | None:
    """The MCP servers of ``[tools]``, or ``None`` when none is configured.

    The ``mcp`` SDK is imported only then: it is a second or so of start-up.
    """
    if not settings.tools.servers:
        return None
    from bot.tools.mcp_servers import McpToolBox  # noqa: PLC0415

    return McpToolBox(settings.tools)


@asynccontextmanager
async def build_app(settings: Settings, *, warm_in_background: bool = False) -> AsyncIterator[App]:
    """Start every component; stop them in reverse order on exit.

    The model comes first: wrong credentials fail in a second, before spaCy loads.
    ``warm_in_background``: the detection processes start and warm up while the caller goes
    on (``App.warming``; ``/readyz`` says not ready until they are): ``veilbot run`` connects
    its adapters meanwhile, and acks and queues what arrives.
    """
    started = time.monotonic()
    async with AsyncExitStack() as stack:
        own_model = build_model(settings)
        stack.push_async_callback(own_model.aclose)
        chosen = settings.model_provider == "echo"
        notices = [ECHO_CHOSEN_NOTICE if chosen else ECHO_NOTICE] if settings.use_echo_model else []
        notices += await check_model(own_model, settings)
        scopes = build_scopes(settings)
        model = build_router(settings, own_model)
        model.ensure(scopes.providers)
        stack.push_async_callback(model.aclose_others)
        metrics = PrometheusMetrics()
        stores = await open_stores(settings, stack, spool=True, metrics=metrics)
        client, keys, audit = stores.redis, stores.keys, stores.audit
        history, locks = stores.history, stores.locks
        ring = key_ring(settings)
        vault = RedisVault(client, keys, key=ring, ttl_seconds=settings.history_ttl_seconds)
        await check_keys(vault, keys)  # before the guardrail loads: a wrong key fails at once
        guardrail, detector, warming = await _guardrail(
            settings, vault, stack, background=warm_in_background
        )
        metrics.watch_spool(lambda: audit.spool_depth)
        dedupe = RedisEventDedupe(
            client, keys, ttl_seconds=settings.dedupe_ttl_seconds, metrics=metrics
        )
        ledger = RedisSpendLedger(client, keys, budgets(settings))
        if settings.budgets.any and await ledger.claim_rebuild():
            await rebuild_budgets(ledger, audit)
        tools = build_tools(settings)
        if tools is not None:
            stack.push_async_callback(tools.aclose)
        conversation = Conversation(
            guardrail=guardrail,
            history=history,
            model=model,
            audit=audit,
            locks=locks,
            dedupe=dedupe,
            system_prompt=build_system_prompt(settings.system_prompt_extra),
            window_tokens=settings.context_budget_tokens,
            max_input_chars=settings.max_input_chars,
            metrics=metrics,
            max_in_flight=settings.max_turns_in_flight,
            access=access_rules(settings),
            limiter=build_limiter(settings, client, keys, ledger),
            scopes=scopes,
            ledger=ledger if settings.budgets.any else None,
            files=FilesReader(
                guardrail, FileLimits.of(settings), tesseract=settings.files_tesseract
            ),
            vault_copier=RedisVaultCopier(vault),
            tools=tools,
        )
        yield App(
            settings,
            conversation,
            client,
            keys,
            audit,
            guardrail,
            vault,
            history,
            locks,
            dedupe,
            model,
            admin=build_admin(settings, audit, ledger),
            eraser=stores.eraser,
            ledger=ledger,
            notices=notices,
            metrics=metrics,
            queue=build_queue(settings, client, keys, ring, metrics, detector),
            warming=warming,
            built_in=time.monotonic() - started,
        )
