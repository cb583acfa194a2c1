"""The one composition root: builds every component from ``Settings``.

Nothing else in veilbot picks a concrete backend. ``build_app`` is an async context manager
that cleans up whatever it started, also when start-up fails halfway.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field

import redis.asyncio as aioredis

from bot.admin.auth import AdminTokens
from bot.admin.commands import AdminService, parse_admins, parse_roles
from bot.audit.erasure import Eraser
from bot.audit.store import SqlAuditStore, sqlite_url
from bot.core.conversation import Conversation
from bot.core.keys import KeySpace
from bot.core.ports import ModelClient
from bot.model.claude import AnthropicModelClient
from bot.model.echo import EchoModelClient
from bot.model.prompt import build_system_prompt
from bot.settings import Settings
from bot.state.client import open_redis
from bot.state.dedupe import RedisEventDedupe
from bot.state.embedded import EmbeddedRedis
from bot.state.history import RedisHistoryStore
from bot.state.locks import RedisThreadLocks
from guardrails.engine import build_analyzer, resolve_model
from guardrails.policy import Policy, load_policy
from guardrails.presidio import PresidioGuardrail, detect
from guardrails.redact import Redactor
from guardrails.reveal import RevealPolicy
from guardrails.vault import RedisVault
from guardrails.vaultkey import derive_pseudonym_key, load_vault_key
from guardrails.workers import ProcessDetector

log = logging.getLogger(__name__)

NOISY_LOGGERS = (
    "slack_sdk",
    "slack_bolt",
    "discord",
    "httpx",
    "httpx2",
    "httpcore",
    "httpcore2",
    "anthropic",
    "aiohttp.access",
    "asyncio",
    "presidio-analyzer",
)
ECHO_NOTICE = (
    "No Anthropic API key set (ANTHROPIC_API_KEY or VEILBOT_ANTHROPIC_API_KEY): "
    "answering with the offline echo model."
)


@dataclass
class App:
    """Everything a running veilbot needs; built by ``build_app``."""

    settings: Settings
    conversation: Conversation
    redis: aioredis.Redis
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
    notices: list[str] = field(default_factory=list)

    async def readiness(self) -> dict[str, bool]:
        """The ``/readyz`` checks: Redis answers, the database answers, the guardrail is built."""
        return await check_ready(self.redis, self.audit, guardrail=self.guardrail)


@dataclass
class Stores:
    """The stores alone, without the guardrail or the model: ``veilbot forget``, admin tools."""

    settings: Settings
    redis: aioredis.Redis
    keys: KeySpace
    audit: SqlAuditStore
    history: RedisHistoryStore
    locks: RedisThreadLocks
    eraser: Eraser

    async def readiness(self) -> dict[str, bool]:
        """Redis and the database answer (no guardrail is loaded in this process)."""
        return await check_ready(self.redis, self.audit)


def configure_logging(level: str) -> None:
    """Root logging at ``level``; SDK loggers never below INFO (at DEBUG they log bodies)."""
    logging.basicConfig(
        level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s", force=True
    )
    for name in NOISY_LOGGERS:
        logging.getLogger(name).setLevel(max(logging.INFO, logging.getLevelName(level)))
    logging.getLogger("presidio-analyzer").setLevel(logging.ERROR)


def build_model(settings: Settings) -> ModelClient:
    """The Anthropic client, or the offline echo model when no key is set."""
    if settings.use_echo_model:
        return EchoModelClient()
    assert settings.anthropic_api_key is not None  # noqa: S101  (use_echo_model checked it)
    return AnthropicModelClient(
        settings.anthropic_api_key.get_secret_value(),
        model=settings.model,
        base_url=settings.anthropic_base_url,
        max_tokens=settings.max_tokens,
        temperature=settings.temperature,
        timeout=settings.model_timeout_seconds,
        max_retries=settings.model_max_retries,
    )


async def _redis(settings: Settings, stack: AsyncExitStack) -> aioredis.Redis:
    url = settings.redis_url
    if url is None:
        url = (await stack.enter_async_context(EmbeddedRedis(settings.data_dir))).url
    client = open_redis(url, timeout=settings.store_timeout_seconds)
    stack.push_async_callback(client.aclose)
    return client


_analyzer = functools.cache(build_analyzer)
"""One analyzer per process and model: it is large, read-only once built, and slow to build."""


async def _guardrail(
    settings: Settings, vault: RedisVault, stack: AsyncExitStack
) -> PresidioGuardrail:
    model = await asyncio.to_thread(resolve_model, settings.spacy_model)
    analyzer, detector = None, None
    if settings.guardrail_workers > 1:
        detector = ProcessDetector(
            model,
            settings.guardrail_policy_file,
            settings.guardrail_chunk_chars,
            settings.guardrail_workers,
        )
        stack.push_async_callback(detector.close)
        await detector.start()
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
    await guardrail.warm_up()
    return guardrail


def _policy(settings: Settings) -> Policy:
    """The detection policy: ``VEILBOT_GUARDRAIL_POLICY_FILE``, else the shipped default."""
    return load_policy(settings.guardrail_policy_file)


def build_redactor(settings: Settings) -> Redactor:
    """The stateless redactor of ``veilbot redact``: the guardrail's own detection, no Redis.

    Raises:
        GuardrailError: the spaCy model is missing or the analyzer cannot be built.
        ConfigError: the policy file is unreadable or invalid.
    """
    analyzer = _analyzer(resolve_model(settings.spacy_model))
    policy, chunk = _policy(settings), settings.guardrail_chunk_chars
    return Redactor(
        lambda text, platform: detect(analyzer, text, platform, policy, chunk_chars=chunk)
    )


async def check_ready(
    redis: aioredis.Redis, audit: SqlAuditStore, *, guardrail: PresidioGuardrail | None = None
) -> dict[str, bool]:
    """Named readiness checks; ``guardrail`` is included when a guardrail is given.

    Each check is live: Redis answers PING, the database answers a query, and the guardrail's
    last analysis worked (or a tiny one works now), each within a few seconds.
    """
    checks = {"redis": await _redis_answers(redis), "database": await audit.ping()}
    if guardrail is not None:
        checks["guardrail"] = await guardrail.check(within_seconds=5.0)
    return checks


async def _redis_answers(redis: aioredis.Redis) -> bool:
    try:
        return bool(await asyncio.wait_for(redis.ping(), timeout=2))
    except (aioredis.RedisError, OSError, TimeoutError):
        return False


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


def build_admin(settings: Settings, audit: SqlAuditStore) -> AdminService:
    """The admin chat commands service (``AdminCommands``)."""
    return AdminService(
        audit,
        admins=parse_admins(settings.admin_users),
        admin_roles=parse_roles(settings.admin_discord_roles),
        max_rows=settings.admin_chat_export_max_rows,
    )


def build_admin_tokens(settings: Settings) -> AdminTokens:
    """The HTTP admin API's accepted tokens (hashes and scopes)."""
    return AdminTokens.parse(settings.admin_tokens)


def _eraser(
    settings: Settings, audit: SqlAuditStore, history: RedisHistoryStore, locks: RedisThreadLocks
) -> Eraser:
    key = None
    if settings.forget_keeps_audit_rows:
        key = derive_pseudonym_key(load_vault_key(settings.vault_key, settings.data_dir))
    return Eraser(audit, history, locks, pseudonym_key=key)


def _history_and_locks(
    settings: Settings, client: aioredis.Redis, keys: KeySpace
) -> tuple[RedisHistoryStore, RedisThreadLocks]:
    history = RedisHistoryStore(
        client,
        keys,
        ttl_seconds=settings.history_ttl_seconds,
        max_messages=settings.history_max_messages,
    )
    locks = RedisThreadLocks(
        client, keys, ttl_seconds=settings.lock_ttl_seconds, wait_seconds=settings.lock_wait_seconds
    )
    return history, locks


async def _open_stores(settings: Settings, stack: AsyncExitStack, *, spool: bool) -> Stores:
    """Redis (embedded when no URL is set), the key space, the audit store, history, locks."""
    settings.data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    client = await _redis(settings, stack)
    keys = KeySpace(settings.redis_prefix)
    audit = await stack.enter_async_context(_audit_store(settings, spool=spool))
    history, locks = _history_and_locks(settings, client, keys)
    eraser = _eraser(settings, audit, history, locks)
    return Stores(settings, client, keys, audit, history, locks, eraser)


@asynccontextmanager
async def build_stores(settings: Settings) -> AsyncIterator[Stores]:
    """Redis and the audit store, without the guardrail or the model (no spaCy load)."""
    async with AsyncExitStack() as stack:
        yield await _open_stores(settings, stack, spool=False)


@asynccontextmanager
async def build_app(settings: Settings) -> AsyncIterator[App]:
    """Start every component; stop them in reverse order on exit."""
    async with AsyncExitStack() as stack:
        stores = await _open_stores(settings, stack, spool=True)
        client, keys, audit = stores.redis, stores.keys, stores.audit
        history, locks = stores.history, stores.locks
        vault = RedisVault(
            client,
            keys,
            key=load_vault_key(settings.vault_key, settings.data_dir),
            ttl_seconds=settings.history_ttl_seconds,
        )
        guardrail = await _guardrail(settings, vault, stack)
        model = build_model(settings)
        if hasattr(model, "aclose"):
            stack.push_async_callback(model.aclose)
        dedupe = RedisEventDedupe(client, keys, ttl_seconds=settings.dedupe_ttl_seconds)
        conversation = Conversation(
            guardrail=guardrail,
            history=history,
            model=model,
            audit=audit,
            locks=locks,
            dedupe=dedupe,
            system_prompt=build_system_prompt(settings.system_prompt_extra),
            budget_tokens=settings.context_budget_tokens,
            max_input_chars=settings.max_input_chars,
        )
        notices = [ECHO_NOTICE] if settings.use_echo_model else []
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
            admin=build_admin(settings, audit),
            eraser=stores.eraser,
            notices=notices,
        )
