"""No raw user text in logs, even at DEBUG, on the happy path and on every failure path."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from bot.core.errors import FileRejected
from bot.core.logsafe import describe, log_failure
from bot.core.types import TurnStatus
from bot.files.extract import extract
from bot.files.limits import FileLimits
from guardrails.presidio import PresidioGuardrail
from tests.e2e.conftest import MakeApp, conversation_with, message, unique_thread
from tests.e2e.test_guarded_turn import SEEDED, TURNS, leaked
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fixtures.documents import SEEDED as DOCUMENT_SEEDED
from tests.fixtures.documents import seeded_pdf


class _Leaky(Exception):
    """A third-party error that quotes its input, as JSON decoders and SDKs do."""


class _AnalyzerQuotingItsInput:
    def __init__(self, real: Any) -> None:
        self._real = real

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def analyze(self, text: str, *args: Any, **kwargs: Any) -> Any:
        raise _Leaky(f"cannot parse {text!r}")


async def test_turns_at_debug_level_log_no_personal_data(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, debug_logs: pytest.LogCaptureFixture
) -> None:
    app = await make_app()
    thread = unique_thread()
    for text in TURNS:
        await app.conversation.handle(message(text, thread))
    fake_anthropic.fail(529, "overloaded_error", times=3)
    await app.conversation.handle(message(TURNS[0], thread))

    assert "turn run=" in debug_logs.text  # the turns were logged...
    assert leaked(SEEDED, debug_logs.text) == []  # ...by ids and counts only


async def test_an_exception_quoting_user_text_is_logged_without_it(
    make_app: MakeApp, presidio_analyzer: Any, debug_logs: pytest.LogCaptureFixture
) -> None:
    app = await make_app()
    guardrail = PresidioGuardrail(_AnalyzerQuotingItsInput(presidio_analyzer), app.vault)
    conversation = conversation_with(app, guardrail)
    reply = await conversation.handle(message(TURNS[1], unique_thread()))

    assert reply is not None
    assert reply.status is TurnStatus.GUARDRAIL_ERROR
    assert leaked(SEEDED, debug_logs.text) == []


def test_a_damaged_pdf_read_at_debug_level_logs_nothing_of_it(
    debug_logs: pytest.LogCaptureFixture,
) -> None:
    """pypdf warns about each malformed object it repairs, quoting the object; none is logged."""
    data = seeded_pdf()
    repaired = data.replace(b"/Length", b"/Lngth")  # streams without a length: pypdf repairs
    assert "Customer record" in extract("pdf", repaired, 1, FileLimits()).text
    with pytest.raises(FileRejected):
        extract("pdf", data[: len(data) // 2], 1, FileLimits())
    assert not [r for r in debug_logs.records if r.name.startswith("pypdf")]
    assert leaked(list(DOCUMENT_SEEDED), debug_logs.text) == []


def test_log_failure_names_the_type_and_place_never_the_message(
    caplog: pytest.LogCaptureFixture,
) -> None:
    try:
        raise _Leaky("Maria Gonzalez, 4111 1111 1111 1111")
    except _Leaky as exc:
        log_failure(logging.getLogger("t"), "event %s failed", exc, "Ev1")
        described = describe(exc)
    assert "event Ev1 failed: _Leaky at test_privacy_logs.py:" in caplog.text
    assert "Maria" not in caplog.text
    assert "4111" not in described


SQL = ("aiosqlite", "sqlalchemy", "asyncpg")
LIBRARY_LOGGERS = (
    "aiosqlite",
    "sqlalchemy",
    "asyncpg",
    "redis",
    "httpx",
    "httpx2",
    "httpcore",
    "httpcore2",
    "aiohttp",
    "urllib3",
    "anthropic",
    "openai",
    "botocore",
)


async def test_sql_and_http_libraries_log_nothing_of_a_turn_at_debug(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, debug_logs: pytest.LogCaptureFixture
) -> None:
    app = await make_app()
    thread = unique_thread()
    for text in TURNS:
        await app.conversation.handle(message(text, thread))

    assert leaked(SEEDED, debug_logs.text) == []
    # the audit INSERT carries the (redacted) prompt: the driver must not log it
    assert "about the refund" not in debug_logs.text
    chatty = {
        r.name
        for r in debug_logs.records
        if r.name.split(".")[0] in LIBRARY_LOGGERS
        and r.levelno < (logging.WARNING if r.name.startswith(SQL) else logging.INFO)
    }
    assert chatty == set()


def test_every_model_sdk_logger_stays_above_debug(debug_logs: pytest.LogCaptureFixture) -> None:
    # At DEBUG the SDKs log request bodies and signing material: never let them.
    for name in ("anthropic", "openai", "botocore", "boto3", "google.auth", "urllib3", "httpx2"):
        assert logging.getLogger(name).getEffectiveLevel() >= logging.INFO, name
