"""End-to-end fixtures: the real composition root on real Redis, SQL and Presidio."""

from __future__ import annotations

import logging
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import create_async_engine

from bot.app import App, build_app
from bot.audit.schema import metadata
from bot.config.settings import Settings
from bot.core.conversation import Conversation
from bot.core.logsafe import NOISY_LOGGERS, SQL_LOGGERS, configure_logging
from bot.core.types import InboundMessage, thread_id
from tests.e2e.discord_harness import fake_discord, start_bot  # noqa: F401  (fixtures)
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fixtures.guardrail import TEST_VAULT_KEY_B64

MakeApp = Callable[..., Awaitable[App]]
MakeProviderApp = Callable[..., Awaitable[App]]


@pytest.fixture
def debug_logs(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    """Every log line at DEBUG, with the service's own logging set up as ``--log-level DEBUG``.

    The logging configuration is put back afterwards, so later tests do not run at DEBUG.
    """
    root = logging.getLogger()
    names = (*NOISY_LOGGERS, *SQL_LOGGERS, "presidio-analyzer", "pypdf")
    level, levels = root.level, {n: logging.getLogger(n).level for n in names}
    before = set(root.handlers)
    # caplog first: at teardown it puts back the root level it found, which must not be DEBUG
    caplog.set_level(logging.DEBUG)
    configure_logging("DEBUG")
    added = [h for h in root.handlers if h not in before]
    try:
        yield caplog
    finally:
        root.setLevel(level)
        for handler in added:
            root.removeHandler(handler)
        for name, value in levels.items():
            logging.getLogger(name).setLevel(value)


def settings_for(
    data_dir: Path, redis_url: str, prefix: str, model_url: str, **overrides: Any
) -> Settings:
    """Settings for a test app: real services, the fake model, no retries."""
    values: dict[str, Any] = {
        "data_dir": data_dir,
        "redis_url": redis_url,
        "redis_prefix": prefix,
        "vault_key": TEST_VAULT_KEY_B64,
        "anthropic_api_key": "test-key",
        "anthropic_base_url": model_url,
        "model_max_retries": 0,
        "model_timeout_seconds": 10,
        "store_timeout_seconds": 1.0,
        "lock_wait_seconds": 10,
        "guardrail_workers": 0,  # detection in a thread: no model loaded per test
        "admin_http_port": 0,  # a free port: suites side by side never share 8081
    }
    values.update(overrides)
    return Settings(**values)


@pytest.fixture
async def make_app(
    tmp_path: Path, redis_url: str, redis_prefix: str, fake_anthropic: FakeAnthropic
) -> AsyncIterator[MakeApp]:
    """Build apps with ``build_app``; all are closed after the test."""
    async with AsyncExitStack() as stack:

        async def make(**overrides: Any) -> App:
            overrides.setdefault("redis_url", redis_url)
            settings = settings_for(
                tmp_path / "data",
                overrides.pop("redis_url"),
                redis_prefix,
                fake_anthropic.url,
                **overrides,
            )
            return await stack.enter_async_context(build_app(settings))

        yield make


@pytest.fixture
async def make_provider_app(
    tmp_path: Path, redis_url: str, redis_prefix: str
) -> AsyncIterator[MakeProviderApp]:
    """Build apps for a provider's settings (``tests.fixtures.providers``); closed after."""
    async with AsyncExitStack() as stack:

        async def make(settings: dict[str, Any], **overrides: Any) -> App:
            values = {**settings, **overrides}
            built = settings_for(tmp_path / "data", redis_url, redis_prefix, "", **values)
            return await stack.enter_async_context(build_app(built))

        yield make


def message(
    text: str, thread: str, *, event_id: str | None = None, private: bool = False
) -> InboundMessage:
    """A console message in ``thread``."""
    return InboundMessage(
        thread_id=thread_id("console", thread),
        platform="console",
        workspace="local",
        channel=thread,
        user_id="U-tester",
        message_id=uuid.uuid4().hex,
        text=text,
        event_id=event_id,
        private=private,
    )


def unique_thread() -> str:
    """A thread name no other test uses (tests share the PostgreSQL database)."""
    return f"t-{uuid.uuid4().hex[:10]}"


async def audit_rows(app: App, thread: str) -> list[dict[str, Any]]:
    """Every audit row of one thread, oldest first, read with plain SQL.

    ``thread``: a console thread's name, or a whole thread id (``slack:T1:C1:…``).
    """
    url = app.settings.database_url or f"sqlite+aiosqlite:///{app.settings.data_dir / 'audit.db'}"
    engine = create_async_engine(url)
    try:
        async with engine.connect() as conn:
            result = await conn.execute(
                sa.text("SELECT * FROM audit_runs WHERE thread_id = :t ORDER BY started_at"),
                {"t": thread if thread.startswith(("slack:", "discord:")) else f"console:{thread}"},
            )
            return [dict(row._mapping) for row in result]
    finally:
        await engine.dispose()


async def audit_dump(app: App) -> str:
    """Every row of every audit table as one string, for PII scans."""
    url = app.settings.database_url or f"sqlite+aiosqlite:///{app.settings.data_dir / 'audit.db'}"
    engine = create_async_engine(url)
    parts: list[str] = []
    try:
        async with engine.connect() as conn:
            for table in metadata.sorted_tables:
                rows = await conn.execute(sa.select(table))
                parts += [str(value) for row in rows for value in row]
    finally:
        await engine.dispose()
    return "\n".join(parts)


def conversation_with(app: App, guardrail: Any, tools: Any = None) -> Conversation:
    """The app's turn, but guarded by ``guardrail`` (to inject a guardrail failure)."""
    return Conversation(
        tools=tools,
        guardrail=guardrail,
        history=app.history,
        model=app.model,
        audit=app.audit,
        locks=app.locks,
        dedupe=app.dedupe,
        system_prompt="s",
        window_tokens=1000,
        max_input_chars=1000,
    )


class CrashingAnalyzer:
    """A Presidio analyzer whose NLP pipeline is broken: the guardrail must fail closed."""

    def __init__(self, real: Any) -> None:
        self._real = real

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def analyze(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("spaCy pipeline crashed")
