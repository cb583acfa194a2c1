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

from bot.audit import SqlAuditStore, sqlite_url
from bot.conversation import Conversation
from bot.dedupe import RedisEventDedupe
from bot.embedded_redis import EmbeddedRedis
from bot.history import RedisHistoryStore
from bot.keys import KeySpace
from bot.locks import RedisThreadLocks
from bot.model import AnthropicModelClient, EchoModelClient, build_system_prompt
from bot.ports import ModelClient
from bot.redis_client import open_redis
from bot.settings import Settings
from guardrails.engine import build_analyzer, resolve_model
from guardrails.policy import load_policy
from guardrails.presidio import PresidioGuardrail
from guardrails.vault import RedisVault
from guardrails.vaultkey import load_vault_key

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
    notices: list[str] = field(default_factory=list)


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


async def _guardrail(settings: Settings, vault: RedisVault) -> PresidioGuardrail:
    policy = load_policy(settings.guardrail_policy_file)
    model = await asyncio.to_thread(resolve_model, settings.spacy_model)
    analyzer = await asyncio.to_thread(_analyzer, model)
    guardrail = PresidioGuardrail(
        analyzer, vault, policy=policy, chunk_chars=settings.guardrail_chunk_chars
    )
    await guardrail.warm_up()
    return guardrail


@asynccontextmanager
async def build_app(settings: Settings) -> AsyncIterator[App]:
    """Start every component; stop them in reverse order on exit."""
    settings.data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    async with AsyncExitStack() as stack:
        client = await _redis(settings, stack)
        keys = KeySpace(settings.redis_prefix)
        audit = SqlAuditStore(
            settings.database_url or sqlite_url(settings.data_dir),
            spool_path=settings.data_dir / "audit-spool.jsonl",
            timeout=settings.store_timeout_seconds,
        )
        await stack.enter_async_context(audit)
        vault = RedisVault(
            client,
            keys,
            key=load_vault_key(settings.vault_key, settings.data_dir),
            ttl_seconds=settings.history_ttl_seconds,
        )
        guardrail = await _guardrail(settings, vault)
        model = build_model(settings)
        if hasattr(model, "aclose"):
            stack.push_async_callback(model.aclose)
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
        )
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
            notices,
        )
